//! Issue 27, item 1: a name the stack holds more than once is repaired by `--dedupe`: the plan
//! offers it, `plan --dedupe` shows the deletes as its own steps, `apply --dedupe` needs
//! `--allow-destroy` for them and leaves one copy of each name; a copy converge may not delete
//! is reported with its id, never silently left.

use converge::sandbox::{Generation, SandboxOptions};
use serde_json::Value;

use super::*;
use crate::common::{self, Client, converge_snapshot};

/// Posts a copy of `original` (a listed dashboard or alert) to the managed stack's `kind`
/// list, with `edit` applied first; returns the copy's id.
pub(super) fn copy_of(
    client: &Client,
    kind: &str,
    original: &Value,
    edit: impl Fn(&mut Value),
) -> String {
    let mut copy = original.clone();
    if let Some(members) = copy.as_object_mut() {
        for member in ["id", "createdAt", "updatedAt", "state", "team"] {
            members.remove(member);
        }
        // A list names an alert's dashboard as `dashboard`; a create takes `dashboardId`.
        if let Some(dashboard) = members.remove("dashboard") {
            members.insert("dashboardId".into(), dashboard);
        }
    }
    edit(&mut copy);
    let path = format!("/services/{ANALYTICS}/stack/{kind}");
    let made = client.cloud("POST", &path, Some(copy)).result();
    made["id"].as_str().expect("the copy has an id").to_string()
}

pub(super) fn named<'v>(objects: &'v [Value], name: &str) -> Vec<&'v Value> {
    objects.iter().filter(|o| o["name"] == name).collect()
}

pub(super) fn id(object: &Value) -> String {
    object["id"].as_str().unwrap_or_default().to_string()
}

#[test]
fn apply_dedupe_keeps_the_copy_the_alerts_point_at_and_deletes_the_others() {
    // The contract's generation: the snapshots show the destroyed copy's tiles as `series`.
    let sandbox = common::sandbox(SandboxOptions {
        rate_limit: false,
        generation: Generation::Contract,
        ..SandboxOptions::default()
    });
    let workspace = Workspace::new();
    let config = workspace.write("converge.yaml", &quickstart());
    let path = config.as_str();
    binary(&sandbox, &workspace)
        .run(["apply", path, "--yes"])
        .assert_exit(0);
    // A killed run's leftovers: a second dashboard and a second alert of the managed names.
    let client = Client::new(&sandbox);
    let board = named(&dashboards(&sandbox), "API health")[0].clone();
    let alert = named(&alerts(&sandbox), "API errors")[0].clone();
    let board_copy = copy_of(&client, "dashboards", &board, |_| {});
    let alert_copy = copy_of(&client, "alerts", &alert, |_| {});
    let mut settings = common::snapshots();
    for (id, label) in [
        (id(&board), "[BOARD]"),
        (board_copy.clone(), "[BOARD-COPY]"),
        (id(&alert), "[ALERT]"),
        (alert_copy.clone(), "[ALERT-COPY]"),
    ] {
        settings.add_filter(&id, label);
    }

    // Without the flag the plan is an error, and it offers the repair.
    let planned = binary(&sandbox, &workspace).run(["plan", path]);
    converge_snapshot!(settings, "dedupe_offered", planned);
    let planned = binary(&sandbox, &workspace).run(["plan", path, "--dedupe"]);
    converge_snapshot!(settings, "dedupe_planned", planned);
    for format in ["json", "markdown"] {
        let shown =
            binary(&sandbox, &workspace).run(["plan", path, "--dedupe", "--format", format]);
        converge_snapshot!(settings, format!("dedupe_planned_{format}"), shown);
    }
    // A saved repair is refused: its deletes name the copies by a name the stack holds twice.
    let saved = workspace.file("repair.json");
    binary(&sandbox, &workspace)
        .run(["plan", path, "--dedupe", "--out", &saved])
        .assert_exit(0);
    let refused =
        binary(&sandbox, &workspace).run(["apply", "--plan", &saved, "--yes", "--allow-destroy"]);
    assert_eq!(refused.code, 4, "{}", refused.stderr);
    assert_eq!(named(&dashboards(&sandbox), "API health").len(), 2);
    // The deletes are destroys: refused without `--allow-destroy`, nothing written.
    let refused = binary(&sandbox, &workspace).run(["apply", path, "--dedupe", "--yes"]);
    refused.assert_exit(4);
    assert_eq!(named(&dashboards(&sandbox), "API health").len(), 2);
    let applied =
        binary(&sandbox, &workspace).run(["apply", path, "--dedupe", "--yes", "--allow-destroy"]);
    // The two deletes run at once: their `done` lines come in either order.
    let mut done: Vec<&str> = applied
        .stderr
        .lines()
        .filter(|l| l.starts_with("done "))
        .collect();
    done.sort_unstable();
    let text = format!(
        "exit: {}\n----- stdout -----\n{}----- stderr (done lines sorted) -----\n{}\n",
        applied.code,
        applied.stdout,
        done.join("\n")
    );
    settings.bind(|| insta::assert_snapshot!("dedupe_applied", text));
    assert!(
        applied
            .stderr
            .ends_with("apply: 2 done, 0 failed, 0 stale, 0 skipped, 0 not started\n"),
        "{}",
        applied.stderr
    );
    let boards = dashboards(&sandbox);
    let kept = named(&boards, "API health");
    assert_eq!(
        kept.iter().map(|b| id(b)).collect::<Vec<_>>(),
        vec![id(&board)]
    );
    let left = alerts(&sandbox);
    let kept = named(&left, "API errors");
    assert_eq!(
        kept.iter().map(|a| id(a)).collect::<Vec<_>>(),
        vec![id(&alert)]
    );
    assert!(!plans_changes(&sandbox, &workspace, path));
}

