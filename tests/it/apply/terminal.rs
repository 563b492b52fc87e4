//! `converge apply` and `plan` on a real terminal: the typed-`yes` confirmation, a spinner line
//! per step with its elapsed time, and the spinner lines that say what a run waits for.
//! `script` (util-linux/bsdutils) gives the binary a pseudo-terminal.

use std::io::{Read, Write};
use std::process::Stdio;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use super::*;
use crate::common;

/// Runs `converge ARGS` under `script` against `sandbox`, typing `answer` once the confirmation
/// prompt shows. `None` when `script` is not installed.
fn on_a_terminal(
    sandbox: &SandboxHandle,
    workspace: &Workspace,
    args: &str,
    answer: &str,
) -> Option<(i32, String)> {
    let mut run = Typed::spawn(binary(sandbox, workspace).on_a_terminal(args)?);
    run.wait_for("Only `yes` applies");
    run.types(&format!("{answer}\r"));
    let (code, output) = run.finish();
    Some((code, String::from_utf8_lossy(&output).into_owned()))
}

#[test]
fn on_a_terminal_only_a_typed_yes_applies_and_each_step_gets_a_spinner_line() {
    let sandbox = common::fast_sandbox();
    let workspace = Workspace::new();
    workspace.write("converge.yaml", &quickstart());

    sandbox.reset_log();
    let Some((code, output)) = on_a_terminal(&sandbox, &workspace, "apply converge.yaml", "y")
    else {
        return;
    };
    assert_eq!(code, 4, "anything but `yes` declines: {output}");
    assert!(writes(&sandbox).is_empty(), "declined, nothing written");

    let Some((code, output)) = on_a_terminal(&sandbox, &workspace, "apply converge.yaml", "yes")
    else {
        return;
    };
    assert_eq!(code, 0, "{output}");
    assert_eq!(writes(&sandbox).len(), 7, "one write per step");
    // indicatif draws each running step with a spinner and its elapsed time, then a done line
    // with the time it took, for every one of the seven steps.
    assert!(output.contains("update service scaling ("), "{output}");
    for address in [
        "service.analytics.scaling",
        "service.analytics.private_endpoint[vpce-0a1b2c3d4e5f67890]",
        "pipe.analytics.orders.scaling",
        "pipe.analytics.events.scaling",
        "pipe.analytics.clicks.scaling",
        "dashboard.prod.api-health",
        "alert.prod.api-errors",
    ] {
        let done = output
            .split("done")
            .any(|part| part.contains(address) && part.contains("s]"));
        assert!(
            done,
            "no done line with elapsed time for {address}: {output}"
        );
    }
    assert!(output.contains("apply: 7 done, 0 failed"), "{output}");
}

#[test]
fn with_stdout_redirected_the_plan_is_shown_on_the_terminal_before_the_question() {
    let sandbox = common::fast_sandbox();
    let workspace = Workspace::new();
    workspace.write("converge.yaml", &quickstart());
    // stdout goes to a file; stdin and stderr stay on the terminal.
    let Some((code, output)) =
        on_a_terminal(&sandbox, &workspace, "apply converge.yaml > plan.txt", "no")
    else {
        return;
    };
    assert_eq!(code, 4, "declined: {output}");
    assert!(writes(&sandbox).is_empty(), "declined, nothing written");
    // (Colored: stderr is a terminal.)
    let plan_at = output
        .find("3 to create, 4 to update, 0 to delete, 0 unchanged")
        .unwrap_or_else(|| panic!("the plan is not on the terminal: {output}"));
    let question_at = output.find("Only `yes` applies").expect("asked");
    assert!(plan_at < question_at, "{output}");
    assert!(output.contains("dashboard.prod.api-health"), "{output}");
    // The file still gets the plan, as a pipe would.
    let saved = std::fs::read_to_string(workspace.file("plan.txt")).expect("written");
    assert!(saved.starts_with("Plan: 3 to create"), "{saved}");
}

