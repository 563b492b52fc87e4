//! A service's own settings: its scaling, its IP access list, tags, release channel and
//! `mysql` endpoint, and the compute of its database pipes.

use crate::api::limits::{CDC_DEFAULT_CPU_MILLICORES, CDC_DEFAULT_MEMORY_GB};
use crate::api::wire::{Pipe, PipeScaling, Service};
use crate::config::service_settings_rules::RESERVED_TAG_PREFIX;
use crate::export::build::entry;
use crate::export::yaml::Node;

/// `scaling:` of an exported service.
pub(super) fn scaling(_: &str, service: &Service, _: &[Pipe], node: &mut Vec<(String, Node)>) {
    let mut scaling = Vec::new();
    if service.autoscaling_mode.as_deref() == Some("horizontal") {
        // A horizontal service's count is its band: numReplicas would not plan on it.
        scaling.push(entry("autoscalingMode", Node::Str("horizontal".into())));
        let band = [
            ("minReplicas", service.min_replicas),
            ("maxReplicas", service.max_replicas),
        ];
        for (key, value) in band {
            if let Some(n) = value {
                scaling.push(entry(key, Node::float(n)));
            }
        }
    } else if let Some(n) = service.num_replicas {
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

/// `ipAccessList:`, `tags:` (those not converge's own, when there are any), `releaseChannel:`
/// (where the server sends it) and `endpoints: { mysql }` of an exported service, as the
/// server stores them, so its plan is empty.
pub(super) fn settings(_: &str, service: &Service, _: &[Pipe], node: &mut Vec<(String, Node)>) {
    let entries = service
        .ip_access_list
        .iter()
        .map(|e| {
            let mut entry_node = vec![entry("source", Node::Str(e.source.clone()))];
            if !e.description.is_empty() {
                entry_node.push(entry("description", Node::Str(e.description.clone())));
            }
            Node::Map(entry_node)
        })
        .collect();
    node.push(entry("ipAccessList", Node::List(entries)));
    let tags: Vec<(String, Node)> = service
        .tags
        .iter()
        .filter(|t| !t.key.starts_with(RESERVED_TAG_PREFIX))
        .map(|t| {
            let value = t.value.clone().unwrap_or_default();
            (t.key.clone(), Node::Str(value))
        })
        .collect();
    if !tags.is_empty() {
        node.push(entry("tags", Node::Map(tags)));
    }
    if let Some(channel) = service.release_channel.as_deref().filter(|c| !c.is_empty()) {
        node.push(entry("releaseChannel", Node::Str(channel.to_string())));
    }
    let mysql = service
        .endpoints
        .iter()
        .any(|e| e.protocol.as_deref() == Some("mysql"));
    node.push(entry(
        "endpoints",
        Node::Map(vec![entry("mysql", Node::Bool(mysql))]),
    ));
}

/// `pipeCompute:` of an exported service that has database pipes (`GET .../pipesCdcScaling`),
/// unless it is the server's default: a config without it never reads it (one request per
/// service fewer in every later plan, drift and apply).
pub(crate) fn pipe_compute(compute: &PipeScaling, node: &mut Vec<(String, Node)>) {
    if compute.replica_cpu_millicores == Some(CDC_DEFAULT_CPU_MILLICORES)
        && compute.replica_memory_gb == Some(CDC_DEFAULT_MEMORY_GB)
    {
        return;
    }
    let mut members = Vec::new();
    if let Some(cpu) = compute.replica_cpu_millicores {
        members.push(entry("replicaCpuMillicores", Node::int(cpu)));
    }
    if let Some(memory) = compute.replica_memory_gb {
        members.push(entry("replicaMemoryGb", Node::float(memory)));
    }
    if !members.is_empty() {
        node.push(entry("pipeCompute", Node::Map(members)));
    }
}
