//! The alert members today's servers added (`thresholdMax` with `between` / `not_between`,
//! `numConsecutiveWindows`, `scheduleOffsetMinutes`, `scheduleStartAt`, `note`), through the
//! binary against the sandbox: applied then an empty plan, changed field by field, exported
//! back, and each bad value rejected at its line.

use converge::sandbox::{Generation, SandboxHandle, SandboxOptions};
use serde_json::json;

use crate::common::{self, ANALYTICS, Converge, Workspace, converge_snapshot, quickstart};

/// The quickstart's alert as written there.
const ALERT: &str = "        thresholdType: above\n        interval: 5m\n";

/// The quickstart with its alert's threshold type and interval lines replaced by `lines`.
fn with_alert(lines: &str) -> String {
    let text = quickstart();
    assert!(text.contains(ALERT), "the quickstart has no {ALERT:?}");
    text.replacen(ALERT, lines, 1)
}

/// Every newer member, set.
const ALL_FIELDS: &str = "        thresholdType: between\n        thresholdMax: 500\n        interval: 5m\n        numConsecutiveWindows: 3\n        scheduleOffsetMinutes: 0\n        scheduleStartAt: \"2026-02-08T10:00:00Z\"\n        note: See the runbook\n";

/// Each of them changed.
const CHANGED_FIELDS: &str = "        thresholdType: not_between\n        thresholdMax: 800\n        interval: 15m\n        numConsecutiveWindows: 5\n        scheduleOffsetMinutes: 0\n        scheduleStartAt: \"2026-03-01T00:00:00.000Z\"\n        note: Raised after the March incident\n";

fn sandbox(generation: Generation) -> SandboxHandle {
    common::sandbox(SandboxOptions {
        rate_limit: false,
        generation,
        ..SandboxOptions::default()
    })
}

fn binary<'s>(sandbox: &'s SandboxHandle, workspace: &Workspace) -> Converge<'s> {
    Converge::new(sandbox).rate_limit("1000/1s").cwd(workspace)
}

/// The quickstart's alert as the sandbox stores it.
fn live_alert(sandbox: &SandboxHandle) -> serde_json::Value {
    common::alerts(sandbox)
        .into_iter()
        .find(|a| a["name"] == "API errors")
        .expect("the alert exists")
}

/// Applies `config` and checks that the plan after it is empty.
fn apply_then_empty(sandbox: &SandboxHandle, workspace: &Workspace, config: &str) {
    binary(sandbox, workspace)
        .run(["apply", config, "--yes"])
        .assert_exit(0);
    binary(sandbox, workspace)
        .run(["plan", config, "--detailed-exitcode"])
        .assert_exit(0);
}

/// The members the sandbox answers for the alert.
fn newer_members(alert: &serde_json::Value) -> serde_json::Value {
    json!({
        "thresholdType": alert["thresholdType"],
        "thresholdMax": alert["thresholdMax"],
        "interval": alert["interval"],
        "numConsecutiveWindows": alert["numConsecutiveWindows"],
        "scheduleOffsetMinutes": alert["scheduleOffsetMinutes"],
        "scheduleStartAt": alert["scheduleStartAt"],
        "note": alert["note"],
    })
}

/// Applied, stored, an empty plan after; then each changed, shown field by field, applied and
/// an empty plan again: in the contract's shape and in today's.
fn applies_and_changes(generation: Generation, snapshot: &str) {
    let sandbox = sandbox(generation);
    let workspace = Workspace::new();
    let config = workspace.write("converge.yaml", &with_alert(ALL_FIELDS));
    apply_then_empty(&sandbox, &workspace, &config);
    assert_eq!(
        newer_members(&live_alert(&sandbox)),
        json!({
            "thresholdType": "between",
            "thresholdMax": 500,
            "interval": "5m",
            "numConsecutiveWindows": 3,
            "scheduleOffsetMinutes": 0,
            "scheduleStartAt": "2026-02-08T10:00:00.000Z",
            "note": "See the runbook",
        })
    );

    let config = workspace.write("converge.yaml", &with_alert(CHANGED_FIELDS));
    let plan = binary(&sandbox, &workspace).run(["plan", &config, "--detailed-exitcode"]);
    converge_snapshot!(snapshot, plan);
    apply_then_empty(&sandbox, &workspace, &config);
    assert_eq!(
        newer_members(&live_alert(&sandbox)),
        json!({
            "thresholdType": "not_between",
            "thresholdMax": 800,
            "interval": "15m",
            "numConsecutiveWindows": 5,
            "scheduleOffsetMinutes": 0,
            "scheduleStartAt": "2026-03-01T00:00:00.000Z",
            "note": "Raised after the March incident",
        })
    );
}

