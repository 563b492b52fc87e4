//! Where a drifted field is written: the config's files parsed, merged and expanded again as
//! `validate --expand` does (spans point into the files, template copies name their instance),
//! and the byte ranges of each file's anchored nodes, since an alias or a `<<` merge copies
//! its anchor with the anchor's spans: a value inside an anchored range is shared by its uses.

use serde_json::Value;
use serde_saphyr::granit_parser::{self as yaml, Event, Parser};

use crate::config::model::Sources;
use crate::config::yaml::{self as tree, Kind, Node};
use crate::config::{merge, templates};
use crate::diagnostic::narrow;

/// The expanded tree of a config and the anchored ranges of its files.
pub(crate) struct Located {
    /// The merged, expanded root; `None` when the files hold no mapping.
    pub root: Option<Node>,
    /// Per file (by `FileId`), the `[start, end)` byte ranges of anchored nodes.
    pub anchored: Vec<Vec<(usize, usize)>>,
    /// The merged root before templates are expanded (the `forEach` entries a person edits),
    /// read the first time a drifted value turns out to be a template's copy.
    written: std::cell::OnceCell<Option<Node>>,
}

impl Located {
    /// Reads `sources` again into a tree and anchored ranges.
    pub(crate) fn read(sources: &Sources) -> Located {
        Located {
            root: expanded(sources),
            anchored: sources.files.iter().map(|f| anchored(&f.text)).collect(),
            written: std::cell::OnceCell::new(),
        }
    }

    /// The merged root as written, templates not expanded.
    pub(crate) fn written(&self, sources: &Sources) -> Option<&Node> {
        self.written
            .get_or_init(|| {
                let mut diags = Vec::new();
                merge::merge(parsed(sources, &mut diags), &mut diags)
            })
            .as_ref()
    }

    /// Whether a value at `offset` of `file` sits inside an anchored node.
    pub(crate) fn shared(&self, file: usize, offset: usize) -> bool {
        self.anchored
            .get(file)
            .is_some_and(|ranges| ranges.iter().any(|&(s, e)| s <= offset && offset < e))
    }
}

/// The config of `sources` merged with templates expanded, spans into the files.
pub(crate) fn expanded(sources: &Sources) -> Option<Node> {
    let mut diags = Vec::new();
    let docs = parsed(sources, &mut diags);
    let mut root = merge::merge(docs, &mut diags)?;
    templates::expand(&mut root, &mut diags);
    Some(root)
}

/// Each file of `sources` parsed.
fn parsed(sources: &Sources, diags: &mut Vec<crate::diagnostic::Diagnostic>) -> Vec<Node> {
    sources
        .files
        .iter()
        .enumerate()
        .filter_map(|(file, source)| tree::parse(&source.text, narrow(file), diags))
        .collect()
}

/// One step of a field path: a mapping key, or a list element by its `name` (an IP access
/// list entry's `source`) or position.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Step {
    /// `key`.
    Key(String),
    /// `[name]` or `[0]`.
    Element(String),
}

/// The steps of a drift field path (`tiles[Errors].series[0].where`); an element's name may
/// hold dots, so a `[` is read up to the `]` that ends a step.
pub(crate) fn steps(path: &str) -> Vec<Step> {
    let mut out = Vec::new();
    let mut rest = path;
    while !rest.is_empty() {
        if let Some(inner) = rest.strip_prefix('[') {
            let end = element_end(inner);
            out.push(Step::Element(inner[..end].to_string()));
            rest = inner.get(end + 1..).unwrap_or("");
        } else {
            let end = rest.find(['.', '[']).unwrap_or(rest.len());
            out.push(Step::Key(rest[..end].to_string()));
            rest = &rest[end..];
        }
        rest = rest.strip_prefix('.').unwrap_or(rest);
    }
    out
}

/// Where the `]` that closes an element is: the first one followed by `.`, `[` or the end.
fn element_end(inner: &str) -> usize {
    inner
        .match_indices(']')
        .map(|(at, _)| at)
        .find(|&at| matches!(inner.as_bytes().get(at + 1), None | Some(b'.' | b'[')))
        .unwrap_or(inner.len())
}

