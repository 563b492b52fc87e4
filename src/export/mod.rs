//! `converge export`: the live state written as a config that plans to no changes.
//!
//! Pure: [`export`] takes what was read and returns the YAML text and warnings about objects it
//! had to leave out (a config could not manage them as they are: two dashboards with one name,
//! an alert whose tile is gone). Keys come from names: lowercase, runs of other characters
//! turned into `-`, a `-2`, `-3`... suffix when two names give the same key; objects are
//! visited sorted by name then id, so keys are stable from one export to the next. Tiles keep
//! the server's order: a tile renamed where it stands in that list keeps its id. Nothing else
//! is needed for a later rename: it is declared in the config with `renamedFrom`. Values are
//! written as the planner compares them (defaults and empty strings left out). Connection
//! settings and secrets are `${env:CONVERGE_*}` references; pipe credentials are never read
//! into the output (only scaling is exported).

pub(crate) mod yaml;

use std::collections::{BTreeMap, BTreeSet};

use yaml::Node;

use crate::api::wire::{Alert, Dashboard, Pipe, Series, Service};
use crate::live::StackLive;
use crate::plan::{normalize, tag};

/// Which API a stack to export lives behind.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum ExportTarget {
    /// The managed stack of a service (by id; exported under that service's key).
    Managed {
        /// Service id.
        service_id: String,
    },
    /// The standalone observability API.
    Observability,
}

/// A stack to export with what was read from it.
#[derive(Debug, Clone)]
pub(crate) struct StackExport {
    /// Where it lives.
    pub target: ExportTarget,
    /// Its dashboards, alerts and sources.
    pub live: StackLive,
}

/// Everything an export writes.
#[derive(Debug, Clone, Default)]
pub(crate) struct ExportInput {
    /// Services to export, with their pipes.
    pub services: Vec<(Service, Vec<Pipe>)>,
    /// Services a managed stack names without being exported themselves (their key is needed).
    pub stack_services: Vec<Service>,
    /// Stacks to export.
    pub stacks: Vec<StackExport>,
}

/// The text of an export and what was left out.
#[derive(Debug, Clone, Default)]
pub(crate) struct Exported {
    /// The config, YAML.
    pub yaml: String,
    /// One line per object left out, saying why.
    pub warnings: Vec<String>,
}

/// The ASCII letters an accented Latin letter reads as (`é` is `e`, `ß` is `ss`), so a key
/// made from `Café` stays readable; `None` for anything else.
fn ascii_fold(c: char) -> Option<&'static str> {
    let lower = c.to_lowercase().next().unwrap_or(c);
    Some(match lower {
        'à' | 'á' | 'â' | 'ã' | 'ä' | 'å' | 'ā' | 'ă' | 'ą' => "a",
        'æ' => "ae",
        'ç' | 'ć' | 'č' => "c",
        'ď' | 'đ' | 'ð' => "d",
        'è' | 'é' | 'ê' | 'ë' | 'ē' | 'ė' | 'ę' | 'ě' => "e",
        'ğ' => "g",
        'ì' | 'í' | 'î' | 'ï' | 'ī' | 'į' | 'ı' => "i",
        'ł' | 'ľ' | 'ĺ' => "l",
        'ñ' | 'ń' | 'ň' => "n",
        'ò' | 'ó' | 'ô' | 'õ' | 'ö' | 'ø' | 'ō' | 'ő' => "o",
        'œ' => "oe",
        'ř' | 'ŕ' => "r",
        'ś' | 'š' | 'ş' | 'ș' => "s",
        'ß' => "ss",
        'ť' | 'ţ' | 'ț' => "t",
        'þ' => "th",
        'ù' | 'ú' | 'û' | 'ü' | 'ū' | 'ů' | 'ű' | 'ų' => "u",
        'ý' | 'ÿ' => "y",
        'ź' | 'ż' | 'ž' => "z",
        _ => return None,
    })
}

