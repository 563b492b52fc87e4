//! Initial worlds: `demo` (the quickstart's objects, with scaling different from it), `large`
//! (a big organization for benchmarks) and `empty`. Everything is deterministic for a given
//! "now"; backups are placed relative to it.

use jiff::{SignedDuration, Timestamp};
use serde_json::{Value, json};

use crate::api::wire::{
    Alert, Backup, BigquerySource, Channel, CompactJson, Dashboard, IpAccessEntry, KafkaSource,
    KinesisSource, MongodbSource, MysqlSource, ObjectStorageSource, Pipe, PipeScaling, PipeSource,
    PostgresSource, PrivateEndpoint, PubsubSource, SchemaRegistry, Series, Service,
    ServiceEndpoint, Source, SourceKind, Tile, Webhook,
};

use super::faults::{hash_bytes, mix};
use super::model::Seed;
use super::secrets::fill_secrets;
use super::store::{PipeRecord, ServiceRecord, Stack, StackKey, StoredWebhook, World, quiet_state};

/// The demo service the quickstart manages.
pub(crate) const ANALYTICS_ID: &str = "1c7d8c62-0b0f-4f0e-9b2e-6a3c8a3b7e11";
/// The second demo service, not in the quickstart.
pub(crate) const REPORTING_ID: &str = "2e4f6a8b-3c5d-4e7f-8a9b-0c1d2e3f4a5b";
const WAREHOUSE_ID: &str = "8f7e6d5c-4b3a-4c2d-9e1f-0a9b8c7d6e5f";

/// Builds the world of a seed at `now`.
pub(crate) fn world(seed: Seed, now: Timestamp) -> World {
    let mut world = match seed {
        Seed::Demo => demo(now),
        Seed::Large => large(now),
        // No services, but the observability API still answers (with empty lists).
        Seed::Empty => World {
            stacks: vec![Stack {
                key: StackKey::Observability,
                dashboards: Vec::new(),
                alerts: Vec::new(),
                sources: Vec::new(),
                webhooks: Vec::new(),
                connections: vec![connection(2)],
                saved_searches: Vec::new(),
            }],
            ..World::default()
        },
    };
    for stack in &mut world.stacks {
        let state = quiet_state(&stack.key);
        for alert in &mut stack.alerts {
            alert.state = Some(state.into());
        }
    }
    world
}

/// ISO 8601 with seconds, `Z`.
pub(crate) fn iso(ts: Timestamp) -> String {
    ts.strftime("%Y-%m-%dT%H:%M:%SZ").to_string()
}

/// ISO 8601 with milliseconds, as the observability API writes times.
pub(crate) fn iso_ms(ts: Timestamp) -> String {
    format!(
        "{}.{:03}Z",
        ts.strftime("%Y-%m-%dT%H:%M:%S"),
        ts.as_millisecond().rem_euclid(1000)
    )
}

fn ago(now: Timestamp, hours: i64, minutes: i64) -> Timestamp {
    now.checked_sub(SignedDuration::from_mins(hours * 60 + minutes))
        .unwrap_or(now)
}

/// A UUID v4-shaped id derived from a label, so seeds are reproducible.
pub(crate) fn uuid_from(label: &str) -> String {
    let a = hash_bytes(label.as_bytes());
    let b = mix(a ^ 0x5bd1_e995);
    let bytes: Vec<u8> = a.to_be_bytes().into_iter().chain(b.to_be_bytes()).collect();
    let mut raw = [0u8; 16];
    raw.copy_from_slice(&bytes);
    uuid::Builder::from_random_bytes(raw)
        .into_uuid()
        .to_string()
}

