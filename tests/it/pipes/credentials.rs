//! Pipe credentials rotated through the real binary (issue 22 item 3): they are sent on create
//! and when `credentialsVersion` rises above the version recorded on the service, never on
//! another update, never printed, and a saved plan holds only their references and salted
//! fingerprints.

use converge::sandbox::{LogEntry, SandboxHandle, SandboxOptions};

use crate::common::{Converge, Outcome, Workspace, converge_snapshot};
use crate::pipes::{CANARIES, assert_no_canary, declared_whole};

/// The kafka pipe's credential value that a rotation sends.
const ROTATED: &str = "canary-password-rotated-6d1e";

/// The demo pipes declared whole, the kafka one at `credentialsVersion: version`.
fn at_version(version: u32) -> String {
    declared_whole().replace(
        "        name: events from kafka\n",
        &format!("        name: events from kafka\n        credentialsVersion: {version}\n"),
    )
}

fn logged_sandbox() -> SandboxHandle {
    crate::common::sandbox(SandboxOptions {
        rate_limit: false,
        log_bodies: true,
        ..SandboxOptions::default()
    })
}

/// The requests of a run whose body carries a credential value, as `"METHOD route"`.
fn carrying_credentials(requests: &[LogEntry]) -> Vec<String> {
    requests
        .iter()
        .filter(|entry| {
            let body = entry.request_body.as_deref().unwrap_or_default();
            CANARIES.iter().any(|(_, canary)| body.contains(canary)) || body.contains(ROTATED)
        })
        .map(|entry| format!("{} {}", entry.method, entry.route))
        .collect()
}

/// No output of a run, and no answer the sandbox gave, holds a credential value.
fn assert_secret(outcome: &Outcome) {
    assert_no_canary(outcome);
    assert!(
        !outcome.stdout.contains(ROTATED) && !outcome.stderr.contains(ROTATED),
        "{outcome:?}"
    );
    for entry in &outcome.requests {
        let answer = entry.response_body.as_deref().unwrap_or_default();
        assert!(
            !CANARIES.iter().any(|(_, canary)| answer.contains(canary))
                && !answer.contains(ROTATED),
            "answered by {} {}",
            entry.method,
            entry.route
        );
    }
}

const PIPE: &str = "PATCH /v1/organizations/{organizationId}/services/{serviceId}/pipes/{pipeId}";
const SERVICE: &str = "PATCH /v1/organizations/{organizationId}/services/{serviceId}";

