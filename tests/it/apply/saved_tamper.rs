//! Tampered saved plans as a property (issue 27 item 2): a plan with an alert update, an alert
//! create, a dashboard update and a pruned dashboard is edited at random (a body's value, an
//! id, a desired value, a shown field, an address, a step added or removed, an action, the
//! digest dropped as an attacker who recomputes it would), then applied. Each edited file is
//! either refused with nothing written, or applies exactly what `show` prints: its text is the
//! reviewed plan's, and the objects it leaves are those the reviewed plan leaves.

use converge::sandbox::SandboxHandle;
use proptest::prelude::*;
use proptest::test_runner::{Config as ProptestConfig, TestRunner};
use serde_json::{Value, json};

use super::*;
use crate::common;

/// The quickstart with a second dashboard (a copy of the first).
fn before_config() -> String {
    let text = quickstart();
    let start = text.find("      api-health:").unwrap_or(0);
    let end = text.find("    alerts:").unwrap_or(0);
    let copy = text[start..end]
        .replace("      api-health:", "      api-copy:")
        .replace("name: API health", "name: API copy");
    format!("{}{copy}{}", &text[..end], &text[end..])
}

/// What is reviewed: a threshold, a tag, a new alert, and the copy pruned.
fn reviewed_config() -> String {
    format!(
        "{}
      api-latency:
        name: API latency
        dashboard: api-health
        tile: Latency p95
        threshold: 900
        thresholdType: above
        interval: 15m
        channel: {{ type: webhook, webhookId: 65f5e4a3b9e77c001a789012 }}
",
        quickstart()
            .replace("threshold: 100", "threshold: 150")
            .replace("tags: [team-api]", "tags: [team-web]")
            .replace("prune: false", "prune: true")
            .trim_end()
    )
}

/// A sandbox with the before config applied, and the reviewed plan saved: its path.
fn planned(sandbox: &SandboxHandle, workspace: &Workspace) -> String {
    let converge = binary(sandbox, workspace);
    let config = workspace.write("before.yaml", &before_config());
    converge
        .run(["apply", config.as_str(), "--yes"])
        .assert_exit(0);
    let reviewed = workspace.write("reviewed.yaml", &reviewed_config());
    save_plan(&converge, workspace, &reviewed)
}

/// The stack as names show it (ids differ between sandboxes): dashboards with their tags and
/// tiles, alerts with the names of their dashboard and tile.
fn state(sandbox: &SandboxHandle) -> Value {
    let boards = dashboards(sandbox);
    let strip = |mut value: Value| {
        if let Some(map) = value.as_object_mut() {
            map.retain(|k, _| {
                !k.ends_with("At") && k != "id" && k != "dashboardId" && k != "tileId"
            });
        }
        value
    };
    let mut shown_boards: Vec<Value> = boards
        .iter()
        .map(|board| {
            let mut board = strip(board.clone());
            if let Some(tiles) = board["tiles"].as_array_mut() {
                for tile in tiles.iter_mut() {
                    *tile = strip(tile.clone());
                }
                tiles.sort_by_key(|t| t["name"].to_string());
            }
            board
        })
        .collect();
    shown_boards.sort_by_key(|b| b["name"].to_string());
    let mut shown_alerts: Vec<Value> = alerts(sandbox)
        .into_iter()
        .map(|alert| {
            let board = boards.iter().find(|b| b["id"] == alert["dashboard"]);
            let tile = board.and_then(|b| {
                b["tiles"]
                    .as_array()
                    .and_then(|tiles| tiles.iter().find(|t| t["id"] == alert["tileId"]))
            });
            let mut shown = strip(alert);
            shown["dashboard"] = board.map_or(Value::Null, |b| b["name"].clone());
            shown["tile"] = tile.map_or(Value::Null, |t| t["name"].clone());
            shown
        })
        .collect();
    shown_alerts.sort_by_key(|a| a["name"].to_string());
    json!({ "dashboards": shown_boards, "alerts": shown_alerts, "analytics": strip(analytics(sandbox)) })
}