#[test]
fn a_copy_converge_may_not_delete_is_reported_with_its_id_and_nothing_is_deleted() {
    let sandbox = common::sandbox(SandboxOptions {
        rate_limit: false,
        ..SandboxOptions::default()
    });
    let workspace = Workspace::new();
    let config = workspace.write("converge.yaml", &quickstart());
    let path = config.as_str();
    binary(&sandbox, &workspace)
        .run(["apply", path, "--yes"])
        .assert_exit(0);
    let client = Client::new(&sandbox);
    let board = named(&dashboards(&sandbox), "API health")[0].clone();
    // One copy converge owns, and one made by hand (no ownership tag).
    let owned = copy_of(&client, "dashboards", &board, |_| {});
    let by_hand = copy_of(&client, "dashboards", &board, |copy| {
        copy["tags"] = serde_json::json!([]);
    });
    let mut settings = common::snapshots();
    for (id, label) in [
        (id(&board), "[BOARD]"),
        (owned.clone(), "[OWNED-COPY]"),
        (by_hand.clone(), "[HAND-MADE-COPY]"),
    ] {
        settings.add_filter(&id, label);
    }
    let applied =
        binary(&sandbox, &workspace).run(["apply", path, "--dedupe", "--yes", "--allow-destroy"]);
    converge_snapshot!(settings, "dedupe_not_provable", applied);
    let mut ids: Vec<String> = named(&dashboards(&sandbox), "API health")
        .into_iter()
        .map(id)
        .collect();
    ids.sort();
    let mut expected = vec![id(&board), owned, by_hand];
    expected.sort();
    assert_eq!(
        ids, expected,
        "nothing is deleted while a copy stays unresolved"
    );
}