/// Runs `converge ARGS` under `script` against `sandbox` with `env`, answering nothing. `None`
/// when `script` is not installed.
fn unattended_on_a_terminal(
    sandbox: &SandboxHandle,
    workspace: &Workspace,
    args: &str,
    env: &[(&str, &str)],
) -> Option<(i32, String)> {
    let output = Converge::new(sandbox)
        .envs(env.iter().copied())
        .cwd(workspace)
        .on_a_terminal(args)?
        .stdin(Stdio::null())
        .output()
        .expect("script runs");
    Some((
        output.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&output.stdout).into_owned(),
    ))
}

#[test]
fn on_a_terminal_a_spinner_says_when_reading_and_applying_wait_for_the_rate_limit() {
    let sandbox = common::fast_sandbox();
    let workspace = Workspace::new();
    workspace.write("converge.yaml", &quickstart());
    // Five requests a second: the reads and the writes both wait for the cloud API's limit.
    let slow = [
        ("CONVERGE_CLOUD_RATE_LIMIT", "5/1s"),
        ("CONVERGE_OBSERVABILITY_RATE_LIMIT", "1000/1s"),
    ];
    let Some((code, output)) =
        unattended_on_a_terminal(&sandbox, &workspace, "plan converge.yaml", &slow)
    else {
        return;
    };
    assert_eq!(code, 0, "{output}");
    assert!(output.contains("reading "), "{output}");
    assert!(output.contains(" lists ("), "{output}");
    assert!(
        output.contains("s for the cloud API's rate limit"),
        "the spinner says what it waits for: {output}"
    );
    // No plain phase line on a terminal: the spinner says it.
    assert!(!output.contains("reading the live state of"), "{output}");

    let Some((code, output)) =
        unattended_on_a_terminal(&sandbox, &workspace, "apply converge.yaml --yes", &slow)
    else {
        return;
    };
    assert_eq!(code, 0, "{output}");
    // A running step's line says why it sits there.
    assert!(
        output.contains("): waiting ") && output.contains("s for the cloud API's rate limit"),
        "{output}"
    );
    assert!(output.contains("apply: 7 done, 0 failed"), "{output}");
}

/// A run of the binary on a pseudo-terminal of a given size, typed into as it goes.
struct Typed {
    child: std::process::Child,
    stdin: std::process::ChildStdin,
    output: Arc<Mutex<Vec<u8>>>,
    reader: std::thread::JoinHandle<()>,
    started: Instant,
}

impl Typed {
    /// Starts `converge LINE` on a `columns`-wide terminal; `None` without `script`.
    fn start(converge: &Converge<'_>, line: &str, columns: u16, rows: u16) -> Option<Typed> {
        Some(Typed::spawn(
            converge.on_a_terminal_sized(line, columns, rows)?,
        ))
    }

    /// Spawns `script`'s command, reading all it shows.
    fn spawn(mut command: std::process::Command) -> Typed {
        let mut child = command
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("script starts");
        let output = Arc::new(Mutex::new(Vec::new()));
        let mut stdout = child.stdout.take().expect("piped");
        let sink = Arc::clone(&output);
        let reader = std::thread::spawn(move || {
            let mut buffer = [0u8; 4096];
            while let Ok(n) = stdout.read(&mut buffer) {
                if n == 0 {
                    break;
                }
                sink.lock().expect("lock").extend_from_slice(&buffer[..n]);
            }
        });
        let stdin = child.stdin.take().expect("piped");
        Typed {
            child,
            stdin,
            output,
            reader,
            started: Instant::now(),
        }
    }

    fn text(&self) -> String {
        String::from_utf8_lossy(&self.output.lock().expect("lock")).into_owned()
    }

