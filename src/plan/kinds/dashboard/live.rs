//! The live side of dashboards: a dashboard as the planner compares it (name, tags, tiles by
//! name; no ids) and as the fingerprint hashes it (with its own and its tiles' ids: an update
//! body carries them forward, so a plan made before tile ids changed must not be applied), with
//! the server's defaults on both sides:
//! - tile `asRatio` absent is `false`;
//! - series `whereLanguage` absent is `lucene` (the stack's default query language), `groupBy`
//!   absent (null) is `[]`;
//! - `containers` absent is `[]` (and left out of the compared value), a container's
//!   `collapsible` and `bordered` absent are `true`, its `tabs` absent `[]`;
//! - tile `config` (today's shape): `fillNulls` absent is `true` (line, stacked bar), `asRatio`
//!   absent is `false` (line, stacked bar, table), `whereLanguage` absent is `lucene`, `where`
//!   absent is `""`, a `count` select item has no `valueExpression` (the server drops one on
//!   read);
//! - `tags` sorted and de-duplicated, tiles sorted by name (tiles are matched by name; their
//!   place is `x`/`y`).

use serde_json::{Map, Value, json};

use crate::api::limits::METRIC_VALUE_COLUMN;
use crate::api::wire::{Container, Dashboard, Series, Tile};
use crate::live::LiveState;
use crate::plan::kind::Live;
use crate::plan::normalize::{RUN_TAG_PREFIX, num, present, put, same_name, text};
use crate::plan::ownership::{Owned, Ownership, tagged_for_another};
use crate::plan::target::{Key, StackRef};

impl Live for Dashboard {
    /// The dashboard with its own and its tiles' ids.
    fn fingerprinted(&self) -> Value {
        dashboard_with_ids(self)
    }
}

impl Owned for Dashboard {
    /// Converge's when tagged with the stack's tag, or listed by the config.
    fn owned(&self, ownership: &Ownership<'_>) -> bool {
        ownership.owns_dashboard_id(&self.id)
    }
}

/// The dashboard of stack `stack` that `key` finds in `live`, as fingerprinted. A create's
/// dashboard found by name (as the server stores names) is never another stack's: one tagged
/// for another stack is that stack's of the same name.
pub(crate) fn current(live: &LiveState, stack: &StackRef, key: Key<'_>) -> Option<Value> {
    live.stacks
        .get(&stack.key)?
        .dashboards
        .iter()
        .find(|d| match key {
            Key::Id(id) => d.id == id,
            Key::Name(name) => same_name(&d.name, name) && !tagged_for_another(&stack.key, d),
        })
        .map(Live::fingerprinted)
}

/// One series.
pub(crate) fn series(series: &Series) -> Value {
    let mut map = Map::new();
    put(&mut map, "type", text(&series.kind));
    put(&mut map, "dataSource", text(&series.data_source));
    put(&mut map, "sourceId", text(&series.source_id));
    put(&mut map, "aggFn", text(&series.agg_fn));
    put(&mut map, "field", text(&series.field));
    put(&mut map, "level", series.level.map(num));
    put(&mut map, "content", text(&series.content));
    put(
        &mut map,
        "fields",
        series.fields.as_ref().map(|f| Value::from(f.clone())),
    );
    put(&mut map, "where", text(&series.where_));
    put(
        &mut map,
        "whereLanguage",
        Some(text(&series.where_language).unwrap_or_else(|| Value::from("lucene"))),
    );
    let group_by: Vec<Value> = series
        .group_by
        .iter()
        .flatten()
        .map(|g| Value::String(g.clone()))
        .collect();
    map.insert("groupBy".into(), Value::Array(group_by));
    put(&mut map, "metricName", text(&series.metric_name));
    put(&mut map, "metricDataType", text(&series.metric_data_type));
    Value::Object(map)
}

