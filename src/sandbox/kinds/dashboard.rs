//! Dashboards of a stack, the same through the managed stack (cloud API) and the observability
//! API: server-assigned tile ids, PUT replaces the whole object, and the alerts of a deleted
//! dashboard or a removed tile go with it.

use serde_json::{Map, Value};

use crate::api::limits::{
    DASHBOARD_MAX_TAGS, DASHBOARD_MAX_TILES, DASHBOARD_NAME_MAX, TAG_MAX, TILE_W, TILE_X,
    is_object_id,
};
use crate::api::wire::{CompactJson, Container, ContainerTab, Dashboard, Series, Tile};
use crate::sandbox::routes::{Api, ApiError, Call, Ctx, Reply, Route, cloud_template};
use crate::sandbox::series::series;
use crate::sandbox::validate::{self, Check, invalid};

use super::common::{body_invalid, path_id, stack_index, stored_name, to_value};

/// Most containers a dashboard has (the servers' `DASHBOARD_MAX_CONTAINERS`).
const DASHBOARD_MAX_CONTAINERS: usize = 50;
/// Most tabs a container has.
const CONTAINER_MAX_TABS: usize = 20;
/// Longest container or tab id and title.
const CONTAINER_ID_MAX: usize = 256;

/// The routes of dashboards, through the managed stack and the observability API.
pub(super) const ROUTES: &[Route] = &[
    Route::new(
        Api::Cloud,
        "GET",
        cloud_template!("/services/{serviceId}/stack/dashboards"),
        list,
    )
    .shape(shape),
    Route::new(
        Api::Cloud,
        "POST",
        cloud_template!("/services/{serviceId}/stack/dashboards"),
        create,
    )
    .writes()
    .shape(shape),
    Route::new(
        Api::Cloud,
        "GET",
        cloud_template!("/services/{serviceId}/stack/dashboards/{dashboardId}"),
        get,
    )
    .shape(shape),
    Route::new(
        Api::Cloud,
        "PUT",
        cloud_template!("/services/{serviceId}/stack/dashboards/{dashboardId}"),
        update,
    )
    .writes()
    .shape(shape),
    Route::new(
        Api::Cloud,
        "DELETE",
        cloud_template!("/services/{serviceId}/stack/dashboards/{dashboardId}"),
        delete,
    )
    .writes(),
    Route::new(Api::Observability, "GET", "/api/v2/dashboards", list).shape(shape),
    Route::new(Api::Observability, "POST", "/api/v2/dashboards", create)
        .writes()
        .shape(shape),
    Route::new(Api::Observability, "GET", "/api/v2/dashboards/{id}", get).shape(shape),
    Route::new(Api::Observability, "PUT", "/api/v2/dashboards/{id}", update)
        .writes()
        .shape(shape),
    Route::new(
        Api::Observability,
        "DELETE",
        "/api/v2/dashboards/{id}",
        delete,
    )
    .writes(),
    Route::new(
        Api::Cloud,
        "POST",
        cloud_template!("/services/{serviceId}/stack/dashboards/validate"),
        validate_only,
    )
    .current_only(),
    Route::new(
        Api::Observability,
        "POST",
        "/api/v2/dashboards/validate",
        validate_only,
    )
    .current_only(),
];

fn list(ctx: &mut Ctx<'_>, call: &Call<'_>) -> Result<Reply, ApiError> {
    let stack_index = stack_index(ctx, call)?;
    Ok(Reply::Ok(to_value(
        &ctx.world.stacks[stack_index].dashboards,
    )?))
}

fn get(ctx: &mut Ctx<'_>, call: &Call<'_>) -> Result<Reply, ApiError> {
    let id = path_id(ctx, call)?;
    let stack_index = stack_index(ctx, call)?;
    match ctx.world.stacks[stack_index]
        .dashboards
        .iter()
        .find(|d| d.id == id)
    {
        Some(dashboard) => Ok(Reply::Ok(to_value(dashboard)?)),
        None => missing(ctx, call, id),
    }
}

/// The answer for a dashboard that does not exist: today's observability API sends Express's
/// plain-text `Not Found` (its handler calls `sendStatus(404)`); the others a JSON error.
fn missing(ctx: &Ctx<'_>, call: &Call<'_>, id: &str) -> Result<Reply, ApiError> {
    if ctx.today() && call.api == Api::Observability {
        return Ok(Reply::Text(404, "Not Found"));
    }
    Err(ApiError::not_found(format!("Dashboard {id} not found")))
}

