//! Applies against the rate-limit floor (issue 26): whole-config applies of 10, 50, 200 and
//! 1,000 dashboard updates on each API, with the requests each change costs, the wall time
//! against the floor, and the age of the newest list read behind each write (p50, p90).
//!
//! By default the sandbox's windows are scaled down so the run takes minutes, not hours: the
//! cloud key's 10 requests per 10 s become 10 per second (the managed stack), the
//! observability token's 100 per minute 100 per 10 s (the standalone stack), and the client
//! paces to the same limits. `CONVERGE_BENCH_WINDOWS=real` keeps the real windows (10 s and a
//! minute: 1,000 cloud updates take about 19 minutes). Request counts do not depend on the
//! windows; floors and read ages scale with them, and the time over the floor is about a fixed
//! amount per window (the pacing margin, a round trip, the list read), so its share shrinks at
//! the real windows. The dashboards are created first with the sandbox's limits off, which are
//! then turned on. `CONVERGE_BENCH_SIZES` (e.g. `10,50`) picks the sizes, the default all
//! four; `CONVERGE_BENCH_APIS` (`cloud` or `observability`) one API, the default both.
//!
//! `CONVERGE_BENCH_WHOLE=200` measures instead a whole config (the `large` seed: 20 services
//! with their pipes, a managed and a standalone stack) changing the thresholds of that many
//! alerts of the standalone stack (issue 38, part 2): the plan's 24 cloud reads take two more
//! cloud windows than its 3 observability reads, and the token's requests are timed against
//! its floor, counted in fixed windows from the sandbox's log.

use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use converge::api::clients::RateLimits;
use converge::api::transport::RateLimit;
use converge::sandbox::{SandboxHandle, SandboxOptions};
use criterion::{Criterion, criterion_group, criterion_main};

#[path = "support/live.rs"]
mod live;

/// The sandbox's windows: the real ones, or scaled down (`CONVERGE_BENCH_WINDOWS=real` picks
/// the real ones).
#[derive(Clone, Copy, PartialEq)]
enum Windows {
    Real,
    Scaled,
}

