//! Policy as code (`--policy`, the config's `policy:`): the team's Rego rules evaluated on the
//! config, the plan and the live state, their findings at the config line in every output, a
//! denied plan refused by `apply`, a saved plan refused when its rules changed after review,
//! and the rules' own errors at the `.rego` line.

mod builtin;
mod errors;

use serde_json::Value;

use crate::common::{self, Converge, Workspace, quickstart};

/// A team rule on services: more than 2 replicas is denied, at the `numReplicas` line.
pub(crate) const SCALING: &str = r#"package team.scaling

deny contains finding if {
	some object in input.config
	object.kind == "service"
	endswith(object.address, ".scaling")
	object.value.numReplicas > 2
	finding := {
		"msg": sprintf("%v replicas: more than 2 needs the platform team", [object.value.numReplicas]),
		"address": object.address,
		"field": "numReplicas",
	}
}
"#;

/// A team rule on alerts: one without a `note` is warned about, at its entry.
pub(crate) const NOTE: &str = r#"package team.alerts

warn contains {"msg": "an alert without a runbook note", "address": alert.address} if {
	some alert in input.config
	alert.kind == "alert"
	not alert.value.note
}
"#;

/// A workspace with the quickstart naming `policies/` (relative to the config file) and the
/// two team rules in it.
pub(crate) fn workspace(rules: &[(&str, &str)]) -> (Workspace, String) {
    let dir = Workspace::new();
    std::fs::create_dir_all(dir.path().join("conf/policies")).expect("a folder");
    for (name, text) in rules {
        dir.write(&format!("conf/policies/{name}"), text);
    }
    dir.write(
        "conf/config.yaml",
        &format!("{}\npolicy: policies\n", quickstart()),
    );
    // Relative to the workspace, where the runs start: places read `conf/config.yaml:18:20`.
    (dir, "conf/config.yaml".to_string())
}

#[test]
fn a_team_rule_is_reported_at_its_config_line_in_every_format() {
    let sandbox = common::contract_sandbox();
    let (dir, config) = workspace(&[("scaling.rego", SCALING), ("alerts.rego", NOTE)]);
    // From the workspace's root: `policy: policies` is found beside the config file.
    let converge = Converge::new(&sandbox).fast().cwd(&dir);
    let text = converge.run(["plan", &config]);
    text.assert_exit(1);
    // The deny at `numReplicas: 3` (line 18) and the warn at the alert's key, each with the
    // rule's file:line, then the plan fails.
    common::converge_snapshot!("policy_findings_text", text);

    let markdown = converge.run(["plan", &config, "--format", "markdown"]);
    markdown.assert_exit(1);
    let review: Vec<&str> = markdown
        .stdout
        .lines()
        .filter(|l| l.contains("policy::"))
        .collect();
    assert_eq!(
        review,
        [
            "- <code>policy::deny</code> (<code>conf/config.yaml:18:20</code>) 3 replicas: more \
             than 2 needs the platform team (service.analytics.scaling `numReplicas`)<br>help: \
             reported by rule `deny` at conf/policies/scaling.rego:3",
            "- <code>policy::warn</code> (<code>conf/config.yaml:74:7</code>) an alert without \
             a runbook note (alert.prod.api-errors)<br>help: reported by rule `warn` at \
             conf/policies/alerts.rego:3",
        ]
    );

    let json = converge.run(["plan", &config, "--format", "json"]);
    json.assert_exit(1);
    let plan: Value = serde_json::from_str(&json.stdout).expect("the plan is JSON");
    assert_eq!(
        plan["warnings"],
        serde_json::json!([
            {
                "code": "policy::deny",
                "place": "conf/config.yaml:18:20",
                "message": "3 replicas: more than 2 needs the platform team (service.analytics.scaling `numReplicas`)",
                "help": "reported by rule `deny` at conf/policies/scaling.rego:3",
            },
            {
                "code": "policy::warn",
                "place": "conf/config.yaml:74:7",
                "message": "an alert without a runbook note (alert.prod.api-errors)",
                "help": "reported by rule `warn` at conf/policies/alerts.rego:3",
            },
        ])
    );

    let annotated = converge.clone().github_actions().run(["plan", &config]);
    annotated.assert_exit(1);
    let annotations: Vec<&str> = annotated
        .stderr
        .lines()
        .filter(|l| l.starts_with("::"))
        .collect();
    assert_eq!(
        annotations,
        [
            "::error file=conf/config.yaml,line=18,col=20,title=policy%3A%3Adeny::3 replicas: \
             more than 2 needs the platform team%0Ahelp: reported by rule `deny` at \
             conf/policies/scaling.rego:3",
            "::warning file=conf/config.yaml,line=74,col=7,title=policy%3A%3Awarn::an alert \
             without a runbook note%0Ahelp: reported by rule `warn` at conf/policies/alerts.rego:3",
        ]
    );
}

