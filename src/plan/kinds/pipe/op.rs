//! Pipes: what a pipe step sends (create, change, scaling, settings, database-pipe compute,
//! replace, delete, credential rotation).

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::address::Address;
use crate::api::wire::PipeScalingPatch;
use crate::plan::kind::Kind;
use crate::plan::target::{Effect, Key, Name, ScalingWrite, Target};

use super::database::{
    MONGODB_PATCHABLE, MYSQL_PATCHABLE, complete, mapping_deltas, patch_settings,
};
use super::patch::members;
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

/// A credential of a rotation: where it goes, the reference it is read from when sent, and a
/// salted fingerprint of the value the plan was made with, so that a saved plan applies only
/// the secret its reviewer approved, without holding it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SealedCredential {
    /// Dot-separated path under the kind.
    pub path: String,
    /// The `${env:NAME}` reference as written.
    pub reference: String,
    /// HMAC-SHA-256 of the value keyed by the plan's salt, in hex ([`fingerprint_of`]).
    pub fingerprint: String,
}

/// The field a rotation shows in its change: the version recorded before and the one sent.
pub(crate) const CREDENTIALS_VERSION: &str = "credentialsVersion";

/// The service tag that records the `credentialsVersion` last sent to pipe `pipe_id`. A pipe
/// stores nothing free-form, so the one place the API keeps a converge fact about it between
/// runs, without a secret, is a tag of its service.
pub(crate) fn version_tag(pipe_id: &str) -> String {
    format!("converge.credentials-version.{pipe_id}")
}

/// The version tag of pipe `pipe_id` when the service carries one.
pub(crate) fn recorded_tag(service: &crate::api::wire::Service, pipe_id: &str) -> Option<String> {
    let key = version_tag(pipe_id);
    service.tags.iter().any(|tag| tag.key == key).then_some(key)
}

/// A fresh random salt for one plan's fingerprints: the same secret fingerprints differently in
/// every plan, so a fingerprint cannot be matched across plans or against a precomputed list.
pub(crate) fn new_salt() -> String {
    uuid::Uuid::new_v4().simple().to_string()
}

/// The salted fingerprint of a credential value: HMAC-SHA-256 keyed by the salt, in hex.
pub(crate) fn fingerprint_of(salt: &str, value: &str) -> String {
    let key = ring::hmac::Key::new(ring::hmac::HMAC_SHA256, salt.as_bytes());
    ring::hmac::sign(&key, value.as_bytes())
        .as_ref()
        .iter()
        .map(|byte| format!("{byte:02x}"))
        .collect()
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

impl Kind for PipeOp {
    /// The object it touches.
    fn target(&self) -> Target<'_> {
        match self {
            PipeOp::Create {
                service_id, name, ..
            } => Target::Pipe {
                service_id,
                key: Key::Name(name),
            },
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
            } => Target::Pipe {
                service_id,
                key: Key::Id(pipe_id),
            },
            PipeOp::Compute { service_id, .. } => Target::PipeCompute { service_id },
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

/// The settings map a `PUT .../settings` sends: the live settings (unset ones, read back as
/// null, left out) with the declared ones written over them, since the server replaces the
/// whole map and a setting the config does not name is left as it is.
pub(crate) fn settings_body(live: Option<&Value>, declared: &Value) -> Value {
    let mut body: serde_json::Map<String, Value> = live
        .and_then(Value::as_object)
        .into_iter()
        .flatten()
        .filter(|(_, value)| !value.is_null())
        .map(|(key, value)| (key.clone(), value.clone()))
        .collect();
    for (key, value) in declared.as_object().into_iter().flatten() {
        body.insert(key.clone(), value.clone());
    }
    Value::Object(body)
}

/// The members of `services.<key>.pipeCompute` (wire names).
pub(crate) const COMPUTE_FIELDS: &[&str] = &["replicaCpuMillicores", "replicaMemoryGb"];

/// The `PATCH .../pipesCdcScaling` body that writes each `(field, desired value)` of a change:
/// the planner builds it, the saved-plan check builds it again and compares.
pub(crate) fn compute_body<'a>(
    fields: impl IntoIterator<Item = (&'a str, Option<&'a Value>)>,
) -> PipeScalingPatch {
    let mut body = PipeScalingPatch::default();
    for (path, after) in fields {
        match path {
            "replicaCpuMillicores" => body.replica_cpu_millicores = after.and_then(Value::as_i64),
            "replicaMemoryGb" => body.replica_memory_gb = after.and_then(Value::as_f64),
            _ => {}
        }
    }
    body
}

/// How the server takes a change of one declared field of a live pipe.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Class {
    /// `PATCH .../pipes/{id}` changes it while the pipe runs.
    InPlace,
    /// `PATCH` takes it only while the pipe is paused (postgres table mappings).
    NeedsPause,
    /// The pipe must be deleted and created again: ingestion restarts.
    Replace,
}