/// One `select` item of a tile `config`.
fn select_item(item: Value) -> Value {
    let Value::Object(mut map) = item else {
        return item;
    };
    let agg = map.get("aggFn").and_then(Value::as_str).map(str::to_string);
    if agg.as_deref() == Some("count") {
        map.remove("valueExpression");
    } else if agg.is_some() {
        metric_value_column(&mut map);
    }
    if agg.is_some() {
        map.entry("whereLanguage")
            .or_insert_with(|| Value::from("lucene"));
    }
    Value::Object(map)
}

/// A metric select item (`metricType` set) without a `valueExpression`, as the server's own
/// series translation stores one, is given the metric's [`METRIC_VALUE_COLUMN`]: drawn the same,
/// and what a write must send (the server refuses a non-count item without one).
pub(crate) fn metric_value_column(item: &mut Map<String, Value>) {
    let metric = item
        .get("metricType")
        .and_then(Value::as_str)
        .is_some_and(|t| !t.is_empty());
    let counted = item.get("aggFn").and_then(Value::as_str) == Some("count");
    let empty = item
        .get("valueExpression")
        .and_then(Value::as_str)
        .is_none_or(str::is_empty);
    if metric && !counted && empty {
        item.insert("valueExpression".into(), Value::from(METRIC_VALUE_COLUMN));
    }
}

/// A tile's `config` (today's shape) as compared, with the server's defaults applied.
pub(crate) fn tile_config(config: &Value) -> Value {
    let Some(Value::Object(mut map)) = present(config) else {
        return config.clone();
    };
    if let Some(Value::Array(items)) = map.get_mut("select") {
        for item in items.iter_mut() {
            *item = select_item(std::mem::take(item));
        }
    }
    let display = map
        .get("displayType")
        .and_then(Value::as_str)
        .unwrap_or_default()
        .to_string();
    let builder = !map.contains_key("configType");
    let mut default = |key: &str, value: Value| {
        map.entry(key).or_insert(value);
    };
    if ["line", "stacked_bar"].contains(&display.as_str()) {
        default("fillNulls", Value::Bool(true));
    }
    if builder && ["line", "stacked_bar", "table"].contains(&display.as_str()) {
        default("asRatio", Value::Bool(false));
    }
    if ["search", "heatmap", "event_patterns"].contains(&display.as_str()) {
        default("whereLanguage", Value::from("lucene"));
    }
    // One order whatever the server's: `displayType` first, then by key.
    let mut entries: Vec<(String, Value)> = map.into_iter().collect();
    entries.sort_by(|a, b| (a.0 != "displayType", &a.0).cmp(&(b.0 != "displayType", &b.0)));
    Value::Object(entries.into_iter().collect())
}

/// One tile, with or without its server-assigned id: in today's shape when it carries
/// `config` and no `series`, else in the contract's.
pub(crate) fn tile(tile: &Tile, with_id: bool) -> Value {
    if let Some(config) = tile.config.as_ref().filter(|_| tile.is_newer_format()) {
        let mut map = Map::new();
        if with_id {
            put(&mut map, "id", text(&tile.id));
        }
        map.insert("name".into(), Value::String(tile.name.clone()));
        map.insert("x".into(), Value::from(tile.x));
        map.insert("y".into(), Value::from(tile.y));
        map.insert("w".into(), Value::from(tile.w));
        map.insert("h".into(), Value::from(tile.h));
        map.insert("config".into(), tile_config(&config.value()));
        placed(&mut map, tile);
        return Value::Object(map);
    }
    let mut map = Map::new();
    if with_id {
        put(&mut map, "id", text(&tile.id));
    }
    map.insert("name".into(), Value::String(tile.name.clone()));
    map.insert("x".into(), Value::from(tile.x));
    map.insert("y".into(), Value::from(tile.y));
    map.insert("w".into(), Value::from(tile.w));
    map.insert("h".into(), Value::from(tile.h));
    map.insert(
        "asRatio".into(),
        Value::Bool(tile.as_ratio.unwrap_or(false)),
    );
    map.insert(
        "series".into(),
        Value::Array(tile.series.iter().map(series).collect()),
    );
    placed(&mut map, tile);
    Value::Object(map)
}

