//! Templates through the binary against the sandbox: an alert template fanned out over
//! services creates one alert per instance with its values substituted; adding an instance
//! creates one, removing one is a destroy that needs `--allow-destroy`, reordering plans
//! nothing, a template change updates every instance in one plan and an override only its own;
//! a problem inside an instance names the template line and the instance line.

use serde_json::Value;

use crate::apply::{binary, plans_changes};
use crate::common;
use crate::common::{Converge, Workspace, alerts, quickstart};

const TEMPLATE: &str = "templates:
  service-errors:
    parameters:
      service: string
      threshold: { type: number, default: 100 }
    alert:
      name: ${service} errors
      dashboard: api-health
      tile: Requests
      threshold: ${threshold}
      thresholdType: above
      interval: 5m
      channel: { type: webhook, webhookId: 65f5e4a3b9e77c001a789012 }
      message: Errors are up on ${service}
";

/// The quickstart with pruning on and a `svc-errors` entry fanned out over `instances`.
fn config(instances: &[&str], template: &str) -> String {
    let text = quickstart().replace("    prune: false\n", "    prune: true\n");
    assert!(text.contains("prune: true"));
    let mut text = text.trim_end().to_string();
    text.push_str("\n      svc-errors:\n        template: service-errors\n        forEach:\n");
    for instance in instances {
        text.push_str(&format!("          - {instance}\n"));
    }
    text.push_str(template);
    text
}

const THREE: [&str; 3] = [
    "{ key: checkout, service: checkout }",
    "{ key: search, service: search, threshold: 250 }",
    "{ key: billing, service: billing }",
];

pub fn plan_json(converge: &Converge, config: &str) -> Value {
    let run = converge.run(["plan", config, "--format", "json"]);
    run.assert_exit(0);
    serde_json::from_str(&run.stdout).expect("JSON")
}

/// `(address, action)` of every change that is not a no-op.
pub fn changes(plan: &Value) -> Vec<(String, String)> {
    plan["changes"]
        .as_array()
        .into_iter()
        .flatten()
        .filter(|c| c["action"] != "no-op")
        .map(|c| {
            (
                c["address"].as_str().unwrap_or_default().to_string(),
                c["action"].as_str().unwrap_or_default().to_string(),
            )
        })
        .collect()
}

fn alert_named<'a>(all: &'a [Value], name: &str) -> &'a Value {
    all.iter()
        .find(|a| a["name"] == name)
        .unwrap_or_else(|| panic!("no alert {name:?} in {all:#?}"))
}

#[test]
fn a_fan_out_creates_one_alert_per_instance_and_follows_the_list() {
    let sandbox = common::contract_sandbox();
    let workspace = Workspace::new();
    let converge = binary(&sandbox, &workspace);
    let path = workspace.write("converge.yaml", &config(&THREE, TEMPLATE));
    let path = path.as_str();

    let plan = converge.run(["plan", path]);
    plan.assert_exit(0);
    let mut snapshots = common::snapshots();
    common::mask_ages(&mut snapshots);
    common::converge_snapshot!(snapshots, "three_instances_plan", plan);

    converge.run(["apply", path, "--yes"]).assert_exit(0);
    let made = alerts(&sandbox);
    for (name, threshold) in [
        ("checkout errors", 100.0),
        ("search errors", 250.0),
        ("billing errors", 100.0),
    ] {
        let alert = alert_named(&made, name);
        assert_eq!(alert["threshold"].as_f64(), Some(threshold), "{alert:#}");
        let service = name.trim_end_matches(" errors");
        assert_eq!(alert["message"], format!("Errors are up on {service}"));
    }
    assert!(!plans_changes(&sandbox, &workspace, path), "applied");

    // Reordered: the keys did not change, so nothing does.
    let reordered = [THREE[2], THREE[0], THREE[1]];
    let path = workspace.write("converge.yaml", &config(&reordered, TEMPLATE));
    assert!(!plans_changes(&sandbox, &workspace, &path), "reordering");

    // A fourth instance: one create.
    let four = [THREE[0], THREE[1], THREE[2], "{ key: auth, service: auth }"];
    let path = workspace.write("converge.yaml", &config(&four, TEMPLATE));
    assert_eq!(
        changes(&plan_json(&converge, &path)),
        [(
            "alert.prod.svc-errors[auth]".to_string(),
            "create".to_string()
        )]
    );
    converge.run(["apply", &path, "--yes"]).assert_exit(0);
    assert_eq!(alerts(&sandbox).len(), made.len() + 1);

    // One instance removed: a destroy of exactly that alert, refused without --allow-destroy.
    let path = workspace.write(
        "converge.yaml",
        &config(&[THREE[0], THREE[1], four[3]], TEMPLATE),
    );
    let plan = plan_json(&converge, &path);
    let removed = changes(&plan);
    assert_eq!(removed.len(), 1, "{removed:?}");
    assert_eq!(removed[0].1, "delete");
    let refused = converge.run(["apply", &path, "--yes"]);
    refused.assert_exit(4);
    assert_eq!(alerts(&sandbox).len(), made.len() + 1, "nothing deleted");
    let billing = alert_named(&alerts(&sandbox), "billing errors")["id"].clone();
    converge
        .run(["apply", &path, "--yes", "--allow-destroy"])
        .assert_exit(0);
    let left = alerts(&sandbox);
    assert_eq!(left.len(), made.len());
    assert!(left.iter().all(|a| a["id"] != billing), "billing deleted");
    assert!(!plans_changes(&sandbox, &workspace, &path), "applied");
}