impl Windows {
    fn name(self) -> &'static str {
        match self {
            Windows::Real => "real windows",
            Windows::Scaled => "scaled windows",
        }
    }
}

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
    /// What the sandbox divides its window by: 1 at the real limits.
    fn divisor(self, windows: Windows) -> u32 {
        match (self, windows) {
            (_, Windows::Real) => 1,
            (Behind::Cloud, Windows::Scaled) => 10,
            (Behind::Observability, Windows::Scaled) => 6,
        }
    }
    /// The window, as the sandbox counts it and the client paces to it.
    fn window(self, windows: Windows) -> Duration {
        let real = match self {
            Behind::Cloud => Duration::from_secs(10),
            Behind::Observability => Duration::from_secs(60),
        };
        real / self.divisor(windows)
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

/// A request as the sandbox logged it: when it arrived, method, route template, status, when
/// its answer left.
type Seen = (Instant, String, String, u16, Instant);

fn percentile(sorted: &[Duration], share: f64) -> Duration {
    if sorted.is_empty() {
        return Duration::ZERO;
    }
    let index = ((sorted.len() as f64 - 1.0) * share).round() as usize;
    sorted[index.min(sorted.len() - 1)]
}

/// One measured apply of `count` updates behind `behind`; prints its figures.
fn measure(runtime: &tokio::runtime::Runtime, windows: Windows, behind: Behind, count: usize) {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let first = dir.path().join("first.yaml");
    let config = dir.path().join("converge.yaml");
    std::fs::write(&first, behind.config(count, "team-a")).expect("the config is written");
    std::fs::write(&config, behind.config(count, "team-b")).expect("the config is written");
    // The dashboards are created without a limit, then the limits turned on; the world stays
    // in memory (a state file would be saved whole after every write, which a real server
    // does not do and which would slow every write of a large stack).
    let sandbox = SandboxHandle::spawn(SandboxOptions {
        rate_limit: false,
        rate_window_divisor: behind.divisor(windows),
        ..SandboxOptions::default()
    })
    .expect("the sandbox starts");
    let report = live::apply_file(runtime, &sandbox, &first, RateLimits::UNLIMITED);
    assert_eq!(report.summary.done, count, "{}", report.to_json());
    sandbox.set_rate_limit(true);
    let seen: Arc<Mutex<Vec<Seen>>> = Arc::default();
    let log = seen.clone();
    sandbox.observe(move |entry| {
        if let Ok(mut log) = log.lock() {
            let answered = Instant::now();
            log.push((
                answered - entry.took,
                entry.method.clone(),
                entry.route.clone(),
                entry.status,
                answered,
            ));
        }
    });
    let limits = RateLimits {
        cloud: RateLimit {
            requests: 10,
            window: Behind::Cloud.window(windows),
        },
        observability: RateLimit {
            requests: 100,
            window: Behind::Observability.window(windows),
        },
    };
    // A plan alone first, to count the plan's reads; then a pause for them to leave the
    // window, as between two commands.
    let (plan_reads, plan_time) = {
        let before = seen.lock().expect("the log").len();
        let started = Instant::now();
        live::plan_file(runtime, &sandbox, &config, limits);
        let plan_time = started.elapsed();
        let after = seen.lock().expect("the log").len();
        std::thread::sleep(behind.window(windows) + Duration::from_millis(100));
        seen.lock().expect("the log").clear();
        (after - before, plan_time)
    };
    let started = Instant::now();
    let report = live::apply_file(runtime, &sandbox, &config, limits);
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
    // A write was checked against a read answered before it left: the newest such read,
    // dated from when the server received it.
    let mut reads: Vec<(Instant, Instant)> = seen
        .iter()
        .filter(|e| e.1 == "GET" && e.2 == behind.list_route())
        .map(|e| (e.0, e.4))
        .collect();
    reads.sort_by_key(|read| read.1);
    let mut ages = Vec::new();
    for (arrived, method, ..) in &seen {
        if method != "PUT" {
            continue;
        }
        let before = reads.partition_point(|read| read.1 <= *arrived);
        if let Some(read) = before.checked_sub(1).and_then(|i| reads.get(i)) {
            ages.push(arrived.duration_since(read.0));
        }
    }
    ages.sort();
    // How long the sandbox took over each list read and each write, from arrival to answer:
    // a slot is counted until the answer, so this much is added to each window.
    let served = |method: &str| {
        let mut took: Vec<Duration> = after_plan
            .iter()
            .filter(|e| e.1 == method && (method == "PUT" || e.2 == behind.list_route()))
            .map(|e| e.4.duration_since(e.0))
            .collect();
        took.sort();
        percentile(&took, 0.5).as_secs_f64() * 1000.0
    };
    let per_window = behind.requests();
    let window = behind.window(windows).as_secs_f64();
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
        "apply {count} dashboard updates, {}, {}: {requests} requests ({:.3} per change; minimum \
         {minimum}), {reads_in_apply} list reads behind the writes; {:.2} s against a floor of \
         {floor:.0} s for the minimum requests ({over}; a plan alone took {:.2} s); read age at each write p50 {:.0} ms, \
         p90 {:.0} ms (window {window:.0} s); served in {:.1} ms (list read) and {:.1} ms (write), \
         p50; {limited} answered 429",
        behind.name(),
        windows.name(),
        requests as f64 / count as f64,
        wall.as_secs_f64(),
        plan_time.as_secs_f64(),
        percentile(&ages, 0.5).as_secs_f64() * 1000.0,
        percentile(&ages, 0.9).as_secs_f64() * 1000.0,
        served("GET"),
        served("PUT"),
    );
}

/// A request as the sandbox logged it: when it arrived, method, route template, status.
type Arrived = (Instant, String, String, u16);

