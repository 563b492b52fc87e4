//! A live pipe's declared fields against the config: one step for the ones the server changes
//! in place (with the credentials when a rotation is asked), a pause or state change around
//! the ones that need it, and a warning for the ones that would force a replacement.

use serde_json::Value;

use crate::api::wire::{Pipe, Service};
use crate::config::build::{LoadMode, unset_variable};
use crate::config::interpolate::secret_reference;
use crate::config::model::{PipeConfig, PipeSourceConfig, PipeState, ServiceConfig};
use crate::diagnostic::{Code, Diagnostic, Span};
use crate::plan::address::Address;
use crate::plan::build::builder::{Builder, compared};
use crate::plan::diff::{self, diff};
use crate::plan::kind::Live;
use crate::plan::model::{Action, Change, Operation};

use super::op::{self, CREDENTIALS_VERSION, PipeOp};
use super::paused;
use super::project::deep_project;
use super::sends;
use super::settings::completed_diagnostic;

impl Builder<'_> {
    /// Compares the fields the config declares, and its `state:`, with the live pipe: the
    /// ones the server changes in place become one `PATCH`, which carries the credentials when
    /// `credentialsVersion` rises above the one recorded ([`rotation`]); a table-mapping
    /// change pauses the pipe around it and a `state:` that differs starts or stops it
    /// ([`PipeOp::Lifecycle`]); a `Completed` pipe takes none (an error at the line). The ones
    /// that force a replacement of a pipe not declared whole are not planned and warn at their
    /// line, since a plan that said nothing would read as "the pipe is as declared".
    pub(super) fn declared_change(
        &mut self,
        service: &ServiceConfig,
        live_service: &Service,
        config: &PipeConfig,
        live: &Pipe,
    ) {
        let mut declared = self.declared_fields(config);
        // Found under another name (`renamedFrom`, or a hinted rename): renamed in place.
        if let Some(name) = config.name.as_ref().filter(|name| name.value != live.name) {
            declared.insert("name".into(), Value::from(name.value.clone()));
        }
        // Settings are their own step, put whole ([`Builder::settings_change`]).
        declared.remove("settings");
        let mut unplanned: Vec<Unplanned<'_>> = Vec::new();
        let pipe = DeclaredPipe {
            service,
            live_service,
            config,
            live,
            rotation: rotation(live_service, config, live),
        };
        let live_state = live.state.as_deref().unwrap_or_default();
        // A finished one-shot pipe is neither running nor to be started: its state is not
        // compared.
        let state = config.state.as_ref().filter(|_| live_state != "Completed");
        if let Some(state) = state {
            declared.insert("state".into(), Value::from(keep_of(state.value).as_str()));
        }
        // Stopped by converge for a change whose run did not start it again: a pipe without
        // `state:` runs, so it is started.
        let resumed = state.is_none()
            && ["Stopped", "Paused", "Stopping", "Pausing"].contains(&live_state)
            && paused::paused_by_converge(live_service, &live.id);
        if resumed {
            declared.insert("state".into(), Value::from(op::Keep::Running.as_str()));
        }
        let state = state.map(|_| ()).or(resumed.then_some(()));
        if !declared.is_empty() {
            let declares_state = state.is_some();
            if !self.declared_diff(&pipe, declared, declares_state, &mut unplanned) {
                return;
            }
        } else if let Some(rotation) = &pipe.rotation {
            unplanned.push((
                "credentialsVersion".into(),
                rotation.span,
                "the pipe declares no credentials to send",
            ));
        }
        self.warn_unplanned(service, config, &unplanned);
    }

    /// The declared fields against the live pipe: planned as one step when all of them can be,
    /// else each that cannot is added to `unplanned`. `false` when the pipe takes no change at
    /// all (a `Completed` one, reported at the line).
    fn declared_diff(
        &mut self,
        pipe: &DeclaredPipe<'_>,
        declared: serde_json::Map<String, Value>,
        declares_state: bool,
        unplanned: &mut Vec<Unplanned<'_>>,
    ) -> bool {
        let DeclaredPipe { config, live, .. } = *pipe;
        let live_state = live.state.as_deref().unwrap_or_default();
        let mut after = Value::Object(declared);
        let live_value = serde_json::to_value(live).unwrap_or(Value::Null);
        let mut before = deep_project(&live_value, &after);
        if declares_state {
            before["state"] = Value::from(op::shown_state(live_state));
        }
        let mut fields = diff(&before, &after);
        let mut pause = false;
        for field in fields.iter().filter(|f| f.path != "state") {
            let (class, why) = op::class_of(&field.path);
            match class {
                op::Class::InPlace => {}
                op::Class::NeedsPause => pause = true,
                op::Class::Replace => unplanned.push((
                    field.path.clone(),
                    self.declared_span(config, &field.path),
                    why,
                )),
            }
        }
        if live_state == "Completed" && !fields.is_empty() {
            let first = fields
                .first()
                .map_or(config.key.span, |f| self.declared_span(config, &f.path));
            self.error(completed_diagnostic(pipe.service, config, &fields, first));
            return false;
        }
        if pause && !declares_state {
            // Left as it was: the server resumes a pipe after a table-mapping edit, so a
            // stopped one is stopped again.
            let shown = Value::from(op::shown_state(live_state));
            after["state"] = shown.clone();
            before["state"] = shown;
            fields = diff(&before, &after);
        }
        let lifecycle = pause || fields.iter().any(|f| f.path == "state");
        if let Some(rotation) = &pipe.rotation {
            let why = if !unplanned.is_empty() {
                Some("the credentials are rotated once the other fields are planned")
            } else if lifecycle {
                Some("the credentials are rotated once the pause or state change is applied")
            } else {
                None
            };
            if let Some(why) = why {
                unplanned.push(("credentialsVersion".into(), rotation.span, why));
            }
        }
        if unplanned.is_empty() {
            let edit = Edit {
                before,
                after,
                pause,
                lifecycle,
            };
            self.push_declared(pipe, edit, unplanned);
        }
        true
    }

    /// Plans the one step of a pipe's declared fields: a rotation when the credentials are to
    /// be sent (and can be), a lifecycle when it pauses or changes state, else an update.
    fn push_declared(
        &mut self,
        pipe: &DeclaredPipe<'_>,
        edit: Edit,
        unplanned: &mut Vec<Unplanned<'_>>,
    ) {
        let DeclaredPipe {
            service,
            config,
            live,
            ..
        } = *pipe;
        let Edit {
            mut before,
            mut after,
            pause,
            lifecycle,
        } = edit;
        let fields = diff(&before, &after);
        let body = if lifecycle {
            op::lifecycle_body(&before, &after, fields.iter().map(|f| f.path.as_str()))
        } else {
            op::patch_body(&after, fields.iter().map(|f| f.path.as_str()))
        };
        let declares_credentials = config
            .source
            .as_ref()
            .is_some_and(|s| !s.credentials.is_empty());
        let sealed = match (&pipe.rotation, &config.source) {
            (Some(_), Some(source)) if self.credentials_set(source) => sealed(config),
            _ => None,
        };
        if let Some(rotation) = &pipe.rotation
            && !declares_credentials
        {
            unplanned.push((
                "credentialsVersion".into(),
                rotation.span,
                "the pipe declares no credentials to send",
            ));
        }
        if let Some(rotation) = pipe.rotation.as_ref().filter(|_| sealed.is_some()) {
            if let Some(recorded) = rotation.recorded {
                before[CREDENTIALS_VERSION] = Value::from(recorded);
            }
            after[CREDENTIALS_VERSION] = Value::from(rotation.version);
        }
        let keep = op::keep_shown(&after);
        let fields = diff(&before, &after);
        let address = Address::Pipe {
            service: &service.key.value,
            pipe: &config.key.value,
        };
        let mut change = compared(address.into(), before, after, fields, live.fingerprint());
        if pause {
            change.reason = format!(
                "{}; paused for the change, {}",
                change.reason,
                match keep {
                    op::Keep::Running => "resumed after",
                    op::Keep::Stopped => "kept stopped",
                }
            );
        }
        let operation = declared_operation(pipe, &mut change, sealed, body, pause, lifecycle);
        change.reason.push_str(&failed_note(live));
        self.push(
            change,
            operation.map(|op| (Operation::Pipe(op), Vec::new())),
        );
    }

    /// The warning of the declared fields of a live pipe that are not planned.
    fn warn_unplanned(
        &mut self,
        service: &ServiceConfig,
        config: &PipeConfig,
        unplanned: &[Unplanned<'_>],
    ) {
        let Some((_, first, why)) = unplanned.first() else {
            return;
        };
        let names = unplanned
            .iter()
            .map(|(name, _, _)| format!("`{name}`"))
            .collect::<Vec<_>>()
            .join(", ");
        self.error(
            Diagnostic::warning(
                Code::PlanPipeUnplanned,
                format!(
                    "pipe `{}.{}`: {names} not changed on the live pipe; creating, in-place and table-mapping changes, `state`, `scaling` and `absent` are planned",
                    service.key.value, config.key.value
                ),
                Some(*first),
            )
            .with_label(*why)
            .with_help("change these fields in the console for now; the plan shows no difference for them"),
        );
    }

    /// Whether every credential of the source has its value; each unset one is reported at its
    /// reference, as the step planned now sends it.
    pub(super) fn credentials_set(&mut self, source: &PipeSourceConfig) -> bool {
        let mut set = true;
        for credential in &source.credentials {
            if credential.secret.value.is_some() {
                continue;
            }
            set = false;
            let name = secret_reference(&credential.secret.reference).unwrap_or_default();
            self.error(
                unset_variable(LoadMode::Live, name, credential.secret.span).with_help(format!(
                    "export {name}: this plan sends `{}` to the pipe (a create, a replacement or \
                     a rotation); plans that send no credentials run without it",
                    credential.path
                )),
            );
        }
        set
    }

    /// Where the config writes the top-level member a diff path starts with.
    fn declared_span(&self, config: &PipeConfig, path: &str) -> Span {
        let top = path.split(['.', '[']).next().unwrap_or(path);
        let span = match top {
            "source" => config.source.as_ref().map(|s| s.kind.span),
            "destination" => config.destination.as_ref().map(|d| d.span),
            "fieldMappings" => config.field_mappings.as_ref().map(|f| f.span),
            "settings" => config.settings.as_ref().map(|s| s.span),
            _ => None,
        };
        span.unwrap_or(config.key.span)
    }

    /// The members of the pipe the config declares (source, destination, field mappings,
    /// settings) as the API names them; credentials left out.
    pub(super) fn declared_fields(&self, config: &PipeConfig) -> serde_json::Map<String, Value> {
        let mut pipe = serde_json::Map::new();
        if let Some(source) = &config.source {
            let mut kinds = serde_json::Map::new();
            let mut body = source.body.clone();
            // Endpoints named by key are sent by id (`plan/kinds/reverse_endpoint.rs`).
            self.endpoint_ids(&mut body);
            kinds.insert(source.kind.value.as_str().into(), body);
            pipe.insert("source".into(), Value::Object(kinds));
        }
        for (member, value) in [
            ("destination", &config.destination),
            ("fieldMappings", &config.field_mappings),
            ("settings", &config.settings),
        ] {
            if let Some(value) = value {
                pipe.insert(member.into(), value.value.clone());
            }
        }
        pipe
    }
}

