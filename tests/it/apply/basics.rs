//! Execution, refusals, stale saved plans, failures that skip only their dependents, idle
//! services and `--wake`, `--wait`, the JSON report.

use std::time::Duration;

use converge::sandbox::SandboxOptions;
use serde_json::Value;

use super::*;
use crate::common;

const CUSTOMERS_PIPE: &str = "      customers:                    # postgres: not scaled per pipe\n        id: 3c4d5e6f-7a8b-4c9d-8e0f-1a2b3c4d5e6f";

#[test]
fn applies_the_quickstart_with_one_write_per_step_then_plans_no_changes() {
    let sandbox = common::fast_sandbox();
    let workspace = Workspace::new();
    let config = workspace.write("converge.yaml", &quickstart());
    sandbox.reset_log();
    let run = binary(&sandbox, &workspace).run(["apply", config.as_str(), "--yes"]);
    run.assert_exit(0);
    // The plan goes to stdout as `plan` prints it; progress and the report to stderr.
    assert!(
        run.stdout.starts_with("Plan: 3 to create, 4 to update"),
        "{}",
        run.stdout
    );
    assert!(
        run.stderr.contains("apply: 7 done, 0 failed"),
        "{}",
        run.stderr
    );
    let mut writes = writes(&sandbox);
    writes.sort();
    let service = "/v1/organizations/{organizationId}/services/{serviceId}";
    let expected: Vec<String> = vec![
        format!("PATCH {service}/pipes/{{pipeId}}/scaling"),
        format!("PATCH {service}/pipes/{{pipeId}}/scaling"),
        format!("PATCH {service}/pipes/{{pipeId}}/scaling"),
        format!("PATCH {service}/replicaScaling"),
        format!("POST {service}/privateEndpoint"),
        format!("POST {service}/stack/alerts"),
        format!("POST {service}/stack/dashboards"),
    ];
    assert_eq!(writes, expected);
    assert!(!plans_changes(&sandbox, &workspace, &config));
    // The alert points at the tile the dashboard's answer named.
    let dashboard = dashboards(&sandbox)
        .into_iter()
        .find(|d| d["name"] == "API health")
        .expect("created");
    let alert = alerts(&sandbox)
        .into_iter()
        .find(|a| a["name"] == "API errors")
        .expect("created");
    let requests = dashboard["tiles"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["name"] == "Requests")
        .unwrap();
    assert_eq!(alert["dashboardId"], dashboard["id"]);
    assert_eq!(alert["tileId"], requests["id"]);
}

/// The whole apply as a user reads it: the plan on stdout; the phases, one line per finished
/// step and the report on stderr. One step at a time, so the steps end in the plan's order.
#[test]
fn the_quickstart_apply_reads_as_recorded() {
    let sandbox = common::fast_sandbox();
    let workspace = Workspace::new();
    let config = workspace.write("converge.yaml", &quickstart());
    let run =
        binary(&sandbox, &workspace).run(["apply", config.as_str(), "--yes", "--parallelism", "1"]);
    run.assert_exit(0);
    // The backup's age is measured from the real clock: masked so a slow run cannot flake.
    let mut settings = common::snapshots();
    common::mask_ages(&mut settings);
    common::converge_snapshot!(settings, "apply_quickstart", run);
}

#[test]
fn refuses_with_exit_4_and_writes_nothing_without_a_terminal_or_yes() {
    let sandbox = common::fast_sandbox();
    let workspace = Workspace::new();
    let config = workspace.write("converge.yaml", &quickstart());
    let converge = binary(&sandbox, &workspace);
    let run = converge.run(["apply", config.as_str()]);
    run.assert_exit(4);
    assert!(run.stderr.contains("--yes"), "{}", run.stderr);
    assert_eq!(writes(&sandbox), Vec::<String>::new());
    // A `yes` on a pipe is no answer: only a terminal is asked.
    let piped = converge
        .clone()
        .stdin("yes\n")
        .run(["apply", config.as_str()]);
    piped.assert_exit(4);
    assert_eq!(piped.writes(), Vec::<String>::new());
    assert!(plans_changes(&sandbox, &workspace, &config));
}

