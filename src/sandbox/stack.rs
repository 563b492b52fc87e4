//! Dashboards, alerts and sources of a stack, the same for the managed stack (cloud API) and the
//! observability API: server-assigned tile ids, PUT replaces the whole object, alerts follow
//! their tiles and dashboards.

use serde_json::{Map, Value};

use crate::api::limits::{
    AGG_FNS, ALERT_INTERVALS, ALERT_MESSAGE_MAX, ALERT_NAME_MAX, ALERT_SOURCES, CHANNEL_TYPES,
    DASHBOARD_MAX_TAGS, DASHBOARD_MAX_TILES, DASHBOARD_NAME_MAX, DATA_SOURCES, METRIC_DATA_TYPES,
    SERIES_TYPES, TAG_MAX, THRESHOLD_TYPES, TILE_W, TILE_X, WHERE_LANGUAGES,
};
use crate::api::wire::{Alert, Channel, Dashboard, Series, Tile};

use super::cloud::Ctx;
use super::model::Quirk;
use super::routes::{ApiError, Op, Reply};
use super::seed::{TEAM_ID, iso_ms};
use super::store::{Stack, StackKey, World, quiet_state};
use super::validate::{self, Check, invalid};

/// Alert list paging of the observability API: default and largest `limit`.
const ALERTS_DEFAULT_LIMIT: usize = 100;
const ALERTS_MAX_LIMIT: usize = 1000;

fn to_value<T: serde::Serialize>(value: &T) -> Result<Value, ApiError> {
    serde_json::to_value(value)
        .map_err(|e| ApiError::new(500, "INTERNAL_SERVER_ERROR", e.to_string()))
}

/// Runs one stack operation.
pub(crate) fn handle(
    ctx: &mut Ctx<'_>,
    key: &StackKey,
    op: Op,
    id: Option<&str>,
    query: Option<&str>,
    body: Option<&Value>,
) -> Reply {
    let newer = ctx.quirks.contains(&Quirk::NewerGeneration);
    match run(ctx, key, op, id, query, body) {
        Ok(Reply::Ok(mut value)) => {
            if let StackKey::Managed { .. } = key {
                managed_shape(&mut value, op, newer);
            }
            Reply::Ok(value)
        }
        Ok(reply) => reply,
        Err(error) => Reply::Err(error),
    }
}

/// The managed stack's own way of writing objects (the cloud document): an alert without a
/// name has `name: null`; with the newer-generation quirk, alerts say `dashboardId`/`teamId`
/// and tiles carry `config` instead of `series`.
fn managed_shape(value: &mut Value, op: Op, newer: bool) {
    let objects: Vec<&mut Map<String, Value>> = match value {
        Value::Array(items) => items.iter_mut().filter_map(Value::as_object_mut).collect(),
        Value::Object(map) => vec![map],
        _ => Vec::new(),
    };
    for object in objects {
        match op {
            Op::ListAlerts | Op::GetAlert | Op::CreateAlert | Op::UpdateAlert => {
                if object.get("name").is_some_and(|n| n == "") {
                    object.insert("name".into(), Value::Null);
                }
                if newer {
                    for (contract, newer_name) in [("dashboard", "dashboardId"), ("team", "teamId")]
                    {
                        if let Some(v) = object.remove(contract) {
                            object.insert(newer_name.into(), v);
                        }
                    }
                }
            }
            Op::ListDashboards | Op::GetDashboard | Op::CreateDashboard | Op::UpdateDashboard
                if newer =>
            {
                let tiles = object.get_mut("tiles").and_then(Value::as_array_mut);
                for tile in tiles.into_iter().flatten().filter_map(Value::as_object_mut) {
                    let as_ratio = tile.remove("asRatio");
                    if let Some(Value::Array(series)) = tile.remove("series") {
                        tile.insert("config".into(), newer_config(&series, as_ratio));
                    }
                }
            }
            _ => {}
        }
    }
}

