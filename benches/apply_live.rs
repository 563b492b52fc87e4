//! `converge apply` (the release binary) creating 100 dashboards (3 tiles each) and 300 alerts
//! on the standalone observability stack of the `large` seed, against the sandbox with the real
//! rate limits (observability: 100 requests per minute): wall time against the floor the limit
//! allows, requests per second against the limit, 429s received (must be none), and the
//! binary's peak memory. Alerts need their dashboard's tile ids, so each alert waits for its
//! dashboard: the order constrains the schedule, the budget should still stay busy.
//!
//! The floor: request `k` (from 0) cannot leave before `floor(k / 100) * 60` s, so `n` requests
//! need at least `floor((n - 1) / 100) * 60` s. Run with `cargo bench --bench apply_live`
//! (a plain timed harness, one run of about four minutes).

use std::fmt::Write as _;
use std::path::Path;
use std::time::{Duration, Instant};

use converge::sandbox::{SandboxHandle, SandboxOptions, Seed};

#[path = "support/mem.rs"]
mod mem;

const DASHBOARDS: usize = 100;
const ALERTS_PER_DASHBOARD: usize = 3;
const TILES: usize = 3;

/// A config naming only new objects on the standalone stack (`prune: false` keeps the seed's).
fn config() -> String {
    let mut y = String::from(
        "version: 1\norganization: ${env:CONVERGE_ORG_ID}\nobservability:\n  \
         url: ${env:CONVERGE_OBSERVABILITY_URL}\n  token: ${env:CONVERGE_OBS_TOKEN}\n\
         stacks:\n  global:\n    api: observability\n    prune: false\n    dashboards:\n",
    );
    for d in 0..DASHBOARDS {
        let _ = write!(
            y,
            "      bench-{d:03}:\n        name: bench-{d:03}\n        tags: [bench]\n        tiles:\n"
        );
        for t in 0..TILES {
            let _ = write!(
                y,
                "          - name: tile-{t}\n            x: {x}\n            y: {row}\n            \
                 w: 6\n            h: 4\n            series:\n              - type: time\n                \
                 source: Logs\n                aggFn: count\n                \
                 where: \"service:bench-{d}\"\n                whereLanguage: lucene\n",
                x = (t % 2) * 6,
                row = (t / 2) * 4,
            );
        }
    }
    y.push_str("    alerts:\n");
    for d in 0..DASHBOARDS {
        for a in 0..ALERTS_PER_DASHBOARD {
            let _ = write!(
                y,
                "      bench-{d:03}-a{a}:\n        name: bench-{d:03} alert {a}\n        \
                 dashboard: bench-{d:03}\n        tile: tile-{a}\n        threshold: {t}\n        \
                 thresholdType: above\n        interval: 5m\n        \
                 channel: {{ type: webhook, webhookId: 65f5e4a3b9e77c001a789012 }}\n",
                t = 10 * (a + 1)
            );
        }
    }
    y
}

fn floor(requests: usize, per_window: usize, window: Duration) -> Duration {
    if requests == 0 {
        return Duration::ZERO;
    }
    window * u32::try_from((requests - 1) / per_window).unwrap_or(u32::MAX)
}

fn main() {
    // `cargo bench --bench apply_live -- --print-config` shows the config and stops.
    if std::env::args().any(|arg| arg == "--print-config") {
        print!("{}", config());
        return;
    }
    let dir = tempfile::tempdir().expect("a temp dir");
    let config_path = dir.path().join("bench.yaml");
    std::fs::write(&config_path, config()).expect("config written");
    let report = dir.path().join("time.txt");
    let binary = env!("CARGO_BIN_EXE_converge");
    let sandbox = SandboxHandle::spawn(SandboxOptions {
        seed: Seed::Large,
        rate_limit: true,
        ..SandboxOptions::default()
    })
    .expect("the sandbox starts");
    let started = Instant::now();
    let output = mem::timed_command(Path::new(binary), &report)
        .current_dir(dir.path())
        .envs(sandbox.environment())
        .env("NO_COLOR", "1")
        .args(["apply", "--yes"])
        .arg(&config_path)
        .output()
        .expect("the binary runs");
    let elapsed = started.elapsed();
    assert_eq!(
        output.status.code(),
        Some(0),
        "the apply succeeds: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    let log = sandbox.request_log();
    let count = |method: &str, route: &str| {
        log.iter()
            .filter(|e| e.method == method && e.route == route && e.status < 300)
            .count()
    };
    let dashboards = count("POST", "/api/v2/dashboards");
    let alerts = count("POST", "/api/v2/alerts");
    let observability = log.iter().filter(|e| e.route.starts_with("/api/")).count();
    let cloud = log.iter().filter(|e| e.route.starts_with("/v1/")).count();
    let throttled = log.iter().filter(|e| e.status == 429).count();
    let limit = floor(observability, 100, Duration::from_secs(60));
    let rate = observability as f64 / elapsed.as_secs_f64();
    let allowed = 100.0 / 60.0;
    println!(
        "apply_live: {DASHBOARDS} dashboards ({TILES} tiles each) and {} alerts created on the \
         standalone stack of the large seed, real rate limits, 1 run",
        DASHBOARDS * ALERTS_PER_DASHBOARD
    );
    println!(
        "  requests: {} ({observability} observability, {cloud} cloud); created: {dashboards} \
         dashboards, {alerts} alerts; 429s received: {throttled}",
        observability + cloud
    );
    println!("  floor the limit allows: {:.2} s", limit.as_secs_f64());
    println!(
        "  wall time: {:.2} s ({:+.1}% over the floor)",
        elapsed.as_secs_f64(),
        (elapsed.as_secs_f64() / limit.as_secs_f64().max(f64::EPSILON) - 1.0) * 100.0
    );
    println!(
        "  request rate: {rate:.3}/s against the limit's {allowed:.3}/s ({:.1}% of it)",
        rate / allowed * 100.0
    );
    let peaks: Vec<u64> = mem::child_peak_kib(&report).into_iter().collect();
    println!("  peak memory: {}", mem::describe_child_peak(&peaks));
    assert_eq!(
        (dashboards, alerts),
        (DASHBOARDS, DASHBOARDS * ALERTS_PER_DASHBOARD)
    );
    assert_eq!(throttled, 0, "the apply must never be throttled");
}