/// A whole-config apply of `changes` alert updates on the `large` seed's standalone stack; prints
/// the token's requests, their windows and the wall time against the token's floor.
fn measure_whole(runtime: &tokio::runtime::Runtime, windows: Windows, changes: usize) {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let config = dir.path().join("converge.yaml");
    let (text, changed) = converge::sandbox::large_config_changing_alerts(500..500 + changes);
    assert_eq!(changed.len(), changes);
    std::fs::write(&config, text).expect("the config is written");
    let divisor = Behind::Observability.divisor(windows);
    let sandbox = SandboxHandle::spawn(SandboxOptions {
        seed: converge::sandbox::Seed::Large,
        rate_limit: true,
        rate_window_divisor: divisor,
        ..SandboxOptions::default()
    })
    .expect("the sandbox starts");
    let seen: Arc<Mutex<Vec<Arrived>>> = Arc::default();
    let log = seen.clone();
    sandbox.observe(move |entry| {
        if let Ok(mut log) = log.lock() {
            let arrived = entry.arrived.unwrap_or_else(Instant::now);
            let (method, route) = (entry.method.clone(), entry.route.clone());
            log.push((arrived, method, route, entry.status));
        }
    });
    let window = Duration::from_secs(60) / divisor;
    let limits = RateLimits {
        cloud: RateLimit {
            requests: 10,
            window: Duration::from_secs(10) / divisor,
        },
        observability: RateLimit {
            requests: 100,
            window,
        },
    };
    let started = Instant::now();
    let report = live::apply_file(runtime, &sandbox, &config, limits);
    let wall = started.elapsed();
    assert_eq!(report.summary.done, changes, "{}", report.to_json());
    let mut seen = seen.lock().expect("the log").clone();
    seen.sort_by_key(|entry| entry.0);
    let token: Vec<_> = seen.iter().filter(|e| e.2.starts_with("/api/v2")).collect();
    let cloud = seen.len() - token.len();
    let limited = seen.iter().filter(|e| e.3 == 429).count();
    // The token's requests in fixed windows, as the sandbox counts them.
    let mut counted: Vec<(Instant, usize)> = Vec::new();
    for entry in &token {
        match counted.last_mut() {
            Some((opened, count)) if entry.0 < *opened + window => *count += 1,
            _ => counted.push((entry.0, 1)),
        }
    }
    let at = |instant: Instant| instant.duration_since(started).as_secs_f64();
    let opened: Vec<String> = counted
        .iter()
        .map(|(opened, count)| format!("{count} from {:.2} s", at(*opened)))
        .collect();
    let first_write = token.iter().find(|e| e.1 == "PUT").map_or(0.0, |e| at(e.0));
    let floor = ((token.len() - 1) / 100) as f64 * window.as_secs_f64();
    println!(
        "whole config, {changes} alert updates on the standalone stack, {}: {} token requests \
         ({cloud} cloud), {:.2} s against the token's floor of {floor:.0} s ({:+.1}%); token \
         windows: {}; first write at {first_write:.2} s, last cloud read at {:.2} s; {limited} \
         answered 429",
        windows.name(),
        token.len(),
        wall.as_secs_f64(),
        100.0 * (wall.as_secs_f64() / floor - 1.0),
        opened.join(", "),
        seen.iter()
            .filter(|e| e.2.starts_with("/v1"))
            .map(|e| at(e.0))
            .fold(0.0, f64::max),
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
    let windows = match std::env::var("CONVERGE_BENCH_WINDOWS").as_deref() {
        Ok("real") => Windows::Real,
        _ => Windows::Scaled,
    };
    let whole = std::env::var("CONVERGE_BENCH_WHOLE")
        .ok()
        .and_then(|text| text.trim().parse::<usize>().ok());
    // `CONVERGE_BENCH_APIS` (`cloud`, `observability`) picks one API; the default is both.
    let apis = std::env::var("CONVERGE_BENCH_APIS").unwrap_or_default();
    if let Some(changes) = whole {
        measure_whole(&runtime, windows, changes);
    }
    for behind in [Behind::Cloud, Behind::Observability] {
        if whole.is_some() || (!apis.is_empty() && !behind.name().starts_with(apis.as_str())) {
            continue;
        }
        for count in &sizes {
            measure(&runtime, windows, behind, *count);
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
