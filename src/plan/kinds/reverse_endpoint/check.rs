//! What the saved-plan check compares for a reverse private endpoint step (`plan/trust/`): a
//! create sends the members its change shows and the applying run's config declares at its
//! address; a delete deletes only the endpoint its change removes, which the config marks
//! `absent`; both write to the service the config gives its key.

use serde_json::{Value, json};

use super::live::shown;
use super::op::ReverseEndpointOp;
use crate::address::Address;
use crate::plan::model::{Change, Operation};
use crate::plan::trust::{Check, ConfigCheck, Disagreement, after, same};

impl Check for ReverseEndpointOp {
    fn sends_what_it_shows(&self, change: &Change) -> Result<Option<Operation>, Disagreement> {
        match self {
            ReverseEndpointOp::Create { body, .. } => same(&shown(None, body), after(change)?)?,
            ReverseEndpointOp::Delete { endpoint_id, .. } => {
                if change.after.is_some() {
                    return Err(Disagreement::DeleteWithValues);
                }
                let removed = change
                    .before
                    .as_ref()
                    .and_then(|b| b.get("id"))
                    .cloned()
                    .unwrap_or(Value::Null);
                same(&json!({ "id": endpoint_id }), &json!({ "id": removed }))?;
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
        let (service_id, _) = self.object();
        if let Some(problem) = check.service(address, service_id) {
            return Some(problem);
        }
        let Address::ReverseEndpoint { service, endpoint } = address else {
            return Some("is not at a reverse private endpoint's address".to_string());
        };
        let declared = check
            .config
            .services
            .get(*service)
            .and_then(|s| s.reverse_endpoints.get(*endpoint));
        let Some(declared) = declared else {
            return Some(format!(
                "writes reverse private endpoint `{endpoint}`, which service `{service}` of the \
                 config does not declare"
            ));
        };
        match self {
            ReverseEndpointOp::Create { body, .. }
                if declared.absent || shown(None, body) != shown(None, &declared.spec) =>
            {
                Some(format!(
                    "creates reverse private endpoint `{endpoint}` otherwise than the config \
                     declares it"
                ))
            }
            ReverseEndpointOp::Delete { .. } if !declared.absent => Some(format!(
                "deletes reverse private endpoint `{endpoint}`, which the config does not mark \
                 `absent`"
            )),
            ReverseEndpointOp::Create { .. } | ReverseEndpointOp::Delete { .. } => None,
        }
    }
}
