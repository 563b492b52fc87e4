//! Hand-built desired and live states covering every kind and action.

use indexmap::IndexMap;
use serde_json::json;

use crate::api::wire::{Alert, Backup, Channel, Dashboard, Pipe, Series, Service, Source, Tile};
use crate::config::model::{
    self, AlertConfig, ChannelConfig, CloudSettings, Config, DashboardConfig, Located,
    ObservabilitySettings, PipeConfig, PipeScalingConfig, PrivateEndpointConfig, SecretValue,
    SeriesConfig, ServiceConfig, ServiceScaling, StackConfig, TileConfig,
};
use crate::diagnostic::Span;
use crate::live::{LiveState, StackLive};

pub(crate) const ANALYTICS: &str = "1c7d8c62-0b0f-4f0e-9b2e-6a3c8a3b7e11";
pub(crate) const REPORTING: &str = "2d8e9f00-1a2b-4c3d-8e4f-5a6b7c8d9e0f";
pub(crate) const ORDERS: &str = "0f9d3b1e-6a52-4c0b-8f7e-2d5a9c1b4e77";
pub(crate) const EVENTS: &str = "5b2e8c4a-1d3f-4a6b-9c7e-8f0a1b2c3d4e";
pub(crate) const CUSTOMERS: &str = "3c4d5e6f-7a8b-4c9d-8e0f-1a2b3c4d5e6f";
pub(crate) const LEGACY: &str = "7e6d5c4b-3a29-4187-9f6e-5d4c3b2a1908";
pub(crate) const GONE: &str = "6f5e4d3c-2b1a-4098-8f7e-6d5c4b3a2918";
pub(crate) const WEBHOOK: &str = "65f5e4a3b9e77c001a789012";

/// Distinctive secret values placed in the inputs; none may appear in any output.
pub(crate) const CANARIES: [&str; 4] = [
    "CANARY-CA-CERT-9f8e",
    "CANARY-CONN-7d6c",
    "CANARY-KEY-SECRET-5b4a",
    "CANARY-TOKEN-3c2d",
];

/// The time backup ages are measured from in tests.
pub(crate) fn now() -> jiff::Timestamp {
    "2026-01-01T12:00:00Z".parse().unwrap()
}

pub(crate) fn at(line: usize) -> Span {
    let line = crate::diagnostic::narrow(line);
    Span::new(0, line * 10, 1, line, 3)
}

pub(crate) fn loc<T>(value: T, line: usize) -> Located<T> {
    Located::new(value, at(line))
}

fn s<T: for<'a> From<&'a str>>(value: &str, line: usize) -> Located<T> {
    loc(T::from(value), line)
}

pub(crate) fn series_by_name(source: &str, agg: &str, line: usize) -> SeriesConfig {
    SeriesConfig {
        span: at(line),
        kind: Some(s("time", line)),
        source: Some(model::SourceRef::Name(s(source, line))),
        agg_fn: Some(s(agg, line)),
        where_: Some(s("service:api", line)),
        where_language: Some(s("lucene", line)),
        group_by: Some(vec![]),
        ..Default::default()
    }
}

pub(crate) fn tile(name: &str, x: i64, series: Vec<SeriesConfig>, line: usize) -> TileConfig {
    TileConfig {
        container_id: None,
        tab_id: None,
        span: at(line),
        name: s(name, line),
        renamed_from: Vec::new(),
        x: loc(x, line),
        y: loc(0, line),
        w: loc(6, line),
        h: loc(4, line),
        as_ratio: None,
        series,
        config: None,
        config_at: Default::default(),
    }
}

pub(crate) fn dashboard(
    key: &str,
    name: &str,
    tags: &[&str],
    tiles: Vec<TileConfig>,
) -> DashboardConfig {
    DashboardConfig {
        containers: None,
        key: s(key, 100),
        name: s(name, 101),
        renamed_from: Vec::new(),
        tags: tags.iter().map(|t| s(t, 102)).collect(),
        tiles,
    }
}

pub(crate) fn alert(
    key: &str,
    name: &str,
    dashboard: &str,
    tile: &str,
    threshold: f64,
) -> AlertConfig {
    AlertConfig {
        key: s(key, 300),
        name: s(name, 300),
        renamed_from: Vec::new(),
        dashboard: s(dashboard, 300),
        tile: s(tile, 300),
        threshold: loc(threshold, 300),
        threshold_type: s("above", 300),
        interval: s("5m", 300),
        channel: Some(ChannelConfig {
            span: at(300),
            kind: s("webhook", 300),
            webhook_id: Some(s(WEBHOOK, 300)),
            webhook: None,
            email_recipients: None,
        }),
        channels: None,
        message: None,
        source: None,
        threshold_max: None,
        num_consecutive_windows: None,
        schedule_offset_minutes: None,
        schedule_start_at: None,
        note: None,
        cleared: Default::default(),
    }
}