/// Issue 27, item 5: `apply` waits (bounded) for a copy another run is about to remove; a copy
/// that stays is no run's transient copy, and is reported as the live stack's, with the repair:
/// exit 3 as for a stale object, not a config error, and nothing written.
#[test]
fn a_copy_that_stays_through_the_wait_is_reported_as_stale_not_as_a_config_error() {
    let sandbox = common::sandbox(SandboxOptions {
        rate_limit: false,
        ..SandboxOptions::default()
    });
    let workspace = Workspace::new();
    let config = workspace.write("converge.yaml", &quickstart());
    let path = config.as_str();
    binary(&sandbox, &workspace)
        .run(["apply", path, "--yes"])
        .assert_exit(0);
    let client = Client::new(&sandbox);
    let board = named(&dashboards(&sandbox), "API health")[0].clone();
    let copy = copy_of(&client, "dashboards", &board, |_| {});
    let mut settings = common::snapshots();
    settings.add_filter(&id(&board), "[BOARD]");
    settings.add_filter(&copy, "[BOARD-COPY]");
    // The wait reads the stack again each second; how many reads fit in it is the machine's.
    settings.add_filter(
        r"(reading the live state of 1 service and 1 stack…\n){2,}",
        "reading the live state of 1 service and 1 stack…\n[read again while waiting]\n",
    );
    let applied = binary(&sandbox, &workspace).run(["apply", path, "--yes"]);
    converge_snapshot!(settings, "dedupe_copy_stayed", applied);
    assert_eq!(
        applied.writes(),
        Vec::<String>::new(),
        "nothing was written"
    );
}

/// The quickstart with a second alert on its dashboard (on the other tile).
fn two_alerts() -> String {
    format!(
        "{}      api-slow:
        name: API slow
        dashboard: api-health
        tile: Latency p95
        threshold: 500
        thresholdType: above
        interval: 5m
        channel: {{ type: webhook, webhookId: 65f5e4a3b9e77c001a789012 }}
",
        quickstart()
    )
}

/// The id of the tile named `tile` on the listed dashboard `board_id`.
pub(super) fn tile_id(
    sandbox: &converge::sandbox::SandboxHandle,
    board_id: &str,
    tile: &str,
) -> Value {
    let boards = dashboards(sandbox);
    let board = boards
        .iter()
        .find(|b| b["id"] == board_id)
        .expect("the dashboard is listed");
    board["tiles"]
        .as_array()
        .and_then(|tiles| tiles.iter().find(|t| t["name"] == tile))
        .map(|t| t["id"].clone())
        .expect("the tile is listed")
}