/// A tile's container and tab, where it has them (absent: the ungrouped area).
fn placed(map: &mut Map<String, Value>, tile: &Tile) {
    put(map, "containerId", text(&tile.container_id));
    put(map, "tabId", text(&tile.tab_id));
}

/// A dashboard's containers as compared, in their order (the order they are drawn in), with
/// the server's defaults: `collapsible` and `bordered` absent are `true`, `tabs` absent `[]`.
fn containers(containers: &[Container]) -> Value {
    containers
        .iter()
        .map(|c| {
            let tabs: Vec<Value> = c
                .tabs
                .iter()
                .flatten()
                .map(|t| json!({ "id": t.id, "title": t.title }))
                .collect();
            json!({
                "id": c.id,
                "title": c.title,
                "collapsed": c.collapsed,
                "collapsible": c.collapsible.unwrap_or(true),
                "bordered": c.bordered.unwrap_or(true),
                "tabs": tabs,
            })
        })
        .collect()
}

/// Sorted, de-duplicated tags, without a run's tag ([`run_tag`]).
pub(crate) fn tags(tags: &[String]) -> Vec<String> {
    let mut tags: Vec<String> = tags
        .iter()
        .filter(|t| !t.is_empty() && !t.starts_with(RUN_TAG_PREFIX))
        .cloned()
        .collect();
    tags.sort();
    tags.dedup();
    tags
}

fn dashboard_value(dashboard: &Dashboard, with_ids: bool) -> Value {
    let mut tiles: Vec<&Tile> = dashboard.tiles.iter().collect();
    tiles.sort_by(|a, b| a.name.cmp(&b.name));
    let mut value = json!({
        "name": dashboard.name,
        "tags": tags(&dashboard.tags),
        "tiles": tiles.into_iter().map(|t| tile(t, with_ids)).collect::<Vec<_>>(),
    });
    // Only where there are any: dashboards without containers compare as they always have.
    if !dashboard.containers.is_empty()
        && let Value::Object(map) = &mut value
    {
        map.insert("containers".into(), containers(&dashboard.containers));
    }
    value
}

/// A dashboard as compared: name, tags, tiles by name; no ids.
pub(crate) fn dashboard(dashboard: &Dashboard) -> Value {
    dashboard_value(dashboard, false)
}

/// A dashboard with its tile ids, for fingerprints.
pub(crate) fn dashboard_with_ids(dashboard: &Dashboard) -> Value {
    let mut value = dashboard_value(dashboard, true);
    if let Value::Object(map) = &mut value {
        map.insert("id".into(), Value::String(dashboard.id.clone()));
    }
    value
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_make_absent_and_explicit_equal() {
        let bare = Series {
            kind: Some("time".into()),
            ..Default::default()
        };
        let explicit = Series {
            kind: Some("time".into()),
            where_language: Some("lucene".into()),
            group_by: Some(vec![]),
            field: Some(String::new()),
            ..Default::default()
        };
        assert_eq!(series(&bare), series(&explicit));
        let a = Tile {
            name: "t".into(),
            as_ratio: None,
            ..Default::default()
        };
        let b = Tile {
            as_ratio: Some(false),
            id: Some("server-id".into()),
            ..a.clone()
        };
        assert_eq!(tile(&a, false), tile(&b, false));
        assert_ne!(tile(&a, true), tile(&b, true));
    }

    #[test]
    fn tags_sorted_and_tiles_by_name() {
        let d = Dashboard {
            id: "x".into(),
            name: "n".into(),
            tags: vec!["b".into(), "a".into(), "b".into()],
            tiles: vec![
                Tile {
                    name: "z".into(),
                    ..Default::default()
                },
                Tile {
                    name: "a".into(),
                    ..Default::default()
                },
            ],
            containers: Vec::new(),
        };
        let v = dashboard(&d);
        assert_eq!(v["tags"], json!(["a", "b"]));
        assert_eq!(v["tiles"][0]["name"], "a");
        assert!(v.get("id").is_none());
    }
}
