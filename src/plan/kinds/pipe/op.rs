//! Pipes: what a pipe step sends (scaling, delete).

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::api::wire::PipeScalingPatch;
use crate::plan::target::{Effect, Name, Target};

/// The scaling fields of a pipe, as the change lists them (wire names).
pub(crate) const SCALING_FIELDS: &[&str] = &[
    "replicas",
    "concurrency",
    "replicaCpuMillicores",
    "replicaMemoryGb",
];

/// A pipe operation.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "op", rename_all_fields = "camelCase")]
pub enum PipeOp {
    /// `PATCH /services/{serviceId}/pipes/{pipeId}/scaling`.
    #[serde(rename = "pipe-scaling")]
    Scaling {
        /// Service id.
        service_id: String,
        /// Pipe id.
        pipe_id: String,
        /// Only the fields that differ.
        body: PipeScalingPatch,
    },
    /// `DELETE /services/{serviceId}/pipes/{pipeId}` (`absent: true`; needs `--allow-destroy`).
    #[serde(rename = "pipe-delete")]
    Delete {
        /// Service id.
        service_id: String,
        /// Pipe id.
        pipe_id: String,
    },
}

impl PipeOp {
    /// The object it touches.
    pub(crate) fn target(&self) -> Target<'_> {
        match self {
            PipeOp::Scaling {
                service_id,
                pipe_id,
                ..
            }
            | PipeOp::Delete {
                service_id,
                pipe_id,
            } => Target::Pipe {
                service_id,
                pipe_id,
            },
        }
    }

    /// The service whose pipe it writes.
    pub(crate) fn service_id(&self) -> &str {
        match self {
            PipeOp::Scaling { service_id, .. } | PipeOp::Delete { service_id, .. } => service_id,
        }
    }

    /// What it does.
    pub(crate) fn effect(&self) -> Effect {
        match self {
            PipeOp::Scaling { .. } => Effect::Update,
            PipeOp::Delete { .. } => Effect::Delete,
        }
    }

    /// What it is called.
    pub(crate) fn name(&self) -> Name {
        match self {
            PipeOp::Scaling { .. } => Name {
                op: "pipe-scaling",
                verb: "update",
                object: "pipe scaling",
            },
            PipeOp::Delete { .. } => Name {
                op: "pipe-delete",
                verb: "delete",
                object: "pipe",
            },
        }
    }
}

/// The scaling body that writes each `(field, desired value)`: the planner builds it from a
/// change's fields, the saved-plan check builds it again from the saved change and compares.
pub(crate) fn scaling_body<'a>(
    fields: impl IntoIterator<Item = (&'a str, Option<&'a Value>)>,
) -> PipeScalingPatch {
    let mut body = PipeScalingPatch::default();
    for (path, after) in fields {
        match path {
            "replicas" => body.replicas = after.and_then(Value::as_i64),
            "concurrency" => body.concurrency = after.and_then(Value::as_i64),
            "replicaCpuMillicores" => body.replica_cpu_millicores = after.and_then(Value::as_i64),
            "replicaMemoryGb" => body.replica_memory_gb = after.and_then(Value::as_f64),
            _ => {}
        }
    }
    body
}
