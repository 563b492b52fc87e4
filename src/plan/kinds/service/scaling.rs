//! A service's scaling: the members the config writes compared with the live baseline, sent
//! through `replicaScaling` (or `scaling`, for a config that still writes the deprecated
//! totals), with the rules only the live service can tell checked first (its current mode, the
//! first service of a warehouse, a non-paid tier's memory).

use crate::plan::kind::Live;
use serde_json::Value;

use crate::api::limits::{
    SERVICE_REPLICA_MEMORY_MAX_UNPAID_GB, SERVICE_REPLICAS_MIN_FIRST_IN_WAREHOUSE,
};
use crate::api::wire::Service;
use crate::config::model::{Located, ServiceConfig, ServiceScaling};
use crate::diagnostic::{Code, Diagnostic, Span};
use crate::plan::address::Address;
use crate::plan::build::builder::{Builder, compared};
use crate::plan::diff::diff;
use crate::plan::model::{Action, Operation};
use crate::plan::normalize;

use super::op::{self, ServiceOp};

impl Builder<'_> {
    /// Plans a service's scaling: the fields the config sets, compared with the live ones.
    /// Returns its step, when one is planned.
    pub(super) fn service_scaling(
        &mut self,
        config: &ServiceConfig,
        live: &Service,
    ) -> Option<usize> {
        let scaling = config.scaling.as_ref()?;
        if let Some(problem) = refused(&config.key.value, scaling, live) {
            self.error(problem);
            return None;
        }
        let after = desired_scaling(scaling);
        let live_scaling = super::live::service_scaling(live);
        let before = normalize::project(&live_scaling, &after);
        let fields = diff(&before, &after);
        let mut change = compared(
            Address::ServiceScaling {
                service: &config.key.value,
            }
            .into(),
            before,
            after,
            fields,
            live.fingerprint(),
        );
        if change.action == Action::NoOp {
            self.push(change, None);
            return None;
        }
        if let Some(reason) = mode_switch(&live_scaling, change.after.as_ref()) {
            change.reason = reason;
        }
        let body = op::scaling_body(
            change
                .fields
                .iter()
                .map(|f| (f.path.as_str(), f.after.as_ref())),
        );
        let service_id = live.id.clone();
        let operation = if scaling.writes_totals() {
            ServiceOp::Scaling { service_id, body }
        } else {
            ServiceOp::ReplicaScaling { service_id, body }
        };
        self.push(change, Some((Operation::Service(operation), Vec::new())))
    }
}

/// The reason of a change that switches the autoscaling mode, naming the members that stop
/// applying; `None` when the mode stays.
fn mode_switch(live: &Value, after: Option<&Value>) -> Option<String> {
    let wanted = after?.get("autoscalingMode")?.as_str()?;
    let current = live.get("autoscalingMode").and_then(Value::as_str)?;
    if wanted == current {
        return None;
    }
    let stopping = if wanted == "horizontal" {
        "numReplicas stops applying (the replica count scales between minReplicas and maxReplicas)"
    } else {
        "minReplicas and maxReplicas stop applying (numReplicas is the fixed count)"
    };
    Some(format!(
        "autoscalingMode switches from {current} to {wanted}: {stopping}"
    ))
}

/// The first rule of the live service that the scaling breaks, as a plan error.
fn refused(key: &str, scaling: &ServiceScaling, live: &Service) -> Option<Diagnostic> {
    first_in_warehouse(key, scaling, live)
        .or_else(|| mode_mismatch(key, scaling, live))
        .or_else(|| unpaid_memory(key, scaling, live))
}

/// A replica count below 2 for the first service of a warehouse.
fn first_in_warehouse(key: &str, scaling: &ServiceScaling, live: &Service) -> Option<Diagnostic> {
    let (field, replicas) = [
        ("numReplicas", &scaling.num_replicas),
        ("minReplicas", &scaling.min_replicas),
    ]
    .into_iter()
    .find_map(|(field, v)| v.as_ref().map(|v| (field, v)))?;
    if live.is_primary != Some(true) || replicas.value >= SERVICE_REPLICAS_MIN_FIRST_IN_WAREHOUSE {
        return None;
    }
    Some(
        Diagnostic::error(
            Code::PlanReplicasFirstInWarehouse,
            format!(
                "service `{key}` is the first service of its warehouse, which needs at least 2 replicas"
            ),
            Some(replicas.span),
        )
        .with_label("below 2")
        .with_help(format!("set {field} to 2 or more")),
    )
}

