//! "No perpetual diffs": applying a plan's steps (with the server's semantics) and planning
//! again gives nothing to do, for the demo fixture and for random desired and live states.

use indexmap::IndexMap;
use proptest::collection::vec;
use proptest::option;
use proptest::prelude::*;

use super::fixtures::{self, ANALYTICS, ORDERS, at, loc};
use super::simulate::Server;
use crate::api::wire::{
    Alert, Dashboard, KafkaSource, Pipe, PipeScaling, PipeSource, Series, Tile,
};
use crate::config::model::{
    Config, PipeConfig, PipeScalingConfig, PrivateEndpointConfig, ServiceScaling, StackConfig,
};
use crate::live::LiveState;
use crate::plan::{Action, Plan, PlanOptions, plan};

fn assert_converged(config: &Config, live: &LiveState) -> Plan {
    // Warnings (a hint that a new dashboard may be a rename) do not stop a plan; errors would.
    let errors = |diagnostics: Vec<crate::diagnostic::Diagnostic>| {
        diagnostics
            .into_iter()
            .filter(|d| d.severity == crate::diagnostic::Severity::Error)
            .collect::<Vec<_>>()
    };
    let (first, diagnostics) = plan(config, live, &PlanOptions::default());
    let diagnostics = errors(diagnostics);
    assert!(diagnostics.is_empty(), "{diagnostics:#?}");
    // A saved plan's steps are checked against its changes: every plan the planner makes
    // passes, and the steps derived from its changes converge as well.
    let derived = crate::plan::derive::steps(&first).unwrap_or_else(|p| panic!("{p:#?}"));
    let problems = crate::plan::derive::against_live(&first, live);
    assert!(problems.is_empty(), "{problems:#?}");
    let problems = crate::plan::derive::against_config(&first, config);
    assert!(problems.is_empty(), "{problems:#?}");
    let first = Plan {
        steps: derived,
        ..first
    };
    let mut live = live.clone();
    Server::new().apply(&first, &mut live);
    let (second, diagnostics) = plan(config, &live, &PlanOptions::default());
    let diagnostics = errors(diagnostics);
    assert!(diagnostics.is_empty(), "{diagnostics:#?}");
    let left: Vec<(&str, &str, &str)> = second
        .changes
        .iter()
        .filter(|c| c.action != Action::NoOp)
        .map(|c| (c.address.as_str(), c.action.as_str(), c.reason.as_str()))
        .collect();
    assert!(left.is_empty(), "changes left after apply: {left:#?}");
    assert!(second.steps.is_empty());
    first
}

#[test]
fn demo_plan_applied_then_replanned_is_empty() {
    let first = assert_converged(&fixtures::demo_config(), &fixtures::demo_live());
    assert!(first.has_changes());
}

#[derive(Debug, Clone)]
struct BoardSpec {
    name: usize,
    owned: bool,
    tiles: Vec<(usize, i64, usize, Option<bool>)>,
}

#[derive(Debug, Clone)]
struct AlertSpec {
    name: usize,
    board: usize,
    tile: usize,
    threshold: u8,
    message: Option<usize>,
}

fn board() -> impl Strategy<Value = BoardSpec> {
    (
        0usize..3,
        any::<bool>(),
        vec(
            (0usize..3, 0i64..4, 0usize..3, option::of(any::<bool>())),
            0..4,
        ),
    )
        .prop_map(|(name, owned, tiles)| BoardSpec { name, owned, tiles })
}

fn alert_spec() -> impl Strategy<Value = AlertSpec> {
    (
        0usize..4,
        0usize..3,
        0usize..3,
        0u8..100,
        option::of(0usize..2),
    )
        .prop_map(|(name, board, tile, threshold, message)| AlertSpec {
            name,
            board,
            tile,
            threshold,
            message,
        })
}

/// Live replicas, idle scaling, idle timeout; then the desired three.
type ServiceSpec = (
    u8,
    Option<bool>,
    Option<u8>,
    Option<u8>,
    Option<bool>,
    Option<u8>,
);

/// Replicas, CPU millicores, memory in half gigabytes.
type PipeSpec = (Option<i64>, Option<i64>, Option<u8>);

const AGGS: [&str; 3] = ["count", "sum", "max"];
const ENDPOINTS: [&str; 4] = ["vpce-a", "vpce-b", "vpce-c", "vpce-d"];