#[allow(clippy::too_many_arguments)]
fn service(
    id: &str,
    name: &str,
    state: &str,
    primary: bool,
    replicas: f64,
    idle_scaling: bool,
    idle_timeout: f64,
    tier: &str,
    created: Timestamp,
) -> Service {
    let short = id.split('-').next().unwrap_or(id);
    let host = format!("{short}.us-east-1.aws.sandbox.local");
    Service {
        id: id.to_string(),
        name: name.to_string(),
        provider: Some("aws".into()),
        region: Some("us-east-1".into()),
        state: Some(state.into()),
        db_version: Some("25.8".into()),
        tier: Some(tier.into()),
        endpoints: vec![
            ServiceEndpoint {
                protocol: Some("nativesecure".into()),
                host: Some(host.clone()),
                port: Some(9440),
                username: Some("default".into()),
            },
            ServiceEndpoint {
                protocol: Some("https".into()),
                host: Some(host),
                port: Some(8443),
                username: Some("default".into()),
            },
        ],
        min_total_memory_gb: Some(24.0),
        max_total_memory_gb: Some(if tier == "production" { 360.0 } else { 48.0 }),
        min_replica_memory_gb: Some(8.0),
        max_replica_memory_gb: Some(if tier == "production" { 120.0 } else { 16.0 }),
        num_replicas: Some(replicas),
        idle_scaling: Some(idle_scaling),
        idle_timeout_minutes: Some(idle_timeout),
        ip_access_list: vec![IpAccessEntry {
            source: "10.0.0.0/8".into(),
            description: "office VPN".into(),
        }],
        created_at: Some(iso(created)),
        iam_role: Some(format!("arn:aws:iam::123456789012:role/sandbox-{short}")),
        private_endpoint_ids: Vec::new(),
        available_private_endpoint_ids: Vec::new(),
        data_warehouse_id: Some(WAREHOUSE_ID.into()),
        is_primary: Some(primary),
        is_readonly: Some(false),
        has_transparent_data_encryption: Some(false),
        release_channel: Some("default".into()),
        ..Service::default()
    }
}

fn pipe(
    id: &str,
    service_id: &str,
    name: &str,
    kind: SourceKind,
    scaling: Option<PipeScaling>,
    created: Timestamp,
) -> PipeRecord {
    let source = seed_source(name, kind);
    // A database pipe's tables are its table mappings; the others write one table.
    let (destination, field_mappings) = if kind.is_database() {
        (json!({"database": "default"}), None)
    } else {
        (
            json!({
                "database": "default",
                "table": name,
                "managedTable": true,
                "tableDefinition": {"engine": {"type": "MergeTree"}, "sortingKey": ["ts"]},
                "columns": [{"name": "id", "type": "String"}, {"name": "ts", "type": "DateTime64(3)"}]
            }),
            Some(json!([
                {"sourceField": "id", "destinationField": "id"},
                {"sourceField": "ts", "destinationField": "ts"}
            ])),
        )
    };
    let settings = match kind {
        SourceKind::Kafka | SourceKind::Kinesis | SourceKind::Pubsub => {
            json!({"streaming_max_insert_wait_ms": 5000})
        }
        SourceKind::ObjectStorage => json!({"object_storage_polling_interval_ms": 30000}),
        SourceKind::Postgres | SourceKind::Mysql | SourceKind::Mongodb | SourceKind::Bigquery => {
            json!({"db_max_threads": 4})
        }
    };
    let mut pipe = Pipe {
        id: id.to_string(),
        service_id: service_id.to_string(),
        name: name.to_string(),
        state: Some("Running".into()),
        scaling,
        source: Some(source),
        destination: Some(CompactJson::from(destination)),
        field_mappings: field_mappings.map(CompactJson::from),
        settings: Some(CompactJson::from(settings)),
        created_at: Some(iso(created)),
        updated_at: Some(iso(created)),
    };
    fill_secrets(&mut pipe);
    PipeRecord {
        pipe,
        ..PipeRecord::default()
    }
}

