//! Renames through the binary against the sandbox: a dashboard, a tile and an alert renamed
//! after an apply are updated in place (every id kept, read from the sandbox before and after,
//! and every alert on a renamed tile kept), the next plan is empty, and two live objects that
//! could both be the renamed one are an error at the config line.

use serde_json::Value;

use crate::apply::{binary, plans_changes};
use crate::common;
use crate::common::{Workspace, alerts, dashboards, quickstart, writes};

/// A second alert, on `Latency p95`, so a tile renamed through `renamedFrom` has an alert to
/// keep too.
const SLOW_ALERT: &str = "      api-slow:
        name: API slow
        dashboard: api-health
        tile: Latency p95
        threshold: 500
        thresholdType: above
        interval: 5m
        channel: { type: webhook, webhookId: 65f5e4a3b9e77c001a789012 }
";

fn base() -> String {
    format!("{}{SLOW_ALERT}", quickstart())
}

/// `base()` with the dashboard, both tiles and one alert renamed: the dashboard and the alert
/// through `renamedFrom`, `Requests` where it stands in the list, `Latency p95` through
/// `renamedFrom`.
fn renamed() -> String {
    let text = base();
    let replace = |text: String, from: &str, to: &str| {
        assert!(text.contains(from), "{from:?} is in the config");
        text.replacen(from, to, 1)
    };
    let text = replace(
        text,
        "        name: API health\n",
        "        name: API Health overview\n        renamedFrom: [API health]\n",
    );
    let text = replace(
        text,
        "          - name: Requests\n",
        "          - name: Request rate\n",
    );
    let text = replace(
        text,
        "          - name: Latency p95\n",
        "          - name: Latency (p95)\n            renamedFrom: [Latency p95]\n",
    );
    let text = replace(
        text,
        "        tile: Requests\n",
        "        tile: Request rate\n",
    );
    let text = replace(
        text,
        "        tile: Latency p95\n",
        "        tile: Latency (p95)\n",
    );
    replace(
        text,
        "        name: API errors\n",
        "        name: API error rate\n        renamedFrom: [API errors]\n",
    )
}

fn named<'a>(objects: &'a [Value], name: &str) -> Option<&'a Value> {
    objects.iter().find(|o| o["name"] == name)
}

fn tile_id(dashboard: &Value, name: &str) -> String {
    dashboard["tiles"]
        .as_array()
        .and_then(|tiles| tiles.iter().find(|t| t["name"] == name))
        .and_then(|t| t["id"].as_str())
        .unwrap_or_else(|| panic!("no tile {name:?} in {dashboard:#}"))
        .to_string()
}

/// The 1-based line of the first line of `text` containing `needle`.
fn line_of(text: &str, needle: &str) -> usize {
    text.lines()
        .position(|l| l.contains(needle))
        .map(|i| i + 1)
        .unwrap_or_else(|| panic!("{needle:?} not in the config"))
}

#[test]
fn a_renamed_dashboard_tile_and_alert_are_updated_in_place_keeping_every_id() {
    let sandbox = common::contract_sandbox();
    let workspace = Workspace::new();
    let converge = binary(&sandbox, &workspace);
    let config = workspace.write("converge.yaml", &base());
    let config = config.as_str();
    let applied = converge.run(["apply", config, "--yes"]);
    applied.assert_exit(0);

    let before = named(&dashboards(&sandbox), "API health")
        .cloned()
        .expect("created");
    let requests = tile_id(&before, "Requests");
    let latency = tile_id(&before, "Latency p95");
    let alerts_before = alerts(&sandbox);
    let errors = named(&alerts_before, "API errors")
        .cloned()
        .expect("created");
    let slow = named(&alerts_before, "API slow").cloned().expect("created");
    assert_eq!(errors["tileId"], requests.as_str());
    assert_eq!(slow["tileId"], latency.as_str());

    let renamed_config = workspace.write("converge.yaml", &renamed());
    let renamed_config = renamed_config.as_str();

    // The plan: two updates (the dashboard and its two tiles renamed, the alert renamed),
    // nothing created, deleted or left behind.
    let text = converge.run(["plan", renamed_config]);
    text.assert_exit(0);
    let mut snapshots = common::snapshots();
    common::mask_ages(&mut snapshots);
    common::converge_snapshot!(snapshots, "renamed_plan_text", text);
    assert!(!text.stderr.contains("warning"), "{}", text.stderr);

    let json = converge.run(["plan", renamed_config, "--format", "json"]);
    let plan: Value = serde_json::from_str(&json.stdout).expect("JSON");
    let change = |address: &str| {
        plan["changes"]
            .as_array()
            .and_then(|c| c.iter().find(|c| c["address"] == address))
            .cloned()
            .unwrap_or_else(|| panic!("no {address}"))
    };
    assert_eq!(
        change("dashboard.prod.api-health")["renamedFrom"],
        "API health"
    );
    assert_eq!(change("dashboard.prod.api-health")["action"], "update");
    assert_eq!(change("alert.prod.api-errors")["renamedFrom"], "API errors");
    // The alert on the renamed tile is not touched: it points at the tile by id.
    assert_eq!(change("alert.prod.api-slow")["action"], "no-op");
    assert!(change("alert.prod.api-slow").get("renamedFrom").is_none());

    let markdown = converge.run(["plan", renamed_config, "--format", "markdown"]);
    common::converge_snapshot!(snapshots, "renamed_plan_markdown", markdown);

    // Apply: one PUT of the dashboard, one PUT of the renamed alert; nothing else.
    sandbox.reset_log();
    let applied = converge.run(["apply", renamed_config, "--yes"]);
    applied.assert_exit(0);
    let mut sent = writes(&sandbox);
    sent.sort();
    let stack = "/v1/organizations/{organizationId}/services/{serviceId}/stack";
    assert_eq!(
        sent,
        [
            format!("PUT {stack}/alerts/{{alertId}}"),
            format!("PUT {stack}/dashboards/{{dashboardId}}"),
        ]
    );

    let all = dashboards(&sandbox);
    assert!(
        named(&all, "API health").is_none(),
        "no dashboard left behind"
    );
    let after = named(&all, "API Health overview").expect("renamed");
    assert_eq!(after["id"], before["id"]);
    assert_eq!(tile_id(after, "Request rate"), requests);
    assert_eq!(tile_id(after, "Latency (p95)"), latency);
    let alerts_after = alerts(&sandbox);
    assert_eq!(alerts_after.len(), alerts_before.len(), "no alert lost");
    let errors_after = named(&alerts_after, "API error rate").expect("renamed");
    assert_eq!(errors_after["id"], errors["id"]);
    assert_eq!(errors_after["tileId"], requests.as_str());
    assert_eq!(errors_after["dashboard"], before["id"]);
    let slow_after = named(&alerts_after, "API slow").expect("kept");
    assert_eq!(slow_after["id"], slow["id"]);
    assert_eq!(slow_after["tileId"], latency.as_str());

    assert!(
        !plans_changes(&sandbox, &workspace, renamed_config),
        "a second plan is empty"
    );
}

