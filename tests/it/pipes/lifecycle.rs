//! Pipes declared whole (issue 22) through the real binary: each source kind validates, the
//! credentials are write-only references that appear in no output, and bad input is refused
//! at its line (the `7x-pipe-*` fixtures of `tests/fixtures/invalid`, run by `validate.rs`).

use serde_json::{Map, Value};

use crate::common::{Converge, Outcome, Workspace, converge_snapshot};

/// Credential values no output may ever hold.
pub(crate) const CANARIES: [(&str, &str); 6] = [
    ("PIPE_EVENTS_USERNAME", "canary-user-7f3a"),
    ("PIPE_EVENTS_PASSWORD", "canary-password-91c2"),
    ("PIPE_FILES_KEY_ID", "canary-key-id-44d0"),
    ("PIPE_FILES_SECRET_KEY", "canary-secret-key-0be9"),
    ("PIPE_REPLICA_USERNAME", "canary-pg-user-5a17"),
    ("PIPE_REPLICA_PASSWORD", "canary-pg-password-c3e8"),
];

/// The credentials of the newer kinds' pipes of `examples/pipes.yaml` (after `legacy`, so not
/// in [`declared_whole`]).
const NEWER_CANARIES: [(&str, &str); 6] = [
    ("PIPE_SHOP_USERNAME", "canary-mysql-user-1e40"),
    ("PIPE_SHOP_PASSWORD", "canary-mysql-password-8b3d"),
    ("PIPE_CATALOG_USERNAME", "canary-mongo-user-62af"),
    ("PIPE_CATALOG_PASSWORD", "canary-mongo-password-0d95"),
    ("PIPE_WAREHOUSE_KEY", "Y2FuYXJ5LWJxLWtleS1hNzE0"),
    ("PIPE_SIGNALS_KEY", "Y2FuYXJ5LXBzLWtleS01Yzkx"),
];

const WHOLE: &str = "examples/pipes.yaml";

fn with_credentials() -> Converge<'static> {
    Converge::offline()
        .in_repo()
        .env("CONVERGE_KEY_SECRET", "sandbox-secret")
        .envs(CANARIES)
        .envs(NEWER_CANARIES)
}

pub(crate) fn assert_no_canary(outcome: &Outcome) {
    for (_, canary) in CANARIES.iter().chain(&NEWER_CANARIES) {
        assert!(
            !outcome.stdout.contains(canary) && !outcome.stderr.contains(canary),
            "a credential value was printed: {outcome:?}"
        );
    }
}

#[test]
fn every_source_kind_declared_whole_validates_without_printing_credentials() {
    let text = with_credentials().run(["validate", WHOLE]);
    assert_no_canary(&text);
    converge_snapshot!("pipes_whole_validate", text);
    let json = with_credentials().run(["validate", "--format", "json", WHOLE]);
    assert_no_canary(&json);
    assert_eq!(json.code, 0, "{json:?}");
    assert_eq!(json.json(), serde_json::json!([]));
}

#[test]
fn without_the_credentials_validate_warns_at_each_reference() {
    let outcome = Converge::offline()
        .in_repo()
        .env("CONVERGE_KEY_SECRET", "sandbox-secret")
        .run(["validate", "--format", "json", WHOLE]);
    assert_eq!(outcome.code, 0, "{outcome:?}");
    let places: Vec<(String, u64)> = outcome
        .json()
        .as_array()
        .unwrap()
        .iter()
        .map(|d| {
            assert_eq!(d["code"], "config::env-unset", "{d}");
            assert_eq!(d["severity"], "warning", "{d}");
            (
                d["message"].as_str().unwrap().to_string(),
                d["line"].as_u64().unwrap(),
            )
        })
        .collect();
    let expected: Vec<(String, u64)> = [
        ("PIPE_EVENTS_USERNAME", 26),
        ("PIPE_EVENTS_PASSWORD", 27),
        ("PIPE_FILES_KEY_ID", 56),
        ("PIPE_FILES_SECRET_KEY", 57),
        ("PIPE_REPLICA_USERNAME", 97),
        ("PIPE_REPLICA_PASSWORD", 98),
        ("PIPE_SHOP_USERNAME", 116),
        ("PIPE_SHOP_PASSWORD", 117),
        ("PIPE_CATALOG_USERNAME", 130),
        ("PIPE_CATALOG_PASSWORD", 131),
        ("PIPE_WAREHOUSE_KEY", 143),
        ("PIPE_SIGNALS_KEY", 161),
    ]
    .into_iter()
    .map(|(name, line)| (format!("environment variable `{name}` is not set"), line))
    .collect();
    assert_eq!(places, expected);
}