#[test]
fn deletes_are_refused_without_allow_destroy_and_applied_with_it() {
    let sandbox = common::fast_sandbox();
    let workspace = Workspace::new();
    let converge = binary(&sandbox, &workspace);
    let text = quickstart().replace(
        CUSTOMERS_PIPE,
        &format!("{CUSTOMERS_PIPE}\n        absent: true"),
    );
    assert_ne!(text, quickstart());
    let config = workspace.write("converge.yaml", &text);
    let path = config.as_str();
    let refused = converge.run(["apply", path, "--yes"]);
    refused.assert_exit(4);
    assert!(
        refused.stderr.contains("--allow-destroy"),
        "{}",
        refused.stderr
    );
    assert!(
        refused.stderr.contains("pipe.analytics.customers"),
        "{}",
        refused.stderr
    );
    // Nothing at all was written, not even the steps that destroy nothing.
    assert_eq!(writes(&sandbox), Vec::<String>::new());

    let applied = converge.run(["apply", path, "--yes", "--allow-destroy"]);
    applied.assert_exit(0);
    let client = common::Client::new(&sandbox);
    let pipes = client
        .cloud("GET", &format!("/services/{ANALYTICS}/pipes"), None)
        .result();
    assert!(
        !names(pipes.as_array().unwrap()).contains(&"customers".to_string()),
        "{pipes}"
    );
    assert!(!plans_changes(&sandbox, &workspace, &config));
}

#[test]
fn prune_deletes_only_the_objects_converge_owns() {
    let sandbox = common::fast_sandbox();
    let workspace = Workspace::new();
    let converge = binary(&sandbox, &workspace);
    let config = workspace.write("converge.yaml", &quickstart());
    let first = converge.run(["apply", config.as_str(), "--yes"]);
    first.assert_exit(0);
    assert_eq!(
        names(&dashboards(&sandbox)),
        ["API health", "On-call overview"]
    );
    assert_eq!(names(&alerts(&sandbox)), ["API errors", "Error burst"]);

    // The same stack with prune on, another dashboard instead, and no alerts.
    let quick = quickstart();
    let stack_start = quick.find("    prune: false").unwrap();
    let pruned = format!(
        "{}    prune: true\n    dashboards:\n      other:\n        name: Other board\n        tiles:\n          - name: Count\n            x: 0\n            y: 0\n            w: 6\n            h: 4\n            series:\n              - type: time\n                source: Logs\n                aggFn: count\n",
        &quick[..stack_start]
    );
    let config = workspace.write("pruned.yaml", &pruned);
    let path = config.as_str();
    let refused = converge.run(["apply", path, "--yes"]);
    refused.assert_exit(4);
    let applied = converge.run(["apply", path, "--yes", "--allow-destroy"]);
    applied.assert_exit(0);
    // Owned objects (tagged for the stack, and alerts on them) went; the others stayed.
    assert_eq!(
        names(&dashboards(&sandbox)),
        ["On-call overview", "Other board"]
    );
    assert_eq!(names(&alerts(&sandbox)), ["Error burst"]);
    assert!(!plans_changes(&sandbox, &workspace, &config));
}

#[test]
fn a_saved_plan_is_applied_exactly_when_nothing_changed() {
    let sandbox = common::fast_sandbox();
    let workspace = Workspace::new();
    let converge = binary(&sandbox, &workspace);
    let config = workspace.write("converge.yaml", &quickstart());
    let saved = save_plan(&converge, &workspace, &config);
    let applied = converge.run(["apply", "--plan", saved.as_str(), "--yes"]);
    applied.assert_exit(0);
    assert_eq!(writes(&sandbox).len(), 7);
    assert!(!plans_changes(&sandbox, &workspace, &config));
}

#[test]
fn a_stale_saved_plan_exits_3_names_the_change_and_writes_nothing() {
    let sandbox = common::fast_sandbox();
    let workspace = Workspace::new();
    let converge = binary(&sandbox, &workspace);
    let config = workspace.write("converge.yaml", &quickstart());
    let saved = save_plan(&converge, &workspace, &config);
    // Someone changes the service's scaling after the plan was saved.
    let client = common::Client::new(&sandbox);
    client.cloud(
        "PATCH",
        &format!("/services/{ANALYTICS}/scaling"),
        Some(serde_json::json!({"numReplicas": 5})),
    );
    sandbox.reset_log();
    let applied = converge.run([
        "apply",
        "--plan",
        saved.as_str(),
        "--yes",
        "--format",
        "json",
    ]);
    applied.assert_exit(3);
    assert!(
        applied.stderr.contains("service.analytics.scaling"),
        "{}",
        applied.stderr
    );
    let report: Value = serde_json::from_str(&applied.stdout).expect("a JSON report");
    assert_eq!(report["refused"], "stale");
    let stale: Vec<&str> = report["steps"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|s| s["status"] == "stale")
        .map(|s| s["address"].as_str().unwrap())
        .collect();
    assert_eq!(stale, ["service.analytics.scaling"]);
    assert_eq!(report["summary"]["notStarted"], 6);
    assert!(
        !applied
            .stderr
            .contains("pipe.analytics.orders.scaling changed")
    );
    assert_eq!(writes(&sandbox), Vec::<String>::new());
    assert_eq!(analytics(&sandbox)["numReplicas"].as_f64(), Some(5.0));
}

