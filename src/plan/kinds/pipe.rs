//! Pipes: created when declared whole and missing, compared field by field when live,
//! scaling, settings, and pipes marked `absent`.

mod bodies;
mod check;
mod class;
mod copies;
mod credentials;
mod database;
mod declared;
use declared::{credential_refs, credentials_note, declared_stopped, failed_note, rotates};
mod gcp;
pub(crate) mod live;
pub(crate) mod op;
mod patch;
pub(crate) mod paused;
mod project;
mod rename;
mod resync;
mod sends;
mod settings;

use crate::plan::kind::Live;
pub(crate) use project::{deep_project, made_as};
pub(crate) use resync::resync_plan;

use crate::address::AddressBuf;
use serde_json::Value;

use crate::api::wire::{Pipe, Service, SourceKind};
use crate::config::model::{PipeConfig, PipeScalingConfig, ServiceConfig};
use crate::diagnostic::{Code, Diagnostic, Span};
use crate::plan::address::Address;
use crate::plan::build::builder::{Builder, absent_already, compared};
use crate::plan::diff::{self, diff};
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
        let live_scaling = live::pipe_scaling(&pipe.scaling.clone().unwrap_or_default());
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
            pipe.fingerprint(),
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
                let why = gcp::rotation_replaces(live, rotates(live_service, config, live))?;
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
                    credentials_note(source)
                ),
                fields,
                before: Some(before),
                after: Some(after),
                fingerprint: Some(live.fingerprint()),
                step: None,
                renamed_from: None,
            },
            Some((operation, Vec::new())),
        );
        true
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
                reason: format!("{reason}{}", credentials_note(source)),
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
            self.push(absent_already(address), None);
            return;
        };
        let before = live::pipe_identity(pipe);
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
                fingerprint: Some(pipe.fingerprint()),
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
