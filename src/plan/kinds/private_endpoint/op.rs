//! Private endpoints: what a step that registers or detaches one sends.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::address::Address;
use crate::api::wire::{AddRemove, PrivateEndpoint, ServicePatch};
use crate::live::LiveState;
use crate::plan::kind::{Kind, Shows};
use crate::plan::target::{Effect, Name, Target};

/// A private endpoint operation.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "op", rename_all_fields = "camelCase")]
pub enum PrivateEndpointOp {
    /// `POST /services/{serviceId}/privateEndpoint`.
    #[serde(rename = "private-endpoint-create")]
    Create {
        /// Service id.
        service_id: String,
        /// Endpoint id and description.
        body: PrivateEndpoint,
    },
    /// `PATCH /services/{serviceId}` with `privateEndpointIds.remove` (needs `--allow-destroy`).
    #[serde(rename = "private-endpoint-detach")]
    Detach {
        /// Service id.
        service_id: String,
        /// `{"privateEndpointIds": {"remove": [id]}}`.
        body: ServicePatch,
    },
}

impl PrivateEndpointOp {
    /// The service and the endpoint id it registers or detaches.
    fn object(&self) -> (&str, &str) {
        match self {
            PrivateEndpointOp::Create { service_id, body } => (service_id, &body.id),
            PrivateEndpointOp::Detach { service_id, body } => (service_id, detached(body)),
        }
    }
}

/// Shown as the saved plan stores it.
impl Shows for PrivateEndpointOp {}

impl Kind for PrivateEndpointOp {
    /// The object it touches.
    fn target(&self) -> Target<'_> {
        let (service_id, id) = self.object();
        Target::PrivateEndpoint { service_id, id }
    }

    /// Its endpoint, as `live` has it attached.
    fn current(&self, live: &LiveState) -> Option<Value> {
        let (service_id, id) = self.object();
        super::live::current(live, service_id, id)
    }

    /// What it does.
    fn effect(&self) -> Effect {
        match self {
            PrivateEndpointOp::Create { .. } => Effect::Create,
            PrivateEndpointOp::Detach { .. } => Effect::Delete,
        }
    }

    /// Whether it carries out a change at `address`: the endpoint of its id.
    fn fits(&self, address: &Address<'_>) -> bool {
        let (_, wanted) = self.object();
        matches!(address, Address::PrivateEndpoint { id, .. } if *id == wanted)
    }

    /// What it is called.
    fn name(&self) -> Name {
        match self {
            PrivateEndpointOp::Create { .. } => Name {
                op: "private-endpoint-create",
                verb: "register",
                object: "private endpoint",
            },
            PrivateEndpointOp::Detach { .. } => Name {
                op: "private-endpoint-detach",
                verb: "detach",
                object: "private endpoint",
            },
        }
    }
}

/// The endpoint a detach removes (the first listed; the planner lists one); empty when none.
fn detached(body: &ServicePatch) -> &str {
    body.private_endpoint_ids
        .as_ref()
        .and_then(|ids| ids.remove.first())
        .map_or("", String::as_str)
}

/// The body that detaches endpoint `id` from its service: the planner sends it, the saved-plan
/// check builds it again from the change and compares.
pub(crate) fn detach_body(id: &str) -> ServicePatch {
    ServicePatch {
        private_endpoint_ids: Some(AddRemove {
            add: Vec::new(),
            remove: vec![id.to_string()],
        }),
        ..ServicePatch::default()
    }
}