/// A key from a name: lowercase ASCII letters and digits (accented Latin letters folded to
/// theirs), other runs turned into one `-`.
pub(crate) fn slug(name: &str, fallback: &str) -> String {
    let mut out = String::new();
    for c in name.chars() {
        if c.is_ascii_alphanumeric() {
            out.push(c.to_ascii_lowercase());
        } else if let Some(letters) = ascii_fold(c) {
            out.push_str(letters);
        } else if !out.ends_with('-') && !out.is_empty() {
            out.push('-');
        }
    }
    let out = out.trim_end_matches('-').to_string();
    if out.is_empty() {
        fallback.to_string()
    } else {
        out
    }
}

/// Hands out unique keys: the first `orders` is `orders`, the next `orders-2`.
#[derive(Default)]
struct Keys(BTreeSet<String>);

impl Keys {
    fn take(&mut self, wanted: String) -> String {
        if self.0.insert(wanted.clone()) {
            return wanted;
        }
        let mut n = 2;
        loop {
            let candidate = format!("{wanted}-{n}");
            if self.0.insert(candidate.clone()) {
                return candidate;
            }
            n += 1;
        }
    }
}

fn str(text: &str) -> Node {
    Node::Str(text.to_string())
}

fn reference(name: &str) -> Node {
    Node::Reference(format!("${{env:{name}}}"))
}

fn entry(key: &str, node: Node) -> (String, Node) {
    (key.to_string(), node)
}

fn non_empty(value: &Option<String>) -> Option<&str> {
    value.as_deref().filter(|s| !s.is_empty())
}

/// Writes the config for `input`; `observability` adds the observability API's connection
/// section (the cloud section is written whenever a service or managed stack is exported).
pub(crate) fn export(input: &ExportInput, observability: bool) -> Exported {
    let mut warnings = Vec::new();
    let mut root = vec![
        entry("version", Node::int(1)),
        entry("organization", reference("CONVERGE_ORG_ID")),
    ];
    let needs_cloud = !input.services.is_empty()
        || input
            .stacks
            .iter()
            .any(|s| matches!(s.target, ExportTarget::Managed { .. }));
    if needs_cloud {
        root.push(entry(
            "cloud",
            Node::Map(vec![
                entry("url", reference("CONVERGE_CLOUD_URL")),
                entry("keyId", reference("CONVERGE_KEY_ID")),
                entry("keySecret", reference("CONVERGE_KEY_SECRET")),
            ]),
        ));
    }
    if observability {
        root.push(entry(
            "observability",
            Node::Map(vec![
                entry("url", reference("CONVERGE_OBSERVABILITY_URL")),
                entry("token", reference("CONVERGE_OBS_TOKEN")),
            ]),
        ));
    }

    // Services, by name then id; stack-only services get keys too (a managed stack names one).
    let mut service_keys: BTreeMap<String, String> = BTreeMap::new();
    let mut keys = Keys::default();
    let mut all: Vec<(&Service, Option<&Vec<Pipe>>)> = input
        .services
        .iter()
        .map(|(s, p)| (s, Some(p)))
        .chain(input.stack_services.iter().map(|s| (s, None)))
        .collect();
    all.sort_by(|a, b| (&a.0.name, &a.0.id).cmp(&(&b.0.name, &b.0.id)));
    all.dedup_by(|a, b| a.0.id == b.0.id);
    let mut services = Vec::new();
    for (service, pipes) in all {
        warnings.extend(pipes.into_iter().flatten().filter_map(in_flight));
        let key = keys.take(slug(&service.name, "service"));
        service_keys.insert(service.id.clone(), key.clone());
        services.push((key, service_node(service, pipes)));
    }
    if !services.is_empty() {
        root.push(entry("services", Node::Map(services)));
    }

    let mut stacks = Vec::new();
    let mut stack_keys = Keys::default();
    for stack in &input.stacks {
        let (wanted, target) = match &stack.target {
            ExportTarget::Managed { service_id } => {
                let service_key = service_keys
                    .get(service_id)
                    .cloned()
                    .unwrap_or_else(|| slug(service_id, "service"));
                (service_key.clone(), entry("service", str(&service_key)))
            }
            ExportTarget::Observability => (
                "observability".to_string(),
                entry("api", str("observability")),
            ),
        };
        // A stack converge already manages keeps its key, so its ownership tag stays valid.
        let key = stack_keys.take(owner_key(&stack.live).unwrap_or(wanted));
        let mut node = vec![target];
        stack_body(&key, &stack.live, &mut node, &mut warnings);
        stacks.push((key, Node::Map(node)));
    }
    if !stacks.is_empty() {
        root.push(entry("stacks", Node::Map(stacks)));
    }

    let mut yaml = String::from(
        "# Written by `converge export`. Connection settings and secrets come from the\n\
         # CONVERGE_* environment variables named below.\n",
    );
    yaml.push_str(&yaml::to_string(&root));
    Exported { yaml, warnings }
}

