//! A pipe's state and the changes that need it paused (issue 22, items 2 and 4), through the
//! real binary against the sandbox: a table-mapping change stops the pipe, waits, sends only
//! the mapping deltas and resumes it (and starts it again when the change fails); `state:`
//! starts and stops it and keeps it stopped across an edit the server resumes; a `Completed`
//! pipe takes no change; a `Failed` one is shown with its state.

use std::time::Duration;

use converge::sandbox::{Quirk, SandboxHandle, SandboxOptions};
use serde_json::{Value, json};

use crate::common::{ANALYTICS, Client, Converge, converge_snapshot};
use crate::pipes::database::written;
use crate::pipes::{CANARIES, analytics_with, assert_no_canary, declared_whole};

const STATE: &str =
    "PATCH /v1/organizations/{organizationId}/services/{serviceId}/pipes/{pipeId}/state";
const EDIT: &str = "PATCH /v1/organizations/{organizationId}/services/{serviceId}/pipes/{pipeId}";
/// The service's tags, where converge marks a pipe it stopped for a change.
const TAGS: &str = "PATCH /v1/organizations/{organizationId}/services/{serviceId}";

/// The postgres pipe's one table mapping, as `examples/pipes.yaml` writes it.
const MAPPING: &str = "              - { sourceSchemaName: public, sourceTable: orders, targetTable: public_orders }\n";

/// The demo pipes of `examples/pipes.yaml` created on a sandbox whose states step every
/// `delay`, with `quirks`; returns the sandbox and the config.
pub(crate) fn created(delay: Duration, quirks: Vec<Quirk>) -> (SandboxHandle, String) {
    let sandbox = crate::common::sandbox(SandboxOptions {
        rate_limit: false,
        log_bodies: true,
        scaling_delay: delay,
        quirks,
        ..SandboxOptions::default()
    });
    let config = declared_whole();
    Converge::new(&sandbox)
        .fast()
        .envs(CANARIES)
        .config(&config)
        .run(["apply", "--yes"])
        .assert_exit(0);
    std::thread::sleep(delay * 2);
    (sandbox, config)
}

/// The config with the postgres pipe's mappings changed: `orders` mapped to another table (an
/// edit, which the API takes as a removal and an addition) and `items` added.
pub(crate) fn remapped(config: &str) -> String {
    config.replace(
        MAPPING,
        "              - { sourceSchemaName: public, sourceTable: orders, targetTable: orders_v2 }\n              - { sourceSchemaName: public, sourceTable: items, targetTable: public_items }\n",
    )
}

/// The live pipe of this name on the demo `analytics` service.
pub(crate) fn live(sandbox: &SandboxHandle, name: &str) -> Value {
    let pipes = Client::new(sandbox)
        .cloud("GET", &format!("/services/{ANALYTICS}/pipes"), None)
        .result();
    pipes
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["name"] == name)
        .cloned()
        .unwrap()
}

