//! The body of a change as marked lines, shared by the text and Markdown renderings.
//!
//! - A created or deleted object is one nested block in config order (a dashboard's name, tags,
//!   then each tile with its fields and series), not one line per leaf.
//! - An update lists only the fields that differ, with their paths; a list element that is
//!   added or removed whole (a tile) is one nested block under its path.
//! - A changed string of more than one line, or too long for one line, is a line diff
//!   (`similar`): removed and added lines, unchanged lines as context, the changed words of a
//!   replaced line marked as emphasized (a terminal may highlight them; the markers carry the
//!   meaning without color).
//! - Values read as YAML does: strings quoted, lists and maps in flow style
//!   (`[converge:prod, team-api]`), a source id followed by the source's name.
//!
//! Markdown's `diff` blocks highlight only lines that start with `+` or `-`, so there a change
//! of a value is a `-` line and a `+` line rather than one `~ a -> b` line.

use std::collections::BTreeMap;

use serde_json::Value;
use similar::{ChangeTag, TextDiff};

use super::model::{Action, Change, FieldChange};

/// What a line says about its content.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Mark {
    /// Added (`+`).
    Add,
    /// Removed (`-`).
    Remove,
    /// Changed in place (`~`), text only.
    Change,
    /// Unchanged context or a heading (` `).
    Context,
}

impl Mark {
    /// The character that carries the mark without color.
    pub(crate) fn symbol(self) -> char {
        match self {
            Mark::Add => '+',
            Mark::Remove => '-',
            Mark::Change => '~',
            Mark::Context => ' ',
        }
    }
}

/// A run of a line's text; `emphasized` runs are the words a line diff found changed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Segment {
    /// The text.
    pub text: String,
    /// Whether a terminal should highlight it.
    pub emphasized: bool,
}

/// One line of a change's body.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Line {
    /// Its mark.
    pub mark: Mark,
    /// Spaces between the mark and the text (nesting).
    pub indent: usize,
    /// The text, in runs.
    pub segments: Vec<Segment>,
}

impl Line {
    fn new(mark: Mark, indent: usize, text: impl Into<String>) -> Line {
        Line {
            mark,
            indent,
            segments: vec![Segment {
                text: text.into(),
                emphasized: false,
            }],
        }
    }

    /// The text without its mark, emphasis dropped.
    pub(crate) fn text(&self) -> String {
        let mut out = " ".repeat(self.indent);
        for segment in &self.segments {
            out.push_str(&segment.text);
        }
        out
    }

    /// `<mark> <indent><text>`, without color.
    pub(crate) fn plain(&self) -> String {
        format!("{} {}", self.mark.symbol(), self.text())
    }
}

/// How the body is laid out for one rendering.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Layout<'p> {
    /// Markdown: a changed value is a `-` line and a `+` line (GitHub highlights no `~`).
    pub split_changes: bool,
    /// Text: a renamed object's `name` is said in its heading, not again as a field.
    pub rename_in_heading: bool,
    /// Characters a line may take (the terminal's width); a changed string whose `~` line would
    /// be wider is shown as a line diff.
    pub width: usize,
    /// Source and webhook names by id, from the plan ([`crate::plan::model::Plan::names`]).
    pub sources: &'p BTreeMap<String, String>,
}

/// The fixed width used when no terminal says otherwise (files, pipes, Markdown), so the same
/// plan gives the same bytes.
#[cfg(test)]
pub(crate) const DEFAULT_WIDTH: usize = 100;

/// The order keys are shown in: the config's order, so a block reads like the file it came from.
const KEY_ORDER: &[&str] = &[
    "id",
    "name",
    "tags",
    "tiles",
    "x",
    "y",
    "w",
    "h",
    "asRatio",
    "series",
    "config",
    "displayType",
    "configType",
    "type",
    "dataSource",
    "sourceId",
    "connectionId",
    "sqlTemplate",
    "select",
    "aggFn",
    "field",
    "valueExpression",
    "level",
    "where",
    "whereLanguage",
    "groupBy",
    "metricName",
    "metricDataType",
    "dashboard",
    "tile",
    "threshold",
    "thresholdType",
    "interval",
    "source",
    "channel",
    "webhookId",
    "message",
    "sourceKind",
    "scaling",
    "numReplicas",
    "idleScaling",
    "idleTimeoutMinutes",
    "minTotalMemoryGb",
    "maxTotalMemoryGb",
    "replicas",
    "concurrency",
    "replicaCpuMillicores",
    "replicaMemoryGb",
];

