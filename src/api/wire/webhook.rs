//! Webhooks of a stack: the destinations alert channels name by `webhookId`.

use serde::{Deserialize, Serialize};

use super::lenient;
use super::secret::Secret;

/// A webhook as a list answers it (`SlackWebhook`, `IncidentIOWebhook`, `GenericWebhook` of the
/// observability API; the `ClickStack*Webhook` shapes of the managed stack). The write-only
/// `headers` and `queryParams` are never answered.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Webhook {
    /// Id referenced by a channel's `webhookId`.
    #[serde(default, deserialize_with = "lenient::or_default")]
    pub id: String,
    /// Name, unique per service within the team; configs may use it instead of the id.
    #[serde(default, deserialize_with = "lenient::or_default")]
    pub name: String,
    /// `slack`, `incidentio`, `generic` (and the managed stack's `slack_api`, `pagerduty_api`).
    #[serde(default, deserialize_with = "lenient::or_default")]
    pub service: String,
    /// The destination, answered in clear: it may hold a secret, so it is never shown.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub url: Option<String>,
    /// Shown in the UI.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// The request body template (`generic` answers it).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub body: Option<String>,
    /// Last update.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub updated_at: Option<String>,
    /// Creation.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub created_at: Option<String>,
}

/// A webhook create or update body (`WebhookInput`). A `PUT` replaces `description` and `body`
/// (left out, they are cleared) and keeps the write-only `headers` and `queryParams` when left
/// out, unless the destination (`url` or `service`) changes. `Debug` never shows the url, the
/// body or an entry's value: each may hold a secret.
#[derive(Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct WebhookRequest {
    /// Name, unique per service within the team.
    pub name: String,
    /// `slack`, `incidentio` or `generic`.
    pub service: String,
    /// The destination.
    pub url: Secret,
    /// Shown in the UI.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// The request body template (`generic`, `incidentio`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub body: Option<Secret>,
    /// Write-only headers; sent only when the credentials go.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub headers: Option<std::collections::BTreeMap<String, Secret>>,
    /// Write-only query parameters; sent only when the credentials go.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub query_params: Option<std::collections::BTreeMap<String, Secret>>,
}

impl std::fmt::Debug for WebhookRequest {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let keys = |m: &Option<std::collections::BTreeMap<String, Secret>>| {
            m.as_ref().map(|m| m.keys().cloned().collect::<Vec<_>>())
        };
        f.debug_struct("WebhookRequest")
            .field("name", &self.name)
            .field("service", &self.service)
            .field("description", &self.description)
            .field("headers", &keys(&self.headers))
            .field("queryParams", &keys(&self.query_params))
            .finish_non_exhaustive()
    }
}
