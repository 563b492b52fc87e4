//! Pipes: scaling, and pipes marked `absent`.

pub(crate) mod op;

use serde_json::Value;

use crate::api::wire::{Pipe, Service, SourceKind};
use crate::config::model::{PipeConfig, PipeScalingConfig, ServiceConfig};
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
            .and_then(|pipes| pipes.iter().find(|p| p.id == config.id.value));
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
            self.error(
                Diagnostic::error(
                    Code::PlanPipeNotFound,
                    format!(
                        "pipe `{}` ({}) does not exist on service `{}`",
                        config.key.value, config.id.value, service.key.value
                    ),
                    Some(config.id.span),
                )
                .with_label("no pipe with this id on the service")
                .with_help("check the pipe id, or mark the pipe `absent: true` if it was removed"),
            );
            return;
        };
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
            "{} pipes are not scaled per pipe; remove `scaling` from this pipe",
            kind.as_str()
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
