//! Handlers of the cloud management API's own resources: services, scaling, state, private
//! endpoints, backups and pipes.

use jiff::Timestamp;
use serde_json::{Value, json};

use crate::api::limits::{
    PIPE_CONCURRENCY, PIPE_CPU_MILLICORES, PIPE_MEMORY_GB, PIPE_REPLICAS, Range,
    SERVICE_IDLE_TIMEOUT_MIN, SERVICE_MEMORY_MAX_GB, SERVICE_MEMORY_MAX_UNPAID_GB,
    SERVICE_MEMORY_MIN_GB, SERVICE_MEMORY_STEP_GB, SERVICE_REPLICAS,
    SERVICE_REPLICAS_MIN_FIRST_IN_WAREHOUSE,
};
use crate::api::wire::{
    Pipe, PipeScaling, PrivateEndpoint, Service, ServiceScalingPatch, SourceKind,
};

use super::model::Quirk;
use super::routes::{ApiError, Op, Reply};
use super::seed::iso;
use super::store::{PipeRecord, World, apply_pipe_scaling, apply_service_scaling};
use super::validate::{self, Check, invalid};

/// What a handler works with.
pub(crate) struct Ctx<'a> {
    pub world: &'a mut World,
    /// Real wall-clock epoch ms: when pending changes become visible.
    pub wall_ms: i64,
    /// The sandbox's "now" for timestamps it writes.
    pub now: Timestamp,
    /// Scaling delay in ms.
    pub delay_ms: i64,
    pub quirks: &'a [Quirk],
}

/// Runs one cloud operation on a service's resources.
pub(crate) fn handle(
    ctx: &mut Ctx<'_>,
    op: Op,
    service_id: &str,
    id: Option<&str>,
    body: Option<&Value>,
) -> Reply {
    match run(ctx, op, service_id, id, body) {
        Ok(reply) => reply,
        Err(error) => Reply::Err(error),
    }
}

fn to_value<T: serde::Serialize>(value: &T) -> Result<Value, ApiError> {
    serde_json::to_value(value)
        .map_err(|e| ApiError::new(500, "INTERNAL_SERVER_ERROR", e.to_string()))
}

fn run(
    ctx: &mut Ctx<'_>,
    op: Op,
    service_id: &str,
    id: Option<&str>,
    body: Option<&Value>,
) -> Result<Reply, ApiError> {
    if op == Op::ListServices {
        let services: Vec<Value> = ctx
            .world
            .services
            .iter()
            .map(|r| render_service(&r.service))
            .collect::<Result<_, _>>()?;
        return Ok(Reply::Ok(Value::Array(services)));
    }
    let Some(index) = ctx
        .world
        .services
        .iter()
        .position(|r| r.service.id == service_id)
    else {
        return Err(ApiError::not_found(format!(
            "Service {service_id} not found"
        )));
    };
    let empty = Value::Null;
    let body = body.unwrap_or(&empty);
    match op {
        Op::GetService => Ok(Reply::Ok(render_service(
            &ctx.world.services[index].service,
        )?)),
        Op::PatchService => patch_service(ctx, index, body),
        Op::PatchServiceScaling => patch_scaling(ctx, index, body),
        Op::PatchServiceState => patch_state(ctx, index, body),
        Op::CreatePrivateEndpoint => create_private_endpoint(ctx, index, body),
        Op::ListBackups => {
            let mut backups: Vec<_> = ctx
                .world
                .backups
                .iter()
                .filter(|b| b.service_id == service_id)
                .collect();
            // Newest first, as the real API lists them.
            backups.sort_by(|a, b| b.started_at.cmp(&a.started_at));
            Ok(Reply::Ok(to_value(&backups)?))
        }
        Op::GetBackup => {
            let backup = ctx
                .world
                .backups
                .iter()
                .find(|b| b.service_id == service_id && Some(b.id.as_str()) == id)
                .ok_or_else(|| {
                    ApiError::not_found(format!("Backup {} not found", id.unwrap_or("")))
                })?;
            Ok(Reply::Ok(to_value(backup)?))
        }
        Op::ListPipes => {
            let pipes: Vec<Value> = ctx
                .world
                .pipes
                .iter()
                .filter(|p| p.pipe.service_id == service_id)
                .map(|p| render_pipe_record(p, ctx.quirks))
                .collect::<Result<_, _>>()?;
            Ok(Reply::Ok(Value::Array(pipes)))
        }
        Op::GetPipe => {
            let pipe = find_pipe(ctx.world, service_id, id)?;
            Ok(Reply::Ok(render_pipe_record(
                &ctx.world.pipes[pipe],
                ctx.quirks,
            )?))
        }
        Op::DeletePipe => {
            let pipe = find_pipe(ctx.world, service_id, id)?;
            require_running(ctx.world, index)?;
            // The real API answers before teardown ends; the next GET is a 404 either way.
            ctx.world.pipes.remove(pipe);
            Ok(Reply::Deleted)
        }
        Op::PatchPipeScaling => patch_pipe_scaling(ctx, index, service_id, id, body),
        _ => Err(ApiError::new(
            500,
            "INTERNAL_SERVER_ERROR",
            "operation routed to the wrong handler",
        )),
    }
}

