//! Drift found in today's `config` shape written back into a tile the config writes as the
//! contract's `series` shorthand. The server lowers `series` into `config` (see
//! `plan::build::series::lower`); here a drifted `config` field is traced back to the
//! shorthand field it was lowered from, when exactly one holds it. A field the shorthand
//! cannot express (a display type, a source id, `fillNulls`, a `groupBy` string that was a
//! list) has no shorthand path, and goes to a person.

use serde_json::Value;

use super::locate;
use crate::api::wire::{Series, Tile};
use crate::plan::build::series;
use crate::plan::normalize;

/// The path of the shorthand field a drifted `config` field of a tile was lowered from:
/// `tiles[Errors].config.select[0].where` is `tiles[Errors].series[0].where`. `None` when the
/// path is no tile `config` field, or no single shorthand scalar holds it.
pub(crate) fn series_path(path: &str) -> Option<String> {
    let (tile, rest) = path.split_once("].config.")?;
    if !tile.starts_with("tiles[") {
        return None;
    }
    let field = match rest.strip_prefix("select[") {
        Some(inner) => {
            let (index, field) = inner.split_once("].")?;
            index.parse::<usize>().ok()?;
            let field = select_field(field)?;
            return Some(format!("{tile}].series[{index}].{field}"));
        }
        // A search tile's query is its only series' `where`.
        None => match rest {
            "where" | "whereLanguage" => format!("series[0].{rest}"),
            "asRatio" => "asRatio".to_string(),
            // The server joins the first series' list with commas.
            "groupBy" => "series[0].groupBy".to_string(),
            _ => return None,
        },
    };
    Some(format!("{tile}].{field}"))
}

/// A value of the drifted `config` field at `path` as the shorthand field it maps to writes
/// it: a `groupBy` string is the list it was joined from (empty: no entries).
pub(crate) fn as_written(path: &str, value: &Value) -> Value {
    match value.as_str() {
        Some(joined) if path.ends_with("].config.groupBy") => Value::Array(
            joined
                .split(',')
                .map(str::trim)
                .filter(|g| !g.is_empty())
                .map(Value::from)
                .collect(),
        ),
        _ => value.clone(),
    }
}

/// Whether the tile of the drifted `config.groupBy` at `path` writes its series' `groupBy` as an
/// empty list (which lowers to no `groupBy`).
pub(crate) fn writes_empty_group_by(node: &crate::config::yaml::Node, path: &str) -> bool {
    if !path.ends_with("].config.groupBy") {
        return false;
    }
    series_path(path)
        .and_then(|shorthand| locate::find(node, &locate::steps(&shorthand), ""))
        .is_some_and(|(value, _)| {
            matches!(&value.kind, crate::config::yaml::Kind::Seq(items) if items.is_empty())
        })
}

/// The shorthand name of a select item's field.
fn select_field(field: &str) -> Option<&'static str> {
    Some(match field {
        "aggFn" => "aggFn",
        "valueExpression" => "field",
        "where" => "where",
        "whereLanguage" => "whereLanguage",
        "level" => "level",
        "metricName" => "metricName",
        "metricType" => "metricDataType",
        _ => return None,
    })
}

/// A tile read in today's `config` shape, written back as the `series` shorthand when the
/// shorthand lowers to exactly that `config` (so the file says what is live); `None` when it
/// cannot (a display type, a field or a setting the shorthand has no word for).
pub(crate) fn as_series(tile: &Tile) -> Option<Tile> {
    let config = tile.config.as_ref()?.value();
    let config = &config;
    let kind = match config.get("displayType")?.as_str()? {
        "line" => "time",
        other @ ("table" | "number") => other,
        _ => return None,
    };
    let text = |v: &Value, key: &str| v.get(key).and_then(Value::as_str).map(str::to_string);
    let source_id = text(config, "sourceId");
    let mut series: Vec<Series> = config
        .get("select")?
        .as_array()?
        .iter()
        .map(|item| Series {
            kind: Some(kind.to_string()),
            source_id: source_id.clone(),
            agg_fn: text(item, "aggFn"),
            field: text(item, "valueExpression"),
            where_: text(item, "where"),
            where_language: text(item, "whereLanguage"),
            level: item.get("level").and_then(Value::as_f64),
            metric_name: text(item, "metricName"),
            metric_data_type: text(item, "metricType"),
            ..Series::default()
        })
        .collect();
    let group_by = text(config, "groupBy").map(|g| g.split(',').map(str::to_string).collect());
    if let Some(first) = series.first_mut() {
        first.group_by = group_by;
    }
    let as_ratio = config.get("asRatio").and_then(Value::as_bool);
    let lowered = series::lower(&series, as_ratio).ok()?;
    let same = normalize::present(&lowered)
        .zip(normalize::present(config))
        .is_some_and(|(a, b)| locate::same(&a, &b));
    same.then(|| Tile {
        as_ratio: as_ratio.filter(|r| *r),
        series,
        config: None,
        ..tile.clone()
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_select_field_maps_to_its_series_field() {
        assert_eq!(
            series_path("tiles[Errors].config.select[0].where").as_deref(),
            Some("tiles[Errors].series[0].where")
        );
        assert_eq!(
            series_path("tiles[a.b].config.select[1].valueExpression").as_deref(),
            Some("tiles[a.b].series[1].field")
        );
        assert_eq!(
            series_path("tiles[Errors].config.asRatio").as_deref(),
            Some("tiles[Errors].asRatio")
        );
    }

    #[test]
    fn a_group_by_string_is_the_list_it_was_joined_from() {
        let path = "tiles[Errors].config.groupBy";
        assert_eq!(
            series_path(path).as_deref(),
            Some("tiles[Errors].series[0].groupBy")
        );
        assert_eq!(
            as_written(path, &serde_json::json!("service,host")),
            serde_json::json!(["service", "host"])
        );
        assert_eq!(
            as_written(
                "tiles[Errors].config.select[0].where",
                &serde_json::json!("a,b")
            ),
            serde_json::json!("a,b")
        );
    }

    #[test]
    fn what_the_shorthand_cannot_express_has_no_path() {
        assert_eq!(series_path("tiles[Errors].config.displayType"), None);
        assert_eq!(series_path("tiles[Errors].config.fillNulls"), None);
        assert_eq!(series_path("tiles[Errors].config.select[0].alias"), None);
        assert_eq!(series_path("tiles[Errors].x"), None);
    }
}
