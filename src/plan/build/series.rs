//! Series as the API takes them, sources resolved (preview sends the same shape), and lowered
//! to today's `config` shape the way the server translates them.

use serde_json::{Map, Value};
use smol_str::SmolStr;

use super::names;
use crate::api::limits::METRIC_VALUE_COLUMN;
use crate::api::wire::{Series, Source};
use crate::config::model::{self};
use crate::diagnostic::Diagnostic;

/// Resolves a series' `source:` name to the id the stack's sources list gives it; the
/// diagnostic points at the name and lists the stack's sources. Preview uses it too.
pub(crate) fn resolve_source(
    sources: &[Source],
    name: &model::Located<SmolStr>,
) -> Result<String, Box<Diagnostic>> {
    names::resolve(&names::SOURCE, &names::sources(sources), name)
}

/// A config series as the API takes it, with its source already resolved to an id. Dashboards
/// (the planner) and chart queries (preview, `--check-queries`) send the same shape.
pub(crate) fn wire_series(series: &model::SeriesConfig, source_id: Option<String>) -> Series {
    let text = |v: Option<&model::Located<SmolStr>>| v.map(|v| v.value.to_string());
    // A metric series without `field` aggregates the metric's value column, sent as its
    // `field` (which the server translates to the `valueExpression` it requires).
    let implied = (series.agg_fn.as_ref().is_some_and(|a| a.value != "count")
        && series.metric_name.is_some())
    .then(|| METRIC_VALUE_COLUMN.to_string());
    Series {
        kind: text(series.kind.as_ref()),
        data_source: text(series.data_source.as_ref()),
        source_id,
        agg_fn: text(series.agg_fn.as_ref()),
        field: text(series.field.as_ref()).or(implied),
        level: series.level.as_ref().map(|l| l.value),
        content: text(series.content.as_deref()),
        fields: series
            .fields
            .as_ref()
            .map(|f| f.iter().map(|v| v.value.to_string()).collect()),
        where_: text(series.where_.as_ref()),
        where_language: text(series.where_language.as_ref()),
        group_by: series
            .group_by
            .as_ref()
            .map(|g| g.iter().map(|v| v.value.to_string()).collect()),
        metric_name: text(series.metric_name.as_deref()),
        metric_data_type: text(series.metric_data_type.as_deref()),
    }
}

/// Display types converge models in today's `config` shape (every builder display type of the
/// observability API's current document; raw-SQL tiles take the first six).
pub(crate) const DISPLAY_TYPES: [&str; 10] = [
    "line",
    "stacked_bar",
    "table",
    "number",
    "pie",
    "bar",
    "heatmap",
    "search",
    "markdown",
    "event_patterns",
];

/// Whether converge models a live tile's `config`: an object of a known `displayType` (a
/// PromQL tile or a display type newer than converge is carried over as the server has it).
pub(crate) fn modelled(config: &Value) -> bool {
    let display = config.get("displayType").and_then(Value::as_str);
    let sql = config.get("configType").and_then(Value::as_str);
    display.is_some_and(|d| DISPLAY_TYPES.contains(&d)) && sql.is_none_or(|c| c == "sql")
}

