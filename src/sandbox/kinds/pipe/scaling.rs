//! A pipe's scaling, patched while the service runs, and the shared compute of a service's
//! database pipes.

use crate::api::limits::{
    CDC_CPU_MILLICORES, CDC_CPU_STEP_MILLICORES, CDC_DEFAULT_CPU_MILLICORES, CDC_DEFAULT_MEMORY_GB,
    CDC_MEMORY_GB, CDC_MEMORY_PER_CORE_GB, PIPE_CONCURRENCY, PIPE_CPU_MILLICORES, PIPE_MEMORY_GB,
    PIPE_REPLICAS,
};
use crate::api::wire::PipeScaling;
use crate::sandbox::kinds::common::{require_running, service_index, to_value};
use crate::sandbox::routes::{ApiError, Call, Ctx, Reply};
use crate::sandbox::seed::iso;
use crate::sandbox::store::apply_pipe_scaling;
use crate::sandbox::validate;

use super::check::pipe_member;
use super::stored::{find_pipe, render_pipe};

/// PATCH of a pipe's scaling: only the members its source kind scales, while the service
/// runs; visible after the scaling delay.
pub(super) fn patch_scaling(ctx: &mut Ctx<'_>, call: &Call<'_>) -> Result<Reply, ApiError> {
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

/// Database pipes' shared compute when a service has never set it.
const DEFAULT_CDC_SCALING: PipeScaling = PipeScaling {
    replicas: None,
    concurrency: None,
    replica_cpu_millicores: Some(CDC_DEFAULT_CPU_MILLICORES),
    replica_memory_gb: Some(CDC_DEFAULT_MEMORY_GB),
};

/// The document: "This endpoint becomes available once at least one database ClickPipe was
/// provisioned", and it answers 200, 400 or 500: a service with no database pipe gets a 400.
fn require_database_pipe(ctx: &Ctx<'_>, service: &str) -> Result<(), ApiError> {
    let database = |record: &crate::sandbox::store::PipeRecord| {
        record.pipe.service_id == service
            && record
                .pipe
                .source
                .as_ref()
                .and_then(|s| s.kind())
                .is_some_and(crate::api::wire::SourceKind::is_database)
    };
    if ctx.world.pipes.iter().any(database) {
        return Ok(());
    }
    Err(ApiError::new(
        400,
        "BAD_REQUEST",
        "CDC ClickPipes scaling is available once at least one database ClickPipe \
         (PostgreSQL, MySQL, MongoDB, BigQuery) was provisioned on the service",
    ))
}

pub(super) fn get_cdc_scaling(ctx: &mut Ctx<'_>, call: &Call<'_>) -> Result<Reply, ApiError> {
    service_index(ctx, call)?;
    require_database_pipe(ctx, call.service)?;
    let scaling = ctx
        .world
        .cdc_scaling
        .get(call.service)
        .unwrap_or(&DEFAULT_CDC_SCALING);
    Ok(Reply::Ok(to_value(scaling)?))
}

/// `PATCH .../pipesCdcScaling`: CPU and memory of the service's database pipes, memory 4 GB
/// for each CPU core.
pub(super) fn patch_cdc_scaling(ctx: &mut Ctx<'_>, call: &Call<'_>) -> Result<Reply, ApiError> {
    let index = service_index(ctx, call)?;
    require_database_pipe(ctx, call.service)?;
    let map = validate::object(call.body, "")?;
    let cpu = validate::ranged(map, &CDC_CPU_MILLICORES, "")?;
    if cpu.is_some_and(|cpu| cpu % CDC_CPU_STEP_MILLICORES != 0.0) {
        return validate::invalid(
            CDC_CPU_MILLICORES.field,
            format!("must be a multiple of {CDC_CPU_STEP_MILLICORES}"),
        )
        .map_err(ApiError::from);
    }
    let memory = validate::ranged(map, &CDC_MEMORY_GB, "")?;
    let current = ctx
        .world
        .cdc_scaling
        .get(call.service)
        .unwrap_or(&DEFAULT_CDC_SCALING);
    let next = PipeScaling {
        replica_cpu_millicores: cpu.map(|v| v as i64).or(current.replica_cpu_millicores),
        replica_memory_gb: memory.or(current.replica_memory_gb),
        ..PipeScaling::default()
    };
    let cores = next.replica_cpu_millicores.unwrap_or(0) as f64 / 1000.0;
    let gb = next.replica_memory_gb.unwrap_or(0.0);
    if (gb - cores * CDC_MEMORY_PER_CORE_GB).abs() > f64::EPSILON {
        return validate::invalid(
            "replicaMemoryGb",
            format!(
                "must be {} GB for each CPU core: {} for {cores} cores, got {gb}",
                CDC_MEMORY_PER_CORE_GB,
                cores * CDC_MEMORY_PER_CORE_GB
            ),
        )
        .map_err(ApiError::from);
    }
    require_running(ctx.world, index)?;
    let answer = to_value(&next)?;
    ctx.world.cdc_scaling.insert(call.service.to_string(), next);
    Ok(Reply::Ok(answer))
}
