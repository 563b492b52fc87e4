//! Data sources of a stack (read-only).

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::lenient;

/// A data source of a stack (read-only).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Source {
    /// Id referenced by series `sourceId`.
    #[serde(default, deserialize_with = "lenient::or_default")]
    pub id: String,
    /// Display name, which configs may use instead of the id.
    #[serde(default, deserialize_with = "lenient::or_default")]
    pub name: String,
    /// `log`, `trace`, `metric`, `session`, ...
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub kind: Option<String>,
    /// Connection id.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub connection: Option<String>,
    /// Database and table.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub from: Option<Value>,
    /// Every other member (expressions, settings), kept as read.
    #[serde(flatten)]
    pub details: serde_json::Map<String, Value>,
}
