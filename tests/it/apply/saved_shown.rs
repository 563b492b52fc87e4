//! What a reviewer of a saved plan approved is what `apply --plan` runs (issue 27 item 2): the
//! review shows each change's address and fields, so a file edited to write more than those
//! fields (a webhook, a message, a tile's `where`, a hidden tile), to another object than its
//! address names live, or to delete an object converge does not own, is refused (exit 4) before
//! anything is written. Each attack here applied with exit 0 before the check.

use converge::sandbox::SandboxHandle;
use serde_json::{Value, json};

use super::*;
use crate::common::{self, Client, words};

fn read_plan(path: &str) -> Value {
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

/// Writes an edited plan as a file saved before digests (whose checks are all but the
/// digest's), so each test reaches the check it is about: an attacker can compute a digest.
fn write_plan(path: &str, plan: &Value) {
    let mut plan = plan.clone();
    plan.as_object_mut().unwrap().remove("digest");
    std::fs::write(path, serde_json::to_string_pretty(&plan).unwrap()).unwrap();
}

/// Writes a plan as it is, digest included.
fn write_plan_as_is(path: &str, plan: &Value) {
    std::fs::write(path, serde_json::to_string_pretty(plan).unwrap()).unwrap();
}

/// The quickstart applied, then `config_text` saved as a plan: its path.
fn applied_then_planned(
    sandbox: &SandboxHandle,
    workspace: &Workspace,
    config_text: &str,
) -> String {
    let converge = binary(sandbox, workspace);
    let config = workspace.write("converge.yaml", &quickstart());
    converge
        .run(["apply", config.as_str(), "--yes"])
        .assert_exit(0);
    std::fs::write(&config, config_text).unwrap();
    save_plan(&converge, workspace, &config)
}

/// Applies the saved plan at `path`: refused with exit 4, `expected` in the message, nothing
/// written.
fn refused(sandbox: &SandboxHandle, workspace: &Workspace, path: &str, expected: &str) -> Outcome {
    sandbox.reset_log();
    // Deletes allowed: the refusal must be this check's, not the missing flag's.
    let applied =
        binary(sandbox, workspace).run(["apply", "--plan", path, "--yes", "--allow-destroy"]);
    applied.assert_exit(4);
    // Error text is wrapped to the terminal's width: compare words.
    let stderr = words(&applied.stderr);
    assert!(
        stderr.contains(&words(expected)),
        "{expected}: {}",
        applied.stderr
    );
    assert!(stderr.contains("nothing was written"), "{}", applied.stderr);
    assert_eq!(writes(sandbox), Vec::<String>::new());
    applied
}

fn change_at<'a>(plan: &'a mut Value, address: &str) -> &'a mut Value {
    plan["plan"]["changes"]
        .as_array_mut()
        .unwrap()
        .iter_mut()
        .find(|c| c["address"] == address)
        .unwrap()
}

fn step_at<'a>(plan: &'a mut Value, address: &str) -> &'a mut Value {
    plan["plan"]["steps"]
        .as_array_mut()
        .unwrap()
        .iter_mut()
        .find(|s| s["address"] == address)
        .unwrap()
}

const OTHER_WEBHOOK: &str = "65f5e4a3b9e77c001a7890ff";

