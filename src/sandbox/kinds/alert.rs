//! Alerts of a stack, on a dashboard's tile or a saved search: PUT replaces the whole object;
//! the observability API pages the list.

use serde_json::{Map, Value};

use crate::api::limits::{
    ALERT_INTERVALS, ALERT_MESSAGE_MAX, ALERT_NAME_MAX, ALERT_SOURCES, BOUNDED_THRESHOLD_TYPES,
    CHANNEL_TYPES, THRESHOLD_TYPES, alert_interval_minutes, is_object_id, schedule_start_outside,
    stored_date_time, utc_date_time,
};
use crate::api::wire::{Alert, Channel, NewerAlertFields};
use crate::sandbox::routes::{Api, ApiError, Call, Ctx, Reply, Route, cloud_template};
use crate::sandbox::seed::{TEAM_ID, iso_ms};
use crate::sandbox::store::{Stack, StackKey, quiet_state};
use crate::sandbox::validate;
use jiff::Timestamp;

use super::common::{body_invalid, path_id, stack_index, stack_key, stored_name, to_value};

/// Longest alert `note` (the current document).
const ALERT_NOTE_MAX: usize = 4096;

/// Most `channels` of an alert (the current document).
const ALERT_CHANNELS_MAX: usize = 10;

/// Alert list paging of the observability API: default and largest `limit`.
const ALERTS_DEFAULT_LIMIT: usize = 100;
const ALERTS_MAX_LIMIT: usize = 1000;

/// The routes of alerts, through the managed stack and the observability API.
pub(super) const ROUTES: &[Route] = &[
    Route::new(
        Api::Cloud,
        "GET",
        cloud_template!("/services/{serviceId}/stack/alerts"),
        list,
    )
    .shape(shape),
    Route::new(
        Api::Cloud,
        "POST",
        cloud_template!("/services/{serviceId}/stack/alerts"),
        create,
    )
    .writes()
    .shape(shape),
    Route::new(
        Api::Cloud,
        "GET",
        cloud_template!("/services/{serviceId}/stack/alerts/{alertId}"),
        get,
    )
    .shape(shape),
    Route::new(
        Api::Cloud,
        "PUT",
        cloud_template!("/services/{serviceId}/stack/alerts/{alertId}"),
        update,
    )
    .writes()
    .shape(shape),
    Route::new(
        Api::Cloud,
        "DELETE",
        cloud_template!("/services/{serviceId}/stack/alerts/{alertId}"),
        delete,
    )
    .writes(),
    Route::new(Api::Observability, "GET", "/api/v2/alerts", list).shape(shape),
    Route::new(Api::Observability, "POST", "/api/v2/alerts", create)
        .writes()
        .shape(shape),
    Route::new(Api::Observability, "GET", "/api/v2/alerts/{id}", get).shape(shape),
    Route::new(Api::Observability, "PUT", "/api/v2/alerts/{id}", update)
        .writes()
        .shape(shape),
    Route::new(Api::Observability, "DELETE", "/api/v2/alerts/{id}", delete).writes(),
];

fn get(ctx: &mut Ctx<'_>, call: &Call<'_>) -> Result<Reply, ApiError> {
    let id = path_id(ctx, call)?;
    let stack_index = stack_index(ctx, call)?;
    let alert = ctx.world.stacks[stack_index]
        .alerts
        .iter()
        .find(|a| a.id == id)
        .ok_or_else(|| ApiError::not_found(format!("Alert {id} not found")))?;
    Ok(Reply::Ok(to_value(alert)?))
}

/// DELETE of an alert: the contract's generation answers `{}` for an id it does not have;
/// today's servers (since mid-2026) answer 404, as they do for an alert a dashboard update
/// deleted with its tile.
fn delete(ctx: &mut Ctx<'_>, call: &Call<'_>) -> Result<Reply, ApiError> {
    let id = path_id(ctx, call)?;
    let stack_index = stack_index(ctx, call)?;
    let alerts = &mut ctx.world.stacks[stack_index].alerts;
    let before = alerts.len();
    alerts.retain(|a| a.id != id);
    if alerts.len() == before && ctx.today() {
        // The observability API's own words (`Alert not found`); the managed stack names it.
        let message = match call.api {
            Api::Observability => "Alert not found".to_string(),
            Api::Cloud => format!("Alert {id} not found"),
        };
        return Err(ApiError::not_found(message));
    }
    Ok(Reply::Deleted)
}

