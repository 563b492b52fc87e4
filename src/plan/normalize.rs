//! Normalizers: each kind's live object (and desired object) turned into the JSON the planner
//! compares, so the plan after a successful apply is always empty.
//!
//! What every normalizer does:
//! - drops server-owned fields by construction: only the listed fields are written (ids,
//!   timestamps, `state`, `team`, endpoints... never appear);
//! - writes whole numbers as integers, so `3` and `3.0` compare and print alike;
//! - treats an empty string as absent (a `PUT` turns omitted strings into `""`);
//! - applies these defaults, on both sides:
//!   - service `idleScaling` absent is `true` (the contract's default), `autoscalingMode`
//!     absent is `vertical`;
//!   - tile `asRatio` absent is `false`;
//!   - series `whereLanguage` absent is `lucene` (the stack's default query language);
//!   - series `groupBy` absent (null) is `[]`;
//!   - alert `source` absent is `tile`;
//!   - dashboard `containers` absent is `[]` (and left out of the compared value), a
//!     container's `collapsible` and `bordered` absent are `true`, its `tabs` absent `[]`;
//!   - tile `config` (today's shape): `fillNulls` absent is `true` (line, stacked bar),
//!     `asRatio` absent is `false` (line, stacked bar, table), `whereLanguage` absent is
//!     `lucene`, `where` absent is `""`, a `count` select item has no `valueExpression` (the
//!     server drops one on read);
//! - sorts order-insensitive lists: dashboard `tags` (also de-duplicated), tiles by name
//!   (tiles are matched by name; their place is `x`/`y`), service `privateEndpointIds`.
//!
//! Pipe sources are never normalized into anything the planner keeps: only their kind.

use serde_json::{Map, Value, json};

use crate::address::Member;
use crate::api::limits::{METRIC_VALUE_COLUMN, stored_date_time};
use crate::config::service_settings_rules::RESERVED_TAG_PREFIX;

use crate::api::wire::{
    Alert, Channel, Container, Dashboard, NewerAlertFields, Pipe, PipeScaling, Series, Service,
    Tile,
};

/// A number as JSON: whole numbers as integers.
pub(crate) fn num(value: f64) -> Value {
    if value.fract() == 0.0 && value.abs() < 9.0e15 {
        Value::from(value as i64)
    } else {
        serde_json::Number::from_f64(value)
            .map(Value::Number)
            .unwrap_or(Value::Null)
    }
}

fn put(map: &mut Map<String, Value>, key: &str, value: Option<Value>) {
    if let Some(value) = value {
        map.insert(key.to_string(), value);
    }
}

fn text(value: &Option<String>) -> Option<Value> {
    value
        .as_deref()
        .filter(|s| !s.is_empty())
        .map(|s| Value::String(s.to_string()))
}

/// A service's scaling fields (`service.<key>.scaling`).
pub(crate) fn service_scaling(service: &Service) -> Value {
    let mut map = Map::new();
    put(&mut map, "numReplicas", service.num_replicas.map(num));
    put(
        &mut map,
        "idleScaling",
        Some(Value::Bool(service.idle_scaling.unwrap_or(true))),
    );
    put(
        &mut map,
        "idleTimeoutMinutes",
        service.idle_timeout_minutes.map(num),
    );
    put(
        &mut map,
        "minTotalMemoryGb",
        service.min_total_memory_gb.map(num),
    );
    put(
        &mut map,
        "maxTotalMemoryGb",
        service.max_total_memory_gb.map(num),
    );
    let mode = service.autoscaling_mode.as_deref().unwrap_or("vertical");
    put(&mut map, "autoscalingMode", Some(Value::from(mode)));
    put(&mut map, "minReplicas", service.min_replicas.map(num));
    put(&mut map, "maxReplicas", service.max_replicas.map(num));
    let memory = [
        ("minReplicaMemoryGb", service.min_replica_memory_gb),
        ("maxReplicaMemoryGb", service.max_replica_memory_gb),
    ];
    for (key, value) in memory {
        put(&mut map, key, value.map(num));
    }
    Value::Object(map)
}