#[test]
fn a_literal_credential_is_refused_and_never_echoed() {
    let whole = std::fs::read_to_string(crate::common::root().join(WHOLE)).unwrap();
    let literal = whole.replace(
        "password: ${env:PIPE_REPLICA_PASSWORD}",
        "password: canary-literal-6d21",
    );
    // A relative path: the message names the file, and a temporary path would wrap.
    let dir = Workspace::new();
    dir.write("config.yaml", &literal);
    let outcome = Converge::offline()
        .env("CONVERGE_KEY_SECRET", "sandbox-secret")
        .envs(CANARIES)
        .envs(NEWER_CANARIES)
        .cwd(dir.path())
        .run(["validate", "config.yaml"]);
    assert!(
        !outcome.stdout.contains("canary-literal-6d21")
            && !outcome.stderr.contains("canary-literal-6d21"),
        "{outcome:?}"
    );
    converge_snapshot!("pipes_literal_credential", outcome);
}

#[test]
fn a_credential_variable_cannot_be_spelled_into_another_field() {
    let whole = std::fs::read_to_string(crate::common::root().join(WHOLE)).unwrap();
    let leaked = whole.replace(
        "name: orders from postgres",
        "name: orders ${env:PIPE_REPLICA_PASSWORD}",
    );
    let outcome = Converge::offline()
        .env("CONVERGE_KEY_SECRET", "sandbox-secret")
        .envs(CANARIES)
        .envs(NEWER_CANARIES)
        .config(&leaked)
        .run(["validate"]);
    assert_no_canary(&outcome);
    converge_snapshot!("pipes_credential_variable_elsewhere", outcome);
}

#[test]
fn a_scaling_only_pipe_without_a_name_or_source_still_validates() {
    let outcome = Converge::offline()
        .env("CONVERGE_KEY_SECRET", "sandbox-secret")
        .config(
            "version: 1\norganization: 7d3f6a2e-0c1b-4e5f-9a8b-1c2d3e4f5a6b\nservices:\n  a:\n    id: 1c7d8c62-0b0f-4f0e-9b2e-6a3c8a3b7e11\n    pipes:\n      p:\n        id: 0f9d3b1e-6a52-4c0b-8f7e-2d5a9c1b4e77\n        scaling: { replicas: 3 }\n      q:\n        scaling: { replicas: 3 }\n",
        )
        .run(["validate"]);
    // `q` has neither an id to adopt nor a whole declaration.
    converge_snapshot!("pipes_neither_id_nor_declaration", outcome);
}

/// A schema's `properties`, `$ref`s followed within its own document.
fn properties<'v>(document: &'v Value, schema: &'v Value) -> &'v Map<String, Value> {
    let schema = match schema.get("$ref").and_then(Value::as_str) {
        Some(reference) => document.pointer(&reference[1..]).unwrap(),
        None => schema,
    };
    schema["properties"].as_object().unwrap()
}

