//! A stack's `sources:`: built from the tree (every member the schema let through kept with
//! its line, checked by kind there), and the rules the schema cannot say (`semantic::source`):
//! the managed stack's document only lists sources, so none is written there, and a source's
//! reference to another source names one the config declares or the server may have.

use indexmap::IndexMap;
use smol_str::SmolStr;

use super::model::{Located, SourceConfig, StackConfig, StackTarget};
use super::yaml::{Key, Kind, Node};
use crate::diagnostic::{Code, Diagnostic};

/// The members that name another source by key or name, and the id member each is sent as.
pub const SOURCE_REFERENCES: [(&str, &str); 4] = [
    ("logSource", "logSourceId"),
    ("traceSource", "traceSourceId"),
    ("metricSource", "metricSourceId"),
    ("sessionSource", "sessionSourceId"),
];

/// The members converge reads itself; every other one is sent as written.
const OWN: [&str; 6] = ["name", "kind", "connection", "renamedFrom", "absent", "key"];

/// A stack's `sources:` by key.
pub(crate) fn build(node: &Node) -> IndexMap<SmolStr, SourceConfig> {
    let entries = node
        .get("sources")
        .and_then(Node::as_map)
        .unwrap_or_default();
    let mut built: IndexMap<SmolStr, SourceConfig> =
        entries.iter().filter_map(|(k, v)| source(k, v)).collect();
    built.shrink_to_fit();
    built
}

fn source(key: &Key, node: &Node) -> Option<(SmolStr, SourceConfig)> {
    let text = |n: &Node| match &n.kind {
        Kind::Str(s) => Some(Located::new(s.clone(), n.span)),
        _ => None,
    };
    let members = node
        .as_map()?
        .iter()
        .filter(|(k, _)| !OWN.contains(&k.name.as_str()))
        .map(|(k, v)| (k.name.clone(), Located::new(v.to_json(), v.span)))
        .collect();
    let renamed_from = match node.get("renamedFrom").map(|n| &n.kind) {
        Some(Kind::Seq(items)) => items.iter().filter_map(text).collect(),
        _ => Vec::new(),
    };
    let config = SourceConfig {
        key: Located::new(key.name.clone(), key.span),
        name: node.get("name").and_then(text)?,
        renamed_from,
        kind: node.get("kind").and_then(text),
        connection: node.get("connection").and_then(text),
        members,
        absent: node
            .get("absent")
            .is_some_and(|n| matches!(n.kind, Kind::Bool(true))),
    };
    Some((key.name.clone(), config))
}

/// Pushes what the stack's sources break.
pub(crate) fn check(stack: &StackConfig, diags: &mut Vec<Diagnostic>) {
    for source in stack.sources.values() {
        if let StackTarget::Managed { .. } = stack.target {
            diags.push(managed(stack, source));
        }
    }
}

fn managed(stack: &StackConfig, source: &SourceConfig) -> Diagnostic {
    Diagnostic::error(
        Code::SemanticSource,
        format!(
            "stack `{}` is a managed stack, whose API only lists sources: converge cannot \
             create them there (source `{}`)",
            stack.key.value, source.key.value
        ),
        Some(source.key.span),
    )
    .with_label("not writable on the managed stack")
    .with_help(
        "make the source in the console and name it where a series needs it: `source: <name>`",
    )
}