/// A tile's `series` as the newer generation's line chart `config`
/// (`ClickStackLineBuilderChartConfig`).
fn newer_config(series: &[Value], as_ratio: Option<Value>) -> Value {
    let select: Vec<Value> = series
        .iter()
        .map(|s| {
            let mut item = Map::new();
            item.insert(
                "aggFn".into(),
                s.get("aggFn").cloned().unwrap_or("count".into()),
            );
            for (from, to) in [
                ("field", "valueExpression"),
                ("where", "where"),
                ("whereLanguage", "whereLanguage"),
            ] {
                if let Some(v) = s.get(from).filter(|v| !v.is_null()) {
                    item.insert(to.into(), v.clone());
                }
            }
            Value::Object(item)
        })
        .collect();
    let mut config = Map::new();
    config.insert("displayType".into(), "line".into());
    config.insert(
        "sourceId".into(),
        series
            .first()
            .and_then(|s| s.get("sourceId"))
            .cloned()
            .unwrap_or_else(|| "".into()),
    );
    config.insert("select".into(), Value::Array(select));
    if let Some(Value::Bool(ratio)) = as_ratio {
        config.insert("asRatio".into(), Value::Bool(ratio));
    }
    Value::Object(config)
}

fn run(
    ctx: &mut Ctx<'_>,
    key: &StackKey,
    op: Op,
    id: Option<&str>,
    query: Option<&str>,
    body: Option<&Value>,
) -> Result<Reply, ApiError> {
    if let StackKey::Managed { service_id } = key
        && !ctx
            .world
            .services
            .iter()
            .any(|s| &s.service.id == service_id)
    {
        return Err(ApiError::not_found(format!(
            "Service {service_id} not found"
        )));
    }
    let now = iso_ms(ctx.now);
    let quirks = ctx.quirks;
    let empty = Value::Null;
    let body = body.unwrap_or(&empty);
    let world = &mut *ctx.world;
    let Some(stack_index) = world.stacks.iter().position(|s| &s.key == key) else {
        return Err(ApiError::not_found(
            "No observability stack for this service",
        ));
    };
    let id = id.unwrap_or("");
    match op {
        Op::ListDashboards => Ok(Reply::Ok(to_value(&world.stacks[stack_index].dashboards)?)),
        Op::GetDashboard => {
            let stack = &world.stacks[stack_index];
            let dashboard = stack
                .dashboards
                .iter()
                .find(|d| d.id == id)
                .ok_or_else(|| ApiError::not_found(format!("Dashboard {id} not found")))?;
            Ok(Reply::Ok(to_value(dashboard)?))
        }
        Op::CreateDashboard => create_dashboard(world, stack_index, body, quirks),
        Op::UpdateDashboard => update_dashboard(world, stack_index, id, body, quirks),
        Op::DeleteDashboard => {
            let stack = &mut world.stacks[stack_index];
            stack.dashboards.retain(|d| d.id != id);
            stack.alerts.retain(|a| a.dashboard.as_deref() != Some(id));
            Ok(Reply::Deleted)
        }
        Op::ListAlerts => list_alerts(&world.stacks[stack_index], key, query),
        Op::GetAlert => {
            let alert = world.stacks[stack_index]
                .alerts
                .iter()
                .find(|a| a.id == id)
                .ok_or_else(|| ApiError::not_found(format!("Alert {id} not found")))?;
            Ok(Reply::Ok(to_value(alert)?))
        }
        Op::CreateAlert => create_alert(world, stack_index, body, quirks, now),
        Op::UpdateAlert => update_alert(world, stack_index, id, body, quirks, now),
        Op::DeleteAlert => {
            world.stacks[stack_index].alerts.retain(|a| a.id != id);
            Ok(Reply::Deleted)
        }
        Op::ListSources => Ok(Reply::Ok(to_value(&world.stacks[stack_index].sources)?)),
        _ => Err(ApiError::new(
            500,
            "INTERNAL_SERVER_ERROR",
            "operation routed to the wrong handler",
        )),
    }
}

/// A name as the server stores it: some servers collapse runs of white space
/// (`collapse-spaces`).
fn stored_name(quirks: &[Quirk], name: String) -> String {
    if quirks.contains(&Quirk::CollapseSpaces) {
        name.split_whitespace().collect::<Vec<_>>().join(" ")
    } else {
        name
    }
}