/// A declared field of a live pipe that is not planned: its name, where it is declared and
/// why it is not planned.
type Unplanned<'a> = (String, Span, &'a str);

/// A live pipe whose declared fields are compared, with what the comparison needs of it.
struct DeclaredPipe<'a> {
    service: &'a ServiceConfig,
    live_service: &'a Service,
    config: &'a PipeConfig,
    live: &'a Pipe,
    rotation: Option<Rotation>,
}

/// What a declared change of a live pipe turns `before` into, and how it is sent.
struct Edit {
    before: Value,
    after: Value,
    /// The pipe is stopped around the `PATCH` (table mappings).
    pause: bool,
    /// Sent as a [`PipeOp::Lifecycle`] (a pause or a state change).
    lifecycle: bool,
}

/// The operation of a pipe's declared change: a rotation when its credentials are `sealed`,
/// none for a no-op, a lifecycle when it pauses or changes state, else an update.
fn declared_operation(
    pipe: &DeclaredPipe<'_>,
    change: &mut Change,
    sealed: Option<(String, Vec<op::SealedCredential>)>,
    body: Value,
    pause: bool,
    lifecycle: bool,
) -> Option<PipeOp> {
    let DeclaredPipe {
        live_service, live, ..
    } = *pipe;
    match (&pipe.rotation, sealed) {
        (Some(rotation), Some((salt, credentials))) => {
            change.reason = rotated_reason(change, rotation.version);
            if let Some(source) = &pipe.config.source {
                change.reason.push_str(&credentials_note(source));
            }
            let paths = change
                .fields
                .iter()
                .map(|f| f.path.as_str())
                .filter(|path| *path != CREDENTIALS_VERSION);
            let body = op::rotation_body(&after_shown(change), paths);
            Some(PipeOp::Rotate {
                service_id: live_service.id.clone(),
                pipe_id: live.id.clone(),
                version: rotation.version,
                recorded: rotation.recorded,
                body,
                salt,
                credentials,
            })
        }
        _ if change.action == Action::NoOp => None,
        _ if lifecycle => Some(PipeOp::Lifecycle {
            service_id: live_service.id.clone(),
            pipe_id: live.id.clone(),
            name: live.name.clone(),
            body,
            pause,
            keep: op::keep_shown(change.after.as_ref().unwrap_or(&Value::Null)),
        }),
        _ => Some(PipeOp::Update {
            service_id: live_service.id.clone(),
            pipe_id: live.id.clone(),
            body,
        }),
    }
}

