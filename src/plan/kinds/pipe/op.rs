//! Pipes: what a pipe step sends (create, change, scaling, settings, database-pipe compute,
//! replace, delete, credential rotation).

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::address::Address;
use crate::api::wire::PipeScalingPatch;
use crate::live::LiveState;
use crate::plan::kind::{Kind, Shows};
use crate::plan::target::{Effect, Key, Name, ScalingWrite, Target};

pub(crate) use super::bodies::{
    COMPUTE_FIELDS, compute_body, lifecycle_body, scaling_body, settings_body,
};
pub(crate) use super::class::{Class, class_of};
pub(crate) use super::credentials::{
    CREDENTIALS_VERSION, fingerprint_of, new_salt, recorded_tag, version_tag,
};
pub use super::credentials::{CredentialRef, SealedCredential};
pub(crate) use super::patch::{patch_body, rotation_body};

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
        /// The `credentialsVersion` the config declares, recorded on the service once created
        /// ([`version_tag`]) so that only a raised one sends the credentials again.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        credentials_version: Option<i64>,
        /// `state: stopped`: the create body takes no state, so the new pipe is sent `stop`
        /// right after it is created (by the id the answer carries, or found by name).
        #[serde(default, skip_serializing_if = "std::ops::Not::not")]
        stopped: bool,
    },
    /// `PATCH /services/{serviceId}/pipes/{pipeId}`: declared fields the server changes in
    /// place ([`class_of`]).
    #[serde(rename = "pipe-update")]
    Update {
        /// Service id.
        service_id: String,
        /// Pipe id.
        pipe_id: String,
        /// Only the members that differ ([`patch_body`]).
        body: Value,
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
    /// `DELETE .../pipes/{pipeId}`, a wait until the pipe is gone (404), then
    /// `POST .../pipes`: a declared field the server changes on no live pipe ([`class_of`]).
    /// A destroy (ingestion restarts), so it needs `--allow-destroy`.
    #[serde(rename = "pipe-replace")]
    Replace {
        /// Service id.
        service_id: String,
        /// The id of the pipe deleted first.
        pipe_id: String,
        /// The pipe's name, which finds the new one once created.
        name: String,
        /// The whole pipe created again (credentials left out), as the change's `after`.
        body: Value,
        /// Where each credential goes and the reference it is read from when sent.
        credentials: Vec<CredentialRef>,
        /// The `credentialsVersion` recorded for the new pipe ([`version_tag`]).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        credentials_version: Option<i64>,
        /// The old pipe's version tag on the service, when it has one: removed with the old
        /// pipe, so no tag outlives the pipe it names.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        version_tag: Option<String>,
        /// `state: stopped`: the new pipe is sent `stop` right after it is created.
        #[serde(default, skip_serializing_if = "std::ops::Not::not")]
        stopped: bool,
    },
    /// `DELETE /services/{serviceId}/pipes/{pipeId}` (`absent: true`; needs `--allow-destroy`).
    #[serde(rename = "pipe-delete")]
    Delete {
        /// Service id.
        service_id: String,
        /// Pipe id.
        pipe_id: String,
        /// The pipe's version tag on the service ([`version_tag`]), when it has one: removed in
        /// the same apply (one service `PATCH`), so no tag outlives the pipe it names.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        version_tag: Option<String>,
    },
    /// `PATCH /services/{serviceId}/pipes/{pipeId}` with the source's credentials (and any
    /// in-place members that differ), then the raised version recorded on the service
    /// ([`version_tag`]): a `credentialsVersion` above the one last sent.
    #[serde(rename = "pipe-rotate")]
    Rotate {
        /// Service id.
        service_id: String,
        /// Pipe id.
        pipe_id: String,
        /// The version the config declares, recorded once the credentials are sent.
        version: i64,
        /// The version recorded before (none for a pipe converge never sent credentials to).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        recorded: Option<i64>,
        /// The in-place members that differ ([`patch_body`]); credentials are added when sent.
        body: Value,
        /// This plan's random salt of the credentials' fingerprints.
        salt: String,
        /// Each credential's path, reference and salted fingerprint; never its value.
        credentials: Vec<SealedCredential>,
    },
    /// `PATCH .../pipes/{pipeId}/state` and `PATCH .../pipes/{pipeId}` in turn: a change that
    /// needs the pipe paused (postgres table mappings: stop, wait until stopped, patch,
    /// resume) or a declared `state:` (start or stop). After a failure once the pipe was
    /// stopped, the pipe is started again unless it is to be kept stopped.
    #[serde(rename = "pipe-state")]
    Lifecycle {
        /// Service id.
        service_id: String,
        /// Pipe id.
        pipe_id: String,
        /// The pipe's name, as messages say it.
        name: String,
        /// The `PATCH` body ([`lifecycle_body`]); empty when only the state changes.
        body: Value,
        /// Whether the pipe is stopped before the `PATCH`.
        pause: bool,
        /// The state the pipe is left in.
        keep: Keep,
    },
    /// `PATCH .../pipes/{pipeId}/state` with `resync`: the one-shot resync `converge apply
    /// --resync ADDRESS` asks of a postgres pipe.
    #[serde(rename = "pipe-resync")]
    Resync {
        /// Service id.
        service_id: String,
        /// Pipe id.
        pipe_id: String,
    },
    /// `PUT /services/{serviceId}/pipes/{pipeId}/settings`: the server replaces the whole map,
    /// so the body is the live settings with the declared ones written over them.
    #[serde(rename = "pipe-settings")]
    Settings {
        /// Service id.
        service_id: String,
        /// Pipe id.
        pipe_id: String,
        /// The whole settings map, as the change's `after`.
        body: Value,
    },
    /// `PATCH /services/{serviceId}/pipesCdcScaling`: the compute shared by the service's
    /// database pipes (`services.<key>.pipeCompute`).
    #[serde(rename = "pipe-compute")]
    Compute {
        /// Service id.
        service_id: String,
        /// Only the members that differ ([`compute_body`]).
        body: PipeScalingPatch,
    },
}

