//! Webhooks: what a webhook step sends (create, update, delete), and the version of the
//! write-only entries recorded in the webhook's description.
//!
//! A webhook's `url`, `body` and `headers` / `queryParams` values may hold secrets: a step holds
//! each as its `${env:NAME}` reference and a fingerprint salted for the step (HMAC-SHA-256, as a
//! pipe rotation's credentials), read when the step is sent and refused when the value is not
//! the one the plan was made with. The plan shows them as [`SECRET`], never their values.

use serde::{Deserialize, Serialize};

use crate::address::Address;
use crate::plan::kind::{Kind, Shows};
use crate::plan::kinds::pipe::op::SealedCredential;
use crate::plan::target::{Effect, Key, Name, StackRef, Target};

pub(crate) use super::live::{SECRET, SECRET_CHANGED};

/// What a webhook write sends: its readable members as sent, and its secrets sealed.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct WebhookSend {
    /// Name.
    pub name: String,
    /// `slack`, `incidentio` or `generic`.
    pub service: String,
    /// The description as sent (the recorded `credentialsVersion` at its end).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// This step's random salt of the secrets' fingerprints.
    pub salt: String,
    /// Each secret sent (`url`, `body`, `headers.<name>`, `queryParams.<name>`): its
    /// reference and salted fingerprint, never its value.
    pub secrets: Vec<SealedCredential>,
    /// Whether `headers` and `queryParams` are sent (a create, a new destination, a raised
    /// `credentialsVersion`); otherwise the server keeps the ones it has.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub entries: bool,
}

/// A webhook operation.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "op", rename_all_fields = "camelCase")]
pub enum WebhookOp {
    /// `POST /api/v2/webhooks`.
    #[serde(rename = "webhook-create")]
    Create {
        /// Where.
        stack: StackRef,
        /// What it sends.
        send: WebhookSend,
    },
    /// `PUT /api/v2/webhooks/{id}`.
    #[serde(rename = "webhook-update")]
    Update {
        /// Where.
        stack: StackRef,
        /// Webhook id.
        webhook_id: String,
        /// What it sends.
        send: WebhookSend,
    },
    /// `DELETE /api/v2/webhooks/{id}` (`absent: true`).
    #[serde(rename = "webhook-delete")]
    Delete {
        /// Where.
        stack: StackRef,
        /// Webhook id.
        webhook_id: String,
        /// This step's random salt of the webhook's fingerprint (its secrets are in it).
        salt: String,
    },
}

impl WebhookOp {
    /// The stack, the key it finds its webhook by, and the service a create names (empty for an
    /// id): what both its target and its current object are read from.
    fn object(&self) -> (&StackRef, Key<'_>, &str) {
        match self {
            WebhookOp::Create { stack, send } => (stack, Key::Name(&send.name), &send.service),
            WebhookOp::Update {
                stack, webhook_id, ..
            }
            | WebhookOp::Delete {
                stack, webhook_id, ..
            } => (stack, Key::Id(webhook_id), ""),
        }
    }

    /// The step's salt, which keys the fingerprint of the webhook it writes.
    fn salt(&self) -> &str {
        match self {
            WebhookOp::Create { send, .. } | WebhookOp::Update { send, .. } => &send.salt,
            WebhookOp::Delete { salt, .. } => salt,
        }
    }
}

/// Shown without what only the saved plan's check uses ([`WebhookOp::shown`]).
impl Shows for WebhookOp {
    fn show<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serde::Serialize::serialize(&self.shown(), serializer)
    }
}

impl Kind for WebhookOp {
    /// The webhook it writes, as fingerprinted.
    fn current(&self, live: &crate::live::LiveState) -> Option<serde_json::Value> {
        let (stack, key, service) = self.object();
        super::live::current(live, stack, key, service, self.salt())
    }

