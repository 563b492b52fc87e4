//! References by name (issue 36, part 4): `source: <name>` and `channel: { webhook: <name> }`
//! resolved to ids at plan time on each server, shown with both, exported by name, and one
//! config promoted between two servers whose ids differ.

use serde_json::{Value, json};

use crate::common::Workspace;

use super::{Target, apply_then_empty, config, on_both};

/// A dashboard whose tile names its source, and an alert whose channel names its webhook.
fn by_name(webhook: &str) -> String {
    config(&format!(
        r#"dashboards:
  api:
    name: API
    tiles:
      - name: Requests
        x: 0
        y: 0
        w: 12
        h: 4
        series:
          - type: time
            source: Logs
            aggFn: count
alerts:
  errors:
    name: API errors
    dashboard: api
    tile: Requests
    threshold: 100
    thresholdType: above
    interval: 5m
    channel: {{ webhook: {webhook} }}
"#
    ))
}

/// The id of the target's webhook named `name` (its list answers it).
fn webhook_id(target: &Target, name: &str) -> String {
    let listed = target.obs("GET", "/webhooks", None).data();
    listed
        .as_array()
        .into_iter()
        .flatten()
        .find(|w| w["name"] == name)
        .and_then(|w| w["id"].as_str())
        .unwrap_or_else(|| panic!("{}: no webhook {name} in {listed}", target.name()))
        .to_string()
}

/// The id of the target's source named `name`.
fn source_id(target: &Target, name: &str) -> String {
    let listed = target.obs("GET", "/sources", None).json();
    let list = listed.get("data").unwrap_or(&listed).clone();
    list.as_array()
        .into_iter()
        .flatten()
        .find(|s| s["name"] == name)
        .and_then(|s| s["id"].as_str())
        .unwrap_or_else(|| panic!("{}: no source {name} in {list}", target.name()))
        .to_string()
}

/// Creates a webhook through the target's API; its id.
fn create_webhook(target: &Target, name: &str, service: &str, url: &str) -> String {
    let answer = target.obs(
        "POST",
        "/webhooks",
        Some(json!({"name": name, "service": service, "url": url})),
    );
    let id = answer.data()["id"].as_str().map(str::to_string);
    id.unwrap_or_else(|| panic!("{}: webhook not created: {}", target.name(), answer.text))
}

fn alert_webhook(target: &Target) -> Value {
    let alerts = target.alerts();
    assert_eq!(alerts.len(), 1, "{}: {alerts:#?}", target.name());
    alerts[0]["channel"]["webhookId"].clone()
}

/// Names resolve to the server's ids; the plan shows each id with its name; a change of the
/// webhook by name is an update of `channel.webhookId`; the next plan is empty.
fn names_resolve_to_ids(target: &Target) {
    let workspace = Workspace::new();
    let converge = target.converge().cwd(&workspace);
    let first = workspace.write("c.yaml", &by_name("hook-1"));
    let (hook1, hook2) = (webhook_id(target, "hook-1"), webhook_id(target, "hook-2"));
    let logs = source_id(target, "Logs");
    let plan = converge.run(["plan", &first]);
    plan.assert_exit(0);
    for shown in [
        format!("\"{hook1}\" (hook-1)"),
        format!("\"{logs}\" (Logs)"),
    ] {
        assert!(
            plan.stdout.contains(&shown),
            "{}: the plan does not show {shown}:\n{}",
            target.name(),
            plan.stdout
        );
    }
    apply_then_empty(target, &converge, &first);
    assert_eq!(alert_webhook(target), json!(hook1), "{}", target.name());
    let dashboards = json!(target.dashboards()).to_string();
    assert!(
        dashboards.contains(&format!("\"{logs}\"")),
        "{}: the tile does not read from {logs}: {dashboards}",
        target.name()
    );

    let second = workspace.write("c.yaml", &by_name("hook-2"));
    let plan = converge.run(["plan", &second]);
    plan.assert_exit(0);
    let line = format!("\"{hook1}\" (hook-1) -> \"{hook2}\" (hook-2)");
    assert!(
        plan.stdout.contains(&line),
        "{}: the plan does not show {line}:\n{}",
        target.name(),
        plan.stdout
    );
    // The saved plan records the names it resolved; applying it writes the resolved id.
    let saved = workspace.file("p.json");
    converge
        .run(["plan", "--out", &saved, &second])
        .assert_exit(0);
    let saved_plan: Value = serde_json::from_str(&workspace.read("p.json")).unwrap();
    assert_eq!(
        saved_plan["plan"]["webhooks"][&hook2],
        json!("hook-2"),
        "{}: {saved_plan:#}",
        target.name()
    );
    converge
        .run(["apply", "--plan", &saved, "--yes"])
        .assert_exit(0);
    assert_eq!(alert_webhook(target), json!(hook2), "{}", target.name());
    converge
        .run(["plan", "--detailed-exitcode", &second])
        .assert_exit(0);

    // Exported by name: the export plans empty on the same server.
    let exported = workspace.file("exported.yaml");
    converge
        .run(["export", "--observability", "--out", &exported])
        .assert_exit(0);
    let text = workspace.read("exported.yaml");
    assert!(
        text.contains("webhook: hook-2"),
        "{}:\n{text}",
        target.name()
    );
    assert!(text.contains("source: Logs"), "{}:\n{text}", target.name());
    assert!(!text.contains("webhookId"), "{}:\n{text}", target.name());
    converge
        .run(["plan", "--detailed-exitcode", &exported])
        .assert_exit(0);
}
on_both!(names_resolve_to_ids);

