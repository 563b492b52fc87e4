//! `--dedupe` stays exact (issue 40, part 4): name alone never makes a copy converge's to
//! delete. A copy goes only when it carries the stack's tag and is what the config makes; none
//! goes when the copy that stays is one a person changed (the plan would overwrite it).

use converge::sandbox::SandboxOptions;
use serde_json::{Value, json};

use super::dedupe::{copy_of, id, named, tile_id};
use super::*;
use crate::common::{self, Client};

/// The sandbox with the quickstart applied, and the workspace holding its config (its path).
fn applied() -> (converge::sandbox::SandboxHandle, Workspace, String) {
    let sandbox = common::sandbox(SandboxOptions {
        rate_limit: false,
        ..SandboxOptions::default()
    });
    let workspace = Workspace::new();
    let path = workspace.write("converge.yaml", &quickstart());
    binary(&sandbox, &workspace)
        .run(["apply", path.as_str(), "--yes"])
        .assert_exit(0);
    (sandbox, workspace, path)
}

/// The listed objects of `kind` (`dashboards`, `alerts`) by id, for comparing before and after.
fn by_id(objects: &[Value]) -> Vec<(String, Value)> {
    let mut listed: Vec<(String, Value)> = objects.iter().map(|o| (id(o), o.clone())).collect();
    listed.sort_by(|a, b| a.0.cmp(&b.0));
    listed
}

/// A person's alert named like the config's (another webhook, another threshold) on a
/// converge-tagged copy of the dashboard is not a copy: `--dedupe` deletes neither it nor its
/// dashboard, says why at the alert's name, and writes nothing.
#[test]
fn dedupe_never_deletes_a_hand_made_alert_named_like_the_configs() {
    let (sandbox, workspace, path) = applied();
    let client = Client::new(&sandbox);
    let board = named(&dashboards(&sandbox), "API health")[0].clone();
    let board_copy = copy_of(&client, "dashboards", &board, |_| {});
    let alert = named(&alerts(&sandbox), "API errors")[0].clone();
    let tile = tile_id(&sandbox, &board_copy, "Requests");
    let by_hand = copy_of(&client, "alerts", &alert, |copy| {
        copy["dashboardId"] = json!(board_copy);
        copy["tileId"] = tile.clone();
        copy["threshold"] = json!(500);
        copy["channel"] = json!({"type": "webhook", "webhookId": "65f5e4a3b9e77c001a789099"});
    });
    let before = (by_id(&dashboards(&sandbox)), by_id(&alerts(&sandbox)));
    let run = binary(&sandbox, &workspace).run([
        "apply",
        path.as_str(),
        "--dedupe",
        "--yes",
        "--allow-destroy",
    ]);
    assert_eq!(run.code, 1, "{run:?}");
    assert!(run.writes().is_empty(), "{run:?}");
    let said = common::words(&run.stderr);
    assert!(
        said.contains(&format!(
            "alert id {by_hand} on dashboard copy id {board_copy} is named like \
             `alert.prod.api-errors`, but it is not what the config makes"
        )),
        "{run:?}"
    );
    assert_eq!(
        (by_id(&dashboards(&sandbox)), by_id(&alerts(&sandbox))),
        before
    );
}

/// A person copied the dashboard, changed the copy (a tile's filter) and moved the config's
/// alert onto it: `--dedupe` neither deletes the original (which the config's alert no longer
/// points at) nor overwrites the person's copy with the config's tiles. The error says which
/// copy stays and why nothing goes.
#[test]
fn dedupe_never_deletes_the_original_when_the_alerts_moved_to_a_changed_copy() {
    let (sandbox, workspace, path) = applied();
    let client = Client::new(&sandbox);
    let board = named(&dashboards(&sandbox), "API health")[0].clone();
    let changed = copy_of(&client, "dashboards", &board, |copy| {
        if let Some(tiles) = copy["tiles"].as_array_mut() {
            for tile in tiles {
                tile.as_object_mut().map(|t| t.remove("id"));
                let text = tile.to_string().replace("service:api", "service:web");
                *tile = serde_json::from_str(&text).unwrap_or_default();
            }
        }
    });
    let alert = named(&alerts(&sandbox), "API errors")[0].clone();
    let mut moved = alert.clone();
    if let Some(members) = moved.as_object_mut() {
        for member in ["id", "createdAt", "updatedAt", "state", "teamId"] {
            members.remove(member);
        }
    }
    moved["dashboardId"] = json!(changed);
    moved["tileId"] = tile_id(&sandbox, &changed, "Requests");
    let path_of = format!("/services/{ANALYTICS}/stack/alerts/{}", id(&alert));
    client.cloud("PUT", &path_of, Some(moved)).result();
    assert_eq!(
        named(&alerts(&sandbox), "API errors")[0]["dashboardId"],
        json!(changed),
        "the alert moved"
    );
    let before = (by_id(&dashboards(&sandbox)), by_id(&alerts(&sandbox)));
    let run = binary(&sandbox, &workspace).run([
        "apply",
        path.as_str(),
        "--dedupe",
        "--yes",
        "--allow-destroy",
    ]);
    assert_eq!(run.code, 1, "{run:?}");
    assert!(run.writes().is_empty(), "{run:?}");
    let said = common::words(&run.stderr);
    assert!(
        said.contains(&format!(
            "id {}: the dashboard that stays (id {changed}, the one the stack's alerts point at) \
             is not what the config makes",
            id(&board)
        )),
        "{run:?}"
    );
    assert_eq!(
        (by_id(&dashboards(&sandbox)), by_id(&alerts(&sandbox))),
        before
    );
}

/// A dashboard of the config's name tagged for another stack (another repository's, on the
/// same service) is that stack's, never this stack's copy: `--dedupe` leaves it and the alerts
/// on it alone.
#[test]
fn dedupe_never_deletes_a_dashboard_another_stack_owns() {
    let (sandbox, workspace, path) = applied();
    let client = Client::new(&sandbox);
    let board = named(&dashboards(&sandbox), "API health")[0].clone();
    let theirs = copy_of(&client, "dashboards", &board, |copy| {
        copy["tags"] = json!(["converge:billing"]);
    });
    let alert = named(&alerts(&sandbox), "API errors")[0].clone();
    let tile = tile_id(&sandbox, &theirs, "Requests");
    let their_alert = copy_of(&client, "alerts", &alert, |copy| {
        copy["dashboardId"] = json!(theirs);
        copy["tileId"] = tile.clone();
    });
    let run = binary(&sandbox, &workspace).run([
        "apply",
        path.as_str(),
        "--dedupe",
        "--yes",
        "--allow-destroy",
    ]);
    assert_eq!(run.code, 0, "{run:?}");
    assert!(run.writes().is_empty(), "{run:?}");
    let boards: Vec<String> = named(&dashboards(&sandbox), "API health")
        .into_iter()
        .map(id)
        .collect();
    assert!(boards.contains(&theirs), "{boards:?}");
    assert!(alerts(&sandbox).iter().any(|a| id(a) == their_alert));
}
