//! Small operations on YAML trees that expansion shares: marking spans, scalar text, merging.

use crate::config::yaml::{Kind, Node};

pub(super) fn mark(node: &mut Node, index: u32) {
    node.span = node.span.with_instance(index);
    match &mut node.kind {
        Kind::Seq(items) => items.iter_mut().for_each(|i| mark(i, index)),
        Kind::Map(entries) => entries.iter_mut().for_each(|(_, v)| mark(v, index)),
        Kind::Null | Kind::Bool(_) | Kind::Int(_) | Kind::Float(_) | Kind::Str(_) => {}
    }
}

/// A scalar's text as it substitutes into a string; `None` for a list or a mapping.
pub(super) fn scalar_text(node: &Node) -> Option<String> {
    Some(match &node.kind {
        Kind::Str(s) => s.to_string(),
        Kind::Int(i) => i.to_string(),
        Kind::Float(f) => f.to_string(),
        Kind::Bool(b) => b.to_string(),
        Kind::Null => String::new(),
        Kind::Seq(_) | Kind::Map(_) => return None,
    })
}

pub(super) fn describe(node: &Node) -> &'static str {
    match node.kind {
        Kind::Null => "empty",
        Kind::Bool(_) => "a boolean",
        Kind::Int(_) => "an integer",
        Kind::Float(_) => "a number",
        Kind::Str(_) => "a string",
        Kind::Seq(_) => "a list",
        Kind::Map(_) => "a mapping",
    }
}

/// `over` deep-merged into `base`: mappings merge key by key, anything else replaces.
pub(super) fn merge(base: Node, over: Node) -> Node {
    match (base.kind, over.kind) {
        (Kind::Map(mut entries), Kind::Map(more)) => {
            for (k, v) in more {
                match entries.iter_mut().find(|(e, _)| e.name == k.name) {
                    Some((_, existing)) => {
                        let old = std::mem::replace(
                            existing,
                            Node {
                                kind: Kind::Null,
                                span: v.span,
                            },
                        );
                        *existing = merge(old, v);
                    }
                    None => entries.push((k, v)),
                }
            }
            Node {
                kind: Kind::Map(entries),
                span: base.span,
            }
        }
        (_, kind) => Node {
            kind,
            span: over.span,
        },
    }
}
