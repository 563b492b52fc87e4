//! Applies against the rate-limit floor (issue 26): whole-config applies of 10, 50, 200 and
//! 1,000 dashboard updates on each API, with the requests each change costs, the wall time
//! against the floor, and the age of the newest list read behind each write (p50, p90).
//!
//! The sandbox's windows are scaled down so the run takes minutes, not hours: the cloud key's
//! 10 requests per 10 s become 10 per second (the managed stack), the observability token's
//! 100 per minute 100 per 10 s (the standalone stack; per second, a debug build on a shared
//! machine cannot send 100 requests a second), and the client paces to the same limits.
//! Request counts do not depend on the scale; floors and read ages scale with the window
//! (times 10 on the cloud API, 6 on the observability API). The time over the floor is about
//! a fixed amount per window (the pacing margin, a round trip), so its share shrinks by the
//! same factor at the real windows. The dashboards
//! are created first without a limit, from a state file the limited sandbox then serves.
//! `CONVERGE_BENCH_SIZES` (e.g. `10,50`) picks the sizes; the default is all four.

use std::path::Path;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use converge::api::clients::RateLimits;
use converge::api::transport::RateLimit;
use converge::apply::{self, Options, Progress};
use converge::commands::connect;
use converge::config::{self, LoadMode};
use converge::output::Printer;
use converge::plan::{self, PlanOptions};
use converge::sandbox::{SandboxHandle, SandboxOptions};
use criterion::{Criterion, criterion_group, criterion_main};

/// Which stack the dashboards live in.
#[derive(Clone, Copy)]
enum Behind {
    Cloud,
    Observability,
}

impl Behind {
    fn name(self) -> &'static str {
        match self {
            Behind::Cloud => "cloud API (managed stack)",
            Behind::Observability => "observability API (standalone stack)",
        }
    }
    fn requests(self) -> usize {
        match self {
            Behind::Cloud => 10,
            Behind::Observability => 100,
        }
    }
    fn divisor(self) -> u32 {
        match self {
            Behind::Cloud => 10,
            Behind::Observability => 6,
        }
    }
    /// The scaled window.
    fn window(self) -> Duration {
        match self {
            Behind::Cloud => Duration::from_secs(1),
            Behind::Observability => Duration::from_secs(10),
        }
    }
    fn list_route(self) -> &'static str {
        match self {
            Behind::Cloud => {
                "/v1/organizations/{organizationId}/services/{serviceId}/stack/dashboards"
            }
            Behind::Observability => "/api/v2/dashboards",
        }
    }
    fn config(self, count: usize, tag: &str) -> String {
        let mut text = match self {
            Behind::Cloud => String::from(
                "version: 1\norganization: ${env:CONVERGE_ORG_ID}\ncloud:\n  url: ${env:CONVERGE_CLOUD_URL}\n  keyId: ${env:CONVERGE_KEY_ID}\n  keySecret: ${env:CONVERGE_KEY_SECRET}\nservices:\n  analytics:\n    id: 1c7d8c62-0b0f-4f0e-9b2e-6a3c8a3b7e11\nstacks:\n  prod:\n    service: analytics\n    dashboards:\n",
            ),
            Behind::Observability => String::from(
                "version: 1\norganization: ${env:CONVERGE_ORG_ID}\nobservability:\n  url: ${env:CONVERGE_OBSERVABILITY_URL}\n  token: ${env:CONVERGE_OBS_TOKEN}\nstacks:\n  platform:\n    api: observability\n    dashboards:\n",
            ),
        };
        for i in 0..count {
            text.push_str(&format!(
                "      d{i:04}:\n        name: Board {i:04}\n        tags: [{tag}]\n        tiles:\n          - name: Requests\n            x: 0\n            y: 0\n            w: 6\n            h: 4\n            series:\n              - type: time\n                source: Logs\n                aggFn: count\n"
            ));
        }
        text
    }
}

