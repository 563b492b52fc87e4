//! Webhook gaps of issue 36, part 1, on the sandbox and hdx-server: a `service` change made in
//! place (the server's `PUT` takes it), a saved plan whose webhook changed since it was made
//! refused without showing a secret (its fingerprint keyed by a salt of the plan, never a bare
//! hash of a secret), and `renamedFrom` of webhooks validated as other kinds' are.

use serde_json::Value;

use crate::common::{Outcome, Workspace};

use super::{Target, apply_then_empty, config, on_both};

const SLACK_URL: &str = "https://hooks.slack.com/services/T0-gap-secret-1a";
const URL: &str = "https://hooks.example.com/T0-gap-secret-2b";
const URL_2: &str = "https://hooks.example.com/T0-gap-secret-3c";
const TOKEN: &str = "Bearer gap-secret-token-4d";

/// No secret of this file in `outcome`'s output, nor in `text`.
#[track_caller]
fn no_secret(target: &Target, outcome: &Outcome, text: &str) {
    let all = format!("{}\n{}\n{text}", outcome.stdout, outcome.stderr);
    for secret in [SLACK_URL, URL, URL_2, TOKEN] {
        assert!(
            !all.contains(secret),
            "{}: a webhook secret is shown:\n{all}",
            target.name()
        );
    }
}

/// The team's webhooks named `name`, as listed.
fn named(target: &Target, name: &str) -> Vec<Value> {
    let list = target.ui("GET", "/webhooks", None).data();
    list.as_array()
        .map(|all| all.iter().filter(|w| w["name"] == name).cloned().collect())
        .unwrap_or_default()
}

fn slack() -> String {
    config(
        "webhooks:\n  oncall:\n    name: On call\n    service: slack\n    url: ${env:SLACK_URL}\n",
    )
}

fn generic(description: &str) -> String {
    config(&format!(
        "webhooks:\n  oncall:\n    name: On call\n    service: generic\n    url: ${{env:ONCALL_URL}}\n    \
         description: {description}\n    headers:\n      Authorization: ${{env:ONCALL_TOKEN}}\n"
    ))
}

/// A slack webhook made generic: one `PUT` that changes its service, its id kept, its headers
/// sent (a new service is a new destination); the next plan is empty.
fn a_service_change_is_made_in_place(target: &Target) {
    let workspace = Workspace::new();
    let converge = target.converge().cwd(&workspace).envs([
        ("SLACK_URL", SLACK_URL),
        ("ONCALL_URL", URL),
        ("ONCALL_TOKEN", TOKEN),
    ]);
    let path = workspace.write("c.yaml", &slack());
    no_secret(target, &apply_then_empty(target, &converge, &path), "");
    let before = named(target, "On call");
    assert_eq!(before.len(), 1, "{}: {before:?}", target.name());
    let path = workspace.write("c.yaml", &generic("Pages the on-call"));
    let plan = converge.run(["plan", &path]);
    plan.assert_exit(0);
    no_secret(target, &plan, "");
    for line in [
        "~ webhook.platform.oncall",
        "~ service: \"slack\" -> \"generic\"",
        "headers and queryParams sent again",
    ] {
        assert!(
            plan.stdout.contains(line),
            "{}: no {line:?} in\n{}",
            target.name(),
            plan.stdout
        );
    }
    no_secret(target, &apply_then_empty(target, &converge, &path), "");
    let after = named(target, "On call");
    assert_eq!(after.len(), 1, "{}: {after:?}", target.name());
    assert_eq!(after[0]["id"], before[0]["id"], "{}", target.name());
    assert_eq!(after[0]["service"], "generic", "{}", target.name());
    assert_eq!(after[0]["url"], URL, "{}", target.name());
    let writes: Vec<String> = target
        .writes()
        .into_iter()
        .filter(|w| w.contains("/webhooks"))
        .collect();
    assert_eq!(
        writes,
        ["POST /api/v2/webhooks 200", "PUT /api/v2/webhooks/{id} 200"],
        "{}",
        target.name()
    );
}
on_both!(a_service_change_is_made_in_place);

