//! What the saved-plan check compares for a private endpoint step (`plan/trust/`): a register
//! sends the id its change shows, a detach detaches only the endpoint its change removes, and
//! both write to the service the config gives its key.

use serde_json::Value;

use super::op::{PrivateEndpointOp, detach_body};
use crate::address::Address;
use crate::plan::model::{Change, Operation};
use crate::plan::trust::{Check, ConfigCheck, Disagreement, after, same};

impl Check for PrivateEndpointOp {
    fn sends_what_it_shows(&self, change: &Change) -> Result<Option<Operation>, Disagreement> {
        match self {
            PrivateEndpointOp::Create { body, .. } => {
                same(&serde_json::json!({ "id": body.id }), after(change)?)?;
            }
            PrivateEndpointOp::Detach { body, .. } => {
                let id = change
                    .before
                    .as_ref()
                    .and_then(|b| b.get("id"))
                    .and_then(Value::as_str)
                    .unwrap_or_default();
                if *body != detach_body(id) {
                    return Err(Disagreement::OtherEndpoints { id: id.to_string() });
                }
            }
        }
        Ok(None)
    }

    fn against_config(
        &self,
        check: &ConfigCheck<'_>,
        _index: usize,
        address: &Address<'_>,
    ) -> Option<String> {
        let (PrivateEndpointOp::Create { service_id, .. }
        | PrivateEndpointOp::Detach { service_id, .. }) = self;
        check.service(address, service_id)
    }
}
