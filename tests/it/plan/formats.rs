//! The output formats (snapshots on the demo seed), `--only`, `--detailed-exitcode`, `--out`
//! and `-v`.

use serde_json::Value;

use super::snapshots;
use crate::common::{self, Converge, Outcome, converge_snapshot, quickstart};

/// Runs the quickstart plan with `args` against a fresh demo sandbox.
fn quickstart_plan(args: &[&str]) -> Outcome {
    let sandbox = common::contract_sandbox();
    let out = Converge::new(&sandbox)
        .fast()
        .config(&quickstart())
        .run(["plan"].iter().chain(args));
    out.assert_exit(0);
    out
}

#[test]
fn text_snapshot() {
    let out = quickstart_plan(&[]);
    converge_snapshot!(snapshots(), "plan_text", out);
}

#[test]
fn json_snapshot() {
    let out = quickstart_plan(&["--format", "json"]);
    let parsed: Value = serde_json::from_str(&out.stdout).expect("JSON on stdout");
    assert_eq!(parsed["format"], "converge-plan/1");
    converge_snapshot!(snapshots(), "plan_json", out);
}

#[test]
fn markdown_snapshot() {
    let out = quickstart_plan(&["--format", "markdown"]);
    assert!(out.stdout.chars().count() <= 65_000);
    converge_snapshot!(snapshots(), "plan_markdown", out);
}

/// The same inputs give the same bytes in every format.
#[test]
fn output_is_deterministic() {
    for format in ["text", "json", "markdown"] {
        let first = quickstart_plan(&["--format", format]).stdout;
        let second = quickstart_plan(&["--format", format]).stdout;
        assert_eq!(first, second, "{format}");
    }
}

#[test]
fn only_keeps_matching_addresses() {
    let out = quickstart_plan(&["--format", "json", "--only", "pipe.*"]);
    let plan: Value = serde_json::from_str(&out.stdout).expect("JSON");
    let addresses: Vec<&str> = plan["changes"]
        .as_array()
        .expect("changes")
        .iter()
        .filter_map(|c| c["address"].as_str())
        .collect();
    assert_eq!(
        addresses,
        [
            "pipe.analytics.orders.scaling",
            "pipe.analytics.events.scaling",
            "pipe.analytics.clicks.scaling"
        ]
    );
    assert_eq!(plan["summary"]["update"], 3);
    assert_eq!(plan["summary"]["create"], 0);

    // Repeated globs add up; `?` matches one character.
    let out = quickstart_plan(&[
        "--only",
        "dashboard.prod.*",
        "--only",
        "alert.pro?.api-errors",
    ]);
    assert!(
        out.stdout
            .starts_with("Plan: 2 to create, 0 to update, 0 to delete"),
        "{}",
        out.stdout
    );
    assert!(!out.stdout.contains("service.analytics"), "{}", out.stdout);

    // A glob that matches nothing is an error, not an empty plan: see `globs.rs`.
}

#[test]
fn detailed_exitcode_is_2_with_changes_0_without_and_1_on_error() {
    let sandbox = common::fast_sandbox();
    let converge = Converge::new(&sandbox).fast().config(&quickstart());
    converge.run(["plan", "--detailed-exitcode"]).assert_exit(2);
    // Without the flag, changes still exit 0.
    assert_eq!(converge.run(["plan"]).code, 0);
    let out = converge.run(["plan", "--detailed-exitcode", "--only", "check.*"]);
    assert_eq!(
        out.code, 0,
        "only the backup check, no change: {}",
        out.stderr
    );
    let out = converge
        .clone()
        .env("CONVERGE_KEY_SECRET", "not-the-secret")
        .run(["plan", "--detailed-exitcode"]);
    out.assert_exit(1);
    assert!(out.stdout.is_empty(), "{}", out.stdout);
}

