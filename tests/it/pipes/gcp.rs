//! BigQuery and Pub/Sub pipes (issue 35, part 1), through the binary against the sandbox: each
//! created from YAML with its service-account key and read back with an empty plan, the key in
//! no output or saved plan; stopped, started and deleted; exported with a placeholder for the
//! key, the export validating and planning empty. The cloud's PATCH takes no BigQuery source,
//! so each of its changes (a table mapping, a raised `credentialsVersion`) replaces the pipe;
//! a Pub/Sub `ackDeadline` is patched in place with the `authentication` and
//! `serviceAccountKey` its PATCH schema requires, its key rotated once, a `topic` change
//! replaces it. Bad members are refused at their line, and the sandbox refuses what the
//! document refuses.

use std::time::Duration;

use serde_json::{Value, json};

use crate::common::{ANALYTICS, Converge, Workspace};
use crate::pipes::analytics_with;
use crate::pipes::database::{CREATE, EDIT, STATE, assert_no_secret, created, pipe_writes};
use crate::pipes::state::live;

/// A pipe's delete.
const DELETE: &str =
    "DELETE /v1/organizations/{organizationId}/services/{serviceId}/pipes/{pipeId}";

/// The BigQuery key's variable and value, which no output may hold.
const BIGQUERY_KEY: [(&str, &str); 1] = [("PIPE_BQ_KEY", "Y2FuYXJ5LWJpZ3F1ZXJ5LWtleS03YTE5")];

/// The Pub/Sub key's variable and value.
const PUBSUB_KEY: [(&str, &str); 1] = [("PIPE_PUBSUB_KEY", "Y2FuYXJ5LXB1YnN1Yi1rZXktNGQwYw==")];

/// A bigquery pipe declared whole.
const BIGQUERY: &str = "      warehouse:
        name: orders from bigquery
        source:
          bigquery:
            snapshotStagingPath: gs://shop-staging/converge/
            credentials:
              serviceAccountFile: ${env:PIPE_BQ_KEY}
            settings: { replicationMode: snapshot, initialLoadParallelism: 4 }
            tableMappings:
              - { sourceDatasetName: shop, sourceTable: orders, targetTable: shop_orders }
        destination:
          database: shop
";

/// A pubsub pipe declared whole.
const PUBSUB: &str = "      events:
        name: events from pubsub
        source:
          pubsub:
            format: JSONEachRow
            projectId: shop-project
            topic: events
            authentication: SERVICE_ACCOUNT
            seekType: earliest
            ackDeadline: 60
            serviceAccountKey:
              serviceAccountFile: ${env:PIPE_PUBSUB_KEY}
        destination:
          database: default
          table: events
          managedTable: false
          columns: [{ name: id, type: String }]
        fieldMappings: [{ sourceField: id, destinationField: id }]
";

/// A pubsub create as the API takes it, sent by hand.
static PUBSUB_CREATE: std::sync::LazyLock<Value> = std::sync::LazyLock::new(|| {
    json!({"name": "late", "source": {"pubsub": {"format": "JSONEachRow",
        "projectId": "p", "topic": "t", "authentication": "SERVICE_ACCOUNT",
        "seekType": "latest", "serviceAccountKey": {"serviceAccountFile": "a2V5"}}},
        "destination": {"database": "default", "table": "late", "managedTable": false,
            "columns": [{"name": "id", "type": "String"}]},
        "fieldMappings": [{"sourceField": "id", "destinationField": "id"}]})
});

/// Each kind: its config key, declaration, pipe name, key, where its create sends the key,
/// and the state a stopped pipe of the kind reads.
struct Case {
    kind: &'static str,
    key: &'static str,
    declared: &'static str,
    name: &'static str,
    secret: [(&'static str, &'static str); 1],
    sent_at: &'static str,
    stopped: &'static str,
}