/// A warning for a pipe whose scaling reads a field its source kind scales as null or 0, as
/// the API shows a scaling change still in flight (right after an apply): the export cannot
/// write a value it does not see, and says so instead of exporting a partial scaling quietly.
fn in_flight(pipe: &Pipe) -> Option<String> {
    let scaling = pipe.scaling.as_ref()?;
    let kind = pipe.source.as_ref().and_then(|s| s.kind())?;
    let fields = [
        ("replicas", scaling.replicas.map(|v| v as f64)),
        ("concurrency", scaling.concurrency.map(|v| v as f64)),
        (
            "replicaCpuMillicores",
            scaling.replica_cpu_millicores.map(|v| v as f64),
        ),
        ("replicaMemoryGb", scaling.replica_memory_gb),
    ];
    let unseen: Vec<String> = fields
        .iter()
        .filter(|(field, value)| kind.scales(field) && value.is_none_or(|v| v == 0.0))
        .map(|(field, _)| format!("`{field}`"))
        .collect();
    if unseen.is_empty() {
        return None;
    }
    Some(format!(
        "pipe `{}`: its scaling reads {} as null or 0, as while a scaling change is still in \
         flight; the export leaves {} out: run `converge export` again once the change shows \
         (`converge apply --wait` waits for it)",
        pipe.name,
        unseen.join(", "),
        if unseen.len() == 1 { "it" } else { "them" }
    ))
}

fn service_node(service: &Service, pipes: Option<&Vec<Pipe>>) -> Node {
    let mut node = vec![entry("id", str(&service.id))];
    let Some(pipes) = pipes else {
        return Node::Map(node);
    };
    let mut scaling = Vec::new();
    if let Some(n) = service.num_replicas {
        scaling.push(entry("numReplicas", Node::float(n)));
    }
    scaling.push(entry(
        "idleScaling",
        Node::Bool(service.idle_scaling.unwrap_or(true)),
    ));
    if let Some(n) = service.idle_timeout_minutes {
        scaling.push(entry("idleTimeoutMinutes", Node::float(n)));
    }
    node.push(entry("scaling", Node::Map(scaling)));
    let endpoints = normalize::private_endpoint_ids(service);
    if !endpoints.is_empty() {
        node.push(entry(
            "privateEndpoints",
            Node::List(
                endpoints
                    .iter()
                    .map(|id| Node::Map(vec![entry("id", str(id))]))
                    .collect(),
            ),
        ));
    }
    let mut sorted: Vec<&Pipe> = pipes.iter().collect();
    sorted.sort_by(|a, b| (&a.name, &a.id).cmp(&(&b.name, &b.id)));
    let mut keys = Keys::default();
    let mut pipe_nodes = Vec::new();
    for pipe in sorted {
        let key = keys.take(slug(&pipe.name, "pipe"));
        let mut p = vec![entry("id", str(&pipe.id))];
        if let Some(s) = &pipe.scaling {
            let mut fields = Vec::new();
            if let Some(v) = s.replicas {
                fields.push(entry("replicas", Node::int(v)));
            }
            if let Some(v) = s.concurrency {
                fields.push(entry("concurrency", Node::int(v)));
            }
            if let Some(v) = s.replica_cpu_millicores {
                fields.push(entry("replicaCpuMillicores", Node::int(v)));
            }
            if let Some(v) = s.replica_memory_gb {
                fields.push(entry("replicaMemoryGb", Node::float(v)));
            }
            if !fields.is_empty() {
                p.push(entry("scaling", Node::Map(fields)));
            }
        }
        pipe_nodes.push((key, Node::Map(p)));
    }
    if !pipe_nodes.is_empty() {
        node.push(entry("pipes", Node::Map(pipe_nodes)));
    }
    Node::Map(node)
}