#[test]
fn a_failed_step_skips_only_its_dependents_and_the_next_plan_shows_what_is_left() {
    let sandbox = common::fast_sandbox();
    let workspace = Workspace::new();
    let converge = binary(&sandbox, &workspace);
    let config = workspace.write("converge.yaml", &quickstart());
    let saved = save_plan(&converge, &workspace, &config);
    // A plan file whose dashboard create the server refuses (a tile 0 wide), its change and
    // step edited alike (a step that disagrees with its change is refused before any write).
    let mut file: Value = serde_json::from_str(&std::fs::read_to_string(&saved).unwrap()).unwrap();
    let steps = file["plan"]["steps"].as_array_mut().unwrap();
    let dashboard = steps
        .iter_mut()
        .find(|s| s["operation"]["op"] == "dashboard-create")
        .expect("a dashboard create");
    dashboard["operation"]["body"]["tiles"][0]["w"] = Value::from(0);
    let tile = dashboard["operation"]["body"]["tiles"][0]["name"].clone();
    let change = file["plan"]["changes"]
        .as_array_mut()
        .unwrap()
        .iter_mut()
        .find(|c| c["address"] == "dashboard.prod.api-health")
        .expect("the dashboard's change");
    for shown in change["after"]["tiles"].as_array_mut().unwrap() {
        if shown["name"] == tile {
            shown["w"] = Value::from(0);
        }
    }
    // The fields the plan shows say so too (the review would have shown the 0), and the file
    // is one saved before digests (a digest would no longer match its text).
    let path = format!("tiles[{}].w", tile.as_str().unwrap_or_default());
    for field in change["fields"].as_array_mut().unwrap() {
        if field["path"] == path.as_str() {
            field["after"] = Value::from(0);
        }
    }
    file.as_object_mut().unwrap().remove("digest");
    std::fs::write(&saved, serde_json::to_string_pretty(&file).unwrap()).unwrap();

    let applied = converge.run([
        "apply",
        "--plan",
        saved.as_str(),
        "--yes",
        "--format",
        "json",
    ]);
    applied.assert_exit(1);
    let report: Value = serde_json::from_str(&applied.stdout).expect("a JSON report on stdout");
    assert_eq!(report["format"], "converge-apply-report/1");
    let status = |address: &str| {
        report["steps"]
            .as_array()
            .unwrap()
            .iter()
            .find(|s| s["address"] == address)
            .map(|s| s["status"].as_str().unwrap().to_string())
            .unwrap()
    };
    assert_eq!(status("dashboard.prod.api-health"), "failed");
    assert_eq!(status("alert.prod.api-errors"), "skipped");
    assert_eq!(status("service.analytics.scaling"), "done");
    assert_eq!(status("pipe.analytics.orders.scaling"), "done");
    assert_eq!(report["summary"]["done"], 5);
    assert!(applied.stderr.contains("failed:"), "{}", applied.stderr);

    let next = converge.run(["plan", config.as_str()]);
    assert!(
        next.stdout
            .starts_with("Plan: 2 to create, 0 to update, 0 to delete"),
        "{}",
        next.stdout
    );
}

