//! Data sources of a stack on the observability API: each one's members as the server stores
//! them, less the defaults it fills in; its connection and the sources it names by name where
//! the name is the only one (by id otherwise). A source whose name another shares is left out
//! with a warning: the planner finds a source by name and would not tell the two apart.

use serde_json::Value;

use crate::api::wire::{Source, source_as_stored};
use crate::config::source_rules::SOURCE_REFERENCES;
use crate::export::build::{Keys, StackWriting, entry, slug, str};
use crate::export::yaml::Node;

/// `sources:` of a stack on the observability API.
pub(super) fn sources(writing: &mut StackWriting<'_>, node: &mut Vec<(String, Node)>) {
    if !writing.observability {
        return;
    }
    let live = writing.live;
    let mut listed: Vec<&Source> = live.sources.iter().collect();
    listed.sort_by(|a, b| (&a.name, &a.id).cmp(&(&b.name, &b.id)));
    let shared = |name: &str| live.sources.iter().filter(|s| s.name == name).count() > 1;
    let mut keys = Keys::default();
    let mut written = Vec::new();
    for source in listed {
        if shared(&source.name) {
            writing.warnings.push(format!(
                "source {:?} (id {}) is left out: another source has its name, and converge \
                 finds a source by name",
                source.name, source.id
            ));
            continue;
        }
        let key = keys.take(slug(&source.name, "source"));
        written.push((key, Node::Map(members(writing, source))));
    }
    if !written.is_empty() {
        node.push(entry("sources", Node::Map(written)));
    }
}

/// A source's entries: name, kind, connection, then every member that differs from the
/// server's default.
fn members(writing: &StackWriting<'_>, source: &Source) -> Vec<(String, Node)> {
    let live = writing.live;
    let kind = source.kind.clone().unwrap_or_default();
    let mut only_kind = serde_json::Map::new();
    only_kind.insert("kind".into(), Value::from(kind.as_str()));
    let defaults = source_as_stored(&only_kind);
    let mut entries = vec![entry("name", str(&source.name)), entry("kind", str(&kind))];
    if let Some(connection) = &source.connection {
        let named: Vec<&str> = live
            .connections
            .iter()
            .filter(|c| &c.id == connection)
            .map(|c| c.name.as_str())
            .collect();
        let unique = |name: &str| live.connections.iter().filter(|c| c.name == name).count() == 1;
        let written = match named.as_slice() {
            [name] if unique(name) => name,
            _ => connection.as_str(),
        };
        entries.push(entry("connection", str(written)));
    }
    let Value::Object(stored) = source_as_stored(&source.members()) else {
        return entries;
    };
    for (member, value) in &stored {
        if ["name", "kind", "connection"].contains(&member.as_str())
            || defaults.get(member) == Some(value)
        {
            continue;
        }
        let reference = SOURCE_REFERENCES.iter().find(|(_, id)| id == member);
        let named = reference
            .and_then(|(written, _)| Some((*written, unique_name(live, value.as_str()?)?)));
        let node = match named {
            Some((written, name)) => Some((written.to_string(), str(name))),
            None => super::pipe::json_node(value, "\u{0}", &[]).map(|n| (member.clone(), n)),
        };
        if let Some((key, node)) = node {
            entries.push((key, node));
        }
    }
    entries
}

/// The name of source `id`, when no other source has it.
fn unique_name<'l>(live: &'l crate::live::StackLive, id: &str) -> Option<&'l str> {
    let source = live.sources.iter().find(|s| s.id == id)?;
    (live
        .sources
        .iter()
        .filter(|s| s.name == source.name)
        .count()
        == 1)
        .then_some(source.name.as_str())
}