fn ordered(map: &serde_json::Map<String, Value>) -> Vec<(&String, &Value)> {
    let mut entries: Vec<(&String, &Value)> = map.iter().collect();
    entries.sort_by_key(|(key, _)| {
        (
            KEY_ORDER
                .iter()
                .position(|k| k == key)
                .unwrap_or(KEY_ORDER.len()),
            (*key).clone(),
        )
    });
    entries
}

/// Whether a string can stand unquoted inside a YAML flow collection and read back the same.
fn plain(text: &str) -> bool {
    const FIRST: &[char] = &[
        '-', '?', ':', ',', '[', ']', '{', '}', '#', '&', '*', '!', '|', '>', '\'', '"', '%', '@',
        '`',
    ];
    !text.is_empty()
        && text.trim() == text
        && !text.starts_with(FIRST)
        && !text.contains([',', '[', ']', '{', '}'])
        && !text.contains(": ")
        && !text.contains(" #")
        && !text.ends_with(':')
        && !text.chars().any(char::is_control)
        && text.parse::<f64>().is_err()
        && !matches!(
            text.to_ascii_lowercase().as_str(),
            "true" | "false" | "null" | "~" | "yes" | "no" | "on" | "off" | "y" | "n"
        )
}

fn quoted(text: &str) -> String {
    serde_json::to_string(text).unwrap_or_else(|_| format!("{text:?}"))
}

/// A value inside a flow collection: plain strings where YAML allows them.
fn flow(value: &Value) -> String {
    match value {
        Value::String(s) if plain(s) => s.clone(),
        Value::String(s) => quoted(s),
        Value::Array(items) => {
            let items: Vec<String> = items.iter().map(flow).collect();
            format!("[{}]", items.join(", "))
        }
        Value::Object(map) => {
            let entries: Vec<String> = ordered(map)
                .into_iter()
                .map(|(k, v)| {
                    format!(
                        "{}: {}",
                        if plain(k) { k.clone() } else { quoted(k) },
                        flow(v)
                    )
                })
                .collect();
            format!("{{{}}}", entries.join(", "))
        }
        other => other.to_string(),
    }
}

/// A value on one line: strings quoted, collections in flow style (`[converge:prod, team-api]`).
pub(crate) fn inline(value: &Value) -> String {
    match value {
        Value::String(s) => quoted(s),
        other => flow(other),
    }
}

/// As [`inline`], with a source or webhook id followed by its name: `"65f5e4a3..." (Logs)`
/// (a source's `traceSourceId` and the like too).
fn inline_at(key: &str, value: &Value, sources: &BTreeMap<String, String>) -> String {
    let text = inline(value);
    let named = matches!(key, "sourceId" | "webhookId") || key.ends_with("SourceId");
    match (named, value) {
        (true, Value::String(id)) => match sources.get(id) {
            Some(name) => format!("{text} ({name})"),
            None => text,
        },
        _ => text,
    }
}

/// The last key of a path: `tiles[A].series[0].sourceId` is `sourceId`.
fn last_key(path: &str) -> &str {
    let tail = path.rsplit('.').next().unwrap_or(path);
    tail.split('[').next().unwrap_or(tail)
}

/// Whether a value is shown as a nested block rather than on one line.
fn is_block(value: &Value) -> bool {
    match value {
        Value::Object(map) => !map.is_empty(),
        Value::Array(items) => !items.is_empty() && items.iter().all(Value::is_object),
        Value::String(s) => s.contains('\n'),
        _ => false,
    }
}