fn pipe(key: &str, id: &str, scaling: Option<PipeScalingConfig>, absent: bool) -> PipeConfig {
    PipeConfig {
        absent,
        scaling,
        ..PipeConfig::by_id(s(key, 60), s(id, 60))
    }
}

pub(crate) fn demo_config() -> Config {
    let mut pipes = IndexMap::new();
    pipes.insert(
        "orders".into(),
        pipe(
            "orders",
            ORDERS,
            Some(PipeScalingConfig {
                span: at(61),
                replicas: Some(loc(4, 61)),
                replica_cpu_millicores: Some(loc(500, 61)),
                replica_memory_gb: Some(loc(2.0, 61)),
                ..Default::default()
            }),
            false,
        ),
    );
    pipes.insert(
        "events".into(),
        pipe(
            "events",
            EVENTS,
            Some(PipeScalingConfig {
                span: at(62),
                concurrency: Some(loc(8, 62)),
                ..Default::default()
            }),
            false,
        ),
    );
    pipes.insert(
        "customers".into(),
        pipe("customers", CUSTOMERS, None, false),
    );
    pipes.insert("legacy".into(), pipe("legacy", LEGACY, None, true));
    pipes.insert("gone".into(), pipe("gone", GONE, None, true));

    let mut services = IndexMap::new();
    services.insert(
        "analytics".into(),
        ServiceConfig {
            key: s("analytics", 10),
            id: s(ANALYTICS, 10),
            scaling: Some(ServiceScaling {
                span: at(11),
                num_replicas: Some(loc(3.0, 11)),
                idle_scaling: Some(loc(true, 12)),
                idle_timeout_minutes: Some(loc(15.0, 13)),
                ..Default::default()
            }),
            private_endpoints: Some(vec![
                PrivateEndpointConfig {
                    id: s("vpce-kept", 20),
                    description: None,
                },
                PrivateEndpointConfig {
                    id: s("vpce-new", 21),
                    description: Some(s("app VPC", 21)),
                },
            ]),
            pipes,
            reverse_endpoints: Default::default(),
            backups: Some(model::BackupChecks {
                span: at(70),
                max_age_hours: Some(loc(26.0, 71)),
                keep: vec![s("bk-kept", 72)],
            }),
            pipe_compute: None,
            settings: Default::default(),
        },
    );
    services.insert(
        "reporting".into(),
        ServiceConfig {
            key: s("reporting", 90),
            id: s(REPORTING, 90),
            scaling: Some(ServiceScaling {
                span: at(91),
                num_replicas: Some(loc(2.0, 91)),
                idle_timeout_minutes: Some(loc(15.0, 92)),
                ..Default::default()
            }),
            private_endpoints: None,
            pipes: IndexMap::new(),
            reverse_endpoints: Default::default(),
            backups: Some(model::BackupChecks {
                span: at(93),
                max_age_hours: Some(loc(1.0, 94)),
                keep: vec![s("bk-gone", 95)],
            }),
            pipe_compute: None,
            settings: Default::default(),
        },
    );

    let mut dashboards = IndexMap::new();
    dashboards.insert(
        "api-health".into(),
        dashboard(
            "api-health",
            "API health",
            &["team-api"],
            // Latency first: it does not stand where the removed `Old tile` stood, so it is a
            // new tile, not `Old tile` renamed in place.
            vec![
                tile("Latency", 0, vec![series_by_name("Logs", "max", 120)], 120),
                tile(
                    "Requests",
                    6,
                    vec![series_by_name("Logs", "count", 110)],
                    110,
                ),
            ],
        ),
    );
    dashboards.insert(
        "new-board".into(),
        dashboard(
            "new-board",
            "New board",
            &[],
            vec![tile(
                "Errors",
                0,
                vec![series_by_name("Logs", "count", 130)],
                130,
            )],
        ),
    );
    let mut steady_series = series_by_name("Logs", "count", 140);
    steady_series.source = Some(model::SourceRef::Id(s("src-logs", 140)));
    steady_series.where_language = None;
    steady_series.group_by = None;
    dashboards.insert(
        "steady".into(),
        dashboard(
            "steady",
            "Steady",
            &[],
            vec![tile("Main", 0, vec![steady_series], 140)],
        ),
    );
    let mut alerts = IndexMap::new();
    alerts.insert(
        "api-errors".into(),
        alert("api-errors", "API errors", "api-health", "Requests", 200.0),
    );
    alerts.insert(
        "new-alert".into(),
        alert("new-alert", "New alert", "new-board", "Errors", 1.0),
    );
    let mut steady = alert("steady", "Steady alert", "steady", "Main", 5.0);
    steady.message = Some(s("steady message", 310));
    alerts.insert("steady".into(), steady);
    alerts.insert(
        "moved".into(),
        alert("moved", "Moved alert", "api-health", "Latency", 10.0),
    );

    let mut stacks = IndexMap::new();
    stacks.insert(
        "prod".into(),
        StackConfig {
            key: s("prod", 99),
            target: model::StackTarget::Managed {
                service: s("analytics", 99),
            },
            prune: true,
            generation: None,
            dashboards,
            alerts,
            instance_names: Vec::new(),
            key_parameter: None,
            read_webhooks: false,
            webhooks: Default::default(),
            sources: Default::default(),
            saved_searches: Default::default(),
        },
    );
    let mut ops_dashboards = IndexMap::new();
    ops_dashboards.insert(
        "ops".into(),
        dashboard(
            "ops",
            "Ops",
            &[],
            vec![tile(
                "Main",
                0,
                vec![series_by_name("Logs", "count", 150)],
                150,
            )],
        ),
    );
    stacks.insert(
        "ops".into(),
        StackConfig {
            key: s("ops", 98),
            target: model::StackTarget::Observability,
            prune: false,
            generation: None,
            dashboards: ops_dashboards,
            alerts: IndexMap::new(),
            instance_names: Vec::new(),
            key_parameter: None,
            read_webhooks: false,
            webhooks: Default::default(),
            sources: Default::default(),
            saved_searches: Default::default(),
        },
    );

    Config {
        version: 1,
        organization: s("7d3f6a2e-0c1b-4e5f-9a8b-1c2d3e4f5a6b", 2),
        cloud: Some(CloudSettings {
            url: Some(s("https://api.example.com", 4)),
            key_id: Some(s("key-id", 5)),
            key_secret: Some(SecretValue {
                reference: "${env:CONVERGE_KEY_SECRET}".into(),
                value: Some(CANARIES[2].into()),
                span: at(6),
            }),
        }),
        observability: Some(ObservabilitySettings {
            url: Some(s("https://obs.example.com", 7)),
            token: Some(SecretValue {
                reference: "${env:CONVERGE_OBS_TOKEN}".into(),
                value: Some(CANARIES[3].into()),
                span: at(8),
            }),
        }),
        services,
        stacks,
        ignore: Vec::new(),
        drift: Default::default(),
        policy: Vec::new(),
    }
}

