//! From a config tile to chart data: the tile's series as the API takes them (source names
//! resolved), the charts/series requests (at most five series each) and the lines drawn.

use std::collections::BTreeMap;

use reqwest::Method;
use serde_json::Value;

use crate::api::error::ApiError;
use crate::api::limits::CHART_SERIES_MAX;
use crate::api::observability::ObservabilityClient;
use crate::api::transport::Call;
use crate::api::wire::{Series, SeriesPoint, SeriesQuery, Source};
use crate::config::model::{SourceRef, TileConfig};
use crate::diagnostic::Diagnostic;

use super::model::Line;

/// A tile's series as the API takes them, `source:` names resolved through `sources`: its
/// `series`, or for a `config` tile one series per `select` item (`valueExpression` as
/// `field`, the item's `where`, the tile's comma-joined `groupBy` as a list).
pub(crate) fn tile_series(
    tile: &TileConfig,
    sources: &[Source],
) -> Result<Vec<Series>, Box<Diagnostic>> {
    if let Some(config) = &tile.config {
        let config = crate::plan::build::resolve_config(config, |name| {
            crate::plan::build::resolve_source(sources, name)
        })?;
        return Ok(select_series(&config));
    }
    tile.series
        .iter()
        .map(|s| {
            let source_id = match &s.source {
                None => None,
                Some(SourceRef::Id(id)) => Some(id.value.to_string()),
                Some(SourceRef::Name(name)) => {
                    Some(crate::plan::build::resolve_source(sources, name)?)
                }
            };
            let mut series = crate::plan::build::wire_series(s, source_id);
            // charts/series requires an aggregation (`series.0.aggFn: Required`); a search
            // tile's query is checked as the count of the rows it lists.
            if series.kind.as_deref() == Some("search") && series.agg_fn.is_none() {
                series.agg_fn = Some("count".into());
                series.fields = None;
            }
            Ok(series)
        })
        .collect()
}

/// A builder `config`'s aggregated `select` items as chart series (none for a tile without
/// them: markdown, search, event patterns, heatmap, raw SQL).
fn select_series(config: &Value) -> Vec<Series> {
    let text = |v: &Value, key: &str| {
        v.get(key)
            .and_then(Value::as_str)
            .filter(|s| !s.is_empty())
            .map(str::to_string)
    };
    let group_by: Vec<String> = text(config, "groupBy")
        .map(|g| g.split(',').map(|p| p.trim().to_string()).collect())
        .unwrap_or_default();
    let items = config.get("select").and_then(Value::as_array);
    items
        .into_iter()
        .flatten()
        .filter(|item| item.get("aggFn").is_some())
        .map(|item| Series {
            kind: Some("time".into()),
            data_source: None,
            source_id: text(config, "sourceId"),
            agg_fn: text(item, "aggFn"),
            field: text(item, "valueExpression"),
            level: item.get("level").and_then(Value::as_f64),
            content: None,
            fields: None,
            where_: text(item, "where"),
            where_language: text(item, "whereLanguage"),
            group_by: Some(group_by.clone()),
            metric_name: text(item, "metricName"),
            metric_data_type: text(item, "metricType"),
        })
        .collect()
}

/// Whether a tile has a query to draw: `series`, or a `config` with aggregated `select` items.
pub(crate) fn has_query(tile: &TileConfig) -> bool {
    match &tile.config {
        Some(config) => !select_series(&config.value).is_empty(),
        None => !tile.series.is_empty(),
    }
}

/// Whether a tile runs a query: a tile whose series are all `type: markdown` is text only, so
/// there is nothing to check or draw.
pub(crate) fn is_text_only(tile: &TileConfig) -> bool {
    !tile.series.is_empty()
        && tile
            .series
            .iter()
            .all(|s| s.kind.as_ref().is_some_and(|k| k.value == "markdown"))
}

/// The requests for a set of series: consecutive groups of at most five (the API's limit),
/// so a tile with more is split and each request stays within 1 to 5 series.
pub(crate) fn chunks(series: &[Series]) -> impl Iterator<Item = (usize, &[Series])> {
    series
        .chunks(CHART_SERIES_MAX)
        .enumerate()
        .map(|(i, chunk)| (i * CHART_SERIES_MAX, chunk))
}

/// One bucket of one group, with a value slot per series of the tile.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct RawPoint {
    /// Bucket start (epoch ms).
    pub ts: i64,
    /// Group-by values (empty without `groupBy`).
    pub group: Vec<String>,
    /// Value of each series; `None` where the answer had none.
    pub values: Vec<Option<f64>>,
}

/// Sends one charts/series request and reads its points (values as numbers or numeric strings,
/// points without a usable `ts_bucket` skipped) with their groups.
pub(crate) async fn request(
    client: &ObservabilityClient,
    query: &SeriesQuery,
) -> Result<Vec<RawPoint>, ApiError> {
    let call = Call::new("query chart series", Method::POST, "/api/v2/charts/series")
        .json(query)?
        .idempotent();
    let points: Vec<Value> = client.api().observability_data(&call).await?;
    Ok(points
        .iter()
        .filter_map(Value::as_object)
        .filter_map(|object| {
            let point = SeriesPoint::from_json(object, query.series.len())?;
            let group = match object.get("group") {
                Some(Value::Array(items)) => items
                    .iter()
                    .map(|v| match v {
                        Value::String(s) => s.clone(),
                        other => other.to_string(),
                    })
                    .collect(),
                Some(Value::String(s)) => vec![s.clone()],
                _ => Vec::new(),
            };
            Some(RawPoint {
                ts: point.ts_bucket,
                group,
                values: point.values,
            })
        })
        .collect())
}

