//! Services: planning a service (its backup check, scaling, private endpoints and pipes), and
//! what its steps send (`op`).

mod check;
pub(crate) mod op;

use serde_json::Value;

use crate::api::wire::Service;
use crate::config::model::{Located, ServiceConfig, ServiceScaling};
use crate::diagnostic::{Code, Diagnostic};
use crate::plan::address::Address;
use crate::plan::build::builder::{Builder, compared};
use crate::plan::diff::diff;
use crate::plan::fingerprint;
use crate::plan::model::{Action, Operation};
use crate::plan::normalize;
use op::ServiceOp;

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

    /// Plans a service's scaling: the fields the config sets, compared with the live ones.
    fn service_scaling(&mut self, config: &ServiceConfig, live: &Service) {
        let Some(scaling) = &config.scaling else {
            return;
        };
        if let Some(replicas) = &scaling.num_replicas
            && live.is_primary == Some(true)
            && replicas.value < crate::api::limits::SERVICE_REPLICAS_MIN_FIRST_IN_WAREHOUSE
        {
            self.error(
                Diagnostic::error(
                    Code::PlanReplicasFirstInWarehouse,
                    format!(
                        "service `{}` is the first service of its warehouse, which needs at least 2 replicas",
                        config.key.value
                    ),
                    Some(replicas.span),
                )
                .with_label("below 2")
                .with_help("set numReplicas to 2 or more"),
            );
            return;
        }
        let after = desired_scaling(scaling);
        let before = normalize::project(&normalize::service_scaling(live), &after);
        let fields = diff(&before, &after);
        let change = compared(
            Address::ServiceScaling {
                service: &config.key.value,
            }
            .into(),
            before,
            after,
            fields,
            fingerprint::service_scaling(live),
        );
        if change.action == Action::NoOp {
            self.push(change, None);
            return;
        }
        let operation = Operation::Service(ServiceOp::Scaling {
            service_id: live.id.clone(),
            body: op::scaling_body(
                change
                    .fields
                    .iter()
                    .map(|f| (f.path.as_str(), f.after.as_ref())),
            ),
        });
        self.push(change, Some((operation, Vec::new())));
    }
}

/// The scaling the config asks of a service, normalized: only the fields it sets.
fn desired_scaling(scaling: &ServiceScaling) -> Value {
    let mut desired = serde_json::Map::new();
    let mut put = |key: &str, value: Option<Value>| {
        if let Some(value) = value {
            desired.insert(key.to_string(), value);
        }
    };
    let number = |v: &Option<Located<f64>>| v.as_ref().map(|v| normalize::num(v.value));
    put("numReplicas", number(&scaling.num_replicas));
    put(
        "idleScaling",
        scaling.idle_scaling.as_ref().map(|v| Value::Bool(v.value)),
    );
    put("idleTimeoutMinutes", number(&scaling.idle_timeout_minutes));
    put("minTotalMemoryGb", number(&scaling.min_total_memory_gb));
    put("maxTotalMemoryGb", number(&scaling.max_total_memory_gb));
    Value::Object(desired)
}
