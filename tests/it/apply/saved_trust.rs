//! A saved plan crosses a trust boundary (made in one job, applied in another): `apply --plan`
//! runs only what its changes show and connects with the applying run's config or environment,
//! never with what the file says. Each test edits a saved plan the way an attacker (or a bad
//! merge) could, and checks that nothing is written, or sent where the file points.

use converge::sandbox::SandboxHandle;
use serde_json::{Value, json};

use super::*;
use crate::common::{self, words};

/// `plan --out` of the quickstart against `sandbox`: the saved plan as JSON, and its path.
fn saved_plan(sandbox: &SandboxHandle, workspace: &Workspace) -> (Value, String) {
    let config = workspace.write("converge.yaml", &quickstart());
    let saved = save_plan(&binary(sandbox, workspace), workspace, &config);
    let text = std::fs::read_to_string(&saved).unwrap();
    (serde_json::from_str(&text).unwrap(), saved)
}

fn write_plan(path: &str, plan: &Value) {
    std::fs::write(path, serde_json::to_string_pretty(plan).unwrap()).unwrap();
}

/// Applies the saved plan at `path` and checks it was refused with `expected` in the message
/// and nothing written.
fn refused(sandbox: &SandboxHandle, workspace: &Workspace, path: &str, expected: &str) {
    sandbox.reset_log();
    let applied = binary(sandbox, workspace).run(["apply", "--plan", path, "--yes"]);
    applied.assert_exit(1);
    // Error text is wrapped to the terminal's width, with `|` gutters: compare words.
    let stderr = words(&applied.stderr);
    assert!(
        stderr.contains(&words(expected)),
        "{expected}: {}",
        applied.stderr
    );
    assert!(stderr.contains("nothing was written"), "{}", applied.stderr);
    assert_eq!(writes(sandbox), Vec::<String>::new());
}

#[test]
fn a_step_body_edited_away_from_its_change_is_refused() {
    let sandbox = common::fast_sandbox();
    let workspace = Workspace::new();
    let (mut plan, path) = saved_plan(&sandbox, &workspace);
    // The change (what was reviewed) says 3 replicas; the step is edited to write 20.
    let step = &mut plan["plan"]["steps"][0];
    assert_eq!(step["address"], "service.analytics.scaling");
    step["operation"]["body"]["numReplicas"] = json!(20);
    write_plan(&path, &plan);
    refused(
        &sandbox,
        &workspace,
        &path,
        "service.analytics.scaling: the step writes",
    );
    assert_eq!(analytics(&sandbox)["numReplicas"].as_f64(), Some(2.0));
}

#[test]
fn changes_set_to_no_op_with_their_steps_kept_are_refused() {
    let sandbox = common::fast_sandbox();
    let workspace = Workspace::new();
    let (mut plan, path) = saved_plan(&sandbox, &workspace);
    for change in plan["plan"]["changes"].as_array_mut().unwrap() {
        change["action"] = json!("no-op");
        change["fields"] = json!([]);
    }
    write_plan(&path, &plan);
    refused(
        &sandbox,
        &workspace,
        &path,
        "service.analytics.scaling is unchanged (no-op) but has step 1",
    );
}

#[test]
fn steps_no_change_shows_such_as_a_create_three_times_are_refused() {
    let sandbox = common::fast_sandbox();
    let workspace = Workspace::new();
    let (mut plan, path) = saved_plan(&sandbox, &workspace);
    let steps = plan["plan"]["steps"].as_array_mut().unwrap();
    let create = steps
        .iter()
        .find(|s| s["address"] == "dashboard.prod.api-health")
        .unwrap()
        .clone();
    for _ in 0..2 {
        let mut copy = create.clone();
        copy["id"] = json!(steps.len());
        steps.push(copy);
    }
    write_plan(&path, &plan);
    refused(
        &sandbox,
        &workspace,
        &path,
        "step 8 (dashboard.prod.api-health) is no change's step",
    );
    assert_eq!(names(&dashboards(&sandbox)), ["On-call overview"]);
}