/// A raised `credentialsVersion` sends the credentials exactly once, in the pipe's `PATCH`;
/// applying again sends none, and neither does an edit of another field.
#[test]
fn a_raised_credentials_version_sends_the_credentials_once() {
    let sandbox = logged_sandbox();
    let converge = |config: &str| Converge::new(&sandbox).fast().envs(CANARIES).config(config);
    let created = converge(&at_version(1)).run(["apply", "--yes"]);
    created.assert_exit(0);
    assert_secret(&created);
    // Each create with credentials carries them (the kinesis pipe authenticates by role); the
    // version sent to the kafka pipe is recorded on the service.
    assert_eq!(
        carrying_credentials(&created.requests),
        vec!["POST /v1/organizations/{organizationId}/services/{serviceId}/pipes"; 3]
    );
    assert_eq!(
        created.count(
            "PATCH",
            "/v1/organizations/{organizationId}/services/{serviceId}"
        ),
        1
    );
    let same = converge(&at_version(1)).run(["apply", "--yes"]);
    assert_secret(&same);
    assert_eq!(same.writes(), Vec::<String>::new(), "{same:?}");

    let rotating = converge(&at_version(2)).env("PIPE_EVENTS_PASSWORD", ROTATED);
    let planned = rotating.run(["plan"]);
    assert_secret(&planned);
    converge_snapshot!("pipe_credentials_rotation_plan", planned);
    for format in ["json", "markdown"] {
        let rendered = rotating.run(["plan", "--format", format]);
        rendered.assert_exit(0);
        assert_secret(&rendered);
    }
    let rotated = rotating.run(["apply", "--yes", "-vv"]);
    rotated.assert_exit(0);
    assert_secret(&rotated);
    assert_eq!(rotated.writes(), vec![PIPE, SERVICE], "{rotated:?}");
    assert_eq!(carrying_credentials(&rotated.requests), vec![PIPE]);
    let sent = rotated.requests[rotated
        .requests
        .iter()
        .position(|e| format!("{} {}", e.method, e.route) == PIPE)
        .unwrap()]
    .request_body
    .clone()
    .unwrap();
    let sent: serde_json::Value = serde_json::from_str(&sent).unwrap();
    assert_eq!(
        sent,
        serde_json::json!({"source": {"kafka": {"credentials": {
            "username": "canary-user-7f3a", "password": ROTATED}}}})
    );

    let again = rotating.run(["apply", "--yes"]);
    assert_secret(&again);
    assert_eq!(again.writes(), Vec::<String>::new(), "{again:?}");
    rotating.run(["plan", "--detailed-exitcode"]).assert_exit(0);

    let edited = converge(&at_version(2).replace(
        "streaming_max_insert_wait_ms: 5000",
        "streaming_max_insert_wait_ms: 6000",
    ))
    .env("PIPE_EVENTS_PASSWORD", ROTATED)
    .run(["apply", "--yes"]);
    edited.assert_exit(0);
    assert_secret(&edited);
    // A settings edit is its own `PUT .../settings`, and carries no credential either.
    assert_eq!(
        edited.writes(),
        vec!["PUT /v1/organizations/{organizationId}/services/{serviceId}/pipes/{pipeId}/settings"],
        "{edited:?}"
    );
    assert_eq!(carrying_credentials(&edited.requests), Vec::<String>::new());
}

/// A saved rotation holds each credential's reference and a salted fingerprint, never its value;
/// `apply --plan` refuses it when the variable now holds another secret than the one reviewed,
/// and applies it when the secret is the reviewed one.
#[test]
fn a_saved_rotation_applies_only_the_reviewed_secret() {
    let sandbox = logged_sandbox();
    let created = Converge::new(&sandbox)
        .fast()
        .envs(CANARIES)
        .config(&at_version(1))
        .run(["apply", "--yes"]);
    created.assert_exit(0);
    // A saved plan writes only to pipes the config names by id.
    let id = created
        .requests
        .iter()
        .filter_map(|e| e.response_body.as_deref())
        .filter_map(|b| serde_json::from_str::<serde_json::Value>(b).ok())
        .find(|b| b["result"]["name"] == "events from kafka")
        .map(|b| b["result"]["id"].as_str().unwrap().to_string())
        .unwrap();
    let config = at_version(2).replace(
        "        name: events from kafka\n",
        &format!("        id: {id}\n        name: events from kafka\n"),
    );
    let workspace = Workspace::new();
    let path = workspace.write("converge.yaml", &config);
    let saved = workspace.file("plan.json");
    let reviewed = Converge::new(&sandbox)
        .fast()
        .envs(CANARIES)
        .env("PIPE_EVENTS_PASSWORD", ROTATED)
        .cwd(&workspace);
    let planned = reviewed.run(["plan", &path, "--out", &saved]);
    planned.assert_exit(0);
    assert_secret(&planned);
    let text = std::fs::read_to_string(&saved).unwrap();
    assert!(!text.contains(ROTATED), "the rotated value is saved");
    for (_, canary) in CANARIES {
        assert!(!text.contains(canary), "{canary} saved");
    }
    let plan: serde_json::Value = serde_json::from_str(&text).unwrap();
    let step = plan["plan"]["steps"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["operation"]["op"] == "pipe-rotate")
        .unwrap_or_else(|| panic!("no rotation saved: {text}"));
    let credentials = step["operation"]["credentials"].as_array().unwrap();
    let references: Vec<&str> = credentials
        .iter()
        .map(|c| c["reference"].as_str().unwrap())
        .collect();
    assert_eq!(
        references,
        ["${env:PIPE_EVENTS_USERNAME}", "${env:PIPE_EVENTS_PASSWORD}"]
    );
    assert!(
        credentials
            .iter()
            .all(|c| c["fingerprint"].as_str().unwrap().len() == 64)
    );

    // The same secret fingerprints differently in another plan: the salt is the plan's own.
    let other = workspace.file("other.json");
    reviewed
        .run(["plan", &path, "--out", &other])
        .assert_exit(0);
    let other: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&other).unwrap()).unwrap();
    let fingerprints = |plan: &serde_json::Value| -> Vec<String> {
        plan["plan"]["steps"]
            .as_array()
            .unwrap()
            .iter()
            .flat_map(|s| {
                s["operation"]["credentials"]
                    .as_array()
                    .cloned()
                    .unwrap_or_default()
            })
            .filter_map(|c| c["fingerprint"].as_str().map(str::to_string))
            .collect()
    };
    assert_eq!(fingerprints(&other).len(), 2);
    assert!(
        fingerprints(&other)
            .iter()
            .all(|f| !fingerprints(&plan).contains(f))
    );

    let swapped = reviewed
        .env("PIPE_EVENTS_PASSWORD", "canary-swapped-after-review")
        .run(["apply", "--plan", &saved, &path, "--yes"]);
    assert_secret(&swapped);
    assert!(!swapped.stderr.contains("canary-swapped-after-review"));
    assert_ne!(swapped.code, 0, "{swapped:?}");
    assert!(
        crate::common::words(&swapped.stderr).contains(
            "is not the value this plan was made with: the rotation was approved for another secret"
        ),
        "{swapped:?}"
    );
    assert_eq!(
        carrying_credentials(&swapped.requests),
        Vec::<String>::new()
    );

    let applied = Converge::new(&sandbox)
        .fast()
        .envs(CANARIES)
        .env("PIPE_EVENTS_PASSWORD", ROTATED)
        .cwd(&workspace)
        .run(["apply", "--plan", &saved, &path, "--yes"]);
    applied.assert_exit(0);
    assert_secret(&applied);
    assert_eq!(carrying_credentials(&applied.requests), vec![PIPE]);
}

