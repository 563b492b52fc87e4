//! `PATCH .../replicaScaling`: per-replica memory, the autoscaling mode with its replica
//! members, and idle settings, checked as the cloud document states each rule.

use serde_json::{Map, Value};

use crate::api::limits::{
    SERVICE_IDLE_TIMEOUT_MIN, SERVICE_REPLICA_BAND, SERVICE_REPLICA_MEMORY_MAX_GB,
    SERVICE_REPLICA_MEMORY_MAX_UNPAID_GB, SERVICE_REPLICA_MEMORY_MIN_GB,
    SERVICE_REPLICA_MEMORY_STEP_GB, SERVICE_REPLICAS, SERVICE_REPLICAS_MIN_FIRST_IN_WAREHOUSE,
};
use crate::api::wire::{Service, ServiceScalingPatch};
use crate::sandbox::validate::{self, Check, invalid};

/// One per-replica memory member: 8 to `max`, a multiple of 4.
fn memory(map: &Map<String, Value>, key: &str, max: f64) -> Check<Option<f64>> {
    let Some(value) = validate::number(map, key, "")? else {
        return Ok(None);
    };
    if !(SERVICE_REPLICA_MEMORY_MIN_GB..=max).contains(&value) {
        return invalid(
            key,
            format!("must be from {SERVICE_REPLICA_MEMORY_MIN_GB} to {max}, got {value}"),
        );
    }
    if value % SERVICE_REPLICA_MEMORY_STEP_GB != 0.0 {
        return invalid(
            key,
            format!("must be a multiple of {SERVICE_REPLICA_MEMORY_STEP_GB}, got {value}"),
        );
    }
    Ok(Some(value))
}

/// A fixed count (vertical) and a band (horizontal), at most one of them written.
type Replicas = (Option<f64>, Option<(f64, f64)>);

/// The replica members: `numReplicas`, or `minReplicas` with `maxReplicas`, never both.
fn replicas(map: &Map<String, Value>, first_in_warehouse: bool) -> Check<Replicas> {
    let fixed = validate::ranged(map, &SERVICE_REPLICAS, "")?;
    let [min_range, max_range] = &SERVICE_REPLICA_BAND;
    let band = match (
        validate::ranged(map, min_range, "")?,
        validate::ranged(map, max_range, "")?,
    ) {
        (None, None) => None,
        (Some(min), Some(max)) if min <= max => Some((min, max)),
        (Some(min), Some(max)) => {
            return invalid(
                "minReplicas",
                format!("must not exceed maxReplicas ({max}), got {min}"),
            );
        }
        (Some(_), None) => return invalid("maxReplicas", "must be provided with minReplicas"),
        (None, Some(_)) => return invalid("minReplicas", "must be provided with maxReplicas"),
    };
    if fixed.is_some() && band.is_some() {
        return invalid(
            "numReplicas",
            "is mutually exclusive with minReplicas/maxReplicas",
        );
    }
    let lowest = fixed.or(band.map(|(min, _)| min));
    if let Some(r) = lowest
        && first_in_warehouse
        && r < SERVICE_REPLICAS_MIN_FIRST_IN_WAREHOUSE
    {
        let field = if fixed.is_some() {
            "numReplicas"
        } else {
            "minReplicas"
        };
        return invalid(
            field,
            format!(
                "must be at least {SERVICE_REPLICAS_MIN_FIRST_IN_WAREHOUSE} for the first service in a warehouse, got {r}"
            ),
        );
    }
    Ok((fixed, band))
}

/// Validates a `replicaScaling` body against the document's rules for this service (its
/// current mode, paid or not, first in its warehouse or not).
pub(super) fn patch(
    map: &Map<String, Value>,
    service: &Service,
    paid: bool,
) -> Check<ServiceScalingPatch> {
    let max_memory = if paid {
        SERVICE_REPLICA_MEMORY_MAX_GB
    } else {
        SERVICE_REPLICA_MEMORY_MAX_UNPAID_GB
    };
    let min_memory = memory(map, "minReplicaMemoryGb", max_memory)?;
    let max_memory = memory(map, "maxReplicaMemoryGb", max_memory)?;
    if let (Some(min), Some(max)) = (min_memory, max_memory)
        && min > max
    {
        return invalid(
            "minReplicaMemoryGb",
            format!("must not exceed maxReplicaMemoryGb ({max}), got {min}"),
        );
    }
    let mode = validate::enumerated(map, "autoscalingMode", "", &["vertical", "horizontal"])?;
    let (fixed, band) = replicas(map, service.is_primary.unwrap_or(false))?;
    let resulting = mode
        .clone()
        .or_else(|| service.autoscaling_mode.clone())
        .unwrap_or_else(|| "vertical".into());
    if resulting == "horizontal" {
        if fixed.is_some() {
            return invalid(
                "numReplicas",
                "applies to vertical autoscaling; a horizontal service takes minReplicas/maxReplicas",
            );
        }
        if min_memory != max_memory {
            return invalid(
                "minReplicaMemoryGb",
                "must equal maxReplicaMemoryGb in horizontal autoscaling (memory is fixed per replica)",
            );
        }
        if band.is_none() && service.min_replicas.is_none() {
            return invalid(
                "minReplicas",
                "minReplicas and maxReplicas are required when switching to horizontal autoscaling",
            );
        }
    } else if let Some((min, max)) = band
        && min != max
    {
        return invalid(
            "minReplicas",
            "an unequal minReplicas/maxReplicas band needs autoscalingMode horizontal",
        );
    }
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
        min_replica_memory_gb: min_memory,
        max_replica_memory_gb: max_memory,
        autoscaling_mode: mode,
        num_replicas: fixed,
        min_replicas: band.map(|(min, _)| min),
        max_replicas: band.map(|(_, max)| max),
        idle_scaling: validate::boolean(map, "idleScaling", "")?,
        idle_timeout_minutes: idle_timeout,
        ..ServiceScalingPatch::default()
    })
}