    /// The object it touches.
    fn target(&self) -> Target<'_> {
        let (stack, key, service) = self.object();
        Target::Webhook {
            stack,
            key,
            service,
        }
    }

    /// What it does.
    fn effect(&self) -> Effect {
        match self {
            WebhookOp::Create { .. } => Effect::Create,
            WebhookOp::Update { .. } => Effect::Update,
            WebhookOp::Delete { .. } => Effect::Delete,
        }
    }

    /// Whether it carries out a change at `address`: a webhook's.
    fn fits(&self, address: &Address<'_>) -> bool {
        match self {
            WebhookOp::Create { .. } | WebhookOp::Update { .. } | WebhookOp::Delete { .. } => {
                matches!(address, Address::Webhook { .. })
            }
        }
    }

    /// What it is called.
    fn name(&self) -> Name {
        let (op, verb) = match self {
            WebhookOp::Create { .. } => ("webhook-create", "create"),
            WebhookOp::Update { .. } => ("webhook-update", "update"),
            WebhookOp::Delete { .. } => ("webhook-delete", "delete"),
        };
        Name {
            op,
            verb,
            object: "webhook",
        }
    }
}

impl WebhookOp {
    /// The stack it writes to.
    pub(crate) fn stack(&self) -> &StackRef {
        match self {
            WebhookOp::Create { stack, .. }
            | WebhookOp::Update { stack, .. }
            | WebhookOp::Delete { stack, .. } => stack,
        }
    }

    /// What a create or update sends.
    pub(crate) fn sent(&self) -> Option<&WebhookSend> {
        match self {
            WebhookOp::Create { send, .. } | WebhookOp::Update { send, .. } => Some(send),
            WebhookOp::Delete { .. } => None,
        }
    }

    /// The operation as `--format json` shows it: without the salt and fingerprints, so the
    /// same plan renders the same bytes in every run.
    pub(crate) fn shown(&self) -> serde_json::Value {
        let mut value = serde_json::to_value(self).unwrap_or_default();
        if let Some(op) = value.as_object_mut() {
            op.remove("salt");
        }
        if let Some(send) = value
            .get_mut("send")
            .and_then(serde_json::Value::as_object_mut)
        {
            send.remove("salt");
            if let Some(secrets) = send
                .get_mut("secrets")
                .and_then(serde_json::Value::as_array_mut)
            {
                for secret in secrets
                    .iter_mut()
                    .filter_map(serde_json::Value::as_object_mut)
                {
                    secret.remove("fingerprint");
                }
            }
        }
        value
    }
}

/// The text a webhook's description ends with to record the `credentialsVersion` whose
/// entries were sent: the server keeps nothing else free-form on a webhook, and the entries
/// are never read back.
const MARK: &str = "[converge: credentialsVersion ";

/// The description as sent: the config's, and the recorded version at its end.
pub(crate) fn described(description: Option<&str>, version: Option<i64>) -> Option<String> {
    match (description, version) {
        (text, None) => text.map(str::to_string),
        (None, Some(v)) => Some(format!("{MARK}{v}]")),
        (Some(text), Some(v)) => Some(format!("{text} {MARK}{v}]")),
    }
}

/// A live description split into the text the config writes and the recorded version.
pub(crate) fn recorded(description: Option<&str>) -> (Option<&str>, Option<i64>) {
    let Some(text) = description else {
        return (None, None);
    };
    let Some(at) = text.rfind(MARK) else {
        return (Some(text), None);
    };
    let version = text[at + MARK.len()..]
        .strip_suffix(']')
        .and_then(|v| v.parse::<i64>().ok());
    match version {
        Some(v) => {
            let rest = text[..at].trim_end();
            (Some(rest).filter(|r| !r.is_empty()), Some(v))
        }
        None => (Some(text), None),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_recorded_version_reads_back() {
        for (text, version) in [
            (Some("Pages on-call"), Some(3)),
            (None, Some(1)),
            (Some("Pages on-call"), None),
        ] {
            let sent = described(text, version);
            assert_eq!(recorded(sent.as_deref()), (text, version));
        }
        assert_eq!(
            recorded(Some("[converge: credentialsVersion x]")),
            (Some("[converge: credentialsVersion x]"), None)
        );
    }
}