/// A table-mapping change is planned as a change that pauses the pipe, and applied as stop,
/// wait until paused, one `PATCH` of only the mapping deltas, and the pipe running again
/// (the server resumes it after the edit): the next plan is empty.
#[test]
fn a_table_mapping_change_pauses_the_pipe_sends_the_deltas_and_resumes_it() {
    let (sandbox, config) = created(Duration::from_millis(300), Vec::new());
    let converge = Converge::new(&sandbox)
        .fast()
        .envs(CANARIES)
        .config(&remapped(&config));
    let planned = converge.run(["plan"]);
    assert_no_canary(&planned);
    converge_snapshot!("pipe_state_mapping_plan", planned);
    sandbox.reset_log();
    let applied = converge.run(["apply", "--yes"]);
    assert_no_canary(&applied);
    assert_eq!(applied.code, 0, "{applied:?}");
    assert_eq!(
        written(&sandbox)
            .into_iter()
            .filter(|(write, _)| write != TAGS)
            .collect::<Vec<_>>(),
        vec![
            (STATE.to_string(), json!({"command": "stop"})),
            (
                EDIT.to_string(),
                json!({"source": {"postgres": {
                    "tableMappingsToRemove": [{"sourceSchemaName": "public",
                        "sourceTable": "orders", "targetTable": "public_orders"}],
                    "tableMappingsToAdd": [
                        {"sourceSchemaName": "public", "sourceTable": "orders",
                            "targetTable": "orders_v2"},
                        {"sourceSchemaName": "public", "sourceTable": "items",
                            "targetTable": "public_items"}]}}})
            ),
        ],
        "{applied:?}"
    );
    // The edit was sent only once the pipe read as paused.
    let log = sandbox.request_log();
    let edit = log
        .iter()
        .position(|e| format!("{} {}", e.method, e.route) == EDIT)
        .unwrap();
    let paused_before = log[..edit].iter().any(|e| {
        e.method == "GET"
            && e.response_body
                .as_deref()
                .is_some_and(|b| b.contains("\"Paused\""))
    });
    assert!(paused_before, "edited before the pipe was paused: {log:?}");
    std::thread::sleep(Duration::from_millis(700));
    assert_eq!(live(&sandbox, "orders from postgres")["state"], "Running");
    converge.run(["plan", "--detailed-exitcode"]).assert_exit(0);
}

/// A table-mapping edit the server refuses after the pipe was stopped: the pipe is started
/// again before the apply exits 1, and the report says so.
#[test]
fn a_failed_mapping_change_starts_the_pipe_again() {
    let (sandbox, config) = created(Duration::ZERO, vec![Quirk::PipeEditsRefused]);
    sandbox.reset_log();
    let converge = Converge::new(&sandbox)
        .fast()
        .envs(CANARIES)
        .config(&remapped(&config));
    let mut failed = converge.run(["apply", "--yes"]);
    assert_no_canary(&failed);
    let id = live(&sandbox, "orders from postgres")["id"]
        .as_str()
        .unwrap()
        .to_string();
    // The pipe's id is made at its create: masked, as request ids are.
    failed.stderr = failed.stderr.replace(&id, "{pipeId}");
    converge_snapshot!("pipe_state_mapping_refused", failed);
    let writes: Vec<String> = written(&sandbox).into_iter().map(|(w, _)| w).collect();
    // Marked before the stop, unmarked once running again.
    assert_eq!(writes, vec![TAGS, STATE, EDIT, STATE, TAGS], "{failed:?}");
    let commands: Vec<Value> = written(&sandbox)
        .into_iter()
        .filter(|(w, _)| w == STATE)
        .map(|(_, body)| body)
        .collect();
    assert_eq!(
        commands,
        vec![json!({"command": "stop"}), json!({"command": "start"})]
    );
    assert_eq!(live(&sandbox, "orders from postgres")["state"], "Running");
}

/// `state: stopped` stops a running pipe and `state: running` starts it again, each one
/// `PATCH .../state`, each followed by an empty plan.
#[test]
fn state_stops_and_starts_a_pipe() {
    let (sandbox, config) = created(Duration::ZERO, Vec::new());
    let stopped = config.replace(
        "        name: stream from kinesis\n",
        "        name: stream from kinesis\n        state: stopped\n",
    );
    let converge = Converge::new(&sandbox)
        .fast()
        .envs(CANARIES)
        .config(&stopped);
    let planned = converge.run(["plan"]);
    converge_snapshot!("pipe_state_stop_plan", planned);
    sandbox.reset_log();
    converge.run(["apply", "--yes"]).assert_exit(0);
    assert_eq!(
        written(&sandbox),
        vec![(STATE.to_string(), json!({"command": "stop"}))]
    );
    assert_eq!(live(&sandbox, "stream from kinesis")["state"], "Stopped");
    converge.run(["plan", "--detailed-exitcode"]).assert_exit(0);
    let running = stopped.replace("state: stopped", "state: running");
    let converge = Converge::new(&sandbox)
        .fast()
        .envs(CANARIES)
        .config(&running);
    sandbox.reset_log();
    converge.run(["apply", "--yes"]).assert_exit(0);
    assert_eq!(
        written(&sandbox),
        vec![(STATE.to_string(), json!({"command": "start"}))]
    );
    assert_eq!(live(&sandbox, "stream from kinesis")["state"], "Running");
    converge.run(["plan", "--detailed-exitcode"]).assert_exit(0);
}