/// Members of one mode on a service in the other, with no `autoscalingMode` to switch it (the
/// server would keep the mode and refuse them).
fn mode_mismatch(key: &str, scaling: &ServiceScaling, live: &Service) -> Option<Diagnostic> {
    if scaling.autoscaling_mode.is_some() || scaling.writes_totals() {
        return None;
    }
    let horizontal = live.autoscaling_mode.as_deref() == Some("horizontal");
    let (span, written, help): (Span, &str, &str) = if horizontal {
        let fixed = scaling.num_replicas.as_ref()?;
        (
            fixed.span,
            "numReplicas (vertical autoscaling's fixed count)",
            "write minReplicas/maxReplicas, or autoscalingMode: vertical to switch it",
        )
    } else {
        let (min, max) = (
            scaling.min_replicas.as_ref()?,
            scaling.max_replicas.as_ref()?,
        );
        if min.value == max.value {
            return None;
        }
        (
            min.span,
            "an unequal minReplicas/maxReplicas band (horizontal autoscaling's)",
            "write autoscalingMode: horizontal to switch it, or numReplicas for a fixed count",
        )
    };
    let mode = if horizontal { "horizontal" } else { "vertical" };
    Some(
        Diagnostic::error(
            Code::PlanScalingMode,
            format!("service `{key}` autoscales {mode}ly, and the config writes {written}"),
            Some(span),
        )
        .with_label(format!("not {mode} autoscaling's"))
        .with_help(help.to_string()),
    )
}

/// Per-replica memory above 120 GB on a service whose tier says it is not paid.
fn unpaid_memory(key: &str, scaling: &ServiceScaling, live: &Service) -> Option<Diagnostic> {
    if live.tier.as_deref() != Some("development") {
        return None;
    }
    let (field, memory) = [
        ("minReplicaMemoryGb", &scaling.min_replica_memory_gb),
        ("maxReplicaMemoryGb", &scaling.max_replica_memory_gb),
    ]
    .into_iter()
    .find_map(|(field, v)| {
        v.as_ref()
            .filter(|v| v.value > SERVICE_REPLICA_MEMORY_MAX_UNPAID_GB)
            .map(|v| (field, v))
    })?;
    Some(
        Diagnostic::error(
            Code::PlanReplicaMemoryUnpaid,
            format!(
                "service `{key}` is not a paid service (tier development), which has at most {SERVICE_REPLICA_MEMORY_MAX_UNPAID_GB} GB per replica"
            ),
            Some(memory.span),
        )
        .with_label(format!("above {SERVICE_REPLICA_MEMORY_MAX_UNPAID_GB}"))
        .with_help(format!("set {field} to {SERVICE_REPLICA_MEMORY_MAX_UNPAID_GB} or less")),
    )
}

/// The scaling the config asks of a service, normalized: only the fields it sets.
fn desired_scaling(scaling: &ServiceScaling) -> Value {
    let mut desired = serde_json::Map::new();
    let mut put = |key: &str, value: Option<Value>| {
        if let Some(value) = value {
            desired.insert(key.to_string(), value);
        }
    };
    let number = |v: &Option<Located<f64>>| v.as_ref().map(|v| normalize::num(v.value));
    put("numReplicas", number(&scaling.num_replicas));
    put(
        "idleScaling",
        scaling.idle_scaling.as_ref().map(|v| Value::Bool(v.value)),
    );
    put("idleTimeoutMinutes", number(&scaling.idle_timeout_minutes));
    put("minTotalMemoryGb", number(&scaling.min_total_memory_gb));
    put("maxTotalMemoryGb", number(&scaling.max_total_memory_gb));
    put(
        "autoscalingMode",
        scaling
            .autoscaling_mode
            .as_ref()
            .map(|m| Value::from(m.value.as_str())),
    );
    put("minReplicas", number(&scaling.min_replicas));
    put("maxReplicas", number(&scaling.max_replicas));
    put("minReplicaMemoryGb", number(&scaling.min_replica_memory_gb));
    put("maxReplicaMemoryGb", number(&scaling.max_replica_memory_gb));
    Value::Object(desired)
}