/// One member of a service's own settings as the server stores it, keyed by its config name
/// (`{"tags": {...}}`), so a change's fields read as the config writes them (`tags.team`):
/// the IP access list as source to description (`""` when none; order is not kept), the
/// tags as key to value without converge's own (`converge.*`, never the config's), the
/// release channel `default` when absent, the `mysql` endpoint on when the service lists
/// it, and the state as `running` or `stopped` (an idle, awaking or starting service is
/// running: `--wake` is what wakes one).
pub(crate) fn service_member(service: &Service, member: Member) -> Value {
    let value = match member {
        Member::Name => Value::from(service.name.as_str()),
        Member::IpAccessList => Value::Object(
            service
                .ip_access_list
                .iter()
                .map(|e| (e.source.clone(), Value::from(e.description.as_str())))
                .collect(),
        ),
        Member::Tags => Value::Object(
            service
                .tags
                .iter()
                .filter(|t| !t.key.starts_with(RESERVED_TAG_PREFIX))
                .map(|t| {
                    (
                        t.key.clone(),
                        Value::from(t.value.clone().unwrap_or_default()),
                    )
                })
                .collect(),
        ),
        Member::ReleaseChannel => Value::from(
            service
                .release_channel
                .as_deref()
                .filter(|c| !c.is_empty())
                .unwrap_or("default"),
        ),
        Member::Endpoints => json!({
            "mysql": service.endpoints.iter().any(|e| e.protocol.as_deref() == Some("mysql"))
        }),
        Member::State => Value::from(running_or_stopped(service.state.as_deref())),
    };
    json!({ member.as_str(): value })
}

/// A service's state as `state:` compares it: `stopped` while stopped or stopping, `running`
/// otherwise.
pub(crate) fn running_or_stopped(state: Option<&str>) -> &'static str {
    match state {
        Some("stopped" | "stopping") => "stopped",
        _ => "running",
    }
}

/// A service's private endpoint ids, sorted and de-duplicated.
pub(crate) fn private_endpoint_ids(service: &Service) -> Vec<String> {
    let mut ids = service.private_endpoint_ids.clone();
    ids.sort();
    ids.dedup();
    ids
}

/// A pipe's scaling fields.
pub(crate) fn pipe_scaling(scaling: &PipeScaling) -> Value {
    let mut map = Map::new();
    put(&mut map, "replicas", scaling.replicas.map(Value::from));
    put(
        &mut map,
        "concurrency",
        scaling.concurrency.map(Value::from),
    );
    put(
        &mut map,
        "replicaCpuMillicores",
        scaling.replica_cpu_millicores.map(Value::from),
    );
    put(
        &mut map,
        "replicaMemoryGb",
        scaling.replica_memory_gb.map(num),
    );
    Value::Object(map)
}

/// A pipe as the plan shows it: id, name, source kind and scaling, never its source settings.
pub(crate) fn pipe_identity(pipe: &Pipe) -> Value {
    let kind = pipe
        .source
        .as_ref()
        .and_then(|s| s.kind())
        .map(|k| k.as_str());
    json!({
        "id": pipe.id,
        "name": pipe.name,
        "sourceKind": kind,
        "scaling": pipe_scaling(&pipe.scaling.clone().unwrap_or_default()),
    })
}

/// One series.
pub(crate) fn series(series: &Series) -> Value {
    let mut map = Map::new();
    put(&mut map, "type", text(&series.kind));
    put(&mut map, "dataSource", text(&series.data_source));
    put(&mut map, "sourceId", text(&series.source_id));
    put(&mut map, "aggFn", text(&series.agg_fn));
    put(&mut map, "field", text(&series.field));
    put(&mut map, "level", series.level.map(num));
    put(&mut map, "content", text(&series.content));
    put(
        &mut map,
        "fields",
        series.fields.as_ref().map(|f| Value::from(f.clone())),
    );
    put(&mut map, "where", text(&series.where_));
    put(
        &mut map,
        "whereLanguage",
        Some(text(&series.where_language).unwrap_or_else(|| Value::from("lucene"))),
    );
    let group_by: Vec<Value> = series
        .group_by
        .iter()
        .flatten()
        .map(|g| Value::String(g.clone()))
        .collect();
    map.insert("groupBy".into(), Value::Array(group_by));
    put(&mut map, "metricName", text(&series.metric_name));
    put(&mut map, "metricDataType", text(&series.metric_data_type));
    Value::Object(map)
}

