//! Pipes: created when declared whole and missing, compared field by field when live,
//! scaling, settings, and pipes marked `absent`.

mod check;
mod copies;
mod database;
mod gcp;
pub(crate) mod op;
mod patch;
pub(crate) mod paused;
mod project;
mod rename;
mod resync;
mod sends;
mod settings;

pub(crate) use project::{deep_project, made_as};
pub(crate) use resync::resync_plan;
use settings::completed_diagnostic;

use crate::address::AddressBuf;
use serde_json::Value;

use crate::api::wire::{Pipe, Service, SourceKind};
use crate::config::build::{LoadMode, unset_variable};
use crate::config::interpolate::secret_reference;
use crate::config::model::{
    PipeConfig, PipeScalingConfig, PipeSourceConfig, PipeState, ServiceConfig,
};
use crate::diagnostic::{Code, Diagnostic, Span};
use crate::plan::address::Address;
use crate::plan::build::builder::{Builder, compared};
use crate::plan::diff::{self, diff};
use crate::plan::fingerprint;
use crate::plan::model::{Action, Change, Operation};
use crate::plan::normalize;
use op::{CREDENTIALS_VERSION, PipeOp};

impl Builder<'_> {
    /// Plans one config pipe: its delete (marked `absent`) or its scaling.
    pub(crate) fn pipe(
        &mut self,
        service: &ServiceConfig,
        live_service: &Service,
        config: &PipeConfig,
    ) {
        let pipes = self.live.pipes.get(&live_service.id);
        let mut live = pipes.and_then(|pipes| pipes.iter().find(|p| config.is(&p.id, &p.name)));
        let listed = pipes.map(Vec::as_slice).unwrap_or_default();
        if live.is_none() && !config.absent {
            live = self.replaced(service, config, listed);
        }
        if live.is_none() && config.id.is_none() {
            live = rename::renamed(config, listed);
        }
        if live.is_none() && config.id.is_none() && !config.absent {
            live = self.hinted_rename(service, config, listed);
        }
        if config.absent {
            let address = Address::Pipe {
                service: &service.key.value,
                pipe: &config.key.value,
            }
            .into();
            self.absent_pipe(address, live_service, live);
            return;
        }
        let Some(pipe) = live else {
            if config.id.is_none()
                && let Some(after) = self.declared(service, config)
            {
                self.create_pipe(service, live_service, config, after);
                return;
            }
            self.error(not_found(service, config));
            return;
        };
        self.pipe_copies(service, live_service, config, (pipe, listed));
        if self.replacement(service, live_service, config, pipe) {
            return;
        }
        self.declared_change(service, live_service, config, pipe);
        self.settings_change(service, live_service, config, pipe);
        self.scaling_change(service, live_service, config, pipe);
    }

    /// A pipe pinned by an `id:` the service no longer has, found again by its name: a
    /// replacement gives the pipe a new id, and the config written before it still names the
    /// old one. Said at the `id:` line with the id to write (`converge export` and
    /// `drift --write` write it); `None` when no single live pipe has the name.
    fn replaced<'l>(
        &mut self,
        service: &ServiceConfig,
        config: &PipeConfig,
        pipes: &'l [Pipe],
    ) -> Option<&'l Pipe> {
        let (id, name) = (config.id.as_ref()?, config.name.as_ref()?);
        let mut named = pipes.iter().filter(|p| p.name == name.value);
        let (found, None) = (named.next()?, named.next()) else {
            return None;
        };
        self.error(
            Diagnostic::warning(
                Code::PlanPipeIdReplaced,
                format!(
                    "pipe `{}.{}` is pinned to id {}, which service `{}` no longer has; the \
                     pipe named `{}` (id {}) is taken for it, as after a replacement",
                    service.key.value,
                    config.key.value,
                    id.value,
                    service.key.value,
                    name.value,
                    found.id
                ),
                Some(id.span),
            )
            .with_label("no pipe with this id; found by its name")
            .with_help(format!(
                "write `id: {}` (`converge drift --write` writes it), or remove the `id:` line to \
                 find the pipe by name",
                found.id
            )),
        );
        Some(found)
    }

    /// Plans a pipe's declared `scaling` against the live pipe's.
    fn scaling_change(
        &mut self,
        service: &ServiceConfig,
        live_service: &Service,
        config: &PipeConfig,
        pipe: &Pipe,
    ) {
        let Some(scaling) = &config.scaling else {
            return;
        };
        let kind = pipe.source.as_ref().and_then(|s| s.kind());
        let Some(after) = self.desired_scaling(service, config, kind, scaling) else {
            return;
        };
        let live_scaling = normalize::pipe_scaling(&pipe.scaling.clone().unwrap_or_default());
        let before = normalize::project(&live_scaling, &after);
        let fields = diff(&before, &after);
        let change = compared(
            Address::PipeScaling {
                service: &service.key.value,
                pipe: &config.key.value,
            }
            .into(),
            before,
            after,
            fields,
            fingerprint::pipe(pipe),
        );
        if change.action == Action::NoOp {
            self.push(change, None);
            return;
        }
        let operation = Operation::Pipe(PipeOp::Scaling {
            service_id: live_service.id.clone(),
            pipe_id: pipe.id.clone(),
            body: op::scaling_body(
                change
                    .fields
                    .iter()
                    .map(|f| (f.path.as_str(), f.after.as_ref())),
            ),
        });
        self.push(change, Some((operation, Vec::new())));
    }

    /// Plans the pipe's replacement when a field the config declares differs from the live
    /// pipe and forces one ([`op::class_of`]), the pipe being declared whole so it can be
    /// created again; returns whether it did (the replacement then writes every other field).
    fn replacement(
        &mut self,
        service: &ServiceConfig,
        live_service: &Service,
        config: &PipeConfig,
        live: &Pipe,
    ) -> bool {
        let declared = Value::Object(self.declared_fields(config));
        let live_value = serde_json::to_value(live).unwrap_or(Value::Null);
        let forcing = diff(&deep_project(&live_value, &declared), &declared)
            .into_iter()
            .map(|field| (op::class_of(&field.path), field.path))
            .find(|((class, _), _)| *class == op::Class::Replace)
            .or_else(|| {
                let rotates = rotation(live_service, config, live).is_some();
                let why = gcp::rotation_replaces(live, rotates)?;
                Some(((op::Class::Replace, why), CREDENTIALS_VERSION.to_string()))
            });
        let Some(((_, why), path)) = forcing else {
            return false;
        };
        let (Some(name), Some(source)) = (&config.name, &config.source) else {
            return false;
        };
        if config.destination.is_none() {
            return false;
        }
        let Some(after) = self.declared(service, config) else {
            // The scaling it asks was reported; nothing else is planned for this pipe.
            return true;
        };
        if !self.credentials_set(source) {
            return true;
        }
        let before = deep_project(&live_value, &after);
        let fields = diff(&before, &after);
        let operation = Operation::Pipe(PipeOp::Replace {
            service_id: live_service.id.clone(),
            pipe_id: live.id.clone(),
            name: name.value.clone(),
            body: after.clone(),
            credentials: credential_refs(source),
            credentials_version: config.credentials_version.as_ref().map(|v| v.value),
            version_tag: op::recorded_tag(live_service, &live.id),
            stopped: declared_stopped(config),
        });
        self.push(
            Change {
                address: Address::Pipe {
                    service: &service.key.value,
                    pipe: &config.key.value,
                }
                .into(),
                action: Action::Replace,
                reason: format!(
                    "`{path}` {why}; ingestion restarts{}{}{}",
                    failed_note(live),
                    if declared_stopped(config) {
                        "; created again stopped"
                    } else {
                        ""
                    },
                    sends(source)
                ),
                fields,
                before: Some(before),
                after: Some(after),
                fingerprint: Some(fingerprint::pipe(live)),
                step: None,
                renamed_from: None,
            },
            Some((operation, Vec::new())),
        );
        true
    }

    /// Compares the fields the config declares, and its `state:`, with the live pipe: the
    /// ones the server changes in place become one `PATCH`, which carries the credentials when
    /// `credentialsVersion` rises above the one recorded ([`rotation`]); a table-mapping
    /// change pauses the pipe around it and a `state:` that differs starts or stops it
    /// ([`PipeOp::Lifecycle`]); a `Completed` pipe takes none (an error at the line). The ones
    /// that force a replacement of a pipe not declared whole are not planned and warn at their
    /// line, since a plan that said nothing would read as "the pipe is as declared".
    fn declared_change(
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
        let mut change = compared(
            address.into(),
            before,
            after,
            fields,
            fingerprint::pipe(live),
        );
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
    fn credentials_set(&mut self, source: &PipeSourceConfig) -> bool {
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
    fn declared_fields(&self, config: &PipeConfig) -> serde_json::Map<String, Value> {
        let mut pipe = serde_json::Map::new();
        if let Some(source) = &config.source {
            let mut kinds = serde_json::Map::new();
            kinds.insert(source.kind.value.as_str().into(), source.body.clone());
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

    /// The whole pipe a create sends, as its change shows it: `None` when the config does not
    /// declare it whole (a name, a source and a destination) or asks scaling its kind does not
    /// take (reported).
    fn declared(&mut self, service: &ServiceConfig, config: &PipeConfig) -> Option<Value> {
        let name = config.name.as_ref()?;
        let source = config.source.as_ref()?;
        config.destination.as_ref()?;
        let mut pipe = self.declared_fields(config);
        pipe.insert("name".into(), Value::from(name.value.clone()));
        if let (Some(samples), Some(Value::Object(kinds))) =
            (source.validate_samples, pipe.get_mut("source"))
        {
            kinds.insert("validateSamples".into(), Value::Bool(samples));
        }
        if let Some(scaling) = &config.scaling {
            let kind = crate::config::pipe_rules::wire_kind(source.kind.value);
            let scaling = self.desired_scaling(service, config, Some(kind), scaling)?;
            if scaling.as_object().is_some_and(|s| !s.is_empty()) {
                pipe.insert("scaling".into(), scaling);
            }
        }
        Some(Value::Object(pipe))
    }

    /// A pipe declared whole that the service lacks: created with its whole body, its
    /// credentials sent from their references.
    fn create_pipe(
        &mut self,
        service: &ServiceConfig,
        live_service: &Service,
        config: &PipeConfig,
        after: Value,
    ) {
        let (Some(name), Some(source)) = (&config.name, &config.source) else {
            return;
        };
        if !self.credentials_set(source) {
            return;
        }
        let operation = Operation::Pipe(PipeOp::Create {
            service_id: live_service.id.clone(),
            name: name.value.clone(),
            body: after.clone(),
            credentials: credential_refs(source),
            credentials_version: config.credentials_version.as_ref().map(|v| v.value),
            stopped: declared_stopped(config),
        });
        let reason = if declared_stopped(config) {
            "declared, does not exist; created stopped"
        } else {
            "declared, does not exist"
        };
        self.push(
            Change {
                address: Address::Pipe {
                    service: &service.key.value,
                    pipe: &config.key.value,
                }
                .into(),
                action: Action::Create,
                reason: format!("{reason}{}", sends(source)),
                fields: diff::created(&after),
                before: None,
                after: Some(after),
                fingerprint: None,
                step: None,
                renamed_from: None,
            },
            Some((operation, Vec::new())),
        );
    }

    /// A pipe marked `absent`: deleted when it exists, else nothing to do.
    fn absent_pipe(&mut self, address: AddressBuf, live_service: &Service, live: Option<&Pipe>) {
        let Some(pipe) = live else {
            self.push(
                Change {
                    address,
                    action: Action::NoOp,
                    reason: "absent, as the config says".into(),
                    before: None,
                    after: None,
                    fields: Vec::new(),
                    fingerprint: None,
                    step: None,
                    renamed_from: None,
                },
                None,
            );
            return;
        };
        let before = normalize::pipe_identity(pipe);
        let operation = Operation::Pipe(PipeOp::Delete {
            service_id: live_service.id.clone(),
            pipe_id: pipe.id.clone(),
            version_tag: op::recorded_tag(live_service, &pipe.id),
        });
        self.push(
            Change {
                address,
                action: Action::Delete,
                reason: format!("marked `absent: true` but exists{}", failed_note(pipe)),
                fields: diff::deleted(&before),
                before: Some(before),
                after: None,
                fingerprint: Some(fingerprint::pipe(pipe)),
                step: None,
                renamed_from: None,
            },
            Some((operation, Vec::new())),
        );
    }

    /// The scaling the config asks of a pipe, normalized; `None` when it sets a field the
    /// pipe's source kind does not scale by (each one reported).
    fn desired_scaling(
        &mut self,
        service: &ServiceConfig,
        config: &PipeConfig,
        kind: Option<SourceKind>,
        scaling: &PipeScalingConfig,
    ) -> Option<Value> {
        let fields: [(&str, Option<(Value, Span)>); 4] = [
            (
                "replicas",
                scaling
                    .replicas
                    .as_ref()
                    .map(|v| (Value::from(v.value), v.span)),
            ),
            (
                "concurrency",
                scaling
                    .concurrency
                    .as_ref()
                    .map(|v| (Value::from(v.value), v.span)),
            ),
            (
                "replicaCpuMillicores",
                scaling
                    .replica_cpu_millicores
                    .as_ref()
                    .map(|v| (Value::from(v.value), v.span)),
            ),
            (
                "replicaMemoryGb",
                scaling
                    .replica_memory_gb
                    .as_ref()
                    .map(|v| (normalize::num(v.value), v.span)),
            ),
        ];
        let mut desired = serde_json::Map::new();
        let mut rejected = false;
        for (name, value) in fields {
            let Some((value, span)) = value else { continue };
            if let Some(kind) = kind
                && !kind.scales(name)
            {
                rejected = true;
                self.error(pipe_field_diagnostic(service, config, kind, name, span));
                continue;
            }
            desired.insert(name.to_string(), value);
        }
        (!rejected).then_some(Value::Object(desired))
    }
}

/// A rotation the config asks: its `credentialsVersion` is above the one last sent.
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
                change.reason.push_str(&sends(source));
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

struct Rotation {
    /// The version declared.
    version: i64,
    /// The version recorded on the service for this pipe, if any.
    recorded: Option<i64>,
    /// Where `credentialsVersion` is written.
    span: Span,
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
fn declared_stopped(config: &PipeConfig) -> bool {
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
fn failed_note(live: &Pipe) -> String {
    match live.state.as_deref() {
        Some(state @ ("Failed" | "InternalError")) => format!("; the live pipe is `{state}`"),
        _ => String::new(),
    }
}

/// What a change that sends the source's credentials adds to its reason ([`sends::note`]).
fn sends(source: &crate::config::model::PipeSourceConfig) -> String {
    sends::note(
        source
            .credentials
            .iter()
            .map(|c| (c.path, c.secret.reference.as_str())),
    )
}

/// Where each credential of the source goes and the reference it is read from when sent.
fn credential_refs(source: &crate::config::model::PipeSourceConfig) -> Vec<op::CredentialRef> {
    source
        .credentials
        .iter()
        .map(|c| op::CredentialRef {
            path: c.path.to_string(),
            reference: c.secret.reference.clone(),
        })
        .collect()
}

fn pipe_field_diagnostic(
    service: &ServiceConfig,
    pipe: &PipeConfig,
    kind: SourceKind,
    field: &str,
    span: Span,
) -> Diagnostic {
    let applicable: Vec<&str> = [
        "replicas",
        "concurrency",
        "replicaCpuMillicores",
        "replicaMemoryGb",
    ]
    .into_iter()
    .filter(|f| kind.scales(f))
    .collect();
    let help = if applicable.is_empty() {
        format!(
            "{} pipes share the compute of their service: set it with `services.{}.pipeCompute`, and remove `scaling` from this pipe",
            kind.as_str(),
            service.key.value
        )
    } else {
        format!(
            "{} pipes scale by {}; remove `{field}`",
            kind.as_str(),
            applicable.join(", ")
        )
    };
    Diagnostic::error(
        Code::PlanPipeScalingField,
        format!(
            "`{field}` does not apply to pipe `{}.{}`, whose source is {}",
            service.key.value,
            pipe.key.value,
            kind.as_str()
        ),
        Some(span),
    )
    .with_label(format!("not a scaling field of {} pipes", kind.as_str()))
    .with_help(help)
}

/// A declared pipe the service does not have (and that is not declared whole to be created).
fn not_found(service: &ServiceConfig, config: &PipeConfig) -> Diagnostic {
    Diagnostic::error(
        Code::PlanPipeNotFound,
        format!(
            "pipe `{}` ({}) does not exist on service `{}`",
            config.key.value,
            config.identity(),
            service.key.value
        ),
        Some(config.identity_span()),
    )
    .with_label(if config.id.is_some() {
        "no pipe with this id on the service"
    } else {
        "no pipe with this name on the service"
    })
    .with_help(if config.id.is_some() {
        "check the pipe id, or mark the pipe `absent: true` if it was removed"
    } else {
        "a pipe is created only when declared whole (`source:`, `destination:`): declare it, check the name, or write the `id:` of an existing pipe to adopt it"
    })
}
