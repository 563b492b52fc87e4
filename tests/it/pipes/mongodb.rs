//! MongoDB pipes (issue 35, part 1), through the binary against the sandbox: created from
//! YAML and read back with an empty plan, credentials in no output; a collection-mapping change
//! pauses the pipe and sends only the deltas (with the `uri` and `readPreference` the
//! document's `ClickPipePatchMongoDBSource` requires); an in-place setting is patched and a
//! replacing one replaces the pipe; the export validates and plans empty; a bad member is
//! refused at its line.

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
    ("PIPE_MONGO_USERNAME", "canary-mongo-user-8c14"),
    ("PIPE_MONGO_PASSWORD", "canary-mongo-password-3f6a"),
];

/// The one collection mapping of [`MONGODB`].
const MAPPING: &str = "              - { sourceDatabaseName: shop, sourceCollection: orders, targetTable: shop_orders }
";

/// The declared pipe's connection URI.
const URI: &str = "mongodb+srv://cluster0.example.mongodb.net/shop";

/// A mongodb pipe declared whole.
const MONGODB: &str = "      shop:
        name: orders from mongodb
        source:
          mongodb:
            uri: mongodb+srv://cluster0.example.mongodb.net/shop
            readPreference: secondaryPreferred
            credentials:
              username: ${env:PIPE_MONGO_USERNAME}
              password: ${env:PIPE_MONGO_PASSWORD}
            settings: { replicationMode: cdc, pullBatchSize: 1000, useJsonNativeFormat: true }
            tableMappings:
              - { sourceDatabaseName: shop, sourceCollection: orders, targetTable: shop_orders }
        destination:
          database: shop
";

#[test]
fn a_mongodb_pipe_is_created_with_its_credentials_and_reads_back_with_an_empty_plan() {
    let (sandbox, config) = created(MONGODB, SECRETS);
    let creates: Vec<Value> = pipe_writes(&sandbox)
        .into_iter()
        .filter(|(write, _)| write == CREATE)
        .map(|(_, body)| body)
        .collect();
    assert_eq!(creates.len(), 1, "{creates:?}");
    let source = &creates[0]["source"]["mongodb"];
    assert_eq!(source["readPreference"], "secondaryPreferred");
    assert_eq!(source["credentials"]["username"], SECRETS[0].1);
    assert_eq!(creates[0]["destination"], json!({"database": "shop"}));
    let pipe = live(&sandbox, "orders from mongodb");
    assert_eq!(pipe["state"], "Running");
    assert!(pipe["source"]["mongodb"].get("credentials").is_none());
    let converge = Converge::new(&sandbox).fast().envs(SECRETS).config(&config);
    let plan = converge.run(["plan", "--detailed-exitcode"]);
    assert_no_secret(&plan, &SECRETS);
    assert_eq!(plan.code, 0, "{plan:?}");
    let shown = converge.run(["show", "pipe.analytics.shop"]);
    assert_no_secret(&shown, &SECRETS);
}

#[test]
fn a_mongodb_collection_mapping_change_pauses_the_pipe_and_sends_the_deltas_with_uri() {
    let (sandbox, config) = created(MONGODB, SECRETS);
    let remapped = config.replace(
        MAPPING,
        "              - { sourceDatabaseName: shop, sourceCollection: orders, targetTable: orders_v2 }\n              - { sourceDatabaseName: shop, sourceCollection: items, targetTable: shop_items }\n",
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
                json!({"source": {"mongodb": {
                    "uri": URI, "readPreference": "secondaryPreferred",
                    "tableMappingsToRemove": [{"sourceDatabaseName": "shop",
                        "sourceCollection": "orders", "targetTable": "shop_orders"}],
                    "tableMappingsToAdd": [
                        {"sourceDatabaseName": "shop", "sourceCollection": "orders",
                            "targetTable": "orders_v2"},
                        {"sourceDatabaseName": "shop", "sourceCollection": "items",
                            "targetTable": "shop_items"}]}}})
            ),
        ],
        "{applied:?}"
    );
    std::thread::sleep(Duration::from_millis(900));
    assert_eq!(live(&sandbox, "orders from mongodb")["state"], "Running");
    converge.run(["plan", "--detailed-exitcode"]).assert_exit(0);
}

#[test]
fn a_mongodb_setting_is_patched_in_place_and_a_replacing_one_replaces_the_pipe() {
    let (sandbox, config) = created(MONGODB, SECRETS);
    let compressed = config.replace("pullBatchSize: 1000", "pullBatchSize: 5000");
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
            json!({"source": {"mongodb": {"uri": URI, "readPreference": "secondaryPreferred",
            "settings": {"pullBatchSize": 5000}}}})
        ],
        "{applied:?}"
    );
    let mariadb = compressed.replace("useJsonNativeFormat: true", "useJsonNativeFormat: false");
    let planned = Converge::new(&sandbox)
        .fast()
        .envs(SECRETS)
        .config(&mariadb)
        .run(["plan"]);
    assert_no_secret(&planned, &SECRETS);
    assert!(
        planned
            .stdout
            .contains("source.mongodb.settings.useJsonNativeFormat")
            && planned.stdout.contains("forces replacement"),
        "{planned:?}"
    );
}

