//! Webhooks of a stack: the destinations alert channels name by `webhookId`.

use serde::{Deserialize, Serialize};

use super::lenient;

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