#[test]
fn the_url_and_secret_references_in_the_file_are_never_used() {
    let sandbox = common::fast_sandbox();
    // Where an edited file would send the requests, and the credentials with them.
    let elsewhere = common::fast_sandbox();
    let workspace = Workspace::new();
    let (mut plan, path) = saved_plan(&sandbox, &workspace);
    plan["cloud"]["url"] = json!(elsewhere.url());
    plan["cloud"]["keySecret"] = json!("${env:ANY_VAR}");
    plan["observability"]["url"] = json!(elsewhere.url());
    plan["observability"]["token"] = json!("${env:ANY_VAR}");
    write_plan(&path, &plan);
    let applied = binary(&sandbox, &workspace)
        .env("ANY_VAR", "a-value-that-must-not-leave")
        .run(["apply", "--plan", path.as_str(), "--yes"]);
    // Applied where the applying run's environment points, with its credentials.
    applied.assert_exit(0);
    assert_eq!(writes(&sandbox).len(), 7);
    assert!(
        elsewhere.request_log().is_empty(),
        "{:?}",
        elsewhere.request_log()
    );
}

#[test]
fn given_a_config_after_the_plan_file_the_config_says_where_to_connect() {
    let sandbox = common::fast_sandbox();
    let elsewhere = common::fast_sandbox();
    let workspace = Workspace::new();
    let (_, path) = saved_plan(&sandbox, &workspace);
    let config = workspace.write(
        "pinned.yaml",
        &quickstart().replace(
            "url: ${env:CONVERGE_CLOUD_URL:-http://127.0.0.1:8080}",
            &format!("url: {}", sandbox.url()),
        ),
    );
    sandbox.reset_log();
    let applied = binary(&sandbox, &workspace)
        .env("CONVERGE_CLOUD_URL", elsewhere.url())
        .run(["apply", "--plan", path.as_str(), config.as_str(), "--yes"]);
    applied.assert_exit(0);
    assert_eq!(writes(&sandbox).len(), 7);
    assert!(
        elsewhere.request_log().is_empty(),
        "{:?}",
        elsewhere.request_log()
    );
}

#[test]
fn a_plan_made_for_another_organization_is_refused() {
    let sandbox = common::fast_sandbox();
    let workspace = Workspace::new();
    let (mut plan, path) = saved_plan(&sandbox, &workspace);
    let other = "00000000-0000-4000-8000-000000000009";
    plan["organization"] = json!(other);
    plan["plan"]["organization"] = json!(other);
    write_plan(&path, &plan);
    refused(
        &sandbox,
        &workspace,
        &path,
        &format!("was made for organization {other}"),
    );
}

#[test]
fn a_dashboard_update_carrying_another_tile_s_id_is_refused_before_any_write() {
    let sandbox = common::fast_sandbox();
    let workspace = Workspace::new();
    let converge = binary(&sandbox, &workspace);
    let config = workspace.write("converge.yaml", &quickstart());
    let applied = converge.run(["apply", config.as_str(), "--yes"]);
    applied.assert_exit(0);
    // A tag changes: the plan updates the dashboard, carrying its tiles' ids forward.
    std::fs::write(
        &config,
        quickstart().replace("tags: [team-api]", "tags: [team-web]"),
    )
    .unwrap();
    let path = workspace.file("plan.json");
    let planned = converge.run(["plan", config.as_str(), "--out", path.as_str()]);
    planned.assert_exit(0);
    let mut plan: Value = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    // The ids of the two tiles swapped: the alert on `Requests` would follow the wrong tile.
    let tiles = plan["plan"]["steps"][0]["operation"]["body"]["tiles"]
        .as_array_mut()
        .unwrap();
    let first = tiles[0]["id"].clone();
    tiles[0]["id"] = tiles[1]["id"].clone();
    tiles[1]["id"] = first;
    write_plan(&path, &plan);
    refused(
        &sandbox,
        &workspace,
        &path,
        "dashboard.prod.api-health: tile \"",
    );
}

#[test]
fn given_the_config_a_step_moved_to_another_service_is_refused() {
    let sandbox = common::fast_sandbox();
    let workspace = Workspace::new();
    let (mut plan, path) = saved_plan(&sandbox, &workspace);
    // `service.analytics.scaling` now writes to the demo's other service.
    let reporting = "2e4f6a8b-3c5d-4e7f-8a9b-0c1d2e3f4a5b";
    plan["plan"]["steps"][0]["operation"]["serviceId"] = json!(reporting);
    write_plan(&path, &plan);
    let config = workspace.file("converge.yaml");
    sandbox.reset_log();
    let applied = binary(&sandbox, &workspace).run([
        "apply",
        "--plan",
        path.as_str(),
        config.as_str(),
        "--yes",
    ]);
    applied.assert_exit(1);
    let words = words(&applied.stderr);
    assert!(
        words.contains(&format!(
            "service.analytics.scaling: writes to service {reporting}"
        )),
        "{}",
        applied.stderr
    );
    assert!(
        sandbox.request_log().is_empty(),
        "{:?}",
        sandbox.request_log()
    );
}