/// The stack key of the ownership tag the stack's dashboards carry, when they agree on one.
fn owner_key(live: &StackLive) -> Option<String> {
    let owners: BTreeSet<&str> = live
        .dashboards
        .iter()
        .flat_map(|d| d.tags.iter())
        .filter_map(|t| tag::owner(t))
        .collect();
    match owners.into_iter().collect::<Vec<_>>().as_slice() {
        // A cut tag (`~hash`) cannot be turned back into its key.
        [one] if !one.contains('~') && slug(one, "") == *one => Some((*one).to_string()),
        _ => None,
    }
}

fn stack_body(
    key: &str,
    live: &StackLive,
    node: &mut Vec<(String, Node)>,
    warnings: &mut Vec<String>,
) {
    let tag = tag::ownership_tag(key);
    let mut by_name: BTreeMap<&str, Vec<&Dashboard>> = BTreeMap::new();
    for d in &live.dashboards {
        by_name.entry(d.name.as_str()).or_default().push(d);
    }
    let mut keys = Keys::default();
    // Dashboard id -> (key, dashboard), for the alerts.
    let mut exported: BTreeMap<&str, (String, &Dashboard)> = BTreeMap::new();
    let mut dashboards = Vec::new();
    for (name, same) in &by_name {
        let [dashboard] = same.as_slice() else {
            warnings.push(format!(
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
            warnings.push(format!(
                "stack {key}: dashboard {name:?} not exported: two tiles are named {:?} (converge matches tiles by name)",
                tile.name
            ));
            continue;
        }
        let dkey = keys.take(slug(name, "dashboard"));
        exported.insert(dashboard.id.as_str(), (dkey.clone(), dashboard));
        dashboards.push((dkey, dashboard_node(dashboard, &tag, live)));
    }
    if !dashboards.is_empty() {
        node.push(entry("dashboards", Node::Map(dashboards)));
    }

    let mut by_name: BTreeMap<&str, Vec<&Alert>> = BTreeMap::new();
    for a in &live.alerts {
        by_name.entry(a.name.as_str()).or_default().push(a);
    }
    let mut keys = Keys::default();
    let mut alerts = Vec::new();
    for (name, same) in &by_name {
        let [alert] = same.as_slice() else {
            warnings.push(format!(
                "stack {key}: {} alerts are named {name:?}; none exported (converge matches alerts by name)",
                same.len()
            ));
            continue;
        };
        match alert_node(alert, &exported) {
            Ok(n) => alerts.push((keys.take(slug(name, "alert")), n)),
            Err(why) => warnings.push(format!("stack {key}: alert {name:?} not exported: {why}")),
        }
    }
    if !alerts.is_empty() {
        node.push(entry("alerts", Node::Map(alerts)));
    }
}

fn dashboard_node(dashboard: &Dashboard, tag: &str, live: &StackLive) -> Node {
    let tags: Vec<Node> = normalize::tags(&dashboard.tags)
        .iter()
        .filter(|t| *t != tag)
        .map(|t| str(t))
        .collect();
    // In the server's order, not sorted: a tile renamed where it stands in this list keeps its
    // id on the next apply only if the list is the live one.
    let tiles = dashboard
        .tiles
        .iter()
        .map(|tile| {
            let mut t = vec![
                entry("name", str(&tile.name)),
                entry("x", Node::int(tile.x)),
                entry("y", Node::int(tile.y)),
                entry("w", Node::int(tile.w)),
                entry("h", Node::int(tile.h)),
            ];
            if tile.as_ratio == Some(true) {
                t.push(entry("asRatio", Node::Bool(true)));
            }
            t.push(entry(
                "series",
                Node::List(tile.series.iter().map(|s| series_node(s, live)).collect()),
            ));
            Node::Map(t)
        })
        .collect();
    let mut node = vec![entry("name", str(&dashboard.name))];
    if !tags.is_empty() {
        node.push(entry("tags", Node::List(tags)));
    }
    node.push(entry("tiles", Node::List(tiles)));
    Node::Map(node)
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
        let source = live.sources.iter().find(|s| s.id == id);
        let unique =
            source.filter(|s| live.sources.iter().filter(|o| o.name == s.name).count() == 1);
        match unique {
            Some(s) if !s.name.is_empty() => node.push(entry("source", str(&s.name))),
            _ => node.push(entry("sourceId", str(id))),
        }
    }
    let mut text = |key: &str, value: &Option<String>| {
        if let Some(v) = non_empty(value) {
            node.push(entry(key, str(v)));
        }
    };
    text("aggFn", &series.agg_fn);
    text("field", &series.field);
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

/// Why an alert is left out of the export (a warning names it).
#[derive(Debug, thiserror::Error)]
enum NotExported {
    #[error("it names no dashboard")]
    NoDashboard,
    #[error("its dashboard {id} was not exported")]
    DashboardLeftOut { id: String },
    #[error("its tile {} is not on dashboard {dashboard:?}", tile.as_deref().unwrap_or("(none)"))]
    TileNotOnDashboard {
        tile: Option<String>,
        dashboard: String,
    },
    /// A member the config needs that the live alert lacks.
    #[error("it has no {member}")]
    Missing { member: &'static str },
}

fn alert_node(
    alert: &Alert,
    dashboards: &BTreeMap<&str, (String, &Dashboard)>,
) -> Result<Node, NotExported> {
    let missing = |member| NotExported::Missing { member };
    let dashboard_id = alert.dashboard.as_deref().ok_or(NotExported::NoDashboard)?;
    let (dashboard_key, dashboard) =
        dashboards
            .get(dashboard_id)
            .ok_or_else(|| NotExported::DashboardLeftOut {
                id: dashboard_id.to_string(),
            })?;
    let tile = dashboard
        .tiles
        .iter()
        .find(|t| t.id.is_some() && t.id == alert.tile_id)
        .ok_or_else(|| NotExported::TileNotOnDashboard {
            tile: alert.tile_id.clone(),
            dashboard: dashboard.name.clone(),
        })?;
    let threshold = alert.threshold.ok_or(missing("threshold"))?;
    let threshold_type = non_empty(&alert.threshold_type).ok_or(missing("thresholdType"))?;
    let interval = non_empty(&alert.interval).ok_or(missing("interval"))?;
    let channel = alert.channel.as_ref().ok_or(missing("channel"))?;
    let mut node = vec![
        entry("name", str(&alert.name)),
        entry("dashboard", str(dashboard_key)),
        entry("tile", str(&tile.name)),
        entry("threshold", Node::float(threshold)),
        entry("thresholdType", str(threshold_type)),
        entry("interval", str(interval)),
    ];
    let mut channel_node = vec![entry("type", str(&channel.kind))];
    if let Some(id) = non_empty(&channel.webhook_id) {
        channel_node.push(entry("webhookId", str(id)));
    }
    node.push(entry("channel", Node::Map(channel_node)));
    if let Some(message) = non_empty(&alert.message) {
        node.push(entry("message", str(message)));
    }
    if let Some(source) = non_empty(&alert.source).filter(|s| *s != "tile") {
        node.push(entry("source", str(source)));
    }
    Ok(Node::Map(node))
}

#[cfg(test)]
mod tests;