/// One edit of a saved plan; indexes and values are reduced modulo what the file has.
#[derive(Debug, Clone)]
enum Edit {
    /// A scalar in a step's operation (its body, its ids).
    Operation { step: usize, leaf: usize, value: u8 },
    /// A scalar in a change's desired values.
    After {
        change: usize,
        leaf: usize,
        value: u8,
    },
    /// The same key set to one new value in a change's desired values and its step's body.
    AfterAndBody {
        change: usize,
        key: usize,
        value: u8,
    },
    /// A shown field's desired value.
    Field {
        change: usize,
        field: usize,
        value: u8,
    },
    /// A step's dashboard or alert id set to another id the file holds.
    Id { step: usize, other: usize },
    /// A change's and its step's address swapped with another change's.
    Address { change: usize, other: usize },
    /// A step copied to the end.
    AddStep { step: usize },
    /// A step removed, and with it what points at it.
    RemoveStep { step: usize },
    /// A change removed.
    RemoveChange { change: usize },
    /// A change's action.
    Action { change: usize, action: usize },
}

fn edit() -> impl Strategy<Value = Edit> {
    let i = || 0usize..64;
    let v = any::<u8>();
    prop_oneof![
        (i(), i(), v).prop_map(|(step, leaf, value)| Edit::Operation { step, leaf, value }),
        (i(), i(), v).prop_map(|(change, leaf, value)| Edit::After {
            change,
            leaf,
            value
        }),
        (i(), i(), v).prop_map(|(change, key, value)| Edit::AfterAndBody { change, key, value }),
        (i(), i(), v).prop_map(|(change, field, value)| Edit::Field {
            change,
            field,
            value
        }),
        (i(), i()).prop_map(|(step, other)| Edit::Id { step, other }),
        (i(), i()).prop_map(|(change, other)| Edit::Address { change, other }),
        i().prop_map(|step| Edit::AddStep { step }),
        i().prop_map(|step| Edit::RemoveStep { step }),
        i().prop_map(|change| Edit::RemoveChange { change }),
        (i(), i()).prop_map(|(change, action)| Edit::Action { change, action }),
    ]
}

/// Paths to every scalar under `value`.
fn leaves(value: &Value, path: Vec<String>, out: &mut Vec<Vec<String>>) {
    match value {
        Value::Object(map) => {
            for (key, v) in map {
                let mut sub = path.clone();
                sub.push(key.clone());
                leaves(v, sub, out);
            }
        }
        Value::Array(items) => {
            for (i, v) in items.iter().enumerate() {
                let mut sub = path.clone();
                sub.push(i.to_string());
                leaves(v, sub, out);
            }
        }
        _ => out.push(path),
    }
}

fn at<'a>(value: &'a mut Value, path: &[String]) -> &'a mut Value {
    path.iter().fold(value, |v, key| match v {
        Value::Array(items) => &mut items[key.parse::<usize>().unwrap_or(0)],
        other => &mut other[key.as_str()],
    })
}

/// Another scalar of the same kind (a different one).
fn other_value(old: &Value, value: u8) -> Value {
    match old {
        Value::Number(n) => json!(n.as_f64().unwrap_or(0.0) + 1.0 + f64::from(value)),
        Value::Bool(b) => json!(!b),
        Value::String(s) => json!(format!("{s}~{value}")),
        Value::Null => json!(value),
        other => other.clone(),
    }
}

fn mutate_leaf(root: &mut Value, leaf: usize, value: u8) {
    let mut paths = Vec::new();
    leaves(root, Vec::new(), &mut paths);
    if paths.is_empty() {
        return;
    }
    let path = &paths[leaf % paths.len()];
    let target = at(root, path);
    *target = other_value(target, value);
}