/// The source of a seeded pipe of `kind` named `name`, as the real servers show one.
fn seed_source(name: &str, kind: SourceKind) -> PipeSource {
    match kind {
        SourceKind::Kafka => PipeSource {
            kafka: Some(KafkaSource {
                r#type: Some("confluent".into()),
                format: Some("JSONEachRow".into()),
                authentication: Some("PLAIN".into()),
                offset: Some(json!({"strategy": "from_latest"})),
                brokers: Some("b-1.sandbox-kafka.local:9096,b-2.sandbox-kafka.local:9096".into()),
                topics: Some(name.into()),
                consumer_group: Some(format!("clickpipes-{name}")),
                schema_registry: Some(SchemaRegistry {
                    url: Some("https://registry.sandbox-kafka.local".into()),
                    ..SchemaRegistry::default()
                }),
                ..KafkaSource::default()
            }),
            ..PipeSource::default()
        },
        SourceKind::ObjectStorage => PipeSource {
            object_storage: Some(ObjectStorageSource {
                r#type: Some("azureblobstorage".into()),
                format: Some("JSONEachRow".into()),
                authentication: Some("CONNECTION_STRING".into()),
                url: Some(format!(
                    "https://sandboxdata.blob.core.windows.net/{name}/*.json"
                )),
                compression: Some("auto".into()),
                is_continuous: Some(true),
                azure_container_name: Some(name.into()),
                path: Some("*.json".into()),
                ..ObjectStorageSource::default()
            }),
            ..PipeSource::default()
        },
        SourceKind::Kinesis => PipeSource {
            kinesis: Some(KinesisSource {
                format: Some("JSONEachRow".into()),
                iterator_type: Some("TRIM_HORIZON".into()),
                authentication: Some("IAM_ROLE".into()),
                stream_name: Some(name.into()),
                region: Some("us-east-1".into()),
                use_enhanced_fan_out: Some(false),
                iam_role: Some("arn:aws:iam::123456789012:role/sandbox-kinesis".into()),
                ..KinesisSource::default()
            }),
            ..PipeSource::default()
        },
        SourceKind::Postgres => PipeSource {
            postgres: Some(PostgresSource {
                host: Some("pg.sandbox.local".into()),
                port: Some(5432),
                database: Some("app".into()),
                settings: Some(CompactJson::from(json!({"syncIntervalSeconds": 60,
                    "pullBatchSize": 100000, "publicationName": "converge_pub",
                    "replicationSlotName": "converge_slot", "replicationMode": "cdc"}))),
                table_mappings: Some(CompactJson::from(json!([{"sourceSchemaName": "public",
                    "sourceTable": name, "targetTable": format!("public_{name}")}]))),
                ..PostgresSource::default()
            }),
            ..PipeSource::default()
        },
        SourceKind::Mysql | SourceKind::Mongodb | SourceKind::Bigquery | SourceKind::Pubsub => {
            seed_newer_source(name, kind)
        }
    }
}

/// The source of a seeded pipe of a newer kind (mysql, mongodb, bigquery, pubsub) named `name`.
fn seed_newer_source(name: &str, kind: SourceKind) -> PipeSource {
    match kind {
        SourceKind::Mysql => PipeSource {
            mysql: Some(MysqlSource {
                host: Some("mysql.sandbox.local".into()),
                port: Some(3306),
                settings: Some(CompactJson::from(json!({"replicationMode": "cdc"}))),
                table_mappings: Some(CompactJson::from(json!([{"sourceSchemaName": "app",
                    "sourceTable": name, "targetTable": format!("app_{name}")}]))),
                ..MysqlSource::default()
            }),
            ..PipeSource::default()
        },
        SourceKind::Mongodb => PipeSource {
            mongodb: Some(MongodbSource {
                uri: Some("mongodb://mongo.sandbox.local:27017/app".into()),
                read_preference: Some("secondaryPreferred".into()),
                settings: Some(CompactJson::from(json!({"replicationMode": "cdc"}))),
                table_mappings: Some(CompactJson::from(json!([{"sourceDatabaseName": "app",
                    "sourceCollection": name, "targetTable": format!("app_{name}")}]))),
                ..MongodbSource::default()
            }),
            ..PipeSource::default()
        },
        SourceKind::Bigquery => PipeSource {
            bigquery: Some(BigquerySource {
                snapshot_staging_path: Some("gs://sandbox-staging/converge/".into()),
                settings: Some(CompactJson::from(json!({"replicationMode": "snapshot"}))),
                table_mappings: Some(CompactJson::from(json!([{"sourceDatasetName": "app",
                    "sourceTable": name, "targetTable": format!("app_{name}")}]))),
            }),
            ..PipeSource::default()
        },
        SourceKind::Pubsub => PipeSource {
            pubsub: Some(PubsubSource {
                format: Some("JSONEachRow".into()),
                project_id: Some("sandbox-project".into()),
                topic: Some(name.into()),
                authentication: Some("SERVICE_ACCOUNT".into()),
                seek_type: Some("latest".into()),
                ..PubsubSource::default()
            }),
            ..PipeSource::default()
        },
        _ => PipeSource::default(),
    }
}