/// The state a [`PipeOp::Lifecycle`] leaves its pipe in.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Keep {
    /// Started when it is stopped, paused or failed.
    Running,
    /// Stopped, and stopped again when an edit resumed it.
    Stopped,
}

impl Keep {
    /// The state a change shows: `running` or `stopped`.
    pub(crate) fn as_str(self) -> &'static str {
        match self {
            Keep::Running => "running",
            Keep::Stopped => "stopped",
        }
    }
}

/// The state a change's `after` leaves the pipe in: stopped only when it says `stopped`.
pub(crate) fn keep_shown(after: &Value) -> Keep {
    if after.get("state").and_then(Value::as_str) == Some("stopped") {
        Keep::Stopped
    } else {
        Keep::Running
    }
}

/// A live pipe's state as a change shows it beside a declared `state:`: `running`, `stopped`,
/// or the lower-cased state when it is neither (`failed`, `completed`).
pub(crate) fn shown_state(live: &str) -> String {
    match live {
        "Provisioning" | "Running" | "Degraded" | "Setup" | "Snapshot" | "Modifying" | "Resync" => {
            "running".into()
        }
        "Stopping" | "Stopped" | "Pausing" | "Paused" => "stopped".into(),
        "InternalError" => "failed".into(),
        other => other.to_ascii_lowercase(),
    }
}

impl PipeOp {
    /// The service its object is on, and how it finds its pipe (by name for a create);
    /// `None` for the compute the service's database pipes share.
    pub(super) fn object(&self) -> (&str, Option<Key<'_>>) {
        match self {
            PipeOp::Create {
                service_id, name, ..
            } => (service_id, Some(Key::Name(name))),
            PipeOp::Update {
                service_id,
                pipe_id,
                ..
            }
            | PipeOp::Scaling {
                service_id,
                pipe_id,
                ..
            }
            | PipeOp::Delete {
                service_id,
                pipe_id,
                ..
            }
            | PipeOp::Replace {
                service_id,
                pipe_id,
                ..
            }
            | PipeOp::Rotate {
                service_id,
                pipe_id,
                ..
            }
            | PipeOp::Lifecycle {
                service_id,
                pipe_id,
                ..
            }
            | PipeOp::Resync {
                service_id,
                pipe_id,
            }
            | PipeOp::Settings {
                service_id,
                pipe_id,
                ..
            } => (service_id, Some(Key::Id(pipe_id))),
            PipeOp::Compute { service_id, .. } => (service_id, None),
        }
    }
}