/// A removed instance's delete is shown at the instance's address, its key read back from the
/// live name through the template's `name` (`${service} errors`, every key its service), and
/// the delete applies at that address.
#[test]
fn a_removed_instance_is_deleted_at_its_address() {
    let sandbox = common::fast_sandbox();
    let workspace = Workspace::new();
    let converge = binary(&sandbox, &workspace);
    let path = workspace.write("converge.yaml", &config(&THREE, TEMPLATE));
    converge.run(["apply", &path, "--yes"]).assert_exit(0);

    let path = workspace.write("converge.yaml", &config(&THREE[..2], TEMPLATE));
    let plan = converge.run(["plan", &path, "--only", "alert.prod.svc-errors[*"]);
    plan.assert_exit(0);
    common::converge_snapshot!("removed_instance_plan", plan);
    assert_eq!(
        changes(&plan_json(&converge, &path)),
        [(
            "alert.prod.svc-errors[billing]".to_string(),
            "delete".to_string()
        )]
    );
    converge
        .run(["apply", &path, "--yes", "--allow-destroy"])
        .assert_exit(0);
    assert!(
        alerts(&sandbox)
            .iter()
            .all(|a| a["name"] != "billing errors"),
        "deleted"
    );

    // A name the template cannot make keeps its live name's address.
    let path = workspace.write(
        "converge.yaml",
        &config(
            &THREE[..1],
            &TEMPLATE.replace("${service} errors", "${service} failures"),
        ),
    );
    let mut deleted: Vec<String> = changes(&plan_json(&converge, &path))
        .into_iter()
        .filter(|(_, action)| action == "delete")
        .map(|(address, _)| address)
        .collect();
    deleted.sort();
    assert_eq!(
        deleted,
        [
            "alert.prod[\"checkout errors\"]",
            "alert.prod[\"search errors\"]"
        ]
    );
}