#[test]
fn the_config_takes_every_pipe_field_of_the_cloud_document_with_its_ranges() {
    let read = |path: &str| -> Value {
        serde_json::from_str(&std::fs::read_to_string(crate::common::root().join(path)).unwrap())
            .unwrap()
    };
    let reference = crate::conformance::reference_dir().join("cloud-api.openapi.json");
    let Ok(cloud) = std::fs::read_to_string(&reference) else {
        // `.ci/run` has `../shared` beside the checkout; a user's clone may not.
        assert!(
            !crate::common::shared_required(),
            "the cloud document is not at {} and CONVERGE_REQUIRE_SHARED is set",
            reference.display()
        );
        eprintln!(
            "skipped: the cloud document is not at {} (it comes with the project's shared folder)",
            reference.display()
        );
        return;
    };
    let cloud: Value = serde_json::from_str(&cloud).unwrap();
    let ours = read("schema/converge.schema.json");
    let theirs = |name: &str| properties(&cloud, &cloud["components"]["schemas"][name]);
    let mine = |name: &str| properties(&ours, &ours["$defs"][name]);
    let pairs = [
        ("ClickPipePostKafkaSource", "pipeKafka"),
        ("ClickPipePostObjectStorageSource", "pipeObjectStorage"),
        ("ClickPipePostKinesisSource", "pipeKinesis"),
        ("ClickPipeMutatePostgresSource", "pipePostgres"),
        ("ClickPipeMutateMySQLSource", "pipeMysql"),
        ("ClickPipeMutateMongoDBSource", "pipeMongodb"),
        ("ClickPipeMutateBigQuerySource", "pipeBigquery"),
        ("ClickPipePostPubSubSource", "pipePubsub"),
        ("ClickPipeMutateDestination", "pipeDestination"),
        ("ClickPipeSettingsPutRequest", "pipeSettings"),
    ];
    for (document, config) in pairs {
        let (theirs, mine) = (theirs(document), mine(config));
        let missing: Vec<&String> = theirs.keys().filter(|k| !mine.contains_key(*k)).collect();
        assert!(
            missing.is_empty(),
            "{config} lacks {missing:?} of {document}"
        );
        // Converge's own: a kafka pipe names its reverse private endpoints by config key,
        // resolved to the document's `reversePrivateEndpointIds` at plan time.
        let ours_only = |k: &str| config == "pipeKafka" && k == "reversePrivateEndpoints";
        let extra: Vec<&String> = mine
            .keys()
            .filter(|k| !theirs.contains_key(*k) && !ours_only(k))
            .collect();
        assert!(
            extra.is_empty(),
            "{config} has {extra:?}, not in {document}"
        );
    }
    let post = theirs("ClickPipePostRequest");
    let pipe = mine("pipe");
    for field in post.keys() {
        assert!(pipe.contains_key(field), "pipe lacks `{field}`");
    }
    // The Google Cloud kinds keep each enum and range the document gives their members.
    for (document, config) in [
        ("ClickPipePostPubSubSource", "pipePubsub"),
        ("ClickPipeBigQueryPipeSettings", "pipeBigquery"),
    ] {
        let mine = match config {
            "pipeBigquery" => mine(config)["settings"]["properties"].as_object().unwrap(),
            _ => mine(config),
        };
        for (member, schema) in theirs(document) {
            for keyword in ["enum", "minimum", "maximum", "maxLength"] {
                if let Some(bound) = schema.get(keyword) {
                    assert_eq!(Some(bound), mine[member].get(keyword), "{config}.{member}");
                }
            }
        }
    }
    // Every setting keeps the document's range.
    for (key, setting) in theirs("ClickPipeSettingsPutRequest") {
        for bound in ["minimum", "maximum"] {
            assert_eq!(
                setting.get(bound),
                mine("pipeSettings")[key].get(bound),
                "{key} {bound}"
            );
        }
    }
}

/// A config of the demo world's `analytics` service with the given pipes.
pub(crate) fn analytics_with(pipes: &str) -> String {
    format!(
        "version: 1\norganization: ${{env:CONVERGE_ORG_ID}}\ncloud:\n  url: ${{env:CONVERGE_CLOUD_URL}}\n  keyId: ${{env:CONVERGE_KEY_ID}}\n  keySecret: ${{env:CONVERGE_KEY_SECRET}}\nservices:\n  analytics:\n    id: 1c7d8c62-0b0f-4f0e-9b2e-6a3c8a3b7e11\n    pipes:\n{pipes}"
    )
}

