//! Data sources of a stack: listed through the managed stack and the observability API;
//! created, read, replaced and deleted on the observability API (some servers have no sources
//! routes, `no-sources`). The rules are hdx-server's (`SourceSchemaNoId`,
//! `validateConnectionId`, `updateSource`): members required by kind, `null` refused, members
//! the kind does not know dropped, the connection an existing one of the team, the server's
//! defaults stored ([`source_as_stored`]).

use serde_json::{Map, Value};

use crate::api::limits::is_object_id;
use crate::api::wire::{Source, source_as_stored};
use crate::sandbox::model::Quirk;
use crate::sandbox::routes::{Api, ApiError, Call, Ctx, Reply, Route, cloud_template};

use super::common::{path_id, stack_index, to_value};

/// The routes of sources, through the managed stack (list only) and the observability API.
pub(super) const ROUTES: &[Route] = &[
    Route::new(
        Api::Cloud,
        "GET",
        cloud_template!("/services/{serviceId}/stack/sources"),
        list,
    ),
    Route::new(Api::Observability, "GET", "/api/v2/sources", list).absent_with(Quirk::NoSources),
    Route::new(Api::Observability, "POST", "/api/v2/sources", create)
        .writes()
        .absent_with(Quirk::NoSources),
    Route::new(Api::Observability, "GET", "/api/v2/sources/{id}", get)
        .absent_with(Quirk::NoSources),
    Route::new(Api::Observability, "PUT", "/api/v2/sources/{id}", update)
        .writes()
        .absent_with(Quirk::NoSources),
    Route::new(Api::Observability, "DELETE", "/api/v2/sources/{id}", delete)
        .writes()
        .absent_with(Quirk::NoSources),
    Route::new(
        Api::Observability,
        "GET",
        "/api/v2/connections",
        connections,
    ),
];

/// The members every kind takes, and the ones it requires (`connection`, `from`; `name` and
/// `kind` are checked first).
const COMMON: [&str; 7] = [
    "name",
    "section",
    "disabled",
    "kind",
    "connection",
    "from",
    "querySettings",
];

/// Each kind's own members (the document's `LogSource`, ...) and the ones it requires beside
/// [`COMMON`]'s (the document's, and a session source's `timestampValueExpression`, which
/// hdx-server requires; a trace source's `durationPrecision` defaults to 3).
#[rustfmt::skip]
const KINDS: [(&str, &[&str], &[&str]); 5] = [
    ("log", &["defaultTableSelectExpression", "timestampValueExpression", "serviceNameExpression", "serviceVersionExpression", "severityTextExpression", "bodyExpression", "eventAttributesExpression", "resourceAttributesExpression", "displayedTimestampValueExpression", "metricSourceId", "traceSourceId", "traceIdExpression", "spanIdExpression", "implicitColumnExpression", "knownColumnsListExpression", "useTextIndexForImplicitColumn", "highlightedTraceAttributeExpressions", "highlightedRowAttributeExpressions", "materializedViews", "metadataMaterializedViews"],
        &["defaultTableSelectExpression", "timestampValueExpression"]),
    ("trace", &["defaultTableSelectExpression", "timestampValueExpression", "durationExpression", "durationPrecision", "traceIdExpression", "spanIdExpression", "parentSpanIdExpression", "spanNameExpression", "spanKindExpression", "logSourceId", "sessionSourceId", "metricSourceId", "statusCodeExpression", "statusMessageExpression", "serviceNameExpression", "serviceVersionExpression", "resourceAttributesExpression", "eventAttributesExpression", "spanEventsValueExpression", "implicitColumnExpression", "knownColumnsListExpression", "useTextIndexForImplicitColumn", "highlightedTraceAttributeExpressions", "highlightedRowAttributeExpressions", "materializedViews", "metadataMaterializedViews"],
        &["defaultTableSelectExpression", "timestampValueExpression", "durationExpression", "traceIdExpression", "spanIdExpression", "parentSpanIdExpression", "spanNameExpression", "spanKindExpression"]),
    ("metric", &["metricTables", "timestampValueExpression", "resourceAttributesExpression", "logSourceId"],
        &["metricTables", "timestampValueExpression", "resourceAttributesExpression"]),
    ("session", &["timestampValueExpression", "traceSourceId"],
        &["traceSourceId", "timestampValueExpression"]),
    ("promql", &["timestampValueExpression"],
        &["timestampValueExpression"]),
];

fn list(ctx: &mut Ctx<'_>, call: &Call<'_>) -> Result<Reply, ApiError> {
    let stack_index = stack_index(ctx, call)?;
    Ok(Reply::Ok(to_value(&ctx.world.stacks[stack_index].sources)?))
}

fn connections(ctx: &mut Ctx<'_>, call: &Call<'_>) -> Result<Reply, ApiError> {
    let stack = stack_index(ctx, call)?;
    Ok(Reply::Ok(to_value(&ctx.world.stacks[stack].connections)?))
}

fn not_found() -> ApiError {
    ApiError::new(404, "NOT_FOUND", "Source not found")
}