/// A rotation the config asks: its `credentialsVersion` is above the one last sent.
struct Rotation {
    /// The version declared.
    version: i64,
    /// The version recorded on the service for this pipe, if any.
    recorded: Option<i64>,
    /// Where `credentialsVersion` is written.
    span: Span,
}

/// Whether the config rotates a live pipe's credentials ([`rotation`]).
pub(super) fn rotates(live_service: &Service, config: &PipeConfig, live: &Pipe) -> bool {
    rotation(live_service, config, live).is_some()
}

/// The rotation of a live pipe, when the declared `credentialsVersion` is above the one recorded
/// on its service ([`op::version_tag`]); a pipe with none recorded has never been sent
/// credentials by converge, so a declared version sends them once.
fn rotation(live_service: &Service, config: &PipeConfig, live: &Pipe) -> Option<Rotation> {
    let declared = config.credentials_version.as_ref()?;
    let key = op::version_tag(&live.id);
    let recorded = live_service
        .tags
        .iter()
        .find(|tag| tag.key == key)
        .and_then(|tag| tag.value.as_deref()?.parse::<i64>().ok());
    if recorded.is_some_and(|recorded| recorded >= declared.value) {
        return None;
    }
    Some(Rotation {
        version: declared.value,
        recorded,
        span: declared.span,
    })
}