/// A value without its nulls, empty strings, empty lists and empty maps (absent to the server),
/// at every depth.
pub(crate) fn present(value: &Value) -> Option<Value> {
    match value {
        Value::Null => None,
        Value::String(s) if s.is_empty() => None,
        Value::Object(map) => {
            let map: Map<String, Value> = map
                .iter()
                .filter_map(|(k, v)| Some((k.clone(), present(v)?)))
                .collect();
            (!map.is_empty()).then_some(Value::Object(map))
        }
        Value::Array(items) => {
            let items: Vec<Value> = items.iter().filter_map(present).collect();
            (!items.is_empty()).then_some(Value::Array(items))
        }
        Value::Number(n) => Some(n.as_f64().map_or_else(|| value.clone(), num)),
        other => Some(other.clone()),
    }
}

/// One `select` item of a tile `config`.
fn select_item(item: Value) -> Value {
    let Value::Object(mut map) = item else {
        return item;
    };
    let agg = map.get("aggFn").and_then(Value::as_str).map(str::to_string);
    if agg.as_deref() == Some("count") {
        map.remove("valueExpression");
    } else if agg.is_some() {
        metric_value_column(&mut map);
    }
    if agg.is_some() {
        map.entry("whereLanguage")
            .or_insert_with(|| Value::from("lucene"));
    }
    Value::Object(map)
}

/// A metric select item (`metricType` set) without a `valueExpression`, as the server's own
/// series translation stores one, is given the metric's [`METRIC_VALUE_COLUMN`]: drawn the same,
/// and what a write must send (the server refuses a non-count item without one).
pub(crate) fn metric_value_column(item: &mut Map<String, Value>) {
    let metric = item
        .get("metricType")
        .and_then(Value::as_str)
        .is_some_and(|t| !t.is_empty());
    let counted = item.get("aggFn").and_then(Value::as_str) == Some("count");
    let empty = item
        .get("valueExpression")
        .and_then(Value::as_str)
        .is_none_or(str::is_empty);
    if metric && !counted && empty {
        item.insert("valueExpression".into(), Value::from(METRIC_VALUE_COLUMN));
    }
}

/// A tile's `config` (today's shape) as compared, with the server's defaults applied.
pub(crate) fn tile_config(config: &Value) -> Value {
    let Some(Value::Object(mut map)) = present(config) else {
        return config.clone();
    };
    if let Some(Value::Array(items)) = map.get_mut("select") {
        for item in items.iter_mut() {
            *item = select_item(std::mem::take(item));
        }
    }
    let display = map
        .get("displayType")
        .and_then(Value::as_str)
        .unwrap_or_default()
        .to_string();
    let builder = !map.contains_key("configType");
    let mut default = |key: &str, value: Value| {
        map.entry(key).or_insert(value);
    };
    if ["line", "stacked_bar"].contains(&display.as_str()) {
        default("fillNulls", Value::Bool(true));
    }
    if builder && ["line", "stacked_bar", "table"].contains(&display.as_str()) {
        default("asRatio", Value::Bool(false));
    }
    if ["search", "heatmap", "event_patterns"].contains(&display.as_str()) {
        default("whereLanguage", Value::from("lucene"));
    }
    // One order whatever the server's: `displayType` first, then by key.
    let mut entries: Vec<(String, Value)> = map.into_iter().collect();
    entries.sort_by(|a, b| (a.0 != "displayType", &a.0).cmp(&(b.0 != "displayType", &b.0)));
    Value::Object(entries.into_iter().collect())
}

