//! Pacing that fills the windows of each key as the server counts them (issue 38, part 2): a
//! whole config's plan reads both keys at once, and the observability writes, which wait for
//! the plan (and so for the cloud key's slower reads), fill what is left of the token's first
//! window and then the next window whole, instead of spreading over a window from each answer.
//! Read from the sandbox's log: when each request arrived, counted in the sandbox's own fixed
//! windows (scaled down), never the wall clock of the test.

use std::time::{Duration, Instant};

use converge::sandbox::{LogEntry, SandboxOptions, Seed, large_config_changing_alerts};

use super::*;
use crate::common;

/// The token's window: a minute divided by the sandbox's divisor.
const DIVISOR: u32 = 6;
const WINDOW: Duration = Duration::from_secs(60 / DIVISOR as u64);

/// When each request of `log` whose route starts with `prefix` arrived, in order.
fn arrivals(log: &[LogEntry], prefix: &str) -> Vec<Instant> {
    let mut times: Vec<Instant> = log
        .iter()
        .filter(|e| e.route.starts_with(prefix))
        .filter_map(|e| e.arrived)
        .collect();
    times.sort();
    times
}

/// The requests at `times` counted in fixed windows of `window`, as the sandbox counts them (a
/// window opens with the first request after the last one closed): each window's opening and
/// how many requests it holds.
fn windows(times: &[Instant], window: Duration) -> Vec<(Instant, usize)> {
    let mut counted: Vec<(Instant, usize)> = Vec::new();
    for time in times {
        match counted.last_mut() {
            Some((opened, count)) if *time < *opened + window => *count += 1,
            _ => counted.push((*time, 1)),
        }
    }
    counted
}

/// 120 alert changes on the standalone stack of the whole `large` config: the plan's 24 cloud
/// reads take five cloud windows (the client paces the cloud key at 5 a second, slower than the
/// sandbox allows), its 3 observability reads go at once. Of the 124 or 125 observability
/// requests, the first window holds 100 (the 3 reads and 97 of the apply's, which waited for the
/// plan); the rest all go at the next window's opening, not 3 then and the rest a window after
/// the apply's first write. No window holds more than the limit, no 429.
///
/// On a loaded machine the plan can outlast the first window, which then holds only the plan's 3
/// reads; the writes then open the next window. Either way every window but the last is full
/// (but such a first one), and a full window's successor opens at its closing, not a window
/// after the first answer in it.
// Ignored in `cargo test`, run by `.ci/run`'s `--ignored` step: a client starved of CPU by
// the whole suite's hundreds of parallel tests cannot send a window's requests in time
// (seen as [47, 57, 21] at load 20), which says nothing about the pacing.
#[test]
#[ignore = "pacing measured from arrival times: run by .ci/run's --ignored step, not under the whole suite's load"]
fn the_token_fills_its_first_window_after_the_cloud_reads_and_the_next_at_its_opening() {
    let sandbox = common::sandbox(SandboxOptions {
        seed: Seed::Large,
        rate_limit: true,
        rate_window_divisor: DIVISOR,
        ..SandboxOptions::default()
    });
    let workspace = Workspace::new();
    let (text, changed) = large_config_changing_alerts(500..620);
    assert_eq!(changed.len(), 120);
    // The standalone stack's alerts (the seed's second stack).
    assert!(
        changed.iter().all(|a| a.starts_with("alert.global.")),
        "{changed:?}"
    );
    let config = workspace.write("large.yaml", &text);
    let out = Converge::new(&sandbox)
        .cwd(&workspace)
        .env("CONVERGE_CLOUD_RATE_LIMIT", "5/1s")
        .env(
            "CONVERGE_OBSERVABILITY_RATE_LIMIT",
            format!("100/{}s", WINDOW.as_secs()),
        )
        .run(["apply", config.as_str(), "--yes"]);
    out.assert_exit(0);
    let log = sandbox.request_log();
    assert!(log.iter().all(|e| e.status != 429), "{out:?}");
    let token = arrivals(&log, "/api/v2");
    let cloud = arrivals(&log, "/v1");
    // The plan's 3 reads, the 120 writes and the list reads they were checked against (one
    // per 99 writes, or one for both windows when it is young enough at the second).
    let reads = token.len() - 123;
    assert!((1..=2).contains(&reads), "{:?}", routes(&log));
    assert_eq!(cloud.len(), 24, "{:?}", routes(&log));
    // The apply's writes waited for the plan, which waited for the cloud reads.
    let plan_done = cloud[23];
    assert!(token[3] > plan_done);
    assert!(plan_done - cloud[0] > Duration::from_secs(4));
    let counted = windows(&token, WINDOW);
    let counts: Vec<usize> = counted.iter().map(|(_, count)| *count).collect();
    // The first window is the plan's reads alone only when the plan outlasted it.
    let writes_from = usize::from(counts.first() == Some(&3) && token[3] - token[0] >= WINDOW);
    assert_eq!(
        counts[writes_from..],
        [100, token.len() - 3 * writes_from - 100],
        "{counts:?}"
    );
    // The second window's requests leave together at its opening, a window after the first
    // one's opening, not a window after the first answer in it.
    let (full, next) = (counted[writes_from], counted[writes_from + 1]);
    assert!(next.0 - full.0 < WINDOW + WINDOW / 6, "{counts:?}");
    let second = &token[token.len() - next.1..];
    let spread = second[second.len() - 1] - second[0];
    assert!(spread < WINDOW / 3, "{spread:?}");
}

