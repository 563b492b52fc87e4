//! SIGINT (and SIGTERM) in the middle of an apply of 50 dashboards: no new step starts, the running ones
//! finish, the report says what is left and the exit is 1; a second apply then converges with
//! no duplicates.

use std::io::{BufRead, BufReader};
use std::process::{Command, Stdio};
use std::time::Duration;

use converge::sandbox::{SandboxHandle, SandboxOptions};

use super::*;
use crate::common;

const BOARDS: usize = 50;

fn fifty_dashboards() -> String {
    let mut text = String::from(
        "version: 1\norganization: ${env:CONVERGE_ORG_ID}\nobservability:\n  url: ${env:CONVERGE_OBSERVABILITY_URL}\n  token: ${env:CONVERGE_OBS_TOKEN}\nstacks:\n  platform:\n    api: observability\n    dashboards:\n",
    );
    for i in 0..BOARDS {
        text.push_str(&format!(
            "      board-{i:02}:\n        name: Board {i:02}\n        tiles:\n          - name: Count\n            x: 0\n            y: 0\n            w: 6\n            h: 4\n            series:\n              - type: time\n                source: Logs\n                aggFn: count\n"
        ));
    }
    text
}

/// Starts `apply`, sends `signal` `delay` after the first step finished, and returns the exit
/// code, stderr and whether the signal was sent while the process still ran.
fn interrupted_apply(
    sandbox: &SandboxHandle,
    workspace: &Workspace,
    config: &str,
    delay: Duration,
    signal: &str,
) -> (i32, String, bool) {
    let mut child = Command::new(assert_cmd::cargo::cargo_bin("converge"))
        .args(["apply", config, "--yes"])
        .current_dir(workspace.path())
        .envs(sandbox.environment())
        .env("NO_COLOR", "1")
        .env("CONVERGE_OBSERVABILITY_RATE_LIMIT", "1000/1s")
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the binary starts");
    let stderr = child.stderr.take().expect("stderr is piped");
    let (first_done_tx, first_done_rx) = std::sync::mpsc::channel();
    let reader = std::thread::spawn(move || {
        let mut text = String::new();
        let mut signalled = false;
        for line in BufReader::new(stderr).lines().map_while(Result::ok) {
            if !signalled && line.starts_with("done") {
                signalled = true;
                let _ = first_done_tx.send(());
            }
            text.push_str(&line);
            text.push('\n');
        }
        text
    });
    let mut sent = false;
    if first_done_rx.recv_timeout(Duration::from_secs(60)).is_ok() {
        std::thread::sleep(delay);
        if child.try_wait().expect("the child can be polled").is_none() {
            let status = Command::new("kill")
                .args([signal, &child.id().to_string()])
                .status()
                .expect("kill runs");
            sent = status.success();
        }
    }
    let status = child.wait().expect("the binary ends");
    let text = reader.join().expect("stderr is read");
    (status.code().unwrap_or(-1), text, sent)
}

#[test]
fn sigint_stops_starting_steps_and_a_second_apply_converges_without_duplicates() {
    let workspace = Workspace::new();
    let config = workspace.write("boards.yaml", &fifty_dashboards());
    let path = config.to_str().unwrap();
    let expected: Vec<String> = (0..BOARDS).map(|i| format!("Board {i:02}")).collect();
    let mut cut_short = 0;
    for (round, delay_ms) in [0u64, 40, 90, 160, 250, 400].into_iter().enumerate() {
        // SIGTERM (what CI runners and `kill` send) is handled like SIGINT.
        let signal = if round % 2 == 0 { "-INT" } else { "-TERM" };
        // Latency makes the apply last long enough to be cut at different points.
        let sandbox = common::sandbox(SandboxOptions {
            rate_limit: false,
            latency: Duration::from_millis(25),
            ..SandboxOptions::default()
        });
        let (code, stderr, sent) = interrupted_apply(
            &sandbox,
            &workspace,
            path,
            Duration::from_millis(delay_ms),
            signal,
        );
        let created = standalone_dashboards(&sandbox).len();
        if sent && created < BOARDS {
            cut_short += 1;
            assert_eq!(code, 1, "delay {delay_ms} ms: {stderr}");
            assert!(stderr.contains("interrupted"), "{stderr}");
            assert!(stderr.contains("not started:"), "{stderr}");
            // Every step that started finished: what exists is exactly what was reported done.
            let done = stderr.lines().filter(|l| l.starts_with("done")).count();
            assert_eq!(done, created, "delay {delay_ms} ms: {stderr}");
        }

        let second = run(&sandbox, &workspace, &["apply", path, "--yes"]);
        assert_eq!(second.code, 0, "delay {delay_ms} ms: {second:?}");
        assert_eq!(
            names(&standalone_dashboards(&sandbox)),
            expected,
            "delay {delay_ms} ms"
        );
        assert!(!plans_changes(&sandbox, &workspace, &config));
    }
    assert!(
        cut_short > 0,
        "no SIGINT arrived while the apply was running"
    );
}