/// `key: value` lines of a value at `indent`, marked `mark`. Objects nest by two spaces, lists
/// of objects as `- ` items, multi-line strings as `|` blocks.
fn block(
    key: &str,
    value: &Value,
    indent: usize,
    mark: Mark,
    sources: &BTreeMap<String, String>,
    out: &mut Vec<Line>,
) {
    if !is_block(value) {
        out.push(Line::new(
            mark,
            indent,
            format!("{key}: {}", inline_at(key, value, sources)),
        ));
        return;
    }
    let heading = if value.is_string() {
        format!("{key}: |")
    } else {
        format!("{key}:")
    };
    out.push(Line::new(mark, indent, heading));
    contents(key, value, indent + 2, mark, sources, out);
}

/// The lines of a value without a key: an object's fields, a list's items, a string's lines,
/// or the value on one line.
fn contents(
    key: &str,
    value: &Value,
    indent: usize,
    mark: Mark,
    sources: &BTreeMap<String, String>,
    out: &mut Vec<Line>,
) {
    match value {
        Value::Object(map) if !map.is_empty() => fields_of(map, indent, mark, sources, out),
        Value::Array(items) if is_block(value) => items_of(items, indent, mark, sources, out),
        Value::String(s) if s.contains('\n') => {
            for line in s.lines() {
                out.push(Line::new(mark, indent, line));
            }
        }
        other => out.push(Line::new(mark, indent, inline_at(key, other, sources))),
    }
}

fn fields_of(
    map: &serde_json::Map<String, Value>,
    indent: usize,
    mark: Mark,
    sources: &BTreeMap<String, String>,
    out: &mut Vec<Line>,
) {
    for (key, value) in ordered(map) {
        block(key, value, indent, mark, sources, out);
    }
}

fn items_of(
    items: &[Value],
    indent: usize,
    mark: Mark,
    sources: &BTreeMap<String, String>,
    out: &mut Vec<Line>,
) {
    for item in items {
        let start = out.len();
        match item {
            Value::Object(map) if !map.is_empty() => fields_of(map, indent + 2, mark, sources, out),
            other => out.push(Line::new(mark, indent + 2, inline(other))),
        }
        // The item's first line carries the `- `.
        if let Some(first) = out.get_mut(start) {
            first.indent = indent;
            if let Some(segment) = first.segments.first_mut() {
                segment.text.insert_str(0, "- ");
            }
        }
    }
}

/// The lines of a whole object (a create or a delete).
fn object(value: &Value, mark: Mark, sources: &BTreeMap<String, String>) -> Vec<Line> {
    let mut out = Vec::new();
    contents("", value, 0, mark, sources, &mut out);
    out
}

/// The element at `path` (`tiles[Requests]`, `series[0]`, `channel.type`) of a value.
pub(crate) fn lookup<'v>(value: &'v Value, path: &str) -> Option<&'v Value> {
    let mut current = value;
    for part in path.split('.') {
        let (key, index) = match part.find('[') {
            Some(at) => (&part[..at], Some(part[at + 1..].trim_end_matches(']'))),
            None => (part, None),
        };
        current = current.get(key)?;
        if let Some(index) = index {
            let items = current.as_array()?;
            current = items
                .iter()
                .find(|item| item.get("name").and_then(Value::as_str) == Some(index))
                .or_else(|| index.parse::<usize>().ok().and_then(|i| items.get(i)))?;
        }
    }
    Some(current)
}

/// The path of the list element a field sits in (`tiles[Requests]` of
/// `tiles[Requests].series[0].aggFn`), if any.
pub(crate) fn element_of(path: &str) -> Option<&str> {
    let close = path.find(']')?;
    let element = &path[..=close];
    (path.len() > element.len()).then_some(element)
}

