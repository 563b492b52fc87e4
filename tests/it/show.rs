//! `converge show FILE`: a saved plan prints as `plan` printed it, in every format, and an apply
//! report prints as text, JSON or Markdown; neither reads the APIs.

use crate::common::{self, Converge, Outcome, Workspace, quickstart};

/// `converge show ARGS` in `dir` with no API settings in its environment at all.
fn show(dir: &Workspace, args: &[&str]) -> Outcome {
    Converge::offline()
        .env_clear()
        .cwd(dir)
        .run(["show"].iter().chain(args))
}

#[test]
fn a_saved_plan_shows_as_plan_printed_it_in_every_format_without_a_request() {
    let sandbox = common::contract_sandbox();
    let dir = Workspace::new();
    let path = dir.write("config.yaml", &quickstart());
    let converge = Converge::new(&sandbox).fast().cwd(&dir);
    let saved = converge.run(["plan", &path, "--out", "plan.json", "--detailed-exitcode"]);
    saved.assert_exit(2);
    for format in ["text", "json", "markdown"] {
        let planned = converge.run(["plan", &path, "--format", format]);
        planned.assert_exit(0);
        let requests = sandbox.request_log().len();
        let shown = show(&dir, &["plan.json", "--format", format]);
        shown.assert_exit(0);
        assert_eq!(shown.stdout, planned.stdout, "{format}");
        assert_eq!(sandbox.request_log().len(), requests, "show reads no API");
    }
    let shown = show(&dir, &["plan.json"]);
    shown.assert_exit(0);
    // The plan as `plan` printed it (3 to create, 4 to update), and where it was read from.
    common::converge_snapshot!("saved_plan_text", shown);
}

#[test]
fn an_apply_report_shows_as_text_json_and_markdown() {
    let sandbox = common::fast_sandbox();
    let dir = Workspace::new();
    let path = dir.write("config.yaml", &quickstart());
    let applied = Converge::new(&sandbox).fast().cwd(&dir).run([
        "apply",
        path.as_str(),
        "--yes",
        "--format",
        "json",
    ]);
    applied.assert_exit(0);
    dir.write("report.json", &applied.stdout);
    let requests = sandbox.request_log().len();

    let shown = show(&dir, &["report.json", "--format", "json"]);
    shown.assert_exit(0);
    assert_eq!(shown.stdout, applied.stdout, "the report as it was written");
    let shown = show(&dir, &["report.json"]);
    shown.assert_exit(0);
    // Every step as apply printed it when it ended, then the summary: 7 done, 0 failed, ...
    common::converge_snapshot!("report_text", shown);
    let shown = show(&dir, &["report.json", "--format", "markdown"]);
    shown.assert_exit(0);
    common::converge_snapshot!("report_markdown", shown);
    assert_eq!(sandbox.request_log().len(), requests, "show reads no API");
}

#[test]
fn a_file_that_is_neither_a_saved_plan_nor_a_report_exits_1_and_says_what_show_reads() {
    let dir = Workspace::new();
    dir.write("plan.json", "{\"format\": \"converge-plan/1\"}");
    dir.write("c.yaml", &quickstart());
    for (file, wanted) in [
        ("plan.json", "is a `converge-plan/1` document"),
        ("c.yaml", "is not JSON"),
        ("missing.json", "cannot read"),
    ] {
        let shown = show(&dir, &[file]);
        assert_eq!(shown.code, 1, "{file}: {}", shown.stderr);
        assert!(shown.stdout.is_empty(), "{}", shown.stdout);
        assert!(shown.stderr.contains(wanted), "{file}: {}", shown.stderr);
    }
    let shown = show(&dir, &["plan.json"]);
    assert!(
        shown.stderr.contains("converge plan --out"),
        "{}",
        shown.stderr
    );
}

#[test]
fn each_kind_of_failure_shows_its_own_code_above_the_message() {
    let dir = Workspace::new();
    dir.write("plan.json", "{\"format\": \"converge-plan/1\"}");
    dir.write("c.yaml", &quickstart());
    for (file, code) in [
        ("plan.json", "show::other-format"),
        ("c.yaml", "show::not-json"),
        ("missing.json", "io::read"),
    ] {
        let shown = show(&dir, &[file]);
        assert_eq!(shown.code, 1, "{file}: {}", shown.stderr);
        assert!(
            shown.stderr.lines().any(|line| line == code),
            "{file}: no `{code}` line in {}",
            shown.stderr
        );
        assert!(!shown.stderr.contains("converge::"), "{}", shown.stderr);
    }
}