const CASES: [Case; 2] = [
    Case {
        kind: "bigquery",
        key: "warehouse",
        declared: BIGQUERY,
        name: "orders from bigquery",
        secret: BIGQUERY_KEY,
        sent_at: "/source/bigquery/credentials/serviceAccountFile",
        stopped: "Paused",
    },
    Case {
        kind: "pubsub",
        key: "events",
        declared: PUBSUB,
        name: "events from pubsub",
        secret: PUBSUB_KEY,
        sent_at: "/source/pubsub/serviceAccountKey/serviceAccountFile",
        stopped: "Stopped",
    },
];

/// The bodies of the log's writes to `route`.
fn bodies(sandbox: &converge::sandbox::SandboxHandle, route: &str) -> Vec<Value> {
    pipe_writes(sandbox)
        .into_iter()
        .filter(|(write, _)| write == route)
        .map(|(_, body)| body)
        .collect()
}

/// `name:` of a case's declaration, to add a line after.
fn named(case: &Case) -> String {
    format!("        name: {}\n", case.name)
}

#[test]
fn each_gcp_pipe_is_created_with_its_key_and_reads_back_with_an_empty_plan() {
    for case in &CASES {
        let (sandbox, config) = created(case.declared, case.secret);
        let creates = bodies(&sandbox, CREATE);
        assert_eq!(creates.len(), 1, "{}: {creates:?}", case.kind);
        assert_eq!(
            creates[0].pointer(case.sent_at),
            Some(&json!(case.secret[0].1)),
            "{}",
            case.kind
        );
        let pipe = live(&sandbox, case.name);
        assert_eq!(pipe["state"], "Running", "{}", case.kind);
        assert!(!pipe.to_string().contains(case.secret[0].1));
        let converge = Converge::new(&sandbox)
            .fast()
            .envs(case.secret)
            .config(&config);
        let plan = converge.run(["plan", "--detailed-exitcode"]);
        assert_no_secret(&plan, &case.secret);
        assert_eq!(plan.code, 0, "{}: {plan:?}", case.kind);
        let shown = converge.run(["show", &format!("pipe.analytics.{}", case.key)]);
        assert_no_secret(&shown, &case.secret);
    }
}

/// `state: stopped` stops each (a BigQuery pipe, a database pipe, reads `Paused`),
/// `state: running` starts it, `absent: true` with `--allow-destroy` deletes it, and the next
/// plan is empty.
#[test]
fn each_gcp_pipe_is_stopped_started_and_deleted() {
    for case in &CASES {
        let (sandbox, config) = created(case.declared, case.secret);
        let named = named(case);
        let converge = Converge::new(&sandbox).fast().envs(case.secret);
        let stopped = config.replace(&named, &format!("{named}        state: stopped\n"));
        sandbox.reset_log();
        converge
            .config(&stopped)
            .run(["apply", "--yes"])
            .assert_exit(0);
        assert_eq!(
            pipe_writes(&sandbox),
            vec![(STATE.to_string(), json!({"command": "stop"}))],
            "{}",
            case.kind
        );
        std::thread::sleep(Duration::from_millis(900));
        assert_eq!(live(&sandbox, case.name)["state"], case.stopped);
        let running = config.replace(&named, &format!("{named}        state: running\n"));
        sandbox.reset_log();
        Converge::new(&sandbox)
            .fast()
            .envs(case.secret)
            .config(&running)
            .run(["apply", "--yes"])
            .assert_exit(0);
        assert_eq!(
            pipe_writes(&sandbox),
            vec![(STATE.to_string(), json!({"command": "start"}))],
            "{}",
            case.kind
        );
        std::thread::sleep(Duration::from_millis(900));
        let absent = config.replace(&named, &format!("{named}        absent: true\n"));
        let deleting = Converge::new(&sandbox)
            .fast()
            .envs(case.secret)
            .config(&absent);
        deleting
            .run(["apply", "--yes", "--allow-destroy"])
            .assert_exit(0);
        // The server answers a delete before its teardown ends.
        std::thread::sleep(Duration::from_millis(900));
        deleting.run(["plan", "--detailed-exitcode"]).assert_exit(0);
    }
}