/// A request as the sandbox logged it: when, method, route template, status.
type Seen = (Instant, String, String, u16);

/// Plans and applies `text` against `sandbox` with `limits`; returns the report.
fn apply_text(
    runtime: &tokio::runtime::Runtime,
    sandbox: &SandboxHandle,
    dir: &Path,
    text: &str,
    limits: RateLimits,
) -> apply::Report {
    let path = dir.join("converge.yaml");
    std::fs::write(&path, text).expect("the config is written");
    let environment = sandbox.environment();
    let lookup = |name: &str| {
        environment
            .iter()
            .find(|(key, _)| *key == name)
            .map(|(_, value)| value.clone())
    };
    let loaded = config::load_with_env(std::slice::from_ref(&path), LoadMode::Live, &lookup);
    let config = loaded.config.expect("the bench config is valid");
    let printer = Printer::plain();
    runtime.block_on(async {
        let (clients, live) = connect::connect_and_read_with(&config, 4, limits, &printer)
            .await
            .expect("the live state is read");
        let (plan, _) = plan::plan(&config, &live, &PlanOptions::default());
        let (_cancel_tx, cancel_rx) = tokio::sync::watch::channel(false);
        apply::execute(
            &plan,
            clients,
            &Options::default(),
            cancel_rx,
            &Progress::quiet(),
        )
        .await
    })
}

/// Plans `text` against `sandbox` (reads only).
fn plan_text(
    runtime: &tokio::runtime::Runtime,
    sandbox: &SandboxHandle,
    dir: &Path,
    text: &str,
    limits: RateLimits,
) {
    let path = dir.join("plan.yaml");
    std::fs::write(&path, text).expect("the config is written");
    let environment = sandbox.environment();
    let lookup = |name: &str| {
        environment
            .iter()
            .find(|(key, _)| *key == name)
            .map(|(_, value)| value.clone())
    };
    let loaded = config::load_with_env(std::slice::from_ref(&path), LoadMode::Live, &lookup);
    let config = loaded.config.expect("the bench config is valid");
    runtime.block_on(async {
        connect::connect_and_read_with(&config, 4, limits, &Printer::plain())
            .await
            .expect("the live state is read");
    });
}

fn percentile(sorted: &[Duration], share: f64) -> Duration {
    if sorted.is_empty() {
        return Duration::ZERO;
    }
    let index = ((sorted.len() as f64 - 1.0) * share).round() as usize;
    sorted[index.min(sorted.len() - 1)]
}

