//! Services: planning a service (its backup check, scaling, private endpoints and pipes), its
//! scaling (`scaling`), and what its steps send (`op`).

mod check;
pub(crate) mod op;
mod scaling;

use crate::config::model::ServiceConfig;
use crate::diagnostic::{Code, Diagnostic};
use crate::plan::build::builder::Builder;

impl Builder<'_> {
    /// Plans a service: its backup check, scaling, private endpoints, pipes and the compute of
    /// its database pipes.
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
        self.service_scaling(config, live);
        self.private_endpoints(config, live);
        if self.live.scope.reads_pipes(key) {
            for pipe in config.pipes.values() {
                self.pipe(config, live, pipe);
            }
        }
        if self.live.scope.reads_pipe_compute(key) {
            self.pipe_compute(config, live);
        }
    }
}