/// A credential's variable is needed only by a plan that sends it: creating the pipes without
/// them is refused at each reference, and once they exist a plan runs without any.
#[test]
fn a_credential_variable_is_needed_only_by_a_plan_that_sends_it() {
    let sandbox = crate::common::fast_sandbox();
    let config = at_version(1);
    let unset = Converge::new(&sandbox).fast().config(&config).run(["plan"]);
    converge_snapshot!("pipe_credentials_unset_on_create", unset);
    Converge::new(&sandbox)
        .fast()
        .envs(CANARIES)
        .config(&config)
        .run(["apply", "--yes"])
        .assert_exit(0);
    Converge::new(&sandbox)
        .fast()
        .config(&config)
        .run(["plan", "--detailed-exitcode"])
        .assert_exit(0);
    // A rotation sends them, so it needs them.
    let rotating = Converge::new(&sandbox)
        .fast()
        .config(&at_version(2))
        .run(["plan"]);
    converge_snapshot!("pipe_credentials_unset_on_rotation", rotating);
}

const DELETE_PIPE: &str =
    "DELETE /v1/organizations/{organizationId}/services/{serviceId}/pipes/{pipeId}";
const CREATE_PIPE: &str = "POST /v1/organizations/{organizationId}/services/{serviceId}/pipes";
const LIST_PIPES: &str = "GET /v1/organizations/{organizationId}/services/{serviceId}/pipes";

/// The id the create of the pipe named `name` answered in a run.
fn created_id(outcome: &Outcome, name: &str) -> String {
    outcome
        .requests
        .iter()
        .filter_map(|e| e.response_body.as_deref())
        .filter_map(|b| serde_json::from_str::<serde_json::Value>(b).ok())
        .find(|b| b["result"]["name"] == name)
        .map(|b| b["result"]["id"].as_str().unwrap().to_string())
        .unwrap()
}

