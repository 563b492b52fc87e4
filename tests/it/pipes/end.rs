//! The last two gaps of a pipe's lifecycle (issue 22, item 4), through the real binary against
//! the sandbox: a pipe declared `state: stopped` is created, or created again by a
//! replacement, and stopped in the same apply; a service that goes idle between a
//! replacement's delete and its create is woken by `--wake`, and without it the run stops
//! saying so, leaving a plan of exactly the create that is left.

use std::time::Duration;

use converge::sandbox::{Quirk, SandboxOptions};

use crate::common::{Converge, converge_snapshot};
use crate::pipes::state::{created, live, remapped};
use crate::pipes::{CANARIES, analytics_with, assert_no_canary};

const TAGS: &str = "PATCH /v1/organizations/{organizationId}/services/{serviceId}";
const CREATE: &str = "POST /v1/organizations/{organizationId}/services/{serviceId}/pipes";
const DELETE: &str =
    "DELETE /v1/organizations/{organizationId}/services/{serviceId}/pipes/{pipeId}";
const STATE: &str =
    "PATCH /v1/organizations/{organizationId}/services/{serviceId}/pipes/{pipeId}/state";
const EDIT: &str = "PATCH /v1/organizations/{organizationId}/services/{serviceId}/pipes/{pipeId}";
const WAKE: &str = "PATCH /v1/organizations/{organizationId}/services/{serviceId}/state";

/// One kinesis pipe, declared whole and `state: stopped`, on the demo `analytics` service.
fn stopped_stream() -> String {
    analytics_with(
        "      stream:\n        name: stream from kinesis\n        state: stopped\n        source:\n          kinesis: { streamName: s, region: us-east-1, format: JSONEachRow, iteratorType: LATEST, authentication: IAM_ROLE, iamRole: 'arn:aws:iam::1:role/r' }\n        destination:\n          database: default\n          table: clicks\n          managedTable: false\n          columns: [{ name: url, type: String }]\n        fieldMappings: [{ sourceField: url, destinationField: url }]\n",
    )
}

/// A pipe declared `state: stopped` is planned as created stopped, applied as the create and a
/// `stop` of the new pipe, and the next plan is empty.
#[test]
fn a_pipe_declared_stopped_is_created_and_stopped_in_one_apply() {
    let sandbox = crate::common::fast_sandbox();
    let converge = Converge::new(&sandbox).fast().config(&stopped_stream());
    let planned = converge.run(["plan"]);
    converge_snapshot!("pipe_end_created_stopped_plan", planned);
    sandbox.reset_log();
    let applied = converge.run(["apply", "--yes"]);
    assert_eq!(applied.code, 0, "{applied:?}");
    assert_eq!(applied.writes(), vec![CREATE, STATE], "{applied:?}");
    assert_eq!(live(&sandbox, "stream from kinesis")["state"], "Stopped");
    converge.run(["plan", "--detailed-exitcode"]).assert_exit(0);
}

/// A create whose answer is lost is found by name, and the pipe found is stopped: one create,
/// one stop, and the next plan is empty.
#[test]
fn a_pipe_declared_stopped_whose_create_answer_was_lost_is_stopped_once_found() {
    let sandbox = crate::common::sandbox(SandboxOptions {
        rate_limit: false,
        faults: "lost@POST=1".parse().unwrap(),
        ..SandboxOptions::default()
    });
    let converge = Converge::new(&sandbox).fast().config(&stopped_stream());
    let applied = converge.run(["apply", "--yes"]);
    assert_eq!(applied.code, 0, "{applied:?}");
    assert!(
        crate::common::words(&applied.stderr).contains("but a re-read found it created"),
        "{applied:?}"
    );
    assert_eq!(applied.writes(), vec![CREATE, STATE], "{applied:?}");
    assert_eq!(live(&sandbox, "stream from kinesis")["state"], "Stopped");
    converge.run(["plan", "--detailed-exitcode"]).assert_exit(0);
}

/// A replacement of a pipe declared `state: stopped` creates it again and stops it: the plan
/// says so, and the next plan is empty.
#[test]
fn a_replacement_of_a_stopped_pipe_ends_stopped() {
    let (sandbox, config) = created(Duration::ZERO, Vec::new());
    let replacing = config
        .replace(
            "        name: stream from kinesis\n",
            "        name: stream from kinesis\n        state: stopped\n",
        )
        .replace("streamName: clicks", "streamName: clicks-v2");
    let converge = Converge::new(&sandbox)
        .fast()
        .envs(CANARIES)
        .config(&replacing);
    let planned = converge.run(["plan"]);
    assert_no_canary(&planned);
    converge_snapshot!("pipe_end_replaced_stopped_plan", planned);
    sandbox.reset_log();
    let applied = converge.run(["apply", "--yes", "--allow-destroy"]);
    assert_no_canary(&applied);
    assert_eq!(applied.code, 0, "{applied:?}");
    assert_eq!(applied.writes(), vec![DELETE, CREATE, STATE], "{applied:?}");
    let pipe = live(&sandbox, "stream from kinesis");
    assert_eq!(pipe["state"], "Stopped");
    assert_eq!(pipe["source"]["kinesis"]["streamName"], "clicks-v2");
    converge.run(["plan", "--detailed-exitcode"]).assert_exit(0);
}