pub(crate) fn live_series(source: &str, agg: &str) -> Series {
    Series {
        kind: Some("time".into()),
        source_id: Some(source.into()),
        agg_fn: Some(agg.into()),
        where_: Some("service:api".into()),
        ..Default::default()
    }
}

pub(crate) fn live_tile(id: &str, name: &str, x: i64, series: Vec<Series>) -> Tile {
    Tile {
        container_id: None,
        tab_id: None,
        id: Some(id.into()),
        name: name.into(),
        x,
        y: 0,
        w: 6,
        h: 4,
        as_ratio: None,
        series,
        config: None,
    }
}

pub(crate) fn live_alert(
    id: &str,
    name: &str,
    dashboard: &str,
    tile: &str,
    threshold: f64,
) -> Alert {
    Alert {
        id: id.into(),
        name: name.into(),
        message: None,
        threshold: Some(threshold),
        interval: Some("5m".into()),
        threshold_type: Some("above".into()),
        source: Some("tile".into()),
        state: Some("alert".into()),
        channel: Some(Channel {
            kind: "webhook".into(),
            webhook_id: Some(WEBHOOK.into()),
            email_recipients: None,
        }),
        team: Some("team-1".into()),
        tile_id: Some(tile.into()),
        dashboard: Some(dashboard.into()),
        created_at: Some("2026-01-01T00:00:00.000Z".into()),
        updated_at: Some("2026-01-02T00:00:00.000Z".into()),
        newer: Default::default(),
    }
}

fn read<T: serde::de::DeserializeOwned>(value: serde_json::Value) -> T {
    serde_json::from_value(value).unwrap()
}

