//! The CI kit's merge job with pipes the config finds by name (issue 40, part 2): each pull
//! request is planned with `--out plan.json` and applied with `apply --plan plan.json config/
//! --yes` (what `converge-apply.yml` runs). A step that writes to a pipe declared without `id:`
//! is bound to the pipe the plan read, by id: it applies as reviewed, and is refused only when
//! the pipe the config's name finds now is another one.

use serde_json::Value;

use crate::common::{ANALYTICS, Client, Converge, Workspace, words};
use crate::pipes::analytics_with;

/// A kinesis pipe found by name (no `id:`) into its own table.
fn pipe(key: &str, name: &str, extra: &str) -> String {
    format!(
        "      {key}:\n        name: {name}\n{extra}        source:\n          kinesis: {{ streamName: {key}, region: us-east-1, format: JSONEachRow, iteratorType: LATEST, authentication: IAM_ROLE, iamRole: 'arn:aws:iam::1:role/r' }}\n        destination:\n          database: default\n          table: {key}\n          managedTable: false\n          columns: [{{ name: url, type: String }}]\n        fieldMappings: [{{ sourceField: url, destinationField: url }}]\n"
    )
}

/// The live pipes of `analytics` that write into `table`: (name, CPU millicores).
fn writers(sandbox: &converge::sandbox::SandboxHandle, table: &str) -> Vec<(String, Value)> {
    let pipes = Client::new(sandbox)
        .cloud("GET", &format!("/services/{ANALYTICS}/pipes"), None)
        .result();
    pipes
        .as_array()
        .map(Vec::as_slice)
        .unwrap_or_default()
        .iter()
        .filter(|p| p["destination"]["table"] == table)
        .map(|p| {
            let name = p["name"].as_str().unwrap_or_default().to_string();
            (name, p["scaling"]["replicaCpuMillicores"].clone())
        })
        .collect()
}

/// One pull request through the kit: the config written to `config/`, planned to `plan.json`
/// (exit 2: changes), then the merge job's apply of that file. The apply's outcome.
fn pull_request(
    converge: &Converge<'_>,
    workspace: &Workspace,
    config: &str,
) -> crate::common::Outcome {
    workspace.write("config/converge.yaml", config);
    let planned = converge.run([
        "plan",
        "config/",
        "--out",
        "plan.json",
        "--detailed-exitcode",
    ]);
    assert_eq!(planned.code, 2, "{planned:?}");
    converge.run(["apply", "--plan", "plan.json", "config/", "--yes"])
}

#[test]
fn the_merge_job_applies_two_pull_requests_to_a_pipe_found_by_name() {
    let sandbox = crate::common::fast_sandbox();
    let workspace = Workspace::new();
    std::fs::create_dir_all(workspace.path().join("config")).unwrap();
    let converge = Converge::new(&sandbox).fast().cwd(workspace.path());
    // The first pull request creates the pipe (a create finds it by name).
    let created = pull_request(
        &converge,
        &workspace,
        &analytics_with(&pipe("clickstream", "clickstream from kinesis", "")),
    );
    assert_eq!(created.code, 0, "{created:?}");
    // The second scales it: an update of the pipe the plan read, by id.
    let scaled = pull_request(
        &converge,
        &workspace,
        &analytics_with(&pipe(
            "clickstream",
            "clickstream from kinesis",
            "        scaling: { replicaCpuMillicores: 1000, replicaMemoryGb: 4 }\n",
        )),
    );
    assert_eq!(scaled.code, 0, "{scaled:?}");
    assert!(
        !words(&scaled.stderr).contains("saved-plan::"),
        "{scaled:?}"
    );
    assert_eq!(
        writers(&sandbox, "clickstream"),
        vec![("clickstream from kinesis".to_string(), Value::from(1000))]
    );
    // The third renames it (found by the name it had) and scales it again: still one pipe.
    let renamed = pull_request(
        &converge,
        &workspace,
        &analytics_with(&pipe(
            "clickstream",
            "clickstream (kinesis)",
            "        renamedFrom: [clickstream from kinesis]\n        scaling: { replicaCpuMillicores: 2000, replicaMemoryGb: 8 }\n",
        )),
    );
    assert_eq!(renamed.code, 0, "{renamed:?}");
    assert!(
        renamed.writes().iter().all(|w| !w.starts_with("POST")),
        "{renamed:?}"
    );
    assert_eq!(
        writers(&sandbox, "clickstream"),
        vec![("clickstream (kinesis)".to_string(), Value::from(2000))]
    );
    converge
        .run(["plan", "config/", "--detailed-exitcode"])
        .assert_exit(0);
}

