//! Structural edits in block-style YAML: the lines of one list item (to remove a tile deleted
//! live) and where a new list item or mapping entry goes (a tile added live, an adopted object). A block
//! is its first line, the lines below it indented deeper (blank and comment lines among them),
//! and the comment lines right above it at its indentation; blank and comment lines after it
//! belong to what follows.

use serde_json::Value;

use super::locate;
use super::model::{Context, Edit, Effect, ManualEdit, Proposal, place};
use super::shorthand;
use crate::config::yaml::{Kind, Node};
use crate::drift::Changed;
use crate::drift::DriftField;
use crate::export;
use crate::plan::{lines, normalize};

/// A dashboard's tiles deleted or added live become removals and appends (or, when that cannot
/// be done, edits by hand); the fields left are returned for value edits.
pub(super) fn elements<'c>(
    context: &Context<'_>,
    changed: &'c Changed,
    dashboard: &Node,
    pointer: &str,
    out: &mut Proposal,
) -> Vec<&'c DriftField> {
    let mut rest = Vec::new();
    let mut done: Vec<&str> = Vec::new();
    for field in &changed.fields {
        let element = lines::element_of(&field.path);
        if element.is_some_and(|e| done.contains(&e)) {
            continue;
        }
        let all_lost = |e: &str| {
            changed
                .fields
                .iter()
                .filter(|f| lines::element_of(&f.path) == Some(e))
                .all(|f| f.live.is_none())
        };
        match (element, &field.config, &field.live) {
            // Every field of a tile the config has and live lost: the tile was deleted.
            (Some(e), Some(_), None) if e.starts_with("tiles[") && all_lost(e) => {
                done.push(e);
                tile_deleted(context, changed, dashboard, pointer, e, out);
            }
            // One field holding a whole tile live that the config lacks: added live.
            (None, None, Some(live)) if field.path.starts_with("tiles[") => {
                tile_added(context, changed, dashboard, pointer, field, live, out);
            }
            _ => rest.push(field),
        }
    }
    rest
}

fn tile_deleted(
    context: &Context<'_>,
    changed: &Changed,
    dashboard: &Node,
    pointer: &str,
    element: &str,
    out: &mut Proposal,
) {
    let found = locate::find(dashboard, &locate::steps(element), pointer);
    let mut manual = |place: Option<String>, reason: &str| {
        out.manual.push(ManualEdit {
            place,
            address: changed.address.clone(),
            path: element.to_string(),
            live: None,
            reason: reason.to_string(),
        });
    };
    let Some((tile, tile_pointer)) = found else {
        return manual(
            None,
            "deleted live; not written in the config as converge edits it",
        );
    };
    let at = Some(place(context.sources, tile));
    if context.options.keep_deleted {
        return manual(
            at,
            "deleted live; kept (--keep-deleted): remove it, or apply to create it",
        );
    }
    let span = tile.span;
    if span.instance().is_some() || context.located.shared(span.file_index(), span.start()) {
        return manual(at, "deleted live; it comes from a template or an anchor");
    }
    let name = tile.get("name").and_then(Node::as_str).unwrap_or_default();
    let only = dashboard
        .get("tiles")
        .is_some_and(|t| matches!(&t.kind, Kind::Seq(items) if items.len() == 1));
    if only {
        return manual(
            at,
            "deleted live; the dashboard's only tile, so not removed",
        );
    }
    if watched(context, changed, name) {
        return manual(at, "deleted live; an alert of the config watches it");
    }
    let Some(text) = context.sources.file(span.file_index()).map(|f| &f.text) else {
        return manual(at, "deleted live");
    };
    match block(text, span.start(), true) {
        Some((start, end)) => out.edits.push(Edit {
            file: span.file_index(),
            offset: start,
            len: end - start,
            text: String::new(),
            address: changed.address.clone(),
            path: element.to_string(),
            pointer: tile_pointer,
            effect: Effect::Remove,
        }),
        None => manual(at, "deleted live; not in block style, so not removed"),
    }
}

