//! Pipes: created when declared whole and missing, compared field by field when live,
//! scaling, settings, and pipes marked `absent`.

pub(crate) mod op;

use serde_json::Value;

use crate::api::wire::{Pipe, Service, SourceKind};
use crate::config::model::{PipeConfig, PipeScalingConfig, PipeState, ServiceConfig};
use crate::diagnostic::{Code, Diagnostic, Span};
use crate::plan::address::Address;
use crate::plan::build::builder::{Builder, compared};
use crate::plan::diff::{self, diff};
use crate::plan::fingerprint;
use crate::plan::model::{Action, Change, Operation};
use crate::plan::normalize;
use op::PipeOp;

impl Builder<'_> {
    /// Plans one config pipe: its delete (marked `absent`) or its scaling.
    pub(crate) fn pipe(
        &mut self,
        service: &ServiceConfig,
        live_service: &Service,
        config: &PipeConfig,
    ) {
        let live = self
            .live
            .pipes
            .get(&live_service.id)
            .and_then(|pipes| pipes.iter().find(|p| config.is(&p.id, &p.name)));
        if config.absent {
            let address = Address::Pipe {
                service: &service.key.value,
                pipe: &config.key.value,
            }
            .to_string();
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
            self.error(
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
                }),
            );
            return;
        };
        if self.replacement(service, live_service, config, pipe) {
            return;
        }
        self.declared_change(service, live_service, config, pipe);
        self.settings_change(service, live_service, config, pipe);
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
            .to_string(),
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
            .find(|((class, _), _)| *class == op::Class::Replace);
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
        let before = deep_project(&live_value, &after);
        let fields = diff(&before, &after);
        let operation = Operation::Pipe(PipeOp::Replace {
            service_id: live_service.id.clone(),
            pipe_id: live.id.clone(),
            name: name.value.clone(),
            body: after.clone(),
            credentials: credential_refs(source),
        });
        self.push(
            Change {
                address: Address::Pipe {
                    service: &service.key.value,
                    pipe: &config.key.value,
                }
                .to_string(),
                action: Action::Replace,
                reason: format!("`{path}` {why}; ingestion restarts"),
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

    /// Compares the fields the config declares with the live pipe: the ones the server
    /// changes in place become one `PATCH`; the ones that need a pause or a replacement, and
    /// `state` and `credentialsVersion`, are not planned yet and warn at their line, since a
    /// plan that said nothing would read as "the pipe is as declared".
    fn declared_change(
        &mut self,
        service: &ServiceConfig,
        live_service: &Service,
        config: &PipeConfig,
        live: &Pipe,
    ) {
        let mut declared = self.declared_fields(config);
        // Settings are their own step, put whole ([`Builder::settings_change`]).
        declared.remove("settings");
        let mut unplanned: Vec<(String, Span, &str)> = Vec::new();
        if !declared.is_empty() {
            let after = Value::Object(declared);
            let live_value = serde_json::to_value(live).unwrap_or(Value::Null);
            let before = deep_project(&live_value, &after);
            let fields = diff(&before, &after);
            for field in &fields {
                let (class, why) = op::class_of(&field.path);
                if class != op::Class::InPlace {
                    unplanned.push((
                        field.path.clone(),
                        self.declared_span(config, &field.path),
                        why,
                    ));
                }
            }
            if unplanned.is_empty() {
                let body = op::patch_body(&after, fields.iter().map(|f| f.path.as_str()));
                let change = compared(
                    Address::Pipe {
                        service: &service.key.value,
                        pipe: &config.key.value,
                    }
                    .to_string(),
                    before,
                    after,
                    fields,
                    fingerprint::pipe(live),
                );
                let operation = (change.action != Action::NoOp).then(|| {
                    (
                        Operation::Pipe(PipeOp::Update {
                            service_id: live_service.id.clone(),
                            pipe_id: live.id.clone(),
                            body,
                        }),
                        Vec::new(),
                    )
                });
                self.push(change, operation);
            }
        }
        let live_state = live.state.as_deref().unwrap_or_default();
        if let Some(state) = &config.state {
            let running = matches!(live_state, "Running" | "Provisioning" | "Modifying");
            if (state.value == PipeState::Running) != running {
                unplanned.push((
                    "state".into(),
                    state.span,
                    "starting and stopping are not planned yet",
                ));
            }
        }
        if let Some(version) = &config.credentials_version {
            unplanned.push((
                "credentialsVersion".into(),
                version.span,
                "rotating credentials is not planned yet",
            ));
        }
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
                    "pipe `{}.{}`: {names} not changed on the live pipe; creating, in-place changes, `scaling` and `absent` are planned",
                    service.key.value, config.key.value
                ),
                Some(*first),
            )
            .with_label(*why)
            .with_help("change these fields in the console for now; the plan shows no difference for them"),
        );
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
        let operation = Operation::Pipe(PipeOp::Create {
            service_id: live_service.id.clone(),
            name: name.value.clone(),
            body: after.clone(),
            credentials: credential_refs(source),
        });
        self.push(
            Change {
                address: Address::Pipe {
                    service: &service.key.value,
                    pipe: &config.key.value,
                }
                .to_string(),
                action: Action::Create,
                reason: "declared, does not exist".into(),
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
    fn absent_pipe(&mut self, address: String, live_service: &Service, live: Option<&Pipe>) {
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
        });
        self.push(
            Change {
                address,
                action: Action::Delete,
                reason: "marked `absent: true` but exists".into(),
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

impl Builder<'_> {
    /// Compares the settings the config declares with the live pipe's: when one differs, a
    /// `PUT .../settings` of the whole map ([`op::settings_body`]) at `pipe.K.P.settings`; the
    /// settings the config does not name are sent back as they are. Nothing when they agree.
    fn settings_change(
        &mut self,
        service: &ServiceConfig,
        live_service: &Service,
        config: &PipeConfig,
        live: &Pipe,
    ) {
        let Some(declared) = &config.settings else {
            return;
        };
        let before = op::settings_body(live.settings.as_ref(), &Value::Null);
        let after = op::settings_body(live.settings.as_ref(), &declared.value);
        let fields = diff(&before, &after);
        // Settings as declared are part of the pipe, which its own change counts unchanged.
        if fields.is_empty() {
            return;
        }
        let change = compared(
            Address::PipeSettings {
                service: &service.key.value,
                pipe: &config.key.value,
            }
            .to_string(),
            before,
            after.clone(),
            fields,
            fingerprint::pipe(live),
        );
        let operation = Operation::Pipe(PipeOp::Settings {
            service_id: live_service.id.clone(),
            pipe_id: live.id.clone(),
            body: after,
        });
        self.push(change, Some((operation, Vec::new())));
    }
}

impl Builder<'_> {
    /// Plans `services.<key>.pipeCompute`: the members written, compared with the compute read
    /// from `.../pipesCdcScaling`, at `service.<key>.pipe_compute`; a `PATCH` of those that
    /// differ.
    pub(crate) fn pipe_compute(&mut self, service: &ServiceConfig, live_service: &Service) {
        let Some(compute) = &service.pipe_compute else {
            return;
        };
        // Not read (its failure is reported by the reader): nothing to compare with.
        let Some(live) = self.live.pipe_compute.get(&live_service.id) else {
            return;
        };
        let mut after = serde_json::Map::new();
        if let Some(cpu) = &compute.replica_cpu_millicores {
            after.insert("replicaCpuMillicores".into(), Value::from(cpu.value));
        }
        if let Some(memory) = &compute.replica_memory_gb {
            after.insert("replicaMemoryGb".into(), normalize::num(memory.value));
        }
        let after = Value::Object(after);
        let before = normalize::project(&normalize::pipe_scaling(live), &after);
        let fields = diff(&before, &after);
        let change = compared(
            Address::PipeCompute {
                service: &service.key.value,
            }
            .to_string(),
            before,
            after,
            fields,
            fingerprint::pipe_compute(live),
        );
        let operation = (change.action != Action::NoOp).then(|| {
            let body = op::compute_body(
                change
                    .fields
                    .iter()
                    .map(|f| (f.path.as_str(), f.after.as_ref())),
            );
            (
                Operation::Pipe(PipeOp::Compute {
                    service_id: live_service.id.clone(),
                    body,
                }),
                Vec::new(),
            )
        });
        self.push(change, operation);
    }
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

/// Keeps of `live` what `declared` names, at every depth (arrays element by element): the
/// server adds defaults the config need not write.
fn deep_project(live: &Value, declared: &Value) -> Value {
    match (live, declared) {
        (Value::Object(have), Value::Object(want)) => Value::Object(
            have.iter()
                .filter_map(|(k, v)| Some((k.clone(), deep_project(v, want.get(k)?))))
                .collect(),
        ),
        (Value::Array(have), Value::Array(want)) if have.len() == want.len() => Value::Array(
            have.iter()
                .zip(want)
                .map(|(v, w)| deep_project(v, w))
                .collect(),
        ),
        _ => live.clone(),
    }
}