#[test]
fn plan_finds_a_pipe_by_name_and_says_which_declared_fields_it_does_not_plan_yet() {
    let sandbox = crate::common::fast_sandbox();
    // `orders` is the demo world's kafka pipe, found by its name; `fresh` does not exist.
    let config = analytics_with(
        "      orders:\n        name: orders\n        state: running\n        source:\n          kafka: { brokers: b:9092, topics: orders, format: JSONEachRow }\n        destination:\n          database: default\n          table: orders\n          managedTable: false\n          columns: [{ name: id, type: UInt64 }]\n        fieldMappings: [{ sourceField: id, destinationField: id }]\n        scaling: { replicas: 3 }\n      fresh:\n        name: fresh\n        source:\n          kinesis: { streamName: s, region: us-east-1, format: JSONEachRow, iteratorType: LATEST, authentication: IAM_ROLE, iamRole: 'arn:aws:iam::1:role/r' }\n        destination:\n          database: default\n          table: fresh\n          managedTable: false\n          columns: [{ name: id, type: UInt64 }]\n        fieldMappings: [{ sourceField: id, destinationField: id }]\n",
    );
    let outcome = Converge::new(&sandbox).fast().config(&config).run(["plan"]);
    converge_snapshot!("pipes_plan_by_name", outcome);
    // Without `fresh`, the plan is made: `orders`, found by name, differs in fields fixed at
    // creation and is replaced.
    let found = config[..config.find("      fresh:").unwrap()].to_string();
    let outcome = Converge::new(&sandbox).fast().config(&found).run(["plan"]);
    converge_snapshot!("pipes_plan_by_name_found", outcome);
}

/// A pipe the config finds by name is bound to the id the plan read (issue 40, part 2): `apply
/// --plan` replaces it as reviewed (the declared fields differ from the demo pipe's in fields
/// fixed at creation), with `--allow-destroy` for the replace's delete; the next plan is empty.
#[test]
fn a_saved_plan_replaces_a_pipe_found_by_name_as_reviewed() {
    let sandbox = crate::common::fast_sandbox();
    let config = analytics_with(
        "      orders:\n        name: orders\n        source:\n          kafka: { brokers: b:9092, topics: orders, format: JSONEachRow }\n        destination:\n          database: default\n          table: orders\n          managedTable: false\n          columns: [{ name: id, type: UInt64 }]\n        fieldMappings: [{ sourceField: id, destinationField: id }]\n        scaling: { replicas: 3 }\n",
    );
    let workspace = Workspace::new();
    let path = workspace.write("converge.yaml", &config);
    let saved = workspace.file("plan.json");
    let converge = Converge::new(&sandbox).fast().cwd(&workspace);
    converge
        .run(["plan", &path, "--out", &saved])
        .assert_exit(0);
    let applied = converge.run(["apply", "--plan", &saved, &path, "--yes", "--allow-destroy"]);
    assert_eq!(applied.code, 0, "{applied:?}");
    converge
        .run(["plan", &path, "--detailed-exitcode"])
        .assert_exit(0);
}

/// The pipes of `examples/pipes.yaml` declared whole (every source kind), without the fields
/// whose changes are not planned yet (`state`, `credentialsVersion`), on the demo `analytics`.
pub(crate) fn declared_whole() -> String {
    let whole = std::fs::read_to_string(crate::common::root().join(WHOLE)).unwrap();
    let start = whole.find("    pipes:\n").unwrap() + "    pipes:\n".len();
    let end = whole.find("      legacy:").unwrap();
    let pipes: String = whole[start..end]
        .lines()
        .filter(|line| !line.contains("state:") && !line.contains("credentialsVersion:"))
        .map(|line| format!("{line}\n"))
        .collect();
    analytics_with(&pipes)
}