fn create_dashboard(
    world: &mut World,
    stack_index: usize,
    body: &Value,
    quirks: &[Quirk],
) -> Result<Reply, ApiError> {
    let mut dashboard = dashboard_body(body)?;
    dashboard.name = stored_name(quirks, dashboard.name);
    dashboard.id = world.new_id();
    // Any tile id the client sends is ignored on create.
    for tile in &mut dashboard.tiles {
        tile.id = Some(world.new_id());
    }
    let value = to_value(&dashboard)?;
    world.stacks[stack_index].dashboards.push(dashboard);
    Ok(Reply::Ok(value))
}

/// PUT of a dashboard: tiles keep their ids only where they name this dashboard's tiles, and
/// alerts of tiles that disappeared go with them.
fn update_dashboard(
    world: &mut World,
    stack_index: usize,
    id: &str,
    body: &Value,
    quirks: &[Quirk],
) -> Result<Reply, ApiError> {
    let mut dashboard = dashboard_body(body)?;
    dashboard.name = stored_name(quirks, dashboard.name);
    let Some(position) = world.stacks[stack_index]
        .dashboards
        .iter()
        .position(|d| d.id == id)
    else {
        return Err(ApiError::not_found(format!("Dashboard {id} not found")));
    };
    let old_ids: Vec<String> = world.stacks[stack_index].dashboards[position]
        .tiles
        .iter()
        .filter_map(|t| t.id.clone())
        .collect();
    let mut kept: Vec<String> = Vec::new();
    for tile in &mut dashboard.tiles {
        match tile.id.take() {
            // A tile keeps its id only if it exists on this dashboard (and only once).
            Some(tile_id) if old_ids.contains(&tile_id) && !kept.contains(&tile_id) => {
                kept.push(tile_id.clone());
                tile.id = Some(tile_id);
            }
            _ => tile.id = Some(world.new_id()),
        }
    }
    dashboard.id = id.to_string();
    let stack = &mut world.stacks[stack_index];
    // Alerts of tiles that disappeared are deleted with them.
    stack.alerts.retain(|a| {
        a.dashboard.as_deref() != Some(id)
            || a.tile_id.as_ref().is_some_and(|t| kept.contains(t))
            || a.source.as_deref() == Some("search")
    });
    let value = to_value(&dashboard)?;
    stack.dashboards[position] = dashboard;
    Ok(Reply::Ok(value))
}

/// The alerts: the observability API pages them, the managed stack lists them all.
fn list_alerts(stack: &Stack, key: &StackKey, query: Option<&str>) -> Result<Reply, ApiError> {
    let alerts = &stack.alerts;
    match key {
        StackKey::Observability => {
            let (limit, offset) = paging(query)?;
            let page: Vec<&Alert> = alerts.iter().skip(offset).take(limit).collect();
            Ok(Reply::Ok(to_value(&page)?))
        }
        StackKey::Managed { .. } => Ok(Reply::Ok(to_value(alerts)?)),
    }
}

fn create_alert(
    world: &mut World,
    stack_index: usize,
    body: &Value,
    quirks: &[Quirk],
    now: String,
) -> Result<Reply, ApiError> {
    let mut alert = alert_body(body, &world.stacks[stack_index])?;
    alert.name = stored_name(quirks, alert.name);
    alert.id = world.new_id();
    alert.created_at = Some(now.clone());
    alert.updated_at = Some(now);
    let value = to_value(&alert)?;
    world.stacks[stack_index].alerts.push(alert);
    Ok(Reply::Ok(value))
}

fn update_alert(
    world: &mut World,
    stack_index: usize,
    id: &str,
    body: &Value,
    quirks: &[Quirk],
    now: String,
) -> Result<Reply, ApiError> {
    let mut alert = alert_body(body, &world.stacks[stack_index])?;
    alert.name = stored_name(quirks, alert.name);
    let stack = &mut world.stacks[stack_index];
    let Some(existing) = stack.alerts.iter_mut().find(|a| a.id == id) else {
        return Err(ApiError::not_found(format!("Alert {id} not found")));
    };
    // PUT replaces the whole object: omitted optional members become empty.
    alert.id = existing.id.clone();
    alert.created_at = existing.created_at.clone();
    alert.state = existing.state.clone();
    alert.updated_at = Some(now);
    *existing = alert.clone();
    Ok(Reply::Ok(to_value(&alert)?))
}

