//! Dashboards of a stack: one per name (converge matches them by name), tiles in the server's
//! order, series naming their source when the name resolves back to the same id.

use crate::plan::kinds::dashboard::live as dashboard_live;
use std::collections::{BTreeMap, BTreeSet};

use serde_json::Value;

use crate::api::wire::{Container, Dashboard, Series, Tile};
use crate::export::build::{Keys, StackWriting, entry, non_empty, slug, str};
use crate::export::yaml::Node;
use crate::live::StackLive;
use crate::plan::kinds::dashboard::carried;
use crate::plan::normalize;

/// `dashboards:` of a stack; records each exported dashboard for the alerts.
pub(super) fn dashboards(writing: &mut StackWriting<'_>, node: &mut Vec<(String, Node)>) {
    let (key, live) = (writing.key, writing.live);
    let mut by_name: BTreeMap<&str, Vec<&Dashboard>> = BTreeMap::new();
    for d in &live.dashboards {
        by_name.entry(d.name.as_str()).or_default().push(d);
    }
    let mut keys = Keys::default();
    let mut dashboards = Vec::new();
    for (name, same) in &by_name {
        let [dashboard] = same.as_slice() else {
            writing.warnings.push(format!(
                "stack {key}: {} dashboards are named {name:?}; none exported (converge matches dashboards by name)",
                same.len()
            ));
            continue;
        };
        let mut tile_names = BTreeSet::new();
        if let Some(tile) = dashboard
            .tiles
            .iter()
            .find(|t| !tile_names.insert(t.name.as_str()))
        {
            writing.warnings.push(format!(
                "stack {key}: dashboard {name:?} not exported: two tiles are named {:?} (converge matches tiles by name)",
                tile.name
            ));
            continue;
        }
        let dkey = keys.take(slug(name, "dashboard"));
        writing
            .dashboards
            .insert(dashboard.id.as_str(), (dkey.clone(), dashboard));
        dashboards.push((dkey, dashboard_node(dashboard, &writing.tag, live)));
    }
    if !dashboards.is_empty() {
        node.push(entry("dashboards", Node::Map(dashboards)));
    }
}

/// One dashboard as an export writes it, without the ownership tag `tag` (also what
/// `drift --adopt` appends).
pub(crate) fn dashboard_node(dashboard: &Dashboard, tag: &str, live: &StackLive) -> Node {
    let tags: Vec<Node> = dashboard_live::tags(&dashboard.tags)
        .iter()
        .filter(|t| *t != tag)
        .map(|t| str(t))
        .collect();
    // In the server's order, not sorted: a tile renamed where it stands in this list keeps its
    // id on the next apply only if the list is the live one.
    // A tile of a kind converge does not model is not written: every update carries it over
    // as the server has it.
    let tiles = dashboard
        .tiles
        .iter()
        .filter(|tile| !carried(tile))
        .map(|tile| tile_node(tile, live))
        .collect();
    let mut node = vec![entry("name", str(&dashboard.name))];
    if !tags.is_empty() {
        node.push(entry("tags", Node::List(tags)));
    }
    if !dashboard.containers.is_empty() {
        let containers = dashboard.containers.iter().map(container_node).collect();
        node.push(entry("containers", Node::List(containers)));
    }
    node.push(entry("tiles", Node::List(tiles)));
    Node::Map(node)
}

/// One grouping container as the server answered it.
fn container_node(container: &Container) -> Node {
    let mut c = vec![
        entry("id", str(&container.id)),
        entry("title", str(&container.title)),
        entry("collapsed", Node::Bool(container.collapsed)),
    ];
    if let Some(collapsible) = container.collapsible {
        c.push(entry("collapsible", Node::Bool(collapsible)));
    }
    if let Some(bordered) = container.bordered {
        c.push(entry("bordered", Node::Bool(bordered)));
    }
    let tabs: Vec<Node> = container
        .tabs
        .iter()
        .flatten()
        .map(|t| Node::Map(vec![entry("id", str(&t.id)), entry("title", str(&t.title))]))
        .collect();
    if !tabs.is_empty() {
        c.push(entry("tabs", Node::List(tabs)));
    }
    Node::Map(c)
}

