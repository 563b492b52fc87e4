//! A pipe's settings (put whole at `pipe.K.P.settings`) and the compute a service's database
//! pipes share (`service.K.pipe_compute`), and the error of a change to a `Completed` pipe.

use crate::plan::kind::Live;
use serde_json::Value;

use super::op::{self, PipeOp};
use crate::api::wire::{CompactJson, Pipe, Service};
use crate::config::model::{PipeConfig, ServiceConfig};
use crate::diagnostic::{Code, Diagnostic, Span};
use crate::plan::address::Address;
use crate::plan::build::builder::{Builder, compared};
use crate::plan::diff::diff;
use crate::plan::model::{Action, Operation};
use crate::plan::normalize;

impl Builder<'_> {
    /// Compares the settings the config declares with the live pipe's: when one differs, a
    /// `PUT .../settings` of the whole map ([`op::settings_body`]) at `pipe.K.P.settings`; the
    /// settings the config does not name are sent back as they are. Nothing when they agree.
    pub(super) fn settings_change(
        &mut self,
        service: &ServiceConfig,
        live_service: &Service,
        config: &PipeConfig,
        live: &Pipe,
    ) {
        let Some(declared) = &config.settings else {
            return;
        };
        let live_settings = live.settings.as_ref().map(CompactJson::value);
        let before = op::settings_body(live_settings.as_ref(), &Value::Null);
        let after = op::settings_body(live_settings.as_ref(), &declared.value);
        let fields = diff(&before, &after);
        // Settings as declared are part of the pipe, which its own change counts unchanged.
        if fields.is_empty() {
            return;
        }
        if live.state.as_deref() == Some("Completed") {
            // A finished one-shot pipe takes no write, settings included.
            let fields = fields
                .into_iter()
                .map(|mut f| {
                    f.path = format!("settings.{}", f.path);
                    f
                })
                .collect::<Vec<_>>();
            self.error(completed_diagnostic(
                service,
                config,
                &fields,
                declared.span,
            ));
            return;
        }
        let change = compared(
            Address::PipeSettings {
                service: &service.key.value,
                pipe: &config.key.value,
            }
            .into(),
            before,
            after.clone(),
            fields,
            live.fingerprint(),
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
        let before = normalize::project(&super::live::pipe_scaling(live), &after);
        let fields = diff(&before, &after);
        let change = compared(
            Address::PipeCompute {
                service: &service.key.value,
            }
            .into(),
            before,
            after,
            fields,
            live.fingerprint(),
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

/// A change declared of a `Completed` pipe, which takes none.
pub(super) fn completed_diagnostic(
    service: &ServiceConfig,
    config: &PipeConfig,
    fields: &[crate::plan::model::FieldChange],
    at: Span,
) -> Diagnostic {
    let names = fields
        .iter()
        .map(|f| format!("`{}`", f.path))
        .collect::<Vec<_>>()
        .join(", ");
    Diagnostic::error(
        Code::PlanPipeCompleted,
        format!(
            "pipe `{}.{}` is `Completed` and takes no change; the config differs from it in {names}",
            service.key.value, config.key.value
        ),
        Some(at),
    )
    .with_label("a finished one-shot pipe cannot be edited, started or stopped")
    .with_help("write it back as it is, mark it `absent: true`, or change a field that forces its replacement (which creates it again)")
}