/// Whether an alert of the config points at tile `name` of the dashboard of `changed`.
fn watched(context: &Context<'_>, changed: &Changed, name: &str) -> bool {
    let Some((stack, dashboard)) = dashboard_of(&changed.address) else {
        return true;
    };
    let alerts = context
        .located
        .root
        .as_ref()
        .and_then(|root| locate::find(root, &["stacks", stack, "alerts"].map(key), ""));
    alerts
        .and_then(|(node, _)| node.as_map())
        .into_iter()
        .flatten()
        .any(|(_, alert)| {
            alert.get("dashboard").and_then(Node::as_str) == Some(dashboard)
                && alert.get("tile").and_then(Node::as_str) == Some(name)
        })
}

fn tile_added(
    context: &Context<'_>,
    changed: &Changed,
    dashboard: &Node,
    pointer: &str,
    field: &DriftField,
    live_value: &Value,
    out: &mut Proposal,
) {
    let mut manual = |place: Option<String>, reason: &str| {
        out.manual.push(ManualEdit {
            place,
            address: changed.address.clone(),
            path: field.path.clone(),
            live: Some(live_value.clone()),
            reason: reason.to_string(),
        });
    };
    let at = Some(place(context.sources, dashboard));
    let name = live_value
        .get("name")
        .and_then(Value::as_str)
        .unwrap_or_default();
    let Some((tile, stack_live)) = live_tile(context, &changed.address, dashboard, name) else {
        return manual(at, "added live; not found in the live dashboard");
    };
    let Some((tiles, tiles_pointer)) =
        locate::find(dashboard, &[key("tiles")], pointer).filter(|(t, _)| {
            t.span.instance().is_none()
                && !context.located.shared(t.span.file_index(), t.span.start())
        })
    else {
        return manual(
            at,
            "added live; the tile list comes from a template or an anchor",
        );
    };
    let last = match &tiles.kind {
        Kind::Seq(items) => items.last(),
        _ => None,
    };
    let Some(last) = last else {
        return manual(at, "added live; the tile list is empty");
    };
    let Some(text) = context
        .sources
        .file(last.span.file_index())
        .map(|f| &f.text)
    else {
        return manual(at, "added live");
    };
    let Some((offset, indent)) = after_item(text, last.span.start()) else {
        return manual(at, "added live; the tile list is not in block style");
    };
    // In the form the dashboard's tiles are written in: a `series` list when the last one
    // uses it and the shorthand can say what is live, else as export writes it.
    let series_form = last.get("series").is_some();
    let node = match series_form.then(|| shorthand::as_series(tile)).flatten() {
        Some(raised) => export::tile_node(&raised, stack_live),
        None => export::tile_node(tile, stack_live),
    };
    let mut block = export::yaml::list_item(&node, indent);
    if offset == text.len() && !text.ends_with('\n') {
        block.insert(0, '\n');
    }
    out.edits.push(Edit {
        file: last.span.file_index(),
        offset,
        len: 0,
        text: block,
        address: changed.address.clone(),
        path: field.path.clone(),
        pointer: tiles_pointer,
        effect: Effect::Append(exported_json(&node)),
    });
}

/// The live tile `name` of the live dashboard the config's `dashboard` stands for (by name),
/// with its stack's live state.
fn live_tile<'l>(
    context: &'l Context<'_>,
    address: &str,
    dashboard: &Node,
    name: &str,
) -> Option<(&'l crate::api::wire::Tile, &'l crate::live::StackLive)> {
    let (stack, _) = dashboard_of(address)?;
    let stack_live = context.live.stacks.get(stack)?;
    let wanted = normalize::name_key(dashboard.get("name").and_then(Node::as_str)?);
    let live_dashboard = stack_live
        .dashboards
        .iter()
        .find(|d| normalize::name_key(&d.name) == wanted)?;
    let tile = live_dashboard.tiles.iter().find(|t| t.name == name)?;
    Some((tile, stack_live))
}

/// The stack and dashboard keys of a dashboard address.
fn dashboard_of(address: &str) -> Option<(&str, &str)> {
    if let crate::address::Address::Dashboard { stack, dashboard } =
        crate::address::Address::parse(address)?
    {
        Some((stack, dashboard))
    } else {
        None
    }
}

fn key(name: &str) -> locate::Step {
    locate::Step::Key(name.to_string())
}

