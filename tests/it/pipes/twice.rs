//! Never two pipes (issue 41, parts 3 and 6), through the binary against the sandbox: a saved
//! replacement applied twice is stale the second time; two applies of one replacing config at
//! once, with and without lost answers, leave one pipe; a replacement whose create answer is
//! lost says what a re-read found.

use std::time::Duration;

use converge::sandbox::{SandboxHandle, SandboxOptions};
use serde_json::Value;

use crate::common::{ANALYTICS, Client, Converge, Workspace, words};
use crate::pipes::analytics_with;

/// One kinesis pipe `stream` reading `stream_name` (a field fixed at creation: a change of it
/// replaces the pipe).
fn stream(stream_name: &str) -> String {
    analytics_with(&format!(
        "      stream:\n        name: stream from kinesis\n        source:\n          kinesis: {{ streamName: {stream_name}, region: us-east-1, format: JSONEachRow, iteratorType: LATEST, authentication: IAM_ROLE, iamRole: 'arn:aws:iam::1:role/r' }}\n        destination:\n          database: default\n          table: clicks\n          managedTable: false\n          columns: [{{ name: url, type: String }}]\n        fieldMappings: [{{ sourceField: url, destinationField: url }}]\n"
    ))
}

/// The live pipes named `stream from kinesis`.
fn streams(sandbox: &SandboxHandle) -> Vec<Value> {
    let pipes = Client::new(sandbox)
        .cloud("GET", &format!("/services/{ANALYTICS}/pipes"), None)
        .result();
    pipes
        .as_array()
        .unwrap()
        .iter()
        .filter(|p| p["name"] == "stream from kinesis")
        .cloned()
        .collect()
}

fn sandbox_with(options: SandboxOptions) -> SandboxHandle {
    crate::common::sandbox(SandboxOptions {
        rate_limit: false,
        ..options
    })
}

/// A saved replacement is for the pipe it was made against: applied a second time, that pipe
/// is gone, and the step is stale (exit 3) instead of a second create.
#[test]
fn a_saved_replacement_applied_twice_is_stale_the_second_time() {
    let sandbox = sandbox_with(SandboxOptions::default());
    let workspace = Workspace::new();
    let first = workspace.write("first.yaml", &stream("s1"));
    let converge = Converge::new(&sandbox).fast().cwd(&workspace);
    converge.run(["apply", &first, "--yes"]).assert_exit(0);
    // Pinned by the id export writes, so that the saved plan holds the step to the pipe.
    let id = streams(&sandbox)[0]["id"].as_str().unwrap().to_string();
    let pinned = stream("s2").replace(
        "        name: stream from kinesis\n",
        &format!("        id: {id}\n        name: stream from kinesis\n"),
    );
    let second = workspace.write("second.yaml", &pinned);
    let saved = workspace.file("plan.json");
    converge
        .run(["plan", &second, "--out", &saved])
        .assert_exit(0);
    let applied = converge.run([
        "apply",
        "--plan",
        &saved,
        &second,
        "--yes",
        "--allow-destroy",
    ]);
    assert_eq!(applied.code, 0, "{applied:?}");
    assert_eq!(streams(&sandbox).len(), 1);
    sandbox.reset_log();
    let again = converge.run([
        "apply",
        "--plan",
        &saved,
        &second,
        "--yes",
        "--allow-destroy",
    ]);
    assert_eq!(again.code, 3, "{again:?}");
    assert!(
        words(&again.stderr).contains("was deleted since the plan was made"),
        "{again:?}"
    );
    assert!(again.writes().is_empty(), "{again:?}");
    assert_eq!(streams(&sandbox).len(), 1);
}

/// Two applies at once of a config that replaces the pipe, 20 rounds, on a sandbox whose
/// requests take a while (so that both runs' checks come before either delete): every round
/// ends with one pipe, and the next plan is empty.
#[test]
fn concurrent_replacements_never_leave_two_pipes() {
    rounds(SandboxOptions {
        latency: Duration::from_millis(15),
        ..SandboxOptions::default()
    });
}

/// The same rounds with creates whose answers are lost now and then.
#[test]
fn concurrent_replacements_with_lost_answers_never_leave_two_pipes() {
    rounds(SandboxOptions {
        latency: Duration::from_millis(15),
        faults: "lost@POST=0.3".parse().unwrap(),
        ..SandboxOptions::default()
    });
}

/// Four applies at once of a replacing config, 10 rounds, with lost answers: one pipe each time.
#[test]
fn four_concurrent_replacements_never_leave_two_pipes() {
    rounds_of(
        SandboxOptions {
            latency: Duration::from_millis(15),
            faults: "lost@POST=0.2".parse().unwrap(),
            ..SandboxOptions::default()
        },
        4,
        10,
    );
}

fn rounds(options: SandboxOptions) {
    rounds_of(options, 2, 20);
}

