//! The document the rules read as `input` (`schema/policy-input.schema.json`, version
//! [`VERSION`]): the config's objects as written (templates expanded) with their place, the
//! plan's changes field by field, and the live objects the plan read. Built from what the plan
//! already holds and the config's files; nothing is read from the APIs for it.

use serde_json::{Map, Value, json};

use crate::address::Address;
use crate::config::model::Sources;
use crate::config::yaml::Node;
use crate::diagnostic::Span;
use crate::plan::Plan;
use crate::writeback::locate;

/// The version of the input's shape; a rule can check `input.version`.
pub(crate) const VERSION: u32 = 1;

/// The config's tree (merged, templates expanded), read once for the input and for placing
/// findings at their line.
pub(crate) struct Tree {
    root: Option<Node>,
}

impl Tree {
    /// The tree of `sources`.
    pub(crate) fn read(sources: &Sources) -> Tree {
        Tree {
            root: locate::expanded(sources),
        }
    }

    /// The node of the config entry that holds `address` (its key's place and its value): the
    /// object itself, else (a live object the config does not list, as a pruned dashboard) its
    /// service's or stack's entry.
    pub(crate) fn object(&self, address: &str) -> Option<(Span, &Node)> {
        let parsed = Address::parse(address)?;
        if let Some(found) = parsed.config_keys().and_then(|keys| self.at(&keys)) {
            return Some(found);
        }
        match (parsed.service(), parsed.stack()) {
            (Some(service), _) => self.at(&["services", service]),
            (None, Some(stack)) => self.at(&["stacks", stack]),
            (None, None) => None,
        }
    }

    /// The object the config writes at `address` itself, with its key's place.
    fn written(&self, address: &str) -> Option<(Span, &Node)> {
        self.at(&Address::parse(address)?.config_keys()?)
    }

    /// The node under `keys` from the root, with the last key's place.
    fn at(&self, keys: &[&str]) -> Option<(Span, &Node)> {
        let mut node = self.root.as_ref()?;
        let mut span = node.span;
        for key in keys {
            let (k, child) = node.as_map()?.iter().find(|(k, _)| k.name == *key)?;
            span = k.span;
            node = child;
        }
        Some((span, node))
    }

    /// Where `field` (a path such as `scaling.maxReplicas` or `tiles[Errors].where`) of the
    /// object at `address` is written; `None` when the object is not in the config. A field
    /// that is not written falls back to the object's own line.
    pub(crate) fn place(&self, address: &str, field: Option<&str>) -> Option<Span> {
        let (span, node) = self.object(address)?;
        let Some(field) = field.filter(|f| !f.is_empty()) else {
            return Some(span);
        };
        Some(locate::find(node, &locate::steps(field), "").map_or(span, |(found, _)| found.span))
    }
}

/// The objects the config writes at the addresses of `plan`, in plan order: `{address, kind,
/// place, value}` (what a saved plan records, so that `apply --plan` evaluates on them again).
pub(crate) fn config_objects(plan: &Plan, tree: &Tree, sources: &Sources) -> Vec<Value> {
    plan.changes
        .iter()
        .filter_map(|change| {
            let address = change.address.to_string();
            let (span, node) = tree.written(&address)?;
            Some(json!({
                "address": address,
                "kind": kind_of(&address),
                "place": place(span, sources),
                "value": node.to_json(),
            }))
        })
        .collect()
}

/// The input of the rules for `plan`, with the config's objects `config`.
pub(crate) fn build(plan: &Plan, config: Vec<Value>) -> Value {
    let mut live = Vec::new();
    let mut changes = Vec::new();
    for change in &plan.changes {
        let address = change.address.to_string();
        let kind = kind_of(&address);
        if let Some(before) = &change.before {
            live.push(json!({ "address": address, "kind": kind, "value": before }));
        }
        let fields: Vec<Value> = change
            .fields
            .iter()
            .map(|f| json!({ "path": f.path, "before": f.before, "after": f.after }))
            .collect();
        changes.push(json!({
            "address": address,
            "kind": kind,
            "action": change.action.as_str(),
            "reason": change.reason,
            "before": change.before,
            "after": change.after,
            "fields": fields,
        }));
    }
    let unmanaged: Vec<Value> = plan
        .unmanaged
        .iter()
        .map(|u| json!({ "address": u.address.to_string(), "reason": u.reason }))
        .collect();
    let mut input = Map::new();
    input.insert("version".into(), json!(VERSION));
    input.insert("organization".into(), json!(plan.organization));
    input.insert("config".into(), Value::Array(config));
    input.insert(
        "plan".into(),
        json!({ "partial": plan.is_partial(), "changes": changes, "unmanaged": unmanaged }),
    );
    input.insert("live".into(), Value::Array(live));
    Value::Object(input)
}

/// The kind an address names: its first segment (`service`, `pipe`, `dashboard`, `alert`,
/// `webhook`, `check`).
fn kind_of(address: &str) -> &str {
    address.split(['.', '[']).next().unwrap_or(address)
}

/// `{file, line, column}` of a span.
pub(crate) fn place(span: Span, sources: &Sources) -> Value {
    let file = sources
        .file(span.file_index())
        .map(|f| crate::output::path_text(&f.path))
        .unwrap_or_default();
    json!({ "file": file, "line": span.line, "column": span.column })
}