fn delete(ctx: &mut Ctx<'_>, call: &Call<'_>) -> Result<Reply, ApiError> {
    let id = path_id(ctx, call)?;
    let stack_index = stack_index(ctx, call)?;
    let stack = &mut ctx.world.stacks[stack_index];
    stack.dashboards.retain(|d| d.id != id);
    stack.alerts.retain(|a| a.dashboard.as_deref() != Some(id));
    Ok(Reply::Deleted)
}

fn create(ctx: &mut Ctx<'_>, call: &Call<'_>) -> Result<Reply, ApiError> {
    let stack_index = stack_index(ctx, call)?;
    let mut dashboard = dashboard_body(call.body, ctx.today())?;
    if ctx.today() {
        containers(call.body, &mut dashboard, &[])?;
    }
    dashboard.name = stored_name(ctx.quirks, dashboard.name);
    name_free(ctx, call, stack_index, &dashboard.name, None)?;
    let world = &mut *ctx.world;
    dashboard.id = world.new_id();
    // Any tile id the client sends is ignored on create.
    for tile in &mut dashboard.tiles {
        tile.id = Some(world.new_id());
    }
    let value = to_value(&dashboard)?;
    world.stacks[stack_index].dashboards.push(dashboard);
    Ok(Reply::Ok(value))
}

/// Today's observability API stores a team's dashboards under a unique index of their name
/// (exact, case and spaces as sent): a create, or an update to a name another dashboard of the
/// team (not `except`) has, is refused by the database, and the server's error handler answers
/// 500 `Something went wrong :(` (measured on hdx-server, `E11000 Duplicate Key Error`).
fn name_free(
    ctx: &Ctx<'_>,
    call: &Call<'_>,
    stack_index: usize,
    name: &str,
    except: Option<&str>,
) -> Result<(), ApiError> {
    if !(ctx.today() && call.api == Api::Observability) {
        return Ok(());
    }
    let taken = ctx.world.stacks[stack_index]
        .dashboards
        .iter()
        .any(|d| d.name == name && Some(d.id.as_str()) != except);
    if taken {
        return Err(ApiError::new(500, "INTERNAL", "Something went wrong :("));
    }
    Ok(())
}

/// `POST .../dashboards/validate`: the checks of a create, nothing stored. The answer is 200
/// for a valid and an invalid body alike: `{valid, errors: [{path, message}], normalized}`, the
/// path dot-separated as the server's schema library joins it (`tiles.0.config`), `normalized`
/// the body when valid and `null` otherwise.
fn validate_only(ctx: &mut Ctx<'_>, call: &Call<'_>) -> Result<Reply, ApiError> {
    stack_index(ctx, call)?;
    let answer = match dashboard_body(call.body, ctx.today()) {
        Ok(_) => serde_json::json!({"valid": true, "errors": [], "normalized": call.body}),
        Err(error) => {
            let (path, message) = error_place(&error);
            serde_json::json!({
                "valid": false,
                "errors": [{"path": path, "message": message}],
                "normalized": null,
            })
        }
    };
    Ok(Reply::Bare(answer))
}

/// Where a refused dashboard body is wrong and why, as the validation answer names them: the
/// member's path dot-separated (`tiles[0].x` is `tiles.0.x`), empty for the body itself.
fn error_place(error: &ApiError) -> (String, String) {
    let (path, message) = match &error.field {
        Some(field) => (
            field
                .strip_prefix("request body")
                .map(|p| p.trim_start_matches('.'))
                .unwrap_or(field)
                .to_string(),
            error.message.clone(),
        ),
        // Today's checks phrase their refusal as the server does: `Body validation failed:
        // <path>: <message>`.
        None => match error
            .message
            .strip_prefix("Body validation failed: ")
            .and_then(|rest| rest.split_once(": "))
        {
            Some((path, message)) => (path.to_string(), message.to_string()),
            None => (String::new(), error.message.clone()),
        },
    };
    (path.replace('[', ".").replace(']', ""), message)
}