/// Fetches every series of a tile over a window, one request per five series, and merges the
/// answers bucket by bucket.
pub(crate) async fn fetch(
    client: &ObservabilityClient,
    series: &[Series],
    start_ms: i64,
    end_ms: i64,
    granularity: &str,
) -> Result<Vec<RawPoint>, ApiError> {
    let mut merged: BTreeMap<(Vec<String>, i64), Vec<Option<f64>>> = BTreeMap::new();
    for (offset, chunk) in chunks(series) {
        let query = SeriesQuery {
            series: chunk.to_vec(),
            start_time: start_ms,
            end_time: end_ms,
            granularity: Some(granularity.to_string()),
            series_return_type: None,
        };
        for point in request(client, &query).await? {
            let slots = merged
                .entry((point.group, point.ts))
                .or_insert_with(|| vec![None; series.len()]);
            for (i, value) in point.values.into_iter().enumerate() {
                if let Some(slot) = slots.get_mut(offset + i) {
                    *slot = value;
                }
            }
        }
    }
    Ok(merged
        .into_iter()
        .map(|((group, ts), values)| RawPoint { ts, group, values })
        .collect())
}

/// What a series shows, e.g. `count` or `quantile(duration)`.
pub(crate) fn describe(series: &Series) -> String {
    let agg = series.agg_fn.as_deref().unwrap_or("?");
    match series.field.as_deref().or(series.metric_name.as_deref()) {
        Some(field) => format!("{agg}({field})"),
        None => agg.to_string(),
    }
}

/// The lines of a tile: with `asRatio`, series 0 divided by series 1 (a bucket missing either
/// value, or dividing by zero, is a gap); otherwise one line per series. Each group gets its own
/// line. Lines of series 0 (or the ratio) come first and are the ones an alert evaluates.
pub(crate) fn lines(series: &[Series], as_ratio: bool, points: &[RawPoint]) -> Vec<Line> {
    let mut groups: BTreeMap<&[String], Vec<&RawPoint>> = BTreeMap::new();
    for point in points {
        groups.entry(&point.group).or_default().push(point);
    }
    let with_group = |label: String, group: &[String]| {
        if group.is_empty() {
            label
        } else {
            format!("{label} · {}", group.join(", "))
        }
    };
    let mut out = Vec::new();
    if as_ratio && series.len() >= 2 {
        let label = format!("{} / {}", describe(&series[0]), describe(&series[1]));
        for (group, points) in &groups {
            let values = points
                .iter()
                .filter_map(|p| match (p.values.first(), p.values.get(1)) {
                    (Some(Some(a)), Some(Some(b))) if *b != 0.0 => Some((p.ts, a / b)),
                    _ => None,
                })
                .collect();
            out.push(Line {
                label: with_group(label.clone(), group),
                group: group.to_vec(),
                points: values,
                evaluated: true,
            });
        }
        return out;
    }
    for (i, s) in series.iter().enumerate() {
        let label = if series.len() > 1 {
            format!("series {i}: {}", describe(s))
        } else {
            describe(s)
        };
        for (group, points) in &groups {
            let values = points
                .iter()
                .filter_map(|p| p.values.get(i).copied().flatten().map(|v| (p.ts, v)))
                .collect();
            out.push(Line {
                label: with_group(label.clone(), group),
                group: group.to_vec(),
                points: values,
                evaluated: i == 0,
            });
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn point(ts: i64, values: &[Option<f64>]) -> RawPoint {
        RawPoint {
            ts,
            group: Vec::new(),
            values: values.to_vec(),
        }
    }

    fn count() -> Series {
        Series {
            agg_fn: Some("count".into()),
            ..Series::default()
        }
    }

    #[test]
    fn ratio_divides_and_leaves_gaps_for_missing_or_zero_denominators() {
        let points = [
            point(0, &[Some(10.0), Some(4.0)]),
            point(60, &[Some(1.0), None]),
            point(120, &[Some(3.0), Some(0.0)]),
            point(180, &[Some(6.0), Some(3.0)]),
        ];
        let lines = lines(&[count(), count()], true, &points);
        assert_eq!(lines.len(), 1);
        assert_eq!(lines[0].points, vec![(0, 2.5), (180, 2.0)]);
        assert!(lines[0].evaluated);
    }

    #[test]
    fn without_ratio_each_series_is_a_line_and_only_the_first_is_evaluated() {
        let points = [
            point(0, &[Some(1.0), Some(2.0)]),
            point(60, &[None, Some(5.0)]),
        ];
        let lines = lines(&[count(), count()], false, &points);
        assert_eq!(lines.len(), 2);
        assert_eq!(lines[0].points, vec![(0, 1.0)]);
        assert_eq!(lines[1].points, vec![(0, 2.0), (60, 5.0)]);
        assert!(lines[0].evaluated && !lines[1].evaluated);
    }

    #[test]
    fn more_than_five_series_are_split() {
        let series = vec![count(); 7];
        let sizes: Vec<(usize, usize)> = chunks(&series).map(|(o, c)| (o, c.len())).collect();
        assert_eq!(sizes, vec![(0, 5), (5, 2)]);
    }
}