#[test]
fn a_plan_showing_a_threshold_cannot_also_redirect_the_webhook_or_rewrite_the_message() {
    let sandbox = common::fast_sandbox();
    let workspace = Workspace::new();
    let path = applied_then_planned(
        &sandbox,
        &workspace,
        &quickstart().replace("threshold: 100", "threshold: 150"),
    );
    let clean = read_plan(&path);
    assert_eq!(
        clean["plan"]["changes"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|c| c["action"] != "no-op")
            .map(|c| c["fields"].clone())
            .collect::<Vec<_>>(),
        [json!([{"path": "threshold", "before": 100, "after": 150}])]
    );
    // The desired alert and the step's body both say more than the one field shown; with
    // `before` edited too, the fields are still what `before` and `after` differ in.
    for edit_before in [false, true] {
        let mut plan = clean.clone();
        let change = change_at(&mut plan, "alert.prod.api-errors");
        change["after"]["channel"]["webhookId"] = json!(OTHER_WEBHOOK);
        change["after"]["message"] = json!("All is well, ignore this");
        if edit_before {
            change["before"]["channel"]["webhookId"] = json!(OTHER_WEBHOOK);
            change["before"]["message"] = json!("All is well, ignore this");
        }
        let body = &mut step_at(&mut plan, "alert.prod.api-errors")["operation"]["body"];
        body["channel"]["webhookId"] = json!(OTHER_WEBHOOK);
        body["message"] = json!("All is well, ignore this");
        write_plan(&path, &plan);
        let expected = if edit_before {
            "alert.prod.api-errors: the change shows it as"
        } else {
            "alert.prod.api-errors: `channel.webhookId` changes"
        };
        let run = refused(&sandbox, &workspace, &path, expected);
        if !edit_before {
            common::converge_snapshot!("saved_plan_hidden_alert_fields", run);
        }
    }
    let alert = alerts(&sandbox)
        .into_iter()
        .find(|a| a["name"] == "API errors")
        .unwrap();
    assert_eq!(alert["threshold"], json!(100));
    assert_eq!(alert["message"], json!("Errors are up"));
    assert_eq!(
        alert["channel"]["webhookId"],
        json!("65f5e4a3b9e77c001a789012")
    );
    // The file as saved applies.
    write_plan_as_is(&path, &clean);
    binary(&sandbox, &workspace)
        .run(["apply", "--plan", path.as_str(), "--yes"])
        .assert_exit(0);
}

#[test]
fn a_plan_showing_a_tag_cannot_also_change_a_tile_s_where_or_add_a_hidden_tile() {
    let sandbox = common::contract_sandbox();
    let workspace = Workspace::new();
    let path = applied_then_planned(
        &sandbox,
        &workspace,
        &quickstart().replace("tags: [team-api]", "tags: [team-web]"),
    );
    let clean = read_plan(&path);
    let address = "dashboard.prod.api-health";

    // A tile's `where` in both the desired dashboard and the body.
    let mut plan = clean.clone();
    let tiles = &mut change_at(&mut plan, address)["after"]["tiles"];
    let requests = tiles
        .as_array_mut()
        .unwrap()
        .iter_mut()
        .find(|t| t["name"] == "Requests")
        .unwrap();
    requests["series"][0]["where"] = json!("service:*");
    let body_tiles = &mut step_at(&mut plan, address)["operation"]["body"]["tiles"];
    let requests = body_tiles
        .as_array_mut()
        .unwrap()
        .iter_mut()
        .find(|t| t["name"] == "Requests")
        .unwrap();
    requests["series"][0]["where"] = json!("service:*");
    write_plan(&path, &plan);
    refused(
        &sandbox,
        &workspace,
        &path,
        &format!("{address}: `tiles[Requests].series[0].where` changes"),
    );

    // A tile no field shows, added to both.
    let mut plan = clean.clone();
    let after_tiles = change_at(&mut plan, address)["after"]["tiles"]
        .as_array_mut()
        .unwrap();
    let mut hidden = after_tiles
        .iter()
        .find(|t| t["name"] == "Requests")
        .unwrap()
        .clone();
    hidden["name"] = json!("Hidden");
    after_tiles.push(hidden);
    let body_tiles = step_at(&mut plan, address)["operation"]["body"]["tiles"]
        .as_array_mut()
        .unwrap();
    let mut hidden = body_tiles
        .iter()
        .find(|t| t["name"] == "Requests")
        .unwrap()
        .clone();
    hidden["name"] = json!("Hidden");
    hidden.as_object_mut().unwrap().remove("id");
    body_tiles.push(hidden);
    write_plan(&path, &plan);
    refused(
        &sandbox,
        &workspace,
        &path,
        &format!("{address}: `tiles[Hidden].asRatio` changes"),
    );
    let live = dashboards(&sandbox);
    let health = live.iter().find(|d| d["name"] == "API health").unwrap();
    assert_eq!(health["tiles"].as_array().unwrap().len(), 2);
    assert_eq!(health["tiles"][0]["series"][0]["where"], "service:api");
}

/// The quickstart with a second dashboard, a copy of the first under another name and key.
fn with_a_second_dashboard(text: &str) -> String {
    let start = text.find("      api-health:").unwrap();
    let end = text.find("    alerts:").unwrap();
    let copy = text[start..end]
        .replace("      api-health:", "      api-copy:")
        .replace("name: API health", "name: API copy");
    format!("{}{copy}{}", &text[..end], &text[end..])
}