/// PUT of a dashboard: tiles keep their ids only where they name this dashboard's tiles, and
/// alerts of tiles that disappeared go with them.
fn update(ctx: &mut Ctx<'_>, call: &Call<'_>) -> Result<Reply, ApiError> {
    let id = path_id(ctx, call)?;
    let stack_index = stack_index(ctx, call)?;
    let mut dashboard = dashboard_body(call.body, ctx.today())?;
    dashboard.name = stored_name(ctx.quirks, dashboard.name);
    let Some(position) = ctx.world.stacks[stack_index]
        .dashboards
        .iter()
        .position(|d| d.id == id)
    else {
        return missing(ctx, call, id);
    };
    name_free(ctx, call, stack_index, &dashboard.name, Some(id))?;
    if ctx.today() {
        let kept = &ctx.world.stacks[stack_index].dashboards[position].containers;
        containers(call.body, &mut dashboard, kept)?;
    }
    let world = &mut *ctx.world;
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

/// How a server writes a dashboard: today's servers (both APIs) answer every tile with `config`,
/// never `series`, and leave PromQL tiles out of every answer (their external API has no
/// shape for them). The sandbox stores as PromQL a tile whose `config` says
/// `configType: promql`, standing in for one made in the UI.
fn shape(object: &mut Map<String, Value>, api: Api, today: bool) {
    if !today {
        return;
    }
    let observability = matches!(api, Api::Observability);
    if observability {
        // The external API answers a dashboard's filters and saved filter values, empty here.
        for key in ["filters", "savedFilterValues"] {
            object
                .entry(key)
                .or_insert_with(|| Value::Array(Vec::new()));
        }
    }
    if let Some(Value::Array(tiles)) = object.get_mut("tiles") {
        tiles.retain(|t| t["config"]["configType"] != "promql");
    }
    let tiles = object.get_mut("tiles").and_then(Value::as_array_mut);
    for tile in tiles.into_iter().flatten().filter_map(Value::as_object_mut) {
        let as_ratio = tile.remove("asRatio");
        if let Some(Value::Array(series)) = tile.remove("series") {
            tile.insert("config".into(), newer_config(&series, as_ratio));
        } else if observability && let Some(config) = tile.get_mut("config") {
            read_back_defaults(config);
        }
    }
}

/// A `config` tile as the external API reads it back (`convertTileToExternalChart`): line and
/// stacked-bar tiles with `asRatio` and `fillNulls` (default `true`), table tiles with
/// `asRatio`; every builder select item with `where` (`""`), `whereLanguage` (`lucene`) and
/// `valueExpression` (`""`, left out of a count that had one); search and event-pattern tiles
/// with `where` and `whereLanguage`. Raw-SQL and heatmap tiles are answered as written.
fn read_back_defaults(config: &mut Value) {
    let Some(map) = config.as_object_mut() else {
        return;
    };
    if map.contains_key("configType") {
        return;
    }
    let display = map
        .get("displayType")
        .and_then(Value::as_str)
        .unwrap_or_default()
        .to_string();
    let mut default = |key: &str, value: Value| {
        map.entry(key).or_insert(value);
    };
    match display.as_str() {
        "line" | "stacked_bar" => {
            default("asRatio", Value::Bool(false));
            default("fillNulls", Value::Bool(true));
        }
        "table" => default("asRatio", Value::Bool(false)),
        "search" | "event_patterns" => {
            default("where", Value::from(""));
            default("whereLanguage", Value::from("lucene"));
        }
        _ => {}
    }
    if display == "heatmap" {
        return;
    }
    let items = map.get_mut("select").and_then(Value::as_array_mut);
    for item in items.into_iter().flatten().filter_map(Value::as_object_mut) {
        item.entry("where").or_insert_with(|| Value::from(""));
        item.entry("whereLanguage")
            .or_insert_with(|| Value::from("lucene"));
        let count = item.get("aggFn").and_then(Value::as_str) == Some("count");
        if count && item.get("valueExpression").is_some_and(|v| v != "") {
            item.remove("valueExpression");
        }
        item.entry("valueExpression")
            .or_insert_with(|| Value::from(""));
    }
}

/// A tile's `series` as a server of the newer generation reads it back (its external API's
/// translation to the stored chart and back): the first series' `type` picks the display type,
/// `field` becomes `valueExpression` (left out of a `count`), `metricDataType` `metricType`,
/// the `groupBy` list one comma-joined string; a number tile keeps its first series.
fn newer_config(series: &[Value], as_ratio: Option<Value>) -> Value {
    let first = series.first().cloned().unwrap_or(Value::Null);
    let text = text_of;
    let kind = text(&first, "type").unwrap_or_else(|| "time".into());
    let mut config = Map::new();
    let display = match kind.as_str() {
        "time" if text(&first, "displayType").as_deref() == Some("stacked_bar") => "stacked_bar",
        "time" => "line",
        "table" => "table",
        "number" => "number",
        "search" => "search",
        _ => "markdown",
    };
    config.insert("displayType".into(), display.into());
    if display == "markdown" {
        let content = text(&first, "content").unwrap_or_default();
        config.insert("markdown".into(), content.into());
        return Value::Object(config);
    }
    config.insert(
        "sourceId".into(),
        text(&first, "sourceId").unwrap_or_default().into(),
    );
    match display {
        "number" => {
            config.insert("select".into(), Value::Array(vec![select_item(&first)]));
        }
        "search" => {
            let fields: Vec<String> = first
                .get("fields")
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
                .filter_map(|f| f.as_str().map(str::to_string))
                .collect();
            config.insert("select".into(), fields.join(", ").into());
            config.insert(
                "where".into(),
                text(&first, "where").unwrap_or_default().into(),
            );
            config.insert(
                "whereLanguage".into(),
                text(&first, "whereLanguage")
                    .unwrap_or_else(|| "lucene".into())
                    .into(),
            );
        }
        _ => {
            let ratio = as_ratio.and_then(|r| r.as_bool()).unwrap_or(false) && series.len() == 2;
            config.insert("asRatio".into(), Value::Bool(ratio));
            if display != "table" {
                config.insert("fillNulls".into(), Value::Bool(true));
            }
            let group_by: Vec<&str> = first
                .get("groupBy")
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
                .filter_map(Value::as_str)
                .collect();
            if !group_by.is_empty() {
                config.insert("groupBy".into(), group_by.join(",").into());
            }
            config.insert(
                "select".into(),
                Value::Array(series.iter().map(select_item).collect()),
            );
        }
    }
    Value::Object(config)
}

/// One series as an item of a newer server's `select`: `field` as `valueExpression` (left
/// out of a `count`), `metricDataType` as `metricType`, a level on a quantile only.
fn select_item(s: &Value) -> Value {
    let mut item = Map::new();
    let agg = text_of(s, "aggFn").unwrap_or_else(|| "count".into());
    let quantile = agg == "quantile";
    let field = text_of(s, "field").unwrap_or_default();
    if agg != "count" || field.is_empty() {
        item.insert("valueExpression".into(), field.into());
    }
    item.insert("aggFn".into(), agg.into());
    item.insert(
        "where".into(),
        text_of(s, "where").unwrap_or_default().into(),
    );
    item.insert(
        "whereLanguage".into(),
        text_of(s, "whereLanguage")
            .unwrap_or_else(|| "lucene".into())
            .into(),
    );
    for (from, to) in [
        ("metricName", "metricName"),
        ("metricDataType", "metricType"),
    ] {
        if let Some(v) = text_of(s, from).filter(|v| !v.is_empty()) {
            item.insert(to.into(), v.into());
        }
    }
    // The server keeps a level on a quantile only (it is inert on any other aggregation).
    if let Some(level) = s.get("level").filter(|_| quantile) {
        item.insert("level".into(), level.clone());
    }
    Value::Object(item)
}

/// Member `key` of `s` when it is a string.
fn text_of(s: &Value, key: &str) -> Option<String> {
    s.get(key).and_then(Value::as_str).map(str::to_string)
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

/// What today's servers check of a tile beyond the contract: it has `series` or `config`, and
/// the source it names is an ObjectId.
fn today_tile(map: &Map<String, Value>, prefix: &str) -> Result<(), ApiError> {
    let config = map.get("config").filter(|c| !c.is_null());
    let series = map.get("series").filter(|s| !s.is_null());
    if config.is_none() && series.is_none() {
        return Err(body_invalid(
            prefix,
            "Tile must have either series or config",
        ));
    }
    if let Some(config) = config {
        select_items(config, &format!("{prefix}.config"))?;
    }
    let mut sources: Vec<(String, &Value)> = Vec::new();
    if let Some(source) = config.and_then(|c| c.get("sourceId")) {
        sources.push((format!("{prefix}.config.sourceId"), source));
    }
    for (i, s) in series
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .enumerate()
    {
        if let Some(source) = s.get("sourceId") {
            sources.push((format!("{prefix}.series.{i}.sourceId"), source));
        }
    }
    match sources
        .into_iter()
        .find(|(_, source)| source.as_str().is_some_and(|s| !is_object_id(s)))
    {
        Some((path, _)) => Err(body_invalid(&path, "Invalid ObjectId")),
        None => Ok(()),
    }
}

/// The select-item rule of today's servers (`externalDashboardSelectItemSchema`): a `level`
/// only on `quantile`, no `valueExpression` on `count`, one on every other aggregation. Heatmap
/// items have a schema of their own; search and event-pattern tiles select a string.
fn select_items(config: &Value, prefix: &str) -> Result<(), ApiError> {
    if config.get("displayType").and_then(Value::as_str) == Some("heatmap")
        || config.get("configType").is_some()
    {
        return Ok(());
    }
    let items = config.get("select").and_then(Value::as_array);
    for (i, item) in items.into_iter().flatten().enumerate() {
        let Some(agg) = item.get("aggFn").and_then(Value::as_str) else {
            continue;
        };
        let present = |key: &str| {
            item.get(key)
                .is_some_and(|v| !v.is_null() && v.as_str() != Some("") && v != &Value::Bool(false))
        };
        let message = if present("level") && agg != "quantile" {
            Some("Level can only be used with quantile aggregation function")
        } else if present("valueExpression") && agg == "count" {
            Some("Value expression cannot be used with count aggregation function")
        } else if !present("valueExpression") && agg != "count" {
            Some("Value expression is required for non-count aggregation functions")
        } else {
            None
        };
        if let Some(message) = message {
            return Err(body_invalid(&format!("{prefix}.select.{i}"), message));
        }
    }
    Ok(())
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
        config: map
            .get("config")
            .filter(|c| !c.is_null())
            .map(CompactJson::new),
        // Kept by today's servers only ([`containers`]); the contract's schema strips them.
        container_id: None,
        tab_id: None,
    })
}

