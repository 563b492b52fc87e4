//! An alert's `channels[]` (today's observability API) and the members of today's generation
//! against a stack of the contract's: through the binary against the sandbox, applied then an
//! empty plan, changed field by field, exported back, and each bad case at its line.

use converge::sandbox::{Quirk, SandboxHandle, SandboxOptions};
use serde_json::json;

use crate::common::{self, Converge, Workspace, converge_snapshot, quickstart};

/// The quickstart's webhook channel.
const WEBHOOK: &str = "channel: { type: webhook, webhookId: 65f5e4a3b9e77c001a789012 }";

/// The quickstart's stack on the standalone observability API, its alert notifying `channels`
/// (the lines after `channels:`, or a whole replacement of the `channel:` line).
fn on_observability(channel_lines: &str) -> String {
    let text = quickstart();
    assert!(text.contains(WEBHOOK), "the quickstart has no {WEBHOOK:?}");
    text.replacen(
        "    service: analytics\n    prune",
        "    api: observability\n    prune",
        1,
    )
    .replacen(WEBHOOK, channel_lines, 1)
}

/// `text` with its stack declared of today's generation: its tiles are written as `config`
/// (the sandbox's observability API answers `channels` for such a stack).
fn today(text: &str) -> String {
    text.replacen(
        "    api: observability\n",
        "    api: observability\n    generation: config\n",
        1,
    )
}

/// Two webhooks.
const TWO: &str = "channels:\n          - { type: webhook, webhookId: 65f5e4a3b9e77c001a789012 }\n          - { type: webhook, webhookId: 65f5e4a3b9e77c001a789013 }";

/// The second of them changed.
const SECOND_CHANGED: &str = "channels:\n          - { type: webhook, webhookId: 65f5e4a3b9e77c001a789012 }\n          - { type: webhook, webhookId: 65f5e4a3b9e77c001a789099 }";

fn sandbox(quirks: Vec<Quirk>) -> SandboxHandle {
    common::sandbox(SandboxOptions {
        rate_limit: false,
        quirks,
        ..SandboxOptions::default()
    })
}

fn binary<'s>(sandbox: &'s SandboxHandle, workspace: &Workspace) -> Converge<'s> {
    Converge::new(sandbox).rate_limit("1000/1s").cwd(workspace)
}