/// `state: stopped` with a table-mapping change: the server resumes the pipe after the edit,
/// so it is stopped again; the next plan is empty and the pipe reads `Paused`.
#[test]
fn a_pipe_kept_stopped_is_stopped_again_after_an_edit_the_server_resumes() {
    let (sandbox, config) = created(Duration::ZERO, Vec::new());
    let stopped = remapped(&config).replace(
        "        name: orders from postgres\n",
        "        name: orders from postgres\n        state: stopped\n",
    );
    let converge = Converge::new(&sandbox)
        .fast()
        .envs(CANARIES)
        .config(&stopped);
    let planned = converge.run(["plan"]);
    converge_snapshot!("pipe_state_kept_stopped_plan", planned);
    sandbox.reset_log();
    converge.run(["apply", "--yes"]).assert_exit(0);
    let writes: Vec<String> = written(&sandbox).into_iter().map(|(w, _)| w).collect();
    assert_eq!(writes, vec![STATE, EDIT, STATE]);
    assert_eq!(live(&sandbox, "orders from postgres")["state"], "Paused");
    converge.run(["plan", "--detailed-exitcode"]).assert_exit(0);
}

/// A one-shot object-storage pipe that finished reads `Completed` and takes no change: a
/// declared change is an error at its line, and nothing is sent.
#[test]
fn a_completed_pipe_takes_no_change() {
    let sandbox = crate::common::fast_sandbox();
    let once = |threads: u32| {
        analytics_with(&format!(
            "      once:\n        name: files once\n        source:\n          objectStorage: {{ type: s3, url: 'https://bucket.s3.amazonaws.com/once/*.json', format: JSONEachRow, authentication: IAM_ROLE, iamRole: 'arn:aws:iam::1:role/r' }}\n        destination:\n          database: default\n          table: once\n          managedTable: false\n          columns: [{{ name: line, type: String }}]\n        fieldMappings: [{{ sourceField: line, destinationField: line }}]\n        settings: {{ db_max_threads: {threads} }}\n"
        ))
    };
    Converge::new(&sandbox)
        .fast()
        .config(&once(4))
        .run(["apply", "--yes"])
        .assert_exit(0);
    assert_eq!(live(&sandbox, "files once")["state"], "Completed");
    Converge::new(&sandbox)
        .fast()
        .config(&once(4))
        .run(["plan", "--detailed-exitcode"])
        .assert_exit(0);
    let refused = Converge::new(&sandbox)
        .fast()
        .config(&once(8))
        .run(["plan"]);
    converge_snapshot!("pipe_state_completed", refused);
}

/// A pipe whose source failed is shown with its state: its start planned by `state: running`
/// and its delete by `absent: true` each say the live pipe is `Failed`, and the start runs.
#[test]
fn a_failed_pipe_is_shown_with_its_state_and_started_or_deleted() {
    let (sandbox, config) = created(Duration::ZERO, vec![Quirk::PipesFail]);
    assert_eq!(live(&sandbox, "stream from kinesis")["state"], "Failed");
    let started = config.replace(
        "        name: stream from kinesis\n",
        "        name: stream from kinesis\n        state: running\n",
    );
    let start = Converge::new(&sandbox)
        .fast()
        .envs(CANARIES)
        .config(&started);
    converge_snapshot!("pipe_state_failed_start_plan", start.run(["plan"]));
    sandbox.reset_log();
    start.run(["apply", "--yes"]).assert_exit(0);
    assert_eq!(
        written(&sandbox),
        vec![(STATE.to_string(), json!({"command": "start"}))]
    );
    let files = live(&sandbox, "files from s3")["id"]
        .as_str()
        .unwrap()
        .to_string();
    let absent = analytics_with(&format!(
        "      files:\n        id: {files}\n        absent: true\n"
    ));
    let mut delete = Converge::new(&sandbox).fast().config(&absent).run(["plan"]);
    delete.stdout = delete.stdout.replace(&files, "{pipeId}");
    converge_snapshot!("pipe_state_failed_delete_plan", delete);
}

