//! Plan computation (no network) for an organization the size of the sandbox's `large` seed:
//! 20 services with scaling and private endpoints, 100 pipes, two stacks of 150 dashboards
//! (4 tiles each) and 500 alerts each. The budget is 50 ms per plan. Also: rendering
//! the large plan in each output format, and the peak memory of one plan and of each render.

use std::hint::black_box;

use converge::api::wire::{
    Alert, Channel, Dashboard, KafkaSource, ObjectStorageSource, Pipe, PipeScaling, PipeSource,
    Series, Service, Source, Tile,
};
use converge::config::model::{
    AlertConfig, ChannelConfig, Config, DashboardConfig, Located, PipeConfig, PipeScalingConfig,
    PrivateEndpointConfig, SeriesConfig, ServiceConfig, ServiceScaling, SourceRef, StackConfig,
    StackTarget, TileConfig,
};
use converge::diagnostic::Span;
use converge::live::{LiveState, StackLive};
use converge::output::Printer;
use converge::plan::{PlanOptions, markdown, plan, render_json, text};
use criterion::{Criterion, criterion_group, criterion_main};
use indexmap::IndexMap;

#[path = "support/mem.rs"]
mod mem;

fn at<T>(value: T) -> Located<T> {
    Located::new(value, Span::default())
}

fn text_of<T: for<'a> From<&'a str>>(value: &str) -> Located<T> {
    at(T::from(value))
}