/// How a server writes an alert: the managed stack (the cloud document) has `name: null` for an
/// alert without a name; today's servers name its dashboard and team `dashboardId` and `teamId`,
/// write its state in upper case (`OK` where the contract's generation says `inactive`), and
/// the observability API lists its `channels`.
fn shape(object: &mut Map<String, Value>, api: Api, today: bool) {
    if api == Api::Cloud && object.get("name").is_some_and(|n| n == "") {
        object.insert("name".into(), Value::Null);
    }
    if today {
        for (contract, newer_name) in [("dashboard", "dashboardId"), ("team", "teamId")] {
            if let Some(v) = object.remove(contract) {
                object.insert(newer_name.into(), v);
            }
        }
        // Today's observability API answers its channels as a list, the first also as
        // `channel` (the managed stack keeps its one `channel`).
        if api == Api::Observability
            && !object.contains_key("channels")
            && let Some(channel) = object.get("channel").filter(|c| c.is_object())
        {
            let channels = Value::Array(vec![channel.clone()]);
            object.insert("channels".into(), channels);
        }
        if let Some(Value::String(state)) = object.get_mut("state") {
            *state = match state.as_str() {
                "inactive" => "OK".to_string(),
                other => other.to_uppercase(),
            };
        }
    }
}

/// The alerts: the observability API pages them (today's with a `meta` of the paging), the
/// managed stack lists them all.
fn list(ctx: &mut Ctx<'_>, call: &Call<'_>) -> Result<Reply, ApiError> {
    let stack_index = stack_index(ctx, call)?;
    let alerts = &ctx.world.stacks[stack_index].alerts;
    match stack_key(call) {
        StackKey::Observability => {
            let (limit, offset) = paging(call.query)?;
            let page: Vec<&Alert> = alerts.iter().skip(offset).take(limit).collect();
            let page = to_value(&page)?;
            if !ctx.today() {
                return Ok(Reply::Ok(page));
            }
            // Today's servers say how many there are in all beside the page.
            let meta = serde_json::json!({"total": alerts.len(), "limit": limit, "offset": offset});
            Ok(Reply::Paged(page, meta))
        }
        StackKey::Managed { .. } => Ok(Reply::Ok(to_value(alerts)?)),
    }
}

fn create(ctx: &mut Ctx<'_>, call: &Call<'_>) -> Result<Reply, ApiError> {
    let stack_index = stack_index(ctx, call)?;
    let ctx_now = ctx.now;
    let now = iso_ms(ctx_now);
    let today = ctx.today();
    let world = &mut *ctx.world;
    let mut alert = alert_body(call.body, &world.stacks[stack_index], today, ctx_now)?;
    alert.name = stored_name(ctx.quirks, alert.name);
    alert.id = world.new_id();
    alert.created_at = Some(now.clone());
    alert.updated_at = Some(now);
    let value = to_value(&alert)?;
    world.stacks[stack_index].alerts.push(alert);
    Ok(Reply::Ok(value))
}