#[test]
fn each_gcp_pipe_is_exported_with_a_key_placeholder_and_the_export_plans_empty() {
    for case in &CASES {
        let (sandbox, _) = created(case.declared, case.secret);
        let export = Converge::new(&sandbox)
            .fast()
            .run(["export", "--service", ANALYTICS]);
        export.assert_exit(0);
        assert_no_secret(&export, &case.secret);
        let yaml = export.stdout.clone();
        assert!(yaml.contains(&format!("{}:", case.kind)), "{yaml}");
        assert!(yaml.contains("serviceAccountFile: ${env:"), "{yaml}");
        let validated = Converge::offline()
            .config_as("exported.yaml", &yaml)
            .run(["validate", "--format", "json"]);
        validated.assert_exit(0);
        let planned = Converge::new(&sandbox)
            .fast()
            .config_as("exported.yaml", &yaml)
            .run(["plan", "--detailed-exitcode"]);
        assert_eq!(planned.code, 0, "{}: {planned:?}\n{yaml}", case.kind);
        assert!(planned.writes().is_empty());
    }
}

/// A table-mapping change of a BigQuery pipe is a replacement (the cloud's PATCH takes no
/// bigquery source): refused without `--allow-destroy`, then one `DELETE` and one `POST`
/// carrying the key, and the next plan is empty.
#[test]
fn a_bigquery_table_mapping_change_replaces_the_pipe() {
    let (sandbox, config) = created(BIGQUERY, BIGQUERY_KEY);
    let remapped = config.replace("targetTable: shop_orders", "targetTable: orders_v2");
    let converge = Converge::new(&sandbox)
        .fast()
        .envs(BIGQUERY_KEY)
        .config(&remapped);
    let planned = converge.run(["plan"]);
    assert_no_secret(&planned, &BIGQUERY_KEY);
    assert!(
        planned.stdout.contains("-/+ pipe.analytics.warehouse")
            && planned
                .stdout
                .contains("the cloud's PATCH takes no bigquery source"),
        "{planned:?}"
    );
    sandbox.reset_log();
    let refused = converge.run(["apply", "--yes"]);
    assert_eq!(refused.code, 4, "{refused:?}");
    assert!(pipe_writes(&sandbox).is_empty());
    let applied = converge.run(["apply", "--yes", "--allow-destroy"]);
    assert_no_secret(&applied, &BIGQUERY_KEY);
    assert_eq!(applied.code, 0, "{applied:?}");
    let writes: Vec<String> = pipe_writes(&sandbox).into_iter().map(|(w, _)| w).collect();
    assert_eq!(writes, vec![DELETE.to_string(), CREATE.to_string()]);
    let created = &bodies(&sandbox, CREATE)[0];
    assert_eq!(
        created.pointer("/source/bigquery/tableMappings/0/targetTable"),
        Some(&json!("orders_v2"))
    );
    std::thread::sleep(Duration::from_millis(600));
    converge.run(["plan", "--detailed-exitcode"]).assert_exit(0);
}

/// A raised `credentialsVersion` of a BigQuery pipe replaces it (its key can be sent only on
/// create), through a saved plan that holds no key; the key is sent once, and the next apply
/// sends nothing.
#[test]
fn a_bigquery_rotation_replaces_the_pipe_sending_the_key_once() {
    let (sandbox, config) = created(BIGQUERY, BIGQUERY_KEY);
    let rotated = config.replace(
        "        name: orders from bigquery\n",
        "        name: orders from bigquery\n        credentialsVersion: 2\n",
    );
    let workspace = Workspace::new();
    let plan_path = workspace.path().join("plan.json").display().to_string();
    let converge = Converge::new(&sandbox)
        .fast()
        .envs(BIGQUERY_KEY)
        .config(&rotated);
    let planned = converge.run(["plan", "--out", &plan_path]);
    assert_no_secret(&planned, &BIGQUERY_KEY);
    assert!(
        planned
            .stdout
            .contains("`credentialsVersion` forces replacement"),
        "{planned:?}"
    );
    let saved = std::fs::read_to_string(&plan_path).unwrap();
    assert!(!saved.contains(BIGQUERY_KEY[0].1));
    sandbox.reset_log();
    let applied = converge.run(["apply", "--yes", "--allow-destroy", "--plan", &plan_path]);
    assert_no_secret(&applied, &BIGQUERY_KEY);
    assert_eq!(applied.code, 0, "{applied:?}");
    let creates = bodies(&sandbox, CREATE);
    assert_eq!(creates.len(), 1, "{applied:?}");
    assert_eq!(
        creates[0].pointer("/source/bigquery/credentials/serviceAccountFile"),
        Some(&json!(BIGQUERY_KEY[0].1))
    );
    std::thread::sleep(Duration::from_millis(600));
    sandbox.reset_log();
    let again = converge.run(["apply", "--yes", "--allow-destroy"]);
    assert_eq!(again.code, 0, "{again:?}");
    assert!(pipe_writes(&sandbox).is_empty(), "{again:?}");
}

