//! The live side of webhooks: a webhook as its fingerprint hashes it (its destination and
//! body included, as the list answers them, so a plan made before either changed is not
//! applied; the fingerprint is a hash, never the value), and how a step finds its webhook.

use serde_json::Value;

use crate::api::wire::Webhook;
use crate::live::LiveState;
use crate::plan::kind::Live;
use crate::plan::target::{Key, StackRef};

impl Live for Webhook {
    /// The webhook as listed, its secrets included (only ever hashed).
    fn fingerprinted(&self) -> Value {
        serde_json::json!({
            "id": self.id,
            "name": self.name,
            "service": self.service,
            "url": self.url,
            "description": self.description,
            "body": self.body,
        })
    }
}

/// The webhook of stack `stack` that `key` finds in `live` (a create's by its service and
/// name), as fingerprinted.
pub(crate) fn current(
    live: &LiveState,
    stack: &StackRef,
    key: Key<'_>,
    service: &str,
) -> Option<Value> {
    live.stacks
        .get(&stack.key)?
        .webhooks
        .iter()
        .find(|w| match key {
            Key::Id(id) => w.id == id,
            Key::Name(name) => w.name == name && w.service == service,
        })
        .map(Live::fingerprinted)
}
