//! Applies at the rate-limit floor (issue 26): the check before each write shares one list
//! read per rate window, so N changes cost about N + N/(R - 1) requests under a limit of R per
//! window, and no read behind a write is older than a window, however many steps run at once.
//! Counted and dated from the sandbox's request log (a read serves the writes of its window and,
//! while it is younger than a window, those at the next window's opening); the sandbox's windows are scaled down (the same
//! requests per window, in a second) and the client paces to the same limits, so many windows
//! go by quickly. No 429 is received.

use converge::sandbox::SandboxOptions;

use super::concurrent::boards;
use super::*;
use crate::common;

/// A standalone stack with `count` dashboards (`Board 000`, ...), each with one tile and the
/// tag `tag`.
fn standalone_boards(count: usize, tag: &str) -> String {
    let mut text = String::from(
        "version: 1\norganization: ${env:CONVERGE_ORG_ID}\nobservability:\n  url: \
         ${env:CONVERGE_OBSERVABILITY_URL}\n  token: ${env:CONVERGE_OBS_TOKEN}\nstacks:\n  \
         platform:\n    api: observability\n    dashboards:\n",
    );
    for i in 0..count {
        text.push_str(&format!(
            "      d{i:03}:\n        name: Board {i:03}\n        tags: [{tag}]\n        tiles:\n          \
             - name: Requests\n            x: 0\n            y: 0\n            w: 6\n            h: 4\n            \
             series:\n              - type: time\n                source: Logs\n                aggFn: count\n"
        ));
    }
    text
}

/// Which API the dashboards live behind, with its limit scaled to one second.
#[derive(Clone, Copy)]
enum Behind {
    /// The managed stack: the cloud key, 10 requests per (scaled) window.
    Cloud,
    /// The standalone stack: the observability token, 100 per (scaled) window.
    Observability,
}

impl Behind {
    /// Requests per window.
    fn requests(self) -> usize {
        match self {
            Behind::Cloud => 10,
            Behind::Observability => 100,
        }
    }

    /// The sandbox's windows divided so this API's is one second.
    fn divisor(self) -> u32 {
        match self {
            Behind::Cloud => 10,
            Behind::Observability => 60,
        }
    }

