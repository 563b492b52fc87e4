//! A stack's `savedSearches:`: each entry built into a [`SavedSearchConfig`], and the rules the
//! schema cannot say (`semantic::saved-search`): saved searches live on the observability API
//! only (the managed stack's document has none), each names its source once (`source` or
//! `sourceId`), its name is unique in the stack (alerts name it by name), and `renamedFrom`
//! names one saved search (`semantic::rename-conflict`, as for other kinds).

use std::collections::HashMap;

use indexmap::IndexMap;
use smol_str::SmolStr;

use super::model::{Located, SavedSearchConfig, SourceRef, StackConfig, StackTarget};
use super::yaml::{Key, Kind, Node};
use crate::diagnostic::{Code, Diagnostic, Span};

/// The stack's `savedSearches:`, by key.
pub(crate) fn build(node: &Node) -> IndexMap<SmolStr, SavedSearchConfig> {
    node.get("savedSearches")
        .and_then(Node::as_map)
        .unwrap_or_default()
        .iter()
        .filter_map(|(key, entry)| Some((key.name.clone(), one(key, entry)?)))
        .collect()
}

fn one(key: &Key, node: &Node) -> Option<SavedSearchConfig> {
    let source = match (node.get("sourceId"), node.get("source")) {
        // Both written: reported by `check`; the id is the one the server would take.
        (Some(id), _) => text(id).map(SourceRef::Id),
        (None, Some(name)) => text(name).map(SourceRef::Name),
        (None, None) => None,
    };
    Some(SavedSearchConfig {
        key: Located::new(key.name.clone(), key.span),
        name: node.get("name").and_then(text)?,
        renamed_from: texts(node.get("renamedFrom")),
        source,
        select: node.get("select").and_then(text),
        where_: node.get("where").and_then(text),
        where_language: node.get("whereLanguage").and_then(text),
        order_by: node.get("orderBy").and_then(text),
        tags: texts(node.get("tags")),
        filters: texts(node.get("filters")),
        absent: node
            .get("absent")
            .is_some_and(|a| matches!(a.kind, Kind::Bool(true))),
        span: node.span,
    })
}

fn text(node: &Node) -> Option<Located<SmolStr>> {
    match &node.kind {
        Kind::Str(s) => Some(Located::new(s.clone(), node.span)),
        _ => None,
    }
}

fn texts(node: Option<&Node>) -> Vec<Located<SmolStr>> {
    match node.map(|n| &n.kind) {
        Some(Kind::Seq(items)) => items.iter().filter_map(text).collect(),
        _ => Vec::new(),
    }
}

/// Pushes what the stack's saved searches break; `written` is the stack's tree (where a
/// saved search wrote both `source` and `sourceId`).
pub(crate) fn check(stack: &StackConfig, written: Option<&Node>, diags: &mut Vec<Diagnostic>) {
    if stack.saved_searches.is_empty() {
        return;
    }
    if let StackTarget::Managed { .. } = stack.target {
        for search in stack.saved_searches.values() {
            diags.push(
                Diagnostic::error(
                    Code::SemanticSavedSearch,
                    format!(
                        "stack `{}` is a managed stack, whose API has no saved searches: \
                         converge cannot create saved search `{}` there",
                        stack.key.value, search.key.value
                    ),
                    Some(search.key.span),
                )
                .with_label("not on the managed stack")
                .with_help("declare saved searches on a stack with `api: observability`"),
            );
        }
        return;
    }
    super::rename_rules::renames(
        "saved search",
        ("stack", &stack.key.value),
        stack
            .saved_searches
            .values()
            .map(|s| (&s.name, s.renamed_from.as_slice())),
        diags,
    );
    let mut names: HashMap<&str, Span> = HashMap::new();
    for search in stack.saved_searches.values() {
        both_sources(search, written, diags);
        if search.source.is_none() && !search.absent {
            diags.push(
                Diagnostic::error(
                    Code::SemanticSavedSearch,
                    format!("saved search `{}` names no source", search.key.value),
                    Some(search.key.span),
                )
                .with_label("which source?")
                .with_help("add `source: <name>` (or `sourceId: <id>`)"),
            );
        }
        if let Some(first) = names.insert(&search.name.value, search.name.span) {
            diags.push(
                Diagnostic::error(
                    Code::SemanticSavedSearch,
                    format!(
                        "two saved searches of stack `{}` are named `{}`; alerts name a saved \
                         search by its name",
                        stack.key.value, search.name.value
                    ),
                    Some(search.name.span),
                )
                .with_label("named again")
                .with_related(first, "first named here")
                .with_help("give one of them another name"),
            );
        }
    }
}

/// A saved search that names its source twice, `source` and `sourceId`.
fn both_sources(search: &SavedSearchConfig, written: Option<&Node>, diags: &mut Vec<Diagnostic>) {
    let Some(entry) = written
        .and_then(|w| w.get("savedSearches"))
        .and_then(|s| s.get(&search.key.value))
    else {
        return;
    };
    if let (Some(id), Some(name)) = (entry.get("sourceId"), entry.get("source")) {
        diags.push(
            Diagnostic::error(
                Code::SemanticSourceConflict,
                "a saved search names its source once: `source` (a name) or `sourceId`, not both",
                Some(name.span),
            )
            .with_label("remove this or `sourceId`")
            .with_related(id.span, "sourceId here")
            .with_help("keep `source: <name>` or `sourceId: <id>`, and remove the other"),
        );
    }
}
