//! Services: what a service step sends (its scaling).

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::address::Address;
use crate::api::wire::ServiceScalingPatch;
use crate::plan::kind::Kind;
use crate::plan::target::{Effect, Name, ScalingWrite, Target};

/// The scaling fields of a service, as the change lists them (wire names).
pub(crate) const SCALING_FIELDS: &[&str] = &[
    "numReplicas",
    "idleScaling",
    "idleTimeoutMinutes",
    "minTotalMemoryGb",
    "maxTotalMemoryGb",
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
}

impl Kind for ServiceOp {
    /// The object it touches.
    fn target(&self) -> Target<'_> {
        match self {
            ServiceOp::Scaling { service_id, .. } => Target::Service { service_id },
        }
    }

    /// What it does.
    fn effect(&self) -> Effect {
        match self {
            ServiceOp::Scaling { .. } => Effect::Update,
        }
    }

    /// Whether it carries out a change at `address`.
    fn fits(&self, address: &Address<'_>) -> bool {
        match self {
            ServiceOp::Scaling { .. } => matches!(address, Address::ServiceScaling { .. }),
        }
    }

    /// The scaling it writes, for `apply --wait`.
    fn scaling_written(&self) -> Option<ScalingWrite<'_>> {
        match self {
            ServiceOp::Scaling { service_id, body } => {
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
        }
    }
}

/// The scaling body that writes each `(field, desired value)`: the planner builds it from a
/// change's fields, the saved-plan check builds it again from the saved change and compares.
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
            _ => {}
        }
    }
    body
}