fn apply_edit(file: &mut Value, edit: &Edit) {
    let plan = &mut file["plan"];
    let changes = plan["changes"].as_array().map_or(0, Vec::len);
    let steps = plan["steps"].as_array().map_or(0, Vec::len);
    // Earlier edits may have removed every step or change: nothing is left to aim at.
    if changes == 0 || steps == 0 {
        return;
    }
    // Edits of a change aim at the changes with a step: most of the plan is unchanged.
    let active: Vec<usize> = plan["changes"]
        .as_array()
        .into_iter()
        .flatten()
        .enumerate()
        .filter(|(_, c)| c["step"].is_u64())
        .map(|(i, _)| i)
        .collect();
    let pick = |n: usize| {
        if active.is_empty() {
            n % changes
        } else {
            active[n % active.len()]
        }
    };
    match *edit {
        Edit::Operation { step, leaf, value } => {
            mutate_leaf(&mut plan["steps"][step % steps]["operation"], leaf, value);
        }
        Edit::After {
            change,
            leaf,
            value,
        } => mutate_leaf(&mut plan["changes"][pick(change)]["after"], leaf, value),
        Edit::AfterAndBody { change, key, value } => {
            let change = pick(change);
            let Some(step) = plan["changes"][change]["step"].as_u64() else {
                return;
            };
            let keys: Vec<String> = plan["changes"][change]["after"]
                .as_object()
                .map(|m| m.keys().cloned().collect())
                .unwrap_or_default();
            if keys.is_empty() {
                return;
            }
            let key = &keys[key % keys.len()];
            let new = other_value(&plan["changes"][change]["after"][key.as_str()], value);
            plan["changes"][change]["after"][key.as_str()] = new.clone();
            // A step an earlier edit removed is no longer there to edit.
            if let Some(body) = plan["steps"]
                .get_mut(step as usize)
                .map(|s| &mut s["operation"]["body"])
                && body.get(key.as_str()).is_some()
            {
                body[key.as_str()] = new;
            }
        }
        Edit::Field {
            change,
            field,
            value,
        } => {
            let fields = &mut plan["changes"][pick(change)]["fields"];
            let count = fields.as_array().map_or(0, Vec::len);
            if count > 0 {
                let shown = &mut fields[field % count]["after"];
                *shown = other_value(shown, value);
            }
        }
        Edit::Id { step, other } => {
            let ids: Vec<Value> = plan["steps"]
                .as_array()
                .into_iter()
                .flatten()
                .flat_map(|s| [&s["operation"]["dashboardId"], &s["operation"]["alertId"]])
                .filter(|id| id.is_string())
                .cloned()
                .collect();
            if ids.is_empty() {
                return;
            }
            let operation = &mut plan["steps"][step % steps]["operation"];
            for key in ["dashboardId", "alertId"] {
                if operation.get(key).is_some() {
                    operation[key] = ids[other % ids.len()].clone();
                }
            }
        }
        Edit::Address { change, other } => {
            let (a, b) = (pick(change), other % changes);
            let count = plan["changes"].as_array().map_or(0, Vec::len);
            if a >= count || b >= count {
                return;
            }
            let first = plan["changes"][a]["address"].clone();
            let second = plan["changes"][b]["address"].clone();
            for (index, address) in [(a, second), (b, first)] {
                plan["changes"][index]["address"] = address.clone();
                if let Some(step) = plan["changes"][index]["step"].as_u64()
                    && let Some(step) = plan["steps"].get_mut(step as usize)
                {
                    step["address"] = address;
                }
            }
        }
        Edit::AddStep { step } => {
            if let Some(list) = plan["steps"].as_array_mut()
                && !list.is_empty()
            {
                let mut copy = list[step % list.len()].clone();
                copy["id"] = json!(list.len());
                list.push(copy);
            }
        }
        Edit::RemoveStep { step } => {
            let step = step % steps;
            if let Some(list) = plan["steps"].as_array_mut()
                && step < list.len()
            {
                list.remove(step);
            }
        }
        Edit::RemoveChange { change } => {
            if let Some(list) = plan["changes"].as_array_mut() {
                list.remove(change % changes);
            }
        }
        Edit::Action { change, action } => {
            let actions = ["create", "update", "delete", "no-op"];
            plan["changes"][pick(change)]["action"] = json!(actions[action % actions.len()]);
        }
    }
}

/// A plan's text but the count of unchanged objects in its first line.
fn changes_shown(text: &str) -> String {
    let mut lines = text.lines();
    let first = lines.next().unwrap_or_default();
    let first = first.rsplit_once(", ").map_or(first, |(head, _)| head);
    std::iter::once(first)
        .chain(lines)
        .collect::<Vec<_>>()
        .join("\n")
}