/// Builds the config and a live state; `drift` makes every dashboard and alert differ.
fn organization(drift: bool) -> (Config, LiveState) {
    let mut live = LiveState::default();
    let mut services = IndexMap::new();
    for s in 0..20 {
        let id = format!("service-{s:02}");
        let endpoint = format!("vpce-{s:017}");
        live.services.insert(
            id.clone(),
            Service {
                id: id.clone(),
                num_replicas: Some(3.0),
                idle_scaling: Some(true),
                idle_timeout_minutes: Some(15.0),
                private_endpoint_ids: vec![endpoint.clone()],
                ..Service::default()
            },
        );
        let mut pipes = IndexMap::new();
        let mut live_pipes = Vec::new();
        for p in 0..5 {
            let pipe_id = format!("{id}-pipe-{p}");
            let kafka = p % 2 == 0;
            live_pipes.push(Pipe {
                id: pipe_id.clone(),
                service_id: id.clone(),
                scaling: Some(PipeScaling {
                    replicas: kafka.then_some(2),
                    concurrency: (!kafka).then_some(4),
                    ..PipeScaling::default()
                }),
                source: Some(if kafka {
                    PipeSource {
                        kafka: Some(KafkaSource::default()),
                        ..PipeSource::default()
                    }
                } else {
                    PipeSource {
                        object_storage: Some(ObjectStorageSource::default()),
                        ..PipeSource::default()
                    }
                }),
                ..Pipe::default()
            });
            pipes.insert(
                format!("pipe-{p}"),
                PipeConfig {
                    scaling: Some(PipeScalingConfig {
                        replicas: kafka.then(|| at(2)),
                        concurrency: (!kafka).then(|| at(4)),
                        ..PipeScalingConfig::default()
                    }),
                    ..PipeConfig::by_id(text_of(&format!("pipe-{p}")), text_of(&pipe_id))
                },
            );
        }
        live.pipes.insert(id.clone(), live_pipes);
        services.insert(
            id.clone(),
            ServiceConfig {
                key: text_of(&id),
                id: text_of(&id),
                scaling: Some(ServiceScaling {
                    num_replicas: Some(at(3.0)),
                    idle_scaling: Some(at(true)),
                    idle_timeout_minutes: Some(at(15.0)),
                    ..ServiceScaling::default()
                }),
                private_endpoints: Some(vec![PrivateEndpointConfig {
                    id: text_of(&endpoint),
                    description: None,
                }]),
                pipes,
                reverse_endpoints: Default::default(),
                backups: None,
                pipe_compute: None,
                settings: Default::default(),
            },
        );
    }

    let mut stacks = IndexMap::new();
    for (key, target) in [
        (
            "managed",
            StackTarget::Managed {
                service: text_of("service-00"),
            },
        ),
        ("standalone", StackTarget::Observability),
    ] {
        let mut stack_live = StackLive {
            sources: vec![Source {
                id: format!("{key}-logs"),
                name: "Logs".into(),
                ..Source::default()
            }],
            ..StackLive::default()
        };
        let mut dashboards = IndexMap::new();
        let mut alerts = IndexMap::new();
        for d in 0..150 {
            let name = format!("dashboard-{d:03}");
            let dashboard_id = format!("{key}-d{d}");
            let mut tiles = Vec::new();
            let mut live_tiles = Vec::new();
            for t in 0..4 {
                tiles.push(TileConfig {
                    container_id: None,
                    tab_id: None,
                    span: Span::default(),
                    name: text_of(&format!("tile-{t}")),
                    renamed_from: Vec::new(),
                    x: at((t % 2) * 12),
                    y: at((t / 2) * 4),
                    w: at(12),
                    h: at(4),
                    as_ratio: None,
                    config: None,
                    config_at: Default::default(),
                    series: vec![SeriesConfig {
                        kind: Some(text_of("time")),
                        source: Some(SourceRef::Name(text_of("Logs"))),
                        agg_fn: Some(text_of("count")),
                        where_: Some(text_of(&format!("service:svc-{d}"))),
                        ..SeriesConfig::default()
                    }],
                });
                live_tiles.push(Tile {
                    container_id: None,
                    tab_id: None,
                    id: Some(format!("{dashboard_id}-t{t}")),
                    name: format!("tile-{t}"),
                    x: (t % 2) * 12,
                    y: (t / 2) * 4,
                    w: if drift { 6 } else { 12 },
                    h: 4,
                    as_ratio: Some(false),
                    series: vec![Series {
                        kind: Some("time".into()),
                        source_id: Some(format!("{key}-logs")),
                        agg_fn: Some("count".into()),
                        where_: Some(format!("service:svc-{d}")),
                        where_language: Some("lucene".into()),
                        group_by: Some(Vec::new()),
                        ..Series::default()
                    }],
                    config: None,
                });
            }
            stack_live.dashboards.push(Dashboard {
                containers: Vec::new(),
                id: dashboard_id.clone(),
                name: name.clone(),
                tiles: live_tiles,
                tags: vec![format!("converge:{key}")],
            });
            dashboards.insert(
                name.as_str().into(),
                DashboardConfig {
                    containers: None,
                    key: text_of(&name),
                    name: text_of(&name),
                    renamed_from: Vec::new(),
                    tags: Vec::new(),
                    tiles,
                },
            );
            let per_dashboard = if d < 50 { 4 } else { 3 };
            for a in 0..per_dashboard {
                let alert_name = format!("{name} alert {a}");
                stack_live.alerts.push(Alert {
                    id: format!("{dashboard_id}-a{a}"),
                    name: alert_name.clone(),
                    threshold: Some(if drift { 1.0 } else { 10.0 }),
                    interval: Some("5m".into()),
                    threshold_type: Some("above".into()),
                    source: Some("tile".into()),
                    channel: Some(Channel {
                        kind: "webhook".into(),
                        webhook_id: Some("hook".into()),
                        email_recipients: None,
                    }),
                    tile_id: Some(format!("{dashboard_id}-t{a}")),
                    dashboard: Some(dashboard_id.clone()),
                    ..Alert::default()
                });
                alerts.insert(
                    alert_name.as_str().into(),
                    AlertConfig {
                        key: text_of(&alert_name),
                        name: text_of(&alert_name),
                        renamed_from: Vec::new(),
                        dashboard: text_of(&name),
                        tile: text_of(&format!("tile-{a}")),
                        threshold: at(10.0),
                        threshold_type: text_of("above"),
                        interval: text_of("5m"),
                        channel: Some(ChannelConfig {
                            span: Span::default(),
                            kind: text_of("webhook"),
                            webhook_id: Some(text_of("hook")),
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
                    },
                );
            }
        }
        live.stacks.insert(key.to_string(), stack_live);
        stacks.insert(
            key.to_string(),
            StackConfig {
                key: text_of(key),
                target,
                prune: true,
                generation: None,
                dashboards,
                alerts,
                instance_names: Vec::new(),
                key_parameter: None,
                read_webhooks: false,
                sources: Default::default(),
                webhooks: Default::default(),
                saved_searches: Default::default(),
            },
        );
    }
    let config = Config {
        version: 1,
        organization: text_of("org"),
        cloud: None,
        observability: None,
        services,
        stacks,
        ignore: Vec::new(),
        drift: Default::default(),
        policy: Vec::new(),
    };
    (config, live)
}

/// The changed organization with its plan, the input of every render. The config and live
/// state stay alive so the render cannot reuse their freed pages and hide its own rise.
fn changed_plan() -> (Config, LiveState, converge::plan::Plan) {
    let (config, live) = organization(true);
    let (changed, _) = plan(&config, &live, &PlanOptions::default());
    (config, live, changed)
}

/// Peak memory of each step, each in a fresh process (see `mem::isolated`).
fn peaks() {
    let options = PlanOptions::default();
    mem::isolated(
        "plan large no-op",
        || organization(false),
        |(config, live)| plan(config, live, &options),
    );
    mem::isolated(
        "plan large, every dashboard and alert changed",
        || organization(true),
        |(config, live)| plan(config, live, &options),
    );
    mem::isolated("render markdown", changed_plan, |(_, _, changed)| {
        markdown::render(changed)
    });
    mem::isolated("render text", changed_plan, |(_, _, changed)| {
        text::render(changed, &Printer::plain())
    });
    mem::isolated("render json", changed_plan, |(_, _, changed)| {
        render_json::render(changed)
    });
}

fn bench(c: &mut Criterion) {
    peaks();
    let (config, live) = organization(false);
    let (noop, diagnostics) = plan(&config, &live, &PlanOptions::default());
    assert!(diagnostics.is_empty() && !noop.has_changes());
    c.bench_function("plan large no-op", |b| {
        b.iter(|| {
            plan(
                black_box(&config),
                black_box(&live),
                &PlanOptions::default(),
            )
        })
    });
    let (config, live) = organization(true);
    let (changed, _) = plan(&config, &live, &PlanOptions::default());
    assert_eq!(changed.summary().update, 300 + 1000);
    c.bench_function("plan large, every dashboard and alert changed", |b| {
        b.iter(|| {
            plan(
                black_box(&config),
                black_box(&live),
                &PlanOptions::default(),
            )
        })
    });
    let printer = Printer::plain();
    for (format, bytes) in [
        ("text", text::render(&changed, &printer).len()),
        ("json", render_json::render(&changed).len()),
        ("markdown", markdown::render(&changed).len()),
    ] {
        println!("rendered size: {format}: {bytes} bytes");
    }
    c.bench_function("render large plan: text", |b| {
        b.iter(|| text::render(black_box(&changed), &printer))
    });
    c.bench_function("render large plan: json", |b| {
        b.iter(|| render_json::render(black_box(&changed)))
    });
    c.bench_function("render large plan: markdown", |b| {
        b.iter(|| markdown::render(black_box(&changed)))
    });
    c.bench_function("render large plan (text, json, markdown)", |b| {
        b.iter(|| {
            (
                text::render(black_box(&changed), &printer),
                render_json::render(black_box(&changed)),
                markdown::render(black_box(&changed)),
            )
        })
    });
}

criterion_group!(benches, bench);
criterion_main!(benches);