/// Today's servers' grouping containers of a create or update body: `containers` (a PUT
/// without them keeps `kept`, the dashboard's own) and each tile's `containerId` and `tabId`,
/// checked as their body schema and tile-reference check do: ids unique, every reference one
/// the containers define.
fn containers(body: &Value, dashboard: &mut Dashboard, kept: &[Container]) -> Result<(), ApiError> {
    let map = validate::object(body, "")?;
    let list = match map.get("containers") {
        None => kept.to_vec(),
        Some(value) => container_list(value)?,
    };
    unique_ids(&list)?;
    let tiles = map.get("tiles").and_then(Value::as_array);
    for (i, (value, tile)) in tiles
        .into_iter()
        .flatten()
        .zip(dashboard.tiles.iter_mut())
        .enumerate()
    {
        let prefix = format!("tiles[{i}]");
        let container_id = validate::string(
            validate::object(value, &prefix)?,
            "containerId",
            &prefix,
            CONTAINER_ID_MAX,
        )?;
        let tab_id = validate::string(
            validate::object(value, &prefix)?,
            "tabId",
            &prefix,
            CONTAINER_ID_MAX,
        )?;
        let container = match &container_id {
            Some(id) => match list.iter().find(|c| &c.id == id) {
                Some(container) => Some(container),
                None => {
                    return Err(ApiError::new(
                        400,
                        "BAD_REQUEST",
                        format!(
                            "tiles.{i}.containerId: Tile references unknown containerId \"{id}\""
                        ),
                    ));
                }
            },
            None => None,
        };
        if let Some(tab) = &tab_id {
            let Some(container) = container else {
                return Err(ApiError::new(
                    400,
                    "BAD_REQUEST",
                    format!("tiles.{i}.tabId: tabId requires containerId to be set"),
                ));
            };
            if !container.tabs.iter().flatten().any(|t| &t.id == tab) {
                return Err(ApiError::new(
                    400,
                    "BAD_REQUEST",
                    format!(
                        "tiles.{i}.tabId: Tile references unknown tabId \"{tab}\" in container \"{}\"",
                        container.id
                    ),
                ));
            }
        }
        tile.container_id = container_id;
        tile.tab_id = tab_id;
    }
    dashboard.containers = list;
    Ok(())
}

