//! ClickPipes: read, deleted, and their scaling patched.

use serde_json::{Value, json};

use crate::api::limits::{
    PIPE_CONCURRENCY, PIPE_CPU_MILLICORES, PIPE_MEMORY_GB, PIPE_REPLICAS, Range,
};
use crate::api::wire::{Pipe, PipeScaling, SourceKind};
use crate::sandbox::model::Quirk;
use crate::sandbox::routes::{Api, ApiError, Call, Ctx, Reply, Route, cloud_template};
use crate::sandbox::seed::iso;
use crate::sandbox::store::{PipeRecord, World, apply_pipe_scaling};
use crate::sandbox::validate::{self, Check, invalid};

use super::common::{require_running, service_index, to_value};

/// The routes of pipes.
pub(super) const ROUTES: &[Route] = &[
    Route::new(
        Api::Cloud,
        "GET",
        cloud_template!("/services/{serviceId}/pipes"),
        list,
    ),
    Route::new(
        Api::Cloud,
        "GET",
        cloud_template!("/services/{serviceId}/pipes/{pipeId}"),
        get,
    )
    .uuid_id("pipeId"),
    Route::new(
        Api::Cloud,
        "DELETE",
        cloud_template!("/services/{serviceId}/pipes/{pipeId}"),
        delete,
    )
    .writes()
    .uuid_id("pipeId"),
    Route::new(
        Api::Cloud,
        "PATCH",
        cloud_template!("/services/{serviceId}/pipes/{pipeId}/scaling"),
        patch_scaling,
    )
    .writes()
    .uuid_id("pipeId"),
];

fn list(ctx: &mut Ctx<'_>, call: &Call<'_>) -> Result<Reply, ApiError> {
    service_index(ctx, call)?;
    let pipes: Vec<Value> = ctx
        .world
        .pipes
        .iter()
        .filter(|p| p.pipe.service_id == call.service)
        .map(|p| render_pipe_record(p, ctx.quirks))
        .collect::<Result<_, _>>()?;
    Ok(Reply::Ok(Value::Array(pipes)))
}

fn get(ctx: &mut Ctx<'_>, call: &Call<'_>) -> Result<Reply, ApiError> {
    service_index(ctx, call)?;
    let pipe = find_pipe(ctx.world, call.service, call.id)?;
    Ok(Reply::Ok(render_pipe_record(
        &ctx.world.pipes[pipe],
        ctx.quirks,
    )?))
}

fn delete(ctx: &mut Ctx<'_>, call: &Call<'_>) -> Result<Reply, ApiError> {
    let index = service_index(ctx, call)?;
    let pipe = find_pipe(ctx.world, call.service, call.id)?;
    require_running(ctx.world, index)?;
    // The real API answers before teardown ends; the next GET is a 404 either way.
    ctx.world.pipes.remove(pipe);
    Ok(Reply::Deleted)
}

fn find_pipe(world: &World, service_id: &str, id: Option<&str>) -> Result<usize, ApiError> {
    world
        .pipes
        .iter()
        .position(|p| p.pipe.service_id == service_id && Some(p.pipe.id.as_str()) == id)
        .ok_or_else(|| ApiError::not_found(format!("ClickPipe {} not found", id.unwrap_or(""))))
}

/// A stored pipe as reads show it: with the scaling-gaps quirk, the members of a change still
/// in flight read back as null, as real servers briefly do.
fn render_pipe_record(record: &PipeRecord, quirks: &[Quirk]) -> Result<Value, ApiError> {
    let mut value = render_pipe(&record.pipe, quirks)?;
    if quirks.contains(&Quirk::ScalingGaps)
        && let Some((_, pending)) = &record.pending_scaling
        && let Some(scaling) = value.get_mut("scaling").and_then(Value::as_object_mut)
    {
        let changed = [
            ("replicas", pending.replicas.is_some()),
            ("concurrency", pending.concurrency.is_some()),
            (
                "replicaCpuMillicores",
                pending.replica_cpu_millicores.is_some(),
            ),
            ("replicaMemoryGb", pending.replica_memory_gb.is_some()),
        ];
        for (member, in_flight) in changed {
            if in_flight {
                scaling.insert(member.into(), Value::Null);
            }
        }
    }
    Ok(value)
}