/// `apply --resync ADDRESS` resyncs a postgres pipe the config declares, with one
/// `PATCH .../state {"command":"resync"}` and nothing else; another kind of pipe, or an
/// address the config does not declare, is an error naming why (exit 1), and nothing is sent.
#[test]
fn resync_is_one_command_for_a_postgres_pipe_only() {
    let (sandbox, config) = created(Duration::ZERO, Vec::new());
    // A difference elsewhere in the config is not applied by a resync.
    let config = config.replace("db_max_threads: 8", "db_max_threads: 16");
    let converge = Converge::new(&sandbox)
        .fast()
        .envs(CANARIES)
        .config(&config);
    sandbox.reset_log();
    let resynced = converge.run(["apply", "--resync", "pipe.analytics.replica", "--yes"]);
    assert_no_canary(&resynced);
    converge_snapshot!("pipe_state_resync", resynced);
    assert_eq!(
        written(&sandbox),
        vec![(STATE.to_string(), json!({"command": "resync"}))]
    );
    sandbox.reset_log();
    let streaming = converge.run(["apply", "--resync", "pipe.analytics.stream", "--yes"]);
    converge_snapshot!("pipe_state_resync_streaming", streaming);
    let missing = converge.run(["apply", "--resync", "pipe.analytics.nope", "--yes"]);
    converge_snapshot!("pipe_state_resync_undeclared", missing);
    assert!(written(&sandbox).is_empty());
}

/// `apply --wait` returns only once each pipe it created has left `Provisioning`: right after
/// it, every pipe reads `Running` (the sandbox steps states every second).
#[test]
fn wait_returns_once_created_pipes_run() {
    let sandbox = crate::common::sandbox(SandboxOptions {
        rate_limit: false,
        scaling_delay: Duration::from_secs(1),
        ..SandboxOptions::default()
    });
    let applied = Converge::new(&sandbox)
        .fast()
        .envs(CANARIES)
        .config(&declared_whole())
        .run(["apply", "--yes", "--wait"]);
    assert_no_canary(&applied);
    assert_eq!(applied.code, 0, "{applied:?}");
    for name in [
        "events from kafka",
        "files from s3",
        "stream from kinesis",
        "orders from postgres",
    ] {
        assert_eq!(live(&sandbox, name)["state"], "Running", "{name}");
    }
}

/// A pipe that ends `Failed` after its create fails an `apply --wait` (exit 1), named with
/// its state in the report.
#[test]
fn wait_fails_on_a_pipe_that_ends_failed() {
    let sandbox = crate::common::sandbox(SandboxOptions {
        rate_limit: false,
        quirks: vec![Quirk::PipesFail],
        ..SandboxOptions::default()
    });
    let stream_only = analytics_with(
        "      stream:\n        name: stream from kinesis\n        source:\n          kinesis: { streamName: s, region: us-east-1, format: JSONEachRow, iteratorType: LATEST, authentication: IAM_ROLE, iamRole: 'arn:aws:iam::1:role/r' }\n        destination:\n          database: default\n          table: clicks\n          managedTable: false\n          columns: [{ name: url, type: String }]\n        fieldMappings: [{ sourceField: url, destinationField: url }]\n",
    );
    let failed = Converge::new(&sandbox)
        .fast()
        .config(&stream_only)
        .run(["apply", "--yes", "--wait"]);
    converge_snapshot!("pipe_state_wait_failed", failed);
}

