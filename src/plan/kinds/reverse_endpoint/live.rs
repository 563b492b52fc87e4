//! The live side of reverse private endpoints: an endpoint is one of its service's
//! `.../pipesReversePrivateEndpoints`, found by its description (unique within the service)
//! or its id, and fingerprinted by its id and what it was created with ([`Listed`]): its
//! status moves from `Provisioning` to `Ready` on its own, and is no change.

use serde_json::Value;

use crate::api::wire::{ReverseEndpointSpec, ReversePrivateEndpoint};
use crate::live::LiveState;
use crate::plan::kind::Live;
use crate::plan::target::Key;

/// A live endpoint, as fingerprinted and shown.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Listed<'a>(pub(crate) &'a ReversePrivateEndpoint);

impl Live for Listed<'_> {
    /// Its id and members, status left out.
    fn fingerprinted(&self) -> Value {
        shown(Some(&self.0.id), &self.0.spec)
    }
}

/// An endpoint as a change shows it: its members (as `CreateReversePrivateEndpoint` names
/// them), and its id when it has one.
pub(crate) fn shown(id: Option<&str>, spec: &ReverseEndpointSpec) -> Value {
    let mut value = serde_json::to_value(normalized(spec)).unwrap_or_default();
    if let (Some(id), Some(map)) = (id, value.as_object_mut()) {
        map.insert("id".into(), Value::from(id));
    }
    value
}

/// What is compared: empty members as absent, the DNS mappings sorted (the server keeps no
/// order the document promises).
pub(crate) fn normalized(spec: &ReverseEndpointSpec) -> ReverseEndpointSpec {
    let written = |v: &Option<String>| v.clone().filter(|v| !v.is_empty());
    let mut mappings = spec.custom_private_dns_mappings.clone();
    mappings.sort();
    ReverseEndpointSpec {
        description: spec.description.clone(),
        kind: spec.kind.clone(),
        vpc_endpoint_service_name: written(&spec.vpc_endpoint_service_name),
        vpc_resource_configuration_id: written(&spec.vpc_resource_configuration_id),
        vpc_resource_share_arn: written(&spec.vpc_resource_share_arn),
        msk_cluster_arn: written(&spec.msk_cluster_arn),
        msk_authentication: written(&spec.msk_authentication),
        gcp_service_attachment: written(&spec.gcp_service_attachment),
        custom_private_dns_mappings: mappings,
    }
}

/// The endpoints of service `service_id` as `live` holds them (none when not read).
pub(crate) fn listed<'l>(live: &'l LiveState, service_id: &str) -> &'l [ReversePrivateEndpoint] {
    live.reverse_endpoints
        .get(service_id)
        .map(Vec::as_slice)
        .unwrap_or_default()
}

/// The endpoint of service `service_id` found by `key`: its id, or its description.
pub(crate) fn find<'l>(
    live: &'l LiveState,
    service_id: &str,
    key: Key<'_>,
) -> Option<&'l ReversePrivateEndpoint> {
    listed(live, service_id).iter().find(|e| match key {
        Key::Id(id) => e.id == id,
        Key::Name(description) => e.spec.description == description,
    })
}

/// The endpoint an operation writes, as fingerprinted: `None` when the service lacks it.
pub(crate) fn current(live: &LiveState, service_id: &str, key: Key<'_>) -> Option<Value> {
    find(live, service_id, key).map(|e| Listed(e).fingerprinted())
}

/// How a pipe's `reversePrivateEndpointIds` names an endpoint this plan creates, until apply
/// reads its id (by the description it is created with).
pub(crate) fn placeholder(description: &str) -> String {
    format!("{PLACEHOLDER}{description})")
}

/// The description a placeholder names; `None` for an id.
pub(crate) fn placeholder_of(id: &str) -> Option<&str> {
    id.strip_prefix(PLACEHOLDER)?.strip_suffix(')')
}

/// How a placeholder starts (no endpoint id, a UUID, starts so).
const PLACEHOLDER: &str = "(the reverse private endpoint described ";