/// The step of a pipe found by name whose pipe id (and fingerprint, as an attacker who can read
/// the pipes computes it) was edited to another pipe of the service is refused, nothing
/// written: the pipe the config's name finds is not the one it writes to.
#[test]
fn the_merge_job_refuses_a_step_moved_to_another_pipe_found_by_name() {
    let sandbox = crate::common::fast_sandbox();
    let workspace = Workspace::new();
    std::fs::create_dir_all(workspace.path().join("config")).unwrap();
    let converge = Converge::new(&sandbox).fast().cwd(workspace.path());
    let both = |clicks: &str, views: &str| {
        analytics_with(&format!(
            "{}{}",
            pipe("clickstream", "clickstream", clicks),
            pipe("views", "views", views)
        ))
    };
    pull_request(&converge, &workspace, &both("", "")).assert_exit(0);
    let replicas = "        scaling: { replicaCpuMillicores: 1000, replicaMemoryGb: 4 }\n";
    // The plan that scales `views`: its step holds the id and fingerprint of `views`.
    workspace.write("config/converge.yaml", &both("", replicas));
    converge
        .run(["plan", "config/", "--out", "views.json"])
        .assert_exit(0);
    let views: Value = serde_json::from_str(&workspace.read("views.json")).unwrap();
    // The reviewed plan scales `clickstream`; its step is moved to `views`.
    workspace.write("config/converge.yaml", &both(replicas, ""));
    converge
        .run(["plan", "config/", "--out", "plan.json"])
        .assert_exit(0);
    let mut plan: Value = serde_json::from_str(&workspace.read("plan.json")).unwrap();
    let views_step = views["plan"]["steps"][0].clone();
    let step = &mut plan["plan"]["steps"][0];
    step["fingerprint"] = views_step["fingerprint"].clone();
    step["operation"]["pipeId"] = views_step["operation"]["pipeId"].clone();
    for change in plan["plan"]["changes"].as_array_mut().unwrap() {
        if change["step"] == 0 {
            change["fingerprint"] = views_step["fingerprint"].clone();
        }
    }
    workspace.write("plan.json", &plan.to_string());
    let refused = converge.run(["apply", "--plan", "plan.json", "config/", "--yes"]);
    assert_ne!(refused.code, 0, "{refused:?}");
    assert!(refused.writes().is_empty(), "{refused:?}");
    assert!(
        words(&refused.stderr).contains("the pipe the config finds by the name `clickstream` is"),
        "{refused:?}"
    );
}

/// A hinted rename (no `renamedFrom:`: the one unclaimed pipe of the declared source and
/// destination, said as a warning) is bound to that pipe too: the merge job applies it as
/// reviewed, renaming the one pipe in place.
#[test]
fn the_merge_job_applies_a_hinted_rename_as_reviewed() {
    let sandbox = crate::common::fast_sandbox();
    let workspace = Workspace::new();
    std::fs::create_dir_all(workspace.path().join("config")).unwrap();
    let converge = Converge::new(&sandbox).fast().cwd(workspace.path());
    let config = |name: &str| analytics_with(&pipe("clickstream", name, ""));
    pull_request(&converge, &workspace, &config("clicks from kinesis")).assert_exit(0);
    let hinted = pull_request(&converge, &workspace, &config("clicks (kinesis)"));
    assert_eq!(hinted.code, 0, "{hinted:?}");
    assert!(
        hinted.writes().iter().all(|w| !w.starts_with("POST")),
        "{hinted:?}"
    );
    assert_eq!(
        writers(&sandbox, "clickstream"),
        vec![("clicks (kinesis)".to_string(), Value::Null)]
    );
}

/// A hinted rename's step edited to another pipe of the service (its id and fingerprint) is
/// refused, nothing written: that pipe is not the one reading the declared source into the
/// declared destination.
#[test]
fn the_merge_job_refuses_a_hinted_rename_moved_to_another_pipe() {
    let sandbox = crate::common::fast_sandbox();
    let workspace = Workspace::new();
    std::fs::create_dir_all(workspace.path().join("config")).unwrap();
    let converge = Converge::new(&sandbox).fast().cwd(workspace.path());
    let both = |clicks: &str, views: &str| {
        analytics_with(&format!(
            "{}{}",
            pipe("clickstream", clicks, ""),
            pipe("views", "views", views)
        ))
    };
    pull_request(&converge, &workspace, &both("clickstream", "")).assert_exit(0);
    let scaled = "        scaling: { replicaCpuMillicores: 1000, replicaMemoryGb: 4 }\n";
    workspace.write("config/converge.yaml", &both("clickstream", scaled));
    converge
        .run(["plan", "config/", "--out", "views.json"])
        .assert_exit(0);
    let views: Value = serde_json::from_str(&workspace.read("views.json")).unwrap();
    workspace.write("config/converge.yaml", &both("clicks (kinesis)", ""));
    converge
        .run(["plan", "config/", "--out", "plan.json"])
        .assert_exit(0);
    let mut plan: Value = serde_json::from_str(&workspace.read("plan.json")).unwrap();
    let views_step = views["plan"]["steps"][0].clone();
    let step = &mut plan["plan"]["steps"][0];
    step["fingerprint"] = views_step["fingerprint"].clone();
    step["operation"]["pipeId"] = views_step["operation"]["pipeId"].clone();
    for change in plan["plan"]["changes"].as_array_mut().unwrap() {
        if change["step"] == 0 {
            change["fingerprint"] = views_step["fingerprint"].clone();
        }
    }
    workspace.write("plan.json", &plan.to_string());
    let refused = converge.run(["apply", "--plan", "plan.json", "config/", "--yes"]);
    assert_ne!(refused.code, 0, "{refused:?}");
    assert!(refused.writes().is_empty(), "{refused:?}");
    assert!(
        words(&refused.stderr)
            .contains("is not the one pipe reading its source into its destination"),
        "{refused:?}"
    );
}
