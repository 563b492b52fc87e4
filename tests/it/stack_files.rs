//! A stack may span files (issue 40, part 3): one file per service or environment, each
//! adding dashboards and alerts to the same stack. Its `dashboards`, `alerts` and `templates`
//! merge key by key, each key still defined once; a key or a setting written in two files is
//! `config::duplicate-key` at both places.

use serde_json::Value;

use crate::common::{Converge, Workspace, quickstart};

/// The quickstart cut in two at its stack's `alerts:`: the base (services, the stack's
/// settings and its `api-health` dashboard) and the rest of the stack.
fn halves() -> (String, String) {
    let text = quickstart();
    let at = text.find("    alerts:").unwrap();
    (text[..at].to_string(), text[at..].to_string())
}

/// A second dashboard of `prod` (a copy of `api-health` named `API copy`).
fn copy_dashboard() -> String {
    let text = quickstart();
    let start = text.find("      api-health:").unwrap();
    let end = text.find("    alerts:").unwrap();
    text[start..end]
        .replace("      api-health:", "      api-copy:")
        .replace("name: API health", "name: API copy")
}

/// The stack split across two files plans exactly as the same stack in one file, applies, and
/// reads back with an empty plan.
#[test]
fn a_stack_split_across_two_files_plans_and_applies_as_one() {
    let sandbox = crate::common::fast_sandbox();
    let (base, alerts) = halves();
    let whole = Workspace::new();
    let one = whole.write(
        "converge.yaml",
        &format!("{base}{}{alerts}", copy_dashboard()),
    );
    let split = Workspace::new();
    split.write("10-base.yaml", &base);
    split.write(
        "20-prod.yaml",
        &format!(
            "stacks:\n  prod:\n    dashboards:\n{}{alerts}",
            copy_dashboard()
        ),
    );
    let dir = split.path().to_string_lossy().into_owned();
    let converge = Converge::new(&sandbox).fast();
    let planned_one = converge.run(["plan", one.as_str()]);
    let planned_split = converge.run(["plan", dir.as_str()]);
    assert_eq!(planned_split.code, 0, "{planned_split:?}");
    assert_eq!(planned_split.stdout, planned_one.stdout);
    assert!(
        planned_split.stdout.contains("dashboard.prod.api-copy"),
        "{planned_split:?}"
    );
    assert!(
        planned_split.stdout.contains("alert.prod.api-errors"),
        "{planned_split:?}"
    );
    converge
        .run(["apply", dir.as_str(), "--yes"])
        .assert_exit(0);
    converge
        .run(["plan", dir.as_str(), "--detailed-exitcode"])
        .assert_exit(0);
}

/// The `config::duplicate-key` errors of `validate --format json` for `files` written in one
/// directory.
fn duplicates(files: &[(&str, &str)]) -> Vec<Value> {
    let workspace = Workspace::new();
    for (name, text) in files {
        workspace.write(name, text);
    }
    let dir = workspace.path().to_string_lossy().into_owned();
    let outcome = Converge::offline().run(["validate", "--format", "json", dir.as_str()]);
    assert_eq!(outcome.code, 1, "{outcome:?}");
    let items = outcome.json();
    items
        .as_array()
        .unwrap()
        .iter()
        .filter(|d| d["code"] == "config::duplicate-key")
        .cloned()
        .collect()
}

/// Where a diagnostic (or its first related place) is: file name, line.
fn place(item: &Value) -> (String, Value) {
    let file = item["file"].as_str().unwrap_or_default();
    let name = file.rsplit('/').next().unwrap_or_default().to_string();
    (name, item["line"].clone())
}