/// A Pub/Sub `ackDeadline` is patched in place, its source carrying the `authentication` and
/// the `serviceAccountKey: null` (kept) the document requires; a `topic` change replaces the
/// pipe.
#[test]
fn a_pubsub_ack_deadline_is_patched_in_place_and_a_topic_change_replaces_the_pipe() {
    let (sandbox, config) = created(PUBSUB, PUBSUB_KEY);
    let longer = config.replace("ackDeadline: 60", "ackDeadline: 120");
    sandbox.reset_log();
    let applied = Converge::new(&sandbox)
        .fast()
        .envs(PUBSUB_KEY)
        .config(&longer)
        .run(["apply", "--yes"]);
    assert_no_secret(&applied, &PUBSUB_KEY);
    assert_eq!(applied.code, 0, "{applied:?}");
    assert_eq!(
        bodies(&sandbox, EDIT),
        vec![json!({"source": {"pubsub": {"ackDeadline": 120,
            "authentication": "SERVICE_ACCOUNT", "serviceAccountKey": null}}})],
        "{applied:?}"
    );
    assert_eq!(
        live(&sandbox, "events from pubsub")["source"]["pubsub"]["ackDeadline"],
        120
    );
    let moved = longer.replace("topic: events", "topic: events-v2");
    let planned = Converge::new(&sandbox)
        .fast()
        .envs(PUBSUB_KEY)
        .config(&moved)
        .run(["plan"]);
    assert!(
        planned.stdout.contains("-/+ pipe.analytics.events")
            && planned.stdout.contains("source.pubsub.topic"),
        "{planned:?}"
    );
}

/// A raised `credentialsVersion` sends the Pub/Sub key once, in one `PATCH` with the
/// `authentication` the document requires; the next apply sends nothing.
#[test]
fn a_pubsub_rotation_sends_the_key_once() {
    let (sandbox, config) = created(PUBSUB, PUBSUB_KEY);
    let rotated = config.replace(
        "        name: events from pubsub\n",
        "        name: events from pubsub\n        credentialsVersion: 2\n",
    );
    let converge = Converge::new(&sandbox)
        .fast()
        .envs(PUBSUB_KEY)
        .config(&rotated);
    sandbox.reset_log();
    let applied = converge.run(["apply", "--yes"]);
    assert_no_secret(&applied, &PUBSUB_KEY);
    assert_eq!(applied.code, 0, "{applied:?}");
    assert_eq!(
        bodies(&sandbox, EDIT),
        vec![
            json!({"source": {"pubsub": {"authentication": "SERVICE_ACCOUNT",
            "serviceAccountKey": {"serviceAccountFile": PUBSUB_KEY[0].1}}}})
        ],
        "{applied:?}"
    );
    sandbox.reset_log();
    let again = converge.run(["apply", "--yes"]);
    assert_eq!(again.code, 0, "{again:?}");
    assert!(bodies(&sandbox, EDIT).is_empty(), "{again:?}");
}

