//! Reverse private endpoints of a service's pipes: planning the endpoints a service declares
//! (each created when its service lacks one of its description, deleted when marked
//! `absent`), the ids the service's kafka pipes name them by, and what those steps send
//! (`op`). The cloud changes no member of an endpoint (the document has create and delete
//! only): a declared member the live endpoint differs in is refused at its line.

mod check;
pub(crate) mod live;
pub(crate) mod op;

use std::collections::BTreeMap;

use serde_json::Value;

use crate::address::{Address, AddressBuf};
use crate::api::wire::{ReversePrivateEndpoint, Service};
use crate::config::model::{ReverseEndpointConfig, ServiceConfig};
use crate::diagnostic::{Code, Diagnostic};
use crate::plan::build::builder::{Builder, PlannedEndpoint, absent_already};
use crate::plan::diff;
use crate::plan::kind::Live;
use crate::plan::model::{Action, Change, Operation};
use crate::plan::target::Key;
use live::{Listed, shown};
use op::ReverseEndpointOp;

impl Builder<'_> {
    /// Plans the reverse private endpoints a service declares, before its pipes (which name
    /// them); what the pipes need of each is kept in `reverse_endpoints`.
    pub(crate) fn reverse_endpoints(&mut self, config: &ServiceConfig, live: &Service) {
        self.reverse_endpoints = BTreeMap::new();
        for endpoint in config.reverse_endpoints.values() {
            let address: AddressBuf = Address::ReverseEndpoint {
                service: &config.key.value,
                endpoint: &endpoint.key.value,
            }
            .into();
            let key = Key::Name(&endpoint.spec.description);
            let found = live::find(self.live, &live.id, key);
            let planned = match (endpoint.absent, found) {
                (true, found) => {
                    self.absent_endpoint(address, &live.id, found);
                    continue;
                }
                (false, Some(found)) => {
                    self.kept_endpoint(address, endpoint, found);
                    PlannedEndpoint {
                        id: found.id.clone(),
                        created: None,
                    }
                }
                (false, None) => PlannedEndpoint {
                    id: live::placeholder(&endpoint.spec.description),
                    created: self.create_endpoint(address, &live.id, endpoint),
                },
            };
            self.reverse_endpoints
                .insert(endpoint.key.value.clone(), planned);
        }
    }

    /// A kafka source body as sent: its `reversePrivateEndpoints` keys replaced by
    /// `reversePrivateEndpointIds` (the config rules refused a key the service does not
    /// declare).
    pub(crate) fn endpoint_ids(&self, body: &mut Value) {
        let Some(map) = body.as_object_mut() else {
            return;
        };
        let Some(Value::Array(keys)) = map.remove("reversePrivateEndpoints") else {
            return;
        };
        let ids = keys
            .iter()
            .filter_map(Value::as_str)
            .filter_map(|key| self.reverse_endpoints.get(key))
            .map(|planned| Value::from(planned.id.clone()))
            .collect();
        map.insert("reversePrivateEndpointIds".into(), Value::Array(ids));
    }

    /// Makes each step of a pipe that names an endpoint this plan creates (from step `first`
    /// on) wait for its create, which waits until the endpoint is `Ready`.
    pub(crate) fn endpoint_dependencies(&mut self, config: &ServiceConfig, first: usize) {
        for step in self.plan.steps.iter_mut().skip(first) {
            let Some((_, pipe)) = step.address.view().config_pipe() else {
                continue;
            };
            let named = config
                .pipes
                .get(pipe)
                .and_then(|p| p.source.as_ref())
                .and_then(|s| s.body.get("reversePrivateEndpoints"))
                .and_then(Value::as_array);
            for key in named.into_iter().flatten().filter_map(Value::as_str) {
                let created = self.reverse_endpoints.get(key).and_then(|p| p.created);
                if let Some(created) = created.filter(|c| !step.depends_on.contains(c)) {
                    step.depends_on.push(created);
                }
            }
        }
    }

    /// An endpoint the service lacks: created, and waited for until `Ready`.
    fn create_endpoint(
        &mut self,
        address: AddressBuf,
        service_id: &str,
        endpoint: &ReverseEndpointConfig,
    ) -> Option<usize> {
        let after = shown(None, &endpoint.spec);
        let operation = Operation::ReverseEndpoint(ReverseEndpointOp::Create {
            service_id: service_id.to_string(),
            body: live::normalized(&endpoint.spec),
        });
        let change = Change {
            address,
            action: Action::Create,
            reason: "declared, the service has no endpoint of its description".into(),
            fields: diff::created(&after),
            before: None,
            after: Some(after),
            fingerprint: None,
            step: None,
            renamed_from: None,
        };
        self.push(change, Some((operation, Vec::new())))
    }

    /// An endpoint the service has: no change, or a member the cloud cannot change refused at
    /// its line.
    fn kept_endpoint(
        &mut self,
        address: AddressBuf,
        endpoint: &ReverseEndpointConfig,
        found: &ReversePrivateEndpoint,
    ) {
        let before = Listed(found).fingerprinted();
        let after = shown(Some(&found.id), &endpoint.spec);
        let changed = diff::diff(&before, &after);
        if let Some(first) = changed.first() {
            let member = first.path.split(['.', '[']).next().unwrap_or_default();
            self.error(
                Diagnostic::error(
                    Code::PlanReverseEndpointChanged,
                    format!(
                        "reverse private endpoint `{}` differs from the live one ({}) in `{}`, \
                         which the cloud cannot change: the document has no update for a \
                         reverse private endpoint, only create and delete",
                        endpoint.key.value, found.id, first.path
                    ),
                    Some(endpoint.span_of(member)),
                )
                .with_label("differs from the live endpoint")
                .with_help(
                    "declare a new endpoint under another key and description, point the pipes \
                     at it, and mark this one `absent: true`; or write the live value",
                ),
            );
            return;
        }
        let change = Change {
            address,
            action: Action::NoOp,
            reason: format!(
                "exists ({})",
                found.status.as_deref().unwrap_or("status unknown")
            ),
            fields: Vec::new(),
            before: Some(before.clone()),
            after: Some(before),
            fingerprint: Some(Listed(found).fingerprint()),
            step: None,
            renamed_from: None,
        };
        self.push(change, None);
    }

    /// An endpoint marked `absent`: deleted when it exists (with `--allow-destroy`).
    fn absent_endpoint(
        &mut self,
        address: AddressBuf,
        service_id: &str,
        found: Option<&ReversePrivateEndpoint>,
    ) {
        let Some(found) = found else {
            self.push(absent_already(address), None);
            return;
        };
        let before = Listed(found).fingerprinted();
        let operation = Operation::ReverseEndpoint(ReverseEndpointOp::Delete {
            service_id: service_id.to_string(),
            endpoint_id: found.id.clone(),
        });
        let change = Change {
            address,
            action: Action::Delete,
            reason: "marked `absent: true` but exists".into(),
            fields: diff::deleted(&before),
            before: Some(before),
            after: None,
            fingerprint: Some(Listed(found).fingerprint()),
            step: None,
            renamed_from: None,
        };
        self.push(change, Some((operation, Vec::new())));
    }
}
