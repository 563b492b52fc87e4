//! Applying 100 dashboards and 300 alerts (3 per dashboard, each waiting for its dashboard) to
//! the standalone observability API.
//!
//! 1. Once, under the real rate limit (the sandbox enforces 100 requests per minute per token,
//!    the client paces itself to it): how busy apply keeps the budget. The first window's 100
//!    requests leave at once; after that the budget refills by 100 a minute, so the figure is
//!    the share of the shortest time the limit allows (a minute per further 100 requests)
//!    in the real time, as a rate against 100/60 = 1.67/s.
//!    Also checked: no 429, and the order (an alert never created before its dashboard).
//! 2. With criterion, the same shape at a tenth of the size and no limit: apply's own cost.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use converge::api::clients::RateLimits;
use converge::apply;
use converge::sandbox::{SandboxHandle, SandboxOptions};
use criterion::{Criterion, criterion_group, criterion_main};

#[path = "support/live.rs"]
mod live;
#[path = "support/mem.rs"]
mod mem;

const ALERTS_PER_BOARD: usize = 3;

fn config_text(boards: usize) -> String {
    let mut text = String::from(
        "version: 1\norganization: ${env:CONVERGE_ORG_ID}\nobservability:\n  url: ${env:CONVERGE_OBSERVABILITY_URL}\n  token: ${env:CONVERGE_OBS_TOKEN}\nstacks:\n  platform:\n    api: observability\n    dashboards:\n",
    );
    for b in 0..boards {
        text.push_str(&format!(
            "      board-{b}:\n        name: Board {b}\n        tiles:\n"
        ));
        for t in 0..ALERTS_PER_BOARD {
            text.push_str(&format!(
                "          - name: Tile {t}\n            x: 0\n            y: {}\n            w: 6\n            h: 4\n            series:\n              - type: time\n                source: Logs\n                aggFn: count\n",
                t * 4
            ));
        }
    }
    text.push_str("    alerts:\n");
    for b in 0..boards {
        for t in 0..ALERTS_PER_BOARD {
            text.push_str(&format!(
                "      alert-{b}-{t}:\n        name: Alert {b}-{t}\n        dashboard: board-{b}\n        tile: Tile {t}\n        threshold: 10\n        thresholdType: above\n        interval: 5m\n        channel: {{ type: webhook, webhookId: 65f5e4a3b9e77c001a789012 }}\n"
            ));
        }
    }
    text
}

/// Plans and applies `boards` dashboards against `sandbox`; returns the report and how long
/// the whole run (read, plan, apply) took.
fn apply_boards(
    runtime: &tokio::runtime::Runtime,
    sandbox: &SandboxHandle,
    path: &Path,
) -> (apply::Report, Duration) {
    let started = Instant::now();
    let report = live::apply_file(runtime, sandbox, path, RateLimits::default());
    (report, started.elapsed())
}

fn write_config(dir: &tempfile::TempDir, boards: usize) -> PathBuf {
    let path = dir.path().join(format!("boards-{boards}.yaml"));
    std::fs::write(&path, config_text(boards)).expect("the config is written");
    path
}

fn under_the_real_limit() {
    let runtime = tokio::runtime::Runtime::new().expect("a runtime");
    let dir = tempfile::tempdir().expect("a temporary directory");
    let path = write_config(&dir, 100);
    let sandbox = SandboxHandle::spawn(SandboxOptions::default()).expect("the sandbox starts");
    let (report, elapsed) = apply_boards(&runtime, &sandbox, &path);
    assert_eq!(report.summary.done, 400, "{}", report.to_json());
    let log = sandbox.request_log();
    let limited = log.iter().filter(|e| e.status == 429).count();
    // Order: at every point, alerts created <= 3 x dashboards created.
    let (mut boards, mut alerts) = (0usize, 0usize);
    for entry in &log {
        if entry.method == "POST" && entry.route.ends_with("/dashboards") {
            boards += 1;
        }
        if entry.method == "POST" && entry.route.ends_with("/alerts") {
            alerts += 1;
            assert!(
                alerts <= boards * ALERTS_PER_BOARD,
                "an alert was created before its dashboard"
            );
        }
    }
    let requests = log.len();
    // Under a budget of 100 per minute, N requests cannot end sooner than a minute for every
    // further 100 after the first 100: 405 requests take at least 4 minutes. The share of that
    // floor in the real time is how busy apply kept the budget; times the limit, the rate.
    let windows = requests.div_ceil(100).saturating_sub(1) as f64;
    let floor = 60.0 * windows;
    let busy = floor / elapsed.as_secs_f64();
    let limit = 100.0 / 60.0;
    println!(
        "apply 100 dashboards + 300 alerts under 100 requests/min: {requests} requests in \
         {:.1} s (the limit allows no less than {floor:.0} s): {:.3} requests/s paced = \
         {:.1}% of the limit ({limit:.3}/s); {limited} answered 429",
        elapsed.as_secs_f64(),
        busy * limit,
        100.0 * busy
    );
    // This run is the process's first work: its peak is the apply's, with the sandbox's.
    mem::report_process_peak("apply under the real limit (sandbox and apply in one process)");
    assert_eq!(limited, 0, "the client went over the limit");
    assert!(
        busy >= 0.90,
        "the budget was not kept busy: {:.1}% of the limit",
        100.0 * busy
    );
}

fn bench(c: &mut Criterion) {
    under_the_real_limit();
    let runtime = tokio::runtime::Runtime::new().expect("a runtime");
    let dir = tempfile::tempdir().expect("a temporary directory");
    let path = write_config(&dir, 10);
    let mut group = c.benchmark_group("apply");
    group.sample_size(10);
    group.bench_function("10 dashboards + 30 alerts, no limit", |b| {
        b.iter_custom(|iterations| {
            let mut total = Duration::ZERO;
            for _ in 0..iterations {
                let sandbox = SandboxHandle::spawn(SandboxOptions {
                    rate_limit: false,
                    ..SandboxOptions::default()
                })
                .expect("the sandbox starts");
                let (report, elapsed) = apply_boards(&runtime, &sandbox, &path);
                assert_eq!(report.summary.done, 40);
                total += elapsed;
            }
            total
        });
    });
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