/// The source members `PATCH .../pipes/{id}` takes, by kind: the cloud document's
/// `ClickPipePatch*Source` schemas (credentials, sent only on rotation, left out). Database
/// (postgres, mysql, mongodb) `tableMappings` change through `tableMappingsToAdd`/`tableMappingsToRemove`
/// and need a pause; of their `settings` only [`patch_settings`] change in place.
/// `tests` checks this table against the document.
pub(crate) const PATCHABLE_SOURCE: [(&str, &[&str]); 7] = [
    (
        "kafka",
        &[
            "authentication",
            "iamRole",
            "caCertificate",
            "reversePrivateEndpointIds",
        ],
    ),
    (
        "objectStorage",
        &[
            "skipInitialLoad",
            "startAfter",
            "authentication",
            "iamRole",
            "path",
            "azureContainerName",
        ],
    ),
    ("kinesis", &["authentication", "iamRole"]),
    (
        "postgres",
        &[
            "host",
            "port",
            "database",
            "tlsHost",
            "caCertificate",
            "disableTls",
            "skipCertVerification",
        ],
    ),
    ("mysql", &MYSQL_PATCHABLE),
    ("mongodb", &MONGODB_PATCHABLE),
    ("pubsub", &super::gcp::PUBSUB_PATCHABLE),
];

/// The one classification of a changed field (a diff path such as `source.kafka.brokers`),
/// and why when it is not in place.
pub(crate) fn class_of(path: &str) -> (Class, &'static str) {
    let parts = members(path);
    match parts.as_slice() {
        ["name", ..]
        | ["fieldMappings", ..]
        | ["settings", ..]
        | ["destination", "columns", ..] => (Class::InPlace, ""),
        ["destination", ..] => (
            Class::Replace,
            "forces replacement: the destination table is fixed when the pipe is created",
        ),
        ["source", "bigquery", ..] => (Class::Replace, super::gcp::BIGQUERY_REPLACES),
        [
            "source",
            "postgres" | "mysql" | "mongodb",
            "tableMappings",
            ..,
        ] => (
            Class::NeedsPause,
            "needs a pause: table mappings change only while the pipe is paused",
        ),
        ["source", kind, "settings", setting, ..] if patch_settings(kind).contains(setting) => {
            (Class::InPlace, "")
        }
        ["source", kind, member, ..]
            if PATCHABLE_SOURCE
                .iter()
                .any(|(k, members)| k == kind && members.contains(member)) =>
        {
            (Class::InPlace, "")
        }
        ["source", _, _, ..] => (
            Class::Replace,
            "forces replacement: the server takes no change of it once the pipe exists",
        ),
        _ => (
            Class::Replace,
            "forces replacement: a pipe's source kind cannot change",
        ),
    }
}

