//! "No perpetual diffs": a plan carried out against the sandbox (the real apply, over HTTP, on
//! 127.0.0.1) and planned again from the live state read back (the real reader) gives nothing
//! to do, for the demo fixture and for random desired and live states. The server's behaviour
//! is the sandbox's; the test has no second model of it.

use indexmap::IndexMap;
use proptest::collection::vec;
use proptest::option;
use proptest::prelude::*;

use super::fixtures::{self, ANALYTICS, ORDERS, at, loc};
use crate::api::clients::{Clients, RateLimits};
use crate::api::wire::{
    Alert, Dashboard, KafkaSource, Pipe, PipeScaling, PipeSource, PrivateEndpoint, Series, Tile,
};
use crate::apply::{Options, Progress, Status};
use crate::config::model::{
    CloudSettings, Config, ObservabilitySettings, PipeConfig, PipeScalingConfig,
    PrivateEndpointConfig, SecretValue, ServiceScaling, StackConfig, StackTarget,
};
use crate::diagnostic::{Diagnostic, Severity};
use crate::live::LiveState;
use crate::output::Printer;
use crate::plan::{Action, Plan, PlanOptions, plan};
use crate::sandbox::store::{PipeRecord, ServiceRecord, Stack, StackKey, World};
use crate::sandbox::{
    DEMO_KEY_ID, DEMO_KEY_SECRET, DEMO_ORG, DEMO_TOKEN, Generation, SandboxHandle, SandboxOptions,
};

/// A sandbox serving a given live state, and the config pointed at it.
pub(super) struct Served {
    sandbox: SandboxHandle,
    config: Config,
    /// The backups of the live state served: no step writes one, and the fixtures' ids are
    /// not the UUIDs the server requires in a path, so they are not read back but kept.
    backups: LiveState,
    // Holds the state file; removed when the test is done.
    _dir: tempfile::TempDir,
}

impl Served {
    /// Starts a sandbox whose world is `live` (the stacks where `config` says they are, every
    /// private endpoint `live` or `config` names registered in the organization), and points
    /// a copy of `config` at it with the demo credentials, without its backup checks.
    pub(super) fn new(config: &Config, live: &LiveState) -> Served {
        let dir = tempfile::tempdir().unwrap();
        let state = dir.path().join("sandbox.json");
        world_of(config, live).save(&state).unwrap();
        // The fixtures' ids (`src-1`, `dash-api`) are the contract's free strings, which today's
        // servers would refuse as ObjectIds.
        let sandbox = SandboxHandle::spawn(SandboxOptions {
            state_file: Some(state),
            rate_limit: false,
            clock: Some(fixtures::now()),
            generation: Generation::Contract,
            ..SandboxOptions::default()
        })
        .unwrap();
        let secret = |value: &str| SecretValue {
            reference: "${env:SANDBOX}".into(),
            value: Some(value.into()),
            span: at(1),
        };
        let mut config = Config {
            organization: loc(DEMO_ORG.into(), 2),
            cloud: Some(CloudSettings {
                url: Some(loc(sandbox.url(), 4)),
                key_id: Some(loc(DEMO_KEY_ID.into(), 5)),
                key_secret: Some(secret(DEMO_KEY_SECRET)),
            }),
            observability: Some(ObservabilitySettings {
                url: Some(loc(sandbox.url(), 7)),
                token: Some(secret(DEMO_TOKEN)),
            }),
            ..config.clone()
        };
        for service in config.services.values_mut() {
            service.backups = None;
        }
        Served {
            sandbox,
            config,
            backups: LiveState {
                backups: live.backups.clone(),
                kept_backups: live.kept_backups.clone(),
                ..LiveState::default()
            },
            _dir: dir,
        }
    }

    /// The live state `config` needs, read from the sandbox by the real reader.
    pub(super) fn read(&self) -> LiveState {
        let (_runtime, _clients, live) = crate::commands::connect::connect_and_read_blocking_with(
            &self.config,
            4,
            RateLimits::UNLIMITED,
            &Printer::plain(),
        )
        .unwrap_or_else(|d| panic!("{d:#?}"));
        LiveState {
            backups: self.backups.backups.clone(),
            kept_backups: self.backups.kept_backups.clone(),
            ..live
        }
    }

    /// Carries `plan` out with the real apply and reads the live state back. Every step must be
    /// done: a stale step would mean the plan's fingerprints disagree with what the server
    /// serves, a failed one that the plan asked for something the server refuses.
    pub(super) fn apply(&self, plan: &Plan) -> LiveState {
        for step in &plan.steps {
            assert!(
                step.depends_on.iter().all(|d| *d < step.id),
                "step {} runs before a dependency",
                step.id
            );
        }
        let printer = Printer::plain();
        let transport = crate::commands::connect::transport(4, &printer).unwrap();
        let clients = Clients::from_config(&self.config, &transport, &RateLimits::UNLIMITED)
            .unwrap_or_else(|d| panic!("{d:#?}"));
        let runtime = crate::commands::connect::runtime().unwrap();
        let (_cancel, cancelled) = tokio::sync::watch::channel(false);
        let report = runtime.block_on(crate::apply::execute(
            plan,
            clients,
            &Options::default(),
            cancelled,
            &Progress::quiet(),
        ));
        let not_done: Vec<_> = report
            .steps
            .iter()
            .filter(|s| s.status != Status::Done)
            .map(|s| (&s.address, &s.operation, s.status, &s.message))
            .collect();
        assert!(not_done.is_empty(), "steps not done: {not_done:#?}");
        self.read()
    }

    /// The request log, for a failure's message.
    fn requests(&self) -> usize {
        self.sandbox.request_log().len()
    }
}