/// Backups of a service, newest first: one in progress, the newest finished one 6 h old, one
/// failed, then daily finished ones.
fn backups(service_id: &str, now: Timestamp, daily: usize) -> Vec<Backup> {
    let mut out = Vec::new();
    let make = |label: &str, status: &str, started: Timestamp, minutes: i64| {
        let id = uuid_from(&format!("{service_id}/backup/{label}"));
        let finished = (status != "in_progress")
            .then(|| started.checked_add(SignedDuration::from_mins(minutes)).ok())
            .flatten();
        Backup {
            id: id.clone(),
            status: Some(status.into()),
            service_id: service_id.into(),
            started_at: Some(iso(started)),
            finished_at: finished.map(iso),
            size_in_bytes: Some(if status == "done" {
                5_368_709_120.0
            } else {
                0.0
            }),
            duration_in_seconds: Some((minutes * 60) as f64),
            kind: Some("full".into()),
            backup_name: Some(format!("backup-{id}")),
            bucket: Some(json!({
                "bucketProvider": "AWS",
                "bucketPath": format!("s3://sandbox-backups/{service_id}"),
                "iamRoleArn": "arn:aws:iam::123456789012:role/sandbox-backups",
                "iamRoleSessionName": "converge-sandbox"
            })),
        }
    };
    out.push(make("running", "in_progress", ago(now, 0, 20), 20));
    out.push(make("newest", "done", ago(now, 6, 30), 30));
    out.push(make("failed", "error", ago(now, 12, 0), 5));
    for day in 1..=daily {
        out.push(make(
            &format!("day-{day}"),
            "done",
            ago(now, 6 + 24 * day as i64, 30),
            30,
        ));
    }
    out
}

/// The stack's sources, with every member the cloud document marks required for their kind
/// (`ClickStackLogSource`, `ClickStackTraceSource`, `ClickStackMetricSource`).
fn sources(prefix: u64) -> Vec<Source> {
    let details = |kind: &str| -> serde_json::Map<String, Value> {
        let value = match kind {
            "log" => json!({
                "defaultTableSelectExpression": "Timestamp, ServiceName, SeverityText, Body",
                "timestampValueExpression": "TimestampTime",
                "serviceNameExpression": "ServiceName",
                "severityTextExpression": "SeverityText",
                "bodyExpression": "Body",
                "implicitColumnExpression": "Body",
            }),
            "trace" => json!({
                "defaultTableSelectExpression": "Timestamp, SpanName, ServiceName, Duration",
                "timestampValueExpression": "Timestamp",
                "durationExpression": "Duration",
                "durationPrecision": 9,
                "traceIdExpression": "TraceId",
                "spanIdExpression": "SpanId",
                "parentSpanIdExpression": "ParentSpanId",
                "spanNameExpression": "SpanName",
                "spanKindExpression": "SpanKind",
            }),
            _ => json!({
                "metricTables": {
                    "gauge": "otel_metrics_gauge",
                    "histogram": "otel_metrics_histogram",
                    "sum": "otel_metrics_sum",
                },
                "timestampValueExpression": "TimeUnix",
                "resourceAttributesExpression": "ResourceAttributes",
            }),
        };
        match value {
            Value::Object(map) => map,
            _ => serde_json::Map::new(),
        }
    };
    [
        ("Logs", "log", "otel_logs"),
        ("Traces", "trace", "otel_traces"),
        ("Metrics", "metric", "otel_metrics_gauge"),
    ]
    .into_iter()
    .enumerate()
    .map(|(i, (name, kind, table))| Source {
        id: format!("65f5e4a3{:08x}{:08x}", prefix, i + 1),
        name: name.into(),
        kind: Some(kind.into()),
        connection: Some(format!("65f5e4a3{prefix:08x}000000ff")),
        from: Some(json!({"databaseName": "otel", "tableName": table})),
        details: details(kind),
    })
    .collect()
}