fn update(ctx: &mut Ctx<'_>, call: &Call<'_>) -> Result<Reply, ApiError> {
    let id = path_id(ctx, call)?;
    let stack_index = stack_index(ctx, call)?;
    let ctx_now = ctx.now;
    let now = iso_ms(ctx_now);
    let today = ctx.today();
    let world = &mut *ctx.world;
    let mut alert = alert_body(call.body, &world.stacks[stack_index], today, ctx_now)?;
    alert.name = stored_name(ctx.quirks, alert.name);
    let stack = &mut world.stacks[stack_index];
    let Some(existing) = stack.alerts.iter_mut().find(|a| a.id == id) else {
        return Err(ApiError::not_found(format!("Alert {id} not found")));
    };
    // PUT replaces the whole object: omitted optional members become empty, except, on today's
    // servers (`makeAlert`), `thresholdMax`, `scheduleOffsetMinutes` and `scheduleStartAt`,
    // which an update leaves out of its write and so keeps (`scheduleStartAt: null` clears the
    // start, and with it an offset the body leaves out).
    if today {
        let omitted = |key: &str| call.body.get(key).is_none();
        let cleared = call.body.get("scheduleStartAt").is_some_and(Value::is_null);
        if omitted("thresholdMax") {
            alert.newer.threshold_max = existing.newer.threshold_max;
        }
        if omitted("scheduleStartAt") {
            alert.newer.schedule_start_at = existing.newer.schedule_start_at.clone();
            if omitted("scheduleOffsetMinutes") {
                alert.newer.schedule_offset_minutes = existing.newer.schedule_offset_minutes;
            }
        } else if cleared && omitted("scheduleOffsetMinutes") {
            alert.newer.schedule_offset_minutes = Some(0);
        }
    }
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

/// Validates an alert create or update body against the stack it goes into; `today` adds the
/// ObjectId checks of today's servers (`Invalid dashboard ID`, `Invalid webhook ID`, made
/// after the body's schema, as their `validateAlertInput` does).
fn alert_body(body: &Value, stack: &Stack, today: bool, now: Timestamp) -> Result<Alert, ApiError> {
    let map = validate::object(body, "")?;
    let name = validate::string(map, "name", "", ALERT_NAME_MAX)?;
    let message = validate::string(map, "message", "", ALERT_MESSAGE_MAX)?;
    let threshold = validate::number(map, "threshold", "")?
        .ok_or_else(|| ApiError::body("threshold", "is required"))?;
    let interval = validate::enumerated(map, "interval", "", ALERT_INTERVALS)?
        .ok_or_else(|| ApiError::body("interval", "is required"))?;
    let threshold_type = match map.get("thresholdType").and_then(Value::as_str) {
        // Today's servers answer an unknown type with zod's enum message.
        Some(other) if today && !THRESHOLD_TYPES.contains(&other) => {
            let expected: Vec<String> = THRESHOLD_TYPES.iter().map(|t| format!("'{t}'")).collect();
            return Err(body_invalid(
                "thresholdType",
                &format!(
                    "Invalid enum value. Expected {}, received '{other}'",
                    expected.join(" | ")
                ),
            ));
        }
        _ => validate::enumerated(map, "thresholdType", "", THRESHOLD_TYPES)?
            .ok_or_else(|| ApiError::body("thresholdType", "is required"))?,
    };
    let source = validate::enumerated(map, "source", "", ALERT_SOURCES)?
        .unwrap_or_else(|| "tile".to_string());
    let channel = match map.get("channel").filter(|c| !c.is_null()) {
        Some(value) => Some(channel(value, "channel", stack)?),
        None => None,
    };
    // `channels` is today's observability API's: the contract's servers and the managed
    // stack strip the unknown member, as their validation does.
    let channels = match map.get("channels").filter(|_| newer_api(stack, today)) {
        Some(value) => Some(channel_list(value, stack)?),
        None => None,
    };
    let (channel, channels) = match (channel, channels) {
        (None, None) => return Err(ApiError::body("channel", "is required")),
        (Some(one), None) if newer_api(stack, today) => (one.clone(), Some(vec![one])),
        (Some(one), None) => (one, None),
        (None, Some(list)) => (list[0].clone(), Some(list)),
        (Some(one), Some(list)) if one == list[0] => (one, Some(list)),
        (Some(_), Some(_)) => {
            return Err(ApiError::body(
                "channels",
                "When both \"channel\" and \"channels\" are provided, \"channel\" must match \
                 the first entry of \"channels\"",
            ));
        }
    };
    let mut newer = newer_fields(map, threshold, &threshold_type, &interval, now)?;
    newer.channels = channels;
    let dashboard = validate::string(map, "dashboardId", "", 64)?;
    let tile_id = validate::string(map, "tileId", "", 64)?;
    if source == "tile" {
        tile_target(stack, dashboard.as_deref(), tile_id.as_deref(), today)?;
    }
    if today
        && channel.kind == "webhook"
        && !channel.webhook_id.as_deref().is_some_and(is_object_id)
    {
        return Err(ApiError::new(400, "BAD_REQUEST", "Invalid webhook ID"));
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
        newer,
    })
}

/// The dashboard and tile a tile alert watches: both given, and the tile on that dashboard of
/// the stack; `today`, the dashboard id an ObjectId.
fn tile_target(
    stack: &Stack,
    dashboard: Option<&str>,
    tile_id: Option<&str>,
    today: bool,
) -> Result<(), ApiError> {
    let dashboard_id =
        dashboard.ok_or_else(|| ApiError::body("dashboardId", "is required for tile alerts"))?;
    if today && !is_object_id(dashboard_id) {
        return Err(ApiError::new(400, "BAD_REQUEST", "Invalid dashboard ID"));
    }
    let tile_id = tile_id.ok_or_else(|| ApiError::body("tileId", "is required for tile alerts"))?;
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
    Ok(())
}

/// Whether the alert goes to today's observability API, the one that takes `channels`.
fn newer_api(stack: &Stack, today: bool) -> bool {
    stack.key == StackKey::Observability && today
}

/// One channel at `at` (`channel`, `channels.1`).
fn channel(value: &Value, at: &str, stack: &Stack) -> Result<Channel, ApiError> {
    let channel_map = validate::object(value, at)?;
    let kind = validate::enumerated(channel_map, "type", at, CHANNEL_TYPES)?
        .ok_or_else(|| ApiError::body(validate::join(at, "type"), "is required"))?;
    let email_recipients = validate::strings(channel_map, "emailRecipients", at)?;
    // Email is the managed stack's alone; the observability API's channel is a webhook.
    if kind == "email" {
        if stack.key == StackKey::Observability {
            return Err(ApiError::body(
                validate::join(at, "type"),
                "must be one of webhook, got `email`",
            ));
        }
        if email_recipients.as_ref().is_none_or(Vec::is_empty) {
            return Err(ApiError::body(
                validate::join(at, "emailRecipients"),
                "is required for email channels",
            ));
        }
    }
    Ok(Channel {
        kind,
        webhook_id: validate::string(channel_map, "webhookId", at, 64)?,
        email_recipients,
    })
}

