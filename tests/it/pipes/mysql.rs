//! MySQL pipes (issue 35, part 1), through the binary against the sandbox: created from YAML
//! and read back with an empty plan, credentials in no output; a table-mapping change pauses
//! the pipe and sends only the deltas (with the `host` and `port` the document's
//! `ClickPipePatchMySQLSource` requires); an in-place setting is patched and `type` replaces
//! the pipe; the export validates and plans empty; a bad member is refused at its line.

use std::time::Duration;

use serde_json::{Value, json};

use crate::common::{ANALYTICS, Converge, Workspace};
use crate::pipes::analytics_with;
use crate::pipes::database::{
    CREATE, EDIT, STATE, Secrets, assert_no_secret, created, pipe_writes,
};
use crate::pipes::state::live;

/// Credential values no output may ever hold.
const SECRETS: Secrets = [
    ("PIPE_MYSQL_USERNAME", "canary-mysql-user-2b71"),
    ("PIPE_MYSQL_PASSWORD", "canary-mysql-password-e90d"),
];

/// The one table mapping of [`MYSQL`].
const MAPPING: &str =
    "              - { sourceSchemaName: shop, sourceTable: orders, targetTable: shop_orders }\n";

/// A mysql pipe declared whole.
const MYSQL: &str = "      shop:\n        name: orders from mysql\n        source:\n          mysql:\n            type: mysql\n            host: mysql.example.com\n            port: 3306\n            serverId: 4242\n            credentials:\n              username: ${env:PIPE_MYSQL_USERNAME}\n              password: ${env:PIPE_MYSQL_PASSWORD}\n            settings: { replicationMode: cdc, replicationMechanism: GTID, useCompression: false }\n            tableMappings:\n              - { sourceSchemaName: shop, sourceTable: orders, targetTable: shop_orders }\n        destination:\n          database: shop\n";

#[test]
fn a_mysql_pipe_is_created_with_its_credentials_and_reads_back_with_an_empty_plan() {
    let (sandbox, config) = created(MYSQL, SECRETS);
    let creates: Vec<Value> = pipe_writes(&sandbox)
        .into_iter()
        .filter(|(write, _)| write == CREATE)
        .map(|(_, body)| body)
        .collect();
    assert_eq!(creates.len(), 1, "{creates:?}");
    let source = &creates[0]["source"]["mysql"];
    assert_eq!(source["host"], "mysql.example.com");
    assert_eq!(source["serverId"], 4242);
    assert_eq!(source["credentials"]["username"], SECRETS[0].1);
    assert_eq!(creates[0]["destination"], json!({"database": "shop"}));
    let pipe = live(&sandbox, "orders from mysql");
    assert_eq!(pipe["state"], "Running");
    assert!(pipe["source"]["mysql"].get("credentials").is_none());
    let converge = Converge::new(&sandbox).fast().envs(SECRETS).config(&config);
    let plan = converge.run(["plan", "--detailed-exitcode"]);
    assert_no_secret(&plan, &SECRETS);
    assert_eq!(plan.code, 0, "{plan:?}");
    let shown = converge.run(["show", "pipe.analytics.shop"]);
    assert_no_secret(&shown, &SECRETS);
}

#[test]
fn a_mysql_table_mapping_change_pauses_the_pipe_and_sends_the_deltas_with_host_and_port() {
    let (sandbox, config) = created(MYSQL, SECRETS);
    let remapped = config.replace(
        MAPPING,
        "              - { sourceSchemaName: shop, sourceTable: orders, targetTable: orders_v2 }\n              - { sourceSchemaName: shop, sourceTable: items, targetTable: shop_items }\n",
    );
    let converge = Converge::new(&sandbox)
        .fast()
        .envs(SECRETS)
        .config(&remapped);
    let planned = converge.run(["plan"]);
    assert_no_secret(&planned, &SECRETS);
    assert!(
        planned
            .stdout
            .contains("paused for the change, resumed after"),
        "{planned:?}"
    );
    sandbox.reset_log();
    let applied = converge.run(["apply", "--yes"]);
    assert_no_secret(&applied, &SECRETS);
    assert_eq!(applied.code, 0, "{applied:?}");
    assert_eq!(
        pipe_writes(&sandbox),
        vec![
            (STATE.to_string(), json!({"command": "stop"})),
            (
                EDIT.to_string(),
                json!({"source": {"mysql": {
                    "host": "mysql.example.com", "port": 3306,
                    "tableMappingsToRemove": [{"sourceSchemaName": "shop",
                        "sourceTable": "orders", "targetTable": "shop_orders"}],
                    "tableMappingsToAdd": [
                        {"sourceSchemaName": "shop", "sourceTable": "orders",
                            "targetTable": "orders_v2"},
                        {"sourceSchemaName": "shop", "sourceTable": "items",
                            "targetTable": "shop_items"}]}}})
            ),
        ],
        "{applied:?}"
    );
    std::thread::sleep(Duration::from_millis(900));
    assert_eq!(live(&sandbox, "orders from mysql")["state"], "Running");
    converge.run(["plan", "--detailed-exitcode"]).assert_exit(0);
}