/// The fingerprint a saved plan records for webhook `oncall`'s change.
fn fingerprint(saved: &str) -> Value {
    let plan: Value = serde_json::from_str(saved).unwrap_or_default();
    let changes = plan["plan"]["changes"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    changes
        .iter()
        .find(|c| c["address"] == "webhook.platform.oncall")
        .map(|s| s["fingerprint"].clone())
        .unwrap_or_default()
}

/// A saved plan's webhook fingerprint is keyed by a salt drawn for the plan: two plans of one
/// change record different ones. Its webhook's url changed in the UI since, the plan is
/// refused as stale, and the message names no secret.
fn a_stale_saved_plan_shows_no_secret(target: &Target) {
    let workspace = Workspace::new();
    let converge = target
        .converge()
        .cwd(&workspace)
        .envs([("ONCALL_URL", URL), ("ONCALL_TOKEN", TOKEN)]);
    let path = workspace.write("c.yaml", &generic("Pages the on-call"));
    apply_then_empty(target, &converge, &path);
    let path = workspace.write("c.yaml", &generic("Pages on-call"));
    let (one, two) = (workspace.file("one.json"), workspace.file("two.json"));
    converge.run(["plan", "--out", &one, &path]).assert_exit(0);
    converge.run(["plan", "--out", &two, &path]).assert_exit(0);
    let (first, second) = (workspace.read("one.json"), workspace.read("two.json"));
    let (a, b) = (fingerprint(&first), fingerprint(&second));
    assert!(
        a.is_string(),
        "{}: no webhook step in\n{first}",
        target.name()
    );
    assert_ne!(a, b, "{}: the fingerprint is not salted", target.name());

    let id = named(target, "On call")[0]["id"].clone();
    let edit = serde_json::json!({
        "name": "On call", "service": "generic", "url": URL_2,
        "description": "Pages the on-call",
    });
    let answer = target.ui(
        "PUT",
        &format!("/webhooks/{}", id.as_str().unwrap_or_default()),
        Some(edit),
    );
    assert_eq!(answer.status, 200, "{}: {}", target.name(), answer.text);
    let refused = converge.run(["apply", "--plan", &one, "--yes", &path]);
    assert_ne!(refused.code, 0, "{}: {}", target.name(), refused.stdout);
    no_secret(target, &refused, &first);
    assert!(
        refused
            .stderr
            .contains("webhook.platform.oncall changed since the plan was made"),
        "{}:\n{}\n{}",
        target.name(),
        refused.stdout,
        refused.stderr
    );
    assert_eq!(
        named(target, "On call")[0]["url"],
        URL_2,
        "{}",
        target.name()
    );
}
on_both!(a_stale_saved_plan_shows_no_secret);

/// `renamedFrom` of a webhook names one webhook of its service: not its own name, not another
/// webhook's name, not one claimed twice (`semantic::rename-conflict` at the entry); another
/// service's name is no conflict.
#[test]
fn webhook_renames_are_validated() {
    let workspace = Workspace::new();
    let bad = config(
        "webhooks:\n  a:\n    name: Alpha\n    service: generic\n    url: ${env:A_URL}\n    \
         renamedFrom: [Alpha, Beta, Old]\n  b:\n    name: Beta\n    service: generic\n    \
         url: ${env:B_URL}\n    renamedFrom: [Old]\n  c:\n    name: Gamma\n    service: slack\n    \
         url: ${env:C_URL}\n    renamedFrom: [Beta]\n",
    );
    let path = workspace.write("c.yaml", &bad);
    let target = Target::sandbox();
    let out = target
        .converge()
        .cwd(&workspace)
        .env("COLUMNS", "300")
        .run(["validate", &path]);
    out.assert_exit(1);
    for expected in [
        "semantic::rename-conflict",
        "`renamedFrom` lists `Alpha`, the generic webhook's own name",
        "`renamedFrom` of generic webhook `Alpha` lists `Beta`, the name of another generic webhook",
        "`Old` is listed in `renamedFrom` of two generic webhooks of stack `platform`",
        "c.yaml:19:30",
    ] {
        assert!(
            out.stderr.contains(expected),
            "no {expected:?} in\n{}",
            out.stderr
        );
    }
    assert_eq!(
        out.stderr.matches("semantic::rename-conflict").count(),
        3,
        "{}",
        out.stderr
    );
}

/// On the managed stack, whose API only lists webhooks, an alert names an existing webhook by
/// name (the plan writes its id, the next plan is empty); a declared webhook there is refused
/// at its key, saying converge cannot create them there.
#[test]
fn the_managed_stack_names_its_webhooks() {
    let sandbox = crate::common::fast_sandbox();
    let workspace = Workspace::new();
    let converge = crate::common::Converge::new(&sandbox)
        .fast()
        .cwd(&workspace);
    let by_name = crate::common::quickstart().replace(
        "channel: { type: webhook, webhookId: 65f5e4a3b9e77c001a789012 }",
        "channel: { webhook: hook-1 }",
    );
    let path = workspace.write("c.yaml", &by_name);
    let plan = converge.run(["plan", &path]);
    plan.assert_exit(0);
    assert!(
        plan.stdout
            .contains("webhookId: \"65f5e4a3b9e77c001a789013\" (hook-1)"),
        "{}",
        plan.stdout
    );
    converge.run(["apply", "--yes", &path]).assert_exit(0);
    converge
        .run(["plan", "--detailed-exitcode", &path])
        .assert_exit(0);

    let declared = by_name.replace(
        "    prune: false\n",
        "    prune: false\n    webhooks:\n      oncall:\n        name: On call\n        service: generic\n        \
         url: ${env:ONCALL_URL}\n",
    );
    let path = workspace.write("m.yaml", &declared);
    let out = converge.env("COLUMNS", "300").run(["validate", &path]);
    out.assert_exit(1);
    let line = declared
        .lines()
        .position(|l| l == "      oncall:")
        .map_or(0, |at| at + 1);
    for expected in [
        "semantic::webhook".to_string(),
        "converge cannot create them there".to_string(),
        format!("m.yaml:{line}:7"),
    ] {
        assert!(
            out.stderr.contains(&expected),
            "no {expected:?} in\n{}",
            out.stderr
        );
    }
}
