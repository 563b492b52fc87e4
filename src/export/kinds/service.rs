//! A service's own settings: its scaling.

use crate::api::wire::{Pipe, Service};
use crate::export::build::entry;
use crate::export::yaml::Node;

/// `scaling:` of an exported service.
pub(super) fn scaling(_: &str, service: &Service, _: &[Pipe], node: &mut Vec<(String, Node)>) {
    let mut scaling = Vec::new();
    if let Some(n) = service.num_replicas {
        scaling.push(entry("numReplicas", Node::float(n)));
    }
    scaling.push(entry(
        "idleScaling",
        Node::Bool(service.idle_scaling.unwrap_or(true)),
    ));
    if let Some(n) = service.idle_timeout_minutes {
        scaling.push(entry("idleTimeoutMinutes", Node::float(n)));
    }
    node.push(entry("scaling", Node::Map(scaling)));
}