#[test]
fn a_mysql_setting_is_patched_in_place_and_a_type_change_replaces_the_pipe() {
    let (sandbox, config) = created(MYSQL, SECRETS);
    let compressed = config.replace("useCompression: false", "useCompression: true");
    let converge = Converge::new(&sandbox).fast().envs(SECRETS);
    sandbox.reset_log();
    let applied = converge.config(&compressed).run(["apply", "--yes"]);
    assert_eq!(applied.code, 0, "{applied:?}");
    let edits: Vec<Value> = pipe_writes(&sandbox)
        .into_iter()
        .filter(|(write, _)| write == EDIT)
        .map(|(_, body)| body)
        .collect();
    assert_eq!(
        edits,
        vec![
            json!({"source": {"mysql": {"host": "mysql.example.com", "port": 3306,
            "settings": {"useCompression": true}}}})
        ],
        "{applied:?}"
    );
    let mariadb = compressed.replace("type: mysql", "type: mariadb");
    let planned = Converge::new(&sandbox)
        .fast()
        .envs(SECRETS)
        .config(&mariadb)
        .run(["plan"]);
    assert_no_secret(&planned, &SECRETS);
    assert!(
        planned.stdout.contains("source.mysql.type")
            && planned.stdout.contains("forces replacement"),
        "{planned:?}"
    );
}

#[test]
fn a_mysql_pipe_is_exported_with_placeholders_and_the_export_plans_empty() {
    let (sandbox, _) = created(MYSQL, SECRETS);
    let export = Converge::new(&sandbox)
        .fast()
        .run(["export", "--service", ANALYTICS]);
    export.assert_exit(0);
    assert_no_secret(&export, &SECRETS);
    let yaml = export.stdout.clone();
    assert!(yaml.contains("mysql:"), "{yaml}");
    assert!(yaml.contains("username: ${env:"), "{yaml}");
    let validated = Converge::offline()
        .config_as("exported.yaml", &yaml)
        .run(["validate", "--format", "json"]);
    validated.assert_exit(0);
    let planned = Converge::new(&sandbox)
        .fast()
        .config_as("exported.yaml", &yaml)
        .run(["plan", "--detailed-exitcode"]);
    assert_eq!(planned.code, 0, "{planned:?}\n{yaml}");
    assert!(planned.writes().is_empty());
}

#[test]
fn a_mysql_member_out_of_the_documents_range_or_enum_is_refused_at_its_line() {
    let workspace = Workspace::new();
    let config = analytics_with(
        &MYSQL
            .replace("port: 3306", "port: 70000")
            .replace("replicationMechanism: GTID", "replicationMechanism: BINLOG"),
    );
    let path = workspace.write("converge.yaml", &config);
    let line = |needle: &str| 1 + config[..config.find(needle).unwrap()].matches('\n').count();
    let outcome = Converge::offline()
        .envs(SECRETS)
        .cwd(&workspace)
        .run(["validate", &path]);
    assert_eq!(outcome.code, 1, "{outcome:?}");
    for needle in ["port: 70000", "replicationMechanism: BINLOG"] {
        assert!(
            outcome
                .stderr
                .contains(&format!("converge.yaml:{}:", line(needle))),
            "{needle}: {outcome:?}"
        );
    }
}