/// A tile's `series` lowered to the `config` a server of today's generation reads back for it,
/// the way the server translates: all series drawn by the first one's `type`, `field` as
/// `valueExpression`, `metricDataType` as `metricType`, the `groupBy` list joined with commas,
/// a number tile keeping its first series only. `Err` says why the server cannot hold it.
pub(crate) fn lower(series: &[Series], as_ratio: Option<bool>) -> Result<Value, String> {
    let Some(first) = series.first() else {
        return Err("a tile needs at least one series".into());
    };
    let mut config = Map::new();
    let kind = first.kind.as_deref().unwrap_or("time");
    let display = match kind {
        "time" => "line",
        "table" | "number" | "search" | "markdown" => kind,
        "histogram" => {
            return Err(
                "today's servers have no `histogram` series; draw it as `config:` with `displayType: heatmap`"
                    .into(),
            );
        }
        other => return Err(format!("no series type `{other}` in today's generation")),
    };
    if let Some(other) = series
        .iter()
        .find(|s| s.kind.as_deref().unwrap_or("time") != kind)
    {
        return Err(format!(
            "the series of one tile share one type; this tile has `{kind}` and `{}`",
            other.kind.as_deref().unwrap_or("time")
        ));
    }
    config.insert("displayType".into(), Value::from(display));
    if display != "markdown" {
        let source = first.source_id.clone().unwrap_or_default();
        config.insert("sourceId".into(), Value::from(source));
    }
    let text = |v: &Option<String>| v.as_deref().filter(|s| !s.is_empty()).map(Value::from);
    match display {
        "line" | "table" => {
            let select = series.iter().map(select_item).collect();
            config.insert("select".into(), Value::Array(select));
            let group_by = first.group_by.as_deref().unwrap_or_default().join(",");
            if !group_by.is_empty() {
                config.insert("groupBy".into(), Value::from(group_by));
            }
            let ratio = as_ratio.unwrap_or(false) && series.len() == 2;
            config.insert("asRatio".into(), Value::Bool(ratio));
            if display == "line" {
                config.insert("fillNulls".into(), Value::Bool(true));
            }
        }
        "number" => {
            config.insert("select".into(), Value::Array(vec![select_item(first)]));
        }
        "search" => {
            let fields = first.fields.as_deref().unwrap_or_default().join(", ");
            config.insert("select".into(), Value::from(fields));
            for (key, value) in [
                ("where", text(&first.where_)),
                ("whereLanguage", text(&first.where_language)),
            ] {
                if let Some(value) = value {
                    config.insert(key.into(), value);
                }
            }
        }
        _ => {
            let content = first.content.clone().unwrap_or_default();
            config.insert("markdown".into(), Value::from(content));
        }
    }
    Ok(Value::Object(config))
}

/// One series as a `config` select item ([`wire_series`] gave a metric series without `field`
/// the metric's [`METRIC_VALUE_COLUMN`]).
fn select_item(series: &Series) -> Value {
    let mut item = Map::new();

    let fields = [
        ("aggFn", &series.agg_fn),
        ("valueExpression", &series.field),
        ("where", &series.where_),
        ("whereLanguage", &series.where_language),
        ("metricName", &series.metric_name),
        ("metricType", &series.metric_data_type),
    ];
    for (key, value) in fields {
        if let Some(value) = value.as_deref().filter(|v| !v.is_empty()) {
            item.insert(key.into(), Value::from(value));
        }
    }
    if let Some(level) = series.level {
        item.insert("level".into(), Value::from(level));
    }
    Value::Object(item)
}

/// A config tile's `config` as sent: `source:` (a name) resolved to `sourceId`, and a search,
/// event-pattern or heatmap tile's `whereLanguage` written (`lucene` when the config leaves it
/// out: the current documents list it as required there). `source_id` resolves the name (the
/// planner's also knows the sources the config declares).
pub(crate) fn resolve_config(
    config: &model::Located<Value>,
    source_id: impl Fn(&model::Located<SmolStr>) -> Result<String, Box<Diagnostic>>,
) -> Result<Value, Box<Diagnostic>> {
    let mut value = config.value.clone();
    if let Value::Object(map) = &mut value
        && map
            .get("displayType")
            .and_then(Value::as_str)
            .is_some_and(|d| ["search", "event_patterns", "heatmap"].contains(&d))
        && !map.contains_key("configType")
    {
        map.entry("whereLanguage")
            .or_insert_with(|| Value::from("lucene"));
    }
    if let Value::Object(map) = &mut value
        && let Some(Value::String(name)) = map.remove("source")
    {
        let id = source_id(&model::Located::new(name.into(), config.span))?;
        map.insert("sourceId".into(), Value::from(id));
    }
    Ok(value)
}