/// A dashboard key, or a stack setting, written in two files of one stack is an error at the
/// second place, with the first shown.
#[test]
fn a_key_of_a_split_stack_written_twice_names_both_places() {
    let (base, alerts) = halves();
    let again = format!(
        "stacks:\n  prod:\n    prune: true\n    dashboards:\n{}{alerts}",
        copy_dashboard().replace("      api-copy:", "      api-health:")
    );
    let found = duplicates(&[("10-base.yaml", &base), ("20-prod.yaml", &again)]);
    let messages: Vec<&str> = found.iter().filter_map(|d| d["message"].as_str()).collect();
    assert_eq!(
        messages,
        vec![
            "`stacks.prod.prune` is defined twice",
            "`stacks.prod.dashboards.api-health` is defined twice"
        ],
        "{found:#?}"
    );
    let line_of = |text: &str, key: &str| {
        Value::from(
            text.lines()
                .position(|l| l.trim_start().starts_with(key))
                .unwrap()
                + 1,
        )
    };
    let dashboard = &found[1];
    assert_eq!(
        place(dashboard),
        ("20-prod.yaml".to_string(), line_of(&again, "api-health:"))
    );
    assert_eq!(
        place(&dashboard["related"][0]),
        ("10-base.yaml".to_string(), line_of(&base, "api-health:"))
    );
    assert!(
        found[0]["help"]
            .as_str()
            .is_some_and(|h| h.contains("keep `prune:` in one file")),
        "{found:#?}"
    );
}

/// `drift --write` of a stack split across files edits the file that defines the drifted key:
/// an alert's threshold changed live is written into the file holding the alert, the other
/// file left as it is.
#[test]
fn drift_writes_a_split_stack_back_into_the_file_of_the_key() {
    let sandbox = crate::common::fast_sandbox();
    let (base, alerts) = halves();
    let split = Workspace::new();
    split.write("10-base.yaml", &base);
    let prod = format!("stacks:\n  prod:\n{alerts}");
    split.write("20-prod.yaml", &prod);
    let dir = split.path().to_string_lossy().into_owned();
    let converge = Converge::new(&sandbox).fast();
    converge
        .run(["apply", dir.as_str(), "--yes"])
        .assert_exit(0);
    let client = crate::common::Client::new(&sandbox);
    let alert = crate::common::alerts(&sandbox)
        .into_iter()
        .find(|a| a["name"] == "API errors")
        .unwrap();
    let mut edited = alert.clone();
    if let Some(members) = edited.as_object_mut() {
        for member in ["id", "createdAt", "updatedAt", "state", "teamId"] {
            members.remove(member);
        }
    }
    edited["threshold"] = Value::from(150);
    let path = format!(
        "/services/{}/stack/alerts/{}",
        crate::common::ANALYTICS,
        alert["id"].as_str().unwrap()
    );
    client.cloud("PUT", &path, Some(edited)).result();
    converge
        .run(["drift", "--write", dir.as_str()])
        .assert_exit(2);
    assert_eq!(split.read("10-base.yaml"), base);
    assert_eq!(
        split.read("20-prod.yaml"),
        prod.replace("threshold: 100", "threshold: 150")
    );
    converge
        .run(["plan", dir.as_str(), "--detailed-exitcode"])
        .assert_exit(0);
}

/// A whole-stack template's entry (`template:`) is written in one file: a second file adding
/// to it is an error at both entries.
#[test]
fn a_whole_stack_template_entry_written_in_two_files_is_an_error() {
    let text = std::fs::read_to_string(crate::common::root().join("examples/stack-templates.yaml"))
        .unwrap();
    let more = "stacks:\n  env:\n    prune: true\n";
    let found = duplicates(&[("10-env.yaml", &text), ("20-env.yaml", more)]);
    assert_eq!(found.len(), 1, "{found:#?}");
    assert!(
        found[0]["message"].as_str().is_some_and(|m| m.starts_with(
            "`stacks.env` is defined twice; a whole-stack template's entry (`template:`) is \
             written in one file"
        )),
        "{found:#?}"
    );
    assert_eq!(place(&found[0]).0, "20-env.yaml");
    assert_eq!(place(&found[0]["related"][0]).0, "10-env.yaml");
}