#[test]
fn two_live_dashboards_that_could_be_the_renamed_one_is_an_error_at_the_line() {
    let sandbox = common::fast_sandbox();
    let workspace = Workspace::new();
    let converge = binary(&sandbox, &workspace);
    let config = workspace.write("converge.yaml", &base());
    let applied = converge.run(["apply", config.as_str(), "--yes"]);
    applied.assert_exit(0);
    // Someone made a dashboard with the new name by hand: both it and "API health" could be
    // the dashboard the config renames.
    let client = common::Client::new(&sandbox);
    let made = client.cloud(
        "POST",
        &format!("/services/{}/stack/dashboards", common::ANALYTICS),
        Some(serde_json::json!({"name": "API Health overview", "tiles": [], "tags": []})),
    );
    assert_eq!(made.status, 200, "{made:?}");

    let text = renamed();
    let line = line_of(&text, "renamedFrom: [API health]");
    let config = workspace.write("converge.yaml", &text);
    sandbox.reset_log();
    let out = converge.run(["plan", config.as_str()]);
    out.assert_exit(1);
    assert!(out.stdout.is_empty(), "no plan: {}", out.stdout);
    assert!(
        out.stderr.contains("plan::ambiguous-rename"),
        "{}",
        out.stderr
    );
    assert!(
        out.stderr.contains(&format!("converge.yaml:{line}:")),
        "points at the renamedFrom line {line}: {}",
        out.stderr
    );
    assert!(
        out.stderr.contains("\"API Health overview\"") && out.stderr.contains("\"API health\""),
        "names both candidates: {}",
        out.stderr
    );
    let out = converge.run(["apply", config.as_str(), "--yes"]);
    out.assert_exit(1);
    assert!(writes(&sandbox).is_empty(), "nothing written");
}

#[test]
fn a_rename_without_renamed_from_is_a_create_with_a_hint() {
    let sandbox = common::fast_sandbox();
    let workspace = Workspace::new();
    let converge = binary(&sandbox, &workspace);
    let config = workspace.write("converge.yaml", &base());
    let applied = converge.run(["apply", config.as_str(), "--yes"]);
    applied.assert_exit(0);
    let text = base().replacen(
        "        name: API health\n",
        "        name: API Health overview\n",
        1,
    );
    let line = line_of(&text, "name: API Health overview");
    let config = workspace.write("converge.yaml", &text);
    let out = converge.run(["plan", config.as_str()]);
    out.assert_exit(0);
    assert!(
        out.stdout.contains("+ dashboard.prod.api-health"),
        "{}",
        out.stdout
    );
    assert!(out.stderr.contains("plan::maybe-renamed"), "{}", out.stderr);
    assert!(
        out.stderr.contains(&format!("converge.yaml:{line}:")),
        "{}",
        out.stderr
    );
    assert!(
        out.stderr.contains("add `renamedFrom: [API health]`"),
        "{}",
        out.stderr
    );
}

#[test]
fn a_renamed_from_that_names_another_object_is_a_config_error() {
    let workspace = Workspace::new();
    let sandbox = common::fast_sandbox();
    // The alert claims the name of the other alert of the stack.
    let text = base().replacen(
        "        name: API slow\n",
        "        name: API slow\n        renamedFrom: [API errors]\n",
        1,
    );
    let line = line_of(&text, "renamedFrom: [API errors]");
    let config = workspace.write("converge.yaml", &text);
    let out = binary(&sandbox, &workspace).run(["validate", config.as_str()]);
    out.assert_exit(1);
    assert!(
        out.stderr.contains("semantic::rename-conflict"),
        "{}",
        out.stderr
    );
    assert!(
        out.stderr.contains(&format!("converge.yaml:{line}:")),
        "{}",
        out.stderr
    );
}