#[test]
fn pipe_writes_on_a_stopped_service_name_it_and_wake_sends_awake_first() {
    let sandbox = common::fast_sandbox();
    let workspace = Workspace::new();
    let converge = binary(&sandbox, &workspace);
    let config = workspace.write("converge.yaml", &quickstart());
    let path = config.as_str();
    let client = common::Client::new(&sandbox);
    client.cloud(
        "PATCH",
        &format!("/services/{ANALYTICS}/state"),
        Some(serde_json::json!({"command": "stop"})),
    );
    // `plan` warns ahead.
    let planned = converge.run(["plan", path]);
    planned.assert_exit(0);
    assert!(
        planned.stderr.contains(
            "warning: service `analytics` is `stopped`, not running: its 3 pipe changes will \
             fail with 424 unless `converge apply --wake` wakes it first"
        ),
        "{}",
        planned.stderr
    );
    let failed = converge.run(["apply", path, "--yes"]);
    failed.assert_exit(1);
    // The reason, briefly, once for the three pipes (it was ~400 characters, six times).
    let reason = "service `analytics` is `stopped` (424): pipes change only while their service \
                  runs; run again with `--wake` to wake it first\n";
    assert_eq!(
        failed.stderr.matches(reason).count(),
        1,
        "{}",
        failed.stderr
    );
    assert_eq!(
        failed.stderr.matches("(424)").count(),
        1,
        "{}",
        failed.stderr
    );
    for pipe in ["orders", "events", "clicks"] {
        assert!(
            failed.stderr.contains(&format!(
                "\n    pipe.analytics.{pipe}.scaling (update pipe scaling)\n"
            )),
            "listed under the reason: {}",
            failed.stderr
        );
    }
    assert!(
        failed
            .stderr
            .trim_end()
            .ends_with("apply: 4 done, 3 failed, 0 stale, 0 skipped, 0 not started"),
        "the summary comes last: {}",
        failed.stderr
    );

    sandbox.reset_log();
    let woken = converge.run(["apply", path, "--yes", "--wake"]);
    woken.assert_exit(0);
    assert_eq!(
        common::count(
            &sandbox,
            "PATCH",
            "/v1/organizations/{organizationId}/services/{serviceId}/state"
        ),
        1
    );
    assert_eq!(analytics(&sandbox)["state"], "running");
    assert!(!plans_changes(&sandbox, &workspace, &config));
}

#[test]
fn a_service_that_cannot_be_woken_fails_its_pipe_writes_once_saying_why() {
    // Still `stopping` for ten minutes: the pipe writes answer 424 and `awake` a 409.
    let sandbox = delayed_sandbox(Duration::from_secs(600));
    let workspace = Workspace::new();
    let config = workspace.write("converge.yaml", &quickstart());
    common::Client::new(&sandbox).cloud(
        "PATCH",
        &format!("/services/{ANALYTICS}/state"),
        Some(serde_json::json!({"command": "stop"})),
    );
    sandbox.reset_log();
    let failed = binary(&sandbox, &workspace).run(["apply", config.as_str(), "--yes", "--wake"]);
    failed.assert_exit(1);
    let reasons: Vec<&str> = failed
        .stderr
        .lines()
        .filter(|line| line.starts_with("  cannot wake the service first: "))
        .collect();
    assert_eq!(reasons.len(), 1, "{}", failed.stderr);
    assert!(
        reasons[0]
            .starts_with("  cannot wake the service first: change service state failed: PATCH ")
            && reasons[0].contains(
                "/state answered 409 Conflict: CONFLICT: Service is changing state. Current \
             state: stopping"
            ),
        "{}",
        failed.stderr
    );
    for pipe in ["orders", "events", "clicks"] {
        assert!(
            failed.stderr.contains(&format!(
                "\n    pipe.analytics.{pipe}.scaling (update pipe scaling)\n"
            )),
            "listed under the reason: {}",
            failed.stderr
        );
    }
    assert_eq!(
        common::count(
            &sandbox,
            "PATCH",
            "/v1/organizations/{organizationId}/services/{serviceId}/state"
        ),
        1,
        "one wake-up for the three pipes"
    );
}

fn delayed_sandbox(delay: Duration) -> SandboxHandle {
    common::sandbox(SandboxOptions {
        rate_limit: false,
        scaling_delay: delay,
        ..SandboxOptions::default()
    })
}

#[test]
fn wait_polls_until_the_new_scaling_shows() {
    let sandbox = delayed_sandbox(Duration::from_secs(2));
    let workspace = Workspace::new();
    let config = workspace.write("converge.yaml", &quickstart());
    let path = config.as_str();
    let applied = binary(&sandbox, &workspace).run([
        "apply",
        path,
        "--yes",
        "--wait",
        "--timeout",
        "60s",
        "--format",
        "json",
    ]);
    applied.assert_exit(0);
    let report: Value = serde_json::from_str(&applied.stdout).unwrap();
    assert_eq!(report["wait"]["settled"], true);
    // Right after the wait, the scaling reads back as written.
    assert_eq!(analytics(&sandbox)["numReplicas"].as_f64(), Some(3.0));
    assert!(!plans_changes(&sandbox, &workspace, &config));
}