fn find_pipe(world: &World, service_id: &str, id: Option<&str>) -> Result<usize, ApiError> {
    world
        .pipes
        .iter()
        .position(|p| p.pipe.service_id == service_id && Some(p.pipe.id.as_str()) == id)
        .ok_or_else(|| ApiError::not_found(format!("ClickPipe {} not found", id.unwrap_or(""))))
}

/// A service as JSON, with the `currentScaling` block the real API adds: the values in effect,
/// which mirror the baseline fields here.
fn render_service(service: &Service) -> Result<Value, ApiError> {
    let mut service = service.clone();
    service.autoscaling_mode = Some("vertical".into());
    let replicas = service.num_replicas.map(|r| r as i64);
    service.current_scaling = Some(json!({
        "effectiveAutoscalingMode": "vertical",
        "effectiveMinReplicaMemoryGb": service.min_replica_memory_gb,
        "effectiveMaxReplicaMemoryGb": service.max_replica_memory_gb,
        "effectiveMinReplicas": replicas,
        "effectiveMaxReplicas": replicas,
        "effectiveIdleScaling": service.idle_scaling,
        "effectiveIdleTimeoutMinutes": service.idle_timeout_minutes.map(|m| m as i64),
    }));
    to_value(&service)
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
pub(crate) fn render_pipe(pipe: &Pipe, quirks: &[Quirk]) -> Result<Value, ApiError> {
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

/// 409 while the service is changing state (a state command is still in progress).
fn require_settled(world: &World, index: usize) -> Result<(), ApiError> {
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
fn require_running(world: &World, index: usize) -> Result<(), ApiError> {
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

fn patch_service(ctx: &mut Ctx<'_>, index: usize, body: &Value) -> Result<Reply, ApiError> {
    let map = validate::object(body, "")?;
    require_settled(ctx.world, index)?;
    let mut remove = Vec::new();
    let mut add = Vec::new();
    if let Some(ids) = map.get("privateEndpointIds").filter(|v| !v.is_null()) {
        let ids = validate::object(ids, "privateEndpointIds")?;
        remove = validate::strings(ids, "remove", "privateEndpointIds")?.unwrap_or_default();
        add = validate::strings(ids, "add", "privateEndpointIds")?.unwrap_or_default();
    }
    for (i, endpoint) in add.iter().enumerate() {
        if !ctx
            .world
            .private_endpoints
            .iter()
            .any(|e| &e.id == endpoint)
        {
            return Err(ApiError::body(
                format!("privateEndpointIds.add[{i}]"),
                format!(
                    "private endpoint {endpoint} is not registered in the organization; register it with POST .../privateEndpoint"
                ),
            ));
        }
    }
    let service = &mut ctx.world.services[index].service;
    // Remove runs before add, as the real API documents.
    service
        .private_endpoint_ids
        .retain(|id| !remove.contains(id));
    for endpoint in add {
        if !service.private_endpoint_ids.contains(&endpoint) {
            service.private_endpoint_ids.push(endpoint);
        }
    }
    let attached = service.private_endpoint_ids.clone();
    service
        .available_private_endpoint_ids
        .retain(|id| !attached.contains(id));
    Ok(Reply::Ok(render_service(
        &ctx.world.services[index].service,
    )?))
}

fn memory(map: &serde_json::Map<String, Value>, key: &str, max: f64) -> Check<Option<f64>> {
    let Some(value) = validate::number(map, key, "")? else {
        return Ok(None);
    };
    if value < SERVICE_MEMORY_MIN_GB || value > max {
        return invalid(
            key,
            format!("must be from {SERVICE_MEMORY_MIN_GB} to {max}, got {value}"),
        );
    }
    if value % SERVICE_MEMORY_STEP_GB != 0.0 {
        return invalid(
            key,
            format!("must be a multiple of {SERVICE_MEMORY_STEP_GB}, got {value}"),
        );
    }
    Ok(Some(value))
}

/// Validates a service scaling body against the contract's limits for this service.
fn scaling_patch(
    map: &serde_json::Map<String, Value>,
    paid: bool,
    first_in_warehouse: bool,
) -> Check<ServiceScalingPatch> {
    let max_memory = if paid {
        SERVICE_MEMORY_MAX_GB
    } else {
        SERVICE_MEMORY_MAX_UNPAID_GB
    };
    let min_total = memory(map, "minTotalMemoryGb", SERVICE_MEMORY_MAX_GB)?;
    let max_total = memory(map, "maxTotalMemoryGb", max_memory)?;
    if let (Some(min), Some(max)) = (min_total, max_total)
        && min > max
    {
        return invalid(
            "minTotalMemoryGb",
            format!("must not exceed maxTotalMemoryGb ({max}), got {min}"),
        );
    }
    let replicas = validate::ranged(map, &SERVICE_REPLICAS, "")?;
    if let Some(r) = replicas
        && first_in_warehouse
        && r < SERVICE_REPLICAS_MIN_FIRST_IN_WAREHOUSE
    {
        return invalid(
            "numReplicas",
            format!(
                "must be at least {SERVICE_REPLICAS_MIN_FIRST_IN_WAREHOUSE} for the first service in a warehouse, got {r}"
            ),
        );
    }
    let idle_scaling = validate::boolean(map, "idleScaling", "")?;
    let idle_timeout = validate::number(map, "idleTimeoutMinutes", "")?;
    if let Some(t) = idle_timeout
        && (t < SERVICE_IDLE_TIMEOUT_MIN || t.fract() != 0.0)
    {
        return invalid(
            "idleTimeoutMinutes",
            format!(
                "must be a whole number of minutes, at least {SERVICE_IDLE_TIMEOUT_MIN}, got {t}"
            ),
        );
    }
    Ok(ServiceScalingPatch {
        min_total_memory_gb: min_total,
        max_total_memory_gb: max_total,
        num_replicas: replicas,
        idle_scaling,
        idle_timeout_minutes: idle_timeout,
    })
}

fn patch_scaling(ctx: &mut Ctx<'_>, index: usize, body: &Value) -> Result<Reply, ApiError> {
    let map = validate::object(body, "")?;
    let record = &ctx.world.services[index];
    let patch = scaling_patch(map, record.paid, record.service.is_primary.unwrap_or(false))?;
    require_settled(ctx.world, index)?;
    let record = &mut ctx.world.services[index];
    let mut answer = record.service.clone();
    if let Some((_, pending)) = &record.pending_scaling {
        apply_service_scaling(&mut answer, pending);
    }
    apply_service_scaling(&mut answer, &patch);
    if ctx.delay_ms <= 0 {
        apply_service_scaling(&mut record.service, &patch);
    } else {
        // The answer shows what was accepted; reads show it only after the delay.
        let mut merged = record
            .pending_scaling
            .take()
            .map(|(_, p)| p)
            .unwrap_or_default();
        merge_service_patch(&mut merged, &patch);
        record.pending_scaling = Some((ctx.wall_ms.saturating_add(ctx.delay_ms), merged));
    }
    Ok(Reply::Ok(render_service(&answer)?))
}

fn merge_service_patch(into: &mut ServiceScalingPatch, patch: &ServiceScalingPatch) {
    into.min_total_memory_gb = patch.min_total_memory_gb.or(into.min_total_memory_gb);
    into.max_total_memory_gb = patch.max_total_memory_gb.or(into.max_total_memory_gb);
    into.num_replicas = patch.num_replicas.or(into.num_replicas);
    into.idle_scaling = patch.idle_scaling.or(into.idle_scaling);
    into.idle_timeout_minutes = patch.idle_timeout_minutes.or(into.idle_timeout_minutes);
}

fn patch_state(ctx: &mut Ctx<'_>, index: usize, body: &Value) -> Result<Reply, ApiError> {
    let map = validate::object(body, "")?;
    let command = validate::enumerated(map, "command", "", &["start", "stop", "awake"])?
        .ok_or_else(|| ApiError::body("command", "is required"))?;
    require_settled(ctx.world, index)?;
    let (during, after) = match command.as_str() {
        "stop" => ("stopping", "stopped"),
        "awake" => ("awaking", "running"),
        _ => ("starting", "running"),
    };
    let record = &mut ctx.world.services[index];
    if ctx.delay_ms <= 0 {
        record.service.state = Some(after.into());
    } else {
        record.service.state = Some(during.into());
        record.pending_state = Some((ctx.wall_ms.saturating_add(ctx.delay_ms), after.into()));
    }
    Ok(Reply::Ok(render_service(&record.service)?))
}

fn create_private_endpoint(
    ctx: &mut Ctx<'_>,
    index: usize,
    body: &Value,
) -> Result<Reply, ApiError> {
    let map = validate::object(body, "")?;
    let id = validate::required_string(map, "id", "", 256)?;
    let description = validate::string(map, "description", "", 1024)?.unwrap_or_default();
    require_settled(ctx.world, index)?;
    let service = &ctx.world.services[index].service;
    let endpoint = PrivateEndpoint {
        id: id.clone(),
        description,
        cloud_provider: service.provider.clone(),
        region: service.region.clone(),
    };
    match ctx.world.private_endpoints.iter_mut().find(|e| e.id == id) {
        Some(existing) => *existing = endpoint.clone(),
        None => ctx.world.private_endpoints.push(endpoint.clone()),
    }
    let service = &mut ctx.world.services[index].service;
    if !service.private_endpoint_ids.contains(&id) {
        service.private_endpoint_ids.push(id.clone());
    }
    service.available_private_endpoint_ids.retain(|e| e != &id);
    Ok(Reply::Ok(to_value(&endpoint)?))
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

fn patch_pipe_scaling(
    ctx: &mut Ctx<'_>,
    index: usize,
    service_id: &str,
    id: Option<&str>,
    body: &Value,
) -> Result<Reply, ApiError> {
    let pipe_index = find_pipe(ctx.world, service_id, id)?;
    let map = validate::object(body, "")?;
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
