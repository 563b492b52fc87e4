//! Pipes: what a pipe step sends (create, scaling, delete).

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::api::wire::PipeScalingPatch;
use crate::plan::target::{Effect, Key, Name, Target};

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
    /// `POST /services/{serviceId}/pipes`: a pipe the config declares whole and the service
    /// lacks. The body holds no credential: each is sent from its reference, read when sent.
    #[serde(rename = "pipe-create")]
    Create {
        /// Service id.
        service_id: String,
        /// The pipe's name, which finds it once created.
        name: String,
        /// The whole pipe as the change shows it (credentials left out).
        body: Value,
        /// Where each credential goes in the source and the `${env:...}` reference it is read
        /// from; never its value.
        credentials: Vec<CredentialRef>,
    },
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

/// A credential of a pipe create: its path under the source kind (`credentials.password`) and
/// the reference it is read from (`${env:PIPE_EVENTS_PASSWORD}`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CredentialRef {
    /// Dot-separated path under the kind.
    pub path: String,
    /// The `${env:NAME}` reference as written.
    pub reference: String,
}

impl PipeOp {
    /// The object it touches.
    pub(crate) fn target(&self) -> Target<'_> {
        match self {
            PipeOp::Create {
                service_id, name, ..
            } => Target::Pipe {
                service_id,
                key: Key::Name(name),
            },
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
                key: Key::Id(pipe_id),
            },
        }
    }

    /// The service whose pipe it writes.
    pub(crate) fn service_id(&self) -> &str {
        match self {
            PipeOp::Create { service_id, .. }
            | PipeOp::Scaling { service_id, .. }
            | PipeOp::Delete { service_id, .. } => service_id,
        }
    }

    /// What it does.
    pub(crate) fn effect(&self) -> Effect {
        match self {
            PipeOp::Create { .. } => Effect::Create,
            PipeOp::Scaling { .. } => Effect::Update,
            PipeOp::Delete { .. } => Effect::Delete,
        }
    }

    /// What it is called.
    pub(crate) fn name(&self) -> Name {
        match self {
            PipeOp::Create { .. } => Name {
                op: "pipe-create",
                verb: "create",
                object: "pipe",
            },
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
