//! What the kinds' handlers share: finding the service or the stack a request names, the
//! states a write waits for, and JSON encoding.

use serde_json::Value;

use crate::api::limits::is_object_id;
use crate::sandbox::model::Quirk;
use crate::sandbox::routes::{Api, ApiError, Call, Ctx};
use crate::sandbox::store::{StackKey, World};

/// A value as JSON; a failure is the server's own (500).
pub(crate) fn to_value<T: serde::Serialize>(value: &T) -> Result<Value, ApiError> {
    serde_json::to_value(value)
        .map_err(|e| ApiError::new(500, "INTERNAL_SERVER_ERROR", e.to_string()))
}

/// The index of the service the path names; 404 when it does not exist.
pub(crate) fn service_index(ctx: &Ctx<'_>, call: &Call<'_>) -> Result<usize, ApiError> {
    ctx.world
        .services
        .iter()
        .position(|r| r.service.id == call.service)
        .ok_or_else(|| ApiError::not_found(format!("Service {} not found", call.service)))
}

/// The stack a request reaches: a service's managed stack through the cloud API, the standalone
/// one through the observability API.
pub(crate) fn stack_key(call: &Call<'_>) -> StackKey {
    match call.api {
        Api::Cloud => StackKey::Managed {
            service_id: call.service.to_string(),
        },
        Api::Observability => StackKey::Observability,
    }
}

/// The index of the stack a request reaches; 404 when its service or the stack does not exist.
pub(crate) fn stack_index(ctx: &Ctx<'_>, call: &Call<'_>) -> Result<usize, ApiError> {
    let key = stack_key(call);
    if let StackKey::Managed { service_id } = &key
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
    ctx.world
        .stacks
        .iter()
        .position(|s| s.key == key)
        .ok_or_else(|| ApiError::not_found("No observability stack for this service"))
}

/// 409 while the service is changing state (a state command is still in progress).
pub(crate) fn require_settled(world: &World, index: usize) -> Result<(), ApiError> {
    let record = &world.services[index];
    if record.pending_state.is_some() {
        return Err(ApiError::new(
            409,
            "CONFLICT",
            format!(
                "Service is changing state. Current state: {}",
                record.service.state.as_deref().unwrap_or("unknown")
            ),
        ));
    }
    Ok(())
}

/// 424 for pipe writes unless the service is running.
pub(crate) fn require_running(world: &World, index: usize) -> Result<(), ApiError> {
    let state = world.services[index]
        .service
        .state
        .as_deref()
        .unwrap_or("unknown");
    if state != "running" {
        return Err(ApiError::new(
            424,
            "FAILED_DEPENDENCY",
            format!("Service must be running to change its ClickPipes. Current state: {state}"),
        ));
    }
    Ok(())
}

/// A name as the server stores it: some servers collapse runs of white space
/// (`collapse-spaces`).
pub(crate) fn stored_name(quirks: &[Quirk], name: String) -> String {
    if quirks.contains(&Quirk::CollapseSpaces) {
        name.split_whitespace().collect::<Vec<_>>().join(" ")
    } else {
        name
    }
}

/// The id the path names. Today's observability API checks it is an ObjectId before anything
/// else and answers 400 with its parameter-validation message otherwise.
pub(crate) fn path_id<'a>(ctx: &Ctx<'_>, call: &Call<'a>) -> Result<&'a str, ApiError> {
    let id = call.id.unwrap_or("");
    if ctx.today() && call.api == Api::Observability && !is_object_id(id) {
        return Err(ApiError::new(
            400,
            "BAD_REQUEST",
            "Params validation failed: id: Invalid ObjectId",
        ));
    }
    Ok(id)
}

/// A 400 of today's servers' body validation: `Body validation failed: <path>: <message>`.
pub(crate) fn body_invalid(path: &str, message: &str) -> ApiError {
    ApiError::new(
        400,
        "BAD_REQUEST",
        format!("Body validation failed: {path}: {message}"),
    )
}

/// Today's servers refuse `null` where their schema has an optional member (zod's `optional`
/// takes an absent member, not `null`).
pub(crate) fn refuse_null(
    ctx: &Ctx<'_>,
    map: &serde_json::Map<String, Value>,
    key: &str,
    expected: &str,
) -> Result<(), ApiError> {
    if ctx.today() && map.get(key).is_some_and(Value::is_null) {
        return Err(body_invalid(
            key,
            &format!("Expected {expected}, received null"),
        ));
    }
    Ok(())
}