/// The lines of one changed field.
fn field(change: &FieldChange, layout: &Layout<'_>, out: &mut Vec<Line>) {
    let path = if change.path.is_empty() {
        "(value)"
    } else {
        change.path.as_str()
    };
    let key = last_key(path);
    let sources = layout.sources;
    let (before, after) = match (&change.before, &change.after) {
        (None, None) => return,
        (None, Some(after)) => return block(path, after, 0, Mark::Add, sources, out),
        (Some(before), None) => return block(path, before, 0, Mark::Remove, sources, out),
        (Some(before), Some(after)) => (before, after),
    };
    let heading = if layout.split_changes {
        Mark::Context
    } else {
        Mark::Change
    };
    if let (Value::String(old), Value::String(new)) = (before, after) {
        let one_line = format!("~ {path}: {} -> {}", quoted(old), quoted(new));
        // The text rendering indents body lines by six columns.
        if old.contains('\n') || new.contains('\n') || one_line.chars().count() + 6 > layout.width {
            out.push(Line::new(heading, 0, format!("{path}:")));
            text_diff(old, new, out);
            return;
        }
    }
    if is_block(before) || is_block(after) {
        // Both sides as blocks, then a line diff of the two: a series added to a tile is a few
        // `+` lines under the unchanged ones, not the whole list twice.
        let render = |value: &Value| {
            let mut lines = Vec::new();
            contents(key, value, 0, Mark::Context, sources, &mut lines);
            let mut text: String = lines.iter().map(|l| l.text() + "\n").collect();
            if text.is_empty() {
                text.push('\n');
            }
            text
        };
        out.push(Line::new(heading, 0, format!("{path}:")));
        text_diff(&render(before), &render(after), out);
    } else if layout.split_changes {
        out.push(Line::new(
            Mark::Remove,
            0,
            format!("{path}: {}", inline_at(key, before, sources)),
        ));
        out.push(Line::new(
            Mark::Add,
            0,
            format!("{path}: {}", inline_at(key, after, sources)),
        ));
    } else {
        out.push(Line::new(
            Mark::Change,
            0,
            format!(
                "{path}: {} -> {}",
                inline_at(key, before, sources),
                inline_at(key, after, sources)
            ),
        ));
    }
}

/// A line diff of two strings: removed, added and unchanged lines (at most three unchanged
/// lines around each change; `...` where more are left out).
fn text_diff(before: &str, after: &str, out: &mut Vec<Line>) {
    let diff = TextDiff::from_lines(before, after);
    for (n, group) in diff.grouped_ops(3).iter().enumerate() {
        if n > 0 {
            out.push(Line::new(Mark::Context, 2, "..."));
        }
        for op in group {
            // No deadline: the same texts always give the same diff.
            for change in diff.iter_inline_changes_deadline(op, None) {
                let mark = match change.tag() {
                    ChangeTag::Delete => Mark::Remove,
                    ChangeTag::Insert => Mark::Add,
                    ChangeTag::Equal => Mark::Context,
                };
                let segments: Vec<Segment> = change
                    .iter_strings_lossy()
                    .map(|(emphasized, text)| Segment {
                        text: text.trim_end_matches(['\n', '\r']).to_string(),
                        emphasized,
                    })
                    .filter(|s| !s.text.is_empty())
                    .collect();
                out.push(Line {
                    mark,
                    indent: 2,
                    segments,
                });
            }
        }
    }
}

/// The body of a change: every line under its heading.
pub(crate) fn body(change: &Change, layout: &Layout<'_>) -> Vec<Line> {
    match change.action {
        Action::NoOp => Vec::new(),
        Action::Create => match &change.after {
            Some(after) => object(after, Mark::Add, layout.sources),
            None => Vec::new(),
        },
        Action::Delete => match &change.before {
            Some(before) => object(before, Mark::Remove, layout.sources),
            None => Vec::new(),
        },
        Action::Update | Action::Replace => update(change, layout),
    }
}