fn board_name(i: usize) -> String {
    format!("Board {i}")
}

fn tile_name(i: usize) -> String {
    format!("Tile {i}")
}

/// Boards deduplicated by name and tiles by name, as configs and live stacks must be.
fn unique_boards(specs: &[BoardSpec]) -> Vec<BoardSpec> {
    let mut out: Vec<BoardSpec> = Vec::new();
    for spec in specs {
        if out.iter().any(|b| b.name == spec.name) {
            continue;
        }
        let mut tiles: Vec<(usize, i64, usize, Option<bool>)> = Vec::new();
        for t in &spec.tiles {
            if !tiles.iter().any(|x| x.0 == t.0) {
                tiles.push(*t);
            }
        }
        out.push(BoardSpec {
            tiles,
            ..spec.clone()
        });
    }
    out
}

#[allow(clippy::too_many_arguments)]
fn scenario(
    service: ServiceSpec,
    endpoints: (Vec<usize>, Option<Vec<usize>>),
    pipe: (PipeSpec, PipeSpec),
    live_boards: Vec<BoardSpec>,
    want_boards: Vec<BoardSpec>,
    live_alerts: Vec<AlertSpec>,
    want_alerts: Vec<AlertSpec>,
    prune: bool,
) -> (Config, LiveState) {
    let mut config = fixtures::demo_config();
    config.stacks.shift_remove("ops");
    let mut live = fixtures::demo_live();
    live.stacks.remove("ops");

    // Service scaling and private endpoints.
    let (live_replicas, live_idle, live_timeout, want_replicas, want_idle, want_timeout) = service;
    let service_live = live.services.get_mut(ANALYTICS).unwrap();
    service_live.num_replicas = Some(f64::from(live_replicas));
    service_live.idle_scaling = live_idle;
    service_live.idle_timeout_minutes = live_timeout.map(f64::from);
    service_live.private_endpoint_ids = endpoints.0.iter().map(|i| ENDPOINTS[*i].into()).collect();
    let service = config.services.get_mut("analytics").unwrap();
    service.scaling = Some(ServiceScaling {
        span: at(1),
        num_replicas: want_replicas.map(|v| loc(f64::from(v), 1)),
        idle_scaling: want_idle.map(|v| loc(v, 1)),
        idle_timeout_minutes: want_timeout.map(|v| loc(f64::from(v), 1)),
        ..Default::default()
    });
    service.private_endpoints = endpoints.1.map(|wanted| {
        let mut ids: Vec<usize> = wanted;
        ids.sort_unstable();
        ids.dedup();
        ids.into_iter()
            .map(|i| PrivateEndpointConfig {
                id: loc(ENDPOINTS[i].to_string(), 2),
                description: None,
            })
            .collect()
    });

    // One kafka pipe.
    let ((lr, lc, lm), (wr, wc, wm)) = pipe;
    let memory = |m: Option<u8>| m.map(|m| f64::from(m) / 2.0);
    live.pipes.insert(
        ANALYTICS.into(),
        vec![Pipe {
            id: ORDERS.into(),
            service_id: ANALYTICS.into(),
            name: "orders".into(),
            scaling: Some(PipeScaling {
                replicas: lr,
                concurrency: None,
                replica_cpu_millicores: lc,
                replica_memory_gb: memory(lm),
            }),
            source: Some(PipeSource {
                kafka: Some(KafkaSource::default()),
                ..Default::default()
            }),
            ..Default::default()
        }],
    );
    let mut pipes = IndexMap::new();
    pipes.insert(
        "orders".to_string(),
        PipeConfig {
            key: loc("orders".into(), 3),
            id: loc(ORDERS.into(), 3),
            absent: false,
            scaling: Some(PipeScalingConfig {
                span: at(3),
                replicas: wr.map(|v| loc(v, 3)),
                replica_cpu_millicores: wc.map(|v| loc(v, 3)),
                replica_memory_gb: memory(wm).map(|v| loc(v, 3)),
                ..Default::default()
            }),
        },
    );
    config.services.get_mut("analytics").unwrap().pipes = pipes;

    // Live dashboards and alerts.
    let live_boards = unique_boards(&live_boards);
    let stack_live = live.stacks.get_mut("prod").unwrap();
    stack_live.dashboards = live_boards
        .iter()
        .map(|b| Dashboard {
            id: format!("live-d{}", b.name),
            name: board_name(b.name),
            tags: if b.owned {
                vec!["converge:prod".into()]
            } else {
                vec![]
            },
            tiles: b
                .tiles
                .iter()
                .map(|(t, x, agg, ratio)| Tile {
                    id: Some(format!("live-d{}-t{t}", b.name)),
                    name: tile_name(*t),
                    x: *x,
                    y: 0,
                    w: 4,
                    h: 4,
                    as_ratio: *ratio,
                    series: vec![Series {
                        kind: Some("time".into()),
                        source_id: Some("src-logs".into()),
                        agg_fn: Some(AGGS[*agg].into()),
                        ..Default::default()
                    }],
                    config: None,
                })
                .collect(),
        })
        .collect();
    let mut alerts: Vec<Alert> = Vec::new();
    for a in &live_alerts {
        let name = format!("Alert {}", a.name);
        if alerts.iter().any(|x| x.name == name) {
            continue;
        }
        let Some(board) = live_boards.iter().find(|b| b.name == a.board) else {
            continue;
        };
        if !board.tiles.iter().any(|t| t.0 == a.tile) {
            continue;
        }
        let mut alert = fixtures::live_alert(
            &format!("live-a{}", a.name),
            &name,
            &format!("live-d{}", board.name),
            &format!("live-d{}-t{}", board.name, a.tile),
            f64::from(a.threshold),
        );
        alert.message = a.message.map(|m| format!("message {m}"));
        alerts.push(alert);
    }
    stack_live.alerts = alerts;

    // Desired dashboards and alerts.
    let want_boards = unique_boards(&want_boards);
    let stack: &mut StackConfig = config.stacks.get_mut("prod").unwrap();
    stack.prune = prune;
    stack.dashboards = want_boards
        .iter()
        .map(|b| {
            let key = format!("board-{}", b.name);
            let tiles = b
                .tiles
                .iter()
                .map(|(t, x, agg, ratio)| {
                    let mut series = fixtures::series_by_name("Logs", AGGS[*agg], 4);
                    series.where_ = None;
                    series.where_language = None;
                    series.group_by = None;
                    let mut tile = fixtures::tile(&tile_name(*t), *x, vec![series], 4);
                    tile.as_ratio = ratio.map(|r| loc(r, 4));
                    tile
                })
                .collect();
            (
                key.clone(),
                fixtures::dashboard(&key, &board_name(b.name), &[], tiles),
            )
        })
        .collect();
    stack.alerts = IndexMap::new();
    for a in &want_alerts {
        let key = format!("alert-{}", a.name);
        if stack.alerts.contains_key(&key) {
            continue;
        }
        let Some(board) = want_boards.iter().find(|b| b.name == a.board) else {
            continue;
        };
        if !board.tiles.iter().any(|t| t.0 == a.tile) {
            continue;
        }
        let mut alert = fixtures::alert(
            &key,
            &format!("Alert {}", a.name),
            &format!("board-{}", board.name),
            &tile_name(a.tile),
            f64::from(a.threshold),
        );
        alert.message = a.message.map(|m| loc(format!("message {m}"), 5));
        stack.alerts.insert(key, alert);
    }
    (config, live)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn applying_a_plan_then_planning_again_changes_nothing(
        service in (1u8..6, option::of(any::<bool>()), option::of(5u8..40),
                    option::of(1u8..6), option::of(any::<bool>()), option::of(5u8..40)),
        endpoints in (vec(0usize..4, 0..4), option::of(vec(0usize..4, 0..4))),
        pipe in ((option::of(1i64..10), option::of(125i64..2000), option::of(1u8..16)),
                 (option::of(1i64..10), option::of(125i64..2000), option::of(1u8..16))),
        live_boards in vec(board(), 0..4),
        want_boards in vec(board(), 0..4),
        live_alerts in vec(alert_spec(), 0..5),
        want_alerts in vec(alert_spec(), 0..5),
        prune in any::<bool>(),
    ) {
        let (config, live) = scenario(
            service, endpoints, pipe, live_boards, want_boards, live_alerts, want_alerts, prune,
        );
        assert_converged(&config, &live);
    }
}