pub(crate) fn demo_live() -> LiveState {
    let mut live = LiveState::default();
    // Read through the wire types, so the quirks of real answers (numbers as strings,
    // quantities) are part of the fixture.
    let analytics: Service = read(json!({
        "id": ANALYTICS, "name": "analytics", "state": "running",
        "numReplicas": 2, "idleScaling": true, "idleTimeoutMinutes": "15",
        "minTotalMemoryGb": 48, "isPrimary": false,
        "privateEndpointIds": ["vpce-stale", "vpce-kept"],
        "createdAt": "2025-01-01T00:00:00Z"
    }));
    let reporting: Service = read(json!({
        "id": REPORTING, "name": "reporting", "state": "idle",
        "numReplicas": 2.0, "idleTimeoutMinutes": 15.0, "isPrimary": true,
        "privateEndpointIds": ["vpce-other"]
    }));
    live.services.insert(ANALYTICS.into(), analytics);
    live.services.insert(REPORTING.into(), reporting);
    let pipes: Vec<Pipe> = read(json!([
        {"id": ORDERS, "serviceId": ANALYTICS, "name": "orders", "state": "Running",
         "scaling": {"replicas": "4", "replicaCpuMillicores": "250m", "replicaMemoryGb": "2Gi"},
         "source": {"kafka": {"brokers": "broker.internal:9092", "caCertificate": CANARIES[0]}}},
        {"id": EVENTS, "serviceId": ANALYTICS, "name": "events",
         "scaling": {"concurrency": 8},
         "source": {"objectStorage": {"url": "s3://bucket/*.json", "connectionString": CANARIES[1]}}},
        {"id": CUSTOMERS, "serviceId": ANALYTICS, "name": "customers",
         "source": {"postgres": {"host": "db.internal", "port": "5432"}}},
        {"id": LEGACY, "serviceId": ANALYTICS, "name": "legacy",
         "scaling": {"concurrency": 2},
         "source": {"objectStorage": {"connectionString": CANARIES[1]}}}
    ]));
    live.pipes.insert(ANALYTICS.into(), pipes);
    let backups: Vec<Backup> = read(json!([
        {"id": "bk-running", "status": "in_progress", "serviceId": ANALYTICS,
         "startedAt": "2026-01-01T11:40:00Z"},
        {"id": "bk-newest", "status": "done", "serviceId": ANALYTICS,
         "startedAt": "2026-01-01T05:30:00Z", "finishedAt": "2026-01-01T06:00:00Z",
         "sizeInBytes": "5368709120", "durationInSeconds": 1800},
        {"id": "bk-failed", "status": "error", "serviceId": ANALYTICS,
         "startedAt": "2025-12-31T05:30:00Z", "finishedAt": "2025-12-31T06:00:00Z"}
    ]));
    live.backups.insert(ANALYTICS.into(), backups.clone());
    let mut failed_last: Vec<Backup> = backups;
    failed_last.insert(
        1,
        read(
            json!({"id": "bk-error", "status": "error", "serviceId": REPORTING,
                    "startedAt": "2026-01-01T09:00:00Z", "finishedAt": "2026-01-01T09:10:00Z"}),
        ),
    );
    live.backups.insert(REPORTING.into(), failed_last);
    live.kept_backups.insert(
        (ANALYTICS.into(), "bk-kept".into()),
        Some(read(
            json!({"id": "bk-kept", "status": "done", "serviceId": ANALYTICS}),
        )),
    );
    live.kept_backups
        .insert((REPORTING.into(), "bk-gone".into()), None);

    let owned = |stack: &str| vec![format!("converge:{stack}")];
    let api = Dashboard {
        containers: Vec::new(),
        id: "dash-api".into(),
        name: "API health".into(),
        tags: vec!["team-api".into(), "converge:prod".into()],
        tiles: vec![
            live_tile(
                "tile-requests",
                "Requests",
                0,
                vec![live_series("src-logs", "count")],
            ),
            live_tile(
                "tile-old",
                "Old tile",
                6,
                vec![live_series("src-logs", "sum")],
            ),
        ],
    };
    let steady = Dashboard {
        containers: Vec::new(),
        id: "dash-steady".into(),
        name: "Steady".into(),
        tags: owned("prod"),
        tiles: vec![live_tile(
            "tile-main",
            "Main",
            0,
            vec![live_series("src-logs", "count")],
        )],
    };
    let stale = Dashboard {
        containers: Vec::new(),
        id: "dash-stale".into(),
        name: "Stale board".into(),
        tags: owned("prod"),
        tiles: vec![live_tile("tile-stale", "T", 0, vec![])],
    };
    let hand = Dashboard {
        containers: Vec::new(),
        id: "dash-hand".into(),
        name: "Hand made".into(),
        tags: vec![],
        tiles: vec![live_tile("tile-hand", "H", 0, vec![])],
    };
    let mut api_errors = live_alert(
        "alert-api-errors",
        "API errors",
        "dash-api",
        "tile-requests",
        100.0,
    );
    api_errors.message = Some("live message".into());
    let mut steady_alert = live_alert(
        "alert-steady",
        "Steady alert",
        "dash-steady",
        "tile-main",
        5.0,
    );
    steady_alert.source = None;
    steady_alert.message = Some("steady message".into());
    live.stacks.insert(
        "prod".into(),
        StackLive {
            dashboards: vec![api, steady, stale, hand],
            alerts: vec![
                api_errors,
                live_alert("alert-moved", "Moved alert", "dash-api", "tile-old", 10.0),
                steady_alert,
                live_alert(
                    "alert-stale",
                    "Stale alert",
                    "dash-stale",
                    "tile-stale",
                    1.0,
                ),
                live_alert("alert-hand", "Hand alert", "dash-hand", "tile-hand", 1.0),
            ],
            sources: vec![
                Source {
                    id: "src-logs".into(),
                    name: "Logs".into(),
                    ..Default::default()
                },
                Source {
                    id: "src-traces".into(),
                    name: "Traces".into(),
                    ..Default::default()
                },
            ],
            ..StackLive::default()
        },
    );
    let mut ops_series = live_series("src-ops-logs", "count");
    ops_series.where_language = Some("lucene".into());
    live.stacks.insert(
        "ops".into(),
        StackLive {
            dashboards: vec![
                Dashboard {
                    containers: Vec::new(),
                    id: "ops-1".into(),
                    name: "Ops".into(),
                    tags: owned("ops"),
                    tiles: vec![live_tile("ops-tile", "Main", 0, vec![ops_series])],
                },
                Dashboard {
                    containers: Vec::new(),
                    id: "ops-2".into(),
                    name: "Leftover".into(),
                    tags: owned("ops"),
                    tiles: vec![live_tile("ops-tile-2", "X", 0, vec![])],
                },
            ],
            alerts: vec![live_alert(
                "ops-alert",
                "Leftover alert",
                "ops-2",
                "ops-tile-2",
                3.0,
            )],
            sources: vec![Source {
                id: "src-ops-logs".into(),
                name: "Logs".into(),
                ..Default::default()
            }],
            ..StackLive::default()
        },
    );
    live
}