fn update(change: &Change, layout: &Layout<'_>) -> Vec<Line> {
    let mut out = Vec::new();
    let mut done: Vec<&str> = Vec::new();
    for field_change in &change.fields {
        if layout.rename_in_heading && change.renamed_from.is_some() && field_change.path == "name"
        {
            continue;
        }
        // A list element added or removed whole is one block under its path.
        if let Some(element) = element_of(&field_change.path) {
            if done.contains(&element) {
                continue;
            }
            let inside: Vec<&FieldChange> = change
                .fields
                .iter()
                .filter(|f| f.path.starts_with(element) && f.path.len() > element.len())
                .collect();
            let whole = |side: fn(&FieldChange) -> bool, value: &Option<Value>| {
                inside.iter().all(|f| side(f))
                    && value.as_ref().and_then(|v| lookup(v, element)).is_some()
            };
            let added = whole(|f| f.before.is_none(), &change.after);
            let removed = whole(|f| f.after.is_none(), &change.before);
            let value = if added {
                change.after.as_ref().and_then(|v| lookup(v, element))
            } else if removed {
                change.before.as_ref().and_then(|v| lookup(v, element))
            } else {
                None
            };
            if let Some(value) = value {
                let mark = if added { Mark::Add } else { Mark::Remove };
                block(element, value, 0, mark, layout.sources, &mut out);
                done.push(element);
                continue;
            }
        }
        field(field_change, layout, &mut out);
    }
    out
}