/// One tile as an export writes it (also what `drift --write` inserts for a tile added live).
pub(crate) fn tile_node(tile: &Tile, live: &StackLive) -> Node {
    let mut t = vec![
        entry("name", str(&tile.name)),
        entry("x", Node::int(tile.x)),
        entry("y", Node::int(tile.y)),
        entry("w", Node::int(tile.w)),
        entry("h", Node::int(tile.h)),
    ];
    if let Some(id) = tile.container_id.as_deref().filter(|id| !id.is_empty()) {
        t.push(entry("containerId", str(id)));
    }
    if let Some(id) = tile.tab_id.as_deref().filter(|id| !id.is_empty()) {
        t.push(entry("tabId", str(id)));
    }
    // In the generation the server speaks: a tile read back with `config` is written as
    // `config` (its `asRatio` inside it).
    if let Some(config) = tile.config.as_ref().filter(|_| tile.is_newer_format()) {
        t.push(entry("config", config_node(&config.value(), live)));
        return Node::Map(t);
    }
    if tile.as_ratio == Some(true) {
        t.push(entry("asRatio", Node::Bool(true)));
    }
    t.push(entry(
        "series",
        Node::List(tile.series.iter().map(|s| series_node(s, live)).collect()),
    ));
    Node::Map(t)
}

/// `source: <name>` when the name resolves back to this very id, else `sourceId: <id>`.
fn source_entry(id: &str, live: &StackLive) -> (String, Node) {
    let source = live.sources.iter().find(|s| s.id == id);
    let unique = source.filter(|s| live.sources.iter().filter(|o| o.name == s.name).count() == 1);
    match unique {
        Some(s) if !s.name.is_empty() => entry("source", str(&s.name)),
        _ => entry("sourceId", str(id)),
    }
}

/// A tile's `config` as read, without what is absent to the server (nulls, empty strings),
/// its `sourceId` named by source when the name resolves back to it, a metric select item
/// stored without its value column given it (so the export validates, and plans empty).
fn config_node(config: &Value, live: &StackLive) -> Node {
    let Some(Value::Object(mut map)) = normalize::present(config) else {
        return Node::Map(Vec::new());
    };
    if let Some(Value::Array(items)) = map.get_mut("select") {
        for item in items {
            if let Value::Object(item) = item {
                dashboard_live::metric_value_column(item);
            }
        }
    }
    let entries = map
        .iter()
        .map(|(key, value)| match (key.as_str(), value) {
            ("sourceId", Value::String(id)) => source_entry(id, live),
            _ => entry(key, value_node(value)),
        })
        .collect();
    Node::Map(entries)
}

fn value_node(value: &Value) -> Node {
    match value {
        Value::Bool(b) => Node::Bool(*b),
        Value::Number(n) => Node::Num(n.to_string()),
        Value::String(s) => str(s),
        Value::Array(items) => Node::List(items.iter().map(value_node).collect()),
        Value::Object(map) => Node::Map(map.iter().map(|(k, v)| entry(k, value_node(v))).collect()),
        // `present` leaves none.
        Value::Null => Node::Map(Vec::new()),
    }
}

fn series_node(series: &Series, live: &StackLive) -> Node {
    let mut node = Vec::new();
    let mut text = |key: &str, value: &Option<String>| {
        if let Some(v) = non_empty(value) {
            node.push(entry(key, str(v)));
        }
    };
    text("type", &series.kind);
    text("dataSource", &series.data_source);
    if let Some(id) = non_empty(&series.source_id) {
        // A name reads better, but only when it resolves back to this very id.
        node.push(source_entry(id, live));
    }
    let mut text = |key: &str, value: &Option<String>| {
        if let Some(v) = non_empty(value) {
            node.push(entry(key, str(v)));
        }
    };
    text("aggFn", &series.agg_fn);
    text("field", &series.field);
    if let Some(level) = series.level {
        node.push(entry("level", Node::float(level)));
    }
    if let Some(content) = non_empty(&series.content) {
        node.push(entry("content", str(content)));
    }
    if let Some(fields) = &series.fields {
        node.push(entry(
            "fields",
            Node::List(fields.iter().map(|f| str(f)).collect()),
        ));
    }
    let mut text = |key: &str, value: &Option<String>| {
        if let Some(v) = non_empty(value) {
            node.push(entry(key, str(v)));
        }
    };
    text("where", &series.where_);
    text("whereLanguage", &series.where_language);
    if let Some(group_by) = series.group_by.as_ref().filter(|g| !g.is_empty()) {
        node.push(entry(
            "groupBy",
            Node::List(group_by.iter().map(|g| str(g)).collect()),
        ));
    }
    let mut text = |key: &str, value: &Option<String>| {
        if let Some(v) = non_empty(value) {
            node.push(entry(key, str(v)));
        }
    };
    text("metricName", &series.metric_name);
    text("metricDataType", &series.metric_data_type);
    Node::Map(node)
}
