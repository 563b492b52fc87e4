//! Data sources of a stack (read, and written on the observability API) and the connections
//! they name.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::lenient;

/// A data source of a stack, as a list or a write answers it.
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

/// The members of a source as a create or update sends them (`Source` of the observability
/// API's document, without `id`): a `PUT` replaces the whole source, so every member is sent.
pub type SourceRequest = serde_json::Map<String, Value>;

impl Source {
    /// Its members as the server answered them, `id` left out: what a write sends back.
    pub fn members(&self) -> SourceRequest {
        let mut members = match serde_json::to_value(self) {
            Ok(Value::Object(map)) => map,
            _ => serde_json::Map::new(),
        };
        members.remove("id");
        members
    }
}

/// A ClickHouse connection of the team (`Connection` of the observability API; its password
/// is write-only and never answered): what a source's `connection` names.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Connection {
    /// Id a source's `connection` carries.
    #[serde(default, deserialize_with = "lenient::or_default")]
    pub id: String,
    /// Display name, which configs may use instead of the id.
    #[serde(default, deserialize_with = "lenient::or_default")]
    pub name: String,
    /// The ClickHouse HTTP endpoint.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub host: Option<String>,
    /// The ClickHouse user.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub username: Option<String>,
}

/// The members of a source as the server stores them (its `id` left out): the members it adds
/// when they are not sent, with the values it gives them (hdx-server, `SourceSchema`), and a
/// granularity (`5 minute`) in the short form it answers (`5m`).
pub fn source_as_stored(members: &serde_json::Map<String, Value>) -> Value {
    let mut out = members.clone();
    out.remove("id");
    let kind = out.get("kind").and_then(Value::as_str).unwrap_or_default();
    let mut defaults: Vec<(&str, Value)> = vec![
        ("disabled", serde_json::json!(false)),
        ("querySettings", serde_json::json!([])),
    ];
    if matches!(kind, "log" | "trace") {
        for member in [
            "highlightedTraceAttributeExpressions",
            "highlightedRowAttributeExpressions",
            "materializedViews",
        ] {
            defaults.push((member, serde_json::json!([])));
        }
    }
    if kind == "trace" {
        defaults.push(("durationPrecision", serde_json::json!(3)));
    }
    for (member, value) in defaults {
        out.entry(member.to_string()).or_insert(value);
    }
    if let Some(Value::Array(views)) = out.get_mut("materializedViews") {
        for view in views.iter_mut().filter_map(Value::as_object_mut) {
            short_granularity(view.get_mut("minGranularity"));
        }
    }
    if let Some(Value::Object(meta)) = out.get_mut("metadataMaterializedViews") {
        short_granularity(meta.get_mut("granularity"));
    }
    Value::Object(out)
}

/// `5 minute` as the server answers it, `5m`.
fn short_granularity(value: Option<&mut Value>) {
    let Some(Value::String(text)) = value else {
        return;
    };
    let Some((amount, unit)) = text.split_once(' ') else {
        return;
    };
    let short = match unit {
        "second" => "s",
        "minute" => "m",
        "hour" => "h",
        "day" => "d",
        _ => return,
    };
    if !amount.is_empty() && amount.chars().all(|c| c.is_ascii_digit()) {
        *text = format!("{amount}{short}");
    }
}
