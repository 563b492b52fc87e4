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
    let mut child = binary(sandbox, workspace)
        .on_a_terminal(args)?
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
    let text = || String::from_utf8_lossy(&output.lock().expect("lock")).into_owned();
    let started = Instant::now();
    while !text().contains("Only `yes` applies") {
        assert!(
            started.elapsed() < Duration::from_secs(60),
            "no prompt: {}",
            text()
        );
        std::thread::sleep(Duration::from_millis(50));
    }
    let mut stdin = child.stdin.take().expect("piped");
    stdin
        .write_all(format!("{answer}\r").as_bytes())
        .expect("typed");
    let status = loop {
        if let Some(status) = child.try_wait().expect("waits") {
            break status;
        }
        assert!(
            started.elapsed() < Duration::from_secs(120),
            "apply did not end: {}",
            text()
        );
        std::thread::sleep(Duration::from_millis(50));
    };
    drop(stdin);
    reader.join().expect("reader ends");
    Some((status.code().unwrap_or(-1), text()))
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
