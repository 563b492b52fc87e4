//! Each command takes, and its `--help` shows, only the flags it uses: a flag given to a
//! command that does not use it is a usage error (exit 1), not silently accepted.

use std::time::Duration;

fn converge() -> assert_cmd::Command {
    let mut command = assert_cmd::Command::cargo_bin("converge").expect("the binary is built");
    command
        .env("NO_COLOR", "1")
        .current_dir(env!("CARGO_MANIFEST_DIR"));
    // `sandbox serve` that accepted a stray flag would serve forever: the timeout ends it.
    command.timeout(Duration::from_secs(20));
    command
}

#[test]
fn a_flag_the_command_does_not_use_is_rejected_with_exit_1() {
    let cases: &[&[&str]] = &[
        &["validate", "--sandbox", "examples/quickstart.yaml"],
        &["validate", "examples/quickstart.yaml", "--parallelism", "2"],
        &["sandbox", "serve", "--port", "0", "--sandbox"],
        &["schema", "--sandbox"],
        &["completions", "bash", "--parallelism", "2"],
        // The API flags belong to the command, not before it.
        &["--sandbox", "plan", "examples/quickstart.yaml"],
    ];
    for args in cases {
        let output = converge().args(*args).output().expect("converge runs");
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_eq!(
            output.status.code(),
            Some(1),
            "converge {}: {stderr}",
            args.join(" ")
        );
        assert!(
            stderr.contains("unexpected argument"),
            "converge {}: {stderr}",
            args.join(" ")
        );
    }
}

#[test]
fn the_api_flags_and_the_global_flags_work_where_they_apply() {
    let output = converge()
        .args([
            "validate",
            "examples/quickstart.yaml",
            "--color",
            "never",
            "-v",
        ])
        .output()
        .expect("converge runs");
    assert_eq!(output.status.code(), Some(0), "{output:?}");
    let output = converge()
        .args(["--color", "never", "schema"])
        .output()
        .expect("converge runs");
    assert_eq!(output.status.code(), Some(0), "{output:?}");
}

/// Every command path, as typed before `--help`.
const COMMANDS: &[&[&str]] = &[
    &[],
    &["validate"],
    &["plan"],
    &["preview"],
    &["apply"],
    &["show"],
    &["schema"],
    &["sandbox"],
    &["sandbox", "serve"],
    &["drift"],
    &["export"],
    &["completions"],
];

fn help(command: &[&str]) -> String {
    let output = converge()
        .args(command)
        .arg("--help")
        .output()
        .expect("converge runs");
    assert_eq!(output.status.code(), Some(0), "{command:?}");
    String::from_utf8(output.stdout).expect("UTF-8 help")
}

/// The help of each command, as recorded: the flags it takes and nothing else, its exit codes
/// and its examples. A flag added to or removed from a command shows up here.
#[test]
fn every_command_help_reads_as_recorded() {
    for command in COMMANDS {
        let name = if command.is_empty() {
            "converge".to_string()
        } else {
            command.join("_")
        };
        insta::assert_snapshot!(format!("help_{name}"), help(command));
    }
}

/// Each help ends with its exit codes and then examples, every one a `converge` command line
/// (`readme::help_examples_run_as_written` runs them).
#[test]
fn every_command_help_ends_with_its_exit_codes_and_examples() {
    for command in COMMANDS {
        let text = help(command);
        let exit_codes = text
            .find("\nExit codes")
            .unwrap_or_else(|| panic!("{command:?}: {text}"));
        let examples = text
            .rfind("\nExamples:\n")
            .unwrap_or_else(|| panic!("{command:?}: {text}"));
        assert!(
            exit_codes < examples,
            "{command:?}: exit codes, then examples:\n{text}"
        );
        let lines: Vec<&str> = text[examples..].lines().skip(2).collect();
        assert!(!lines.is_empty(), "{command:?}");
        for line in lines {
            assert!(line.starts_with("  converge "), "{command:?}: {line:?}");
        }
        if !command.is_empty() {
            assert!(
                text[examples..].contains(&format!("converge {}", command.join(" "))),
                "{command:?}: an example of the command itself:\n{text}"
            );
        }
    }
}

#[test]
fn only_the_api_commands_take_sandbox_and_parallelism() {
    for command in COMMANDS.iter().filter(|c| !c.is_empty()) {
        let text = help(command);
        let api = matches!(
            command[0],
            "plan" | "preview" | "apply" | "drift" | "export"
        );
        for flag in ["--sandbox", "--parallelism"] {
            let listed = text
                .lines()
                .any(|l| l.split_whitespace().next() == Some(flag));
            assert_eq!(listed, api, "{command:?} {flag}:\n{text}");
        }
    }
}

#[test]
fn a_clock_that_is_not_a_time_says_which_format_it_wants() {
    let output = converge()
        .args(["sandbox", "serve", "--port", "0", "--clock", "yesterday"])
        .output()
        .expect("converge runs");
    assert_eq!(output.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("`yesterday` is not a time"), "{stderr}");
    assert!(stderr.contains("RFC 3339"), "{stderr}");
    assert!(stderr.contains("2026-11-21T06:00:00Z"), "{stderr}");
}