/// A raised `credentialsVersion` sends the mysql credentials once, in one `PATCH` whose source
/// carries the `host` and `port` the document requires; the next apply sends nothing.
#[test]
fn a_mysql_rotation_sends_the_credentials_once_with_host_and_port() {
    let (sandbox, config) = created(MYSQL, SECRETS);
    let rotated = config.replace(
        "        name: orders from mysql\n",
        "        name: orders from mysql\n        credentialsVersion: 2\n",
    );
    let converge = Converge::new(&sandbox)
        .fast()
        .envs(SECRETS)
        .config(&rotated);
    sandbox.reset_log();
    let applied = converge.run(["apply", "--yes"]);
    assert_no_secret(&applied, &SECRETS);
    assert_eq!(applied.code, 0, "{applied:?}");
    let edits: Vec<Value> = pipe_writes(&sandbox)
        .into_iter()
        .filter(|(write, _)| write == EDIT)
        .map(|(_, body)| body)
        .collect();
    assert_eq!(
        edits,
        vec![
            json!({"source": {"mysql": {"host": "mysql.example.com", "port": 3306,
            "credentials": {"username": SECRETS[0].1, "password": SECRETS[1].1}}}})
        ],
        "{applied:?}"
    );
    sandbox.reset_log();
    let again = converge.run(["apply", "--yes"]);
    assert_eq!(again.code, 0, "{again:?}");
    assert!(pipe_writes(&sandbox).iter().all(|(write, _)| write != EDIT));
}

/// The sandbox refuses what the document refuses: a mysql `PATCH` source without `host` and
/// `port`, a port out of range, and a member the document's patch schema lacks.
#[test]
fn the_sandbox_refuses_a_mysql_patch_the_document_refuses() {
    let (sandbox, _) = created(MYSQL, SECRETS);
    let id = live(&sandbox, "orders from mysql")["id"]
        .as_str()
        .unwrap()
        .to_string();
    let client = crate::common::Client::new(&sandbox);
    let path = format!("/services/{ANALYTICS}/pipes/{id}");
    for (body, field) in [
        (
            json!({"source": {"mysql": {"tlsHost": "t"}}}),
            "source.mysql.host",
        ),
        (
            json!({"source": {"mysql": {"host": "h", "tlsHost": "t"}}}),
            "source.mysql.port",
        ),
        (
            json!({"source": {"mysql": {"host": "h", "port": 70000}}}),
            "source.mysql.port",
        ),
        (
            json!({"source": {"mysql": {"host": "h", "port": 3306, "type": "mariadb"}}}),
            "source.mysql.type",
        ),
    ] {
        let answer = client.cloud("PATCH", &path, Some(body.clone()));
        assert_eq!(answer.status, 400, "{body}: {}", answer.text);
        assert!(answer.text.contains(field), "{body}: {}", answer.text);
    }
    let fine = client.cloud(
        "PATCH",
        &path,
        Some(json!({"source": {"mysql": {"host": "h", "port": 3307}}})),
    );
    assert_eq!(fine.status, 200, "{}", fine.text);
}

/// `state: stopped` stops a mysql pipe (a database pipe pauses) and `state: running` starts
/// it; `absent: true` with `--allow-destroy` deletes it, and the next plan is empty.
#[test]
fn a_mysql_pipe_is_stopped_started_and_deleted() {
    let (sandbox, config) = created(MYSQL, SECRETS);
    let named = "        name: orders from mysql\n";
    let converge = Converge::new(&sandbox).fast().envs(SECRETS);
    let stopped = config.replace(named, &format!("{named}        state: stopped\n"));
    sandbox.reset_log();
    converge
        .config(&stopped)
        .run(["apply", "--yes"])
        .assert_exit(0);
    assert_eq!(
        pipe_writes(&sandbox),
        vec![(STATE.to_string(), json!({"command": "stop"}))]
    );
    std::thread::sleep(Duration::from_millis(900));
    assert_eq!(live(&sandbox, "orders from mysql")["state"], "Paused");
    let running = config.replace(named, &format!("{named}        state: running\n"));
    sandbox.reset_log();
    let started = Converge::new(&sandbox)
        .fast()
        .envs(SECRETS)
        .config(&running);
    started.run(["apply", "--yes"]).assert_exit(0);
    assert_eq!(
        pipe_writes(&sandbox),
        vec![(STATE.to_string(), json!({"command": "start"}))]
    );
    std::thread::sleep(Duration::from_millis(900));
    let absent = config.replace(named, &format!("{named}        absent: true\n"));
    let deleting = Converge::new(&sandbox).fast().envs(SECRETS).config(&absent);
    deleting
        .run(["apply", "--yes", "--allow-destroy"])
        .assert_exit(0);
    // The server answers a delete before its teardown ends.
    std::thread::sleep(Duration::from_millis(900));
    deleting.run(["plan", "--detailed-exitcode"]).assert_exit(0);
}
