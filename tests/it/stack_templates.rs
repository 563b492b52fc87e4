//! Whole-stack templates through the binary against the sandbox: a stack fragment (a dashboard
//! and an alert on its tile) fanned out over environments creates each stack's objects; adding
//! an environment creates one set; removing one needs `--allow-destroy` and deletes exactly
//! that set; reordering plans nothing; a template change updates every instance in one plan and
//! an override only its own; a problem inside an instance names both lines.

use converge::sandbox::SandboxHandle;
use serde_json::Value;

use crate::apply::{binary, plans_changes};
use crate::common;
use crate::common::{Converge, Workspace, alerts, dashboards, quickstart};
use crate::templates::plan_json;

const TEMPLATE: &str = "templates:
  env-stack:
    parameters:
      env: string
      threshold: { type: number, default: 100 }
    stack:
      service: analytics
      prune: true
      dashboards:
        health:
          name: Health (${env})
          tags: [\"env-${env}\"]
          tiles:
            - name: Errors
              x: 0
              y: 0
              w: 6
              h: 4
              series:
                - type: time
                  source: Logs
                  aggFn: count
                  where: \"level:error AND env:${env}\"
                  whereLanguage: lucene
      alerts:
        errors:
          name: Errors in ${env}
          dashboard: health
          tile: Errors
          threshold: ${threshold}
          thresholdType: above
          interval: 5m
          channel: { type: webhook, webhookId: 65f5e4a3b9e77c001a789012 }
          message: Errors are up in ${env}
";

/// The quickstart's services with one stack entry, `env`, fanned out over `instances`.
fn config(instances: &[&str], template: &str) -> String {
    let text = quickstart();
    let services = text.split("\nstacks:\n").next().expect("the quickstart");
    let mut out =
        format!("{services}\n{template}\nstacks:\n  env:\n    template: env-stack\n    forEach:\n");
    for instance in instances {
        out.push_str(&format!("      - {instance}\n"));
    }
    out
}

const THREE: [&str; 3] = [
    "{ key: prod, env: prod, threshold: 250 }",
    "{ key: staging, env: staging }",
    "{ key: dev, env: dev }",
];

/// `(address, action)` of every change that is not a no-op, sorted.
fn changes(plan: &Value) -> Vec<(String, String)> {
    let mut out = crate::templates::changes(plan);
    out.sort();
    out
}

fn pairs(list: &[(&str, &str)]) -> Vec<(String, String)> {
    list.iter()
        .map(|(a, b)| (a.to_string(), b.to_string()))
        .collect()
}

/// The live dashboards an `env[...]` instance owns, by name, with their tags.
fn instance_dashboards(sandbox: &SandboxHandle) -> Vec<(String, Vec<String>)> {
    let mut out: Vec<(String, Vec<String>)> = dashboards(sandbox)
        .iter()
        .filter(|d| {
            d["tags"]
                .as_array()
                .into_iter()
                .flatten()
                .any(|t| t.as_str().is_some_and(|t| t.starts_with("converge:env[")))
        })
        .map(|d| {
            let mut tags: Vec<String> = d["tags"]
                .as_array()
                .into_iter()
                .flatten()
                .filter_map(|t| t.as_str().map(str::to_string))
                // The marker of the run that made it (how a lost answer is recovered).
                .filter(|t| !t.starts_with("converge-run:"))
                .collect();
            tags.sort();
            (d["name"].as_str().unwrap_or_default().to_string(), tags)
        })
        .collect();
    out.sort();
    out
}

/// `(name, threshold, message)` of the live alerts named `Errors in ...`, sorted.
fn instance_alerts(sandbox: &SandboxHandle) -> Vec<(String, f64, String)> {
    let mut out: Vec<(String, f64, String)> = alerts(sandbox)
        .iter()
        .filter(|a| {
            a["name"]
                .as_str()
                .is_some_and(|n| n.starts_with("Errors in "))
        })
        .map(|a| {
            (
                a["name"].as_str().unwrap_or_default().to_string(),
                a["threshold"].as_f64().unwrap_or_default(),
                a["message"].as_str().unwrap_or_default().to_string(),
            )
        })
        .collect();
    out.sort_by(|a, b| a.0.cmp(&b.0));
    out
}

fn alert_id(sandbox: &SandboxHandle, name: &str) -> Value {
    alerts(sandbox)
        .into_iter()
        .find(|a| a["name"] == name)
        .map(|a| a["id"].clone())
        .unwrap_or_else(|| panic!("no alert {name:?}"))
}

#[test]
fn a_stack_fan_out_creates_each_environment_and_follows_the_list() {
    let sandbox = common::fast_sandbox();
    let workspace = Workspace::new();
    let converge = binary(&sandbox, &workspace);
    let path = workspace.write("converge.yaml", &config(&THREE, TEMPLATE));

    let plan = converge.run(["plan", &path]);
    plan.assert_exit(0);
    common::converge_snapshot!("stack_three_instances_plan", plan);

    converge.run(["apply", &path, "--yes"]).assert_exit(0);
    assert_eq!(
        instance_dashboards(&sandbox),
        ["dev", "prod", "staging"].map(|env| (
            format!("Health ({env})"),
            vec![format!("converge:env[{env}]"), format!("env-{env}")]
        ))
    );
    assert_eq!(
        instance_alerts(&sandbox),
        [("dev", 100.0), ("prod", 250.0), ("staging", 100.0)].map(|(env, threshold)| (
            format!("Errors in {env}"),
            threshold,
            format!("Errors are up in {env}")
        ))
    );
    assert!(!plans_changes(&sandbox, &workspace, &path), "applied");

    // Reordered: the keys did not change, so nothing does.
    let path = workspace.write(
        "converge.yaml",
        &config(&[THREE[2], THREE[0], THREE[1]], TEMPLATE),
    );
    assert!(!plans_changes(&sandbox, &workspace, &path), "reordering");

    // A fourth environment: one set, its dashboard and its alert.
    let four = [THREE[0], THREE[1], THREE[2], "{ key: qa, env: qa }"];
    let path = workspace.write("converge.yaml", &config(&four, TEMPLATE));
    assert_eq!(
        changes(&plan_json(&converge, &path)),
        pairs(&[
            ("alert.env[qa].errors", "create"),
            ("dashboard.env[qa].health", "create"),
        ])
    );
    converge.run(["apply", &path, "--yes"]).assert_exit(0);
    assert_eq!(instance_dashboards(&sandbox).len(), 4);
    assert_eq!(instance_alerts(&sandbox).len(), 4);

    // `staging` removed: a destroy of exactly its set, at its instance's address, refused
    // without --allow-destroy.
    let path = workspace.write(
        "converge.yaml",
        &config(&[THREE[0], THREE[2], four[3]], TEMPLATE),
    );
    let plan = converge.run(["plan", &path]);
    plan.assert_exit(0);
    common::converge_snapshot!("stack_instance_removed_plan", plan);
    assert_eq!(
        changes(&plan_json(&converge, &path)),
        pairs(&[
            ("alert.env[staging][\"Errors in staging\"]", "delete"),
            ("dashboard.env[staging][\"Health (staging)\"]", "delete"),
        ])
    );
    converge.run(["apply", &path, "--yes"]).assert_exit(4);
    assert_eq!(instance_dashboards(&sandbox).len(), 4, "nothing deleted");
    assert_eq!(instance_alerts(&sandbox).len(), 4, "nothing deleted");
    converge
        .run(["apply", &path, "--yes", "--allow-destroy"])
        .assert_exit(0);
    assert_eq!(
        instance_dashboards(&sandbox)
            .into_iter()
            .map(|(name, _)| name)
            .collect::<Vec<_>>(),
        ["Health (dev)", "Health (prod)", "Health (qa)"]
    );
    assert_eq!(
        instance_alerts(&sandbox)
            .into_iter()
            .map(|(name, ..)| name)
            .collect::<Vec<_>>(),
        ["Errors in dev", "Errors in prod", "Errors in qa"]
    );
    assert!(!plans_changes(&sandbox, &workspace, &path), "applied");
}

#[test]
fn a_stack_template_change_updates_every_instance_and_an_override_only_its_own() {
    let sandbox = common::fast_sandbox();
    let workspace = Workspace::new();
    let converge = binary(&sandbox, &workspace);
    let path = workspace.write("converge.yaml", &config(&THREE, TEMPLATE));
    converge.run(["apply", &path, "--yes"]).assert_exit(0);
    let ids: Vec<Value> = ["prod", "staging", "dev"]
        .map(|env| alert_id(&sandbox, &format!("Errors in {env}")))
        .to_vec();

    let changed = TEMPLATE.replace("interval: 5m", "interval: 15m");
    let path = workspace.write("converge.yaml", &config(&THREE, &changed));
    assert_eq!(
        changes(&plan_json(&converge, &path)),
        pairs(&[
            ("alert.env[dev].errors", "update"),
            ("alert.env[prod].errors", "update"),
            ("alert.env[staging].errors", "update"),
        ])
    );
    converge.run(["apply", &path, "--yes"]).assert_exit(0);
    for (env, id) in ["prod", "staging", "dev"].iter().zip(&ids) {
        assert_eq!(
            &alert_id(&sandbox, &format!("Errors in {env}")),
            id,
            "updated in place"
        );
    }
    assert!(
        alerts(&sandbox)
            .iter()
            .filter(|a| a["name"]
                .as_str()
                .is_some_and(|n| n.starts_with("Errors in ")))
            .all(|a| a["interval"] == "15m")
    );

    // An override reaches into the fragment: only its instance changes.
    let overridden = [
        THREE[0],
        "{ key: staging, env: staging, overrides: { alerts: { errors: { message: Staging pages nobody } } } }",
        THREE[2],
    ];
    let path = workspace.write("converge.yaml", &config(&overridden, &changed));
    assert_eq!(
        changes(&plan_json(&converge, &path)),
        pairs(&[("alert.env[staging].errors", "update")])
    );
    converge.run(["apply", &path, "--yes"]).assert_exit(0);
    let messages: Vec<String> = instance_alerts(&sandbox)
        .into_iter()
        .map(|(_, _, message)| message)
        .collect();
    assert_eq!(
        messages,
        [
            "Errors are up in dev",
            "Errors are up in prod",
            "Staging pages nobody"
        ]
    );
}

#[test]
fn validate_expand_prints_each_stack_instance() {
    let text = config(&THREE[..2], TEMPLATE);
    let run = Converge::offline()
        .config(&text)
        .run(["validate", "--expand"]);
    common::converge_snapshot!("stack_expanded", run);
}

#[test]
fn bad_stack_instances_are_errors_at_both_lines() {
    let cases: [(&str, String); 4] = [
        (
            "invalid_alert",
            config(
                &["{ key: prod, env: prod }"],
                &TEMPLATE.replace("interval: 5m", "interval: ${env}"),
            ),
        ),
        (
            "wrong_kind",
            config(&["{ key: prod, env: prod }"], TEMPLATE).replace(
                "stacks:\n  env:\n",
                "stacks:\n  env:\n    service: analytics\n    alerts:\n      x:\n        template: env-stack\n        forEach: [{ key: a, env: a }]\n  other:\n",
            ),
        ),
        ("duplicate_key", config(&[THREE[0], THREE[0]], TEMPLATE)),
        ("missing_parameter", config(&["{ key: prod }"], TEMPLATE)),
    ];
    for (name, text) in cases {
        let run = Converge::offline().config(&text).run(["validate"]);
        common::converge_snapshot!(format!("stack_bad_{name}"), run);
    }
}

/// The example passes the schema as an editor reads it and expands to one stack per
/// environment, each with its dashboard and both alerts, the override on its instance only.
#[test]
fn the_stack_example_passes_the_schema_and_expands() {
    let config = crate::templates::example("stack-templates.yaml");
    assert_eq!(
        config.stacks.keys().collect::<Vec<_>>(),
        ["env[prod]", "env[staging]", "env[dev]"]
    );
    for (key, stack) in &config.stacks {
        assert_eq!(
            stack.dashboards.keys().collect::<Vec<_>>(),
            ["health"],
            "{key}"
        );
        assert_eq!(
            stack.alerts.keys().collect::<Vec<_>>(),
            ["errors", "silence"],
            "{key}"
        );
    }
    let interval = |stack: &str| {
        config.stacks[stack].alerts["silence"]
            .interval
            .value
            .clone()
    };
    assert_eq!(
        ["env[prod]", "env[staging]", "env[dev]"].map(interval),
        ["15m", "15m", "1h"]
    );
    assert_eq!(
        config.stacks["env[prod]"].alerts["errors"].threshold.value,
        250.0
    );
}

/// A renamed stack instance key keeps its objects: what its stack names (or named, with
/// `renamedFrom` in its overrides) is its own, whatever ownership tag it carries (the next
/// write tags it anew), so nothing is deleted and a rename keeps the ids.
#[test]
fn a_renamed_stack_instance_keeps_its_objects() {
    let sandbox = common::fast_sandbox();
    let workspace = Workspace::new();
    let converge = binary(&sandbox, &workspace);
    let path = workspace.write("converge.yaml", &config(&THREE, TEMPLATE));
    converge.run(["apply", &path, "--yes"]).assert_exit(0);
    let id = alert_id(&sandbox, "Errors in dev");

    // The key alone: the names stay, so the dashboard only moves to the new key's tag.
    let renamed = [THREE[0], THREE[1], "{ key: development, env: dev }"];
    let path = workspace.write("converge.yaml", &config(&renamed, TEMPLATE));
    assert_eq!(
        changes(&plan_json(&converge, &path)),
        pairs(&[("dashboard.env[development].health", "update")])
    );
    converge.run(["apply", &path, "--yes"]).assert_exit(0);
    assert!(!plans_changes(&sandbox, &workspace, &path), "applied");
    assert_eq!(alert_id(&sandbox, "Errors in dev"), id);

    // The names too: renamed in place, saying what they were called.
    let renamed = [
        THREE[0],
        THREE[1],
        "{ key: development, env: development, overrides: { dashboards: { health: { renamedFrom: [Health (dev)] } }, alerts: { errors: { renamedFrom: [Errors in dev] } } } }",
    ];
    let path = workspace.write("converge.yaml", &config(&renamed, TEMPLATE));
    assert_eq!(
        changes(&plan_json(&converge, &path)),
        pairs(&[
            ("alert.env[development].errors", "update"),
            ("dashboard.env[development].health", "update"),
        ])
    );
    converge.run(["apply", &path, "--yes"]).assert_exit(0);
    assert_eq!(alert_id(&sandbox, "Errors in development"), id);
    assert_eq!(instance_dashboards(&sandbox).len(), 3);
}

/// A saved plan of a fan-out (an instance removed, a template value changed in the others)
/// applies as reviewed: every object a whole plan must name (issue 27's check that a saved plan
/// names each owned object of the stacks it reads, and each dashboard and alert of the config)
/// is named, in instance stacks as in plain ones, and the next plan is empty.
#[test]
fn a_saved_plan_of_a_fan_out_applies_as_reviewed() {
    let sandbox = common::fast_sandbox();
    let workspace = Workspace::new();
    let converge = binary(&sandbox, &workspace);
    let before = workspace.write("before.yaml", &config(&THREE, TEMPLATE));
    converge
        .run(["apply", before.as_str(), "--yes"])
        .assert_exit(0);
    let after = workspace.write(
        "after.yaml",
        &config(
            &THREE[..2],
            &TEMPLATE.replace("interval: 5m", "interval: 15m"),
        ),
    );
    let saved = crate::apply::save_plan(&converge, &workspace, &after);
    converge
        .run([
            "apply",
            "--plan",
            saved.as_str(),
            after.as_str(),
            "--yes",
            "--allow-destroy",
        ])
        .assert_exit(0);
    assert!(!plans_changes(&sandbox, &workspace, &after));
    let names: Vec<String> = instance_dashboards(&sandbox)
        .into_iter()
        .map(|(name, _)| name)
        .collect();
    assert_eq!(names, ["Health (prod)", "Health (staging)"]);
}