/// The node at `steps` under `node`, with its JSON pointer from the root (`base` is that of
/// `node`).
pub(crate) fn find<'n>(node: &'n Node, steps: &[Step], base: &str) -> Option<(&'n Node, String)> {
    let mut current = node;
    let mut pointer = base.to_string();
    for step in steps {
        match step {
            Step::Key(key) => {
                current = current.get(key)?;
                pointer = tree::child_pointer(&pointer, key);
            }
            Step::Element(name) => {
                let Kind::Seq(items) = &current.kind else {
                    return None;
                };
                let at = items
                    .iter()
                    .position(|item| {
                        // Tiles are named; an IP access list entry is its `source`.
                        let key = item.get("name").or_else(|| item.get("source"));
                        key.and_then(Node::as_str) == Some(name)
                    })
                    .or_else(|| name.parse::<usize>().ok().filter(|&i| i < items.len()))?;
                current = items.get(at)?;
                pointer = format!("{pointer}/{at}");
            }
        }
    }
    Some((current, pointer))
}

/// Two JSON values equal, numbers compared by value (`3` and `3.0` are one number).
pub(crate) fn same(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => x.as_f64() == y.as_f64(),
        (Value::Array(x), Value::Array(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(a, b)| same(a, b))
        }
        (Value::Object(x), Value::Object(y)) => {
            x.len() == y.len() && x.iter().all(|(k, a)| y.get(k).is_some_and(|b| same(a, b)))
        }
        _ => a == b,
    }
}

/// The `[start, end)` byte ranges of the anchored nodes of `text` (empty when it does not
/// parse: the loader has reported that already).
fn anchored(text: &str) -> Vec<(usize, usize)> {
    let mut parser = Parser::new_from_str_with_options(text, yaml::Options::default());
    let mut ranges = Vec::new();
    // Start offsets of the open collections; `Some` for an anchored one.
    let mut open: Vec<Option<usize>> = Vec::new();
    while let Some(Ok((event, span))) = parser.next_event() {
        let start = offset(text, span.start);
        let end = offset(text, span.end);
        match event {
            Event::Scalar(_, _, anchor, _) if anchor != 0 => {
                ranges.push((start, end.max(start + 1)))
            }
            Event::SequenceStart(_, anchor, _) | Event::MappingStart(_, anchor, _) => {
                open.push((anchor != 0).then_some(start));
            }
            Event::SequenceEnd | Event::MappingEnd => {
                if let Some(Some(from)) = open.pop() {
                    ranges.push((from, end.max(from + 1)));
                }
            }
            _ => {}
        }
    }
    ranges
}

fn offset(text: &str, marker: yaml::Marker) -> usize {
    let at = marker.byte_offset().unwrap_or_else(|| {
        text.char_indices()
            .nth(marker.index())
            .map_or(text.len(), |(i, _)| i)
    });
    at.min(text.len())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_split_into_keys_and_elements() {
        assert_eq!(
            steps("tiles[Errors].series[0].where"),
            [
                Step::Key("tiles".into()),
                Step::Element("Errors".into()),
                Step::Key("series".into()),
                Step::Element("0".into()),
                Step::Key("where".into()),
            ]
        );
        assert_eq!(
            steps("tiles[p.99 [ms]].x"),
            [
                Step::Key("tiles".into()),
                Step::Element("p.99 [ms]".into()),
                Step::Key("x".into()),
            ]
        );
    }

    #[test]
    fn anchored_nodes_cover_their_values() {
        let text = "a: &base\n  x: 1\n  y: 2\nb:\n  <<: *base\nc: &n 5\nd: 6\n";
        let ranges = anchored(text);
        let at = |needle: &str| text.find(needle).unwrap();
        let inside = |o: usize| ranges.iter().any(|&(s, e)| s <= o && o < e);
        assert!(inside(at("1")));
        assert!(inside(at("2")));
        assert!(inside(at("5")));
        assert!(!inside(at("6")));
        assert!(!inside(at("b:")));
    }
}