/// An exported node as the config loader reads it back.
pub(super) fn exported_json(node: &export::yaml::Node) -> Value {
    use export::yaml::Node as N;
    match node {
        N::Str(s) | N::Reference(s) => Value::String(s.clone()),
        N::Num(n) => serde_json::from_str(n).unwrap_or(Value::Null),
        N::Bool(b) => Value::Bool(*b),
        N::Map(entries) => Value::Object(
            entries
                .iter()
                .map(|(k, v)| (k.clone(), exported_json(v)))
                .collect(),
        ),
        N::List(items) => Value::Array(items.iter().map(exported_json).collect()),
        // A comment is not read.
        N::Commented(node, _) => exported_json(node),
    }
}

/// The `[start, end)` byte range of the block whose first line holds `offset`. `item` says the
/// block is a list item (its line starts with `- `), else a mapping entry whose key is at
/// `offset`. `None` when the text is not laid out that way (flow style, several on a line).
pub(crate) fn block(text: &str, offset: usize, item: bool) -> Option<(usize, usize)> {
    let (start, end) = body(text, offset, item)?;
    let indent = offset - start - if item { 2 } else { 0 };
    Some((comments_above(text, start, indent), end))
}

/// Where a new item goes after the list item that holds `offset`, and its dash's column.
pub(crate) fn after_item(text: &str, offset: usize) -> Option<(usize, usize)> {
    let (start, end) = body(text, offset, true)?;
    Some((end, offset - start - 2))
}

/// Where a new entry goes after the mapping entry whose key is at `offset`, and its key's
/// column.
pub(crate) fn after_entry(text: &str, offset: usize) -> Option<(usize, usize)> {
    let (start, end) = body(text, offset, false)?;
    Some((end, offset - start))
}

/// The block without the comments above it.
fn body(text: &str, offset: usize, item: bool) -> Option<(usize, usize)> {
    let start = text.get(..offset)?.rfind('\n').map_or(0, |at| at + 1);
    let lead = text.get(start..offset)?;
    let indent = lead.len() - lead.trim_start_matches(' ').len();
    let laid_out = if item {
        lead.get(indent..) == Some("- ")
    } else {
        indent == lead.len()
    };
    if !laid_out {
        return None;
    }
    let mut end = line_end(text, start);
    let mut at = end;
    while at < text.len() {
        let next = line_end(text, at);
        let line = &text[at..next];
        let content = line.trim_start_matches(' ');
        let blank = content.trim().is_empty() || content.starts_with('#');
        if !blank {
            if line.len() - content.len() <= indent {
                break;
            }
            end = next;
        }
        at = next;
    }
    Some((start, end))
}

/// The start of the comment lines right above `start` at column `indent` (no blank between).
fn comments_above(text: &str, mut start: usize, indent: usize) -> usize {
    while start > 0 {
        let above = text[..start - 1].rfind('\n').map_or(0, |at| at + 1);
        let line = &text[above..start];
        let content = line.trim_start_matches(' ');
        if !content.starts_with('#') || line.len() - content.len() != indent {
            break;
        }
        start = above;
    }
    start
}

/// The byte after the line break ending the line that starts at `start` (or the text's end).
fn line_end(text: &str, start: usize) -> usize {
    text[start..]
        .find('\n')
        .map_or(text.len(), |at| start + at + 1)
}

#[cfg(test)]
mod tests {
    use super::*;

    const TEXT: &str = "tiles:
  # first
  - name: A
    x: 0
    # inside
    y: 0

  # second
  - name: B
    x: 1
after: 1
";

    #[test]
    fn an_item_takes_its_comments_above_and_its_deeper_lines() {
        let a = TEXT.find("name: A").unwrap();
        let (start, end) = block(TEXT, a, true).unwrap();
        assert_eq!(
            &TEXT[start..end],
            "  # first\n  - name: A\n    x: 0\n    # inside\n    y: 0\n"
        );
        let b = TEXT.find("name: B").unwrap();
        let (start, end) = block(TEXT, b, true).unwrap();
        assert_eq!(&TEXT[start..end], "  # second\n  - name: B\n    x: 1\n");
        assert_eq!(after_item(TEXT, b), Some((TEXT.find("after").unwrap(), 2)));
    }

    #[test]
    fn an_entry_is_its_key_and_what_is_under_it() {
        let (start, end) = block(TEXT, 0, false).unwrap();
        assert_eq!(&TEXT[start..end], &TEXT[..TEXT.find("after").unwrap()]);
        assert!(block("a: [x, y]\n", 4, true).is_none());
    }
}