/// Deleting a pipe (`absent: true`) removes the version tag converge recorded for it on the
/// service in the same apply, with one service `PATCH`: no tag outlives the pipe it names.
#[test]
fn deleting_a_pipe_removes_its_version_tag_in_the_same_apply() {
    let sandbox = logged_sandbox();
    let created = Converge::new(&sandbox)
        .fast()
        .envs(CANARIES)
        .config(&at_version(1))
        .run(["apply", "--yes"]);
    created.assert_exit(0);
    let id = created_id(&created, "events from kafka");
    let absent = crate::pipes::analytics_with(&format!(
        "      events:\n        id: {id}\n        absent: true\n"
    ));
    let deleted =
        Converge::new(&sandbox)
            .fast()
            .config(&absent)
            .run(["apply", "--yes", "--allow-destroy"]);
    deleted.assert_exit(0);
    assert_eq!(deleted.writes(), vec![DELETE_PIPE, SERVICE], "{deleted:?}");
    let patch = deleted
        .requests
        .iter()
        .find(|e| format!("{} {}", e.method, e.route) == SERVICE)
        .and_then(|e| e.request_body.as_deref())
        .map(|b| serde_json::from_str::<serde_json::Value>(b).unwrap())
        .unwrap();
    assert_eq!(
        patch["tags"]["remove"],
        serde_json::json!([{ "key": format!("converge.credentials-version.{id}") }]),
        "{patch}"
    );
    let again =
        Converge::new(&sandbox)
            .fast()
            .config(&absent)
            .run(["apply", "--yes", "--allow-destroy"]);
    again.assert_exit(0);
    assert_eq!(again.writes(), Vec::<String>::new(), "{again:?}");
}

/// A create whose answer was lost is found by a re-read and records its `credentialsVersion`
/// as an answered create does: the next plan is empty, not a rotation of what was just sent.
#[test]
fn a_create_whose_answer_was_lost_records_its_credentials_version() {
    let sandbox = crate::common::sandbox(SandboxOptions {
        rate_limit: false,
        faults: "lost@POST=1".parse().unwrap(),
        ..SandboxOptions::default()
    });
    let config = crate::pipes::export::only("events").replace(
        "        name: events from kafka\n",
        "        name: events from kafka\n        credentialsVersion: 1\n",
    );
    let converge = Converge::new(&sandbox)
        .fast()
        .envs(CANARIES)
        .config(&config);
    let applied = converge.run(["apply", "--yes"]);
    applied.assert_exit(0);
    assert_no_canary(&applied);
    assert!(
        crate::common::words(&applied.stderr).contains("but a re-read found it created"),
        "{applied:?}"
    );
    assert_eq!(applied.writes(), vec![CREATE_PIPE, SERVICE], "{applied:?}");
    converge.run(["plan", "--detailed-exitcode"]).assert_exit(0);
}

/// A rotation's JSON plan shows each credential's path and reference but not the plan's salt
/// or fingerprints (only the saved plan keeps them): two runs render the same bytes.
#[test]
fn a_rotations_json_plan_is_the_same_bytes_in_every_run() {
    let sandbox = logged_sandbox();
    Converge::new(&sandbox)
        .fast()
        .envs(CANARIES)
        .config(&at_version(1))
        .run(["apply", "--yes"])
        .assert_exit(0);
    let rotating = Converge::new(&sandbox)
        .fast()
        .envs(CANARIES)
        .env("PIPE_EVENTS_PASSWORD", ROTATED)
        .config(&at_version(2));
    let first = rotating.run(["plan", "--format", "json"]);
    first.assert_exit(0);
    assert_secret(&first);
    let second = rotating.run(["plan", "--format", "json"]);
    assert_eq!(first.stdout, second.stdout);
    let plan = first.json();
    let rotation = plan["steps"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["operation"]["op"] == "pipe-rotate")
        .map(|s| s["operation"].clone())
        .unwrap();
    assert!(rotation.get("salt").is_none(), "{rotation}");
    assert_eq!(
        rotation["credentials"],
        serde_json::json!([
            {"path": "credentials.username", "reference": "${env:PIPE_EVENTS_USERNAME}"},
            {"path": "credentials.password", "reference": "${env:PIPE_EVENTS_PASSWORD}"}
        ])
    );
}