/// Each source kind declared whole is created from the YAML with its credentials, and reads
/// back as declared: the next plan is empty. No credential appears in any output, and the
/// create is the only request that carries them.
#[test]
fn every_source_kind_is_created_from_yaml_and_reads_back_with_an_empty_plan() {
    let sandbox = crate::common::sandbox(converge::sandbox::SandboxOptions {
        rate_limit: false,
        log_bodies: true,
        ..converge::sandbox::SandboxOptions::default()
    });
    let config = declared_whole();
    let converge = Converge::new(&sandbox)
        .fast()
        .envs(CANARIES)
        .config(&config);
    let planned = converge.run(["plan"]);
    assert_no_canary(&planned);
    converge_snapshot!("pipes_whole_create_plan", planned);
    let applied = converge.run(["apply", "--yes"]);
    assert_no_canary(&applied);
    assert_eq!(applied.code, 0, "{applied:?}");
    let again = converge.run(["plan"]);
    assert_no_canary(&again);
    converge_snapshot!("pipes_whole_read_back", again);
    let log = sandbox.request_log();
    let creates: Vec<&str> = log
        .iter()
        .filter(|e| e.method == "POST" && e.route.ends_with("/pipes"))
        .filter_map(|e| e.request_body.as_deref())
        .collect();
    assert_eq!(creates.len(), 4, "one create per pipe: {creates:?}");
    let carrying: Vec<&str> = CANARIES
        .iter()
        .map(|(_, canary)| *canary)
        .filter(|canary| creates.iter().any(|body| body.contains(canary)))
        .collect();
    assert_eq!(
        carrying.len(),
        CANARIES.len(),
        "every credential is sent with its create"
    );
    for entry in &log {
        for (_, canary) in CANARIES {
            let in_request = entry
                .request_body
                .as_deref()
                .is_some_and(|b| b.contains(canary));
            assert!(
                !in_request || (entry.method == "POST" && entry.route.ends_with("/pipes")),
                "{canary} sent outside a create: {} {}",
                entry.method,
                entry.route
            );
            assert!(
                !entry
                    .response_body
                    .as_deref()
                    .is_some_and(|b| b.contains(canary)),
                "{canary} answered by {} {}",
                entry.method,
                entry.route
            );
        }
    }
}

/// A saved plan holds the credentials' references, never their values, and applies.
#[test]
fn a_saved_create_holds_only_credential_references() {
    let sandbox = crate::common::fast_sandbox();
    let workspace = Workspace::new();
    let path = workspace.write("converge.yaml", &declared_whole());
    let saved = workspace.file("plan.json");
    let converge = Converge::new(&sandbox)
        .fast()
        .envs(CANARIES)
        .cwd(&workspace);
    converge
        .run(["plan", &path, "--out", &saved])
        .assert_exit(0);
    let text = std::fs::read_to_string(&saved).unwrap();
    for (name, canary) in CANARIES {
        assert!(!text.contains(canary), "{canary} saved");
        assert!(
            text.contains(&format!("${{env:{name}}}")),
            "{name} not referenced"
        );
    }
    let applied = converge.run(["apply", "--plan", &saved, &path, "--yes"]);
    assert_no_canary(&applied);
    assert_eq!(applied.code, 0, "{applied:?}");
    assert_eq!(
        applied.writes(),
        vec!["POST /v1/organizations/{organizationId}/services/{serviceId}/pipes"; 4]
    );
}

/// A change the server takes in place is one `PATCH` of the members that differ, and the next
/// plan is empty; a change that needs the pipe replaced is planned as `-/+` with its field.
#[test]
fn an_in_place_change_is_patched_and_a_replacing_one_is_named() {
    let sandbox = crate::common::fast_sandbox();
    let config = declared_whole();
    Converge::new(&sandbox)
        .fast()
        .envs(CANARIES)
        .config(&config)
        .run(["apply", "--yes"])
        .assert_exit(0);
    let changed = config
        .replace(
            "iamRole: arn:aws:iam::123456789012:role/clickpipes",
            "iamRole: arn:aws:iam::123456789012:role/clickpipes-2",
        )
        .replace("db_max_threads: 8", "db_max_threads: 16");
    let converge = Converge::new(&sandbox)
        .fast()
        .envs(CANARIES)
        .config(&changed);
    let planned = converge.run(["plan"]);
    assert_no_canary(&planned);
    converge_snapshot!("pipes_in_place_plan", planned);
    let applied = converge.run(["apply", "--yes"]);
    assert_no_canary(&applied);
    // The settings are their own step, put whole; the PATCH carries none. The two steps
    // touch different pipes, so they may run in either order.
    let mut writes = applied.writes();
    writes.sort();
    assert_eq!(
        writes,
        vec![
            "PATCH /v1/organizations/{organizationId}/services/{serviceId}/pipes/{pipeId}",
            "PUT /v1/organizations/{organizationId}/services/{serviceId}/pipes/{pipeId}/settings",
        ],
        "{applied:?}"
    );
    converge.run(["plan", "--detailed-exitcode"]).assert_exit(0);
    let replacing = changed.replace("topics: events", "topics: events-v2");
    let outcome = Converge::new(&sandbox)
        .fast()
        .envs(CANARIES)
        .config(&replacing)
        .run(["plan"]);
    converge_snapshot!("pipes_replacing_change_named", outcome);
}

