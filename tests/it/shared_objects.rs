//! `semantic::shared-object` (issue 40): two stacks of one config on one server that name the
//! same dashboard would each take it from the other. `validate` says so at both lines; for a
//! whole-stack template fanned out into a name without a parameter, it says to put one in.

use serde_json::Value;

use crate::common::{Converge, Workspace, quickstart, root};

/// `validate --format json` of `text`: the exit code and the shared-object diagnostics.
fn shared(text: &str) -> (i32, Vec<Value>) {
    let workspace = Workspace::new();
    let path = workspace.write("c.yaml", text);
    let run = Converge::offline().run(["validate", "--format", "json", &path]);
    let items = run.json();
    let found = items
        .as_array()
        .into_iter()
        .flatten()
        .filter(|d| d["code"] == "semantic::shared-object")
        .cloned()
        .collect();
    (run.code, found)
}

/// The README's stack-template example with `name: Health` instead of `Health (${env})`: each
/// instance after the first is an error at the template's name, with its instance line, and
/// the help says to put a parameter in the name.
#[test]
fn a_fanned_out_stack_with_a_fixed_dashboard_name_is_an_error() {
    let example = std::fs::read_to_string(root().join("examples/stack-templates.yaml")).unwrap();
    let text = example.replace("name: Health (${env})", "name: Health");
    assert_ne!(text, example, "the example changed: fix the test");
    let (code, found) = shared(&text);
    assert_eq!(code, 1);
    assert_eq!(found.len(), 2, "{found:#?}");
    let all = serde_json::to_string(&found).unwrap();
    // The help names the parameter the instances' keys are made from (issue 40).
    for needle in [
        "env[prod]",
        "env[staging]",
        "env[dev]",
        "put the parameter `env`",
        "Health (${env})",
    ] {
        assert!(all.contains(needle), "{needle} missing: {all}");
    }
    // Unchanged, the example validates without this error.
    assert_eq!(shared(&example).1.len(), 0);
}

/// Two hand-written stacks on the same service with a dashboard of one name: an error at the
/// second stack's name, pointing at the first's too.
#[test]
fn two_stacks_on_one_service_naming_one_dashboard_is_an_error() {
    let text = quickstart();
    let prod = text.split("\nstacks:\n").nth(1).unwrap();
    let second = prod.replacen("  prod:", "  prod-copy:", 1);
    let twice = format!("{text}{second}");
    let (code, found) = shared(&twice);
    assert_eq!(code, 1, "{found:#?}");
    assert_eq!(found.len(), 1, "{found:#?}");
    let all = serde_json::to_string(&found[0]).unwrap();
    assert!(
        all.contains("`prod`") && all.contains("`prod-copy`"),
        "{all}"
    );
    assert!(all.contains("API health"), "{all}");
    // Two names differing only in white space are one name to the server.
    let spaced = twice.replacen("name: API health", "name: API  health", 1);
    assert_eq!(shared(&spaced).1.len(), 1);
    assert_eq!(shared(&text).1.len(), 0);
}
