//! The delete race: one apply removes a tile and the alert on it. The server deletes the alert
//! with its tile, and today's servers answer the alert's DELETE with 404 once it is gone; the
//! alert's delete runs first, and a 404 on it is the delete done.

use std::time::Duration;

use converge::sandbox::SandboxOptions;
use serde_json::Value;

use super::*;
use crate::common;

/// A standalone stack (prune on) with dashboard `First` of tiles `tiles`, and alert `Watch` on
/// tile `Gone` when `alert` is set.
fn race_config(tiles: &[&str], alert: bool) -> String {
    let tiles: String = tiles
        .iter()
        .enumerate()
        .map(|(i, name)| {
            format!(
                "          - name: {name}\n            x: {}\n            y: 0\n            w: 6\n            h: 4\n            series:\n              - type: time\n                source: Logs\n                aggFn: count\n",
                6 * i
            )
        })
        .collect();
    let alerts = if alert {
        "    alerts:\n      watch:\n        name: Watch\n        dashboard: first\n        tile: Gone\n        threshold: 5\n        thresholdType: above\n        interval: 5m\n        channel: {type: webhook, webhookId: 65f5e4a3b9e77c001a789012}\n"
    } else {
        ""
    };
    format!(
        "version: 1\norganization: ${{env:CONVERGE_ORG_ID}}\nobservability:\n  url: ${{env:CONVERGE_OBSERVABILITY_URL}}\n  token: ${{env:CONVERGE_OBS_TOKEN}}\nstacks:\n  platform:\n    api: observability\n    prune: true\n    dashboards:\n      first:\n        name: First\n        tiles:\n{tiles}{alerts}"
    )
}

/// How many alerts named `Watch` the observability API has.
fn watching(sandbox: &converge::sandbox::SandboxHandle) -> usize {
    let alerts = common::Client::new(sandbox)
        .obs("GET", "/alerts", None)
        .data();
    alerts
        .as_array()
        .expect("alerts")
        .iter()
        .filter(|a| a["name"] == "Watch")
        .count()
}

#[test]
fn removing_a_tile_and_its_alert_deletes_the_alert_first_on_every_run() {
    // Today's servers (the default): a DELETE of an alert that is gone answers 404. Latency widens the window
    // in which two writes of one level would overlap.
    let sandbox = common::sandbox(SandboxOptions {
        rate_limit: false,
        latency: Duration::from_millis(15),
        ..SandboxOptions::default()
    });
    let workspace = Workspace::new();
    let converge = binary(&sandbox, &workspace);
    let with = workspace.write("with.yaml", &race_config(&["Gone", "Kept"], true));
    let without = workspace.write("without.yaml", &race_config(&["Kept"], false));

    for run in 0..6 {
        converge
            .run(["apply", with.as_str(), "--yes"])
            .assert_exit(0);
        assert_eq!(watching(&sandbox), 1, "run {run}");

        let plan = converge
            .run(["plan", without.as_str(), "--format", "json"])
            .json();
        let steps = plan["steps"].as_array().expect("steps");
        let step = |address: &str| -> &Value {
            steps
                .iter()
                .find(|s| s["address"] == address)
                .unwrap_or_else(|| panic!("no step {address}: {steps:#?}"))
        };
        let delete = step("alert.platform[\"Watch\"]");
        let update = step("dashboard.platform.first");
        assert_eq!(delete["operation"]["op"], "alert-delete", "{delete:#}");
        assert!(
            delete["id"].as_u64() < update["id"].as_u64(),
            "the alert's delete comes after the update: {steps:#?}"
        );
        assert!(
            update["dependsOn"]
                .as_array()
                .expect("dependsOn")
                .contains(&delete["id"]),
            "the update does not wait for the alert's delete: {update:#}"
        );

        let applied = converge.run(["apply", without.as_str(), "--yes", "--allow-destroy"]);
        applied.assert_exit(0);
        assert_eq!(watching(&sandbox), 0, "run {run}");
        assert!(!plans_changes(&sandbox, &workspace, &without), "run {run}");
    }
}