/// A create whose answer is lost is looked for by name before anything is sent again: the pipe
/// is found created, and one create was sent.
#[test]
fn a_pipe_create_whose_answer_was_lost_is_found_by_name_not_sent_twice() {
    let sandbox = crate::common::sandbox(converge::sandbox::SandboxOptions {
        rate_limit: false,
        faults: "lost@POST=1".parse().unwrap(),
        ..converge::sandbox::SandboxOptions::default()
    });
    let stream_only = analytics_with(
        "      stream:\n        name: stream from kinesis\n        source:\n          kinesis: { streamName: s, region: us-east-1, format: JSONEachRow, iteratorType: LATEST, authentication: IAM_ROLE, iamRole: 'arn:aws:iam::1:role/r' }\n        destination:\n          database: default\n          table: clicks\n          managedTable: false\n          columns: [{ name: url, type: String }]\n        fieldMappings: [{ sourceField: url, destinationField: url }]\n",
    );
    let converge = Converge::new(&sandbox).fast().config(&stream_only);
    let applied = converge.run(["apply", "--yes"]);
    assert_eq!(applied.code, 0, "{applied:?}");
    assert!(
        crate::common::words(&applied.stderr).contains("but a re-read found it created"),
        "{applied:?}"
    );
    assert_eq!(
        applied.writes(),
        vec!["POST /v1/organizations/{organizationId}/services/{serviceId}/pipes"],
    );
    converge.run(["plan", "--detailed-exitcode"]).assert_exit(0);
}

/// The demo pipes created on a sandbox whose deletes take a while (the pipe lists as stopping,
/// then is gone).
fn created_slowly() -> (converge::sandbox::SandboxHandle, String) {
    let sandbox = crate::common::sandbox(converge::sandbox::SandboxOptions {
        rate_limit: false,
        scaling_delay: std::time::Duration::from_millis(300),
        ..converge::sandbox::SandboxOptions::default()
    });
    let config = declared_whole();
    Converge::new(&sandbox)
        .fast()
        .envs(CANARIES)
        .config(&config)
        .run(["apply", "--yes"])
        .assert_exit(0);
    std::thread::sleep(std::time::Duration::from_millis(400));
    (
        sandbox,
        config.replace("topics: events", "topics: events-v2"),
    )
}

/// A field the server changes on no live pipe is planned as a replacement (`-/+`, the field
/// and the reason), refused without `--allow-destroy`, and run as delete, wait until the pipe
/// is gone, create: the next plan is empty.
#[test]
fn a_replacing_change_deletes_waits_until_gone_and_creates() {
    let (sandbox, replacing) = created_slowly();
    let converge = Converge::new(&sandbox)
        .fast()
        .envs(CANARIES)
        .config(&replacing);
    let refused = converge.run(["apply", "--yes"]);
    assert_no_canary(&refused);
    converge_snapshot!("pipes_replace_refused", refused);
    sandbox.reset_log();
    let applied = converge.run(["apply", "--yes", "--allow-destroy"]);
    assert_no_canary(&applied);
    assert_eq!(applied.code, 0, "{applied:?}");
    assert_eq!(
        applied.writes(),
        vec![
            "DELETE /v1/organizations/{organizationId}/services/{serviceId}/pipes/{pipeId}",
            "POST /v1/organizations/{organizationId}/services/{serviceId}/pipes",
        ],
        "{applied:?}"
    );
    // The create was sent only once the deleted pipe no longer listed.
    let log = sandbox.request_log();
    let delete = log.iter().position(|e| e.method == "DELETE").unwrap();
    let create = log.iter().position(|e| e.method == "POST").unwrap();
    let lists_between = log[delete..create]
        .iter()
        .filter(|e| e.method == "GET" && e.route.ends_with("/pipes"))
        .count();
    assert!(lists_between >= 2, "no wait until gone: {log:?}");
    converge.run(["plan", "--detailed-exitcode"]).assert_exit(0);
}