/// The demo pipes created on a sandbox whose service goes idle once a pipe is deleted, and
/// the config with the kinesis stream renamed (a field that forces a replacement).
fn idling() -> (converge::sandbox::SandboxHandle, String) {
    let (sandbox, config) = created(Duration::ZERO, vec![Quirk::IdleAfterPipeDelete]);
    (
        sandbox,
        config.replace("streamName: clicks", "streamName: clicks-v2"),
    )
}

/// The service goes idle between a replacement's delete and its create: `--wake` wakes it and
/// the create is sent again, once; the next plan is empty.
#[test]
fn wake_wakes_a_service_idle_between_a_replacements_delete_and_its_create() {
    let (sandbox, replacing) = idling();
    let converge = Converge::new(&sandbox)
        .fast()
        .envs(CANARIES)
        .config(&replacing);
    sandbox.reset_log();
    let applied = converge.run(["apply", "--yes", "--allow-destroy", "--wake"]);
    assert_no_canary(&applied);
    assert_eq!(applied.code, 0, "{applied:?}");
    // The create refused with 424, the wake-up, the create again.
    assert_eq!(
        applied.writes(),
        vec![DELETE, CREATE, WAKE, CREATE],
        "{applied:?}"
    );
    assert_eq!(
        live(&sandbox, "stream from kinesis")["source"]["kinesis"]["streamName"],
        "clicks-v2"
    );
    converge.run(["plan", "--detailed-exitcode"]).assert_exit(0);
}

/// Without `--wake`, the same replacement stops after the delete saying the service is idle
/// and which flag wakes it; the next plan shows exactly the create that is left, which
/// `--wake` then applies.
#[test]
fn without_wake_a_replacement_idled_after_its_delete_leaves_the_create() {
    let (sandbox, replacing) = idling();
    let converge = Converge::new(&sandbox)
        .fast()
        .envs(CANARIES)
        .config(&replacing);
    let failed = converge.run(["apply", "--yes", "--allow-destroy"]);
    assert_no_canary(&failed);
    converge_snapshot!("pipe_end_idle_replace_without_wake", failed);
    let left = converge.run(["plan"]);
    assert_no_canary(&left);
    converge_snapshot!("pipe_end_idle_replace_left", left);
    sandbox.reset_log();
    let applied = converge.run(["apply", "--yes", "--wake"]);
    assert_eq!(applied.code, 0, "{applied:?}");
    assert_eq!(applied.writes(), vec![CREATE, WAKE, CREATE], "{applied:?}");
    converge.run(["plan", "--detailed-exitcode"]).assert_exit(0);
}

/// A saved plan of a pipe created stopped applies as saved (the create and the stop); the same
/// step with its stop removed no longer matches what its change shows and is refused.
#[test]
fn a_saved_create_stopped_applies_as_shown_and_an_edited_one_is_refused() {
    let sandbox = crate::common::fast_sandbox();
    let workspace = crate::common::Workspace::new();
    let path = workspace.write("converge.yaml", &stopped_stream());
    let saved = workspace.file("plan.json");
    let converge = Converge::new(&sandbox).fast().cwd(&workspace);
    converge
        .run(["plan", &path, "--out", &saved])
        .assert_exit(0);
    let text = std::fs::read_to_string(&saved).unwrap();
    assert!(text.contains("\"stopped\": true"), "{text}");
    let edited = workspace.file("edited.json");
    std::fs::write(
        &edited,
        text.replace("\"stopped\": true", "\"stopped\": false"),
    )
    .unwrap();
    sandbox.reset_log();
    let refused = converge.run(["apply", "--plan", &edited, &path, "--yes"]);
    converge_snapshot!("pipe_end_saved_stop_edited", refused);
    assert!(refused.writes().is_empty(), "{refused:?}");
    let applied = converge.run(["apply", "--plan", &saved, &path, "--yes"]);
    assert_eq!(applied.code, 0, "{applied:?}");
    assert_eq!(applied.writes(), vec![CREATE, STATE], "{applied:?}");
    converge
        .run(["plan", &path, "--detailed-exitcode"])
        .assert_exit(0);
}

/// The service goes idle once the pipe is stopped for a table-mapping edit: `--wake` wakes it
/// before the edit is sent again, the server resumes the pipe, and the next plan is empty.
#[test]
fn wake_wakes_a_service_idle_between_a_pause_and_its_edit() {
    let (sandbox, config) = created(Duration::ZERO, vec![Quirk::IdleAfterPipeStop]);
    let converge = Converge::new(&sandbox)
        .fast()
        .envs(CANARIES)
        .config(&remapped(&config));
    sandbox.reset_log();
    let applied = converge.run(["apply", "--yes", "--wake"]);
    assert_no_canary(&applied);
    assert_eq!(applied.code, 0, "{applied:?}");
    assert_eq!(
        applied.writes(),
        // The mark of the stop on the service, set before it and removed once running.
        vec![TAGS, STATE, EDIT, WAKE, EDIT, TAGS],
        "{applied:?}"
    );
    assert_eq!(live(&sandbox, "orders from postgres")["state"], "Running");
    converge.run(["plan", "--detailed-exitcode"]).assert_exit(0);
}