/// A config of `n` dashboards (each with an alert) in one pruned stack, against a live state
/// where half exist with a different tile width, plus `n / 10` owned strays to delete.
pub(crate) fn large(n: usize) -> (Config, LiveState) {
    let mut config = demo_config();
    config.stacks.shift_remove("ops");
    let stack = config.stacks.get_mut("prod").unwrap();
    stack.dashboards.clear();
    stack.alerts.clear();
    let mut live_stack = StackLive {
        sources: vec![Source {
            id: "src-logs".into(),
            name: "Logs".into(),
            ..Default::default()
        }],
        ..Default::default()
    };
    for i in 0..n {
        let key = format!("board-{i:05}");
        let name = format!("Board {i:05} with a reasonably long descriptive name");
        let tiles: Vec<TileConfig> = (0..3)
            .map(|t| {
                tile(
                    &format!("Tile {t}"),
                    t * 6,
                    vec![series_by_name("Logs", "count", 100)],
                    100,
                )
            })
            .collect();
        stack.dashboards.insert(
            key.as_str().into(),
            dashboard(&key, &name, &["team"], tiles),
        );
        let alert_key = format!("alert-{i:05}");
        stack.alerts.insert(
            alert_key.as_str().into(),
            alert(&alert_key, &format!("Alert {i:05}"), &key, "Tile 0", 10.0),
        );
        if i % 2 == 0 {
            live_stack.dashboards.push(Dashboard {
                containers: Vec::new(),
                id: format!("d{i}"),
                name,
                tags: vec!["team".into(), "converge:prod".into()],
                tiles: (0..3)
                    .map(|t| {
                        let mut tile = live_tile(
                            &format!("d{i}t{t}"),
                            &format!("Tile {t}"),
                            t * 6,
                            vec![live_series("src-logs", "count")],
                        );
                        tile.w = 4;
                        tile
                    })
                    .collect(),
            });
        }
    }
    for i in 0..n / 10 {
        live_stack.dashboards.push(Dashboard {
            containers: Vec::new(),
            id: format!("stray{i}"),
            name: format!("Stray {i:05}"),
            tags: vec!["converge:prod".into()],
            tiles: vec![],
        });
    }
    let mut live = demo_live();
    live.stacks.remove("ops");
    live.stacks.insert("prod".into(), live_stack);
    (config, live)
}
