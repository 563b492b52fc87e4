//! Convergence as a property: for random valid configs over the demo seed (service scaling,
//! private endpoints, pipe scaling, a pipe marked absent, dashboards and alerts on the managed
//! and the standalone stack, prune on or off), `apply` and then `plan` shows no changes. Each
//! case applies two configs in a row, so the second one updates and deletes what the first made,
//! with a random `--parallelism` from 1 to 8.

use proptest::prelude::*;
use proptest::test_runner::{Config as ProptestConfig, TestRunner};

use super::*;
use crate::common;

#[derive(Debug, Clone)]
struct Alert {
    dashboard: usize,
    tile: usize,
    threshold: u32,
    above: bool,
    interval: &'static str,
}

#[derive(Debug, Clone)]
struct Board {
    tiles: usize,
    width: i64,
    tags: Vec<&'static str>,
}

#[derive(Debug, Clone)]
struct Desired {
    replicas: u32,
    idle_scaling: bool,
    idle_timeout: u32,
    endpoints: Vec<bool>,
    orders_replicas: u32,
    orders_cpu: u32,
    orders_memory: f64,
    events_concurrency: u32,
    clicks_cpu: u32,
    clicks_memory: f64,
    customers_absent: bool,
    prune: bool,
    boards: Vec<Board>,
    alerts: Vec<Alert>,
    standalone: Vec<Board>,
}

const CPUS: [u32; 5] = [125, 250, 500, 1000, 2000];
const MEMORY: [f64; 5] = [0.5, 1.0, 2.0, 4.0, 8.0];
const INTERVALS: [&str; 4] = ["1m", "5m", "15m", "1h"];
const TAGS: [&str; 3] = ["team-api", "team-data", "on-call"];

fn board() -> impl Strategy<Value = Board> {
    (
        1usize..=3,
        2i64..=12,
        proptest::sample::subsequence(TAGS.to_vec(), 0..=2),
    )
        .prop_map(|(tiles, width, tags)| Board { tiles, width, tags })
}

fn desired() -> impl Strategy<Value = Desired> {
    let service = (
        2u32..=20,
        any::<bool>(),
        5u32..=120,
        proptest::collection::vec(any::<bool>(), 2),
    );
    let pipes = (
        1u32..=10,
        proptest::sample::select(CPUS.to_vec()),
        proptest::sample::select(MEMORY.to_vec()),
        1u32..=34,
        proptest::sample::select(CPUS.to_vec()),
        proptest::sample::select(MEMORY.to_vec()),
        any::<bool>(),
    );
    let stacks = (
        any::<bool>(),
        proptest::collection::vec(board(), 0..=3),
        proptest::collection::vec(
            (
                0usize..3,
                0usize..3,
                1u32..=1000,
                any::<bool>(),
                proptest::sample::select(INTERVALS.to_vec()),
            ),
            0..=3,
        ),
        proptest::collection::vec(board(), 0..=2),
    );
    (service, pipes, stacks).prop_map(
        |(
            (replicas, idle_scaling, idle_timeout, endpoints),
            (
                orders_replicas,
                orders_cpu,
                orders_memory,
                events_concurrency,
                clicks_cpu,
                clicks_memory,
                customers_absent,
            ),
            (prune, boards, alerts, standalone),
        )| {
            // Alerts point at a tile that exists; one alert per (dashboard, tile) keeps names apart.
            let mut seen = std::collections::BTreeSet::new();
            let alerts = if boards.is_empty() {
                Vec::new()
            } else {
                alerts
                    .into_iter()
                    .map(|(d, t, threshold, above, interval)| {
                        let dashboard = d % boards.len();
                        Alert {
                            dashboard,
                            tile: t % boards[dashboard].tiles,
                            threshold,
                            above,
                            interval,
                        }
                    })
                    .filter(|a| seen.insert((a.dashboard, a.tile)))
                    .collect()
            };
            Desired {
                replicas,
                idle_scaling,
                idle_timeout,
                endpoints,
                orders_replicas,
                orders_cpu,
                orders_memory,
                events_concurrency,
                clicks_cpu,
                clicks_memory,
                customers_absent,
                prune,
                boards,
                alerts,
                standalone,
            }
        },
    )
}

fn dashboards_yaml(out: &mut String, prefix: &str, boards: &[Board]) {
    out.push_str("    dashboards:\n");
    if boards.is_empty() {
        out.push_str("      {}\n");
    }
    for (i, board) in boards.iter().enumerate() {
        out.push_str(&format!(
            "      {prefix}-{i}:\n        name: {prefix} board {i}\n"
        ));
        if !board.tags.is_empty() {
            out.push_str(&format!("        tags: [{}]\n", board.tags.join(", ")));
        }
        out.push_str("        tiles:\n");
        for t in 0..board.tiles {
            out.push_str(&format!(
                "          - name: Tile {t}\n            x: 0\n            y: {}\n            w: {}\n            h: 4\n            series:\n              - type: time\n                source: Logs\n                aggFn: count\n                where: \"tile:{t}\"\n                whereLanguage: lucene\n",
                t * 4,
                board.width
            ));
        }
    }
}

