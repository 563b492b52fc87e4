//! Renaming a pipe declared without `id:` (issue 40, part 2): the plan shows a rename of the
//! live pipe, never a second create, with `renamedFrom:` and without it (a hinted rename, a
//! warning at the name); the apply keeps one pipe.

use crate::common::{ANALYTICS, Client, Converge, words};
use crate::pipes::analytics_with;

fn clickstream(name: &str, extra: &str) -> String {
    analytics_with(&format!(
        "      clickstream:\n        name: {name}\n{extra}        source:\n          kinesis: {{ streamName: clicks, region: us-east-1, format: JSONEachRow, iteratorType: LATEST, authentication: IAM_ROLE, iamRole: 'arn:aws:iam::1:role/r' }}\n        destination:\n          database: default\n          table: clickstream\n          managedTable: false\n          columns: [{{ name: url, type: String }}]\n        fieldMappings: [{{ sourceField: url, destinationField: url }}]\n"
    ))
}

/// The names of the live pipes that write into `clickstream`.
fn writers(sandbox: &converge::sandbox::SandboxHandle) -> Vec<String> {
    let pipes = Client::new(sandbox)
        .cloud("GET", &format!("/services/{ANALYTICS}/pipes"), None)
        .result();
    pipes
        .as_array()
        .unwrap()
        .iter()
        .filter(|p| p["destination"]["table"] == "clickstream")
        .filter_map(|p| p["name"].as_str().map(str::to_string))
        .collect::<Vec<_>>()
}

fn renamed_keeps_one_pipe(extra: &str, warned: bool) {
    let sandbox = crate::common::fast_sandbox();
    Converge::new(&sandbox)
        .fast()
        .config(&clickstream("clickstream from kinesis", ""))
        .run(["apply", "--yes"])
        .assert_exit(0);
    let renamed = Converge::new(&sandbox)
        .fast()
        .config(&clickstream("clickstream (kinesis)", extra));
    let plan = renamed.run(["plan"]);
    assert_eq!(plan.code, 0, "{plan:?}");
    let shown = words(&plan.stdout);
    assert!(
        shown.contains(r#"~ name: "clickstream from kinesis" -> "clickstream (kinesis)""#),
        "{plan:?}"
    );
    assert!(!shown.contains("+ pipe."), "{plan:?}");
    assert_eq!(
        words(&plan.stderr).contains("plan::pipe-rename-hinted"),
        warned,
        "{plan:?}"
    );
    let applied = renamed.run(["apply", "--yes"]);
    assert_eq!(applied.code, 0, "{applied:?}");
    assert!(
        applied.writes().iter().all(|w| !w.starts_with("POST")),
        "{applied:?}"
    );
    assert_eq!(writers(&sandbox), vec!["clickstream (kinesis)".to_string()]);
    renamed.run(["plan", "--detailed-exitcode"]).assert_exit(0);
}

#[test]
fn a_pipe_renamed_with_renamed_from_is_renamed_in_place() {
    renamed_keeps_one_pipe("        renamedFrom: [clickstream from kinesis]\n", false);
}

#[test]
fn a_pipe_renamed_without_id_is_a_hinted_rename_not_a_second_pipe() {
    renamed_keeps_one_pipe("", true);
}

/// `validate` holds a pipe's `renamedFrom:` to one pipe, as a dashboard's: not its own name,
/// not another pipe's name, not a name another pipe lists too (each at its line).
#[test]
fn validate_says_a_pipe_rename_that_names_no_one_pipe() {
    let config = format!(
        "{}{}",
        clickstream("clicks", "        renamedFrom: [clicks, views]\n"),
        clickstream("views", "")
            .split("    pipes:\n")
            .nth(1)
            .unwrap_or_default()
            .replace("      clickstream:", "      views:")
    );
    let outcome = Converge::offline().config(&config).run(["validate"]);
    assert_eq!(outcome.code, 1, "{outcome:?}");
    let said = words(&outcome.stderr);
    assert!(
        said.contains("`renamedFrom` lists `clicks`, the pipe's own name"),
        "{outcome:?}"
    );
    assert!(
        said.contains("`renamedFrom` of pipe `clicks` lists `views`, the name of another pipe in service `analytics`"),
        "{outcome:?}"
    );
}

/// `drift` flags a pipe renamed in the config (with `renamedFrom:` and as a hinted rename) as
/// the config's pipe whose name differs, never as another pipe the config does not name.
#[test]
fn drift_shows_a_renamed_pipe_as_the_configs_not_as_unmanaged() {
    let sandbox = crate::common::fast_sandbox();
    Converge::new(&sandbox)
        .fast()
        .config(&clickstream("clickstream from kinesis", ""))
        .run(["apply", "--yes"])
        .assert_exit(0);
    for extra in ["        renamedFrom: [clickstream from kinesis]\n", ""] {
        let drift = Converge::new(&sandbox)
            .fast()
            .config(&clickstream("clickstream (kinesis)", extra))
            .run(["drift"]);
        assert_eq!(drift.code, 2, "{drift:?}");
        let shown = words(&drift.stdout);
        assert!(
            shown.contains(
                r#"name: config "clickstream (kinesis)", live "clickstream from kinesis""#
            ),
            "{drift:?}"
        );
        assert!(
            !shown.contains(r#"pipe.analytics["clickstream from kinesis"]"#),
            "{drift:?}"
        );
    }
}