/// `limit` (1 to 1000, default 100) and `offset` of the alert list.
fn paging(query: Option<&str>) -> Result<(usize, usize), ApiError> {
    let mut limit = ALERTS_DEFAULT_LIMIT;
    let mut offset = 0;
    for pair in query.unwrap_or("").split('&').filter(|p| !p.is_empty()) {
        let (key, value) = pair.split_once('=').unwrap_or((pair, ""));
        let parsed = value.parse::<usize>().ok();
        match key {
            "limit" => match parsed {
                Some(n) if (1..=ALERTS_MAX_LIMIT).contains(&n) => limit = n,
                _ => {
                    return Err(ApiError::new(
                        400,
                        "BAD_REQUEST",
                        format!("limit: must be an integer from 1 to {ALERTS_MAX_LIMIT}"),
                    ));
                }
            },
            "offset" => {
                offset = parsed.ok_or_else(|| {
                    ApiError::new(400, "BAD_REQUEST", "offset: must be a whole number")
                })?
            }
            _ => {}
        }
    }
    Ok((limit, offset))
}

/// Validates one series object (tiles and chart queries share the shape).
pub(crate) fn series(map: &Map<String, Value>, prefix: &str) -> Check<Series> {
    Ok(Series {
        kind: validate::enumerated(map, "type", prefix, SERIES_TYPES)?,
        data_source: validate::enumerated(map, "dataSource", prefix, DATA_SOURCES)?,
        source_id: validate::string(map, "sourceId", prefix, 256)?,
        agg_fn: validate::enumerated(map, "aggFn", prefix, AGG_FNS)?,
        field: validate::string(map, "field", prefix, 1024)?,
        where_: validate::string(map, "where", prefix, 16 * 1024)?,
        where_language: validate::enumerated(map, "whereLanguage", prefix, WHERE_LANGUAGES)?,
        // Both documents require `groupBy` on every series; the real servers reject a series
        // without it (`[]` is "no grouping").
        group_by: Some(validate::strings(map, "groupBy", prefix)?.map_or_else(
            || invalid(validate::join(prefix, "groupBy"), "is required"),
            Ok,
        )?),
        metric_name: validate::string(map, "metricName", prefix, 1024)?,
        metric_data_type: validate::enumerated(map, "metricDataType", prefix, METRIC_DATA_TYPES)?,
    })
}

fn whole(map: &Map<String, Value>, key: &str, prefix: &str, min: f64) -> Check<i64> {
    match validate::number(map, key, prefix)? {
        Some(v) if v.fract() == 0.0 && v >= min => Ok(v as i64),
        Some(v) => invalid(
            validate::join(prefix, key),
            format!("must be an integer of at least {min}, got {v}"),
        ),
        None => invalid(validate::join(prefix, key), "is required"),
    }
}

fn tile(value: &Value, prefix: &str) -> Check<Tile> {
    let map = validate::object(value, prefix)?;
    let x = validate::ranged(map, &TILE_X, prefix)?;
    let w = validate::ranged(map, &TILE_W, prefix)?;
    let (Some(x), Some(w)) = (x, w) else {
        let missing = if x.is_none() { "x" } else { "w" };
        return invalid(validate::join(prefix, missing), "is required");
    };
    let series_values = validate::array(map, "series", prefix)?
        .cloned()
        .unwrap_or_default();
    let series_prefix = validate::join(prefix, "series");
    let series = series_values
        .iter()
        .enumerate()
        .map(|(i, s)| {
            let path = format!("{series_prefix}[{i}]");
            series(validate::object(s, &path)?, &path)
        })
        .collect::<Check<Vec<Series>>>()?;
    Ok(Tile {
        id: validate::string(map, "id", prefix, 64)?,
        name: validate::required_string(map, "name", prefix, DASHBOARD_NAME_MAX)?,
        x: x as i64,
        y: whole(map, "y", prefix, 0.0)?,
        w: w as i64,
        h: whole(map, "h", prefix, 1.0)?,
        as_ratio: validate::boolean(map, "asRatio", prefix)?,
        series,
        config: map.get("config").filter(|c| !c.is_null()).cloned(),
    })
}

