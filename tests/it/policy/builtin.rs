//! The built-in rules (`--policy builtin:NAME`): each fires on a config that breaks it, at the
//! line of what it names, and stays quiet on one that keeps it.

use serde_json::Value;

use crate::common::{self, Converge, Workspace, quickstart};
use crate::real::{self, Target};

/// `(exit code, the policy findings of the JSON plan as `code place message`)` of a plan of
/// `config` with the built-in rule `name`.
fn findings(
    converge: &Converge<'_>,
    dir: &Workspace,
    config: &str,
    name: &str,
) -> (i32, Vec<String>) {
    dir.write("config.yaml", config);
    let planned = converge.clone().cwd(dir).run([
        "plan",
        "config.yaml",
        "--format",
        "json",
        "--policy",
        &format!("builtin:{name}"),
    ]);
    let plan: Value = serde_json::from_str(&planned.stdout)
        .unwrap_or_else(|e| panic!("{e}: {}\n{}", planned.stdout, planned.stderr));
    let shown = plan["warnings"]
        .as_array()
        .into_iter()
        .flatten()
        .filter(|w| {
            w["code"]
                .as_str()
                .is_some_and(|c| c.starts_with("policy::"))
        })
        .map(|w| {
            format!(
                "{} {} {}",
                w["code"].as_str().unwrap_or_default(),
                w["place"].as_str().unwrap_or("-"),
                w["message"].as_str().unwrap_or_default()
            )
        })
        .collect();
    (planned.code, shown)
}

/// The quickstart with `from` replaced by `to` (which must be there).
fn quickstart_with(from: &str, to: &str) -> String {
    let text = quickstart();
    assert!(text.contains(from), "the quickstart writes {from:?}");
    text.replacen(from, to, 1)
}

#[test]
fn alert_has_channel_denies_an_alert_without_a_note() {
    let sandbox = common::fast_sandbox();
    let converge = Converge::new(&sandbox).fast();
    let dir = Workspace::new();
    let fired = findings(&converge, &dir, &quickstart(), "alert-has-channel");
    assert_eq!(
        fired,
        (
            1,
            vec![
                "policy::deny config.yaml:74:7 the alert has no `note` (what to do when it fires) \
                 (alert.prod.api-errors)"
                    .to_string()
            ]
        )
    );
    let noted = quickstart_with(
        "        interval: 5m\n",
        "        interval: 5m\n        note: Page the API team\n",
    );
    assert_eq!(
        findings(&converge, &dir, &noted, "alert-has-channel"),
        (0, vec![])
    );
}

#[test]
fn pipe_destroy_denies_a_plan_that_deletes_a_pipe() {
    let sandbox = common::fast_sandbox();
    let converge = Converge::new(&sandbox).fast();
    let dir = Workspace::new();
    assert_eq!(
        findings(&converge, &dir, &quickstart(), "pipe-destroy"),
        (0, vec![])
    );
    let absent = quickstart_with(
        "        scaling: { concurrency: 8 }\n",
        "        absent: true\n",
    );
    let (code, shown) = findings(&converge, &dir, &absent, "pipe-destroy");
    assert_eq!(code, 1);
    assert_eq!(
        shown,
        ["policy::deny config.yaml:28:7 the plan would delete the pipe (pipe.analytics.events)"]
    );
}

#[test]
fn scaling_bound_denies_replicas_above_the_bound_at_their_line() {
    let sandbox = common::fast_sandbox();
    let converge = Converge::new(&sandbox).fast();
    let dir = Workspace::new();
    assert_eq!(
        findings(&converge, &dir, &quickstart(), "scaling-bound"),
        (0, vec![])
    );
    let large = quickstart_with("numReplicas: 3", "numReplicas: 14");
    assert_eq!(
        findings(&converge, &dir, &large, "scaling-bound"),
        (
            1,
            vec![
                "policy::deny config.yaml:18:20 numReplicas is 14, above the bound of 12 replicas \
                 (service.analytics.scaling `numReplicas`)"
                    .to_string()
            ]
        )
    );
}

#[test]
fn dashboard_owner_warns_of_a_dashboard_without_an_owner_tag() {
    let sandbox = common::fast_sandbox();
    let converge = Converge::new(&sandbox).fast();
    let dir = Workspace::new();
    assert_eq!(
        findings(&converge, &dir, &quickstart(), "dashboard-owner"),
        (
            0,
            vec![
                "policy::warn config.yaml:46:15 the dashboard has no `owner:<team>` tag \
                 (dashboard.prod.api-health `tags`)"
                    .to_string()
            ]
        )
    );
    let owned = quickstart_with("tags: [team-api]", "tags: [team-api, \"owner:api\"]");
    assert_eq!(
        findings(&converge, &dir, &owned, "dashboard-owner"),
        (0, vec![])
    );
}

#[test]
fn webhook_used_warns_of_a_webhook_no_alert_notifies() {
    let target = Target::sandbox();
    let converge = target
        .converge()
        .env("ONCALL_URL", "https://hooks.example.com/T0-policy");
    let dir = Workspace::new();
    let stack = |alert: &str| {
        real::config(&format!(
            "webhooks:\n  oncall:\n    name: On call\n    service: generic\n    url: \
             ${{env:ONCALL_URL}}\ndashboards:\n  api:\n    name: API\n    tiles:\n      - name: \
             Requests\n        x: 0\n        y: 0\n        w: 12\n        h: 4\n        series:\n          \
             - type: time\n            source: Logs\n            aggFn: count\n{alert}"
        ))
    };
    let notified = stack(
        "alerts:\n  errors:\n    name: API errors\n    dashboard: api\n    tile: Requests\n    \
         threshold: 100\n    thresholdType: above\n    interval: 5m\n    channel: { webhook: oncall }\n",
    );
    assert_eq!(
        findings(&converge, &dir, &notified, "webhook-used"),
        (0, vec![])
    );
    assert_eq!(
        findings(&converge, &dir, &stack(""), "webhook-used"),
        (
            0,
            vec![
                "policy::warn config.yaml:15:7 no alert of the stack notifies this webhook \
                 (webhook.platform.oncall)"
                    .to_string()
            ]
        )
    );
}

#[test]
fn an_unknown_builtin_is_an_error_naming_those_there_are() {
    let planned = Converge::offline().run([
        "plan",
        "--sandbox",
        &common::quickstart_path(),
        "--policy",
        "builtin:nope",
    ]);
    planned.assert_exit(1);
    common::converge_snapshot!("policy_unknown_builtin", planned);
}
