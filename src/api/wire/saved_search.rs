//! Saved searches of a stack (`SavedSearch` and `SavedSearchInput` of the observability API):
//! what an alert with `source: saved_search` watches by `savedSearchId`.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::lenient;

/// A saved search as the server answers it (`toExternalJSON`): every member the input takes,
/// with the server's defaults applied (`''`, `lucene`, `[]`).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SavedSearch {
    /// Id an alert's `savedSearchId` names.
    #[serde(default, deserialize_with = "lenient::or_default")]
    pub id: String,
    /// Display name (the server trims it).
    #[serde(default, deserialize_with = "lenient::or_default")]
    pub name: String,
    /// The source it queries.
    #[serde(default, deserialize_with = "lenient::or_default")]
    pub source_id: String,
    /// Column expressions shown (empty: the source's default).
    #[serde(default, deserialize_with = "lenient::or_default")]
    pub select: String,
    /// Row filter, in `where_language`.
    #[serde(default, rename = "where", deserialize_with = "lenient::or_default")]
    pub where_: String,
    /// `lucene` or `sql`.
    #[serde(default, deserialize_with = "lenient::or_default")]
    pub where_language: String,
    /// ORDER BY expression (empty: the source's default).
    #[serde(default, deserialize_with = "lenient::or_default")]
    pub order_by: String,
    /// Tags, as stored.
    #[serde(default, deserialize_with = "lenient::or_default")]
    pub tags: Vec<String>,
    /// Pinned filters (`{type, condition}`, or a stored `sql_ast` shape), as stored.
    #[serde(default, deserialize_with = "lenient::or_default")]
    pub filters: Vec<Value>,
}

/// A saved search create or update body (`SavedSearchInput`). The `PUT` is a full replace:
/// every member is sent.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SavedSearchRequest {
    /// Display name.
    pub name: String,
    /// The source it queries.
    pub source_id: String,
    /// Column expressions shown.
    pub select: String,
    /// Row filter.
    #[serde(rename = "where")]
    pub where_: String,
    /// `lucene` or `sql`.
    pub where_language: String,
    /// ORDER BY expression.
    pub order_by: String,
    /// Tags.
    pub tags: Vec<String>,
    /// Pinned filters.
    pub filters: Vec<Value>,
}