#[test]
fn each_field_applies_plans_empty_and_changes_field_by_field() {
    applies_and_changes(Generation::Current, "alert_fields_changed_newer");
}

/// A server of the contract's generation would drop them: the plan is an error at each
/// member's line, and nothing is written.
#[test]
fn against_a_server_of_the_contract_they_are_errors() {
    let sandbox = sandbox(Generation::Contract);
    let workspace = Workspace::new();
    let config = workspace.write("converge.yaml", &with_alert(ALL_FIELDS));
    let plan = binary(&sandbox, &workspace).run(["plan", &config]);
    converge_snapshot!("alert_fields_on_the_contract", plan);
    binary(&sandbox, &workspace)
        .run(["apply", &config, "--yes"])
        .assert_exit(1);
    assert!(
        sandbox.request_log().iter().all(|e| e.method == "GET"),
        "nothing is written"
    );
}

/// A config that leaves the newer members out does not manage them: an update of another
/// field keeps the live ones (a PUT replaces the whole alert), and the plan stays empty.
#[test]
fn members_the_config_leaves_out_are_kept() {
    let sandbox = sandbox(Generation::Current);
    let workspace = Workspace::new();
    let config = workspace.write("converge.yaml", &with_alert(ALL_FIELDS));
    apply_then_empty(&sandbox, &workspace, &config);
    let without =
        "        thresholdType: between\n        thresholdMax: 600\n        interval: 5m\n";
    let config = workspace.write("converge.yaml", &with_alert(without));
    apply_then_empty(&sandbox, &workspace, &config);
    assert_eq!(
        newer_members(&live_alert(&sandbox)),
        json!({
            "thresholdType": "between",
            "thresholdMax": 600,
            "interval": "5m",
            "numConsecutiveWindows": 3,
            "scheduleOffsetMinutes": 0,
            "scheduleStartAt": "2026-02-08T10:00:00.000Z",
            "note": "See the runbook",
        })
    );
}

/// Export writes the members back; its output validates and plans empty.
#[test]
fn export_writes_them_and_plans_empty() {
    let sandbox = sandbox(Generation::Current);
    let workspace = Workspace::new();
    let config = workspace.write("converge.yaml", &with_alert(ALL_FIELDS));
    apply_then_empty(&sandbox, &workspace, &config);
    let export = binary(&sandbox, &workspace).run(["export", "--stack", ANALYTICS]);
    export.assert_exit(0);
    let alerts = exported_alerts(&export.stdout);
    insta::assert_snapshot!("alert_fields_exported", alerts);
    let exported = workspace.write("exported.yaml", &export.stdout);
    binary(&sandbox, &workspace)
        .run(["plan", &exported, "--detailed-exitcode"])
        .assert_exit(0);
}

/// The `alerts:` section of an export of the quickstart's stack.
fn exported_alerts(yaml: &str) -> String {
    let start = yaml.find("    alerts:").expect("alerts exported");
    yaml[start..]
        .lines()
        .enumerate()
        .take_while(|(i, line)| *i == 0 || line.starts_with("      "))
        .map(|(_, line)| line)
        .collect::<Vec<_>>()
        .join("\n")
}

/// `validate` on the quickstart with the alert's lines replaced by `lines`.
fn validate(lines: &str) -> crate::common::Outcome {
    Converge::offline()
        .env("CONVERGE_KEY_SECRET", "unused")
        .env("CONVERGE_OBS_TOKEN", "unused")
        .config(&with_alert(lines))
        .run(["validate"])
}