#[test]
fn a_gcp_member_out_of_the_documents_range_or_enum_is_refused_at_its_line() {
    let workspace = Workspace::new();
    let bad_bigquery = BIGQUERY
        .replace("replicationMode: snapshot", "replicationMode: cdc")
        .replace("gs://shop-staging/converge/", "s3://shop-staging/converge/");
    let bad_pubsub = PUBSUB
        .replace("ackDeadline: 60", "ackDeadline: 5")
        .replace("format: JSONEachRow", "format: CSV")
        .replace(
            "seekType: earliest",
            "seekType: earliest\n            seekTimestamp: 2026-01-01T00:00:00Z",
        )
        .replace(
            "        fieldMappings:",
            "        scaling: { replicas: 2 }\n        fieldMappings:",
        );
    let config = analytics_with(&format!("{bad_bigquery}{bad_pubsub}"));
    let path = workspace.write("converge.yaml", &config);
    let line = |needle: &str| 1 + config[..config.find(needle).unwrap()].matches('\n').count();
    let outcome = Converge::offline()
        .envs(BIGQUERY_KEY)
        .envs(PUBSUB_KEY)
        .cwd(&workspace)
        .run(["validate", &path]);
    assert_eq!(outcome.code, 1, "{outcome:?}");
    for needle in [
        "replicationMode: cdc",
        "s3://shop-staging",
        "ackDeadline: 5",
        "format: CSV",
        "seekTimestamp:",
        "scaling:",
    ] {
        assert!(
            outcome
                .stderr
                .contains(&format!("converge.yaml:{}:", line(needle))),
            "{needle}: {outcome:?}"
        );
    }
    let literal = analytics_with(&BIGQUERY.replace("${env:PIPE_BQ_KEY}", "bGl0ZXJhbC1rZXk="));
    let path = workspace.write("literal.yaml", &literal);
    let outcome = Converge::offline().cwd(&workspace).run(["validate", &path]);
    assert_eq!(outcome.code, 1, "{outcome:?}");
    assert!(outcome.stderr.contains("literal-secret"), "{outcome:?}");
    assert!(!outcome.stderr.contains("bGl0ZXJhbC1rZXk="), "{outcome:?}");
}

/// The sandbox refuses what the document refuses: any bigquery source in a `PATCH`, a pubsub
/// one without `serviceAccountKey` or with a deadline out of its range, a pubsub create with a
/// timestamp for another seek, and a resync of a BigQuery pipe.
#[test]
fn the_sandbox_refuses_what_the_document_refuses_of_gcp_pipes() {
    let (sandbox, _) = created(
        &format!("{BIGQUERY}{PUBSUB}"),
        [BIGQUERY_KEY[0], PUBSUB_KEY[0]],
    );
    let client = crate::common::Client::new(&sandbox);
    let id = |name: &str| live(&sandbox, name)["id"].as_str().unwrap().to_string();
    let (bigquery, pubsub) = (id("orders from bigquery"), id("events from pubsub"));
    let pipe = |id: &str| format!("/services/{ANALYTICS}/pipes/{id}");
    for (path, body, field) in [
        (
            pipe(&bigquery),
            json!({"source": {"bigquery": {"snapshotStagingPath": "gs://b/p/"}}}),
            "source.bigquery",
        ),
        (
            pipe(&pubsub),
            json!({"source": {"pubsub": {"authentication": "SERVICE_ACCOUNT", "ackDeadline": 30}}}),
            "source.pubsub.serviceAccountKey",
        ),
        (
            pipe(&pubsub),
            json!({"source": {"pubsub": {"authentication": null, "serviceAccountKey": null,
                "ackDeadline": 5}}}),
            "source.pubsub.ackDeadline",
        ),
        (
            pipe(&pubsub),
            json!({"source": {"pubsub": {"authentication": null, "serviceAccountKey": null,
                "topic": "other"}}}),
            "source.pubsub.topic",
        ),
    ] {
        let answer = client.cloud("PATCH", &path, Some(body.clone()));
        assert_eq!(answer.status, 400, "{body}: {}", answer.text);
        assert!(answer.text.contains(field), "{body}: {}", answer.text);
    }
    let resync = client.cloud(
        "PATCH",
        &format!("{}/state", pipe(&bigquery)),
        Some(json!({"command": "resync"})),
    );
    assert_eq!(resync.status, 400, "{}", resync.text);
    let mut create = PUBSUB_CREATE.clone();
    create["source"]["pubsub"]["seekTimestamp"] = json!("2026-01-01T00:00:00Z");
    let answer = client.cloud(
        "POST",
        &format!("/services/{ANALYTICS}/pipes"),
        Some(create),
    );
    assert_eq!(answer.status, 400, "{}", answer.text);
    assert!(
        answer.text.contains("source.pubsub.seekTimestamp"),
        "{}",
        answer.text
    );
    let fine = client.cloud(
        "PATCH",
        &pipe(&pubsub),
        Some(
            json!({"source": {"pubsub": {"authentication": "SERVICE_ACCOUNT",
            "serviceAccountKey": null, "ackDeadline": 30}}}),
        ),
    );
    assert_eq!(fine.status, 200, "{}", fine.text);
}