fn yaml(d: &Desired) -> String {
    let mut out = String::from(
        "version: 1\norganization: ${env:CONVERGE_ORG_ID}\ncloud:\n  url: ${env:CONVERGE_CLOUD_URL}\n  keyId: ${env:CONVERGE_KEY_ID}\n  keySecret: ${env:CONVERGE_KEY_SECRET}\nobservability:\n  url: ${env:CONVERGE_OBSERVABILITY_URL}\n  token: ${env:CONVERGE_OBS_TOKEN}\nservices:\n  analytics:\n    id: 1c7d8c62-0b0f-4f0e-9b2e-6a3c8a3b7e11\n",
    );
    out.push_str(&format!(
        "    scaling:\n      numReplicas: {}\n      idleScaling: {}\n      idleTimeoutMinutes: {}\n",
        d.replicas, d.idle_scaling, d.idle_timeout
    ));
    let endpoints: Vec<usize> = (0..d.endpoints.len()).filter(|i| d.endpoints[*i]).collect();
    if !endpoints.is_empty() {
        out.push_str("    privateEndpoints:\n");
        for i in endpoints {
            out.push_str(&format!(
                "      - id: vpce-0a1b2c3d4e5f6789{i}\n        description: vpc {i}\n"
            ));
        }
    }
    out.push_str(&format!(
        "    pipes:\n      orders:\n        id: 0f9d3b1e-6a52-4c0b-8f7e-2d5a9c1b4e77\n        scaling: {{ replicas: {}, replicaCpuMillicores: {}, replicaMemoryGb: {} }}\n      events:\n        id: 5b2e8c4a-1d3f-4a6b-9c7e-8f0a1b2c3d4e\n        scaling: {{ concurrency: {} }}\n      clicks:\n        id: 9a8b7c6d-5e4f-4a3b-8c2d-1e0f9a8b7c6d\n        scaling: {{ replicaCpuMillicores: {}, replicaMemoryGb: {} }}\n",
        d.orders_replicas, d.orders_cpu, d.orders_memory, d.events_concurrency, d.clicks_cpu, d.clicks_memory
    ));
    if d.customers_absent {
        out.push_str("      customers:\n        id: 3c4d5e6f-7a8b-4c9d-8e0f-1a2b3c4d5e6f\n        absent: true\n");
    }
    out.push_str(&format!(
        "stacks:\n  prod:\n    service: analytics\n    prune: {}\n",
        d.prune
    ));
    dashboards_yaml(&mut out, "prod", &d.boards);
    if !d.alerts.is_empty() {
        out.push_str("    alerts:\n");
        for (i, alert) in d.alerts.iter().enumerate() {
            out.push_str(&format!(
                "      alert-{i}:\n        name: Alert {i}\n        dashboard: prod-{}\n        tile: Tile {}\n        threshold: {}\n        thresholdType: {}\n        interval: {}\n        channel: {{ type: webhook, webhookId: 65f5e4a3b9e77c001a789012 }}\n        message: alert {i}\n",
                alert.dashboard,
                alert.tile,
                alert.threshold,
                if alert.above { "above" } else { "below" },
                alert.interval
            ));
        }
    }
    out.push_str(&format!(
        "  platform:\n    api: observability\n    prune: {}\n",
        d.prune
    ));
    dashboards_yaml(&mut out, "platform", &d.standalone);
    out
}

#[test]
fn apply_then_plan_shows_no_changes_for_random_configs() {
    let mut runner = TestRunner::new(ProptestConfig {
        cases: 32,
        failure_persistence: None,
        ..ProptestConfig::default()
    });
    let result = runner.run(
        &(desired(), desired(), 1u16..=8),
        |(first, second, parallelism)| {
            let parallelism = parallelism.to_string();
            let sandbox = common::fast_sandbox();
            let workspace = Workspace::new();
            for (name, desired) in [("first.yaml", &first), ("second.yaml", &second)] {
                let config = workspace.write(name, &yaml(desired));
                let path = config.as_str();
                let applied = binary(&sandbox, &workspace).run([
                    "apply",
                    path,
                    "--yes",
                    "--allow-destroy",
                    "--parallelism",
                    &parallelism,
                ]);
                prop_assert_eq!(
                    applied.code,
                    0,
                    "{}: {:?}\n{}",
                    name,
                    applied,
                    yaml(desired)
                );
                let plan = binary(&sandbox, &workspace).run(["plan", path, "--detailed-exitcode"]);
                prop_assert_eq!(
                    plan.code,
                    0,
                    "{} plans changes after apply: {}\n{}",
                    name,
                    plan.stdout,
                    yaml(desired)
                );
            }
            Ok(())
        },
    );
    if let Err(error) = result {
        panic!("{error}");
    }
}