/// For a renamed object: `renamed "Old" -> "New"`, and the reason of what else differs.
pub(crate) fn rename(change: &Change) -> Option<(String, Option<String>)> {
    let old = change.renamed_from.as_deref()?;
    let new = change
        .after
        .as_ref()
        .and_then(|a| a.get("name"))
        .and_then(Value::as_str)
        .unwrap_or_default();
    let others: Vec<FieldChange> = change
        .fields
        .iter()
        .filter(|f| f.path != "name")
        .cloned()
        .collect();
    let rest = (!others.is_empty()).then(|| super::diff::reason(&others));
    Some((format!("renamed {} -> {}", quoted(old), quoted(new)), rest))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn layout(sources: &BTreeMap<String, String>, split_changes: bool) -> Layout<'_> {
        Layout {
            split_changes,
            rename_in_heading: !split_changes,
            width: DEFAULT_WIDTH,
            sources,
        }
    }

    fn change(action: Action, before: Option<Value>, after: Option<Value>) -> Change {
        let fields = match (&before, &after) {
            (Some(b), Some(a)) => super::super::diff::diff(b, a),
            _ => Vec::new(),
        };
        Change {
            address: crate::address::AddressBuf::parse("alert.prod.a").unwrap(),
            action,
            reason: String::new(),
            before,
            after,
            fields,
            fingerprint: None,
            step: None,
            renamed_from: None,
        }
    }

    fn plain_lines(lines: &[Line]) -> Vec<String> {
        lines
            .iter()
            .map(|l| l.plain().trim_end().to_string())
            .collect()
    }

    #[test]
    fn lists_read_as_yaml_and_strings_that_need_it_stay_quoted() {
        assert_eq!(
            inline(&json!(["converge:prod", "team-api"])),
            "[converge:prod, team-api]"
        );
        assert_eq!(inline(&json!([])), "[]");
        assert_eq!(
            inline(&json!([
                "a b", "x: y", "true", "12", "", "a,b", "#c", " pad"
            ])),
            r##"[a b, "x: y", "true", "12", "", "a,b", "#c", " pad"]"##
        );
        assert_eq!(
            inline(&json!({"webhookId": "w1", "type": "webhook"})),
            "{type: webhook, webhookId: w1}"
        );
        // A scalar on its own stays quoted, so `a -> b` reads unambiguously.
        assert_eq!(inline(&json!("API health")), "\"API health\"");
    }

    #[test]
    fn a_created_object_is_one_block_in_config_order_with_source_names() {
        let sources = BTreeMap::from([("src-1".to_string(), "Logs".to_string())]);
        let after = json!({
            "tiles": [{"y": 0, "x": 1, "name": "T", "series": [{"sourceId": "src-1", "type": "time"}]}],
            "name": "D",
            "tags": ["converge:prod"],
        });
        let lines = body(
            &change(Action::Create, None, Some(after)),
            &layout(&sources, false),
        );
        assert_eq!(
            plain_lines(&lines),
            [
                "+ name: \"D\"",
                "+ tags: [converge:prod]",
                "+ tiles:",
                "+   - name: \"T\"",
                "+     x: 1",
                "+     y: 0",
                "+     series:",
                "+       - type: \"time\"",
                "+         sourceId: \"src-1\" (Logs)",
            ]
        );
    }

    #[test]
    fn a_multi_line_string_is_a_block_when_created_and_a_line_diff_when_changed() {
        let sources = BTreeMap::new();
        let created = body(
            &change(Action::Create, None, Some(json!({"message": "a\nb\n"}))),
            &layout(&sources, false),
        );
        assert_eq!(plain_lines(&created), ["+ message: |", "+   a", "+   b"]);

        let updated = change(
            Action::Update,
            Some(json!({"message": "one\ntwo\nthree\n"})),
            Some(json!({"message": "one\n2\nthree\n"})),
        );
        assert_eq!(
            plain_lines(&body(&updated, &layout(&sources, false))),
            ["~ message:", "    one", "-   two", "+   2", "    three"]
        );
        // Markdown: no `~` line, which GitHub would not highlight.
        assert_eq!(
            plain_lines(&body(&updated, &layout(&sources, true))),
            ["  message:", "    one", "-   two", "+   2", "    three"]
        );
    }

    #[test]
    fn a_short_change_is_one_line_in_text_and_two_in_markdown() {
        let sources = BTreeMap::new();
        let updated = change(
            Action::Update,
            Some(json!({"threshold": 1, "tags": ["a"]})),
            Some(json!({"threshold": 2, "tags": ["a", "b"]})),
        );
        assert_eq!(
            plain_lines(&body(&updated, &layout(&sources, false))),
            ["~ tags: [a] -> [a, b]", "~ threshold: 1 -> 2"]
        );
        assert_eq!(
            plain_lines(&body(&updated, &layout(&sources, true))),
            [
                "- tags: [a]",
                "+ tags: [a, b]",
                "- threshold: 1",
                "+ threshold: 2"
            ]
        );
    }

    #[test]
    fn a_string_too_wide_for_one_line_is_a_line_diff() {
        let sources = BTreeMap::new();
        let long = "x".repeat(DEFAULT_WIDTH);
        let updated = change(
            Action::Update,
            Some(json!({"where": "a"})),
            Some(json!({"where": long})),
        );
        assert_eq!(
            plain_lines(&body(&updated, &layout(&sources, false))),
            [
                "~ where:".to_string(),
                "-   a".into(),
                format!("+   {long}")
            ]
        );
    }

    #[test]
    fn an_item_added_to_a_list_of_objects_is_a_few_added_lines() {
        let sources = BTreeMap::new();
        let updated = change(
            Action::Update,
            Some(json!({"series": [{"type": "time", "aggFn": "count"}]})),
            Some(
                json!({"series": [{"type": "time", "aggFn": "count"}, {"type": "time", "aggFn": "max"}]}),
            ),
        );
        assert_eq!(
            plain_lines(&body(&updated, &layout(&sources, false))),
            [
                "~ series:",
                "    - type: \"time\"",
                "      aggFn: \"count\"",
                "+   - type: \"time\"",
                "+     aggFn: \"max\"",
            ]
        );
    }

    #[test]
    fn replaced_lines_mark_the_changed_words() {
        let sources = BTreeMap::new();
        let updated = change(
            Action::Update,
            Some(json!({"message": "Errors are up\nOwner: team-api\n"})),
            Some(json!({"message": "Errors are down\nOwner: team-api\n"})),
        );
        let lines = body(&updated, &layout(&sources, false));
        let added = lines.iter().find(|l| l.mark == Mark::Add).unwrap();
        let emphasized: Vec<&str> = added
            .segments
            .iter()
            .filter(|s| s.emphasized)
            .map(|s| s.text.as_str())
            .collect();
        assert_eq!(emphasized, ["down"]);
    }
}
