//! A service's pipes: their scaling only; a pipe's credentials are never read into the output.

use crate::api::wire::{Pipe, Service};
use crate::export::build::{Keys, entry, slug, str};
use crate::export::yaml::Node;

/// `pipes:` of an exported service, by name then id, when it has any.
pub(super) fn pipes(_: &Service, pipes: &[Pipe], node: &mut Vec<(String, Node)>) {
    let mut sorted: Vec<&Pipe> = pipes.iter().collect();
    sorted.sort_by(|a, b| (&a.name, &a.id).cmp(&(&b.name, &b.id)));
    let mut keys = Keys::default();
    let mut pipe_nodes = Vec::new();
    for pipe in sorted {
        let key = keys.take(slug(&pipe.name, "pipe"));
        let mut p = vec![entry("id", str(&pipe.id))];
        if let Some(s) = &pipe.scaling {
            let mut fields = Vec::new();
            if let Some(v) = s.replicas {
                fields.push(entry("replicas", Node::int(v)));
            }
            if let Some(v) = s.concurrency {
                fields.push(entry("concurrency", Node::int(v)));
            }
            if let Some(v) = s.replica_cpu_millicores {
                fields.push(entry("replicaCpuMillicores", Node::int(v)));
            }
            if let Some(v) = s.replica_memory_gb {
                fields.push(entry("replicaMemoryGb", Node::float(v)));
            }
            if !fields.is_empty() {
                p.push(entry("scaling", Node::Map(fields)));
            }
        }
        pipe_nodes.push((key, Node::Map(p)));
    }
    if !pipe_nodes.is_empty() {
        node.push(entry("pipes", Node::Map(pipe_nodes)));
    }
}