#[test]
fn wait_gives_up_at_the_timeout_with_a_clear_message() {
    let sandbox = delayed_sandbox(Duration::from_secs(600));
    let workspace = Workspace::new();
    let config = workspace.write("converge.yaml", &quickstart());
    let applied = binary(&sandbox, &workspace).run([
        "apply",
        config.as_str(),
        "--yes",
        "--wait",
        "--timeout",
        "1s",
    ]);
    applied.assert_exit(1);
    assert!(
        applied.stderr.contains("the wait ended"),
        "{}",
        applied.stderr
    );
    assert!(
        applied.stderr.contains("service.analytics.scaling"),
        "{}",
        applied.stderr
    );
    assert!(applied.stderr.contains("--timeout"), "{}", applied.stderr);
}

#[test]
fn only_applies_the_addresses_that_match() {
    let sandbox = common::fast_sandbox();
    let workspace = Workspace::new();
    let converge = binary(&sandbox, &workspace);
    let config = workspace.write("converge.yaml", &quickstart());
    let path = config.as_str();
    let applied = converge.run(["apply", path, "--yes", "--only", "pipe.*"]);
    applied.assert_exit(0);
    let writes = writes(&sandbox);
    assert_eq!(writes.len(), 3, "{writes:?}");
    assert!(
        writes
            .iter()
            .all(|w| w.ends_with("/pipes/{pipeId}/scaling")),
        "{writes:?}"
    );
    let next = converge.run(["plan", path]);
    assert!(
        next.stdout
            .starts_with("Plan: 3 to create, 1 to update, 0 to delete"),
        "{}",
        next.stdout
    );
}

#[test]
fn only_an_alert_whose_dashboard_is_left_out_says_to_apply_the_dashboard_first() {
    let sandbox = common::fast_sandbox();
    let workspace = Workspace::new();
    let config = workspace.write("converge.yaml", &quickstart());
    let path = config.as_str();
    let applied = binary(&sandbox, &workspace).run(["apply", path, "--yes", "--only", "alert.*"]);
    applied.assert_exit(1);
    assert!(writes(&sandbox).is_empty(), "{:?}", writes(&sandbox));
    assert!(
        applied
            .stderr
            .contains("dashboard `API health` of stack `prod` does not exist"),
        "{}",
        applied.stderr
    );
    assert!(
        applied.stderr.contains("apply the dashboard first"),
        "the message says what to do: {}",
        applied.stderr
    );
}

#[test]
fn a_saved_plan_reads_its_secrets_from_the_environment_at_apply_time() {
    let sandbox = common::fast_sandbox();
    let workspace = Workspace::new();
    let converge = binary(&sandbox, &workspace);
    let config = workspace.write("converge.yaml", &quickstart());
    let saved = save_plan(&converge, &workspace, &config);
    let text = workspace.read("plan.json");
    assert!(!text.contains(converge::sandbox::DEMO_KEY_SECRET), "{text}");
    assert!(text.contains("${env:CONVERGE_KEY_SECRET}"), "{text}");

    let applied = binary(&sandbox, &workspace)
        .env_remove("CONVERGE_KEY_SECRET")
        .run(["apply", "--plan", saved.as_str(), "--yes"]);
    applied.assert_exit(1);
    let stderr = &applied.stderr;
    assert!(
        stderr.contains("CONVERGE_KEY_SECRET") && stderr.contains("not set"),
        "{stderr}"
    );
    assert_eq!(writes(&sandbox), Vec::<String>::new());
}

