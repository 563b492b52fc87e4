//! The live side of private endpoints: an endpoint is an id a service lists
//! (`privateEndpointIds`, sorted and de-duplicated), fingerprinted as attached ([`Attached`]).

use serde_json::Value;

use crate::api::wire::Service;
use crate::live::LiveState;
use crate::plan::kind::Live;

/// An endpoint attached to a service (`service.<key>.private_endpoint[<id>]`), by its id.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Attached<'a>(pub(crate) &'a str);

impl Live for Attached<'_> {
    /// Its id, attached.
    fn fingerprinted(&self) -> Value {
        serde_json::json!({ "id": self.0, "attached": true })
    }
}

/// The endpoint `id` as service `service_id` of `live` has it attached, if it does.
pub(crate) fn current(live: &LiveState, service_id: &str, id: &str) -> Option<Value> {
    live.services
        .get(service_id)
        .filter(|s| s.private_endpoint_ids.iter().any(|e| e == id))
        .map(|_| Attached(id).fingerprinted())
}

/// A service's private endpoint ids, sorted and de-duplicated.
pub(crate) fn private_endpoint_ids(service: &Service) -> Vec<String> {
    let mut ids = service.private_endpoint_ids.clone();
    ids.sort();
    ids.dedup();
    ids
}