/// Every request the GCP pipes' life sends (creates, an in-place edit, a rotation, a stop and
/// start, a replacement, a delete) and every answer the sandbox gives conform to the cloud
/// document.
#[test]
fn the_gcp_pipes_life_speaks_the_cloud_document() {
    let Some(checker) = crate::conformance::Checker::load() else {
        return;
    };
    let both = [BIGQUERY_KEY[0], PUBSUB_KEY[0]];
    let (sandbox, config) = created(&format!("{BIGQUERY}{PUBSUB}"), both);
    let converge = Converge::new(&sandbox).fast().envs(both);
    let edited = config
        .replace("ackDeadline: 60", "ackDeadline: 90")
        .replace("targetTable: shop_orders", "targetTable: orders_v2")
        .replace(
            "        name: events from pubsub\n",
            "        name: events from pubsub\n        credentialsVersion: 2\n        state: stopped\n",
        );
    for config in [&edited, &edited.replace("state: stopped", "state: running")] {
        let applied = converge
            .clone()
            .config(config)
            .run(["apply", "--yes", "--allow-destroy"]);
        assert_eq!(applied.code, 0, "{applied:?}");
        std::thread::sleep(Duration::from_millis(900));
    }
    let report = checker.check_log(&sandbox.request_log());
    report.assert_clean("the GCP pipes' life");
    assert!(report.requests >= 5, "{report:?}");
}

/// A server that echoes a service-account key in a pipe's own text (here the name of a pipe
/// the config does not manage, in plain and escaped forms) gets it masked in every output.
#[test]
fn a_key_echoed_by_the_server_is_masked_in_every_output() {
    let (sandbox, config) = created(PUBSUB, PUBSUB_KEY);
    let client = crate::common::Client::new(&sandbox);
    let secret = PUBSUB_KEY[0].1;
    for (n, name) in [
        format!("copy {secret}"),
        format!("quoted \"{secret}\" \\ {secret}\t"),
    ]
    .iter()
    .enumerate()
    {
        let mut copy = PUBSUB_CREATE.clone();
        copy["name"] = json!(name);
        copy["destination"]["table"] = json!(format!("copy_{n}"));
        let made = client.cloud("POST", &format!("/services/{ANALYTICS}/pipes"), Some(copy));
        assert_eq!(made.status, 200, "{}", made.text);
    }
    let workspace = Workspace::new();
    let saved = workspace.path().join("plan.json").display().to_string();
    let converge = Converge::new(&sandbox)
        .fast()
        .envs(PUBSUB_KEY)
        .config(&config);
    let outputs = [
        converge.run(["drift"]),
        converge.run(["drift", "--format", "json"]),
        converge.run(["plan", "--format", "markdown", "--out", &saved]),
        converge.run(["show", &saved]),
    ];
    for (n, outcome) in outputs.iter().enumerate() {
        assert_no_secret(outcome, &PUBSUB_KEY);
        // A plan shows no pipe the config does not manage; drift shows both.
        assert!(n >= 2 || outcome.stdout.contains("***"), "{outcome:?}");
    }
    let file = std::fs::read_to_string(&saved).unwrap();
    assert!(!file.contains(secret));
}

