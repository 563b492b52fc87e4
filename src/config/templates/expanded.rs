//! The expanded tree written back as YAML, for `validate --expand`.

use crate::config::model::Sources;
use crate::config::yaml::{Kind, Node, resolve_plain};

/// The expanded tree as YAML, for `validate --expand`: each instance preceded by a comment
/// naming its template and where the instance is written, `${env:...}` as written.
pub(crate) fn to_yaml(root: &Node, sources: &Sources) -> String {
    let mut out = String::new();
    write_map_entries(root, 0, sources, &mut out);
    out
}

fn write_map_entries(node: &Node, indent: usize, sources: &Sources, out: &mut String) {
    let Some(entries) = node.as_map() else {
        return;
    };
    let pad = " ".repeat(indent);
    for (key, value) in entries {
        if let Some(origin) = sources.instance(value.span)
            && origin.key == key.name
        {
            let file = sources
                .file(origin.span.file_index())
                .map(|f| crate::output::path_text(&f.path))
                .unwrap_or_default();
            out.push_str(&format!(
                "{pad}# template `{}`, instance at {file}:{}\n",
                origin.template, origin.span.line
            ));
        }
        out.push_str(&pad);
        out.push_str(&scalar(&Kind::Str(key.name.clone())));
        out.push(':');
        write_value(value, indent, sources, out);
    }
}

/// Writes a value after `key:` (or `-`): a scalar on the same line, a collection below.
fn write_value(value: &Node, indent: usize, sources: &Sources, out: &mut String) {
    match &value.kind {
        Kind::Map(entries) if !entries.is_empty() => {
            out.push('\n');
            write_map_entries(value, indent + 2, sources, out);
        }
        Kind::Seq(items) if !items.is_empty() => {
            out.push('\n');
            let pad = " ".repeat(indent + 2);
            for item in items {
                out.push_str(&pad);
                out.push('-');
                match &item.kind {
                    Kind::Map(entries) if !entries.is_empty() => {
                        // The first entry on the dash's line, the rest aligned under it.
                        let mut nested = String::new();
                        write_map_entries(item, indent + 4, sources, &mut nested);
                        out.push(' ');
                        out.push_str(nested.trim_start_matches(' '));
                    }
                    _ => write_value(item, indent + 2, sources, out),
                }
            }
        }
        Kind::Map(_) => out.push_str(" {}\n"),
        Kind::Seq(_) => out.push_str(" []\n"),
        kind => {
            out.push(' ');
            out.push_str(&scalar(kind));
            out.push('\n');
        }
    }
}

/// A scalar as YAML: plain when it reads back as the same string, double-quoted otherwise.
fn scalar(kind: &Kind) -> String {
    match kind {
        Kind::Null => "null".to_string(),
        Kind::Bool(b) => b.to_string(),
        Kind::Int(i) => i.to_string(),
        Kind::Float(f) if f.fract() == 0.0 && f.abs() < 1e15 => format!("{f:.1}"),
        Kind::Float(f) => f.to_string(),
        Kind::Str(text) => {
            let plain = text.chars().next().is_some_and(|c| c.is_ascii_alphabetic())
                && text
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || "-_./".contains(c))
                && matches!(resolve_plain(text), Kind::Str(_));
            if plain {
                text.to_string()
            } else {
                serde_json::to_string(text.as_str()).unwrap_or_default()
            }
        }
        Kind::Seq(_) | Kind::Map(_) => String::new(),
    }
}
