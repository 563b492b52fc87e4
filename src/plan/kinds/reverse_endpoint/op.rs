//! Reverse private endpoints: what a step that creates or deletes one sends. The document has
//! no `PATCH` for them, so there is no update.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::address::Address;
use crate::api::wire::ReverseEndpointSpec;
use crate::live::LiveState;
use crate::plan::kind::{Kind, Shows};
use crate::plan::target::{Effect, Key, Name, Target};

/// A reverse private endpoint operation.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "op", rename_all_fields = "camelCase")]
pub enum ReverseEndpointOp {
    /// `POST /services/{serviceId}/pipesReversePrivateEndpoints`, then waits until the
    /// endpoint is `Ready` (the pipes that name it need it so).
    #[serde(rename = "reverse-endpoint-create")]
    Create {
        /// Service id.
        service_id: String,
        /// What it is created with.
        body: ReverseEndpointSpec,
    },
    /// `DELETE .../pipesReversePrivateEndpoints/{id}` (`absent: true`, needs
    /// `--allow-destroy`).
    #[serde(rename = "reverse-endpoint-delete")]
    Delete {
        /// Service id.
        service_id: String,
        /// Endpoint id.
        endpoint_id: String,
    },
}

impl ReverseEndpointOp {
    /// The service, and how the endpoint is found: by the description a create gives it, or
    /// by id.
    pub(crate) fn object(&self) -> (&str, Key<'_>) {
        match self {
            ReverseEndpointOp::Create { service_id, body } => {
                (service_id, Key::Name(&body.description))
            }
            ReverseEndpointOp::Delete {
                service_id,
                endpoint_id,
            } => (service_id, Key::Id(endpoint_id)),
        }
    }
}

/// Shown as the saved plan stores it.
impl Shows for ReverseEndpointOp {}

impl Kind for ReverseEndpointOp {
    /// The object it touches.
    fn target(&self) -> Target<'_> {
        let (service_id, key) = self.object();
        Target::ReverseEndpoint { service_id, key }
    }

    /// Its endpoint, as `live` has it.
    fn current(&self, live: &LiveState) -> Option<Value> {
        let (service_id, key) = self.object();
        super::live::current(live, service_id, key)
    }

    /// What it does.
    fn effect(&self) -> Effect {
        match self {
            ReverseEndpointOp::Create { .. } => Effect::Create,
            ReverseEndpointOp::Delete { .. } => Effect::Delete,
        }
    }

    /// Whether it carries out a change at `address`: a reverse endpoint's.
    fn fits(&self, address: &Address<'_>) -> bool {
        match self {
            ReverseEndpointOp::Create { .. } | ReverseEndpointOp::Delete { .. } => {
                matches!(address, Address::ReverseEndpoint { .. })
            }
        }
    }

    /// What it is called.
    fn name(&self) -> Name {
        let (op, verb) = match self {
            ReverseEndpointOp::Create { .. } => ("reverse-endpoint-create", "create"),
            ReverseEndpointOp::Delete { .. } => ("reverse-endpoint-delete", "delete"),
        };
        Name {
            op,
            verb,
            object: "reverse private endpoint",
        }
    }
}