/// Container ids unique in the dashboard, tab ids in their container.
fn unique_ids(list: &[Container]) -> Result<(), ApiError> {
    let mut seen: Vec<&str> = Vec::new();
    for (i, container) in list.iter().enumerate() {
        if seen.contains(&container.id.as_str()) {
            return Err(body_invalid(
                &format!("containers.{i}.id"),
                &format!("Container IDs must be unique: \"{}\"", container.id),
            ));
        }
        seen.push(&container.id);
        let mut tabs: Vec<&str> = Vec::new();
        for (j, tab) in container.tabs.iter().flatten().enumerate() {
            if tabs.contains(&tab.id.as_str()) {
                return Err(body_invalid(
                    &format!("containers.{i}.tabs.{j}.id"),
                    &format!(
                        "Duplicate tab id \"{}\" in container \"{}\"",
                        tab.id, container.id
                    ),
                ));
            }
            tabs.push(&tab.id);
        }
    }
    Ok(())
}

/// A body's `containers`, each as the servers' schema takes it.
fn container_list(value: &Value) -> Check<Vec<Container>> {
    let Some(items) = value.as_array() else {
        return invalid("containers", "Expected array");
    };
    if items.len() > DASHBOARD_MAX_CONTAINERS {
        return invalid(
            "containers",
            format!("must have at most {DASHBOARD_MAX_CONTAINERS} containers"),
        );
    }
    items
        .iter()
        .enumerate()
        .map(|(i, item)| {
            let prefix = format!("containers[{i}]");
            let map = validate::object(item, &prefix)?;
            let Some(collapsed) = validate::boolean(map, "collapsed", &prefix)? else {
                return invalid(validate::join(&prefix, "collapsed"), "is required");
            };
            let tabs = match validate::array(map, "tabs", &prefix)? {
                None => None,
                Some(tabs) if tabs.len() > CONTAINER_MAX_TABS => {
                    return invalid(
                        validate::join(&prefix, "tabs"),
                        format!("must have at most {CONTAINER_MAX_TABS} tabs"),
                    );
                }
                Some(tabs) => Some(
                    tabs.iter()
                        .enumerate()
                        .map(|(j, tab)| {
                            let at = format!("{prefix}.tabs[{j}]");
                            let tab = validate::object(tab, &at)?;
                            Ok(ContainerTab {
                                id: validate::required_string(tab, "id", &at, CONTAINER_ID_MAX)?,
                                title: validate::required_string(
                                    tab,
                                    "title",
                                    &at,
                                    CONTAINER_ID_MAX,
                                )?,
                            })
                        })
                        .collect::<Check<Vec<ContainerTab>>>()?,
                ),
            };
            Ok(Container {
                id: validate::required_string(map, "id", &prefix, CONTAINER_ID_MAX)?,
                title: validate::required_string(map, "title", &prefix, CONTAINER_ID_MAX)?,
                collapsed,
                collapsible: validate::boolean(map, "collapsible", &prefix)?,
                bordered: validate::boolean(map, "bordered", &prefix)?,
                tabs,
            })
        })
        .collect()
}

/// Validates a dashboard create or update body (the whole object); `today` adds what today's
/// servers refuse: `tags: null`, a body without `tiles`, a tile with neither `series` nor
/// `config`, a source id that is not an ObjectId.
fn dashboard_body(body: &Value, today: bool) -> Result<Dashboard, ApiError> {
    let map = validate::object(body, "")?;
    if today {
        if map.get("tags").is_some_and(Value::is_null) {
            return Err(body_invalid("tags", "Expected array, received null"));
        }
        if map.get("tiles").is_none_or(Value::is_null) {
            return Err(body_invalid("tiles", "Required"));
        }
        let tiles = map.get("tiles").and_then(Value::as_array);
        for (i, tile) in tiles.into_iter().flatten().enumerate() {
            if let Some(tile) = tile.as_object() {
                today_tile(tile, &format!("tiles.{i}"))?;
            }
        }
    }
    Ok(contract_body(map)?)
}

/// Validates a dashboard body as the contract describes it.
fn contract_body(map: &Map<String, Value>) -> Check<Dashboard> {
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
        containers: Vec::new(),
    })
}
