//! The private endpoints attached to a service.

use crate::api::wire::{Pipe, Service};
use crate::export::build::{entry, str};
use crate::export::yaml::Node;
use crate::plan::kinds::private_endpoint::live as private_endpoint_live;

/// `privateEndpoints:` of an exported service, when it has any.
pub(super) fn attached(_: &str, service: &Service, _: &[Pipe], node: &mut Vec<(String, Node)>) {
    let endpoints = private_endpoint_live::private_endpoint_ids(service);
    if !endpoints.is_empty() {
        node.push(entry(
            "privateEndpoints",
            Node::List(
                endpoints
                    .iter()
                    .map(|id| Node::Map(vec![entry("id", str(id))]))
                    .collect(),
            ),
        ));
    }
}
