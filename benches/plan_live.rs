//! `converge plan` (the release binary) of a config covering the whole `large` seed, no-op,
//! against the sandbox with the real services' rate limits: wall time against the floor the
//! limits allow, requests sent, and 429s received (must be none).
//!
//! The floor: the cloud key may send 10 requests in any 10 s, so request `k` (from 0) cannot
//! leave before `floor(k / 10) * 10` s; `n` requests need at least `floor((n - 1) / 10) * 10` s.
//! The observability key (100 per minute) is computed the same way; the plan waits for the
//! slower of the two.
//!
//! Run with `cargo bench --bench plan_live` (a plain timed harness: each run takes ~20 s).
//! The binary runs under `/usr/bin/time` (when present) for its peak resident memory.

use std::path::Path;
use std::time::{Duration, Instant};

use converge::sandbox::{SandboxHandle, SandboxOptions, Seed, large_config};

#[path = "support/mem.rs"]
mod mem;

const RUNS: usize = 3;

fn floor(requests: usize, per_window: usize, window: Duration) -> Duration {
    if requests == 0 {
        return Duration::ZERO;
    }
    window * u32::try_from((requests - 1) / per_window).unwrap_or(u32::MAX)
}

fn main() {
    let dir = tempfile::tempdir().expect("a temp dir");
    let config = dir.path().join("large.yaml");
    std::fs::write(&config, large_config(0)).expect("config written");
    let binary = env!("CARGO_BIN_EXE_converge");
    let report = dir.path().join("time.txt");
    let mut times = Vec::new();
    let mut peaks = Vec::new();
    let (mut cloud, mut observability, mut throttled) = (0, 0, 0);
    for _ in 0..RUNS {
        // A fresh sandbox per run, so no run starts inside the previous run's windows.
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
            .args(["plan", "--detailed-exitcode"])
            .arg(&config)
            .output()
            .expect("the binary runs");
        let elapsed = started.elapsed();
        assert_eq!(
            output.status.code(),
            Some(0),
            "a no-op plan: {}",
            String::from_utf8_lossy(&output.stderr)
        );
        let log = sandbox.request_log();
        cloud = log.iter().filter(|e| e.route.starts_with("/v1/")).count();
        observability = log.iter().filter(|e| e.route.starts_with("/api/")).count();
        throttled += log.iter().filter(|e| e.status == 429).count();
        times.push(elapsed);
        peaks.extend(mem::child_peak_kib(&report));
    }
    let limit = floor(cloud, 10, Duration::from_secs(10)).max(floor(
        observability,
        100,
        Duration::from_secs(60),
    ));
    times.sort();
    let median = times[times.len() / 2];
    let overhead = median.as_secs_f64() / limit.as_secs_f64().max(f64::EPSILON) - 1.0;
    println!("plan_live: large seed, no-op plan, real rate limits, {RUNS} runs");
    println!(
        "  requests: {} ({cloud} cloud, {observability} observability); 429s received: {throttled}",
        cloud + observability
    );
    println!("  floor the limits allow: {:.2} s", limit.as_secs_f64());
    println!("  peak memory: {}", mem::describe_child_peak(&peaks));
    println!(
        "  wall time: min {:.2} s, median {:.2} s, max {:.2} s ({:+.1}% over the floor)",
        times[0].as_secs_f64(),
        median.as_secs_f64(),
        times[times.len() - 1].as_secs_f64(),
        overhead * 100.0
    );
    // What a tool that reads each object on its own would send: 4 GETs per service and one per
    // pipe, dashboard and alert (the managed stack's through the cloud key).
    let (services, pipes, managed, global) = (20, 100, (150, 500), (150, 500));
    let one_by_one_cloud = 4 * services + pipes + managed.0 + managed.1;
    let one_by_one_observability = global.0 + global.1;
    let one_by_one_floor = floor(one_by_one_cloud, 10, Duration::from_secs(10)).max(floor(
        one_by_one_observability,
        100,
        Duration::from_secs(60),
    ));
    println!(
        "  one request per object: {} requests ({one_by_one_cloud} cloud, \
         {one_by_one_observability} observability), floor {:.0} s",
        one_by_one_cloud + one_by_one_observability,
        one_by_one_floor.as_secs_f64()
    );
    assert_eq!(throttled, 0, "the plan must never be throttled");
}