/// The ClickHouse connection the seeded sources of stack `prefix` name, as hdx-server seeds
/// one (`Local ClickHouse`).
fn connection(prefix: u64) -> crate::api::wire::Connection {
    crate::api::wire::Connection {
        id: format!("65f5e4a3{prefix:08x}000000ff"),
        name: "Local ClickHouse".into(),
        host: Some("http://127.0.0.1:8123".into()),
        username: Some("default".into()),
    }
}

/// The webhooks hdx-server seeds (the same ids and names, so a config's `webhookId` and
/// `webhook:` read alike on both): three `generic` ones.
fn webhooks(created: Timestamp) -> Vec<StoredWebhook> {
    (0..3)
        .map(|i| StoredWebhook {
            webhook: Webhook {
                id: format!("65f5e4a3b9e77c001a78901{}", i + 2),
                name: format!("hook-{i}"),
                service: "generic".into(),
                url: Some(format!("https://hooks.example.com/hook{i}")),
                description: None,
                body: None,
                updated_at: Some(iso_ms(created)),
                created_at: Some(iso_ms(created)),
            },
            headers: None,
            query_params: None,
        })
        .collect()
}

fn demo(now: Timestamp) -> World {
    let created = ago(now, 24 * 90, 0);
    let mut world = World::default();
    demo_services(&mut world, now, created);
    demo_stacks(&mut world, created);
    world
}

/// `analytics` (the quickstart's, with its four pipes) and `reporting`, with their backups.
fn demo_services(world: &mut World, now: Timestamp, created: Timestamp) {
    world.services.push(ServiceRecord {
        service: service(
            ANALYTICS_ID,
            "analytics",
            "running",
            true,
            2.0,
            false,
            10.0,
            "production",
            created,
        ),
        paid: true,
        pending_scaling: None,
        pending_state: None,
    });
    world.services.push(ServiceRecord {
        service: service(
            REPORTING_ID,
            "reporting",
            "idle",
            false,
            1.0,
            true,
            15.0,
            "development",
            created,
        ),
        paid: false,
        pending_scaling: None,
        pending_state: None,
    });
    let scaled = |replicas, concurrency, cpu, mem| {
        Some(PipeScaling {
            replicas,
            concurrency,
            replica_cpu_millicores: cpu,
            replica_memory_gb: mem,
        })
    };
    world.pipes = vec![
        pipe(
            "0f9d3b1e-6a52-4c0b-8f7e-2d5a9c1b4e77",
            ANALYTICS_ID,
            "orders",
            SourceKind::Kafka,
            scaled(Some(2), None, Some(250), Some(1.0)),
            created,
        ),
        pipe(
            "5b2e8c4a-1d3f-4a6b-9c7e-8f0a1b2c3d4e",
            ANALYTICS_ID,
            "events",
            SourceKind::ObjectStorage,
            scaled(None, Some(4), None, None),
            created,
        ),
        pipe(
            "9a8b7c6d-5e4f-4a3b-8c2d-1e0f9a8b7c6d",
            ANALYTICS_ID,
            "clicks",
            SourceKind::Kinesis,
            scaled(None, None, Some(500), Some(2.0)),
            created,
        ),
        pipe(
            "3c4d5e6f-7a8b-4c9d-8e0f-1a2b3c4d5e6f",
            ANALYTICS_ID,
            "customers",
            SourceKind::Postgres,
            None,
            created,
        ),
    ];
    world.backups = backups(ANALYTICS_ID, now, 5);
    world.backups.extend(backups(REPORTING_ID, now, 2));
}

