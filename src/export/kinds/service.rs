//! A service's own settings: its scaling, and the compute of its database pipes.

use crate::api::limits::{CDC_DEFAULT_CPU_MILLICORES, CDC_DEFAULT_MEMORY_GB};
use crate::api::wire::{Pipe, PipeScaling, Service};
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
