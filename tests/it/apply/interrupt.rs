//! SIGINT (and SIGTERM) in the middle of an apply of 50 dashboards: no new step starts, the running ones
//! finish, the report says what is left and the exit is 1; a second apply then converges with
//! no duplicates.

use std::io::{BufRead, BufReader};
use std::process::{Command, Stdio};
use std::time::Duration;

use converge::sandbox::{SandboxHandle, SandboxOptions};
use serde_json::Value;

use super::*;
use crate::common;

const BOARDS: usize = 50;

fn fifty_dashboards() -> String {
    boards_config(BOARDS)
}

/// A config of `count` dashboards on a standalone observability stack.
pub(super) fn boards_config(count: usize) -> String {
    let mut text = String::from(
        "version: 1\norganization: ${env:CONVERGE_ORG_ID}\nobservability:\n  url: ${env:CONVERGE_OBSERVABILITY_URL}\n  token: ${env:CONVERGE_OBS_TOKEN}\nstacks:\n  platform:\n    api: observability\n    dashboards:\n",
    );
    for i in 0..count {
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
    let (code, stderr, _, sent) =
        interrupted_apply_with(sandbox, workspace, config, delay, signal, &[]);
    (code, stderr, sent)
}

/// As [`interrupted_apply`], with extra arguments, also returning stdout.
fn interrupted_apply_with(
    sandbox: &SandboxHandle,
    workspace: &Workspace,
    config: &str,
    delay: Duration,
    signal: &str,
    extra: &[&str],
) -> (i32, String, String, bool) {
    let mut child = Converge::new(sandbox)
        .env("CONVERGE_OBSERVABILITY_RATE_LIMIT", "1000/1s")
        .cwd(workspace)
        .command(["apply", config, "--yes"])
        .args(extra)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the binary starts");
    let mut stdout = child.stdout.take().expect("stdout is piped");
    let out_reader = std::thread::spawn(move || {
        let mut text = String::new();
        let _ = std::io::Read::read_to_string(&mut stdout, &mut text);
        text
    });
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
    let out = out_reader.join().expect("stdout is read");
    (status.code().unwrap_or(-1), text, out, sent)
}

#[test]
fn an_interrupted_apply_lists_ten_not_started_steps_and_ends_with_its_summary() {
    let workspace = Workspace::new();
    let config = workspace.write("boards.yaml", &fifty_dashboards());
    let path = config.as_str();
    // Slow answers: when the first step is done, most of the fifty have not started.
    let sandbox = common::sandbox(SandboxOptions {
        rate_limit: false,
        latency: Duration::from_millis(150),
        ..SandboxOptions::default()
    });
    let (code, stderr, stdout, sent) = interrupted_apply_with(
        &sandbox,
        &workspace,
        path,
        Duration::ZERO,
        "-INT",
        &["--format", "json"],
    );
    assert!(sent, "the apply ended before the signal: {stderr}");
    assert_eq!(code, 1, "{stderr}");
    let report: Value = serde_json::from_str(&stdout).expect("the JSON report");
    let not_started: Vec<&str> = report["steps"]
        .as_array()
        .expect("steps")
        .iter()
        .filter(|s| s["status"] == "not-started")
        .map(|s| s["address"].as_str().unwrap_or_default())
        .collect();
    assert!(not_started.len() > 10, "{stderr}");
    assert_eq!(report["summary"]["notStarted"], not_started.len());
    // The text lists the first ten and counts the rest; the JSON has every one.
    let listed: Vec<&str> = stderr
        .lines()
        .skip_while(|l| *l != "not started:")
        .skip(1)
        .take_while(|l| l.starts_with("  "))
        .collect();
    assert_eq!(listed.len(), 11, "{stderr}");
    for (line, address) in listed[..10].iter().zip(&not_started) {
        assert!(
            line.starts_with(&format!("  {address} (")),
            "{line}: {stderr}"
        );
    }
    assert_eq!(
        listed[10],
        format!(
            "  … and {} more (every step is in the report of `--format json`)",
            not_started.len() - 10
        )
    );
    // The summary is the last line.
    let last = stderr.trim_end().lines().last().unwrap_or_default();
    assert!(
        last.starts_with("apply interrupted: ")
            && last.ends_with(&format!("{} not started", not_started.len())),
        "{stderr}"
    );
}

#[test]
fn sigint_stops_starting_steps_and_a_second_apply_converges_without_duplicates() {
    let workspace = Workspace::new();
    let config = workspace.write("boards.yaml", &fifty_dashboards());
    let path = config.as_str();
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

        let second = binary(&sandbox, &workspace).run(["apply", path, "--yes"]);
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

/// Boards of the slow-limit test: more than `--parallelism`, so some steps are pending and some
/// started but waiting for a token when the signal comes.
const SLOW_BOARDS: usize = 8;

/// The observability requests (`/api/...` routes) in the sandbox's log.
fn observability_requests(sandbox: &SandboxHandle) -> usize {
    sandbox
        .request_log()
        .iter()
        .filter(|entry| entry.route.starts_with("/api/"))
        .count()
}

/// SIGINT while started steps wait for a rate-limit token: their writes are not sent (not even
/// when the token comes), and they are reported as not started.
///
/// The observability limit lets about every read `apply` makes before its steps go at once,
/// plus two writes; the next token comes a whole window (10 s) after the first request. The
/// signal is sent right after two writes are reported done, while other running steps
/// (`--parallelism 4`) wait for a token. What is checked does not depend on when the signal
/// lands (under load, a window may end first, or the reads may leave more writes in the burst):
/// the run's own `-vv` log says which writes waited for a token, and none of them may be sent
/// after the run said it was interrupted; every write sent is a step reported done, and no
/// step reported stopped wrote anything.
#[test]
fn sigint_stops_writes_of_started_steps_still_waiting_for_a_rate_limit_token() {
    let workspace = Workspace::new();
    let config = workspace.write("boards.yaml", &boards_config(SLOW_BOARDS));
    let path = config.as_str();
    let sandbox = common::sandbox(SandboxOptions {
        rate_limit: false,
        ..SandboxOptions::default()
    });

    // How many observability requests `apply` makes before its first step: those of `plan`,
    // then the one list read the steps share.
    let before = observability_requests(&sandbox);
    let planned = binary(&sandbox, &workspace).run(["plan", path, "--detailed-exitcode"]);
    planned.assert_exit(2);
    let reads = observability_requests(&sandbox) - before + 1;
    // After the signal the apply still reads once more, to look for copies of its creates, and
    // that read waits for the next token: the test lasts a window.
    let limit = format!("{}/10s", reads + 2);

    let log_before = sandbox.request_log().len();
    let mut child = Converge::new(&sandbox)
        .env("CONVERGE_CLOUD_RATE_LIMIT", "1000/1s")
        .env("CONVERGE_OBSERVABILITY_RATE_LIMIT", &limit)
        .cwd(&workspace)
        .command(["-vv", "apply", path, "--yes", "--parallelism", "4"])
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the binary starts");
    let stderr = child.stderr.take().expect("stderr is piped");
    let (burst_done_tx, burst_done_rx) = std::sync::mpsc::channel();
    let reader = std::thread::spawn(move || {
        let mut text = String::new();
        let mut done = 0;
        for line in BufReader::new(stderr).lines().map_while(Result::ok) {
            if line.starts_with("done") {
                done += 1;
                if done == 2 {
                    let _ = burst_done_tx.send(());
                }
            }
            text.push_str(&line);
            text.push('\n');
        }
        text
    });
    burst_done_rx
        .recv_timeout(Duration::from_secs(60))
        .expect("the two first steps are done within a minute");
    let killed = Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status()
        .expect("kill runs");
    assert!(killed.success(), "the apply was still running");
    let status = child.wait().expect("the binary ends");
    let stderr = reader.join().expect("stderr is read");

    // No write that waited for a token went out once the run took the signal.
    let interrupted = stderr
        .find("interrupted: no new step starts")
        .unwrap_or_else(|| panic!("the run says it was interrupted: {stderr}"));
    let late: Vec<&str> = stderr[interrupted..]
        .lines()
        .filter(|l| l.contains("for the rate limit before POST"))
        .collect();
    assert!(
        late.is_empty(),
        "a write went out after SIGINT: {late:?}\n{stderr}"
    );
    // Every write sent is a step reported done; no step reported stopped wrote anything.
    let boards = |ending: &str, starting: &str| -> Vec<String> {
        let mut found: Vec<String> = stderr
            .lines()
            .filter(|l| l.starts_with(starting) && l.ends_with(ending))
            .filter_map(|l| l.split("dashboard.platform.board-").nth(1))
            .filter_map(|rest| rest.get(..2))
            .map(|n| format!("Board {n}"))
            .collect();
        found.sort();
        found
    };
    let done = boards("(create dashboard)", "done ");
    let stopped = boards("interrupted before its write was sent", "  ");
    let sent = sandbox.request_log()[log_before..]
        .iter()
        .filter(|entry| entry.method == "POST")
        .count();
    let existing = names(&standalone_dashboards(&sandbox));
    assert_eq!(existing, done, "{stderr}");
    assert_eq!(sent, done.len(), "{stderr}");
    assert!(
        stopped.iter().all(|board| !existing.contains(board)),
        "{stderr}"
    );
    let created = existing.len();
    assert!(created < SLOW_BOARDS, "{stderr}");

    // The report: what exists is what was reported done, the rest not started (not failed),
    // the started-but-stopped steps among them.
    assert_eq!(status.code(), Some(1), "{stderr}");
    assert!(
        stderr.contains(&format!(
            "apply interrupted: {created} done, 0 failed, 0 stale, 0 skipped, {} not started",
            SLOW_BOARDS - created
        )),
        "{stderr}"
    );
    assert!(!stopped.is_empty(), "no started step was stopped: {stderr}");

    // The next plan shows exactly what is left, and a second apply converges with no duplicate.
    let left = binary(&sandbox, &workspace).run(["plan", path]);
    let creates = left
        .stdout
        .lines()
        .filter(|l| l.trim_start().starts_with("+ dashboard."))
        .count();
    assert_eq!(creates, SLOW_BOARDS - created, "{left:?}");
    let second = binary(&sandbox, &workspace).run(["apply", path, "--yes"]);
    second.assert_exit(0);
    let expected: Vec<String> = (0..SLOW_BOARDS).map(|i| format!("Board {i:02}")).collect();
    assert_eq!(names(&standalone_dashboards(&sandbox)), expected);
    assert!(!plans_changes(&sandbox, &workspace, &config));
}