/// One tile, with or without its server-assigned id: in today's shape when it carries
/// `config` and no `series`, else in the contract's.
pub(crate) fn tile(tile: &Tile, with_id: bool) -> Value {
    if let Some(config) = tile.config.as_ref().filter(|_| tile.is_newer_format()) {
        let mut map = Map::new();
        if with_id {
            put(&mut map, "id", text(&tile.id));
        }
        map.insert("name".into(), Value::String(tile.name.clone()));
        map.insert("x".into(), Value::from(tile.x));
        map.insert("y".into(), Value::from(tile.y));
        map.insert("w".into(), Value::from(tile.w));
        map.insert("h".into(), Value::from(tile.h));
        map.insert("config".into(), tile_config(&config.value()));
        placed(&mut map, tile);
        return Value::Object(map);
    }
    let mut map = Map::new();
    if with_id {
        put(&mut map, "id", text(&tile.id));
    }
    map.insert("name".into(), Value::String(tile.name.clone()));
    map.insert("x".into(), Value::from(tile.x));
    map.insert("y".into(), Value::from(tile.y));
    map.insert("w".into(), Value::from(tile.w));
    map.insert("h".into(), Value::from(tile.h));
    map.insert(
        "asRatio".into(),
        Value::Bool(tile.as_ratio.unwrap_or(false)),
    );
    map.insert(
        "series".into(),
        Value::Array(tile.series.iter().map(series).collect()),
    );
    placed(&mut map, tile);
    Value::Object(map)
}

/// A tile's container and tab, where it has them (absent: the ungrouped area).
fn placed(map: &mut Map<String, Value>, tile: &Tile) {
    put(map, "containerId", text(&tile.container_id));
    put(map, "tabId", text(&tile.tab_id));
}

/// A dashboard's containers as compared, in their order (the order they are drawn in), with
/// the server's defaults: `collapsible` and `bordered` absent are `true`, `tabs` absent `[]`.
fn containers(containers: &[Container]) -> Value {
    containers
        .iter()
        .map(|c| {
            let tabs: Vec<Value> = c
                .tabs
                .iter()
                .flatten()
                .map(|t| json!({ "id": t.id, "title": t.title }))
                .collect();
            json!({
                "id": c.id,
                "title": c.title,
                "collapsed": c.collapsed,
                "collapsible": c.collapsible.unwrap_or(true),
                "bordered": c.bordered.unwrap_or(true),
                "tabs": tabs,
            })
        })
        .collect()
}

/// A dashboard or alert name as a server that normalises names stores it: runs of white space
/// collapsed to one space, none at the ends.
pub(crate) fn name_key(name: &str) -> String {
    name.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// Whether two dashboard or alert names are one name to the server: equal, or equal once white
/// space is normalised the way some servers store names ([`name_key`]).
pub(crate) fn same_name(a: &str, b: &str) -> bool {
    a == b || name_key(a) == name_key(b)
}

/// What the tag an apply puts on each dashboard it creates starts with ([`run_tag`]).
const RUN_TAG_PREFIX: &str = "converge-run:";

/// The tag an apply puts on each dashboard it creates, naming the run: when the create's answer
/// is lost, the run finds its own copy by it (and can prove it made it). Ignored wherever
/// dashboards are compared or exported: the next update, which replaces the tags, drops it.
pub(crate) fn run_tag(run: &str) -> String {
    format!("{RUN_TAG_PREFIX}{run}")
}

/// Sorted, de-duplicated tags, without a run's tag ([`run_tag`]).
pub(crate) fn tags(tags: &[String]) -> Vec<String> {
    let mut tags: Vec<String> = tags
        .iter()
        .filter(|t| !t.is_empty() && !t.starts_with(RUN_TAG_PREFIX))
        .cloned()
        .collect();
    tags.sort();
    tags.dedup();
    tags
}

fn dashboard_value(dashboard: &Dashboard, with_ids: bool) -> Value {
    let mut tiles: Vec<&Tile> = dashboard.tiles.iter().collect();
    tiles.sort_by(|a, b| a.name.cmp(&b.name));
    let mut value = json!({
        "name": dashboard.name,
        "tags": tags(&dashboard.tags),
        "tiles": tiles.into_iter().map(|t| tile(t, with_ids)).collect::<Vec<_>>(),
    });
    // Only where there are any: dashboards without containers compare as they always have.
    if !dashboard.containers.is_empty()
        && let Value::Object(map) = &mut value
    {
        map.insert("containers".into(), containers(&dashboard.containers));
    }
    value
}

/// A dashboard as compared: name, tags, tiles by name; no ids.
pub(crate) fn dashboard(dashboard: &Dashboard) -> Value {
    dashboard_value(dashboard, false)
}

/// A dashboard with its tile ids, for fingerprints.
pub(crate) fn dashboard_with_ids(dashboard: &Dashboard) -> Value {
    let mut value = dashboard_value(dashboard, true);
    if let Value::Object(map) = &mut value {
        map.insert("id".into(), Value::String(dashboard.id.clone()));
    }
    value
}

fn channel(channel: &Option<Channel>) -> Value {
    match channel {
        Some(c) => {
            let mut map = Map::new();
            map.insert("type".into(), Value::String(c.kind.clone()));
            put(&mut map, "webhookId", text(&c.webhook_id));
            put(
                &mut map,
                "emailRecipients",
                c.email_recipients.as_ref().map(|r| Value::from(r.clone())),
            );
            Value::Object(map)
        }
        None => Value::Null,
    }
}

/// The fields of an alert as compared; `dashboard` and `tile` are names.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct AlertView<'a> {
    /// Alert name.
    pub name: &'a str,
    /// Dashboard name (or `id:<id>` when the id matches no dashboard).
    pub dashboard: String,
    /// Tile name (or `id:<id>` when the id matches no tile).
    pub tile: String,
    /// Threshold.
    pub threshold: Option<f64>,
    /// `above` / `below`.
    pub threshold_type: &'a Option<String>,
    /// Interval.
    pub interval: &'a Option<String>,
    /// `tile` / `search`; absent is `tile`.
    pub source: &'a Option<String>,
    /// Channel.
    pub channel: &'a Option<Channel>,
    /// Message.
    pub message: &'a Option<String>,
    /// The members of today's generation; each absent one is left out.
    pub newer: &'a NewerAlertFields,
}