/// A run that may not write: refused, stale or failed before any step, nothing written.
fn refused_or_exact(
    sandbox: &SandboxHandle,
    workspace: &Workspace,
    path: &str,
    reviewed_text: &str,
    reviewed_state: &Value,
) -> Result<(), TestCaseError> {
    sandbox.reset_log();
    let converge = binary(sandbox, workspace);
    // Given the config, as the README advises: it says which service each stack lives in.
    let config = workspace.file("reviewed.yaml");
    let applied = converge.run([
        "apply",
        "--plan",
        path,
        config.as_str(),
        "--yes",
        "--allow-destroy",
    ]);
    if applied.code != 0 {
        prop_assert!(
            [1, 3, 4].contains(&applied.code),
            "exit {}: {}",
            applied.code,
            applied.stderr
        );
        prop_assert_eq!(writes(sandbox), Vec::<String>::new(), "{}", applied.stderr);
        return Ok(());
    }
    // Applied: what it shows is what was reviewed (an unchanged object left out changes only
    // the count of unchanged ones), and it did exactly that.
    let shown = converge.run(["show", path]);
    shown.assert_exit(0);
    prop_assert_eq!(changes_shown(&shown.stdout), changes_shown(reviewed_text));
    prop_assert_eq!(&state(sandbox), reviewed_state);
    Ok(())
}

#[test]
fn a_tampered_saved_plan_is_refused_or_applies_exactly_what_show_prints() {
    // The reviewed plan, applied as saved, on a sandbox of its own: the state it leaves.
    let reference = common::fast_sandbox();
    let workspace = Workspace::new();
    let path = planned(&reference, &workspace);
    let converge = binary(&reference, &workspace);
    let reviewed = converge.run(["show", path.as_str()]);
    reviewed.assert_exit(0);
    converge
        .run(["apply", "--plan", path.as_str(), "--yes", "--allow-destroy"])
        .assert_exit(0);
    let reviewed_state = state(&reference);

    let mut runner = TestRunner::new(ProptestConfig {
        cases: 64,
        failure_persistence: None,
        ..ProptestConfig::default()
    });
    let result = runner.run(
        &(proptest::collection::vec(edit(), 1..=3), any::<bool>()),
        |(edits, keep_digest)| {
            let sandbox = common::fast_sandbox();
            let workspace = Workspace::new();
            let path = planned(&sandbox, &workspace);
            let mut file: Value =
                serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
            for edit in &edits {
                apply_edit(&mut file, edit);
            }
            if !keep_digest && let Some(map) = file.as_object_mut() {
                map.remove("digest");
            }
            std::fs::write(&path, serde_json::to_string_pretty(&file).unwrap()).unwrap();
            refused_or_exact(
                &sandbox,
                &workspace,
                &path,
                &reviewed.stdout,
                &reviewed_state,
            )
        },
    );
    if let Err(error) = result {
        panic!("{error}");
    }
}

/// Found by the property test above: two alert changes trading addresses (the file's digest
/// removed, so `show` prints the traded text) read as a plan, and only the config can tell
/// which name each address holds.
#[test]
fn two_changes_trading_addresses_are_refused_by_the_names_the_config_gives() {
    let sandbox = common::fast_sandbox();
    let workspace = Workspace::new();
    let path = planned(&sandbox, &workspace);
    let mut file: Value = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    let plan = &mut file["plan"];
    let alerts: Vec<usize> = plan["changes"]
        .as_array()
        .unwrap()
        .iter()
        .enumerate()
        .filter(|(_, c)| c["address"].as_str().unwrap().starts_with("alert."))
        .map(|(i, _)| i)
        .collect();
    assert_eq!(alerts.len(), 2, "{file:#}");
    let addresses: Vec<Value> = alerts
        .iter()
        .map(|&i| plan["changes"][i]["address"].clone())
        .collect();
    for (&index, address) in alerts.iter().zip(addresses.into_iter().rev()) {
        plan["changes"][index]["address"] = address.clone();
        let step = plan["changes"][index]["step"].as_u64().unwrap() as usize;
        plan["steps"][step]["address"] = address;
    }
    let applied = apply_without_digest(&sandbox, &workspace, &path, file);
    applied.assert_exit(1);
    assert_eq!(writes(&sandbox), Vec::<String>::new(), "{}", applied.stderr);
    assert!(
        applied.stderr.contains("but the config names that address"),
        "{}",
        applied.stderr
    );
}