/// A member changed outside converge is drift: `drift` reports it at the pipe's address,
/// `drift --write` writes the live value into the config (never a key), after which the plan
/// is empty; `plan --only` takes each kind's pipe address.
#[test]
fn gcp_pipe_drift_is_reported_written_back_and_only_plans_its_pipe() {
    let both = [BIGQUERY_KEY[0], PUBSUB_KEY[0]];
    let (sandbox, config) = created(&format!("{BIGQUERY}{PUBSUB}"), both);
    let client = crate::common::Client::new(&sandbox);
    let id = live(&sandbox, "events from pubsub")["id"]
        .as_str()
        .unwrap()
        .to_string();
    let edited = client.cloud(
        "PATCH",
        &format!("/services/{ANALYTICS}/pipes/{id}"),
        Some(json!({"source": {"pubsub": {"authentication": null,
            "serviceAccountKey": null, "ackDeadline": 300}}})),
    );
    assert_eq!(edited.status, 200, "{}", edited.text);
    let workspace = Workspace::new();
    let path = workspace.write("converge.yaml", &config);
    let converge = Converge::new(&sandbox).fast().envs(both).cwd(&workspace);
    let drift = converge.run(["drift", &path]);
    assert_no_secret(&drift, &both);
    assert_eq!(drift.code, 2, "{drift:?}");
    assert!(
        drift.stdout.contains("pipe.analytics.events") && drift.stdout.contains("ackDeadline"),
        "{drift:?}"
    );
    let only = converge.run(["plan", &path, "--only", "pipe.analytics.events"]);
    assert!(
        only.stdout.contains("~ pipe.analytics.events") && !only.stdout.contains("warehouse"),
        "{only:?}"
    );
    converge
        .run([
            "plan",
            &path,
            "--only",
            "pipe.analytics.warehouse",
            "--detailed-exitcode",
        ])
        .assert_exit(0);
    let written = converge.run(["drift", &path, "--write"]);
    assert_no_secret(&written, &both);
    assert_eq!(
        written.code, 2,
        "drift found, all of it written back: {written:?}"
    );
    let text = std::fs::read_to_string(&path).unwrap();
    assert!(text.contains("ackDeadline: 300"), "{text}");
    assert!(text.contains("${env:PIPE_PUBSUB_KEY}") && !text.contains(PUBSUB_KEY[0].1));
    converge
        .run(["plan", &path, "--detailed-exitcode"])
        .assert_exit(0);
}

/// A create of each kind whose answer is lost is looked for by name before anything is sent
/// again: one create is sent, and the next plan is empty (its key recorded as sent).
#[test]
fn a_gcp_create_whose_answer_was_lost_is_found_by_name_not_sent_twice() {
    for case in &CASES {
        let sandbox = crate::common::sandbox(converge::sandbox::SandboxOptions {
            rate_limit: false,
            faults: "lost@POST=1".parse().unwrap(),
            ..converge::sandbox::SandboxOptions::default()
        });
        let rotated = case.declared.replace(
            &named(case),
            &format!("{}        credentialsVersion: 1\n", named(case)),
        );
        let converge = Converge::new(&sandbox)
            .fast()
            .envs(case.secret)
            .config(&analytics_with(&rotated));
        let applied = converge.run(["apply", "--yes"]);
        assert_no_secret(&applied, &case.secret);
        assert_eq!(applied.code, 0, "{}: {applied:?}", case.kind);
        assert_eq!(
            applied
                .writes()
                .iter()
                .filter(|w| w.ends_with("/pipes"))
                .count(),
            1,
            "{}: {applied:?}",
            case.kind
        );
        converge.run(["plan", "--detailed-exitcode"]).assert_exit(0);
    }
}