/// The webhook ids of the quickstart's alert as the sandbox stores it: `channel`'s, then
/// `channels`'.
fn live_channels(sandbox: &SandboxHandle) -> serde_json::Value {
    let alerts = common::Client::new(sandbox)
        .obs("GET", "/alerts", None)
        .data()
        .as_array()
        .cloned()
        .unwrap_or_default();
    let alert = alerts
        .into_iter()
        .find(|a| a["name"] == "API errors")
        .expect("the alert exists");
    let ids = |list: &serde_json::Value| {
        list.as_array()
            .into_iter()
            .flatten()
            .map(|c| c["webhookId"].clone())
            .collect::<Vec<_>>()
    };
    json!({"channel": alert["channel"]["webhookId"], "channels": ids(&alert["channels"])})
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

#[test]
fn channels_apply_plan_empty_change_field_by_field_and_export() {
    let sandbox = sandbox(vec![Quirk::NewerGeneration]);
    let workspace = Workspace::new();
    let config = workspace.write("converge.yaml", &today(&on_observability(TWO)));
    apply_then_empty(&sandbox, &workspace, &config);
    assert_eq!(
        live_channels(&sandbox),
        json!({"channel": "65f5e4a3b9e77c001a789012",
               "channels": ["65f5e4a3b9e77c001a789012", "65f5e4a3b9e77c001a789013"]})
    );

    let config = workspace.write("converge.yaml", &today(&on_observability(SECOND_CHANGED)));
    let plan = binary(&sandbox, &workspace).run(["plan", &config, "--detailed-exitcode"]);
    converge_snapshot!("alert_channels_second_changed", plan);
    apply_then_empty(&sandbox, &workspace, &config);
    assert_eq!(
        live_channels(&sandbox),
        json!({"channel": "65f5e4a3b9e77c001a789012",
               "channels": ["65f5e4a3b9e77c001a789012", "65f5e4a3b9e77c001a789099"]})
    );

    // Export writes both back; its output plans empty.
    let export = binary(&sandbox, &workspace).run(["export", "--observability"]);
    export.assert_exit(0);
    let start = export.stdout.find("    alerts:").expect("alerts exported");
    insta::assert_snapshot!("alert_channels_exported", &export.stdout[start..]);
    let exported = workspace.write("exported.yaml", &export.stdout);
    binary(&sandbox, &workspace)
        .run(["plan", &exported, "--detailed-exitcode"])
        .assert_exit(0);
}

/// The server answers `channels` for an alert written with one `channel` (and `channel` for
/// one written with `channels`): neither is a difference, and a config's `channel` alone keeps
/// the live alert's further channels (a PUT with `channel` alone would drop them).
#[test]
fn one_form_answered_for_the_other_is_no_difference() {
    let sandbox = sandbox(vec![Quirk::NewerGeneration]);
    let workspace = Workspace::new();
    let one = workspace.write("converge.yaml", &today(&on_observability(WEBHOOK)));
    apply_then_empty(&sandbox, &workspace, &one);
    assert_eq!(
        live_channels(&sandbox),
        json!({"channel": "65f5e4a3b9e77c001a789012", "channels": ["65f5e4a3b9e77c001a789012"]})
    );
    let listed = "channels:\n          - { type: webhook, webhookId: 65f5e4a3b9e77c001a789012 }";
    let config = workspace.write("converge.yaml", &today(&on_observability(listed)));
    binary(&sandbox, &workspace)
        .run(["plan", &config, "--detailed-exitcode"])
        .assert_exit(0);

    // Two live channels; the config names the first as `channel` and changes the threshold.
    let config = workspace.write("converge.yaml", &today(&on_observability(TWO)));
    apply_then_empty(&sandbox, &workspace, &config);
    let text = today(&on_observability(WEBHOOK)).replacen("threshold: 100", "threshold: 150", 1);
    let config = workspace.write("converge.yaml", &text);
    apply_then_empty(&sandbox, &workspace, &config);
    assert_eq!(
        live_channels(&sandbox),
        json!({"channel": "65f5e4a3b9e77c001a789012",
               "channels": ["65f5e4a3b9e77c001a789012", "65f5e4a3b9e77c001a789013"]})
    );
}

/// `validate` on `text` (no server).
fn validate(text: &str) -> crate::common::Outcome {
    Converge::offline()
        .env("CONVERGE_KEY_SECRET", "unused")
        .env("CONVERGE_OBS_TOKEN", "unused")
        .config(text)
        .run(["validate"])
}

#[test]
fn a_duplicate_channel() {
    let twice = "channels:\n          - { type: webhook, webhookId: 65f5e4a3b9e77c001a789012 }\n          - { type: webhook, webhookId: 65f5e4a3b9e77c001a789012 }";
    converge_snapshot!(
        "alert_channels_duplicate",
        validate(&on_observability(twice))
    );
}

#[test]
fn a_channel_that_is_not_the_first_of_channels() {
    let both =
        format!("channel: {{ type: webhook, webhookId: 65f5e4a3b9e77c001a789013 }}\n        {TWO}");
    converge_snapshot!(
        "alert_channels_mismatch",
        validate(&on_observability(&both))
    );
}

#[test]
fn more_than_ten_channels() {
    let items: String = (10..21)
        .map(|i| format!("\n          - {{ type: webhook, webhookId: 65f5e4a3b9e77c001a7890{i} }}"))
        .collect();
    let text = on_observability(&format!("channels:{items}"));
    converge_snapshot!("alert_channels_eleven", validate(&text));
}

#[test]
fn channels_on_the_managed_stack() {
    let text = quickstart().replacen(WEBHOOK, TWO, 1);
    converge_snapshot!("alert_channels_managed", validate(&text));
}

/// A stack declared `generation: series` takes none of today's alert members: each is an
/// error at its line at validate time.
#[test]
fn todays_members_on_a_stack_declared_of_the_contract() {
    let text = on_observability(TWO)
        .replacen(
            "    api: observability\n",
            "    api: observability\n    generation: series\n",
            1,
        )
        .replacen(
            "        interval: 5m\n",
            "        interval: 5m\n        note: See the runbook\n",
            1,
        );
    converge_snapshot!("alert_channels_declared_series", validate(&text));
}

/// Against a server answering the contract's shape (its tiles read back as `series`), the
/// same is an error at plan time, before anything is written.
#[test]
fn todays_members_against_a_server_of_the_contract() {
    let sandbox = sandbox(Vec::new());
    let workspace = Workspace::new();
    let text = on_observability(TWO).replacen(
        "        interval: 5m\n",
        "        interval: 5m\n        numConsecutiveWindows: 3\n",
        1,
    );
    // A tile first, so the stack's GETs show which shape it speaks.
    let seeded = on_observability(WEBHOOK);
    let first = workspace.write("converge.yaml", &seeded);
    apply_then_empty(&sandbox, &workspace, &first);
    let config = workspace.write("converge.yaml", &text);
    let plan = binary(&sandbox, &workspace).run(["plan", &config]);
    converge_snapshot!("alert_channels_contract_server", plan);
    let writes = sandbox
        .request_log()
        .iter()
        .filter(|e| e.method != "GET")
        .count();
    let out = binary(&sandbox, &workspace).run(["apply", &config, "--yes"]);
    out.assert_exit(1);
    assert_eq!(
        sandbox
            .request_log()
            .iter()
            .filter(|e| e.method != "GET")
            .count(),
        writes,
        "nothing is written"
    );
}