/// Shown without what only the saved plan's check uses ([`PipeOp::shown`]).
impl Shows for PipeOp {
    fn show<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serde::Serialize::serialize(&self.shown(), serializer)
    }
}

impl Kind for PipeOp {
    /// The object it touches.
    fn target(&self) -> Target<'_> {
        match self.object() {
            (service_id, Some(key)) => Target::Pipe { service_id, key },
            (service_id, None) => Target::PipeCompute { service_id },
        }
    }

    /// Its pipe (or the shared compute) as `live` holds it.
    fn current(&self, live: &LiveState) -> Option<Value> {
        match self.object() {
            (service_id, Some(key)) => super::live::current(live, service_id, key),
            (service_id, None) => super::live::current_compute(live, service_id),
        }
    }

    /// What it does.
    fn effect(&self) -> Effect {
        match self {
            PipeOp::Create { .. } => Effect::Create,
            PipeOp::Update { .. }
            | PipeOp::Scaling { .. }
            | PipeOp::Rotate { .. }
            | PipeOp::Lifecycle { .. }
            | PipeOp::Resync { .. }
            | PipeOp::Settings { .. }
            | PipeOp::Compute { .. } => Effect::Update,
            PipeOp::Delete { .. } => Effect::Delete,
            // The live pipe is destroyed first, then created again.
            PipeOp::Replace { .. } => Effect::Replace,
        }
    }

    /// Whether it carries out a change at `address`: a pipe's declared fields change at its own
    /// address, its scaling at `.scaling`, its settings at `.settings`; a create, delete or
    /// replacement is of the pipe itself, named by the config or live.
    fn fits(&self, address: &Address<'_>) -> bool {
        match self {
            PipeOp::Update { .. }
            | PipeOp::Rotate { .. }
            | PipeOp::Lifecycle { .. }
            | PipeOp::Resync { .. } => matches!(address, Address::Pipe { .. }),
            PipeOp::Settings { .. } => matches!(address, Address::PipeSettings { .. }),
            PipeOp::Scaling { .. } => matches!(address, Address::PipeScaling { .. }),
            PipeOp::Create { .. } | PipeOp::Delete { .. } | PipeOp::Replace { .. } => {
                matches!(address, Address::Pipe { .. } | Address::LivePipe { .. })
            }
            PipeOp::Compute { .. } => matches!(address, Address::PipeCompute { .. }),
        }
    }

    /// The scaling it writes, for `apply --wait`.
    fn scaling_written(&self) -> Option<ScalingWrite<'_>> {
        match self {
            PipeOp::Scaling {
                service_id,
                pipe_id,
                body,
            } => Some(ScalingWrite::Pipe {
                service_id,
                pipe_id,
                body,
            }),
            PipeOp::Create { .. }
            | PipeOp::Update { .. }
            | PipeOp::Delete { .. }
            | PipeOp::Replace { .. }
            | PipeOp::Lifecycle { .. }
            | PipeOp::Resync { .. }
            | PipeOp::Settings { .. }
            | PipeOp::Compute { .. }
            | PipeOp::Rotate { .. } => None,
        }
    }

    /// The pipe a done step created or changed, which `apply --wait` sees settle: by id, or by
    /// name for a create (whose id the plan does not hold).
    fn settles(&self) -> Option<(&str, Key<'_>)> {
        match self {
            PipeOp::Create {
                service_id, name, ..
            }
            | PipeOp::Replace {
                service_id, name, ..
            } => Some((service_id, Key::Name(name))),
            PipeOp::Update {
                service_id,
                pipe_id,
                ..
            }
            | PipeOp::Lifecycle {
                service_id,
                pipe_id,
                ..
            }
            | PipeOp::Rotate {
                service_id,
                pipe_id,
                ..
            }
            | PipeOp::Settings {
                service_id,
                pipe_id,
                ..
            } => Some((service_id, Key::Id(pipe_id))),
            PipeOp::Scaling { .. }
            | PipeOp::Delete { .. }
            | PipeOp::Resync { .. }
            | PipeOp::Compute { .. } => None,
        }
    }

    /// What it is called.
    fn name(&self) -> Name {
        match self {
            PipeOp::Create { .. } => Name {
                op: "pipe-create",
                verb: "create",
                object: "pipe",
            },
            PipeOp::Update { .. } => Name {
                op: "pipe-update",
                verb: "update",
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
            PipeOp::Replace { .. } => Name {
                op: "pipe-replace",
                verb: "replace",
                object: "pipe",
            },
            PipeOp::Rotate { .. } => Name {
                op: "pipe-rotate",
                verb: "rotate",
                object: "pipe credentials",
            },
            PipeOp::Lifecycle { .. } => Name {
                op: "pipe-state",
                verb: "update",
                object: "pipe",
            },
            PipeOp::Resync { .. } => Name {
                op: "pipe-resync",
                verb: "resync",
                object: "pipe",
            },
            PipeOp::Settings { .. } => Name {
                op: "pipe-settings",
                verb: "update",
                object: "pipe settings",
            },
            PipeOp::Compute { .. } => Name {
                op: "pipe-compute",
                verb: "update",
                object: "database pipe compute",
            },
        }
    }
}

