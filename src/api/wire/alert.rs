//! Alerts of the observability API: channels, the alert (read in two steps for the newer
//! generation's member names), and its request body.

use serde::{Deserialize, Serialize, Serializer};
use serde_json::Value;

use super::lenient;
use super::number;

/// An alert's notification channel.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Channel {
    /// `webhook`, or `email` on the managed stack of today's generation.
    #[serde(default, rename = "type", deserialize_with = "lenient::or_default")]
    pub kind: String,
    /// Webhook id.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub webhook_id: Option<String>,
    /// Recipients of an `email` channel (the managed stack of today's generation).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub email_recipients: Option<Vec<String>>,
}

/// An alert (both stack APIs). Servers of the newer generation name two members differently
/// (`dashboardId`, `teamId`); they are read as `dashboard` and `team`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", remote = "Self")]
pub struct Alert {
    /// Server-assigned id.
    #[serde(default, deserialize_with = "lenient::or_default")]
    pub id: String,
    /// Name; converge's identity for matching.
    #[serde(default, deserialize_with = "lenient::or_default")]
    pub name: String,
    /// Message.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub message: Option<String>,
    /// Threshold.
    #[serde(
        default,
        deserialize_with = "lenient::opt_f64",
        serialize_with = "number::opt",
        skip_serializing_if = "Option::is_none"
    )]
    pub threshold: Option<f64>,
    /// Interval (`5m`, ...).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub interval: Option<String>,
    /// `above` or `below`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub threshold_type: Option<String>,
    /// `tile` or `search`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub source: Option<String>,
    /// State (`inactive`, `alert`, ...).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub state: Option<String>,
    /// Channel.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub channel: Option<Channel>,
    /// Team id.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub team: Option<String>,
    /// Tile id.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tile_id: Option<String>,
    /// Dashboard id.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dashboard: Option<String>,
    /// Creation time, ISO 8601 with milliseconds.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub created_at: Option<String>,
    /// Update time, ISO 8601 with milliseconds.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub updated_at: Option<String>,
    /// The members servers of today's generation added.
    #[serde(flatten)]
    pub newer: NewerAlertFields,
}

/// The alert members the observability API added after the contract (releases 2.21 to 2.30);
/// servers of the contract's generation have none of them. Absent members are not sent.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct NewerAlertFields {
    /// Upper bound of a `between` / `not_between` threshold (`threshold` is the lower one).
    #[serde(
        default,
        deserialize_with = "lenient::opt_f64",
        serialize_with = "number::opt",
        skip_serializing_if = "Option::is_none"
    )]
    pub threshold_max: Option<f64>,
    /// Windows in a row the condition must hold before the alert fires.
    #[serde(
        default,
        deserialize_with = "lenient::opt_i64",
        skip_serializing_if = "Option::is_none"
    )]
    pub num_consecutive_windows: Option<i64>,
    /// Minutes after the interval boundary at which windows are evaluated.
    #[serde(
        default,
        deserialize_with = "lenient::opt_i64",
        skip_serializing_if = "Option::is_none"
    )]
    pub schedule_offset_minutes: Option<i64>,
    /// Date-time the schedule counts its windows from.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub schedule_start_at: Option<String>,
    /// Note shown with the alert's notifications.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
    /// All the channels notified, 1 to 10; the servers answer `channel` as their first.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub channels: Option<Vec<Channel>>,
}

impl Serialize for Alert {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        Alert::serialize(self, serializer)
    }
}

impl<'de> Deserialize<'de> for Alert {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let mut alert = serde_json::Map::<String, Value>::deserialize(deserializer)?;
        for (newer, contract) in [("dashboardId", "dashboard"), ("teamId", "team")] {
            if let Some(value) = alert.remove(newer)
                && alert.get(contract).is_none_or(Value::is_null)
            {
                alert.insert(contract.to_string(), value);
            }
        }
        // The members' own errors keep their place: `.name: invalid type ...` (see
        // `nested_path`), which the reader joins to the path of the alert.
        let mut track = serde_path_to_error::Track::new();
        let value = Value::Object(alert);
        Alert::deserialize(serde_path_to_error::Deserializer::new(&value, &mut track)).map_err(
            |error| {
                serde::de::Error::custom(format!(
                    "{}{NESTED}{error}",
                    nested_path(&track.path().to_string())
                ))
            },
        )
    }
}

/// Separates a member path from the message in errors of objects read in two steps (alerts).
pub(crate) const NESTED: &str = "\u{1f}";

/// `name` → `.name`, `[2]` stays `[2]`: how a member path continues the path of its object.
fn nested_path(path: &str) -> String {
    if path.is_empty() || path == "." || path.starts_with('[') {
        path.trim_start_matches('.').to_string()
    } else {
        format!(".{path}")
    }
}

/// Body of alert create and update.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct AlertRequest {
    /// Dashboard id.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dashboard_id: Option<String>,
    /// Tile id.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tile_id: Option<String>,
    /// Threshold.
    #[serde(
        default,
        serialize_with = "number::opt",
        skip_serializing_if = "Option::is_none"
    )]
    pub threshold: Option<f64>,
    /// Interval.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub interval: Option<String>,
    /// `tile` or `search`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub source: Option<String>,
    /// `above` or `below`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub threshold_type: Option<String>,
    /// Channel.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub channel: Option<Channel>,
    /// Name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// Message.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub message: Option<String>,
    /// Members sent as `null`, which clears them on today's servers (the config writes
    /// `null`). Before `newer`, so that reading a saved body sees each `null` before `newer`
    /// takes the member.
    #[serde(flatten)]
    pub cleared: Cleared,
    /// The members servers of today's generation added.
    #[serde(flatten)]
    pub newer: NewerAlertFields,
}

/// The alert members an update clears by sending `null` (the current document's `nullish` and
/// `scheduleStartAt`'s `null`), by their wire names.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Cleared(pub Vec<&'static str>);

impl Cleared {
    /// The members that may be cleared.
    pub const MEMBERS: [&'static str; 3] = ["scheduleStartAt", "note", "numConsecutiveWindows"];
}

impl Serialize for Cleared {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap;
        let mut map = serializer.serialize_map(Some(self.0.len()))?;
        for member in &self.0 {
            map.serialize_entry(member, &())?;
        }
        map.end()
    }
}

impl<'de> Deserialize<'de> for Cleared {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let map = std::collections::BTreeMap::<String, Value>::deserialize(deserializer)?;
        Ok(Cleared(
            Cleared::MEMBERS
                .into_iter()
                .filter(|m| map.get(*m).is_some_and(Value::is_null))
                .collect(),
        ))
    }
}