/// `channels`: 1 to 10 channels, no two alike (the current document).
fn channel_list(value: &Value, stack: &Stack) -> Result<Vec<Channel>, ApiError> {
    let Value::Array(items) = value else {
        return Err(ApiError::body("channels", "must be an array"));
    };
    if items.is_empty() {
        return Err(ApiError::body(
            "channels",
            "At least one notification channel is required",
        ));
    }
    if items.len() > ALERT_CHANNELS_MAX {
        return Err(ApiError::body(
            "channels",
            format!("An alert supports at most {ALERT_CHANNELS_MAX} notification channels"),
        ));
    }
    let mut list: Vec<Channel> = Vec::with_capacity(items.len());
    for (i, item) in items.iter().enumerate() {
        let one = channel(item, &format!("channels.{i}"), stack)?;
        if list.contains(&one) {
            return Err(ApiError::body(
                "channels",
                "Duplicate notification channels are not allowed",
            ));
        }
        list.push(one);
    }
    Ok(list)
}

/// The members today's servers added, checked as the current document says: `thresholdMax`
/// with `between` / `not_between` (required, at least `threshold`), `numConsecutiveWindows`
/// from 1, `scheduleOffsetMinutes` from 0 and less than the interval, `scheduleStartAt` a
/// date-time within the server's window around `now`, `note` of 1 to 4096 characters.
fn newer_fields(
    map: &Map<String, Value>,
    threshold: f64,
    threshold_type: &str,
    interval: &str,
    now: Timestamp,
) -> Result<NewerAlertFields, ApiError> {
    let threshold_max = validate::number(map, "thresholdMax", "")?;
    if BOUNDED_THRESHOLD_TYPES.contains(&threshold_type) {
        let max = threshold_max.ok_or_else(|| {
            body_invalid(
                "thresholdMax",
                "thresholdMax is required for between/not_between threshold types",
            )
        })?;
        if max < threshold {
            return Err(body_invalid(
                "thresholdMax",
                "thresholdMax must be greater than or equal to threshold",
            ));
        }
    }
    let num_consecutive_windows = integer(map, "numConsecutiveWindows", 1)?;
    let schedule_offset_minutes = integer(map, "scheduleOffsetMinutes", 0)?;
    if let (Some(offset), Some(minutes)) =
        (schedule_offset_minutes, alert_interval_minutes(interval))
        && offset >= minutes
    {
        return Err(ApiError::body(
            "scheduleOffsetMinutes",
            "must be less than the interval",
        ));
    }
    let schedule_start_at = validate::string(map, "scheduleStartAt", "", 64)?;
    if let Some(start) = &schedule_start_at
        && !utc_date_time(start)
    {
        return Err(body_invalid("scheduleStartAt", "Invalid datetime"));
    }
    if let Some(refusal) = schedule_start_at
        .as_deref()
        .and_then(|start| schedule_start_outside(start, now))
    {
        return Err(body_invalid("scheduleStartAt", refusal));
    }
    if schedule_start_at.is_some() && schedule_offset_minutes.is_some_and(|m| m > 0) {
        return Err(body_invalid(
            "scheduleOffsetMinutes",
            "scheduleOffsetMinutes must be 0 when scheduleStartAt is provided",
        ));
    }
    let note = validate::string(map, "note", "", ALERT_NOTE_MAX)?;
    if note.as_deref() == Some("") {
        return Err(ApiError::body("note", "must not be empty"));
    }
    // Stored as a date and answered in JavaScript's form (milliseconds, `Z`); a start beside
    // it sets the offset to 0 (`makeAlert`).
    let schedule_start_at = schedule_start_at.map(|s| stored_date_time(&s).unwrap_or(s));
    let schedule_offset_minutes = match &schedule_start_at {
        Some(_) => Some(0),
        None => schedule_offset_minutes,
    };
    Ok(NewerAlertFields {
        channels: None,
        threshold_max,
        num_consecutive_windows,
        schedule_offset_minutes,
        schedule_start_at,
        note,
    })
}

/// An optional whole number of at least `min`.
fn integer(map: &Map<String, Value>, key: &str, min: i64) -> Result<Option<i64>, ApiError> {
    let Some(value) = map.get(key).filter(|v| !v.is_null()) else {
        return Ok(None);
    };
    match value.as_i64() {
        Some(n) if n >= min => Ok(Some(n)),
        _ => Err(ApiError::body(
            key,
            format!("must be an integer of at least {min}"),
        )),
    }
}