/// A replacement whose create fails after the delete says what is left, and the next plan
/// shows exactly that: the pipe to create.
#[test]
fn an_interrupted_replacement_leaves_a_plan_of_what_is_left() {
    let (sandbox, replacing) = created_slowly();
    sandbox.fault_switch().set("500@POST=1".parse().unwrap());
    let converge = Converge::new(&sandbox)
        .fast()
        .envs(CANARIES)
        .config(&replacing);
    let failed = converge.run(["apply", "--yes", "--allow-destroy"]);
    assert_no_canary(&failed);
    converge_snapshot!("pipes_replace_interrupted", failed);
    sandbox.fault_switch().set(Default::default());
    let left = converge.run(["plan"]);
    assert_no_canary(&left);
    converge_snapshot!("pipes_replace_interrupted_left", left);
}

/// The request bodies the sandbox logged for `method` on routes ending in `route_end`.
fn bodies(sandbox: &converge::sandbox::SandboxHandle, method: &str, route_end: &str) -> Vec<Value> {
    sandbox
        .request_log()
        .iter()
        .filter(|e| e.method == method && e.route.ends_with(route_end))
        .filter_map(|e| serde_json::from_str(e.request_body.as_deref()?).ok())
        .collect()
}

/// Settings are written with `PUT .../settings` as their own step, only when a declared one
/// differs: the server replaces the whole map, so a live setting the config does not name is
/// sent back as it was. No `PATCH` carries settings, and the next plan is empty.
#[test]
fn settings_are_put_whole_only_when_a_declared_one_differs() {
    let sandbox = crate::common::sandbox(converge::sandbox::SandboxOptions {
        rate_limit: false,
        log_bodies: true,
        ..converge::sandbox::SandboxOptions::default()
    });
    let config = declared_whole();
    Converge::new(&sandbox)
        .fast()
        .envs(CANARIES)
        .config(&config)
        .run(["apply", "--yes"])
        .assert_exit(0);
    sandbox.reset_log();
    // `files` now declares only `db_max_threads`; its live `object_storage_concurrency` stays.
    let changed = config.replace(
        "          object_storage_concurrency: 4\n          db_max_threads: 8\n",
        "          db_max_threads: 16\n",
    );
    assert_ne!(changed, config);
    let converge = Converge::new(&sandbox)
        .fast()
        .envs(CANARIES)
        .config(&changed);
    let planned = converge.run(["plan"]);
    converge_snapshot!("pipes_settings_plan", planned);
    let applied = converge.run(["apply", "--yes"]);
    assert_no_canary(&applied);
    assert_eq!(
        applied.writes(),
        vec!["PUT /v1/organizations/{organizationId}/services/{serviceId}/pipes/{pipeId}/settings"],
        "{applied:?}"
    );
    assert_eq!(
        bodies(&sandbox, "PUT", "/settings"),
        vec![serde_json::json!({"object_storage_concurrency": 4, "db_max_threads": 16})]
    );
    converge.run(["plan", "--detailed-exitcode"]).assert_exit(0);
    // Settings as declared: nothing is put, and no PATCH was ever sent with settings.
    sandbox.reset_log();
    let again = converge.run(["apply", "--yes"]);
    assert_eq!(again.code, 0, "{again:?}");
    assert!(again.writes().is_empty(), "{again:?}");
    assert!(
        bodies(&sandbox, "PATCH", "/pipes/{pipeId}")
            .iter()
            .all(|b| b.get("settings").is_none())
    );
}

/// A setting out of the document's range, or one another source kind owns, is refused at its
/// line before anything is read; the message names the kinds that take it.
#[test]
fn a_setting_out_of_range_or_of_another_kind_is_refused_at_its_line() {
    let config = declared_whole()
        .replace(
            "streaming_max_insert_wait_ms: 5000",
            "streaming_max_insert_wait_ms: 100",
        )
        .replace(
            "object_storage_concurrency: 4",
            "streaming_max_insert_wait_ms: 900",
        );
    let outcome = Converge::offline()
        .envs(CANARIES)
        .env("CONVERGE_ORG_ID", "7d3f6a2e-0c1b-4e5f-9a8b-1c2d3e4f5a6b")
        .env("CONVERGE_CLOUD_URL", "http://127.0.0.1:9")
        .env("CONVERGE_KEY_ID", "key")
        .env("CONVERGE_KEY_SECRET", "secret")
        .config(&config)
        .run(["validate"]);
    converge_snapshot!("pipes_settings_refused", outcome);
}
