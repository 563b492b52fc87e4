//! The live side of pipes: a pipe as the plan shows it and the fingerprint hashes (id, name,
//! source kind and scaling, never its source settings, which may carry credentials), and the
//! compute a service's database pipes share ([`Live`] on [`Pipe`] and [`PipeScaling`]).

use serde_json::{Map, Value, json};

use crate::api::wire::{Pipe, PipeScaling};
use crate::live::LiveState;
use crate::plan::kind::Live;
use crate::plan::normalize::{num, put};
use crate::plan::target::Key;

impl Live for Pipe {
    /// Its identity, source kind and scaling (`pipe.<service>.<key>` and its `.scaling`).
    fn fingerprinted(&self) -> Value {
        pipe_identity(self)
    }
}

impl Live for PipeScaling {
    /// The compute shared by a service's database pipes (`service.<key>.pipe_compute`).
    fn fingerprinted(&self) -> Value {
        pipe_scaling(self)
    }
}

/// The pipe of service `service_id` that `key` finds in `live` (by id, or by name for a
/// create), as fingerprinted.
pub(crate) fn current(live: &LiveState, service_id: &str, key: Key<'_>) -> Option<Value> {
    live.pipes
        .get(service_id)?
        .iter()
        .find(|p| match key {
            Key::Id(id) => p.id == id,
            Key::Name(name) => p.name == name,
        })
        .map(Live::fingerprinted)
}

/// The compute service `service_id`'s database pipes share in `live`, as fingerprinted.
pub(crate) fn current_compute(live: &LiveState, service_id: &str) -> Option<Value> {
    live.pipe_compute.get(service_id).map(Live::fingerprinted)
}

/// A pipe's scaling fields.
pub(crate) fn pipe_scaling(scaling: &PipeScaling) -> Value {
    let mut map = Map::new();
    put(&mut map, "replicas", scaling.replicas.map(Value::from));
    put(
        &mut map,
        "concurrency",
        scaling.concurrency.map(Value::from),
    );
    put(
        &mut map,
        "replicaCpuMillicores",
        scaling.replica_cpu_millicores.map(Value::from),
    );
    put(
        &mut map,
        "replicaMemoryGb",
        scaling.replica_memory_gb.map(num),
    );
    Value::Object(map)
}

/// A pipe as the plan shows it: id, name, source kind and scaling, never its source settings.
pub(crate) fn pipe_identity(pipe: &Pipe) -> Value {
    let kind = pipe
        .source
        .as_ref()
        .and_then(|s| s.kind())
        .map(|k| k.as_str());
    json!({
        "id": pipe.id,
        "name": pipe.name,
        "sourceKind": kind,
        "scaling": pipe_scaling(&pipe.scaling.clone().unwrap_or_default()),
    })
}