#[test]
fn a_warning_alone_passes_the_plan_and_apply() {
    let sandbox = common::fast_sandbox();
    let (dir, config) = workspace(&[("alerts.rego", NOTE)]);
    let converge = Converge::new(&sandbox).fast().cwd(&dir);
    let planned = converge.run(["plan", &config, "--detailed-exitcode"]);
    planned.assert_exit(2);
    assert_eq!(
        planned.stderr.matches("policy::warn").count(),
        1,
        "{}",
        planned.stderr
    );
    let applied = converge.run(["apply", &config, "--yes"]);
    applied.assert_exit(0);
    assert!(!common::writes(&sandbox).is_empty());
}

#[test]
fn a_deny_stops_apply_before_any_write() {
    let sandbox = common::fast_sandbox();
    let (dir, config) = workspace(&[("scaling.rego", SCALING)]);
    let applied = Converge::new(&sandbox)
        .fast()
        .cwd(&dir)
        .run(["apply", &config, "--yes"]);
    applied.assert_exit(4);
    assert_eq!(common::writes(&sandbox), Vec::<String>::new());
    let last = applied.stderr.lines().last().unwrap_or_default();
    assert_eq!(
        last,
        "error: the policy denies the plan (1 finding(s) above); nothing was written"
    );
}

#[test]
fn a_saved_plan_is_applied_only_with_the_rules_it_was_reviewed_with() {
    let sandbox = common::fast_sandbox();
    let (dir, config) = workspace(&[("alerts.rego", NOTE)]);
    let converge = Converge::new(&sandbox).fast().cwd(&dir);
    converge
        .run(["plan", &config, "--out", "plan.json"])
        .assert_exit(0);
    let saved: Value = serde_json::from_str(&dir.read("plan.json")).expect("JSON");
    assert_eq!(
        saved["policy"]["paths"],
        serde_json::json!(["conf/policies"])
    );
    assert!(
        saved["plan"]["warnings"][0]["code"] == "policy::warn",
        "the findings it was reviewed with: {}",
        saved["plan"]["warnings"]
    );
    // A rule added after the review: the saved plan is refused, nothing written.
    dir.write("conf/policies/scaling.rego", SCALING);
    let refused = converge.run(["apply", "--plan", "plan.json", "--yes"]);
    refused.assert_exit(4);
    assert_eq!(common::writes(&sandbox), Vec::<String>::new());
    assert!(
        refused
            .stderr
            .contains("error: the policy changed since the plan was reviewed"),
        "{}",
        refused.stderr
    );
    // The rules as reviewed: evaluated again, and applied.
    std::fs::remove_file(dir.path().join("conf/policies/scaling.rego")).expect("removed");
    let applied = converge.run(["apply", "--plan", "plan.json", "--yes"]);
    applied.assert_exit(0);
    assert_eq!(applied.stderr.matches("policy::warn").count(), 1);
}

#[test]
fn the_input_a_rule_reads_validates_against_the_shipped_schema() {
    let sandbox = common::contract_sandbox();
    // A rule that hands the whole input back as its message.
    let echo = r#"package echo

warn contains {"msg": json.marshal(input), "address": "alert.prod.api-errors"}
"#;
    let (dir, config) = workspace(&[("echo.rego", echo)]);
    let planned = Converge::new(&sandbox)
        .fast()
        .cwd(&dir)
        .run(["plan", &config, "--format", "json"]);
    planned.assert_exit(0);
    let plan: Value = serde_json::from_str(&planned.stdout).expect("JSON");
    let message = plan["warnings"][0]["message"].as_str().expect("a message");
    let text = message
        .strip_suffix(" (alert.prod.api-errors)")
        .expect("the address follows");
    let input: Value = serde_json::from_str(text).expect("the input is JSON");
    let printed = Converge::offline().run(["schema", "--policy-input"]);
    printed.assert_exit(0);
    let shipped = std::fs::read_to_string(common::root().join("schema/policy-input.schema.json"))
        .expect("the schema is shipped");
    assert_eq!(printed.stdout, shipped);
    let schema: Value = serde_json::from_str(&shipped).expect("JSON");
    let validator = jsonschema::validator_for(&schema).expect("a valid schema");
    let errors: Vec<String> = validator
        .iter_errors(&input)
        .map(|e| format!("{}: {e}", e.instance_path()))
        .collect();
    assert_eq!(errors, Vec::<String>::new());
    // Every part is there: the config's objects with their place, the changes, the live reads.
    assert_eq!(input["version"], 1);
    let scaling = input["config"]
        .as_array()
        .and_then(|objects| {
            objects
                .iter()
                .find(|o| o["address"] == "service.analytics.scaling")
        })
        .expect("the service's scaling");
    assert_eq!(
        scaling["place"],
        serde_json::json!({"file": "conf/config.yaml", "line": 17, "column": 5})
    );
    assert_eq!(scaling["value"]["numReplicas"], 3);
    let changes = input["plan"]["changes"].as_array().expect("changes");
    assert_eq!(
        changes.len(),
        plan["changes"].as_array().map_or(0, Vec::len)
    );
    assert!(input["live"].as_array().is_some_and(|l| !l.is_empty()));
}
