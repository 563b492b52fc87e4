//! Issue 27, item 1: a name the stack holds more than once is repaired by `--dedupe`: the plan
//! offers it, `plan --dedupe` shows the deletes as its own steps, `apply --dedupe` needs
//! `--allow-destroy` for them and leaves one copy of each name; a copy converge may not delete
//! is reported with its id, never silently left.

use converge::sandbox::SandboxOptions;
use serde_json::Value;

use super::*;
use crate::common::{self, Client, converge_snapshot};

/// Posts a copy of `original` (a listed dashboard or alert) to the managed stack's `kind`
/// list, with `edit` applied first; returns the copy's id.
fn copy_of(client: &Client, kind: &str, original: &Value, edit: impl Fn(&mut Value)) -> String {
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

fn named<'v>(objects: &'v [Value], name: &str) -> Vec<&'v Value> {
    objects.iter().filter(|o| o["name"] == name).collect()
}

fn id(object: &Value) -> String {
    object["id"].as_str().unwrap_or_default().to_string()
}

#[test]
fn apply_dedupe_keeps_the_copy_the_alerts_point_at_and_deletes_the_others() {
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
