//! Every shell example of README.md and of the guide's chapters (their ```sh blocks, the chapters
//! in the order `docs/README.md` lists them) and every example of each command's `--help` runs
//! as written from the repository root, so none can rot. Each runs in `bash` in a copy of the
//! files the examples name, with the built `converge` first on PATH and no `CONVERGE_*` variable
//! set, in order (a later example may read what an earlier one wrote): the README's in one
//! copy, the chapters' in another.
//! An example passes with exit 0 or 2 (changes planned, drift found), or exactly the code its
//! comment states (`# exit 0: ...`). `converge sandbox serve` lines are started, must say they
//! listen, and are stopped with SIGTERM (exit 0).

use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Command, Stdio};
use std::sync::Mutex;
use std::time::Duration;

use crate::common::{self, Converge, root};

/// What is not run, and why; kept short on purpose.
enum Skip {
    /// Commands starting with this.
    Prefix(&'static str),
    /// Exactly this command.
    Exact(&'static str),
    /// Commands holding this.
    Contains(&'static str),
}

const SKIPS: &[Skip] = &[
    // Builds converge itself: this test runs the binary those lines build.
    Skip::Prefix("cargo "),
    // Asks for a typed `yes` on a terminal (`apply/terminal.rs` drives it under a pty).
    Skip::Exact("converge apply --sandbox examples/quickstart.yaml"),
    // Writes into the user's shell setup; `ci_kit` checks every shell's script, and
    // `the_readme_completion_lines_work_on_a_fresh_home` runs the bash and fish lines.
    Skip::Contains("converge completions "),
];

/// `converge sandbox serve` listens on 8080 by default: one such line at a time.
static SERVE: Mutex<()> = Mutex::new(());

/// One example: the command as bash reads it and the comment after it.
#[derive(Debug)]
struct Example {
    command: String,
    comment: String,
}

/// Splits a line at its comment: a `#` after a blank, outside quotes.
fn split_comment(line: &str) -> (&str, &str) {
    let (mut single, mut double) = (false, false);
    let mut previous = ' ';
    for (at, c) in line.char_indices() {
        match c {
            '\'' if !double => single = !single,
            '"' if !single => double = !double,
            '#' if !single && !double && previous.is_whitespace() => {
                return (line[..at].trim_end(), line[at + 1..].trim());
            }
            _ => {}
        }
        previous = c;
    }
    (line.trim_end(), "")
}

/// The commands of a shell text: comment-only lines dropped, `\` continuations joined.
fn commands(text: &str) -> Vec<Example> {
    let mut out = Vec::new();
    let mut pending = String::new();
    for line in text.lines() {
        let trimmed = line.trim();
        if pending.is_empty() && (trimmed.is_empty() || trimmed.starts_with('#')) {
            continue;
        }
        if let Some(head) = trimmed.strip_suffix('\\') {
            pending.push_str(head);
            continue;
        }
        pending.push_str(trimmed);
        let (command, comment) = split_comment(&pending);
        out.push(Example {
            command: command.to_string(),
            comment: comment.to_string(),
        });
        pending.clear();
    }
    out
}

/// The ```sh blocks of a Markdown text.
fn sh_blocks(markdown: &str) -> Vec<String> {
    let mut blocks = Vec::new();
    let mut current: Option<String> = None;
    for line in markdown.lines() {
        match current.as_mut() {
            None if line.trim() == "```sh" => current = Some(String::new()),
            Some(_) if line.trim() == "```" => blocks.extend(current.take()),
            Some(block) => {
                block.push_str(line);
                block.push('\n');
            }
            None => {}
        }
    }
    blocks
}

fn skipped(command: &str) -> bool {
    SKIPS.iter().any(|skip| match skip {
        Skip::Prefix(prefix) => command.starts_with(prefix),
        Skip::Exact(exact) => command == *exact,
        Skip::Contains(part) => command.contains(part),
    })
}

/// The exit code a comment promises (`exit 0: nothing to change`).
fn promised_exit(comment: &str) -> Option<i32> {
    let rest = &comment[comment.find("exit ")? + 5..];
    let digits: String = rest.chars().take_while(char::is_ascii_digit).collect();
    digits.parse().ok()
}

/// A directory holding what the examples read, as at the repository root.
fn workspace() -> tempfile::TempDir {
    fn copy(from: &Path, to: &Path) {
        std::fs::create_dir_all(to).expect("a directory");
        for entry in std::fs::read_dir(from).expect("readable") {
            let entry = entry.expect("an entry");
            let target = to.join(entry.file_name());
            if entry.file_type().expect("a type").is_dir() {
                copy(&entry.path(), &target);
            } else {
                std::fs::copy(entry.path(), &target).expect("copied");
            }
        }
    }
    let dir = tempfile::tempdir().expect("a temp dir");
    for folder in ["examples", "docs", "schema"] {
        copy(&root().join(folder), &dir.path().join(folder));
    }
    dir
}

/// bash running `command` in `cwd` with the built binary first on PATH and no `CONVERGE_*`.
fn bash(cwd: &Path, command: &str) -> Command {
    Converge::offline().cwd(cwd).shell(command)
}

/// Starts a `sandbox serve` line, waits for it to listen, stops it: `Err` says why it failed.
fn serve(cwd: &Path, command: &str) -> Result<(), String> {
    let _one_at_a_time = SERVE.lock().unwrap_or_else(|e| e.into_inner());
    let mut child = bash(cwd, &format!("exec {command}"))
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("bash starts");
    let stderr = child.stderr.take().expect("stderr");
    let (lines_tx, lines_rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        for line in BufReader::new(stderr).lines().map_while(Result::ok) {
            if lines_tx.send(line).is_err() {
                break;
            }
        }
    });
    let mut seen = Vec::new();
    let listening = loop {
        match lines_rx.recv_timeout(Duration::from_secs(120)) {
            Ok(line) => {
                let found = line.starts_with("sandbox listening on ");
                seen.push(line);
                if found {
                    break true;
                }
            }
            Err(_) => break false,
        }
    };
    let _ = Command::new("kill")
        .args(["-TERM", &child.id().to_string()])
        .status();
    let status = child.wait().expect("the sandbox ends");
    seen.extend(lines_rx.try_iter());
    if listening && status.code() == Some(0) {
        Ok(())
    } else {
        Err(format!(
            "listening: {listening}, exit {:?}\n{}",
            status.code(),
            seen.join("\n")
        ))
    }
}

/// Runs the examples in order in one workspace; returns the failures and how many ran.
fn run_all(examples: &[Example]) -> (Vec<String>, usize) {
    let dir = workspace();
    let mut failures = Vec::new();
    let mut ran = 0;
    for example in examples.iter().filter(|e| !skipped(&e.command)) {
        ran += 1;
        if example.command.starts_with("converge sandbox serve") {
            if let Err(problem) = serve(dir.path(), &example.command) {
                failures.push(format!("{}: {problem}", example.command));
            }
            continue;
        }
        let output = assert_cmd::Command::from_std(bash(dir.path(), &example.command))
            .timeout(Duration::from_secs(300))
            .output()
            .expect("bash runs");
        let code = output.status.code().unwrap_or(-1);
        let accepted = match promised_exit(&example.comment) {
            Some(promised) => code == promised,
            None => code == 0 || code == 2,
        };
        if !accepted {
            let stderr = String::from_utf8_lossy(&output.stderr);
            let tail: Vec<&str> = stderr.lines().rev().take(15).collect();
            let tail: Vec<&str> = tail.into_iter().rev().collect();
            failures.push(format!(
                "{} (# {}): exit {code}\n{}",
                example.command,
                example.comment,
                tail.join("\n")
            ));
        }
    }
    (failures, ran)
}

/// The examples of one Markdown text, in order.
fn examples_of(markdown: &str) -> Vec<Example> {
    sh_blocks(markdown)
        .iter()
        .flat_map(|block| commands(block))
        .collect()
}

#[test]
fn the_readme_examples_run_as_written() {
    let readme = std::fs::read_to_string(root().join("README.md")).expect("README.md");
    let examples = examples_of(&readme);
    assert!(
        examples
            .iter()
            .any(|e| e.command == "converge plan --sandbox examples/quickstart.yaml"),
        "{examples:#?}"
    );
    let (failures, ran) = run_all(&examples);
    assert!(ran >= 10, "only {ran} README examples ran: {examples:#?}");
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

/// The guide's chapters, as `docs/README.md` links them, in its order.
fn chapters() -> Vec<String> {
    let index = std::fs::read_to_string(root().join("docs/README.md")).expect("docs/README.md");
    let mut chapters: Vec<String> = Vec::new();
    for part in index.split("](").skip(1) {
        let target = &part[..part.find(')').unwrap_or(part.len())];
        let is_chapter = target.ends_with(".md") && !target.contains('/') && target != "DESIGN.md";
        if is_chapter && !chapters.iter().any(|c| c == target) {
            chapters.push(target.to_string());
        }
    }
    chapters
}

#[test]
fn the_guide_lists_every_chapter_in_docs() {
    let mut on_disk: Vec<String> = std::fs::read_dir(root().join("docs"))
        .expect("docs/")
        .filter_map(|e| e.ok())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|name| name.ends_with(".md") && name != "README.md" && name != "DESIGN.md")
        .collect();
    on_disk.sort();
    let mut listed = chapters();
    listed.sort();
    assert_eq!(listed, on_disk, "docs/README.md links every chapter once");
}

#[test]
fn the_guide_examples_run_as_written() {
    let mut examples = Vec::new();
    for chapter in chapters() {
        let text = std::fs::read_to_string(root().join("docs").join(&chapter)).expect("a chapter");
        examples.extend(examples_of(&text));
    }
    let (failures, ran) = run_all(&examples);
    assert!(ran >= 30, "only {ran} guide examples ran: {examples:#?}");
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

/// The README's completion lines for bash and fish work on a machine where the directories
/// they write into do not exist yet.
#[test]
fn the_readme_completion_lines_work_on_a_fresh_home() {
    let readme = std::fs::read_to_string(root().join("README.md")).expect("README.md");
    let lines: Vec<Example> = examples_of(&readme)
        .into_iter()
        .filter(|e| {
            e.command.contains("converge completions bash")
                || e.command.contains("converge completions fish")
        })
        .collect();
    assert_eq!(lines.len(), 2, "{lines:#?}");
    for line in &lines {
        let home = tempfile::tempdir().expect("a temp dir");
        let output = Converge::offline()
            .cwd(home.path())
            .env("HOME", home.path())
            .shell(&line.command)
            .output()
            .expect("bash runs");
        assert!(
            output.status.success(),
            "{}: {}",
            line.command,
            String::from_utf8_lossy(&output.stderr)
        );
        let target = line.command.rsplit("> ").next().expect("a redirection");
        let written = home.path().join(target.trim().trim_start_matches("~/"));
        let script = std::fs::read_to_string(&written).expect("the script is written");
        assert!(script.contains("converge"), "{}", written.display());
    }
}

/// Every command's `--help`, the `Examples:` lines at its end.
fn help_examples() -> Vec<Example> {
    let mut examples = Vec::new();
    for command in crate::help::COMMANDS {
        let help = crate::help::help(command);
        let at = help
            .rfind("\nExamples:\n")
            .unwrap_or_else(|| panic!("{command:?} has no examples:\n{help}"));
        examples.extend(self::commands(&help[at + "\nExamples:\n".len()..]));
    }
    examples
}

#[test]
fn the_help_examples_run_as_written() {
    let examples = help_examples();
    let (failures, ran) = run_all(&examples);
    assert!(ran >= 15, "only {ran} help examples ran: {examples:#?}");
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

#[test]
fn examples_are_read_as_bash_reads_them() {
    let text = "# a comment line\n\
        converge plan x.yaml   # plan it\n\
        converge drift --ignore 'a # b' \\\n  --format json > out.json   # exit 2: drift\n\
        COLUMNS=80 converge preview \"a#b\"\n";
    let examples = commands(text);
    let got: Vec<(&str, &str)> = examples
        .iter()
        .map(|e| (e.command.as_str(), e.comment.as_str()))
        .collect();
    assert_eq!(
        got,
        [
            ("converge plan x.yaml", "plan it"),
            (
                "converge drift --ignore 'a # b' --format json > out.json",
                "exit 2: drift"
            ),
            ("COLUMNS=80 converge preview \"a#b\"", ""),
        ]
    );
    assert_eq!(promised_exit("exit 2: drift"), Some(2));
    assert_eq!(promised_exit("plan it"), None);
    assert!(skipped("cargo test"));
    assert!(skipped("converge apply --sandbox examples/quickstart.yaml"));
    assert!(!skipped(
        "converge apply --sandbox examples/quickstart.yaml --yes"
    ));
}

/// `examples/production` names only what the demo sandbox has: it plans (exit 2), applies, and
/// then plans to no changes and no drift.
#[test]
fn the_production_example_plans_applies_and_converges_against_the_sandbox() {
    let sandbox = common::fast_sandbox();
    let dir = common::Workspace::new();
    let production = root().join("examples/production");
    let converge = Converge::new(&sandbox).fast().cwd(&dir);
    let run = |args: &[&str]| converge.run(args.iter().chain(&[production.to_str().unwrap()]));
    run(&["plan", "--detailed-exitcode"]).assert_exit(2);
    run(&["apply", "--yes", "--allow-destroy"]).assert_exit(0);
    run(&["plan", "--detailed-exitcode"]).assert_exit(0);
    run(&["drift"]).assert_exit(0);
}
