//! Services: what a service step sends: its scaling, through `replicaScaling` (per-replica
//! memory and the autoscaling mode) or, for a config that still writes the deprecated totals,
//! through `scaling`.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::address::Address;
use crate::api::wire::ServiceScalingPatch;
use crate::plan::kind::Kind;
use crate::plan::target::{Effect, Name, ScalingWrite, Target};

/// The fields of the deprecated `scaling` route, as the change lists them (wire names).
pub(crate) const SCALING_FIELDS: &[&str] = &[
    "numReplicas",
    "idleScaling",
    "idleTimeoutMinutes",
    "minTotalMemoryGb",
    "maxTotalMemoryGb",
];

/// The fields of `replicaScaling`, as the change lists them (wire names).
pub(crate) const REPLICA_SCALING_FIELDS: &[&str] = &[
    "autoscalingMode",
    "numReplicas",
    "minReplicas",
    "maxReplicas",
    "minReplicaMemoryGb",
    "maxReplicaMemoryGb",
    "idleScaling",
    "idleTimeoutMinutes",
];

/// A service operation.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "op", rename_all_fields = "camelCase")]
pub enum ServiceOp {
    /// `PATCH /services/{serviceId}/scaling`.
    #[serde(rename = "service-scaling")]
    Scaling {
        /// Service id.
        service_id: String,
        /// Only the fields that differ.
        body: ServiceScalingPatch,
    },
    /// `PATCH /services/{serviceId}/replicaScaling`.
    #[serde(rename = "service-replica-scaling")]
    ReplicaScaling {
        /// Service id.
        service_id: String,
        /// Only the fields that differ.
        body: ServiceScalingPatch,
    },
}

impl ServiceOp {
    /// The fields a change carried out by this operation may list: its route's (the saved-plan
    /// check refuses any other).
    pub(crate) fn route_fields(&self) -> &'static [&'static str] {
        match self {
            ServiceOp::Scaling { .. } => SCALING_FIELDS,
            ServiceOp::ReplicaScaling { .. } => REPLICA_SCALING_FIELDS,
        }
    }

    /// The service it writes to.
    pub(crate) fn service_id(&self) -> &str {
        match self {
            ServiceOp::Scaling { service_id, .. }
            | ServiceOp::ReplicaScaling { service_id, .. } => service_id,
        }
    }

    /// The body it sends.
    pub(crate) fn body(&self) -> &ServiceScalingPatch {
        match self {
            ServiceOp::Scaling { body, .. } | ServiceOp::ReplicaScaling { body, .. } => body,
        }
    }
}

impl Kind for ServiceOp {
    /// The object it touches.
    fn target(&self) -> Target<'_> {
        match self {
            ServiceOp::Scaling { service_id, .. }
            | ServiceOp::ReplicaScaling { service_id, .. } => Target::Service { service_id },
        }
    }

    /// What it does.
    fn effect(&self) -> Effect {
        match self {
            ServiceOp::Scaling { .. } | ServiceOp::ReplicaScaling { .. } => Effect::Update,
        }
    }

    /// Whether it carries out a change at `address`.
    fn fits(&self, address: &Address<'_>) -> bool {
        match self {
            ServiceOp::Scaling { .. } | ServiceOp::ReplicaScaling { .. } => {
                matches!(address, Address::ServiceScaling { .. })
            }
        }
    }

    /// The scaling it writes, for `apply --wait`.
    fn scaling_written(&self) -> Option<ScalingWrite<'_>> {
        match self {
            ServiceOp::Scaling { service_id, body }
            | ServiceOp::ReplicaScaling { service_id, body } => {
                Some(ScalingWrite::Service { service_id, body })
            }
        }
    }

    /// What it is called.
    fn name(&self) -> Name {
        match self {
            ServiceOp::Scaling { .. } => Name {
                op: "service-scaling",
                verb: "update",
                object: "service scaling",
            },
            ServiceOp::ReplicaScaling { .. } => Name {
                op: "service-replica-scaling",
                verb: "update",
                object: "service scaling",
            },
        }
    }
}

/// The scaling body that writes each `(field, desired value)`: the planner builds it from a
/// change's fields, the saved-plan check builds it again from the saved change and compares.
/// Which route's fields a change may list is the check's (`SCALING_FIELDS`,
/// `REPLICA_SCALING_FIELDS`).
pub(crate) fn scaling_body<'a>(
    fields: impl IntoIterator<Item = (&'a str, Option<&'a Value>)>,
) -> ServiceScalingPatch {
    let mut body = ServiceScalingPatch::default();
    for (path, after) in fields {
        let number = after.and_then(Value::as_f64);
        match path {
            "numReplicas" => body.num_replicas = number,
            "idleScaling" => body.idle_scaling = after.and_then(Value::as_bool),
            "idleTimeoutMinutes" => body.idle_timeout_minutes = number,
            "minTotalMemoryGb" => body.min_total_memory_gb = number,
            "maxTotalMemoryGb" => body.max_total_memory_gb = number,
            "minReplicaMemoryGb" => body.min_replica_memory_gb = number,
            "maxReplicaMemoryGb" => body.max_replica_memory_gb = number,
            "minReplicas" => body.min_replicas = number,
            "maxReplicas" => body.max_replicas = number,
            "autoscalingMode" => {
                body.autoscaling_mode = after.and_then(Value::as_str).map(String::from)
            }
            _ => {}
        }
    }
    body
}