fn get(ctx: &mut Ctx<'_>, call: &Call<'_>) -> Result<Reply, ApiError> {
    let id = path_id(ctx, call)?;
    let stack = stack_index(ctx, call)?;
    let found = ctx.world.stacks[stack].sources.iter().find(|s| s.id == id);
    Ok(Reply::Ok(to_value(found.ok_or_else(not_found)?)?))
}

fn create(ctx: &mut Ctx<'_>, call: &Call<'_>) -> Result<Reply, ApiError> {
    let stack = stack_index(ctx, call)?;
    let members = checked(ctx, stack, call.body)?;
    let id = ctx.world.new_id();
    let source = as_stored(id, members)?;
    let value = to_value(&source)?;
    ctx.world.stacks[stack].sources.push(source);
    Ok(Reply::Ok(value))
}

fn update(ctx: &mut Ctx<'_>, call: &Call<'_>) -> Result<Reply, ApiError> {
    let id = path_id(ctx, call)?.to_string();
    let stack = stack_index(ctx, call)?;
    let members = checked(ctx, stack, call.body)?;
    let sources = &mut ctx.world.stacks[stack].sources;
    let at = sources
        .iter()
        .position(|s| s.id == id)
        .ok_or_else(not_found)?;
    // A replace: nothing of the old source is kept but its id.
    sources[at] = as_stored(id, members)?;
    Ok(Reply::Ok(to_value(&sources[at])?))
}

fn delete(ctx: &mut Ctx<'_>, call: &Call<'_>) -> Result<Reply, ApiError> {
    let id = path_id(ctx, call)?;
    let stack = stack_index(ctx, call)?;
    let sources = &mut ctx.world.stacks[stack].sources;
    let before = sources.len();
    sources.retain(|s| s.id != id);
    if sources.len() == before {
        return Err(not_found());
    }
    Ok(Reply::Ok(Value::Object(Map::new())))
}

fn as_stored(id: String, members: Map<String, Value>) -> Result<Source, ApiError> {
    let mut value = source_as_stored(&members);
    if let Value::Object(map) = &mut value {
        map.insert("id".into(), Value::String(id));
    }
    serde_json::from_value(value)
        .map_err(|e| ApiError::new(500, "INTERNAL_SERVER_ERROR", e.to_string()))
}

/// The members a create or update keeps, once the body passes the server's rules: those its
/// kind knows (any other dropped, as the schema strips them).
fn checked(ctx: &Ctx<'_>, stack: usize, body: &Value) -> Result<Map<String, Value>, ApiError> {
    let Value::Object(map) = body else {
        return Err(invalid(vec![
            "Expected object, received ".to_string() + kind_of(body),
        ]));
    };
    let kind = map.get("kind").and_then(Value::as_str).unwrap_or_default();
    let Some((_, members, required)) = KINDS.iter().find(|(k, _, _)| *k == kind) else {
        return Err(invalid(vec![
            "kind: Invalid discriminator value. Expected 'log' | 'trace' | 'session' | 'metric' | 'promql'"
                .to_string(),
        ]));
    };
    let mut problems = Vec::new();
    if map
        .get("name")
        .and_then(Value::as_str)
        .is_none_or(str::is_empty)
    {
        problems.push("name: Name is required".to_string());
    }
    for member in ["connection", "from"].iter().chain(required.iter()) {
        if !map.contains_key(*member) {
            problems.push(format!("{member}: Required"));
        }
    }
    let known = |k: &str| COMMON.contains(&k) || members.contains(&k);
    for (member, value) in map.iter().filter(|(k, _)| known(k)) {
        if value.is_null() {
            problems.push(format!("{member}: Expected string, received null"));
        }
    }
    if let Some(from) = map.get("from").and_then(Value::as_object) {
        for part in ["databaseName", "tableName"] {
            if !from.contains_key(part) {
                problems.push(format!("from.{part}: Required"));
            }
        }
    }
    if !problems.is_empty() {
        return Err(invalid(problems));
    }
    let connection = map
        .get("connection")
        .and_then(Value::as_str)
        .unwrap_or_default();
    if !is_object_id(connection) {
        return Err(ApiError::new(
            400,
            "BAD_REQUEST",
            "connection must be a valid connection id",
        ));
    }
    if !ctx.world.stacks[stack]
        .connections
        .iter()
        .any(|c| c.id == connection)
    {
        return Err(ApiError::new(
            400,
            "BAD_REQUEST",
            "connection must be an existing connection id",
        ));
    }
    Ok(map
        .iter()
        .filter(|(k, _)| known(k))
        .map(|(k, v)| (k.clone(), v.clone()))
        .collect())
}

fn invalid(problems: Vec<String>) -> ApiError {
    ApiError::new(
        400,
        "BAD_REQUEST",
        format!("Body validation failed: {}", problems.join("; ")),
    )
}

fn kind_of(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Array(_) => "array",
        Value::String(_) => "string",
        _ => "other",
    }
}