/// The managed stack of `analytics` and the observability API's stack.
fn demo_stacks(world: &mut World, created: Timestamp) {
    let managed_sources = sources(1);
    let mut managed = Stack {
        key: StackKey::Managed {
            service_id: ANALYTICS_ID.into(),
        },
        dashboards: Vec::new(),
        alerts: Vec::new(),
        sources: managed_sources.clone(),
        webhooks: webhooks(created),
        connections: Vec::new(),
        saved_searches: Vec::new(),
    };
    // One dashboard and alert that the quickstart does not name, so pruning has something to see.
    let dashboard_id = world.new_id();
    let tile_id = world.new_id();
    managed.dashboards.push(Dashboard {
        id: dashboard_id.clone(),
        name: "On-call overview".into(),
        tiles: vec![Tile {
            id: Some(tile_id.clone()),
            name: "Errors".into(),
            x: 0,
            y: 0,
            w: 12,
            h: 4,
            as_ratio: Some(false),
            series: vec![Series {
                kind: Some("time".into()),
                data_source: Some("events".into()),
                source_id: Some(managed_sources[0].id.clone()),
                agg_fn: Some("count".into()),
                where_: Some("level:error".into()),
                where_language: Some("lucene".into()),
                group_by: Some(Vec::new()),
                ..Series::default()
            }],
            config: None,
            container_id: None,
            tab_id: None,
        }],
        tags: vec!["on-call".into()],
        containers: Vec::new(),
    });
    let alert_id = world.new_id();
    managed.alerts.push(alert(
        alert_id,
        "Error burst",
        &dashboard_id,
        &tile_id,
        50.0,
        "5m",
        created,
    ));
    world.stacks.push(managed);
    world.stacks.push(Stack {
        key: StackKey::Observability,
        dashboards: Vec::new(),
        alerts: Vec::new(),
        sources: sources(2),
        webhooks: webhooks(created),
        connections: vec![connection(2)],
        saved_searches: Vec::new(),
    });
}

fn alert(
    id: String,
    name: &str,
    dashboard: &str,
    tile: &str,
    threshold: f64,
    interval: &str,
    created: Timestamp,
) -> Alert {
    Alert {
        id,
        name: name.into(),
        message: Some(format!("{name} crossed its threshold")),
        threshold: Some(threshold),
        interval: Some(interval.into()),
        threshold_type: Some("above".into()),
        source: Some("tile".into()),
        state: Some("inactive".into()),
        channel: Some(Channel {
            kind: "webhook".into(),
            webhook_id: Some("65f5e4a3b9e77c001a789012".into()),
            email_recipients: None,
        }),
        team: Some(TEAM_ID.into()),
        tile_id: Some(tile.into()),
        dashboard: Some(dashboard.into()),
        created_at: Some(iso_ms(created)),
        updated_at: Some(iso_ms(created)),
        newer: Default::default(),
    }
}

/// The team every alert belongs to.
pub(crate) const TEAM_ID: &str = "65f5e4a3b9e77c001a345678";

fn large(now: Timestamp) -> World {
    large_times(1, now)
}

/// The `large` seed `scale` times over: `20 × scale` services (with their endpoints, pipes and
/// backups) and `150 × scale` dashboards (with their alerts) in each of the two stacks; scale 1
/// is the `large` seed itself. Alerts settle in their stack's quiet state, as [`world`] leaves
/// them.
pub(crate) fn large_scaled(scale: usize, now: Timestamp) -> World {
    let mut world = large_times(scale, now);
    for stack in &mut world.stacks {
        let state = quiet_state(&stack.key);
        for alert in &mut stack.alerts {
            alert.state = Some(state.into());
        }
    }
    world
}