#[test]
fn a_template_change_updates_every_instance_and_an_override_only_its_own() {
    let sandbox = common::fast_sandbox();
    let workspace = Workspace::new();
    let converge = binary(&sandbox, &workspace);
    let path = workspace.write("converge.yaml", &config(&THREE, TEMPLATE));
    converge.run(["apply", &path, "--yes"]).assert_exit(0);
    let ids: Vec<Value> = ["checkout errors", "search errors", "billing errors"]
        .iter()
        .map(|name| alert_named(&alerts(&sandbox), name)["id"].clone())
        .collect();

    let changed = TEMPLATE.replace("interval: 5m", "interval: 15m");
    let path = workspace.write("converge.yaml", &config(&THREE, &changed));
    let mut updated = changes(&plan_json(&converge, &path));
    updated.sort();
    assert_eq!(
        updated,
        ["billing", "checkout", "search"]
            .map(|k| (format!("alert.prod.svc-errors[{k}]"), "update".to_string()))
    );
    converge.run(["apply", &path, "--yes"]).assert_exit(0);
    let after = alerts(&sandbox);
    for (name, id) in ["checkout errors", "search errors", "billing errors"]
        .iter()
        .zip(&ids)
    {
        let alert = alert_named(&after, name);
        assert_eq!(&alert["id"], id, "updated in place");
        assert_eq!(alert["interval"], "15m");
    }

    let overridden = [
        THREE[0],
        "{ key: search, service: search, threshold: 250, overrides: { message: Search pages the on-call } }",
        THREE[2],
    ];
    let path = workspace.write("converge.yaml", &config(&overridden, &changed));
    assert_eq!(
        changes(&plan_json(&converge, &path)),
        [(
            "alert.prod.svc-errors[search]".to_string(),
            "update".to_string()
        )]
    );
    converge.run(["apply", &path, "--yes"]).assert_exit(0);
    let after = alerts(&sandbox);
    assert_eq!(
        alert_named(&after, "search errors")["message"],
        "Search pages the on-call"
    );
    assert_eq!(
        alert_named(&after, "checkout errors")["message"],
        "Errors are up on checkout"
    );
}

#[test]
fn a_renamed_key_with_renamed_from_keeps_the_alert() {
    let sandbox = common::fast_sandbox();
    let workspace = Workspace::new();
    let converge = binary(&sandbox, &workspace);
    let path = workspace.write("converge.yaml", &config(&THREE, TEMPLATE));
    converge.run(["apply", &path, "--yes"]).assert_exit(0);
    let id = alert_named(&alerts(&sandbox), "billing errors")["id"].clone();

    let renamed = [
        THREE[0],
        THREE[1],
        "{ key: payments, service: payments, renamedFrom: [billing errors] }",
    ];
    let path = workspace.write("converge.yaml", &config(&renamed, TEMPLATE));
    let plan = plan_json(&converge, &path);
    assert_eq!(
        changes(&plan),
        [(
            "alert.prod.svc-errors[payments]".to_string(),
            "update".to_string()
        )]
    );
    converge.run(["apply", &path, "--yes"]).assert_exit(0);
    assert_eq!(alert_named(&alerts(&sandbox), "payments errors")["id"], id);
}

#[test]
fn bad_templates_and_instances_are_errors_at_both_lines() {
    let cases: [(&str, String); 6] = [
        (
            "cycle",
            config(&THREE[..1], TEMPLATE).replace(
                "    alert:\n      name: ${service} errors\n",
                "    alert:\n      template: other\n      name: ${service} errors\n",
            ) + "  other:\n    alert:\n      template: service-errors\n",
        ),
        (
            "wrong_type",
            config(
                &["{ key: checkout, service: checkout, threshold: high }"],
                TEMPLATE,
            ),
        ),
        (
            "duplicate_key",
            config(
                &[
                    "{ key: checkout, service: checkout }",
                    "{ key: checkout, service: search }",
                ],
                TEMPLATE,
            ),
        ),
        (
            "for_each_not_a_list_of_maps",
            config(&["checkout"], TEMPLATE),
        ),
        (
            "invalid_alert",
            config(
                &["{ key: checkout, service: checkout, threshold: 5 }"],
                &TEMPLATE.replace("interval: 5m", "interval: ${service}"),
            ),
        ),
        (
            "unknown_parameter",
            config(
                &["{ key: checkout, service: checkout, treshold: 5 }"],
                TEMPLATE,
            ),
        ),
    ];
    for (name, text) in cases {
        let converge = Converge::offline().config(&text);
        let text_run = converge.run(["validate"]);
        common::converge_snapshot!(format!("bad_{name}"), text_run);
    }
    // JSON and GitHub annotations carry the instance too.
    let text = config(
        &["{ key: checkout, service: checkout, threshold: 5 }"],
        &TEMPLATE.replace("interval: 5m", "interval: ${service}"),
    );
    let json = Converge::offline()
        .config(&text)
        .run(["validate", "--format", "json"]);
    common::converge_snapshot!("bad_invalid_alert_json", json);
    let github = Converge::offline()
        .config(&text)
        .env("GITHUB_ACTIONS", "true")
        .run(["validate"]);
    common::converge_snapshot!("bad_invalid_alert_github", github);
}