/// One measured apply of `count` updates behind `behind`; prints its figures.
fn measure(runtime: &tokio::runtime::Runtime, behind: Behind, count: usize) {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let state = dir.path().join("world.json");
    {
        let unlimited = SandboxHandle::spawn(SandboxOptions {
            rate_limit: false,
            state_file: Some(state.clone()),
            ..SandboxOptions::default()
        })
        .expect("the sandbox starts");
        let report = apply_text(
            runtime,
            &unlimited,
            dir.path(),
            &behind.config(count, "team-a"),
            RateLimits::UNLIMITED,
        );
        assert_eq!(report.summary.done, count, "{}", report.to_json());
    }
    let sandbox = SandboxHandle::spawn(SandboxOptions {
        state_file: Some(state),
        rate_window_divisor: behind.divisor(),
        ..SandboxOptions::default()
    })
    .expect("the sandbox starts");
    let seen: Arc<Mutex<Vec<Seen>>> = Arc::default();
    let log = seen.clone();
    sandbox.observe(move |entry| {
        if let Ok(mut log) = log.lock() {
            log.push((
                Instant::now(),
                entry.method.clone(),
                entry.route.clone(),
                entry.status,
            ));
        }
    });
    let limits = RateLimits {
        cloud: RateLimit {
            requests: 10,
            window: Behind::Cloud.window(),
        },
        observability: RateLimit {
            requests: 100,
            window: Behind::Observability.window(),
        },
    };
    // A plan alone first, to count the plan's reads; then a pause for them to leave the
    // (scaled) window, as between two commands.
    let plan_reads = {
        let before = seen.lock().expect("the log").len();
        plan_text(
            runtime,
            &sandbox,
            dir.path(),
            &behind.config(count, "team-b"),
            limits,
        );
        let after = seen.lock().expect("the log").len();
        std::thread::sleep(behind.window() + Duration::from_millis(100));
        seen.lock().expect("the log").clear();
        after - before
    };
    let started = Instant::now();
    let report = apply_text(
        runtime,
        &sandbox,
        dir.path(),
        &behind.config(count, "team-b"),
        limits,
    );
    let wall = started.elapsed();
    assert_eq!(report.summary.done, count, "{}", report.to_json());
    let seen = seen.lock().expect("the log").clone();
    let limited = seen.iter().filter(|entry| entry.3 == 429).count();
    let requests = seen.len();
    // The plan's reads come first: as many as a plan of the same config makes.
    let after_plan = &seen[plan_reads.min(seen.len())..];
    let writes = after_plan
        .iter()
        .filter(|e| e.1 == "PUT" && e.3 != 429)
        .count();
    let reads_in_apply = after_plan
        .iter()
        .filter(|e| e.1 == "GET" && e.2 == behind.list_route())
        .count();
    let mut ages = Vec::new();
    let mut newest_read = None;
    for (at, method, route, _) in &seen {
        if method == "GET" && route == behind.list_route() {
            newest_read = Some(*at);
        } else if method == "PUT"
            && let Some(read) = newest_read
        {
            ages.push(at.duration_since(read));
        }
    }
    ages.sort();
    let per_window = behind.requests();
    let window = behind.window().as_secs_f64();
    let floor = |n: usize| (n.saturating_sub(1) / per_window) as f64 * window;
    // The fewest requests the run could make: its plan's reads besides the dashboards list,
    // one list read a window, and the writes.
    let others = requests - writes - reads_in_apply;
    let minimum = others + count + count.div_ceil(per_window - 1);
    let floor = floor(minimum);
    let over = if floor > 0.0 {
        format!("{:+.1}%", 100.0 * (wall.as_secs_f64() / floor - 1.0))
    } else {
        "all within the first window".to_string()
    };
    println!(
        "apply {count} dashboard updates, {}: {requests} requests ({:.3} per change; minimum \
         {minimum}), {reads_in_apply} list reads behind the writes; {:.2} s against a floor of \
         {floor:.0} s for the minimum requests ({over}); read age at each write p50 {:.0} ms, \
         p90 {:.0} ms (window {window:.0} s); {limited} answered 429",
        behind.name(),
        requests as f64 / count as f64,
        wall.as_secs_f64(),
        percentile(&ages, 0.5).as_secs_f64() * 1000.0,
        percentile(&ages, 0.9).as_secs_f64() * 1000.0,
    );
}

fn bench(c: &mut Criterion) {
    let runtime = tokio::runtime::Runtime::new().expect("a runtime");
    let sizes: Vec<usize> = std::env::var("CONVERGE_BENCH_SIZES")
        .ok()
        .map(|text| {
            text.split(',')
                .filter_map(|size| size.trim().parse().ok())
                .collect()
        })
        .unwrap_or_else(|| vec![10, 50, 200, 1000]);
    for behind in [Behind::Cloud, Behind::Observability] {
        for count in &sizes {
            measure(&runtime, behind, *count);
        }
    }
    // Criterion needs one function; the figures above are the bench.
    let mut group = c.benchmark_group("apply_floor");
    group.sample_size(10);
    group.bench_function("percentile of 1,000 ages", |b| {
        let ages: Vec<Duration> = (0..1000).map(Duration::from_millis).collect();
        b.iter(|| percentile(&ages, 0.9));
    });
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