fn large_times(scale: usize, now: Timestamp) -> World {
    let created = ago(now, 24 * 200, 0);
    let mut world = World::default();
    for s in 0..20 * scale {
        large_service(&mut world, s, now, created);
    }
    let first_service = world.services[0].service.id.clone();
    for (index, key) in [
        StackKey::Managed {
            service_id: first_service,
        },
        StackKey::Observability,
    ]
    .into_iter()
    .enumerate()
    {
        let stack_sources = sources(10 + index as u64);
        let mut stack = Stack {
            key,
            dashboards: Vec::new(),
            alerts: Vec::new(),
            sources: stack_sources.clone(),
            webhooks: Vec::new(),
            connections: vec![connection(10 + index as u64)],
            saved_searches: Vec::new(),
        };
        for d in 0..150 * scale {
            large_dashboard(&mut world, &mut stack, d, &stack_sources, created);
        }
        world.stacks.push(stack);
    }
    world
}

/// Service `s` of the large seed: two private endpoints (one attached), five pipes of the four
/// kinds in turn, three backups.
fn large_service(world: &mut World, s: usize, now: Timestamp, created: Timestamp) {
    let kinds = [
        SourceKind::Kafka,
        SourceKind::ObjectStorage,
        SourceKind::Kinesis,
        SourceKind::Postgres,
    ];
    let id = uuid_from(&format!("large/service/{s}"));
    let state = if s % 7 == 6 { "idle" } else { "running" };
    let mut svc = service(
        &id,
        &format!("service-{s:02}"),
        state,
        s.is_multiple_of(4),
        (2 + s % 3) as f64,
        s.is_multiple_of(2),
        (5 + 5 * (s % 4)) as f64,
        if s % 5 == 4 {
            "development"
        } else {
            "production"
        },
        created,
    );
    svc.data_warehouse_id = Some(uuid_from(&format!("large/warehouse/{}", s / 4)));
    // Two private endpoints per service: one attached, one registered but not attached.
    for e in 0..2 {
        let endpoint = format!("vpce-{:017x}", mix((s * 2 + e) as u64) >> 4);
        world.private_endpoints.push(PrivateEndpoint {
            id: endpoint.clone(),
            description: format!("service-{s:02} endpoint {e}"),
            cloud_provider: Some("aws".into()),
            region: Some("us-east-1".into()),
        });
        if e == 0 {
            svc.private_endpoint_ids.push(endpoint);
        } else {
            svc.available_private_endpoint_ids.push(endpoint);
        }
    }
    for p in 0..5 {
        let n = s * 5 + p;
        let kind = kinds[n % 4];
        world.pipes.push(pipe(
            &uuid_from(&format!("large/pipe/{n}")),
            &id,
            &format!("pipe-{n:03}"),
            kind,
            large_pipe_scaling(kind, n),
            created,
        ));
    }
    world.backups.extend(backups(&id, now, 3));
    world.services.push(ServiceRecord {
        paid: svc.tier.as_deref() == Some("production"),
        service: svc,
        pending_scaling: None,
        pending_state: None,
    });
}

/// The scaling of pipe `n` of the large seed: valid for its kind, varied by `n`.
fn large_pipe_scaling(kind: SourceKind, n: usize) -> Option<PipeScaling> {
    match kind {
        SourceKind::Kafka => Some(PipeScaling {
            replicas: Some((1 + n % 10) as i64),
            concurrency: None,
            replica_cpu_millicores: Some(250 * (1 + (n % 4) as i64)),
            replica_memory_gb: Some(1.0 + (n % 4) as f64),
        }),
        SourceKind::ObjectStorage => Some(PipeScaling {
            concurrency: Some((n % 35) as i64),
            ..PipeScaling::default()
        }),
        SourceKind::Kinesis => Some(PipeScaling {
            replica_cpu_millicores: Some(125 * (1 + (n % 16) as i64)),
            replica_memory_gb: Some(0.5 * (1 + (n % 16)) as f64),
            ..PipeScaling::default()
        }),
        SourceKind::Postgres
        | SourceKind::Mysql
        | SourceKind::Mongodb
        | SourceKind::Bigquery
        | SourceKind::Pubsub => None,
    }
}

