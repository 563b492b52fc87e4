//! Backups of the cloud API.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::lenient;
use super::number;

/// A backup (`GET /services/{id}/backups`, newest first; `GET .../backups/{id}`).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Backup {
    /// UUID.
    #[serde(default, deserialize_with = "lenient::or_default")]
    pub id: String,
    /// `done`, `error` or `in_progress`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub status: Option<String>,
    /// Service id.
    #[serde(default, deserialize_with = "lenient::or_default")]
    pub service_id: String,
    /// Start time, ISO 8601.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub started_at: Option<String>,
    /// Finish time, ISO 8601; only for finished backups.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub finished_at: Option<String>,
    /// Size in bytes.
    #[serde(
        default,
        deserialize_with = "lenient::opt_f64",
        serialize_with = "number::opt",
        skip_serializing_if = "Option::is_none"
    )]
    pub size_in_bytes: Option<f64>,
    /// Duration in seconds.
    #[serde(
        default,
        deserialize_with = "lenient::opt_f64",
        serialize_with = "number::opt",
        skip_serializing_if = "Option::is_none"
    )]
    pub duration_in_seconds: Option<f64>,
    /// `full` or `incremental`.
    #[serde(default, rename = "type", skip_serializing_if = "Option::is_none")]
    pub kind: Option<String>,
    /// Name in the external bucket.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub backup_name: Option<String>,
    /// Bucket, kept as read.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bucket: Option<Value>,
}
