//! `converge show FILE`: a saved plan prints as `plan` printed it, in every format, and an apply
//! report prints as text, JSON or Markdown; neither reads the APIs.

use std::path::Path;

use crate::common;
use crate::plan::{config_dir, quickstart, run};

/// `converge show` with no API settings in its environment at all.
fn show(cwd: &Path, args: &[&str]) -> (i32, String, String) {
    let output = assert_cmd::Command::cargo_bin("converge")
        .expect("the binary")
        .env_clear()
        .env("NO_COLOR", "1")
        .current_dir(cwd)
        .arg("show")
        .args(args)
        .output()
        .expect("converge runs");
    (
        output.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&output.stdout).into_owned(),
        String::from_utf8_lossy(&output.stderr).into_owned(),
    )
}

#[test]
fn a_saved_plan_shows_as_plan_printed_it_in_every_format_without_a_request() {
    let sandbox = common::fast_sandbox();
    let (dir, path) = config_dir(&quickstart());
    let path = path.to_str().unwrap();
    let saved = run(
        &sandbox,
        dir.path(),
        &["plan", path, "--out", "plan.json", "--detailed-exitcode"],
    );
    assert_eq!(saved.code, 2, "{saved:?}");
    for format in ["text", "json", "markdown"] {
        let planned = run(&sandbox, dir.path(), &["plan", path, "--format", format]);
        assert_eq!(planned.code, 0, "{planned:?}");
        let requests = sandbox.request_log().len();
        let (code, stdout, stderr) = show(dir.path(), &["plan.json", "--format", format]);
        assert_eq!(code, 0, "{stderr}");
        assert_eq!(stdout, planned.stdout, "{format}");
        assert_eq!(sandbox.request_log().len(), requests, "show reads no API");
    }
    let (code, stdout, _) = show(dir.path(), &["plan.json"]);
    assert_eq!(code, 0);
    assert!(
        stdout.starts_with("Plan: 3 to create, 4 to update, 0 to delete"),
        "{stdout}"
    );
}

#[test]
fn an_apply_report_shows_as_text_json_and_markdown() {
    let sandbox = common::fast_sandbox();
    let (dir, path) = config_dir(&quickstart());
    let applied = run(
        &sandbox,
        dir.path(),
        &["apply", path.to_str().unwrap(), "--yes", "--format", "json"],
    );
    assert_eq!(applied.code, 0, "{applied:?}");
    std::fs::write(dir.path().join("report.json"), &applied.stdout).unwrap();
    let requests = sandbox.request_log().len();

    let (code, stdout, stderr) = show(dir.path(), &["report.json", "--format", "json"]);
    assert_eq!(code, 0, "{stderr}");
    assert_eq!(stdout, applied.stdout, "the report as it was written");
    let (code, stdout, _) = show(dir.path(), &["report.json"]);
    assert_eq!(code, 0);
    assert!(
        stdout.starts_with("apply: 7 done, 0 failed, 0 stale, 0 skipped, 0 not started"),
        "{stdout}"
    );
    let (code, stdout, _) = show(dir.path(), &["report.json", "--format", "markdown"]);
    assert_eq!(code, 0);
    assert!(
        stdout.contains("| Step | Operation | Status | Message |"),
        "{stdout}"
    );
    assert!(
        stdout.contains("| <code>dashboard.prod.api-health</code> | create dashboard | done |"),
        "{stdout}"
    );
    assert_eq!(sandbox.request_log().len(), requests, "show reads no API");
}

#[test]
fn a_file_that_is_neither_a_saved_plan_nor_a_report_exits_1_and_says_what_show_reads() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("plan.json"),
        "{\"format\": \"converge-plan/1\"}",
    )
    .unwrap();
    std::fs::write(dir.path().join("c.yaml"), quickstart()).unwrap();
    for (file, wanted) in [
        ("plan.json", "is a `converge-plan/1` document"),
        ("c.yaml", "is not JSON"),
        ("missing.json", "cannot read"),
    ] {
        let (code, stdout, stderr) = show(dir.path(), &[file]);
        assert_eq!(code, 1, "{file}: {stderr}");
        assert!(stdout.is_empty(), "{stdout}");
        assert!(stderr.contains(wanted), "{file}: {stderr}");
    }
    let (_, _, stderr) = show(dir.path(), &["plan.json"]);
    assert!(stderr.contains("converge plan --out"), "{stderr}");
}