/// `count` rounds of `at_once` applies at once of a config replacing the pipe.
fn rounds_of(options: SandboxOptions, at_once: usize, count: usize) {
    let sandbox = sandbox_with(options);
    let workspace = Workspace::new();
    let converge = Converge::new(&sandbox).fast().cwd(&workspace);
    let first = workspace.write("s0.yaml", &stream("s0"));
    converge.run(["apply", &first, "--yes"]).assert_exit(0);
    let mut twice = 0;
    let mut codes = Vec::new();
    for round in 1..=count {
        let path = workspace.write(&format!("s{round}.yaml"), &stream(&format!("s{round}")));
        let args = ["apply", path.as_str(), "--yes", "--allow-destroy"];
        let outcomes: Vec<_> = std::thread::scope(|scope| {
            let runs: Vec<_> = (0..at_once)
                .map(|_| scope.spawn(|| converge.run(args)))
                .collect();
            runs.into_iter().map(|run| run.join().unwrap()).collect()
        });
        codes.push(outcomes.iter().map(|o| o.code).collect::<Vec<_>>());
        for outcome in &outcomes {
            assert!([0, 3].contains(&outcome.code), "round {round}: {outcome:?}");
        }
        let live = streams(&sandbox);
        if live.len() != 1 {
            twice += 1;
        }
        // Whatever the race, one more apply converges and the plan after is empty.
        converge
            .run(["apply", &path, "--yes", "--allow-destroy"])
            .assert_exit(0);
        converge
            .run(["plan", &path, "--detailed-exitcode"])
            .assert_exit(0);
        assert_eq!(streams(&sandbox).len(), 1, "round {round}");
    }
    assert_eq!(twice, 0, "rounds that left two pipes; exit codes {codes:?}");
}

/// A replacement whose create answer is lost: a re-read finds the pipe created, the step is
/// done with that note (not "creating it again failed"), and the next plan is empty.
#[test]
fn a_replacement_whose_create_answer_was_lost_says_what_a_re_read_found() {
    let sandbox = sandbox_with(SandboxOptions::default());
    Converge::new(&sandbox)
        .fast()
        .config(&stream("s1"))
        .run(["apply", "--yes"])
        .assert_exit(0);
    sandbox.fault_switch().set("lost@POST=1".parse().unwrap());
    let replacing = Converge::new(&sandbox).fast().config(&stream("s2"));
    let applied = replacing.run(["apply", "--yes", "--allow-destroy"]);
    sandbox.fault_switch().set(Default::default());
    assert_eq!(applied.code, 0, "{applied:?}");
    let said = words(&applied.stderr);
    assert!(
        said.contains("but a re-read found it created"),
        "{applied:?}"
    );
    assert!(!said.contains("creating it again failed"), "{applied:?}");
    assert_eq!(streams(&sandbox).len(), 1);
    replacing
        .run(["plan", "--detailed-exitcode"])
        .assert_exit(0);
}

/// A pipe pinned by `id:` (as every export writes it) and replaced: the next plan finds it
/// again by its name, says at the `id:` line which id to write, and plans nothing more; the
/// config with that id plans clean without the warning (issue 41, part 5).
#[test]
fn a_replaced_id_pinned_pipe_is_found_again_by_the_next_plan() {
    let sandbox = sandbox_with(SandboxOptions::default());
    let workspace = Workspace::new();
    let converge = Converge::new(&sandbox).fast().cwd(&workspace);
    let first = workspace.write("first.yaml", &stream("s1"));
    converge.run(["apply", &first, "--yes"]).assert_exit(0);
    let old = streams(&sandbox)[0]["id"].as_str().unwrap().to_string();
    let pin = |text: String, id: &str| {
        text.replace(
            "        name: stream from kinesis\n",
            &format!("        id: {id}\n        name: stream from kinesis\n"),
        )
    };
    let pinned = workspace.write("pinned.yaml", &pin(stream("s2"), &old));
    converge
        .run(["apply", &pinned, "--yes", "--allow-destroy"])
        .assert_exit(0);
    let new = streams(&sandbox)[0]["id"].as_str().unwrap().to_string();
    assert_ne!(new, old);
    let plan = converge.run(["plan", &pinned, "--detailed-exitcode"]);
    assert_eq!(plan.code, 0, "{plan:?}");
    let said = words(&plan.stderr);
    assert!(said.contains("plan::pipe-id-replaced"), "{plan:?}");
    assert!(said.contains(&format!("write `id: {new}`")), "{plan:?}");
    assert!(!said.contains("pipe-not-found"), "{plan:?}");
    let drift = converge.run(["drift", &pinned]);
    assert_eq!(drift.code, 0, "{drift:?}");
    // `drift --write` writes the new id over the old, and only that.
    converge.run(["drift", &pinned, "--write"]).assert_exit(0);
    assert_eq!(workspace.read("pinned.yaml"), pin(stream("s2"), &new));
    let clean = converge.run(["plan", &pinned, "--detailed-exitcode"]);
    assert_eq!(clean.code, 0, "{clean:?}");
    assert!(
        !words(&clean.stderr).contains("pipe-id-replaced"),
        "{clean:?}"
    );
}