/// Found by the property test above: the delete's change and its step both removed (they are
/// last in their lists, so nothing else moves) and the digest dropped. The file reads as a
/// plan and every step does what it shows, but it does less than was reviewed: the live state
/// holds a dashboard converge owns that the plan neither changes nor reports, so the run is
/// refused before any write.
#[test]
fn a_plan_edited_to_leave_out_its_delete_is_refused() {
    let sandbox = common::fast_sandbox();
    let workspace = Workspace::new();
    let path = planned(&sandbox, &workspace);
    let mut file: Value = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    let changes = file["plan"]["changes"].as_array().unwrap().len();
    let steps = file["plan"]["steps"].as_array().unwrap().len();
    assert_eq!(
        file["plan"]["changes"][changes - 1]["action"],
        json!("delete"),
        "{file:#}"
    );
    assert_eq!(
        file["plan"]["changes"][changes - 1]["step"],
        json!(steps - 1),
        "{file:#}"
    );
    apply_edit(&mut file, &Edit::RemoveChange { change: 8 });
    apply_edit(&mut file, &Edit::RemoveStep { step: 59 });
    assert_eq!(
        file["plan"]["changes"].as_array().unwrap().len(),
        changes - 1
    );
    assert_eq!(file["plan"]["steps"].as_array().unwrap().len(), steps - 1);
    let applied = apply_without_digest(&sandbox, &workspace, &path, file);
    assert_eq!(writes(&sandbox), Vec::<String>::new(), "{}", applied.stderr);
    common::converge_snapshot!("saved_plan_without_its_delete", applied);
}

/// Saves `file` (an edited saved plan) at `path` without its digest, as an attacker who cannot
/// recompute it would leave it, and applies it with the reviewed config, the sandbox's log
/// emptied first so that its writes are the run's.
fn apply_without_digest(
    sandbox: &SandboxHandle,
    workspace: &Workspace,
    path: &str,
    mut file: Value,
) -> common::Outcome {
    file.as_object_mut().unwrap().remove("digest");
    std::fs::write(path, serde_json::to_string_pretty(&file).unwrap()).unwrap();
    sandbox.reset_log();
    let converge = binary(sandbox, workspace);
    let config = workspace.file("reviewed.yaml");
    converge.run([
        "apply",
        "--plan",
        path,
        config.as_str(),
        "--yes",
        "--allow-destroy",
    ])
}

/// The same for a create, which nothing live can show missing: the alert create's change and
/// step removed, the later steps renumbered so the file still reads as a plan, the digest
/// dropped. Given the config, the plan leaves out an alert the config has, so the run is
/// refused before any write.
#[test]
fn a_plan_edited_to_leave_out_a_create_is_refused_by_the_config() {
    let sandbox = common::fast_sandbox();
    let workspace = Workspace::new();
    let path = planned(&sandbox, &workspace);
    let mut file: Value = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    let plan = &mut file["plan"];
    let created = plan["changes"]
        .as_array()
        .unwrap()
        .iter()
        .position(|c| c["address"] == json!("alert.prod.api-latency"))
        .unwrap();
    assert_eq!(
        plan["changes"][created]["action"],
        json!("create"),
        "{plan:#}"
    );
    let step = plan["changes"][created]["step"].as_u64().unwrap();
    plan["changes"].as_array_mut().unwrap().remove(created);
    plan["steps"].as_array_mut().unwrap().remove(step as usize);
    let renumber = |n: &mut Value| {
        if let Some(i) = n.as_u64().filter(|&i| i > step) {
            *n = json!(i - 1);
        }
    };
    for change in plan["changes"].as_array_mut().unwrap() {
        renumber(&mut change["step"]);
    }
    for later in plan["steps"].as_array_mut().unwrap() {
        renumber(&mut later["id"]);
        for on in later["dependsOn"].as_array_mut().unwrap() {
            renumber(on);
        }
    }
    let applied = apply_without_digest(&sandbox, &workspace, &path, file);
    assert_eq!(writes(&sandbox), Vec::<String>::new(), "{}", applied.stderr);
    common::converge_snapshot!("saved_plan_without_its_create", applied);
}