/// The `PATCH` body of a [`PipeOp::Lifecycle`] from its change: the in-place fields as
/// [`patch_body`] writes them, and the postgres table mappings as the deltas the document's
/// PATCH takes (an existing mapping cannot be edited: a changed one is removed and added
/// again). Empty when only the state changes. The planner builds it, the saved-plan check
/// builds it again.
pub(crate) fn lifecycle_body<'a>(
    before: &Value,
    after: &Value,
    paths: impl IntoIterator<Item = &'a str>,
) -> Value {
    let mut in_place = Vec::new();
    let mut mappings = false;
    for path in paths {
        match class_of(path).0 {
            Class::NeedsPause => mappings = true,
            Class::InPlace if path != "state" => in_place.push(path),
            Class::InPlace | Class::Replace => {}
        }
    }
    let mut body = patch_body(after, in_place);
    if !mappings {
        return body;
    }
    mapping_deltas(&mut body, before, after);
    complete(&mut body, after);
    body
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The table is the document's PATCH schemas, credentials and table-mapping edits aside.
    #[test]
    fn the_patchable_table_is_the_documents_patch_schemas() {
        let Some(document) = crate::api::reference::cloud_document() else {
            return;
        };
        let schemas = &document["components"]["schemas"];
        let not_fields = [
            "credentials",
            "accessKey",
            "connectionString",
            "serviceAccountKey",
            "settings",
            "tableMappingsToAdd",
            "tableMappingsToRemove",
        ];
        for (kind, schema) in [
            ("kafka", "ClickPipePatchKafkaSource"),
            ("objectStorage", "ClickPipePatchObjectStorageSource"),
            ("kinesis", "ClickPipePatchKinesisSource"),
            ("postgres", "ClickPipePatchPostgresSource"),
            ("mysql", "ClickPipePatchMySQLSource"),
            ("mongodb", "ClickPipePatchMongoDBSource"),
            ("pubsub", "ClickPipePatchPubSubSource"),
        ] {
            let mut theirs: Vec<&str> = schemas[schema]["properties"]
                .as_object()
                .unwrap()
                .keys()
                .map(String::as_str)
                .filter(|k| !not_fields.contains(k))
                .collect();
            let mut ours: Vec<&str> = PATCHABLE_SOURCE
                .iter()
                .find(|(k, _)| *k == kind)
                .unwrap()
                .1
                .to_vec();
            theirs.sort_unstable();
            ours.sort_unstable();
            assert_eq!(ours, theirs, "{kind}");
        }
        for (kind, schema) in [
            ("postgres", "ClickPipePatchPostgresPipeSettings"),
            ("mysql", "ClickPipePatchMySQLPipeSettings"),
            ("mongodb", "ClickPipePatchMongoDBPipeSettings"),
        ] {
            let mut settings: Vec<&str> = schemas[schema]["properties"]
                .as_object()
                .unwrap()
                .keys()
                .map(String::as_str)
                .collect();
            let mut ours = patch_settings(kind).to_vec();
            settings.sort_unstable();
            ours.sort_unstable();
            assert_eq!(settings, ours, "{kind}");
        }
        let top: Vec<&str> = schemas["ClickPipePatchRequest"]["properties"]
            .as_object()
            .unwrap()
            .keys()
            .map(String::as_str)
            .collect();
        assert_eq!(
            top,
            ["destination", "fieldMappings", "name", "settings", "source"]
        );
        let destination: Vec<&str> = schemas["ClickPipePatchDestination"]["properties"]
            .as_object()
            .unwrap()
            .keys()
            .map(String::as_str)
            .collect();
        assert_eq!(destination, ["columns"]);
    }

    #[test]
    fn each_field_is_classed_once() {
        assert_eq!(class_of("source.kafka.brokers").0, Class::Replace);
        assert_eq!(class_of("source.kafka.authentication").0, Class::InPlace);
        assert_eq!(
            class_of("source.postgres.tableMappings").0,
            Class::NeedsPause
        );
        assert_eq!(
            class_of("source.postgres.settings.pullBatchSize").0,
            Class::InPlace
        );
        assert_eq!(
            class_of("source.postgres.settings.replicationMode").0,
            Class::Replace
        );
        assert_eq!(class_of("destination.table").0, Class::Replace);
        assert_eq!(class_of("source.mysql.tableMappings").0, Class::NeedsPause);
        assert_eq!(
            class_of("source.mysql.settings.useCompression").0,
            Class::InPlace
        );
        assert_eq!(class_of("source.mysql.serverId").0, Class::InPlace);
        assert_eq!(class_of("source.mysql.type").0, Class::Replace);
        assert_eq!(
            class_of("source.mongodb.tableMappings").0,
            Class::NeedsPause
        );
        assert_eq!(class_of("source.mongodb.readPreference").0, Class::InPlace);
        assert_eq!(
            class_of("source.mongodb.settings.useJsonNativeFormat").0,
            Class::Replace
        );
        assert_eq!(
            class_of("source.mysql.settings.replicationMechanism").0,
            Class::Replace
        );
        assert_eq!(class_of("destination.columns").0, Class::InPlace);
        assert_eq!(class_of("source.kinesis").0, Class::Replace);
    }

    #[test]
    fn a_lifecycle_body_sends_only_the_mapping_deltas() {
        let before = serde_json::json!({"source": {"postgres": {"tableMappings": [
            {"sourceSchemaName": "public", "sourceTable": "orders", "targetTable": "o", "tableEngine": "ReplacingMergeTree"},
            {"sourceSchemaName": "public", "sourceTable": "users", "targetTable": "u"}]}},
            "state": "running"});
        let after = serde_json::json!({"source": {"postgres": {"tableMappings": [
            {"sourceSchemaName": "public", "sourceTable": "users", "targetTable": "u"},
            {"sourceSchemaName": "public", "sourceTable": "items", "targetTable": "i"}]}},
            "state": "stopped"});
        let body = lifecycle_body(&before, &after, ["source.postgres.tableMappings", "state"]);
        assert_eq!(
            body,
            serde_json::json!({"source": {"postgres": {
                "tableMappingsToRemove": [{"sourceSchemaName": "public", "sourceTable": "orders", "targetTable": "o"}],
                "tableMappingsToAdd": [{"sourceSchemaName": "public", "sourceTable": "items", "targetTable": "i"}]}}})
        );
        assert_eq!(
            lifecycle_body(&before, &after, ["state"]),
            serde_json::json!({})
        );
    }

    #[test]
    fn a_settings_body_keeps_the_live_settings_the_config_does_not_name() {
        let live = serde_json::json!({"db_max_threads": 8, "object_storage_concurrency": 4,
            "db_max_insert_threads": null});
        let body = settings_body(Some(&live), &serde_json::json!({"db_max_threads": 16}));
        assert_eq!(
            body,
            serde_json::json!({"db_max_threads": 16, "object_storage_concurrency": 4})
        );
        assert_eq!(settings_body(None, &Value::Null), serde_json::json!({}));
    }

    #[test]
    fn a_compute_body_writes_only_the_fields_it_is_given() {
        let cpu = Value::from(4000);
        let body = compute_body([("replicaCpuMillicores", Some(&cpu))]);
        assert_eq!(body.replica_cpu_millicores, Some(4000));
        assert_eq!(body.replica_memory_gb, None);
    }

    #[test]
    fn a_patch_body_writes_whole_members() {
        let after = serde_json::json!({"source": {"kafka": {"iamRole": "r", "brokers": "b"}},
            "destination": {"columns": [{"name": "a", "type": "String"}]},
            "settings": {"db_max_threads": 4}});
        let body = patch_body(
            &after,
            [
                "source.kafka.iamRole",
                // A column's member, as the diff names it: the whole array is sent.
                "destination.columns[a].type",
                "settings.db_max_threads",
            ],
        );
        assert_eq!(
            body,
            serde_json::json!({"source": {"kafka": {"iamRole": "r"}},
                "destination": {"columns": [{"name": "a", "type": "String"}]},
                "settings": {"db_max_threads": 4}})
        );
    }
}