/// Issue 27, item 1: what a race one of whose runs was killed before its sweep leaves: a
/// second dashboard holding its own copies of the config's alerts. `--dedupe` keeps the oldest
/// dashboard, deletes the alert copies on the other, creates again on the kept one the alert
/// whose only copy was there, then deletes the copy dashboard; afterwards there is exactly one
/// of each name and the plan is empty.
#[test]
fn apply_dedupe_repairs_a_dashboard_copy_whose_alerts_are_copies_too() {
    let sandbox = common::sandbox(SandboxOptions {
        rate_limit: false,
        generation: Generation::Contract,
        ..SandboxOptions::default()
    });
    let workspace = Workspace::new();
    let config = workspace.write("converge.yaml", &two_alerts());
    let path = config.as_str();
    binary(&sandbox, &workspace)
        .run(["apply", path, "--yes"])
        .assert_exit(0);
    let client = Client::new(&sandbox);
    let board = named(&dashboards(&sandbox), "API health")[0].clone();
    let errors = named(&alerts(&sandbox), "API errors")[0].clone();
    let slow = named(&alerts(&sandbox), "API slow")[0].clone();
    // The killed run's dashboard, with its copy of `API errors` and the only `API slow` (the
    // first run's was deleted by hand: an alert that exists only on the copy).
    let board_copy = copy_of(&client, "dashboards", &board, |_| {});
    let on_copy = |alert: &Value, tile: &str| {
        let tile = tile_id(&sandbox, &board_copy, tile);
        copy_of(&client, "alerts", alert, |copy| {
            copy["dashboardId"] = Value::from(board_copy.as_str());
            copy["tileId"] = tile.clone();
        })
    };
    let errors_copy = on_copy(&errors, "Requests");
    let slow_copy = on_copy(&slow, "Latency p95");
    client
        .cloud(
            "DELETE",
            &format!("/services/{ANALYTICS}/stack/alerts/{}", id(&slow)),
            None,
        )
        .result();
    let mut settings = common::snapshots();
    for (id, label) in [
        (id(&board), "[BOARD]"),
        (board_copy.clone(), "[BOARD-COPY]"),
        (id(&errors), "[ERRORS]"),
        (errors_copy.clone(), "[ERRORS-COPY]"),
        (slow_copy.clone(), "[SLOW-COPY]"),
    ] {
        settings.add_filter(&id, label);
    }

    // Without the flag the plan offers the whole repair; with it, it shows every step.
    let planned = binary(&sandbox, &workspace).run(["plan", path]);
    converge_snapshot!(settings, "dedupe_alert_copies_offered", planned);
    let planned = binary(&sandbox, &workspace).run(["plan", path, "--dedupe"]);
    converge_snapshot!(settings, "dedupe_alert_copies_planned", planned);
    // Destroys: nothing written without `--allow-destroy`.
    let refused = binary(&sandbox, &workspace).run(["apply", path, "--dedupe", "--yes"]);
    refused.assert_exit(4);
    assert_eq!(refused.writes(), Vec::<String>::new());
    // A saved repair is refused whole, as for any copy: its deletes name the copies only by a
    // name the stack holds twice.
    let saved = workspace.file("repair.json");
    binary(&sandbox, &workspace)
        .run(["plan", path, "--dedupe", "--out", &saved])
        .assert_exit(0);
    let refused =
        binary(&sandbox, &workspace).run(["apply", "--plan", &saved, "--yes", "--allow-destroy"]);
    assert_eq!(refused.code, 4, "{}", refused.stderr);
    assert_eq!(refused.writes(), Vec::<String>::new());

    let applied =
        binary(&sandbox, &workspace).run(["apply", path, "--dedupe", "--yes", "--allow-destroy"]);
    assert!(
        applied
            .stderr
            .ends_with("apply: 4 done, 0 failed, 0 stale, 0 skipped, 0 not started\n"),
        "{}",
        applied.stderr
    );
    let boards = dashboards(&sandbox);
    assert_eq!(
        named(&boards, "API health")
            .iter()
            .map(|b| id(b))
            .collect::<Vec<_>>(),
        vec![id(&board)],
        "the oldest dashboard stays"
    );
    let left = alerts(&sandbox);
    for (name, tile) in [("API errors", "Requests"), ("API slow", "Latency p95")] {
        let copies = named(&left, name);
        assert_eq!(copies.len(), 1, "one `{name}`: {left:?}");
        assert_eq!(copies[0]["dashboard"], id(&board).as_str(), "{name}");
        assert_eq!(copies[0]["tileId"], tile_id(&sandbox, &id(&board), tile));
    }
    assert_eq!(id(named(&left, "API errors")[0]), id(&errors));
    assert!(!plans_changes(&sandbox, &workspace, path));
}

/// A dashboard copy holding an alert the config does not declare (a person's) is reported
/// with the alert's id, and nothing is deleted: deleting the copy would take that alert along.
#[test]
fn a_dashboard_copy_holding_a_hand_made_alert_is_reported_and_nothing_is_deleted() {
    let sandbox = common::sandbox(SandboxOptions {
        rate_limit: false,
        ..SandboxOptions::default()
    });
    let workspace = Workspace::new();
    let config = workspace.write("converge.yaml", &quickstart());
    let path = config.as_str();
    binary(&sandbox, &workspace)
        .run(["apply", path, "--yes"])
        .assert_exit(0);
    let client = Client::new(&sandbox);
    let board = named(&dashboards(&sandbox), "API health")[0].clone();
    let errors = named(&alerts(&sandbox), "API errors")[0].clone();
    let board_copy = copy_of(&client, "dashboards", &board, |_| {});
    let tile = tile_id(&sandbox, &board_copy, "Requests");
    let on_copy = |name: &str| {
        copy_of(&client, "alerts", &errors, |copy| {
            copy["dashboardId"] = Value::from(board_copy.as_str());
            copy["tileId"] = tile.clone();
            copy["name"] = Value::from(name);
        })
    };
    let errors_copy = on_copy("API errors");
    let by_hand = on_copy("Someone's own alert");
    let mut settings = common::snapshots();
    for (id, label) in [
        (id(&board), "[BOARD]"),
        (board_copy.clone(), "[BOARD-COPY]"),
        (id(&errors), "[ERRORS]"),
        (errors_copy.clone(), "[ERRORS-COPY]"),
        (by_hand.clone(), "[HAND-MADE]"),
    ] {
        settings.add_filter(&id, label);
    }
    let before = (dashboards(&sandbox), alerts(&sandbox));
    let applied =
        binary(&sandbox, &workspace).run(["apply", path, "--dedupe", "--yes", "--allow-destroy"]);
    converge_snapshot!(settings, "dedupe_hand_made_alert_on_copy", applied);
    assert_eq!(
        applied.writes(),
        Vec::<String>::new(),
        "nothing was written"
    );
    assert_eq!((dashboards(&sandbox), alerts(&sandbox)), before);
}