/// The plan's salt and each credential sealed with it; `None` when a value is not at hand
/// (a plan is not made then: the unset variable is an error of the config).
fn sealed(config: &PipeConfig) -> Option<(String, Vec<op::SealedCredential>)> {
    let source = config.source.as_ref()?;
    if source.credentials.is_empty() {
        return None;
    }
    let salt = op::new_salt();
    let credentials = source
        .credentials
        .iter()
        .map(|c| {
            Some(op::SealedCredential {
                path: c.path.to_string(),
                reference: c.secret.reference.clone(),
                fingerprint: op::fingerprint_of(&salt, c.secret.value.as_deref()?),
            })
        })
        .collect::<Option<Vec<_>>>()?;
    Some((salt, credentials))
}

/// The desired values a change shows.
fn after_shown(change: &Change) -> Value {
    change.after.clone().unwrap_or(Value::Null)
}

/// What a rotation's change says: the other fields that differ, then the rotation.
fn rotated_reason(change: &Change, version: i64) -> String {
    let others: Vec<_> = change
        .fields
        .iter()
        .filter(|f| f.path != CREDENTIALS_VERSION)
        .cloned()
        .collect();
    let rotated = format!("credentials rotated, version {version}");
    if others.is_empty() {
        rotated
    } else {
        format!("{}; {rotated}", diff::reason(&others))
    }
}

/// Whether the config asks the pipe `state: stopped`: a pipe it creates is stopped right after.
pub(super) fn declared_stopped(config: &PipeConfig) -> bool {
    config
        .state
        .as_ref()
        .is_some_and(|state| keep_of(state.value) == op::Keep::Stopped)
}

/// The state a declared `state:` keeps the pipe in.
fn keep_of(state: PipeState) -> op::Keep {
    match state {
        PipeState::Running => op::Keep::Running,
        PipeState::Stopped => op::Keep::Stopped,
    }
}

/// What a change's reason adds of a live pipe that failed: it is shown with its state.
pub(super) fn failed_note(live: &Pipe) -> String {
    match live.state.as_deref() {
        Some(state @ ("Failed" | "InternalError")) => format!("; the live pipe is `{state}`"),
        _ => String::new(),
    }
}

/// What a change that sends the source's credentials adds to its reason ([`sends::note`]).
pub(super) fn credentials_note(source: &crate::config::model::PipeSourceConfig) -> String {
    sends::note(
        source
            .credentials
            .iter()
            .map(|c| (c.path, c.secret.reference.as_str())),
    )
}

/// Where each credential of the source goes and the reference it is read from when sent.
pub(super) fn credential_refs(
    source: &crate::config::model::PipeSourceConfig,
) -> Vec<op::CredentialRef> {
    source
        .credentials
        .iter()
        .map(|c| op::CredentialRef {
            path: c.path.to_string(),
            reference: c.secret.reference.clone(),
        })
        .collect()
}