/// Dashboard `d` of a large stack: four tiles, and four alerts (three from the 51st on).
fn large_dashboard(
    world: &mut World,
    stack: &mut Stack,
    d: usize,
    stack_sources: &[Source],
    created: Timestamp,
) {
    let dashboard_id = world.new_id();
    let tiles: Vec<Tile> = (0..4)
        .map(|t| Tile {
            id: Some(world.new_id()),
            name: format!("tile-{t}"),
            x: (t % 2) * 12,
            y: (t / 2) * 4,
            w: 12,
            h: 4,
            as_ratio: Some(false),
            series: vec![Series {
                kind: Some("time".into()),
                data_source: Some("events".into()),
                source_id: Some(stack_sources[(t % 3) as usize].id.clone()),
                agg_fn: Some(if t % 2 == 0 { "count" } else { "avg" }.into()),
                field: (t % 2 == 1).then(|| "duration".to_string()),
                where_: Some(format!("service:svc-{d}")),
                where_language: Some("lucene".into()),
                group_by: Some(Vec::new()),
                ..Series::default()
            }],
            config: None,
            container_id: None,
            tab_id: None,
        })
        .collect();
    // `d % 150` keeps the share of four-alert dashboards the same at every scale.
    let alerts_here = if d % 150 < 50 { 4 } else { 3 };
    for a in 0..alerts_here {
        let tile = tiles[a % 4].id.clone().unwrap_or_default();
        let alert_id = world.new_id();
        stack.alerts.push(alert(
            alert_id,
            &format!("dashboard-{d:03} alert {a}"),
            &dashboard_id,
            &tile,
            (10 * (a + 1)) as f64,
            ["1m", "5m", "15m", "1h"][a % 4],
            created,
        ));
    }
    stack.dashboards.push(Dashboard {
        id: dashboard_id,
        name: format!("dashboard-{d:03}"),
        tiles,
        tags: vec![format!("team-{}", d % 10)],
        containers: Vec::new(),
    });
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sandbox::secrets::strip_secrets;

    fn now() -> Timestamp {
        "2026-01-01T12:00:00Z".parse().unwrap()
    }

    #[test]
    fn large_seed_has_the_promised_sizes() {
        let world = large(now());
        assert_eq!(world.services.len(), 20);
        assert_eq!(world.pipes.len(), 100);
        assert_eq!(world.private_endpoints.len(), 40);
        assert_eq!(world.stacks.len(), 2);
        let dashboards: usize = world.stacks.iter().map(|s| s.dashboards.len()).sum();
        let alerts: usize = world.stacks.iter().map(|s| s.alerts.len()).sum();
        assert_eq!((dashboards, alerts), (300, 1000));
        for kind in ["kafka", "objectStorage", "kinesis", "postgres"] {
            assert!(world.pipes.iter().any(|p| {
                p.pipe
                    .source
                    .as_ref()
                    .and_then(PipeSource::kind)
                    .map(SourceKind::as_str)
                    == Some(kind)
            }));
        }
    }

    #[test]
    fn seeds_are_deterministic() {
        let a = serde_json::to_string(&large(now())).unwrap();
        let b = serde_json::to_string(&large(now())).unwrap();
        assert_eq!(a, b);
        assert_eq!(uuid_from("x"), uuid_from("x"));
        assert!(uuid::Uuid::parse_str(&uuid_from("x")).is_ok());
    }

    #[test]
    fn secrets_round_trip_through_strip_and_fill() {
        let world = demo(now());
        let mut events = world.pipes[1].pipe.clone();
        let original = events.clone();
        strip_secrets(&mut events);
        assert!(
            !serde_json::to_string(&events)
                .unwrap()
                .contains("AccountKey")
        );
        fill_secrets(&mut events);
        assert_eq!(events, original);
    }
}
