//! Services: planning a service (its backup check, scaling, settings, state, private endpoints
//! and pipes), its scaling (`scaling`), its settings and state (`settings`), and what its
//! steps send (`op`).

mod check;
pub(crate) mod live;
pub(crate) mod op;
mod scaling;
mod settings;

use crate::config::model::ServiceConfig;
use crate::diagnostic::{Code, Diagnostic};
use crate::plan::build::builder::Builder;

impl Builder<'_> {
    /// Plans a service: its backup check, scaling, settings, state, private endpoints, pipes
    /// and the compute of its database pipes.
    pub(crate) fn service(&mut self, config: &ServiceConfig) {
        let Some(live) = self.live.services.get(&config.id.value) else {
            self.error(
                Diagnostic::error(
                    Code::PlanServiceNotFound,
                    format!(
                        "service `{}` ({}) does not exist in the organization",
                        config.key.value, config.id.value
                    ),
                    Some(config.id.span),
                )
                .with_label("no service with this id")
                .with_help(
                    "check the id in the cloud console, or remove the service from the config",
                ),
            );
            return;
        };
        let key = &config.key.value;
        if self.live.scope.reads_backups(key)
            && let Some(check) = crate::plan::checks::backups(config, self.live, self.now)
        {
            self.plan.checks.push(check);
        }
        let first = self.plan.steps.len();
        let scaling: Vec<usize> = self.service_scaling(config, live).into_iter().collect();
        self.service_settings(config, live);
        // A start comes after the scaling change and before what needs the service running
        // (pipe writes answer 424 otherwise); a stop after everything else of the service.
        let stopping = config
            .settings
            .state
            .as_ref()
            .is_some_and(|s| s.value == "stopped");
        let start = if stopping {
            None
        } else {
            self.service_state(config, live, scaling)
        };
        self.private_endpoints(config, live);
        if self.live.scope.reads_pipes(key) {
            // The endpoints first: the kafka pipes name them, and wait for their creates.
            self.reverse_endpoints(config, live);
            let pipes = self.plan.steps.len();
            for pipe in config.pipes.values() {
                self.pipe(config, live, pipe);
            }
            self.endpoint_dependencies(config, pipes);
        }
        if self.live.scope.reads_pipe_compute(key) {
            self.pipe_compute(config, live);
        }
        if let Some(start) = start {
            for step in self.plan.steps.iter_mut().skip(start + 1) {
                step.depends_on.push(start);
            }
        } else if stopping {
            let before: Vec<usize> = (first..self.plan.steps.len()).collect();
            self.service_state(config, live, before);
        }
    }
}