/// `${env:...}` in a template or in a parameter's value is interpolated per instance after the
/// expansion; a secret's variable passed as a parameter is refused at the template's line and
/// the instance's, and its value is never printed.
#[test]
fn environment_references_and_secrets_go_through_substitution() {
    let sandbox = common::fast_sandbox();
    let workspace = Workspace::new();
    let converge = binary(&sandbox, &workspace).env("TEAM", "payments");
    let template = TEMPLATE.replace(
        "message: Errors are up on ${service}",
        "message: \"${service} errors page ${env:TEAM}\"",
    );
    let path = workspace.write(
        "converge.yaml",
        &config(
            &[
                "{ key: checkout, service: checkout }",
                "{ key: search, service: \"${env:TEAM}-search\" }",
            ],
            &template,
        ),
    );
    converge.run(["apply", &path, "--yes"]).assert_exit(0);
    let made = alerts(&sandbox);
    assert_eq!(
        alert_named(&made, "checkout errors")["message"],
        "checkout errors page payments"
    );
    assert_eq!(
        alert_named(&made, "payments-search errors")["message"],
        "payments-search errors page payments"
    );

    let path = workspace.write(
        "converge.yaml",
        &config(
            &["{ key: checkout, service: \"${env:CONVERGE_OBS_TOKEN}\" }"],
            TEMPLATE,
        ),
    );
    let secret = "s3cr3t-token-value";
    let run = converge
        .clone()
        .env("CONVERGE_OBS_TOKEN", secret)
        .run(["plan", &path]);
    common::converge_snapshot!("secret_through_a_parameter", run);
    assert!(
        !run.stdout.contains(secret) && !run.stderr.contains(secret),
        "{run:?}"
    );
}

#[test]
fn validate_expand_prints_each_instance() {
    let text = config(&THREE, TEMPLATE);
    let run = Converge::offline()
        .config(&text)
        .run(["validate", "--expand"]);
    common::converge_snapshot!("expanded", run);
}

/// The example passes the shipped schema and loads into the alerts and dashboards it promises.
#[test]
fn the_example_passes_the_schema_and_expands() {
    let config = example("templates.yaml");
    let stack = &config.stacks["shared"];
    assert_eq!(
        stack.dashboards.keys().collect::<Vec<_>>(),
        ["health[prod]", "health[staging]"]
    );
    assert_eq!(
        stack.alerts.keys().collect::<Vec<_>>(),
        [
            "api-errors[checkout]",
            "api-errors[search]",
            "api-errors[billing]"
        ]
    );
}

/// `examples/<name>`, checked against the shipped schema as an editor reads it (templates
/// unexpanded), then loaded (panics on a schema error or a diagnostic that stops the load).
pub fn example(name: &str) -> converge::config::model::Config {
    let path = common::root().join("examples").join(name);
    let text = std::fs::read_to_string(&path).expect("the example");
    let schema: Value = serde_json::from_str(converge::config::SCHEMA).expect("JSON");
    let validator = jsonschema::draft202012::new(&schema).expect("a schema");
    let options = serde_saphyr::options! { strict_booleans: true };
    let mut instance: Value = serde_saphyr::from_str_with_options(&text, options).expect("YAML");
    // `${env:NAME:-default}` as its default, as the check reads it; the token stays a reference.
    fn defaults(value: &mut Value) {
        match value {
            Value::String(s) if !s.starts_with("${env:CONVERGE_OBS_TOKEN") => {
                if let Ok(e) = converge::config::interpolate::expand(s, &|_| None) {
                    *s = e.text;
                }
            }
            Value::Array(items) => items.iter_mut().for_each(defaults),
            Value::Object(map) => map.values_mut().for_each(defaults),
            _ => {}
        }
    }
    defaults(&mut instance);
    let errors: Vec<String> = validator
        .iter_errors(&instance)
        .map(|e| e.to_string())
        .collect();
    assert!(errors.is_empty(), "{errors:?}");

    let loaded = converge::config::load_texts(
        &[(path, text)],
        converge::config::LoadMode::Offline,
        &|_| None,
    );
    loaded
        .config
        .unwrap_or_else(|| panic!("{:?}", loaded.diagnostics))
}