#[test]
fn out_saves_the_plan_with_references_not_values() {
    let sandbox = common::fast_sandbox();
    let converge = Converge::new(&sandbox).fast().config(&quickstart());
    let saved = converge.dir().join("plan.json");
    let out = converge.run(["plan", "--out", saved.to_str().unwrap()]);
    out.assert_exit(0);
    assert!(out.stderr.contains("saved the plan to"), "{}", out.stderr);
    assert!(out.stdout.starts_with("Plan: "), "{}", out.stdout);
    let text = std::fs::read_to_string(&saved).expect("the plan file");
    let plan: Value = serde_json::from_str(&text).expect("JSON");
    assert!(text.contains("${env:CONVERGE_KEY_SECRET}"), "{text}");
    assert!(text.contains("${env:CONVERGE_OBS_TOKEN}"), "{text}");
    for secret in ["sandbox-secret", "sandbox-token"] {
        assert!(!text.contains(secret), "{secret} in the saved plan");
    }
    assert_eq!(plan["format"], "converge-saved-plan/1");
    assert_eq!(plan["cloud"]["keySecret"], "${env:CONVERGE_KEY_SECRET}");
    assert_eq!(plan["observability"]["token"], "${env:CONVERGE_OBS_TOKEN}");
    // The steps, each with the desired values it sends and the fingerprint of what was read.
    let steps = plan["plan"]["steps"].as_array().expect("steps");
    assert_eq!(steps.len(), 7, "{text}");
    let scaling = &steps[0];
    assert_eq!(scaling["address"], "service.analytics.scaling");
    assert_eq!(scaling["operation"]["body"]["numReplicas"], 3.0);
    let fingerprint = scaling["fingerprint"].as_str().expect("a fingerprint");
    assert_eq!(
        plan["plan"]["changes"][0]["fingerprint"].as_str(),
        Some(fingerprint)
    );
    let alert = &steps[6];
    assert_eq!(alert["address"], "alert.prod.api-errors");
    assert_eq!(alert["dependsOn"], serde_json::json!([5]));
    assert!(!converge.dir().join("plan.json.tmp").exists());
}

#[test]
fn verbose_logs_one_line_per_request_on_stderr_only() {
    let sandbox = common::fast_sandbox();
    let converge = Converge::new(&sandbox).fast().config(&quickstart());
    let out = converge.run(["-v", "plan", "--format", "json"]);
    out.assert_exit(0);
    serde_json::from_str::<Value>(&out.stdout).expect("stdout is only the JSON plan");
    let request_lines: Vec<&str> = out
        .stderr
        .lines()
        .filter(|l| l.starts_with("GET "))
        .collect();
    assert_eq!(
        request_lines.len(),
        sandbox.request_log().len(),
        "{}",
        out.stderr
    );
    assert_eq!(request_lines.len(), out.requests.len(), "{}", out.stderr);
    assert_eq!(request_lines.len(), 6, "{}", out.stderr);
    assert!(
        request_lines.iter().all(|l| l.contains(" 200 ")),
        "{}",
        out.stderr
    );
    // Without -v, stderr has no request lines.
    let out = converge.run(["plan"]);
    assert!(!out.stderr.contains("GET "), "{}", out.stderr);
}

/// A no-op change keeps its live and desired values where an output shows them (`--format
/// json`, a plan saved with `--out`), though a text plan drops them as it plans (issue 26: they
/// were most of a large plan's memory).
#[test]
fn no_op_changes_keep_their_values_in_json_and_in_a_saved_plan() {
    let sandbox = common::contract_sandbox();
    let converge = Converge::new(&sandbox).fast().config(&quickstart());
    converge.run(["apply", "--yes"]).assert_exit(0);
    let json = converge.run(["plan", "--format", "json"]);
    json.assert_exit(0);
    let saved = converge.dir().join("plan.json");
    let saved_arg = saved.to_string_lossy().to_string();
    converge.run(["plan", "--out", &saved_arg]).assert_exit(0);
    let text = std::fs::read_to_string(&saved).expect("the saved plan");
    let saved: Value = serde_json::from_str(&text).expect("a saved plan is JSON");
    for (output, changes) in [
        ("--format json", &json.json()["changes"]),
        ("--out", &saved["plan"]["changes"]),
    ] {
        let no_ops: Vec<&Value> = changes
            .as_array()
            .expect("changes")
            .iter()
            .filter(|c| c["action"] == "no-op")
            .collect();
        assert!(!no_ops.is_empty(), "{output}: no no-op change");
        for change in no_ops {
            assert!(
                change["before"].is_object() && change["after"].is_object(),
                "{output}: {change}"
            );
        }
    }
}
