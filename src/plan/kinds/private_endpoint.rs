//! Private endpoints: planning the endpoints a service lists (each attached, or registered;
//! each other attached one detached), and what those steps send (`op`).

mod check;
pub(crate) mod live;
pub(crate) mod op;

use crate::address::AddressBuf;
use crate::plan::kind::Live;
use live::Attached;
use std::collections::BTreeSet;

use serde_json::json;

use crate::api::wire::{PrivateEndpoint, Service};
use crate::config::model::ServiceConfig;
use crate::plan::address::Address;
use crate::plan::build::builder::Builder;
use crate::plan::diff;
use crate::plan::model::{Action, Change, Operation};
use op::PrivateEndpointOp;

impl Builder<'_> {
    /// Plans the private endpoints of a service that lists them: each listed one attached (or
    /// registered), each other attached one detached.
    pub(crate) fn private_endpoints(&mut self, config: &ServiceConfig, live: &Service) {
        let Some(wanted) = &config.private_endpoints else {
            return;
        };
        let attached = live::private_endpoint_ids(live);
        for endpoint in wanted {
            let id = &endpoint.id.value;
            let address = Address::PrivateEndpoint {
                service: &config.key.value,
                id,
            }
            .into();
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
            .into();
            let operation = Operation::PrivateEndpoint(PrivateEndpointOp::Detach {
                service_id: live.id.clone(),
                body: op::detach_body(id),
            });
            self.push(
                detached_endpoint(address, id),
                Some((operation, Vec::new())),
            );
        }
    }
}

/// A listed endpoint that is attached already.
fn attached_endpoint(address: AddressBuf, id: &str) -> Change {
    let value = json!({ "id": id });
    Change {
        address,
        action: Action::NoOp,
        reason: "attached to the service".into(),
        before: Some(value.clone()),
        after: Some(value),
        fields: Vec::new(),
        fingerprint: Some(Attached(id).fingerprint()),
        step: None,
        renamed_from: None,
    }
}

/// An attached endpoint the list leaves out.
fn detached_endpoint(address: AddressBuf, id: &str) -> Change {
    let before = json!({ "id": id });
    Change {
        address,
        action: Action::Delete,
        reason: "attached to the service but not in privateEndpoints".into(),
        fields: diff::deleted(&before),
        before: Some(before),
        after: None,
        fingerprint: Some(Attached(id).fingerprint()),
        step: None,
        renamed_from: None,
    }
}
