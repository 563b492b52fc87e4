//! `POST .../pipes`: a pipe created from a checked body, starting in provisioning.

use serde_json::{Value, json};

use crate::api::limits::{PIPE_CONCURRENCY, PIPE_CPU_MILLICORES, PIPE_MEMORY_GB, PIPE_REPLICAS};
use crate::api::wire::{Pipe, PipeScaling};
use crate::sandbox::kinds::common::{require_running, service_index, to_value};
use crate::sandbox::model::Quirk;
use crate::sandbox::routes::{ApiError, Call, Ctx, Reply};
use crate::sandbox::seed::{iso, uuid_from};
use crate::sandbox::store::PipeRecord;
use crate::sandbox::validate;

use super::check::{checked_settings, cover_columns, pipe_member, post_destination, post_source};
use super::stored::{COMPLETED, FAILED, PROVISIONING, RUNNING, advance, answer_in};

/// `POST .../pipes`: the whole pipe, checked as the server does; it starts provisioning.
pub(super) fn create(ctx: &mut Ctx<'_>, call: &Call<'_>) -> Result<Reply, ApiError> {
    let index = service_index(ctx, call)?;
    let map = validate::object(call.body, "")?;
    let name = validate::required_string(map, "name", "", 255)?;
    let (kind, source) = post_source(map)?;
    crate::sandbox::kinds::reverse_endpoint::check_named(
        ctx,
        call.service,
        &json!({kind.as_str(): &source}),
    )?;
    let destination = post_destination(map, kind)?;
    if !kind.is_database() {
        let mappings = validate::array(map, "fieldMappings", "")?;
        cover_columns(&destination, mappings)?;
    }
    let settings = checked_settings(map.get("settings"), kind, "settings")?;
    let scaling = match map.get("scaling") {
        None | Some(Value::Null) => None,
        Some(value) => {
            let scaling = validate::object(value, "scaling")?;
            Some(PipeScaling {
                replicas: pipe_member(scaling, &PIPE_REPLICAS, Some(kind))?.map(|v| v as i64),
                concurrency: pipe_member(scaling, &PIPE_CONCURRENCY, Some(kind))?.map(|v| v as i64),
                replica_cpu_millicores: pipe_member(scaling, &PIPE_CPU_MILLICORES, Some(kind))?
                    .map(|v| v as i64),
                replica_memory_gb: pipe_member(scaling, &PIPE_MEMORY_GB, Some(kind))?,
            })
        }
    };
    require_running(ctx.world, index)?;
    let counter = ctx.world.new_id();
    let id = uuid_from(&format!("{}/pipe/{counter}", call.service));
    let now = iso(ctx.now);
    let mut stored = json!({
        "id": id,
        "serviceId": call.service,
        "name": name,
        "source": {kind.as_str(): source},
        "destination": destination,
        "createdAt": now,
        "updatedAt": now,
    });
    for (member, value) in [
        ("fieldMappings", map.get("fieldMappings").cloned()),
        ("settings", settings.map(Value::Object)),
        ("scaling", scaling.map(|s| to_value(&s)).transpose()?),
    ] {
        if let (Some(value), Some(object)) = (value, stored.as_object_mut())
            && !value.is_null()
        {
            object.insert(member.into(), value);
        }
    }
    let pipe: Pipe = serde_json::from_value(stored)
        .map_err(|error| ApiError::body("source", error.to_string()))?;
    let one_shot = pipe
        .source
        .as_ref()
        .and_then(|s| s.object_storage.as_ref())
        .is_some_and(|o| o.is_continuous != Some(true));
    let fails = ctx.quirks.contains(&Quirk::PipesFail);
    let then: &[&str] = match (fails, one_shot) {
        (true, _) => &[FAILED],
        (false, true) => &[RUNNING, COMPLETED],
        (false, false) => &[RUNNING],
    };
    let mut record = PipeRecord {
        pipe,
        ..PipeRecord::default()
    };
    advance(&mut record, (ctx.wall_ms, ctx.delay_ms), PROVISIONING, then);
    let answer = answer_in(&record, PROVISIONING, ctx.quirks)?;
    ctx.world.pipes.push(record);
    Ok(Reply::Ok(answer))
}
