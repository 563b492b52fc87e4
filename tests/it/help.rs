//! Each command takes, and its `--help` shows, only the flags it uses: a flag given to a
//! command that does not use it is a usage error (exit 1), not silently accepted.

use std::time::Duration;

use crate::common::Converge;

/// The binary in the repository root. `sandbox serve` that accepted a stray flag would serve
/// forever: the timeout ends it.
fn converge() -> Converge<'static> {
    Converge::offline()
        .in_repo()
        .timeout(Duration::from_secs(20))
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
    let mut said = String::new();
    for args in cases {
        let out = converge().run(*args);
        let stderr = &out.stderr;
        assert_eq!(out.code, 1, "converge {}: {stderr}", args.join(" "));
        said.push_str(&format!(
            "$ converge {}\n{}\n",
            args.join(" "),
            out.transcript()
        ));
    }
    // What each refusal says, in full: the unexpected argument, the usage, where to read more.
    crate::common::snapshots().bind(|| insta::assert_snapshot!("flags_not_taken_refused", said));
}

#[test]
fn the_api_flags_and_the_global_flags_work_where_they_apply() {
    converge()
        .run([
            "validate",
            "examples/quickstart.yaml",
            "--color",
            "never",
            "-v",
        ])
        .assert_exit(0);
    converge()
        .run(["--color", "never", "schema"])
        .assert_exit(0);
}

/// Every command path, as typed before `--help`.
pub const COMMANDS: &[&[&str]] = &[
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

/// `converge COMMAND --help`.
pub fn help(command: &[&str]) -> String {
    let out = converge().run(command.iter().chain(&["--help"]));
    assert_eq!(out.code, 0, "{command:?}");
    out.stdout
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
        let out = converge().run(command.iter().chain(&["--help"]));
        crate::common::converge_snapshot!(format!("help_{name}"), out);
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
    let out = converge().run(["sandbox", "serve", "--port", "0", "--clock", "yesterday"]);
    out.assert_exit(1);
    let stderr = &out.stderr;
    assert!(stderr.contains("`yesterday` is not a time"), "{stderr}");
    assert!(stderr.contains("RFC 3339"), "{stderr}");
    assert!(stderr.contains("2026-11-21T06:00:00Z"), "{stderr}");
}
