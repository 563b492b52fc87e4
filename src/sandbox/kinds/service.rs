//! Services: the list, one service, its scaling through either route (validated against the
//! contract's limits, visible after the scaling delay) and its state commands.

mod replica;
pub(super) mod settings;

use serde_json::{Value, json};

use crate::api::limits::{
    SERVICE_IDLE_TIMEOUT_MIN, SERVICE_MEMORY_MAX_GB, SERVICE_MEMORY_MAX_UNPAID_GB,
    SERVICE_MEMORY_MIN_GB, SERVICE_MEMORY_STEP_GB, SERVICE_REPLICAS,
    SERVICE_REPLICAS_MIN_FIRST_IN_WAREHOUSE,
};
use crate::api::wire::{Service, ServiceScalingPatch};
use crate::sandbox::routes::{Api, ApiError, Call, Ctx, Reply, Route, cloud_template};
use crate::sandbox::store::apply_service_scaling;
use crate::sandbox::validate::{self, Check, invalid};

use super::common::{require_settled, service_index, to_value};

/// The routes of services.
pub(super) const ROUTES: &[Route] = &[
    Route::new(Api::Cloud, "GET", cloud_template!("/services"), list),
    Route::new(
        Api::Cloud,
        "GET",
        cloud_template!("/services/{serviceId}"),
        get,
    ),
    Route::new(
        Api::Cloud,
        "PATCH",
        cloud_template!("/services/{serviceId}/scaling"),
        patch_scaling,
    )
    .writes(),
    Route::new(
        Api::Cloud,
        "PATCH",
        cloud_template!("/services/{serviceId}/replicaScaling"),
        patch_replica_scaling,
    )
    .writes(),
    Route::new(
        Api::Cloud,
        "PATCH",
        cloud_template!("/services/{serviceId}/state"),
        patch_state,
    )
    .writes(),
];

fn list(ctx: &mut Ctx<'_>, _: &Call<'_>) -> Result<Reply, ApiError> {
    let services: Vec<Value> = ctx
        .world
        .services
        .iter()
        .map(|r| render_service(&r.service))
        .collect::<Result<_, _>>()?;
    Ok(Reply::Ok(Value::Array(services)))
}

fn get(ctx: &mut Ctx<'_>, call: &Call<'_>) -> Result<Reply, ApiError> {
    let index = service_index(ctx, call)?;
    Ok(Reply::Ok(render_service(
        &ctx.world.services[index].service,
    )?))
}

/// A service as JSON, with the `currentScaling` block the real API adds: the values in effect,
/// which mirror the baseline fields here.
pub(super) fn render_service(service: &Service) -> Result<Value, ApiError> {
    let mut service = service.clone();
    let mode = service
        .autoscaling_mode
        .get_or_insert_with(|| "vertical".into())
        .clone();
    let replicas = service.num_replicas.map(|r| r as i64);
    let int = |value: Option<f64>| value.map(|r| r as i64);
    service.current_scaling = Some(json!({
        "effectiveAutoscalingMode": mode,
        "effectiveMinReplicaMemoryGb": service.min_replica_memory_gb,
        "effectiveMaxReplicaMemoryGb": service.max_replica_memory_gb,
        "effectiveMinReplicas": int(service.min_replicas).or(replicas),
        "effectiveMaxReplicas": int(service.max_replicas).or(replicas),
        "effectiveIdleScaling": service.idle_scaling,
        "effectiveIdleTimeoutMinutes": service.idle_timeout_minutes.map(|m| m as i64),
    }));
    to_value(&service)
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
        ..ServiceScalingPatch::default()
    })
}

fn patch_scaling(ctx: &mut Ctx<'_>, call: &Call<'_>) -> Result<Reply, ApiError> {
    let index = service_index(ctx, call)?;
    let map = validate::object(call.body, "")?;
    let record = &ctx.world.services[index];
    let patch = scaling_patch(map, record.paid, record.service.is_primary.unwrap_or(false))?;
    accept_scaling(ctx, index, patch)
}

/// `PATCH .../replicaScaling`, checked against the service as its pending scaling leaves it.
fn patch_replica_scaling(ctx: &mut Ctx<'_>, call: &Call<'_>) -> Result<Reply, ApiError> {
    let index = service_index(ctx, call)?;
    let map = validate::object(call.body, "")?;
    let record = &ctx.world.services[index];
    let mut current = record.service.clone();
    if let Some((_, pending)) = &record.pending_scaling {
        apply_service_scaling(&mut current, pending);
    }
    let patch = replica::patch(map, &current, record.paid)?;
    accept_scaling(ctx, index, patch)
}

/// Accepts a validated scaling patch of either route: at once, or after the scaling delay.
fn accept_scaling(
    ctx: &mut Ctx<'_>,
    index: usize,
    patch: ServiceScalingPatch,
) -> Result<Reply, ApiError> {
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
    into.min_replica_memory_gb = patch.min_replica_memory_gb.or(into.min_replica_memory_gb);
    into.max_replica_memory_gb = patch.max_replica_memory_gb.or(into.max_replica_memory_gb);
    into.autoscaling_mode = patch
        .autoscaling_mode
        .clone()
        .or(into.autoscaling_mode.take());
    if patch.min_replicas.is_some() {
        into.min_replicas = patch.min_replicas;
        into.max_replicas = patch.max_replicas;
    }
}

fn patch_state(ctx: &mut Ctx<'_>, call: &Call<'_>) -> Result<Reply, ApiError> {
    let index = service_index(ctx, call)?;
    let map = validate::object(call.body, "")?;
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
