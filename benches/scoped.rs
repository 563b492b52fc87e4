//! A one-object change on the `large` seed (20 services, 100 pipes, 300 dashboards, 1,000
//! alerts), with the `converge` release binary against the sandbox under the real rate limits
//! (cloud 10 requests per 10 s, observability 100 per minute; the client paces itself to the
//! same): what reading only what the work needs costs, in requests and in time.
//!
//! - `apply --only` of one changed alert of the managed stack (through the cloud key): its
//!   stack's three lists, the re-read before the write, the write.
//! - `apply --plan` of a saved plan with that one change (saved by `plan --only ... --out`, not
//!   timed): the stale check's read of the alerts list, the re-read, the write.
//! - `plan --only 'alert.*'`: both stacks' three lists.
//!
//! Each timed run gets a fresh sandbox (not timed), so no run starts inside an earlier run's
//! rate-limit window. Request counts come from the sandbox's request log and are printed once
//! per bench; a run that sends more than its bound, or meets a 429, stops the bench.
//!
//! The no-op plan of the whole seed (27 requests, about 20 s under these limits) is timed by
//! `plan_live`; here its request count is checked once, without limits.
//!
//! Run with `cargo bench --bench scoped`.

use std::cell::Cell;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use converge::sandbox::{
    SandboxHandle, SandboxOptions, Seed, large_config, large_config_changing_alert,
};
use criterion::{Criterion, SamplingMode, criterion_group, criterion_main};

fn sandbox(rate_limit: bool) -> SandboxHandle {
    SandboxHandle::spawn(SandboxOptions {
        seed: Seed::Large,
        rate_limit,
        ..SandboxOptions::default()
    })
    .expect("the sandbox starts")
}

/// The release binary in `dir`, pointed at `sandbox`, pacing itself to the real limits.
fn converge(sandbox: &SandboxHandle, dir: &Path, args: &[&str]) -> Command {
    let mut command = Command::new(env!("CARGO_BIN_EXE_converge"));
    command
        .current_dir(dir)
        .envs(sandbox.environment())
        .env("NO_COLOR", "1")
        .args(args);
    command
}

fn run(mut command: Command) -> Duration {
    let started = Instant::now();
    let output = command.output().expect("the binary runs");
    let elapsed = started.elapsed();
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    elapsed
}

/// Requests the sandbox served: (all, 429s, a line by route).
fn requests(sandbox: &SandboxHandle) -> (usize, usize, String) {
    let log = sandbox.request_log();
    let throttled = log.iter().filter(|e| e.status == 429).count();
    let mut routes: Vec<String> = log
        .iter()
        .map(|e| format!("{} {}", e.method, e.route))
        .collect();
    routes.sort();
    routes.dedup_by(|a, b| a == b);
    let lines: Vec<String> = routes
        .iter()
        .map(|route| {
            let n = log
                .iter()
                .filter(|e| format!("{} {}", e.method, e.route) == *route)
                .count();
            format!("{n} x {route}")
        })
        .collect();
    (log.len(), throttled, lines.join("; "))
}

/// One timed command: its name, the most requests it may send, what readies a fresh sandbox
/// for it (not timed) and the command.
struct Case<'a> {
    name: &'a str,
    bound: usize,
    prepare: &'a dyn Fn(&SandboxHandle),
    command: &'a dyn Fn(&SandboxHandle) -> Command,
    /// Whether its requests were printed already.
    printed: Cell<bool>,
}

impl Case<'_> {
    /// Times `iters` runs, each against a fresh sandbox; checks every run's requests and prints
    /// them once.
    fn time(&self, iters: u64) -> Duration {
        let mut total = Duration::ZERO;
        for _ in 0..iters {
            let sandbox = sandbox(true);
            (self.prepare)(&sandbox);
            sandbox.reset_log();
            total += run((self.command)(&sandbox));
            let (count, throttled, lines) = requests(&sandbox);
            let name = self.name;
            assert!(count <= self.bound, "{name}: {count} requests: {lines}");
            assert_eq!(throttled, 0, "{name}: throttled: {lines}");
            if !self.printed.replace(true) {
                println!(
                    "{name}: requests: {count} (at most {}); 429s received: 0; {lines}",
                    self.bound
                );
            }
        }
        total
    }
}

fn one_change(c: &mut Criterion) {
    let dir = tempfile::tempdir().expect("a temp dir");
    let (text, address) = large_config_changing_alert(0);
    let config: PathBuf = dir.path().join("large.yaml");
    std::fs::write(&config, &text).expect("config written");
    let config = config.to_str().expect("a UTF-8 path").to_string();
    let saved = dir.path().join("plan.json");
    let saved = saved.to_str().expect("a UTF-8 path").to_string();
    let whole = dir.path().join("whole.yaml");
    std::fs::write(&whole, large_config(0)).expect("config written");
    let whole = whole.to_str().expect("a UTF-8 path").to_string();

    // The no-op plan of the whole seed: one list per kind, whatever the estate's size.
    let unlimited = sandbox(false);
    let mut plan = converge(&unlimited, dir.path(), &["plan", &whole]);
    plan.env("CONVERGE_CLOUD_RATE_LIMIT", "1000/1s")
        .env("CONVERGE_OBSERVABILITY_RATE_LIMIT", "1000/1s");
    run(plan);
    let (count, _, lines) = requests(&unlimited);
    assert_eq!(count, 27, "{lines}");
    println!("no-op plan of the whole seed: requests: {count}; {lines}");
    drop(unlimited);

    let nothing = |_: &SandboxHandle| {};
    let save_plan = |sandbox: &SandboxHandle| {
        run(converge(
            sandbox,
            dir.path(),
            &["plan", &config, "--only", &address, "--out", &saved],
        ));
    };
    let apply_only = |sandbox: &SandboxHandle| {
        converge(
            sandbox,
            dir.path(),
            &["apply", &config, "--yes", "--only", &address],
        )
    };
    let apply_plan = |sandbox: &SandboxHandle| {
        converge(sandbox, dir.path(), &["apply", "--plan", &saved, "--yes"])
    };
    let plan_alerts = |sandbox: &SandboxHandle| {
        converge(sandbox, dir.path(), &["plan", &config, "--only", "alert.*"])
    };
    let cases = [
        Case {
            name: "apply --only the alert",
            bound: 5,
            prepare: &nothing,
            command: &apply_only,
            printed: Cell::new(false),
        },
        Case {
            name: "apply --plan with that one change",
            bound: 5,
            prepare: &save_plan,
            command: &apply_plan,
            printed: Cell::new(false),
        },
        Case {
            name: "plan --only 'alert.*'",
            bound: 6,
            prepare: &nothing,
            command: &plan_alerts,
            printed: Cell::new(false),
        },
    ];

    let mut group = c.benchmark_group("large seed, one alert changed, real rate limits");
    // Every run sets up a fresh large sandbox besides what is timed: few, flat samples.
    group
        .sample_size(10)
        .sampling_mode(SamplingMode::Flat)
        .measurement_time(Duration::from_secs(10));
    for case in &cases {
        group.bench_function(case.name, |b| b.iter_custom(|iters| case.time(iters)));
    }
    group.finish();
}

criterion_group!(benches, one_change);
criterion_main!(benches);
