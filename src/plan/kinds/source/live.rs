//! The live side of sources: a source as the server stores it (what the planner compares and
//! its fingerprint hashes), and how a step finds its source.
//!
//! Normalizers, applied to both the config's members and the listed source:
//!
//! - [`stored`]: the members the server adds when they are not sent, with the values it gives
//!   them (hdx-server, `SourceSchema`): `disabled: false` and `querySettings: []` on every
//!   source; `highlightedTraceAttributeExpressions`, `highlightedRowAttributeExpressions` and
//!   `materializedViews` empty on log and trace sources; `durationPrecision: 3` on a trace
//!   source; a granularity (`5 minute`) in the short form the server answers (`5m`).

use serde_json::{Map, Value, json};

use crate::api::wire::Source;
use crate::live::LiveState;
use crate::plan::kind::Live;
use crate::plan::target::{Key, StackRef};

/// The members of a source as the server stores them (its `id` left out): the wire's rule,
/// which the sandbox stores by too.
pub(crate) fn stored(members: &Map<String, Value>) -> Value {
    crate::api::wire::source_as_stored(members)
}

impl Live for Source {
    /// The source as stored, with its id.
    fn fingerprinted(&self) -> Value {
        let mut value = stored(&self.members());
        if let Some(map) = value.as_object_mut() {
            map.insert("id".into(), json!(self.id));
        }
        value
    }
}

/// The source of stack `stack` that `key` finds in `live` (a create's by its name), as
/// fingerprinted.
pub(crate) fn current(live: &LiveState, stack: &StackRef, key: Key<'_>) -> Option<Value> {
    live.stacks
        .get(&stack.key)?
        .sources
        .iter()
        .find(|s| match key {
            Key::Id(id) => s.id == id,
            Key::Name(name) => s.name == name,
        })
        .map(Live::fingerprinted)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_server_defaults_are_filled_in() {
        let Value::Object(members) = json!({
            "name": "T", "kind": "trace",
            "materializedViews": [{"minGranularity": "5 minute"}],
        }) else {
            unreachable!()
        };
        let stored = stored(&members);
        assert_eq!(stored["durationPrecision"], 3);
        assert_eq!(stored["disabled"], false);
        assert_eq!(stored["materializedViews"][0]["minGranularity"], "5m");
        assert_eq!(stored["highlightedRowAttributeExpressions"], json!([]));
    }
}
