//! Services: scaling and private endpoints.

use std::collections::BTreeSet;

use serde_json::{Value, json};

use super::builder::{Builder, compared};
use crate::api::wire::{PrivateEndpoint, Service};
use crate::config::code::Code;
use crate::config::diagnostic::Diagnostic;
use crate::config::model::{Located, ServiceConfig, ServiceScaling};
use crate::plan::address::Address;
use crate::plan::diff::{self, diff};
use crate::plan::fingerprint;
use crate::plan::kinds::private_endpoint::{self, PrivateEndpointOp};
use crate::plan::kinds::service::{self, ServiceOp};
use crate::plan::model::{Action, Change, Operation};
use crate::plan::normalize;

impl Builder<'_> {
    /// Plans a service: its backup check, scaling, private endpoints and pipes.
    pub(super) fn service(&mut self, config: &ServiceConfig) {
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
            .to_string(),
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
            body: service::scaling_body(
                change
                    .fields
                    .iter()
                    .map(|f| (f.path.as_str(), f.after.as_ref())),
            ),
        });
        self.push(change, Some((operation, Vec::new())));
    }

    /// Plans the private endpoints of a service that lists them: each listed one attached (or
    /// registered), each other attached one detached.
    fn private_endpoints(&mut self, config: &ServiceConfig, live: &Service) {
        let Some(wanted) = &config.private_endpoints else {
            return;
        };
        let attached = normalize::private_endpoint_ids(live);
        for endpoint in wanted {
            let id = &endpoint.id.value;
            let address = Address::PrivateEndpoint {
                service: &config.key.value,
                id,
            }
            .to_string();
            if attached.contains(id) {
                self.push(attached_endpoint(address, id), None);
                continue;
            }
            let after = json!({ "id": id });
            let operation = Operation::PrivateEndpoint(PrivateEndpointOp::Create {
                service_id: live.id.clone(),
                body: PrivateEndpoint {
                    id: id.clone(),
                    description: endpoint
                        .description
                        .as_ref()
                        .map(|d| d.value.clone())
                        .unwrap_or_default(),
                    ..PrivateEndpoint::default()
                },
            });
            let change = Change {
                address,
                action: Action::Create,
                reason: "not registered on the service".into(),
                before: None,
                fields: diff::created(&after),
                after: Some(after),
                fingerprint: None,
                step: None,
                renamed_from: None,
            };
            self.push(change, Some((operation, Vec::new())));
        }
        let listed: BTreeSet<&str> = wanted.iter().map(|e| e.id.value.as_str()).collect();
        for id in attached.iter().filter(|id| !listed.contains(id.as_str())) {
            let address = Address::PrivateEndpoint {
                service: &config.key.value,
                id,
            }
            .to_string();
            let operation = Operation::PrivateEndpoint(PrivateEndpointOp::Detach {
                service_id: live.id.clone(),
                body: private_endpoint::detach_body(id),
            });
            self.push(
                detached_endpoint(address, id),
                Some((operation, Vec::new())),
            );
        }
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

/// A listed endpoint that is attached already.
fn attached_endpoint(address: String, id: &str) -> Change {
    let value = json!({ "id": id });
    Change {
        address,
        action: Action::NoOp,
        reason: "attached to the service".into(),
        before: Some(value.clone()),
        after: Some(value),
        fields: Vec::new(),
        fingerprint: Some(fingerprint::private_endpoint(id)),
        step: None,
        renamed_from: None,
    }
}

/// An attached endpoint the list leaves out.
fn detached_endpoint(address: String, id: &str) -> Change {
    let before = json!({ "id": id });
    Change {
        address,
        action: Action::Delete,
        reason: "attached to the service but not in privateEndpoints".into(),
        fields: diff::deleted(&before),
        before: Some(before),
        after: None,
        fingerprint: Some(fingerprint::private_endpoint(id)),
        step: None,
        renamed_from: None,
    }
}
