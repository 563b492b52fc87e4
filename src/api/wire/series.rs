//! Chart series: a tile's or a chart query's series, the `charts/series` body and its points.

use serde::{Deserialize, Serialize, Serializer};
use serde_json::Value;

use super::lenient;
use super::number;

/// One series of a tile or of a chart query.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Series {
    /// `time`, `table`, `number`, `histogram`, `search`, `markdown`.
    #[serde(default, rename = "type", skip_serializing_if = "Option::is_none")]
    pub kind: Option<String>,
    /// `events` or `metrics`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub data_source: Option<String>,
    /// Source id.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub source_id: Option<String>,
    /// Aggregation.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub agg_fn: Option<String>,
    /// Field aggregated.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub field: Option<String>,
    /// Quantile level of a `quantile` aggregation (0 to 1); the servers draw the median
    /// without one.
    #[serde(
        default,
        deserialize_with = "lenient::opt_f64",
        serialize_with = "number::opt",
        skip_serializing_if = "Option::is_none"
    )]
    pub level: Option<f64>,
    /// Text of a `markdown` series (the servers require it on one).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub content: Option<String>,
    /// Columns of a `search` series (the servers require them on one).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fields: Option<Vec<String>>,
    /// Filter expression. Always sent (`""`, no filter, when absent): the observability
    /// document requires the member on every series.
    #[serde(default, rename = "where", serialize_with = "always_text")]
    pub where_: Option<String>,
    /// `lucene` or `sql`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub where_language: Option<String>,
    /// Group-by fields. Always sent (`[]` when absent): both public documents require the
    /// member on every series, and the real servers reject a series without it.
    #[serde(default, serialize_with = "always_list")]
    pub group_by: Option<Vec<String>>,
    /// Metric name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub metric_name: Option<String>,
    /// `sum`, `gauge`, `histogram`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub metric_data_type: Option<String>,
}

/// Writes an absent list as `[]`.
fn always_text<S: Serializer>(value: &Option<String>, serializer: S) -> Result<S::Ok, S::Error> {
    value.as_deref().unwrap_or_default().serialize(serializer)
}

fn always_list<S: Serializer>(
    value: &Option<Vec<String>>,
    serializer: S,
) -> Result<S::Ok, S::Error> {
    value.as_deref().unwrap_or(&[]).serialize(serializer)
}

/// Body of `POST /api/v2/charts/series`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SeriesQuery {
    /// 1 to 5 series.
    pub series: Vec<Series>,
    /// Epoch milliseconds.
    pub start_time: i64,
    /// Epoch milliseconds.
    pub end_time: i64,
    /// Bucket size (`1m`, ..., `auto`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub granularity: Option<String>,
    /// `ratio` or `column`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub series_return_type: Option<String>,
}

/// One point of a charts/series answer, read tolerantly: `ts_bucket` plus `series_<i>.data`
/// values that may be numbers or numeric strings.
#[derive(Debug, Clone, PartialEq)]
pub struct SeriesPoint {
    /// Bucket start, epoch milliseconds.
    pub ts_bucket: i64,
    /// Value per series index; `None` where the bucket has no value for it.
    pub values: Vec<Option<f64>>,
}

impl SeriesPoint {
    /// Reads one data point object; `None` if it has no usable `ts_bucket`.
    pub fn from_json(object: &serde_json::Map<String, Value>, series: usize) -> Option<Self> {
        let ts_bucket = lenient::value_f64(object.get("ts_bucket")?)? as i64;
        let values = (0..series)
            .map(|i| {
                object
                    .get(&format!("series_{i}.data"))
                    .and_then(lenient::value_f64)
            })
            .collect();
        Some(SeriesPoint { ts_bucket, values })
    }
}