/// The sandbox's world holding `live`.
fn world_of(config: &Config, live: &LiveState) -> World {
    let mut world = World {
        services: live
            .services
            .values()
            .map(|service| ServiceRecord {
                service: service.clone(),
                paid: true,
                ..ServiceRecord::default()
            })
            .collect(),
        pipes: live
            .pipes
            .values()
            .flatten()
            .map(|pipe| PipeRecord {
                pipe: pipe.clone(),
                ..PipeRecord::default()
            })
            .collect(),
        ..World::default()
    };
    for backup in live
        .backups
        .values()
        .flatten()
        .chain(live.kept_backups.values().flatten())
    {
        if !world.backups.iter().any(|b| b.id == backup.id) {
            world.backups.push(backup.clone());
        }
    }
    let attached = live
        .services
        .values()
        .flat_map(|s| s.private_endpoint_ids.iter().cloned());
    let declared = config
        .services
        .values()
        .flat_map(|s| s.private_endpoints.iter().flatten())
        .map(|e| e.id.value.clone());
    for id in attached.chain(declared) {
        if !world.private_endpoints.iter().any(|e| e.id == id) {
            world.private_endpoints.push(PrivateEndpoint {
                id,
                ..PrivateEndpoint::default()
            });
        }
    }
    for (key, stack) in &live.stacks {
        let key = match &config.stacks[key.as_str()].target {
            StackTarget::Managed { service } => StackKey::Managed {
                service_id: config.services[service.value.as_str()].id.value.clone(),
            },
            StackTarget::Observability => StackKey::Observability,
        };
        world.stacks.push(Stack {
            key,
            dashboards: stack.dashboards.clone(),
            alerts: stack.alerts.clone(),
            sources: stack.sources.clone(),
            webhooks: Vec::new(),
            connections: stack.connections.clone(),
            saved_searches: Vec::new(),
        });
    }
    world
}

fn errors(diagnostics: Vec<Diagnostic>) -> Vec<Diagnostic> {
    diagnostics
        .into_iter()
        .filter(|d| d.severity == Severity::Error)
        .collect()
}

fn assert_converged(config: &Config, live: &LiveState) -> Plan {
    let served = Served::new(config, live);
    let live = served.read();
    // Warnings (a hint that a new dashboard may be a rename) do not stop a plan; errors would.
    let (first, diagnostics) = plan(config, &live, &PlanOptions::default());
    let diagnostics = errors(diagnostics);
    assert!(diagnostics.is_empty(), "{diagnostics:#?}");
    // A saved plan's steps are checked against its changes: every plan the planner makes
    // passes, and the steps derived from its changes converge as well.
    let derived = crate::plan::trust::steps(&first).unwrap_or_else(|p| panic!("{p:#?}"));
    let problems = crate::plan::trust::against_live(&first, &live);
    assert!(problems.is_empty(), "{problems:#?}");
    let checked = crate::plan::trust::against_config(&first, config, &|text| text.to_owned());
    assert!(checked.problems.is_empty(), "{:#?}", checked.problems);
    // A pipe the config finds by name is the one each step writes to.
    let none = std::collections::BTreeSet::new();
    let problems = crate::plan::trust::bound_against_live(&first, &checked.bound, &live, &none);
    assert!(problems.is_empty(), "{problems:#?}");
    let first = Plan {
        steps: derived,
        ..first
    };
    let live = served.apply(&first);
    let (second, diagnostics) = plan(config, &live, &PlanOptions::default());
    let diagnostics = errors(diagnostics);
    assert!(diagnostics.is_empty(), "{diagnostics:#?}");
    let left: Vec<(String, &str, &str)> = second
        .changes
        .iter()
        .filter(|c| c.action != Action::NoOp)
        .map(|c| (c.address.to_string(), c.action.as_str(), c.reason.as_str()))
        .collect();
    assert!(
        left.is_empty(),
        "changes left after apply ({} requests): {left:#?}",
        served.requests()
    );
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
            scaling: Some(PipeScalingConfig {
                span: at(3),
                replicas: wr.map(|v| loc(v, 3)),
                replica_cpu_millicores: wc.map(|v| loc(v, 3)),
                replica_memory_gb: memory(wm).map(|v| loc(v, 3)),
                ..Default::default()
            }),
            ..PipeConfig::by_id(loc("orders".into(), 3), loc(ORDERS.into(), 3))
        },
    );
    config.services.get_mut("analytics").unwrap().pipes = pipes;

    // Live dashboards and alerts.
    let live_boards = unique_boards(&live_boards);
    let stack_live = live.stacks.get_mut("prod").unwrap();
    stack_live.dashboards = live_boards
        .iter()
        .map(|b| Dashboard {
            containers: Vec::new(),
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
                    container_id: None,
                    tab_id: None,
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
                    tile.as_ratio = ratio.map(|r| Box::new(loc(r, 4)));
                    tile
                })
                .collect();
            (
                key.as_str().into(),
                fixtures::dashboard(&key, &board_name(b.name), &[], tiles),
            )
        })
        .collect();
    stack.alerts = IndexMap::new();
    for a in &want_alerts {
        let key = format!("alert-{}", a.name);
        if stack.alerts.contains_key(key.as_str()) {
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
        alert.message = a.message.map(|m| loc(format!("message {m}").into(), 5));
        stack.alerts.insert(key.into(), alert);
    }
    (config, live)
}

/// Each case serves its world from a sandbox of its own and goes through HTTP: fewer cases
/// than an in-memory model could run, enough to cover each kind's actions many times.
const CASES: u32 = 48;

proptest! {
    #![proptest_config(ProptestConfig::with_cases(CASES))]

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