/// A replacement whose new pipe declares no `credentialsVersion` still removes the old pipe's
/// version tag: the tag names a pipe the replacement deleted.
#[test]
fn a_replacement_removes_the_old_pipes_version_tag() {
    let sandbox = logged_sandbox();
    let created = Converge::new(&sandbox)
        .fast()
        .envs(CANARIES)
        .config(&at_version(1))
        .run(["apply", "--yes"]);
    created.assert_exit(0);
    let old = created_id(&created, "events from kafka");
    let replacing = declared_whole().replace("topics: events", "topics: events-v2");
    let replaced = Converge::new(&sandbox)
        .fast()
        .envs(CANARIES)
        .config(&replacing)
        .run(["apply", "--yes", "--allow-destroy"]);
    replaced.assert_exit(0);
    assert_secret(&replaced);
    assert_eq!(
        replaced.writes(),
        vec![DELETE_PIPE, CREATE_PIPE, SERVICE],
        "{replaced:?}"
    );
    // The delete is checked by the shared read right before it (the plan's read, then the
    // check's), not by a list read of its own (issue 38, part 3).
    let before_delete: Vec<String> = replaced
        .requests
        .iter()
        .map(|e| format!("{} {}", e.method, e.route))
        .take_while(|request| request != DELETE_PIPE)
        .filter(|request| request == LIST_PIPES)
        .collect();
    assert_eq!(before_delete, [LIST_PIPES; 2], "{replaced:?}");
    let patch = replaced
        .requests
        .iter()
        .find(|e| format!("{} {}", e.method, e.route) == SERVICE)
        .and_then(|e| e.request_body.as_deref())
        .map(|b| serde_json::from_str::<serde_json::Value>(b).unwrap())
        .unwrap();
    assert_eq!(
        patch["tags"]["remove"],
        serde_json::json!([{ "key": format!("converge.credentials-version.{old}") }]),
        "{patch}"
    );
    assert!(
        patch["tags"]["add"]
            .as_array()
            .is_none_or(|added| added.is_empty()),
        "{patch}"
    );
}

/// Five pipe creates with `credentialsVersion` on one service record their five version tags
/// with one `PATCH` of the service's tags (the endpoint takes a list), not one each; the next
/// plan is empty.
#[test]
fn five_creates_with_credentials_versions_record_their_tags_in_one_service_patch() {
    let sandbox = logged_sandbox();
    let one = crate::pipes::export::only("events");
    let start = one.find("    pipes:\n").unwrap() + "    pipes:\n".len();
    let block = one[start..].replace(
        "        name: events from kafka\n",
        "        name: events from kafka\n        credentialsVersion: 1\n",
    );
    let pipes: String = (0..5)
        .map(|i| {
            block
                .replace("      events:\n", &format!("      events{i}:\n"))
                .replace("name: events from kafka\n", &format!("name: events {i}\n"))
        })
        .collect();
    let converge = Converge::new(&sandbox)
        .fast()
        .envs(CANARIES)
        .config(&format!("{}{pipes}", &one[..start]));
    let applied = converge.run(["apply", "--yes"]);
    applied.assert_exit(0);
    assert_no_canary(&applied);
    assert_eq!(
        applied.writes(),
        [vec![CREATE_PIPE; 5], vec![SERVICE]].concat(),
        "{applied:?}"
    );
    let tags = sandbox
        .request_log()
        .into_iter()
        .rev()
        .find(|e| format!("{} {}", e.method, e.route) == SERVICE)
        .and_then(|e| e.request_body)
        .unwrap_or_default();
    assert_eq!(
        tags.matches("converge.credentials-version.").count(),
        5,
        "{tags}"
    );
    converge.run(["plan", "--detailed-exitcode"]).assert_exit(0);
}