/// Validates a dashboard create or update body (the whole object).
fn dashboard_body(body: &Value) -> Check<Dashboard> {
    let map = validate::object(body, "")?;
    let name = validate::required_string(map, "name", "", DASHBOARD_NAME_MAX)?;
    let tags = validate::strings(map, "tags", "")?.unwrap_or_default();
    if tags.len() > DASHBOARD_MAX_TAGS {
        return invalid(
            "tags",
            format!("must have at most {DASHBOARD_MAX_TAGS} tags"),
        );
    }
    if let Some(i) = tags.iter().position(|t| t.chars().count() > TAG_MAX) {
        return invalid(
            format!("tags[{i}]"),
            format!("must be at most {TAG_MAX} characters long"),
        );
    }
    let tiles = validate::array(map, "tiles", "")?
        .cloned()
        .unwrap_or_default();
    if tiles.len() > DASHBOARD_MAX_TILES {
        return invalid(
            "tiles",
            format!("must have at most {DASHBOARD_MAX_TILES} tiles"),
        );
    }
    let tiles = tiles
        .iter()
        .enumerate()
        .map(|(i, t)| tile(t, &format!("tiles[{i}]")))
        .collect::<Check<Vec<Tile>>>()?;
    Ok(Dashboard {
        id: String::new(),
        name,
        tiles,
        tags,
    })
}

/// Validates an alert create or update body against the stack it goes into.
fn alert_body(body: &Value, stack: &Stack) -> Result<Alert, ApiError> {
    let map = validate::object(body, "")?;
    let name = validate::string(map, "name", "", ALERT_NAME_MAX)?;
    let message = validate::string(map, "message", "", ALERT_MESSAGE_MAX)?;
    let threshold = validate::number(map, "threshold", "")?
        .ok_or_else(|| ApiError::body("threshold", "is required"))?;
    let interval = validate::enumerated(map, "interval", "", ALERT_INTERVALS)?
        .ok_or_else(|| ApiError::body("interval", "is required"))?;
    let threshold_type = validate::enumerated(map, "thresholdType", "", THRESHOLD_TYPES)?
        .ok_or_else(|| ApiError::body("thresholdType", "is required"))?;
    let source = validate::enumerated(map, "source", "", ALERT_SOURCES)?
        .unwrap_or_else(|| "tile".to_string());
    let channel_value = map
        .get("channel")
        .ok_or_else(|| ApiError::body("channel", "is required"))?;
    let channel_map = validate::object(channel_value, "channel")?;
    let channel = Channel {
        kind: validate::enumerated(channel_map, "type", "channel", CHANNEL_TYPES)?
            .ok_or_else(|| ApiError::body("channel.type", "is required"))?,
        webhook_id: validate::string(channel_map, "webhookId", "channel", 64)?,
    };
    let dashboard = validate::string(map, "dashboardId", "", 64)?;
    let tile_id = validate::string(map, "tileId", "", 64)?;
    if source == "tile" {
        let dashboard_id = dashboard
            .as_deref()
            .ok_or_else(|| ApiError::body("dashboardId", "is required for tile alerts"))?;
        let tile_id = tile_id
            .as_deref()
            .ok_or_else(|| ApiError::body("tileId", "is required for tile alerts"))?;
        let found = stack
            .dashboards
            .iter()
            .find(|d| d.id == dashboard_id)
            .ok_or_else(|| {
                ApiError::body("dashboardId", format!("dashboard {dashboard_id} not found"))
            })?;
        if !found.tiles.iter().any(|t| t.id.as_deref() == Some(tile_id)) {
            return Err(ApiError::body(
                "tileId",
                format!("tile {tile_id} not found on dashboard {dashboard_id}"),
            ));
        }
    }
    Ok(Alert {
        id: String::new(),
        name: name.unwrap_or_default(),
        message,
        threshold: Some(threshold),
        interval: Some(interval),
        threshold_type: Some(threshold_type),
        source: Some(source),
        state: Some(quiet_state(&stack.key).into()),
        channel: Some(channel),
        team: Some(TEAM_ID.into()),
        tile_id,
        dashboard,
        created_at: None,
        updated_at: None,
    })
}