/// Each logged request as `METHOD route`.
fn routes(log: &[LogEntry]) -> Vec<String> {
    log.iter()
        .map(|e| format!("{} {}", e.method, e.route))
        .collect()
}

/// Dashboards `Board 000`... tagged `tag`: `count` on the managed stack `prod` (the cloud key)
/// and `count` on the standalone stack `zeta` (the token), which the plan orders after `prod`.
fn both_keys(count: usize, tag: &str) -> String {
    let board = |i: usize| {
        format!(
            "      d{i:03}:\n        name: Board {i:03}\n        tags: [{tag}]\n        tiles:\n          \
             - name: Requests\n            x: 0\n            y: 0\n            w: 6\n            h: 4\n            \
             series:\n              - type: time\n                source: Logs\n                aggFn: count\n"
        )
    };
    let boards: String = (0..count).map(board).collect();
    format!(
        "version: 1\norganization: ${{env:CONVERGE_ORG_ID}}\ncloud:\n  url: ${{env:CONVERGE_CLOUD_URL}}\n  \
         keyId: ${{env:CONVERGE_KEY_ID}}\n  keySecret: ${{env:CONVERGE_KEY_SECRET}}\nobservability:\n  \
         url: ${{env:CONVERGE_OBSERVABILITY_URL}}\n  token: ${{env:CONVERGE_OBS_TOKEN}}\nservices:\n  \
         analytics:\n    id: 1c7d8c62-0b0f-4f0e-9b2e-6a3c8a3b7e11\nstacks:\n  prod:\n    \
         service: analytics\n    dashboards:\n{boards}  zeta:\n    api: observability\n    dashboards:\n{boards}"
    )
}

/// 30 dashboard updates on each key, at the default parallelism: the cloud key's steps wait
/// for its windows (10 requests a scaled second), and the token's steps do not wait for them:
/// the first observability write arrives while the cloud key is still in its first window of
/// the apply, not after the cloud steps are done.
#[test]
fn steps_on_one_key_do_not_wait_for_the_other_keys_rate_limit() {
    let sandbox = common::sandbox(SandboxOptions {
        rate_limit: false,
        rate_window_divisor: DIVISOR,
        ..SandboxOptions::default()
    });
    let workspace = Workspace::new();
    let converge = Converge::new(&sandbox)
        .cwd(&workspace)
        .env("CONVERGE_CLOUD_RATE_LIMIT", "10/1667ms")
        .env(
            "CONVERGE_OBSERVABILITY_RATE_LIMIT",
            format!("100/{}s", WINDOW.as_secs()),
        );
    let created = workspace.write("a.yaml", &both_keys(30, "team-a"));
    converge
        .run(["apply", created.as_str(), "--yes"])
        .assert_exit(0);
    sandbox.set_rate_limit(true);
    sandbox.reset_log();
    let retagged = workspace.write("b.yaml", &both_keys(30, "team-b"));
    converge
        .run(["apply", retagged.as_str(), "--yes"])
        .assert_exit(0);
    let log = sandbox.request_log();
    assert!(log.iter().all(|e| e.status != 429), "{:?}", routes(&log));
    let writes = |prefix: &str| {
        let puts: Vec<LogEntry> = log.iter().filter(|e| e.method == "PUT").cloned().collect();
        arrivals(&puts, prefix)
    };
    let (cloud, token) = (writes("/v1"), writes("/api/v2"));
    assert_eq!((cloud.len(), token.len()), (30, 30));
    let before = cloud.iter().filter(|at| **at < token[0]).count();
    assert!(
        before < 10,
        "{before} cloud writes went before the first token write"
    );
}