/// A saved replacement of a pipe adopted by `id:` whose pipe was deleted before the apply is
/// stale (exit 3) with nothing written: the pipe it was reviewed against is gone, and creating
/// one anyway could make a second pipe (another run's replacement may be on its way). The
/// next plan shows the create (issue 41, part 3).
#[test]
fn a_replacement_whose_pipe_is_gone_already_is_stale() {
    let (sandbox, config) = created(Duration::ZERO, Vec::new());
    let id = live(&sandbox, "stream from kinesis")["id"]
        .as_str()
        .unwrap()
        .to_string();
    let replacing = config
        .replace(
            "        name: stream from kinesis\n",
            &format!("        id: {id}\n        name: stream from kinesis\n"),
        )
        .replace("streamName: clicks", "streamName: clicks-v2");
    let workspace = crate::common::Workspace::new();
    let path = workspace.write("converge.yaml", &replacing);
    let saved = workspace.file("plan.json");
    let converge = Converge::new(&sandbox)
        .fast()
        .envs(CANARIES)
        .cwd(&workspace);
    converge
        .run(["plan", &path, "--out", &saved])
        .assert_exit(0);
    Client::new(&sandbox).cloud("DELETE", &format!("/services/{ANALYTICS}/pipes/{id}"), None);
    sandbox.reset_log();
    let applied = converge.run(["apply", "--plan", &saved, &path, "--yes", "--allow-destroy"]);
    assert_eq!(applied.code, 3, "{applied:?}");
    assert!(applied.writes().is_empty(), "{applied:?}");
    assert!(
        crate::common::words(&applied.stderr).contains("was deleted since the plan was made"),
        "{applied:?}"
    );
}

/// A saved plan of a table-mapping change and a stop, on a pipe adopted by `id:`, applies as
/// saved (its step is what its change shows); the same step with its body edited is refused
/// before anything is written.
#[test]
fn a_saved_pause_change_applies_as_shown_and_an_edited_one_is_refused() {
    let (sandbox, config) = created(Duration::ZERO, Vec::new());
    let id = live(&sandbox, "orders from postgres")["id"]
        .as_str()
        .unwrap()
        .to_string();
    let adopted = remapped(&config).replace(
        "        name: orders from postgres\n",
        &format!("        id: {id}\n        name: orders from postgres\n        state: stopped\n"),
    );
    let workspace = crate::common::Workspace::new();
    let path = workspace.write("converge.yaml", &adopted);
    let saved = workspace.file("plan.json");
    let converge = Converge::new(&sandbox)
        .fast()
        .envs(CANARIES)
        .cwd(&workspace);
    converge
        .run(["plan", &path, "--out", &saved])
        .assert_exit(0);
    let text = std::fs::read_to_string(&saved).unwrap();
    let edited = workspace.file("edited.json");
    let mut plan: Value = serde_json::from_str(&text).unwrap();
    // Only the step's body holds the deltas: its last addition now targets another table.
    fn retarget(value: &mut Value) -> bool {
        match value {
            Value::Object(map) => {
                if let Some(Value::Array(added)) = map.get_mut("tableMappingsToAdd")
                    && let Some(last) = added.last_mut()
                {
                    last["targetTable"] = json!("elsewhere");
                    return true;
                }
                map.values_mut().any(retarget)
            }
            Value::Array(items) => items.iter_mut().any(retarget),
            _ => false,
        }
    }
    assert!(retarget(&mut plan), "no table-mapping delta saved: {text}");
    std::fs::write(&edited, serde_json::to_string_pretty(&plan).unwrap()).unwrap();
    sandbox.reset_log();
    let refused = converge.run(["apply", "--plan", &edited, &path, "--yes"]);
    converge_snapshot!("pipe_state_saved_edited", refused);
    assert!(refused.writes().is_empty(), "{refused:?}");
    let applied = converge.run(["apply", "--plan", &saved, &path, "--yes"]);
    assert_eq!(applied.code, 0, "{applied:?}");
    assert_eq!(applied.writes(), vec![STATE, EDIT, STATE], "{applied:?}");
    converge
        .run(["plan", &path, "--detailed-exitcode"])
        .assert_exit(0);
}