/// An alert as compared.
pub(crate) fn alert_view(view: &AlertView<'_>) -> Value {
    let mut map = Map::new();
    map.insert("name".into(), Value::String(view.name.to_string()));
    map.insert("dashboard".into(), Value::String(view.dashboard.clone()));
    map.insert("tile".into(), Value::String(view.tile.clone()));
    put(&mut map, "threshold", view.threshold.map(num));
    put(&mut map, "thresholdType", text(view.threshold_type));
    put(&mut map, "interval", text(view.interval));
    map.insert(
        "source".into(),
        text(view.source).unwrap_or_else(|| Value::from("tile")),
    );
    map.insert("channel".into(), channel(view.channel));
    put(&mut map, "message", text(view.message));
    let newer = view.newer;
    put(&mut map, "thresholdMax", newer.threshold_max.map(num));
    put(
        &mut map,
        "numConsecutiveWindows",
        newer.num_consecutive_windows.map(Value::from),
    );
    put(
        &mut map,
        "scheduleOffsetMinutes",
        newer.schedule_offset_minutes.map(Value::from),
    );
    // Compared as the server stores it (with milliseconds), so a start written without them
    // is not a difference after the apply.
    let start = text(&newer.schedule_start_at).map(|start| match start {
        Value::String(s) => Value::String(stored_date_time(&s).unwrap_or(s)),
        other => other,
    });
    put(&mut map, "scheduleStartAt", start);
    put(&mut map, "note", text(&newer.note));
    put(
        &mut map,
        "channels",
        newer
            .channels
            .as_ref()
            .map(|list| Value::Array(list.iter().map(|c| channel(&Some(c.clone()))).collect())),
    );
    Value::Object(map)
}

/// The keys of today's alert members in an alert's compared view.
pub(crate) const NEWER_ALERT_KEYS: &[&str] = &[
    "thresholdMax",
    "numConsecutiveWindows",
    "scheduleOffsetMinutes",
    "scheduleStartAt",
    "note",
    "channels",
];