#[test]
fn between_without_threshold_max() {
    let run = validate("        thresholdType: between\n        interval: 5m\n");
    converge_snapshot!("alert_fields_threshold_max_missing", run);
}

#[test]
fn threshold_max_below_threshold() {
    let run = validate(
        "        thresholdType: not_between\n        thresholdMax: 50\n        interval: 5m\n",
    );
    converge_snapshot!("alert_fields_threshold_max_below", run);
}

#[test]
fn threshold_max_with_above() {
    let run =
        validate("        thresholdType: above\n        thresholdMax: 500\n        interval: 5m\n");
    converge_snapshot!("alert_fields_threshold_max_unused", run);
}

#[test]
fn an_offset_not_less_than_the_interval() {
    let run = validate(
        "        thresholdType: above\n        interval: 5m\n        scheduleOffsetMinutes: 5\n",
    );
    converge_snapshot!("alert_fields_offset_not_less", run);
}

#[test]
fn a_start_that_is_not_a_date_time() {
    let run = validate(
        "        thresholdType: above\n        interval: 5m\n        scheduleStartAt: tomorrow\n",
    );
    converge_snapshot!("alert_fields_start_not_a_date", run);
}

#[test]
fn zero_consecutive_windows_and_an_empty_note() {
    let run = validate(
        "        thresholdType: above\n        interval: 5m\n        numConsecutiveWindows: 0\n        note: \"\"\n",
    );
    converge_snapshot!("alert_fields_windows_and_note", run);
}

/// The quickstart's webhook channel.
const WEBHOOK: &str = "channel: { type: webhook, webhookId: 65f5e4a3b9e77c001a789012 }";

/// The quickstart with an email channel to `recipients` instead of its webhook.
fn with_email(recipients: &str) -> String {
    let text = quickstart();
    assert!(text.contains(WEBHOOK), "the quickstart has no {WEBHOOK:?}");
    text.replacen(
        WEBHOOK,
        &format!("channel: {{ type: email, emailRecipients: [{recipients}] }}"),
        1,
    )
}

/// The managed stack's email channel: applied, stored, an empty plan; its recipients changed
/// and shown; exported back.
#[test]
fn an_email_channel_on_the_managed_stack() {
    let sandbox = sandbox(Generation::Current);
    let workspace = Workspace::new();
    let config = workspace.write("converge.yaml", &with_email("oncall@example.com"));
    apply_then_empty(&sandbox, &workspace, &config);
    assert_eq!(
        live_alert(&sandbox)["channel"],
        json!({"type": "email", "emailRecipients": ["oncall@example.com"]})
    );
    let config = workspace.write(
        "converge.yaml",
        &with_email("oncall@example.com, api-team@example.com"),
    );
    let plan = binary(&sandbox, &workspace).run(["plan", &config, "--detailed-exitcode"]);
    converge_snapshot!("alert_fields_email_changed", plan);
    apply_then_empty(&sandbox, &workspace, &config);
    let export = binary(&sandbox, &workspace).run(["export", "--stack", ANALYTICS]);
    export.assert_exit(0);
    insta::assert_snapshot!(
        "alert_fields_email_exported",
        exported_alerts(&export.stdout)
    );
}

#[test]
fn an_email_channel_on_the_standalone_api() {
    let text = with_email("oncall@example.com").replacen(
        "    service: analytics\n    prune",
        "    api: observability\n    prune",
        1,
    );
    let run = Converge::offline()
        .env("CONVERGE_KEY_SECRET", "unused")
        .env("CONVERGE_OBS_TOKEN", "unused")
        .config(&text)
        .run(["validate"]);
    converge_snapshot!("alert_fields_email_on_standalone", run);
}

#[test]
fn an_email_channel_without_recipients() {
    let text = quickstart().replacen(WEBHOOK, "channel: { type: email }", 1);
    let run = Converge::offline()
        .env("CONVERGE_KEY_SECRET", "unused")
        .env("CONVERGE_OBS_TOKEN", "unused")
        .config(&text)
        .run(["validate"]);
    converge_snapshot!("alert_fields_email_without_recipients", run);
}
