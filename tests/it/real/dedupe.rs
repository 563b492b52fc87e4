//! `--dedupe` stays exact on both servers (issue 40, part 4): a second alert of the config's
//! name that is what the config makes (another run's copy) is deleted; one a person made with
//! another threshold is never deleted, and the plan says why.

use serde_json::{Value, json};

use crate::common::{Workspace, words};

use super::cases::CREATE;
use super::{Target, apply_then_empty, config, on_both};

/// Posts an alert of `alert`'s name, dashboard and tile with the threshold and webhook given;
/// returns its id.
fn post_alert(target: &Target, alert: &Value, threshold: u32, webhook: &str) -> String {
    let made = target.obs(
        "POST",
        "/alerts",
        Some(json!({
            "dashboardId": alert["dashboardId"],
            "tileId": alert["tileId"],
            "source": "tile",
            "name": "API errors",
            "message": "Errors are up",
            "threshold": threshold,
            "thresholdType": "above",
            "interval": "5m",
            "channel": {"type": "webhook", "webhookId": webhook},
        })),
    );
    assert_eq!(made.status, 200, "{}: {}", target.name(), made.text);
    made.data()["id"].as_str().unwrap_or_default().to_string()
}

/// The ids of the live alerts, sorted.
fn alert_ids(target: &Target) -> Vec<String> {
    let mut ids: Vec<String> = target
        .alerts()
        .iter()
        .filter_map(|a| a["id"].as_str().map(str::to_string))
        .collect();
    ids.sort();
    ids
}

fn dedupe_deletes_only_what_the_config_makes(target: &Target) {
    let workspace = Workspace::new();
    let converge = target.converge().cwd(&workspace);
    let path = workspace.write("c.yaml", &config(CREATE));
    apply_then_empty(target, &converge, &path);
    let original = target.alerts()[0].clone();
    let webhook = "65f5e4a3b9e77c001a789012";
    // Another run's copy: what the config makes. `--dedupe` keeps the oldest, deletes it.
    let copy = post_alert(target, &original, 100, webhook);
    let repaired = converge.run(["apply", "--dedupe", "--yes", "--allow-destroy", &path]);
    assert_eq!(repaired.code, 0, "{}: {repaired:?}", target.name());
    assert!(!alert_ids(target).contains(&copy), "{}", target.name());
    // A person's alert of the same name and another threshold: never deleted.
    let by_hand = post_alert(target, &original, 500, webhook);
    let before = alert_ids(target);
    let writes = target.writes().len();
    let refused = converge.run(["apply", "--dedupe", "--yes", "--allow-destroy", &path]);
    assert_eq!(refused.code, 1, "{}: {refused:?}", target.name());
    assert!(
        words(&refused.stderr).contains(&format!("id {by_hand}: it is not what the config makes")),
        "{}: {refused:?}",
        target.name()
    );
    assert_eq!(alert_ids(target), before, "{}", target.name());
    assert_eq!(target.writes().len(), writes, "{}", target.name());
}
on_both!(dedupe_deletes_only_what_the_config_makes);