/// A pipe as JSON, with CPU and memory as quantity strings when that quirk is on.
fn render_pipe(pipe: &Pipe, quirks: &[Quirk]) -> Result<Value, ApiError> {
    let mut value = to_value(pipe)?;
    if quirks.contains(&Quirk::QuantityStrings)
        && let Some(scaling) = value.get_mut("scaling").and_then(Value::as_object_mut)
    {
        if let Some(cpu) = scaling.get("replicaCpuMillicores").and_then(Value::as_f64) {
            scaling.insert("replicaCpuMillicores".into(), json!(format!("{cpu}m")));
        }
        if let Some(mem) = scaling.get("replicaMemoryGb").and_then(Value::as_f64) {
            scaling.insert("replicaMemoryGb".into(), json!(format!("{mem}Gi")));
        }
    }
    Ok(value)
}

fn pipe_member(
    map: &serde_json::Map<String, Value>,
    range: &Range,
    kind: Option<SourceKind>,
) -> Check<Option<f64>> {
    let value = validate::ranged(map, range, "")?;
    if value.is_some()
        && let Some(kind) = kind
        && !kind.scales(range.field)
    {
        return invalid(
            range.field,
            format!("does not apply to {} pipes", kind.as_str()),
        );
    }
    Ok(value)
}

/// PATCH of a pipe's scaling: only the members its source kind scales, while the service
/// runs; visible after the scaling delay.
fn patch_scaling(ctx: &mut Ctx<'_>, call: &Call<'_>) -> Result<Reply, ApiError> {
    let index = service_index(ctx, call)?;
    let pipe_index = find_pipe(ctx.world, call.service, call.id)?;
    let map = validate::object(call.body, "")?;
    let kind = ctx.world.pipes[pipe_index]
        .pipe
        .source
        .as_ref()
        .and_then(|s| s.kind());
    let patch = PipeScaling {
        replicas: pipe_member(map, &PIPE_REPLICAS, kind)?.map(|v| v as i64),
        concurrency: pipe_member(map, &PIPE_CONCURRENCY, kind)?.map(|v| v as i64),
        replica_cpu_millicores: pipe_member(map, &PIPE_CPU_MILLICORES, kind)?.map(|v| v as i64),
        replica_memory_gb: pipe_member(map, &PIPE_MEMORY_GB, kind)?,
    };
    require_running(ctx.world, index)?;
    let record = &mut ctx.world.pipes[pipe_index];
    let mut answer = record.pipe.clone();
    if let Some((_, pending)) = &record.pending_scaling {
        apply_pipe_scaling(&mut answer, pending);
    }
    apply_pipe_scaling(&mut answer, &patch);
    answer.updated_at = Some(iso(ctx.now));
    record.pipe.updated_at = Some(iso(ctx.now));
    if ctx.delay_ms <= 0 {
        apply_pipe_scaling(&mut record.pipe, &patch);
    } else {
        let mut merged = record
            .pending_scaling
            .take()
            .map(|(_, p)| p)
            .unwrap_or_default();
        apply_patch_to_patch(&mut merged, &patch);
        record.pending_scaling = Some((ctx.wall_ms.saturating_add(ctx.delay_ms), merged));
    }
    Ok(Reply::Ok(render_pipe(&answer, ctx.quirks)?))
}

fn apply_patch_to_patch(into: &mut PipeScaling, patch: &PipeScaling) {
    into.replicas = patch.replicas.or(into.replicas);
    into.concurrency = patch.concurrency.or(into.concurrency);
    into.replica_cpu_millicores = patch.replica_cpu_millicores.or(into.replica_cpu_millicores);
    into.replica_memory_gb = patch.replica_memory_gb.or(into.replica_memory_gb);
}