/// A pipe operation as a rendered plan (`--format json`) shows it ([`PipeOp::shown`]).
#[derive(Serialize)]
#[serde(untagged)]
pub(crate) enum Shown<'a> {
    /// Every operation but a rotation, as saved.
    Saved(&'a PipeOp),
    /// A rotation without its salt and fingerprints.
    Rotation(RotationShown<'a>),
}

/// A rotation as rendered: its members in the saved order, each credential by path and
/// reference only.
#[derive(Serialize)]
#[serde(tag = "op", rename = "pipe-rotate", rename_all = "camelCase")]
pub(crate) struct RotationShown<'a> {
    service_id: &'a str,
    pipe_id: &'a str,
    version: i64,
    #[serde(skip_serializing_if = "Option::is_none")]
    recorded: Option<i64>,
    body: &'a Value,
    credentials: Vec<CredentialRef>,
}

impl PipeOp {
    /// The service whose pipe it writes.
    pub(crate) fn service_id(&self) -> &str {
        match self {
            PipeOp::Create { service_id, .. }
            | PipeOp::Update { service_id, .. }
            | PipeOp::Scaling { service_id, .. }
            | PipeOp::Delete { service_id, .. }
            | PipeOp::Replace { service_id, .. }
            | PipeOp::Rotate { service_id, .. }
            | PipeOp::Lifecycle { service_id, .. }
            | PipeOp::Resync { service_id, .. }
            | PipeOp::Settings { service_id, .. }
            | PipeOp::Compute { service_id, .. } => service_id,
        }
    }

    /// The operation as a rendered plan shows it: a rotation without its salt and fingerprints,
    /// which only the saved plan's check uses; shown, they would make the same rotation render
    /// differently in every run and tell a reviewer nothing.
    pub(crate) fn shown(&self) -> Shown<'_> {
        match self {
            PipeOp::Rotate {
                service_id,
                pipe_id,
                version,
                recorded,
                body,
                credentials,
                ..
            } => Shown::Rotation(RotationShown {
                service_id,
                pipe_id,
                version: *version,
                recorded: *recorded,
                body,
                credentials: credentials
                    .iter()
                    .map(|c| CredentialRef {
                        path: c.path.clone(),
                        reference: c.reference.clone(),
                    })
                    .collect(),
            }),
            PipeOp::Create { .. }
            | PipeOp::Update { .. }
            | PipeOp::Scaling { .. }
            | PipeOp::Replace { .. }
            | PipeOp::Delete { .. }
            | PipeOp::Lifecycle { .. }
            | PipeOp::Resync { .. }
            | PipeOp::Settings { .. }
            | PipeOp::Compute { .. } => Shown::Saved(self),
        }
    }
}
