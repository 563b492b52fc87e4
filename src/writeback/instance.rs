//! Where a person edits a drifted value that a template instance copied. The template's line
//! serves every instance, so it is not the place: a value that is a whole `${parameter}` is
//! set by the instance's `forEach` entry (its parameter, or the entry where it would go), and
//! any other copied value is changed for one instance by an override in its entry.

use crate::config::model::{InstanceOrigin, Sources};
use crate::config::yaml::{Kind, Node};
use crate::diagnostic::Span;

use super::model::span_place as place;

/// The place (`file:line`) to edit and why, for a drifted `value` copied for `origin`;
/// `written` is the config's root before expansion.
pub(crate) fn where_to_edit(
    sources: &Sources,
    written: Option<&Node>,
    value: &Node,
    origin: &InstanceOrigin,
) -> (String, String) {
    let entry = written.and_then(|root| entry_of(root, origin.span));
    let (template, key) = (&origin.template, &origin.key);
    match parameter(sources, value.span) {
        Some(name) => match entry.and_then(|entry| entry.get(name)) {
            Some(set) => (
                place(sources, set.span),
                format!(
                    "the template `{template}` takes it from parameter `{name}` of instance \
                     `{key}`: set it there"
                ),
            ),
            None => (
                place(sources, origin.span),
                format!(
                    "the template `{template}` takes it from parameter `{name}`, which instance \
                     `{key}` does not set: set it in the instance's entry"
                ),
            ),
        },
        None => (
            place(sources, origin.span),
            format!(
                "copied from template `{template}`, which serves every instance: change it for \
                 instance `{key}` with an override in its entry"
            ),
        ),
    }
}

/// The parameter a template value is, when its text is exactly `${name}`.
fn parameter(sources: &Sources, span: Span) -> Option<&str> {
    let text = sources
        .file(span.file_index())?
        .text
        .get(span.start()..span.end())?;
    let text = text.trim_matches(['"', '\'']);
    let name = text.strip_prefix("${")?.strip_suffix('}')?;
    let plain = !name.is_empty()
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-');
    plain.then_some(name)
}

/// The `forEach` entry (a mapping) whose `key:` value is written at `at`.
fn entry_of(node: &Node, at: Span) -> Option<&Node> {
    match &node.kind {
        Kind::Map(entries) => {
            let is_entry = entries.iter().any(|(name, value)| {
                name.name == "key"
                    && value.span.file_index() == at.file_index()
                    && value.span.start() == at.start()
            });
            if is_entry {
                return Some(node);
            }
            entries.iter().find_map(|(_, value)| entry_of(value, at))
        }
        Kind::Seq(items) => items.iter().find_map(|item| entry_of(item, at)),
        _ => None,
    }
}