/// A name no webhook has, and a name two webhooks have (the same name under two services),
/// are errors at the name's line; nothing is written.
fn unknown_and_ambiguous_names(target: &Target) {
    let workspace = Workspace::new();
    let converge = target.converge().cwd(&workspace);
    let unknown = workspace.write("c.yaml", &by_name("oncall"));
    let plan = converge.run(["plan", &unknown]);
    plan.assert_exit(1);
    assert!(
        plan.stderr.contains("plan::unknown-webhook")
            && plan.stderr.contains("no webhook named \"oncall\"")
            && plan.stderr.contains("c.yaml:35:"),
        "{}:\n{}",
        target.name(),
        plan.stderr
    );
    create_webhook(
        target,
        "hook-1",
        "incidentio",
        "https://api.incident.io/v2/x",
    );
    let ambiguous = workspace.write("c.yaml", &by_name("hook-1"));
    let plan = converge.run(["apply", "--yes", &ambiguous]);
    plan.assert_exit(1);
    assert!(
        plan.stderr.contains("plan::ambiguous-name") && plan.stderr.contains("incidentio"),
        "{}:\n{}",
        target.name(),
        plan.stderr
    );
    assert_eq!(
        target.writes(),
        ["POST /api/v2/webhooks 200"],
        "{}",
        target.name()
    );
}
on_both!(unknown_and_ambiguous_names);

/// A webhook URL naming a private or reserved address is refused with the server's words.
fn private_webhook_urls_are_refused(target: &Target) {
    for url in [
        "http://10.0.0.1/x",
        "https://localhost/x",
        "http://[::1]/x",
        "http://169.254.169.254/latest",
    ] {
        let answer = target.obs(
            "POST",
            "/webhooks",
            Some(json!({"name": "n", "service": "generic", "url": url})),
        );
        assert_eq!(answer.status, 400, "{}: {url}", target.name());
        assert_eq!(
            answer.json()["message"],
            "Webhook URL resolves to a private or reserved address.",
            "{}: {url}",
            target.name()
        );
    }
}
on_both!(private_webhook_urls_are_refused);

/// One config applied to two servers whose webhook and source ids differ: each gets its own
/// ids, and each plans empty after its apply. The two are the sandbox and hdx-server; without
/// hdx-server, two sandboxes, the second with a webhook made first (so its ids differ).
#[test]
fn one_config_is_promoted_between_two_servers() {
    let staging = Target::sandbox();
    let production =
        Target::hdx("one_config_is_promoted_between_two_servers").unwrap_or_else(|| {
            let other = Target::sandbox();
            create_webhook(
                &other,
                "first",
                "generic",
                "https://hooks.example.com/first",
            );
            other
        });
    let mut seen = Vec::new();
    for target in [&staging, &production] {
        create_webhook(
            target,
            "oncall",
            "generic",
            "https://hooks.example.com/oncall",
        );
        let workspace = Workspace::new();
        let converge = target.converge().cwd(&workspace);
        let path = workspace.write("c.yaml", &by_name("oncall"));
        apply_then_empty(target, &converge, &path);
        let id = webhook_id(target, "oncall");
        assert_eq!(alert_webhook(target), json!(id), "{}", target.name());
        seen.push((id, source_id(target, "Logs")));
    }
    assert_ne!(seen[0].0, seen[1].0, "the two servers' webhook ids differ");
    if matches!(production, Target::Hdx(_)) {
        assert_ne!(seen[0].1, seen[1].1, "the two servers' source ids differ");
    }
}

/// A literal id no server makes (a name written where the id goes), or a webhook named twice
/// (by id and by name), is `semantic::webhook-id` at its line, before anything is read.
#[test]
fn a_malformed_literal_id_is_an_error_at_its_line() {
    let target = Target::sandbox();
    let workspace = Workspace::new();
    let converge = target.converge().cwd(&workspace);
    let named = by_name("hook-1").replace(
        "{ webhook: hook-1 }",
        "{ type: webhook, webhookId: On call }",
    );
    let path = workspace.write("c.yaml", &named);
    let out = converge.run(["validate", &path]);
    out.assert_exit(1);
    assert!(
        out.stderr.contains("semantic::webhook-id")
            && out.stderr.contains("c.yaml:35:")
            && out.stderr.contains("webhook: On call"),
        "{}",
        out.stderr
    );
    let twice = by_name("hook-1").replace(
        "{ webhook: hook-1 }",
        "{ webhook: hook-1, webhookId: 65f5e4a3b9e77c001a789013 }",
    );
    let path = workspace.write("c.yaml", &twice);
    let out = converge.run(["validate", &path]);
    out.assert_exit(1);
    assert!(
        out.stderr.contains("semantic::webhook-id")
            && out.stderr.contains("names its webhook twice"),
        "{}",
        out.stderr
    );
    assert!(target.writes().is_empty());
}