/// A live alert as compared, its dashboard and tile ids resolved to names through `dashboard`
/// (the live dashboard whose id the alert names, if any).
pub(crate) fn alert(alert: &Alert, dashboard: Option<&Dashboard>) -> Value {
    let dashboard = dashboard.filter(|d| alert.dashboard.as_deref() == Some(d.id.as_str()));
    let dashboard_name = match (dashboard, &alert.dashboard) {
        (Some(d), _) => d.name.clone(),
        (None, Some(id)) => format!("id:{id}"),
        (None, None) => String::new(),
    };
    let tile = dashboard.and_then(|d| {
        d.tiles
            .iter()
            .find(|t| t.id.is_some() && t.id == alert.tile_id)
    });
    let tile_name = match (tile, &alert.tile_id) {
        (Some(t), _) => t.name.clone(),
        (None, Some(id)) => format!("id:{id}"),
        (None, None) => String::new(),
    };
    alert_view(&AlertView {
        name: &alert.name,
        dashboard: dashboard_name,
        tile: tile_name,
        threshold: alert.threshold,
        threshold_type: &alert.threshold_type,
        interval: &alert.interval,
        source: &alert.source,
        channel: &alert.channel,
        message: &alert.message,
        newer: &alert.newer,
    })
}

/// An alert with its own, its dashboard's and its tile's ids, for fingerprints.
pub(crate) fn alert_with_ids(alert: &Alert) -> Value {
    let mut value = alert_view(&AlertView {
        name: &alert.name,
        dashboard: alert.dashboard.clone().unwrap_or_default(),
        tile: alert.tile_id.clone().unwrap_or_default(),
        threshold: alert.threshold,
        threshold_type: &alert.threshold_type,
        interval: &alert.interval,
        source: &alert.source,
        channel: &alert.channel,
        message: &alert.message,
        newer: &alert.newer,
    });
    if let Value::Object(map) = &mut value {
        map.insert("id".into(), Value::String(alert.id.clone()));
    }
    value
}

/// Keeps only the keys of `value` that `managed` has (both objects): the live side of a diff
/// over the fields the config mentions.
pub(crate) fn project(value: &Value, managed: &Value) -> Value {
    match (value, managed) {
        (Value::Object(map), Value::Object(keys)) => Value::Object(
            map.iter()
                .filter(|(k, _)| keys.contains_key(*k))
                .map(|(k, v)| (k.clone(), v.clone()))
                .collect(),
        ),
        _ => value.clone(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_make_absent_and_explicit_equal() {
        let bare = Series {
            kind: Some("time".into()),
            ..Default::default()
        };
        let explicit = Series {
            kind: Some("time".into()),
            where_language: Some("lucene".into()),
            group_by: Some(vec![]),
            field: Some(String::new()),
            ..Default::default()
        };
        assert_eq!(series(&bare), series(&explicit));
        let a = Tile {
            name: "t".into(),
            as_ratio: None,
            ..Default::default()
        };
        let b = Tile {
            as_ratio: Some(false),
            id: Some("server-id".into()),
            ..a.clone()
        };
        assert_eq!(tile(&a, false), tile(&b, false));
        assert_ne!(tile(&a, true), tile(&b, true));
    }

    #[test]
    fn whole_floats_are_integers_and_tags_sorted() {
        assert_eq!(num(3.0), Value::from(3));
        assert_eq!(num(0.5), json!(0.5));
        let d = Dashboard {
            id: "x".into(),
            name: "n".into(),
            tags: vec!["b".into(), "a".into(), "b".into()],
            tiles: vec![
                Tile {
                    name: "z".into(),
                    ..Default::default()
                },
                Tile {
                    name: "a".into(),
                    ..Default::default()
                },
            ],
            containers: Vec::new(),
        };
        let v = dashboard(&d);
        assert_eq!(v["tags"], json!(["a", "b"]));
        assert_eq!(v["tiles"][0]["name"], "a");
        assert!(v.get("id").is_none());
    }

    #[test]
    fn service_scaling_drops_server_fields_and_defaults_idle_scaling() {
        let service = Service {
            id: "s".into(),
            state: Some("running".into()),
            num_replicas: Some(3.0),
            ..Default::default()
        };
        assert_eq!(
            service_scaling(&service),
            json!({"numReplicas": 3, "idleScaling": true, "autoscalingMode": "vertical"})
        );
    }
}

/// A webhook as listed, its destination and body included: what its fingerprint hashes (never
/// shown or saved).
pub(crate) fn webhook_with_secrets(webhook: &crate::api::wire::Webhook) -> Value {
    serde_json::json!({
        "id": webhook.id,
        "name": webhook.name,
        "service": webhook.service,
        "url": webhook.url,
        "description": webhook.description,
        "body": webhook.body,
    })
}