/// A copy of the live pipe `id` made behind converge's back (as a raced or killed run leaves
/// one), with `edit` made to its body: the new pipe's id.
fn copy_of(sandbox: &SandboxHandle, id: &str, edit: impl Fn(&mut Value)) -> String {
    let client = Client::new(sandbox);
    let live = client
        .cloud("GET", &format!("/services/{ANALYTICS}/pipes/{id}"), None)
        .result();
    let mut body = serde_json::json!({});
    for member in ["name", "source", "destination", "fieldMappings"] {
        body[member] = live[member].clone();
    }
    edit(&mut body);
    let made = client
        .cloud("POST", &format!("/services/{ANALYTICS}/pipes"), Some(body))
        .result();
    made["id"].as_str().unwrap().to_string()
}

/// Two live pipes answering one declared pipe are a copy (issue 41, part 3): plan and drift
/// say so at the pipe's line; `apply --dedupe` deletes the newer copy only with
/// `--allow-destroy`, when both read the declared source into the declared destination, and
/// the plan after is clean. A copy that reads another source is said and never deleted.
#[test]
fn a_copy_of_a_pipe_is_shown_and_deleted_by_dedupe_when_it_is_identical() {
    let sandbox = sandbox_with(SandboxOptions::default());
    let workspace = Workspace::new();
    let converge = Converge::new(&sandbox).fast().cwd(&workspace);
    let config = workspace.write("c.yaml", &stream("s1"));
    converge.run(["apply", &config, "--yes"]).assert_exit(0);
    let kept = streams(&sandbox)[0]["id"].as_str().unwrap().to_string();
    let copy = copy_of(&sandbox, &kept, |_| {});
    assert_eq!(streams(&sandbox).len(), 2);
    for command in ["plan", "drift"] {
        let shown = converge.run([command, &config]);
        let said = words(&shown.stderr);
        assert!(
            said.contains("plan::duplicate-pipe"),
            "{command}: {shown:?}"
        );
        assert!(said.contains(&copy), "{command}: {shown:?}");
        assert!(
            said.contains("converge apply --dedupe --allow-destroy"),
            "{command}: {shown:?}"
        );
    }
    let drift = converge.run(["drift", &config]);
    assert!(
        words(&drift.stdout).contains(&format!("pipe {copy} is a copy of `pipe.analytics.stream`")),
        "{drift:?}"
    );
    // A saved plan cannot prove which pipe of the name its delete is for.
    let saved = workspace.file("dedupe.json");
    converge
        .run(["plan", &config, "--dedupe", "--out", &saved])
        .assert_exit(0);
    let from_file = converge.run([
        "apply",
        "--plan",
        &saved,
        &config,
        "--yes",
        "--allow-destroy",
    ]);
    assert_eq!(from_file.code, 1, "{from_file:?}");
    assert!(
        words(&from_file.stderr).contains("a saved plan cannot prove which pipe of the name"),
        "{from_file:?}"
    );
    assert!(from_file.writes().is_empty(), "{from_file:?}");
    let refused = converge.run(["apply", &config, "--yes", "--dedupe"]);
    assert_eq!(refused.code, 4, "{refused:?}");
    assert!(refused.writes().is_empty(), "{refused:?}");
    let deduped = converge.run(["apply", &config, "--yes", "--dedupe", "--allow-destroy"]);
    assert_eq!(deduped.code, 0, "{deduped:?}");
    assert_eq!(
        deduped.writes(),
        ["DELETE /v1/organizations/{organizationId}/services/{serviceId}/pipes/{pipeId}"],
        "{deduped:?}"
    );
    let live = streams(&sandbox);
    assert_eq!(live.len(), 1);
    assert_eq!(live[0]["id"], kept.as_str());
    let clean = converge.run(["plan", &config, "--detailed-exitcode"]);
    assert_eq!(clean.code, 0, "{clean:?}");
    assert!(
        !words(&clean.stderr).contains("duplicate-pipe"),
        "{clean:?}"
    );

    // A pipe of the name reading another stream is no copy converge may delete.
    let other = copy_of(&sandbox, &kept, |body| {
        body["source"]["kinesis"]["streamName"] = "someone-else".into();
    });
    let shown = converge.run(["plan", &config]);
    let said = words(&shown.stderr);
    assert!(said.contains("plan::duplicate-pipe"), "{shown:?}");
    assert!(
        said.contains(&format!("may not delete id {other}")),
        "{shown:?}"
    );
    let applied = converge.run(["apply", &config, "--yes", "--dedupe", "--allow-destroy"]);
    assert_eq!(applied.code, 0, "{applied:?}");
    assert!(applied.writes().is_empty(), "{applied:?}");
    assert_eq!(streams(&sandbox).len(), 2);
}