#[test]
fn a_mongodb_pipe_is_exported_with_placeholders_and_the_export_plans_empty() {
    let (sandbox, _) = created(MONGODB, SECRETS);
    let export = Converge::new(&sandbox)
        .fast()
        .run(["export", "--service", ANALYTICS]);
    export.assert_exit(0);
    assert_no_secret(&export, &SECRETS);
    let yaml = export.stdout.clone();
    assert!(yaml.contains("mongodb:"), "{yaml}");
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
fn a_mongodb_member_out_of_the_documents_range_or_enum_is_refused_at_its_line() {
    let workspace = Workspace::new();
    let config = analytics_with(
        &MONGODB
            .replace("pullBatchSize: 1000", "pullBatchSize: 0")
            .replace(
                "readPreference: secondaryPreferred",
                "readPreference: closest",
            ),
    );
    let path = workspace.write("converge.yaml", &config);
    let line = |needle: &str| 1 + config[..config.find(needle).unwrap()].matches('\n').count();
    let outcome = Converge::offline()
        .envs(SECRETS)
        .cwd(&workspace)
        .run(["validate", &path]);
    assert_eq!(outcome.code, 1, "{outcome:?}");
    for needle in ["pullBatchSize: 0", "readPreference: closest"] {
        assert!(
            outcome
                .stderr
                .contains(&format!("converge.yaml:{}:", line(needle))),
            "{needle}: {outcome:?}"
        );
    }
}

/// A raised `credentialsVersion` sends the mongodb credentials once, in one `PATCH` whose
/// source carries the `uri` and `readPreference` the document requires; the next apply sends
/// nothing.
#[test]
fn a_mongodb_rotation_sends_the_credentials_once_with_uri_and_read_preference() {
    let (sandbox, config) = created(MONGODB, SECRETS);
    let rotated = config.replace(
        "        name: orders from mongodb\n",
        "        name: orders from mongodb\n        credentialsVersion: 2\n",
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
            json!({"source": {"mongodb": {"uri": URI, "readPreference": "secondaryPreferred",
            "credentials": {"username": SECRETS[0].1, "password": SECRETS[1].1}}}})
        ],
        "{applied:?}"
    );
    sandbox.reset_log();
    let again = converge.run(["apply", "--yes"]);
    assert_eq!(again.code, 0, "{again:?}");
    assert!(pipe_writes(&sandbox).iter().all(|(write, _)| write != EDIT));
}

/// The sandbox refuses what the document refuses: a mongodb `PATCH` source without `uri` and
/// `readPreference`, a read preference the document lacks, and a setting its patch schema
/// lacks.
#[test]
fn the_sandbox_refuses_a_mongodb_patch_the_document_refuses() {
    let (sandbox, _) = created(MONGODB, SECRETS);
    let id = live(&sandbox, "orders from mongodb")["id"]
        .as_str()
        .unwrap()
        .to_string();
    let client = crate::common::Client::new(&sandbox);
    let path = format!("/services/{ANALYTICS}/pipes/{id}");
    for (body, field) in [
        (
            json!({"source": {"mongodb": {"tlsHost": "t"}}}),
            "source.mongodb.uri",
        ),
        (
            json!({"source": {"mongodb": {"uri": URI, "tlsHost": "t"}}}),
            "source.mongodb.readPreference",
        ),
        (
            json!({"source": {"mongodb": {"uri": URI, "readPreference": "closest"}}}),
            "source.mongodb.readPreference",
        ),
        (
            json!({"source": {"mongodb": {"uri": URI, "readPreference": "primary",
                "settings": {"replicationMode": "snapshot"}}}}),
            "source.mongodb.settings.replicationMode",
        ),
    ] {
        let answer = client.cloud("PATCH", &path, Some(body.clone()));
        assert_eq!(answer.status, 400, "{body}: {}", answer.text);
        assert!(answer.text.contains(field), "{body}: {}", answer.text);
    }
    let fine = client.cloud(
        "PATCH",
        &path,
        Some(json!({"source": {"mongodb": {"uri": URI, "readPreference": "primary"}}})),
    );
    assert_eq!(fine.status, 200, "{}", fine.text);
}

/// The document's state endpoint says "Resyncing is only for Postgres and MySQL pipes":
/// `apply --resync` refuses a mongodb pipe naming where the config declares it (exit 1), and
/// sends nothing.
#[test]
fn a_mongodb_resync_is_refused_at_the_pipes_config_line() {
    let (sandbox, config) = created(MONGODB, SECRETS);
    sandbox.reset_log();
    let converge = Converge::new(&sandbox).fast().envs(SECRETS).config(&config);
    let refused = converge.run(["apply", "--resync", "pipe.analytics.shop", "--yes"]);
    assert_no_secret(&refused, &SECRETS);
    crate::common::converge_snapshot!("mongodb_resync_refused", refused);
    assert!(pipe_writes(&sandbox).is_empty());
}