/// Issue 27, item 2: an alert create whose answer is lost (a 504 after the write) while
/// another copy of its name lands at the same time (another run's, or a person's): nothing
/// tells which of the two is this run's, so neither is deleted; the step fails naming both ids
/// and the repair, and `apply --dedupe` then keeps the oldest.
#[test]
fn an_alert_whose_create_lost_its_answer_beside_another_copy_is_reported_with_both_ids() {
    const ALERTS: &str = "/v1/organizations/{organizationId}/services/{serviceId}/stack/alerts";
    let sandbox = common::sandbox(SandboxOptions {
        rate_limit: false,
        latency: std::time::Duration::from_millis(300),
        faults: "504@POST=1".parse().expect("a fault spec"),
        ..SandboxOptions::default()
    });
    let workspace = Workspace::new();
    let full = quickstart();
    let Some((without_alert, _)) = full.split_once("    alerts:\n") else {
        panic!("the quickstart has alerts");
    };
    let config = workspace.write("converge.yaml", without_alert);
    let path = config.as_str();
    binary(&sandbox, &workspace)
        .no_retry_delay()
        .run(["apply", path, "--yes"])
        .assert_exit(0);
    let config = workspace.write("converge.yaml", &full);
    let path = config.as_str();
    let board = named(&dashboards(&sandbox), "API health")[0].clone();
    let tile = tile_id(&sandbox, &id(&board), "Requests");
    sandbox.reset_log();
    let applied = std::thread::scope(|scope| {
        let run = scope.spawn(|| {
            binary(&sandbox, &workspace)
                .no_retry_delay()
                .run(["apply", path, "--yes"])
        });
        // Once the run's create has checked the alerts (its second read of them, after the
        // plan's), another copy of the name lands beside its create.
        crate::apply::concurrent::wait_for_requests(&sandbox, "GET", ALERTS, 2);
        Client::new(&sandbox).cloud(
            "POST",
            &format!("/services/{ANALYTICS}/stack/alerts"),
            Some(serde_json::json!({
                "name": "API errors",
                "dashboardId": id(&board),
                "tileId": tile,
                "threshold": 100,
                "thresholdType": "above",
                "interval": "5m",
                "source": "tile",
                "channel": {"type": "webhook", "webhookId": "65f5e4a3b9e77c001a789012"},
                // Another run's copy is what the config makes (a person's would not be deleted).
                "message": "Errors are up",
            })),
        );
        run.join().expect("the run ends")
    });
    // Both creates landed; ids are handed out in order, so the oldest is the first made.
    let copies: Vec<String> = named(&alerts(&sandbox), "API errors")
        .into_iter()
        .map(id)
        .collect();
    assert_eq!(copies.len(), 2, "{}", applied.stderr);
    let mut settings = common::snapshots();
    settings.add_filter(&copies[0], "[OLDEST]");
    settings.add_filter(&copies[1], "[YOUNGER]");
    converge_snapshot!(settings, "dedupe_lost_answer_alert", applied);
    assert_eq!(
        applied
            .writes()
            .iter()
            .filter(|w| w.starts_with("DELETE"))
            .count(),
        0,
        "nothing deleted"
    );

    // The repair the report names keeps the oldest.
    binary(&sandbox, &workspace)
        .run(["apply", path, "--dedupe", "--yes", "--allow-destroy"])
        .assert_exit(0);
    let left: Vec<String> = named(&alerts(&sandbox), "API errors")
        .into_iter()
        .map(id)
        .collect();
    assert_eq!(left, vec![copies[0].clone()]);
    assert!(!plans_changes(&sandbox, &workspace, path));
}