#[test]
fn a_step_whose_object_appeared_during_the_run_is_stale_and_not_written() {
    let sandbox = common::fast_sandbox();
    let workspace = Workspace::new();
    let converge = binary(&sandbox, &workspace);
    let config = workspace.write("converge.yaml", &quickstart());
    let saved = save_plan(&converge, &workspace, &config);
    // Someone creates an alert of the same name on another dashboard. The plan's alert create
    // waits for its dashboard, so it is checked when it runs, after the dashboard was created.
    let other = dashboards(&sandbox)
        .into_iter()
        .find(|d| d["name"] == "On-call overview")
        .unwrap();
    let client = common::Client::new(&sandbox);
    client.cloud(
        "POST",
        &format!("/services/{ANALYTICS}/stack/alerts"),
        Some(serde_json::json!({
            "dashboardId": other["id"],
            "tileId": other["tiles"][0]["id"],
            "threshold": 1,
            "interval": "5m",
            "source": "tile",
            "thresholdType": "above",
            "channel": {"type": "webhook", "webhookId": "65f5e4a3b9e77c001a789012"},
            "name": "API errors",
        })),
    );
    let applied = converge.run(["apply", "--plan", saved.as_str(), "--yes"]);
    applied.assert_exit(3);
    assert!(
        applied.stderr.contains(
            "alert.prod.api-errors was created since the plan was made, which creates it"
        ),
        "{}",
        applied.stderr
    );
    assert!(
        applied.stderr.contains("apply: 6 done, 0 failed, 1 stale"),
        "{}",
        applied.stderr
    );
    // Nothing was written for it: still one alert of that name, the one made by hand.
    assert_eq!(names(&alerts(&sandbox)), ["API errors", "Error burst"]);
}

/// A standalone stack with dashboards `first` (tiles named `first_tiles`) and `second` (tile
/// `Other`), and an alert on dashboard `alert_on`, tile `tile`.
fn moving_alert_config(first_tiles: &[&str], alert_on: &str, tile: &str) -> String {
    let tiles = |names: &[&str]| -> String {
        names
            .iter()
            .enumerate()
            .map(|(i, name)| {
                format!(
                    "          - name: {name}\n            x: {}\n            y: 0\n            w: 6\n            h: 4\n            series:\n              - type: time\n                source: Logs\n                aggFn: count\n",
                    6 * i
                )
            })
            .collect()
    };
    format!(
        "version: 1\norganization: ${{env:CONVERGE_ORG_ID}}\nobservability:\n  url: ${{env:CONVERGE_OBSERVABILITY_URL}}\n  token: ${{env:CONVERGE_OBS_TOKEN}}\nstacks:\n  platform:\n    api: observability\n    dashboards:\n      first:\n        name: First\n        tiles:\n{}      second:\n        name: Second\n        tiles:\n{}    alerts:\n      watch:\n        name: Watch\n        dashboard: {alert_on}\n        tile: {tile}\n        threshold: 5\n        thresholdType: above\n        interval: 5m\n        channel: {{type: webhook, webhookId: 65f5e4a3b9e77c001a789012}}\n",
        tiles(first_tiles),
        tiles(&["Other"]),
    )
}

/// An alert moves to another dashboard while an update of its old one removes its tile (and,
/// on the server, the alert with it): it is created again only after that update, so the
/// create's check never finds the old alert still holding the name.
#[test]
fn an_alert_moving_off_a_tile_an_update_removes_waits_for_that_update() {
    let sandbox = common::fast_sandbox();
    let workspace = Workspace::new();
    let converge = binary(&sandbox, &workspace);
    let before = workspace.write(
        "before.yaml",
        &moving_alert_config(&["Gone", "Kept"], "first", "Gone"),
    );
    converge
        .run(["apply", before.as_str(), "--yes"])
        .assert_exit(0);

    let after = workspace.write(
        "after.yaml",
        &moving_alert_config(&["Kept"], "second", "Other"),
    );
    let plan = converge
        .run(["plan", after.as_str(), "--format", "json"])
        .json();
    let steps = plan["steps"].as_array().expect("steps");
    let id = |address: &str| {
        steps
            .iter()
            .find(|s| s["address"] == address)
            .unwrap_or_else(|| panic!("no step {address}: {steps:#?}"))["id"]
            .clone()
    };
    let create = steps
        .iter()
        .find(|s| s["address"] == "alert.platform.watch")
        .expect("the alert's step");
    assert_eq!(create["operation"]["op"], "alert-create", "{create:#}");
    let depends_on = create["dependsOn"].as_array().expect("dependsOn");
    assert!(
        depends_on.contains(&id("dashboard.platform.first")),
        "the create does not wait for the update that removes the old alert: {create:#}"
    );

    let applied = converge.run(["apply", after.as_str(), "--yes"]);
    applied.assert_exit(0);
    let alerts = common::Client::new(&sandbox)
        .obs("GET", "/alerts", None)
        .data();
    let watching: Vec<&Value> = alerts
        .as_array()
        .expect("alerts")
        .iter()
        .filter(|a| a["name"] == "Watch")
        .collect();
    assert_eq!(watching.len(), 1, "{alerts:#}");
    assert!(!plans_changes(&sandbox, &workspace, &after));
}