    /// Waits until the terminal has shown `text`.
    fn wait_for(&self, text: &str) {
        while !self.text().contains(text) {
            assert!(
                self.started.elapsed() < Duration::from_secs(60),
                "never shown {text:?}: {}",
                self.text()
            );
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    /// Types `keys` as a person would (a `\x03` is Ctrl-C: the terminal signals and echoes it).
    fn types(&mut self, keys: &str) {
        self.stdin.write_all(keys.as_bytes()).expect("typed");
        self.stdin.flush().expect("typed");
    }

    /// Waits for the end; the exit code and every byte shown.
    fn finish(mut self) -> (i32, Vec<u8>) {
        let status = loop {
            if let Some(status) = self.child.try_wait().expect("waits") {
                break status;
            }
            assert!(
                self.started.elapsed() < Duration::from_secs(120),
                "the run did not end: {}",
                self.text()
            );
            std::thread::sleep(Duration::from_millis(50));
        };
        drop(self.stdin);
        self.reader.join().expect("reader ends");
        let output = std::mem::take(&mut *self.output.lock().expect("lock"));
        (status.code().unwrap_or(-1), output)
    }

    /// Waits for the end; the exit code and what a terminal `columns` wide shows of it, with
    /// every line that scrolled off the top of its `rows` as well: a frame left up there is
    /// left on the person's screen too, and how many lines scroll away depends on timing (a
    /// 40-row view once lost the interrupt message's first half under CI load).
    fn end(self, columns: u16, rows: u16) -> (i32, String) {
        let (code, output) = self.finish();
        // Relative cursor moves only (the spinners'), so a taller screen draws the same lines
        // and keeps the ones a real one would scroll away.
        let mut screen = vt100::Parser::new(rows.max(2000), columns, 0);
        screen.process(&output);
        (code, screen.screen().contents())
    }
}

#[test]
fn at_60_columns_the_question_is_drawn_once() {
    let sandbox = common::fast_sandbox();
    let workspace = Workspace::new();
    workspace.write("converge.yaml", &quickstart());
    let converge = Converge::new(&sandbox).cwd(&workspace);
    let Some(mut run) = Typed::start(&converge, "apply converge.yaml", 60, 40) else {
        return;
    };
    run.wait_for("Only `yes` applies");
    run.types("no\r");
    let (code, screen) = run.end(60, 40);
    assert_eq!(code, 4, "{screen}");
    assert_eq!(
        screen.matches("Apply these changes").count(),
        1,
        "the question once: {screen}"
    );
    assert_eq!(screen.matches("Only `yes` applies").count(), 1, "{screen}");
    assert!(
        screen.contains("not applied; nothing was written"),
        "{screen}"
    );
}

#[test]
fn at_60_columns_ctrl_c_leaves_no_spinner_frame_on_screen() {
    let sandbox = common::fast_sandbox();
    let workspace = Workspace::new();
    workspace.write("boards.yaml", &super::interrupt::boards_config(12));
    // The reads and a few creates pass; the other steps wait for the limit, spinning, when the
    // person presses Ctrl-C.
    let converge = Converge::new(&sandbox)
        .cwd(&workspace)
        .env("CONVERGE_OBSERVABILITY_RATE_LIMIT", "6/10s");
    let Some(mut run) = Typed::start(&converge, "apply boards.yaml --yes", 60, 40) else {
        return;
    };
    // (The spinner line is cut to the width: `(3s): waiting 52s for the…`.)
    run.wait_for("): wait");
    run.types("\x03");
    let (code, screen) = run.end(60, 40);
    assert_eq!(code, 1, "{screen}");
    assert!(
        screen.contains("interrupted: no new step starts"),
        "{screen}"
    );
    // No braille spinner frame is left anywhere on the screen.
    assert!(
        !screen
            .chars()
            .any(|c| ('\u{2800}'..='\u{28ff}').contains(&c)),
        "a spinner frame stayed: {screen}"
    );
    assert!(screen.contains("not started"), "{screen}");
}