#[test]
fn a_step_writes_to_the_object_its_address_names_live_never_to_an_id_from_the_file() {
    let sandbox = common::fast_sandbox();
    let workspace = Workspace::new();
    let converge = binary(&sandbox, &workspace);
    let config = workspace.write("converge.yaml", &with_a_second_dashboard(&quickstart()));
    converge
        .run(["apply", config.as_str(), "--yes"])
        .assert_exit(0);
    std::fs::write(
        &config,
        with_a_second_dashboard(&quickstart()).replace("tags: [team-api]", "tags: [team-web]"),
    )
    .unwrap();
    let path = save_plan(&converge, &workspace, &config);
    let mut plan = read_plan(&path);
    // The two updates trade their targets: ids, fingerprints (anyone who can read the live
    // state can compute them) and tile ids, so every older check agrees.
    let (a, b) = ("dashboard.prod.api-health", "dashboard.prod.api-copy");
    let step_a = step_at(&mut plan, a).clone();
    let step_b = step_at(&mut plan, b).clone();
    for (address, from) in [(a, &step_b), (b, &step_a)] {
        let step = step_at(&mut plan, address);
        step["fingerprint"] = from["fingerprint"].clone();
        step["operation"]["dashboardId"] = from["operation"]["dashboardId"].clone();
        let tiles = step["operation"]["body"]["tiles"].as_array_mut().unwrap();
        for tile in tiles {
            let id = from["operation"]["body"]["tiles"]
                .as_array()
                .unwrap()
                .iter()
                .find(|t| t["name"] == tile["name"])
                .unwrap()["id"]
                .clone();
            tile["id"] = id;
        }
        change_at(&mut plan, address)["fingerprint"] = from["fingerprint"].clone();
    }
    write_plan(&path, &plan);
    let b_id = step_b["operation"]["dashboardId"].as_str().unwrap();
    let a_id = step_a["operation"]["dashboardId"].as_str().unwrap();
    refused(
        &sandbox,
        &workspace,
        &path,
        &format!(
            "{a}: the step writes to dashboard {b_id}, but the dashboard \"API health\" of stack \
             `prod` is {a_id}"
        ),
    );
    let live = dashboards(&sandbox);
    let health = live.iter().find(|d| d["id"] == a_id).unwrap();
    assert_eq!(health["name"], "API health");
}