    fn config(self, count: usize, tag: &str) -> String {
        match self {
            Behind::Cloud => boards(count, tag),
            Behind::Observability => standalone_boards(count, tag),
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
}

/// What an apply of `count` dashboard updates sent, from the sandbox's log.
struct Applied {
    /// Requests after the plan's own reads.
    after_plan: usize,
    /// Updates sent.
    writes: usize,
    /// The oldest that the newest list read answered before a write arrived was when it did,
    /// dated from the read's arrival, as the sandbox logged both.
    oldest_read: std::time::Duration,
    /// Requests of the apply answered 429.
    limited: usize,
}

/// Creates `count` dashboards behind `behind`, then changes every one's tag with
/// `--parallelism parallelism`, under the scaled limit.
fn update_all(behind: Behind, count: usize, parallelism: &str) -> Applied {
    // The dashboards are created with the sandbox's limits off, which the runs measured
    // then meet.
    let sandbox = common::sandbox(SandboxOptions {
        rate_limit: false,
        rate_window_divisor: behind.divisor(),
        ..SandboxOptions::default()
    });
    let workspace = Workspace::new();
    let converge = Converge::new(&sandbox)
        .env("CONVERGE_CLOUD_RATE_LIMIT", "10/1s")
        .env("CONVERGE_OBSERVABILITY_RATE_LIMIT", "100/1s")
        .cwd(&workspace);
    let created = workspace.write("a.yaml", &behind.config(count, "team-a"));
    converge
        .run(["apply", created.as_str(), "--yes"])
        .assert_exit(0);
    sandbox.set_rate_limit(true);
    let retagged = workspace.write("b.yaml", &behind.config(count, "team-b"));
    // Each run paces itself from an empty bucket: the previous run's requests must have left
    // the server's window first, as between two commands someone types.
    let between_runs = || std::thread::sleep(std::time::Duration::from_millis(1100));
    between_runs();
    let before = sandbox.request_log().len();
    converge
        .run(["plan", retagged.as_str(), "--detailed-exitcode"])
        .assert_exit(2);
    let plan = sandbox.request_log().len() - before;
    between_runs();
    let before = sandbox.request_log().len();
    converge
        .run([
            "apply",
            retagged.as_str(),
            "--yes",
            "--parallelism",
            parallelism,
        ])
        .assert_exit(0);
    let log = sandbox.request_log();
    let run = &log[before..];
    let applied = &run[plan.min(run.len())..];
    let reads: Vec<_> = applied
        .iter()
        .filter(|e| e.method == "GET" && e.route == behind.list_route())
        .filter_map(|e| e.arrived.map(|arrived| (arrived, arrived + e.took)))
        .collect();
    let (mut writes, mut oldest) = (0, std::time::Duration::ZERO);
    for entry in applied {
        if entry.method == "PUT" && entry.status != 429 {
            writes += 1;
            let arrived = entry.arrived.expect("the sandbox dates each request");
            let read = reads
                .iter()
                .filter(|(_, answered)| *answered <= arrived)
                .map(|(read, _)| *read)
                .max()
                .expect("a write is checked against a read");
            oldest = oldest.max(arrived - read);
        }
    }
    Applied {
        after_plan: run.len() - plan,
        writes,
        oldest_read: oldest,
        limited: run.iter().filter(|entry| entry.status == 429).count(),
    }
}

/// N updates under R requests per window cost N writes and about one read per R - 1 of them.
fn assert_near_the_floor(behind: Behind, count: usize) {
    let applied = update_all(behind, count, "4");
    let per_read = behind.requests() - 1;
    assert_eq!(applied.limited, 0, "a 429 was received");
    assert_eq!(applied.writes, count);
    // One read per window's worth of writes; a loaded machine may push a slot past the
    // window and cost a read more now and then, never one per step (today's 1.5 per change).
    let reads = count.div_ceil(per_read);
    let most = count + reads + reads / 2 + 1;
    assert!(
        applied.after_plan <= most,
        "{} requests for {count} updates (at most {most})",
        applied.after_plan
    );
    assert_read_within_a_window(&applied);
}

/// Every write was checked against a read at most a (scaled) window old when it arrived, with
/// a tenth of the window for the write's way to the sandbox on a loaded machine.
fn assert_read_within_a_window(applied: &Applied) {
    let window = std::time::Duration::from_secs(1);
    assert!(
        applied.oldest_read <= window + window / 10,
        "a write was checked against a read {:?} old",
        applied.oldest_read
    );
}

#[test]
fn ten_dashboard_updates_on_the_cloud_key_cost_about_eleven_requests() {
    assert_near_the_floor(Behind::Cloud, 10);
}

#[test]
fn fifty_dashboard_updates_on_the_cloud_key_cost_about_fifty_six_requests() {
    assert_near_the_floor(Behind::Cloud, 50);
}

#[test]
fn two_hundred_dashboard_updates_on_the_observability_token_cost_about_two_hundred_and_three() {
    assert_near_the_floor(Behind::Observability, 200);
}

#[test]
fn raising_the_parallelism_keeps_every_write_within_a_window_of_its_read() {
    // 64 steps start at once; each write still goes out within a window of its read.
    let applied = update_all(Behind::Cloud, 40, "64");
    assert_eq!(applied.limited, 0, "a 429 was received");
    assert_eq!(applied.writes, 40);
    assert_read_within_a_window(&applied);
}

#[test]
fn the_sandbox_counts_requests_against_its_limits_only_once_they_are_turned_on() {
    // Benches create their objects with the limits off, then measure under them, the world
    // kept in memory (no state file saved after every write).
    let sandbox = common::sandbox(SandboxOptions {
        rate_limit: false,
        rate_window_divisor: 10,
        ..SandboxOptions::default()
    });
    let workspace = Workspace::new();
    // The client does not pace itself: only the sandbox's limits keep it under 10 a window.
    let converge = Converge::new(&sandbox)
        .env("CONVERGE_CLOUD_RATE_LIMIT", "100000/1s")
        .cwd(&workspace);
    let created = workspace.write("a.yaml", &boards(20, "team-a"));
    converge
        .run(["apply", created.as_str(), "--yes"])
        .assert_exit(0);
    let limited = |log: &[converge::sandbox::LogEntry]| {
        log.iter().filter(|entry| entry.status == 429).count()
    };
    let off = sandbox.request_log();
    assert!(off.len() > 20, "{} requests", off.len());
    assert_eq!(limited(&off), 0, "a 429 with the limits off");
    sandbox.set_rate_limit(true);
    let retagged = workspace.write("b.yaml", &boards(20, "team-b"));
    converge
        .run(["apply", retagged.as_str(), "--yes"])
        .assert_exit(0);
    let on = sandbox.request_log();
    assert!(
        limited(&on[off.len()..]) > 0,
        "no 429 for {} unpaced requests under 10 a window",
        on.len() - off.len()
    );
}
