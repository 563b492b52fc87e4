//! The live side of webhooks: a webhook as its fingerprint hashes it, and how a step finds its
//! webhook. The list answers a webhook's `url` (and a generic one's `body`) in clear; a plan
//! made before either changed must not be applied, so the fingerprint covers them, but only
//! as an HMAC keyed by the step's random salt ([`sealed`]): a saved plan never holds a bare
//! hash of a secret, and the same secret fingerprints differently in every plan.

use serde_json::Value;

use crate::api::wire::Webhook;
use crate::live::LiveState;
use crate::plan::fingerprint::{Fingerprint, of_value};
use crate::plan::kinds::pipe::op::fingerprint_of;
use crate::plan::target::{Key, StackRef};

/// How a plan shows a secret member of a webhook, live or written.
pub(crate) const SECRET: &str = "(secret)";

/// How a plan shows a secret member that the config changes.
pub(crate) const SECRET_CHANGED: &str = "(secret, changed)";

/// The webhook as a step's fingerprint hashes it: its readable members, each secret shown as
/// [`SECRET`] (what a stale step's message may show), and `sealed`, the HMAC-SHA-256 of its
/// secrets keyed by `salt`.
pub(crate) fn sealed(webhook: &Webhook, salt: &str) -> Value {
    let secrets = serde_json::json!([webhook.url, webhook.body]).to_string();
    serde_json::json!({
        "id": webhook.id,
        "name": webhook.name,
        "service": webhook.service,
        "url": webhook.url.as_ref().map(|_| SECRET),
        "description": webhook.description,
        "body": webhook.body.as_ref().map(|_| SECRET),
        "sealed": fingerprint_of(salt, &secrets),
    })
}

/// The fingerprint a step keyed by `salt` records for `webhook`.
pub(crate) fn sealed_fingerprint(webhook: &Webhook, salt: &str) -> Fingerprint {
    of_value(&sealed(webhook, salt))
}

/// The webhook of stack `stack` that `key` finds in `live` (a create's by its service and
/// name), as a step keyed by `salt` fingerprints it.
pub(crate) fn current(
    live: &LiveState,
    stack: &StackRef,
    key: Key<'_>,
    service: &str,
    salt: &str,
) -> Option<Value> {
    live.stacks
        .get(&stack.key)?
        .webhooks
        .iter()
        .find(|w| match key {
            Key::Id(id) => w.id == id,
            Key::Name(name) => w.name == name && w.service == service,
        })
        .map(|w| sealed(w, salt))
}