#[test]
fn a_delete_removes_only_an_owned_object_its_address_names() {
    let sandbox = common::fast_sandbox();
    let workspace = Workspace::new();
    let converge = binary(&sandbox, &workspace);
    let config = workspace.write("converge.yaml", &with_a_second_dashboard(&quickstart()));
    converge
        .run(["apply", config.as_str(), "--yes"])
        .assert_exit(0);
    // A dashboard someone made by hand: no ownership tag, no config names it.
    let client = Client::new(&sandbox);
    let made = client.cloud(
        "POST",
        &format!("/services/{ANALYTICS}/stack/dashboards"),
        Some(json!({"name": "Hand made", "tiles": [], "tags": ["team-ops"]})),
    );
    let hand_made = made.result()["id"].as_str().unwrap().to_string();
    // Its fingerprint, as anyone who can read it can compute: the plan of a config that adopts
    // it shows it.
    let adopting = workspace.write(
        "adopt.yaml",
        &with_a_second_dashboard(&quickstart())
            .replace("name: API copy", "name: Hand made")
            .replace("      api-copy:", "      hand:"),
    );
    let adopt_plan = workspace.file("adopt.json");
    converge
        .run(["plan", adopting.as_str(), "--out", adopt_plan.as_str()])
        .assert_exit(0);
    let adopt = read_plan(&adopt_plan);
    let hand_change = adopt["plan"]["changes"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["address"] == "dashboard.prod.hand")
        .unwrap()
        .clone();
    // The reviewed plan prunes the copy, which converge owns.
    std::fs::write(&config, quickstart().replace("prune: false", "prune: true")).unwrap();
    let path = save_plan(&converge, &workspace, &config);
    let clean = read_plan(&path);
    let pruned = "dashboard.prod[\"API copy\"]";
    assert!(
        clean["plan"]["changes"]
            .as_array()
            .unwrap()
            .iter()
            .any(|c| c["address"] == pruned && c["action"] == "delete")
    );

    // Shown as deleting the copy, the step deletes the hand-made dashboard.
    let mut plan = clean.clone();
    change_at(&mut plan, pruned)["fingerprint"] = hand_change["fingerprint"].clone();
    let step = step_at(&mut plan, pruned);
    step["fingerprint"] = hand_change["fingerprint"].clone();
    step["operation"]["dashboardId"] = json!(hand_made);
    write_plan(&path, &plan);
    refused(
        &sandbox,
        &workspace,
        &path,
        &format!("{pruned}: the step writes to dashboard {hand_made}, but the dashboard"),
    );

    // Shown as deleting the hand-made dashboard itself: not converge's to delete.
    let mut plan = clean.clone();
    let change = change_at(&mut plan, pruned);
    change["address"] = json!("dashboard.prod[\"Hand made\"]");
    change["fingerprint"] = hand_change["fingerprint"].clone();
    change["before"] = hand_change["before"].clone();
    let step = step_at(&mut plan, pruned);
    step["address"] = json!("dashboard.prod[\"Hand made\"]");
    step["fingerprint"] = hand_change["fingerprint"].clone();
    step["operation"]["dashboardId"] = json!(hand_made);
    write_plan(&path, &plan);
    refused(
        &sandbox,
        &workspace,
        &path,
        "the step deletes dashboard \"Hand made\", which converge does not own (no \
         `converge:prod` tag)",
    );
    assert!(
        dashboards(&sandbox)
            .iter()
            .any(|d| d["id"] == hand_made.as_str())
    );

    // The plan as saved deletes the copy.
    write_plan_as_is(&path, &clean);
    converge
        .run(["apply", "--plan", path.as_str(), "--yes", "--allow-destroy"])
        .assert_exit(0);
    let names_now = names(&dashboards(&sandbox));
    assert!(
        names_now.contains(&"Hand made".to_string()),
        "{names_now:?}"
    );
    assert!(
        !names_now.contains(&"API copy".to_string()),
        "{names_now:?}"
    );
}

/// The digest line a run printed on stderr.
fn digest_line(stderr: &str) -> String {
    stderr
        .lines()
        .find(|l| l.starts_with("the plan's text has digest sha256:"))
        .unwrap_or_else(|| panic!("no digest line: {stderr}"))
        .to_string()
}

#[test]
fn show_and_apply_print_one_digest_and_a_file_whose_text_was_edited_is_refused() {
    let sandbox = common::fast_sandbox();
    let workspace = Workspace::new();
    let path = applied_then_planned(
        &sandbox,
        &workspace,
        &quickstart().replace("threshold: 100", "threshold: 150"),
    );
    let clean = read_plan(&path);
    let recorded = clean["digest"].as_str().unwrap().to_string();
    assert!(
        recorded.starts_with("sha256:") && recorded.len() == 71,
        "{recorded}"
    );
    let converge = binary(&sandbox, &workspace);
    let shown = converge.run(["show", path.as_str()]);
    shown.assert_exit(0);
    assert_eq!(
        digest_line(&shown.stderr),
        format!("the plan's text has digest {recorded}")
    );

    // The reason line is shown but steers no step: only the digest ties it to the review.
    let mut plan = clean.clone();
    change_at(&mut plan, "alert.prod.api-errors")["reason"] = json!("cosmetic only");
    write_plan_as_is(&path, &plan);
    let refused_show = converge.run(["show", path.as_str()]);
    refused_show.assert_exit(1);
    assert!(
        words(&refused_show.stderr)
            .contains("its changes do not render to the text it was saved with"),
        "{}",
        refused_show.stderr
    );
    refused(
        &sandbox,
        &workspace,
        &path,
        "its changes do not render to the text it was saved with",
    );

    // A file saved before digests gets every other check, and applies.
    let mut plan = clean.clone();
    plan.as_object_mut().unwrap().remove("digest");
    write_plan(&path, &plan);
    let applied = converge.run(["apply", "--plan", path.as_str(), "--yes"]);
    applied.assert_exit(0);
    assert_eq!(
        digest_line(&applied.stderr),
        format!("the plan's text has digest {recorded}")
    );
}
