//! YAML text to a tree of [`Node`]s where every value and every key carries its [`Span`].
//!
//! Built on the event parser that `serde-saphyr` uses (re-exported as
//! `serde_saphyr::granit_parser`), because the later stages need what typed deserialization
//! throws away: the place of every value (schema errors arrive as JSON pointers and are mapped
//! back to a line), both places of a duplicated key, and the keys themselves for "did you mean".
//! Scalars resolve by the YAML 1.2 core schema with strict booleans: only `true`/`false` are
//! booleans, so `yes`, `no`, `on` and `off` stay strings.

use std::collections::HashMap;

use serde_saphyr::granit_parser::{self as yaml, Event, Parser, ScalarStyle};
use smol_str::{SmolStr, ToSmolStr};

use crate::diagnostic::{Code, Diagnostic, FileId, Span, narrow};

/// Most nodes one file's aliases may add (an alias copies its anchor at every use); stops
/// "billion laughs" inputs. Only copies count: what a file writes out is bounded by its own
/// size, so a large plain file (an export of a whole estate) always loads.
const MAX_NODES: usize = 2_000_000;
/// Most bytes of keys and scalars one file's aliases may add: a few aliases of a long string
/// would otherwise stay under [`MAX_NODES`] and still take gigabytes.
const MAX_BYTES: usize = 32 * 1024 * 1024;
/// Deepest nesting accepted; the config format needs about ten levels.
const MAX_DEPTH: usize = 128;

/// A YAML value with where it was written.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Node {
    /// The value.
    pub kind: Kind,
    /// Where the value was written.
    pub span: Span,
}

/// The value of a [`Node`].
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Kind {
    /// `null`, `~` or nothing.
    Null,
    /// `true` or `false`.
    Bool(bool),
    /// A whole number.
    Int(i64),
    /// A finite number with a fraction or exponent.
    Float(f64),
    /// Any other scalar, and every quoted one. Held inline up to 23 bytes (most keys' values
    /// are short: `time`, `lucene`, `count`), so a large config's strings are not each a heap
    /// chunk.
    Str(SmolStr),
    /// A sequence.
    Seq(Vec<Node>),
    /// A mapping, in written order, keys unique.
    Map(Vec<(Key, Node)>),
}

/// A mapping key with where it was written.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Key {
    /// The key text, inline up to 23 bytes (every key of the format is).
    pub name: SmolStr,
    /// Where the key was written.
    pub span: Span,
}

impl Node {
    /// The entries, when this is a mapping.
    pub(crate) fn as_map(&self) -> Option<&[(Key, Node)]> {
        match &self.kind {
            Kind::Map(entries) => Some(entries),
            _ => None,
        }
    }

    /// The value under `key`, when this is a mapping that has it.
    pub(crate) fn get(&self, key: &str) -> Option<&Node> {
        self.as_map()?
            .iter()
            .find(|(k, _)| k.name == key)
            .map(|(_, v)| v)
    }

    /// The value under `key`, changeable, when this is a mapping that has it.
    pub(crate) fn get_mut(&mut self, key: &str) -> Option<&mut Node> {
        match &mut self.kind {
            Kind::Map(entries) => entries
                .iter_mut()
                .find(|(k, _)| k.name == key)
                .map(|(_, v)| v),
            _ => None,
        }
    }

    /// The node as a JSON value, spans dropped (a non-finite float becomes null): for parts of
    /// the config kept as written (a tile's `config`, a pipe's source).
    pub(crate) fn to_json(&self) -> serde_json::Value {
        use serde_json::Value;
        match &self.kind {
            Kind::Null => Value::Null,
            Kind::Bool(b) => Value::Bool(*b),
            Kind::Int(i) => Value::from(*i),
            Kind::Float(f) => serde_json::Number::from_f64(*f).map_or(Value::Null, Value::Number),
            Kind::Str(s) => Value::String(s.to_string()),
            Kind::Seq(items) => Value::Array(items.iter().map(Node::to_json).collect()),
            Kind::Map(entries) => Value::Object(
                entries
                    .iter()
                    .map(|(k, v)| (k.name.to_string(), v.to_json()))
                    .collect(),
            ),
        }
    }

    /// The text, when this is a string.
    pub(crate) fn as_str(&self) -> Option<&str> {
        match &self.kind {
            Kind::Str(s) => Some(s),
            _ => None,
        }
    }

    /// How many nodes this tree holds, and how many bytes of keys and scalars.
    fn weight(&self) -> (usize, usize) {
        match &self.kind {
            Kind::Seq(items) => items.iter().fold((1, 0), |(n, b), item| {
                let (items_n, items_b) = item.weight();
                (n.saturating_add(items_n), b.saturating_add(items_b))
            }),
            Kind::Map(entries) => entries.iter().fold((1, 0), |(n, b), (key, value)| {
                let (value_n, value_b) = value.weight();
                (
                    n.saturating_add(value_n),
                    b.saturating_add(key.name.len()).saturating_add(value_b),
                )
            }),
            Kind::Str(text) => (1, text.len()),
            _ => (1, 0),
        }
    }
}

/// Parses one file. `None` when the text has no document at all (empty or only comments).
/// Problems (syntax, duplicate keys, a second document) are pushed to `diags`; on a syntax
/// error the tree is dropped since what follows the error cannot be trusted.
pub(crate) fn parse(text: &str, file: FileId, diags: &mut Vec<Diagnostic>) -> Option<Node> {
    let mut options = yaml::Options::default();
    options.set_emit_comments(false);
    let mut reader = Reader {
        parser: Parser::new_from_str_with_options(text, options),
        text,
        file,
        anchors: HashMap::new(),
        nodes: 0,
        bytes: 0,
        diags,
    };
    match reader.stream() {
        Ok(node) => node,
        Err(diag) => {
            reader.diags.push(*diag);
            None
        }
    }
}

type Step<T> = Result<T, Box<Diagnostic>>;

struct Reader<'t, 'd> {
    parser: Parser<'t, yaml::StrInput<'t>>,
    text: &'t str,
    file: FileId,
    /// Anchored nodes by the parser's anchor id, with their weight (nodes, bytes).
    anchors: HashMap<usize, (Node, usize, usize)>,
    /// Nodes the aliases read so far have copied.
    nodes: usize,
    /// Bytes of keys and scalars the aliases read so far have copied.
    bytes: usize,
    diags: &'d mut Vec<Diagnostic>,
}

impl<'t> Reader<'t, '_> {
    fn next(&mut self) -> Step<(Event<'t>, yaml::Span)> {
        match self.parser.next_event() {
            Some(Ok(pair)) => Ok(pair),
            Some(Err(error)) => {
                let marker = *error.marker();
                // The scanner reports a tab where the scalar it was reading began, often the
                // line above; the user needs the tab itself.
                if error.info().contains("tab")
                    && let Some(span) =
                        indentation_tab(self.text, self.byte_offset(marker), self.file)
                {
                    return Err(Box::new(
                        Diagnostic::error(
                            Code::YamlTab,
                            "a tab in the indentation: YAML indents with spaces only",
                            Some(span),
                        )
                        .with_label("tab")
                        .with_help(
                            "replace the tab with spaces, as many as the lines around it use",
                        ),
                    ));
                }
                let mut info = error.info();
                if info.is_empty() {
                    info = "invalid YAML".to_string();
                }
                // A wrong indent: the parser stops after it; say which key is at the wrong depth.
                if info.contains("expected key") || info.contains("mapping values are not allowed")
                {
                    let at = self.byte_offset(marker);
                    if let Some(wrong) = super::indent::wrong_indent(self.text, at, self.file) {
                        return Err(Box::new(wrong_indent(&wrong, &info)));
                    }
                }
                let span = self.span_at(marker, marker);
                Err(Box::new(
                    Diagnostic::error(
                        Code::YamlSyntax,
                        format!("YAML syntax error: {info}"),
                        Some(span),
                    )
                    .with_label("here")
                    .with_help("fix the YAML syntax at this place; every later check waits for it"),
                ))
            }
            None => Err(Box::new(Diagnostic::error(
                Code::YamlSyntax,
                "YAML syntax error: the text ends too early",
                Some(self.end_span()),
            ))),
        }
    }

    fn stream(&mut self) -> Step<Option<Node>> {
        let mut root = None;
        loop {
            let (event, span) = self.next()?;
            match event {
                Event::StreamStart | Event::DocumentEnd => {}
                Event::StreamEnd => return Ok(root),
                Event::DocumentStart(..) => {
                    let node = self.node(0)?;
                    if root.is_some() {
                        let at = self.span_of(span);
                        self.diags.push(
                            Diagnostic::error(
                                Code::YamlMultipleDocuments,
                                "a config file holds one YAML document; this is a second one",
                                Some(at),
                            )
                            .with_help("split the documents into separate files of a directory"),
                        );
                    } else {
                        root = Some(node);
                    }
                }
                _ => {}
            }
        }
    }

    fn node(&mut self, depth: usize) -> Step<Node> {
        let (event, span) = self.next()?;
        self.node_from(event, span, depth)
    }

    fn node_from(&mut self, event: Event<'t>, yspan: yaml::Span, depth: usize) -> Step<Node> {
        let span = self.span_of(yspan);
        if depth > MAX_DEPTH {
            return Err(Box::new(Diagnostic::error(
                Code::YamlTooDeep,
                format!("the YAML nests deeper than {MAX_DEPTH} levels"),
                Some(span),
            )));
        }
        let node = match event {
            Event::Scalar(value, style, anchor, tag) => {
                let forced_str = tag
                    .as_ref()
                    .is_some_and(|t| t.is_yaml_core_schema_tag("str"));
                let kind = if style == ScalarStyle::Plain && !forced_str {
                    resolve_plain(&value)
                } else {
                    Kind::Str(SmolStr::from(value.as_ref()))
                };
                let node = Node { kind, span };
                self.remember(anchor, &node);
                node
            }
            Event::SequenceStart(_, anchor, _) => {
                let node = self.sequence(span, depth)?;
                self.remember(anchor, &node);
                node
            }
            Event::MappingStart(_, anchor, _) => {
                let node = self.mapping(span, depth)?;
                self.remember(anchor, &node);
                node
            }
            Event::Alias(id) => {
                let weight = self
                    .anchors
                    .get(&id)
                    .map(|&(_, nodes, bytes)| (nodes, bytes));
                if let Some((nodes, bytes)) = weight {
                    // Counted before the copy is made: the copy is what takes the memory.
                    self.count(nodes, bytes, span)?;
                }
                self.anchors.get(&id).map_or(
                    Node {
                        kind: Kind::Null,
                        span,
                    },
                    |(node, _, _)| node.clone(),
                )
            }
            Event::UnresolvedAlias(name) => {
                return Err(Box::new(Diagnostic::error(
                    Code::YamlSyntax,
                    format!("YAML syntax error: unknown anchor `{name}`"),
                    Some(span),
                )));
            }
            _ => {
                return Err(Box::new(Diagnostic::error(
                    Code::YamlSyntax,
                    "YAML syntax error: unexpected structure",
                    Some(span),
                )));
            }
        };
        Ok(node)
    }

    /// The items of a sequence whose start was just read, up to its end.
    fn sequence(&mut self, span: Span, depth: usize) -> Step<Node> {
        let mut items = Vec::new();
        loop {
            let (event, yspan) = self.next()?;
            if matches!(event, Event::SequenceEnd) {
                break;
            }
            items.push(self.node_from(event, yspan, depth + 1)?);
        }
        // The tree lives through the whole load: no room kept for growth (a doubled
        // vector keeps up to half its room empty, in every sequence and mapping).
        items.shrink_to_fit();
        Ok(Node {
            kind: Kind::Seq(items),
            span,
        })
    }

    fn mapping(&mut self, span: Span, depth: usize) -> Step<Node> {
        let mut entries: Vec<(Key, Node)> = Vec::new();
        let mut positions = KeyIndex::default();
        let mut merged: Vec<(Key, Node)> = Vec::new();
        loop {
            let (event, yspan) = self.next()?;
            if matches!(event, Event::MappingEnd) {
                break;
            }
            let key_node = self.node_from(event, yspan, depth + 1)?;
            let value = self.node(depth + 1)?;
            let name = match &key_node.kind {
                Kind::Str(s) => s.clone(),
                Kind::Null => SmolStr::default(),
                Kind::Bool(b) => b.to_smolstr(),
                Kind::Int(i) => i.to_smolstr(),
                Kind::Float(f) => f.to_smolstr(),
                Kind::Seq(_) | Kind::Map(_) => {
                    self.diags.push(
                        Diagnostic::error(
                            Code::YamlKeyType,
                            "a mapping key must be a plain value, not a list or a mapping",
                            Some(key_node.span),
                        )
                        .with_label("this key"),
                    );
                    continue;
                }
            };
            let key = Key {
                name,
                span: key_node.span,
            };
            if key.name == "<<" && matches!(key_node.kind, Kind::Str(_)) {
                // A merge key: its mapping (or list of mappings) fills in keys not written here.
                let sources = match value.kind {
                    Kind::Seq(items) => items,
                    _ => vec![value],
                };
                for source in sources {
                    match source.kind {
                        Kind::Map(more) => merged.extend(more),
                        _ => self.diags.push(
                            Diagnostic::error(
                                Code::YamlMerge,
                                "a merge key `<<` takes a mapping or a list of mappings",
                                Some(source.span),
                            )
                            .with_label("not a mapping"),
                        ),
                    }
                }
                continue;
            }
            if let Some((first, _)) = positions
                .find(&entries, &key.name)
                .and_then(|at| entries.get(at))
            {
                self.diags.push(duplicate_key(&key, first.span));
                self.diags.extend(dropped_secret(&key, &value));
                continue;
            }
            entries.push((key, value));
            positions.pushed(&entries);
        }
        for (key, value) in merged {
            if positions.find(&entries, &key.name).is_none() {
                entries.push((key, value));
                positions.pushed(&entries);
            }
        }
        entries.shrink_to_fit();
        Ok(Node {
            kind: Kind::Map(entries),
            span,
        })
    }

    fn remember(&mut self, anchor: usize, node: &Node) {
        if anchor != 0 {
            let (nodes, bytes) = node.weight();
            self.anchors.insert(anchor, (node.clone(), nodes, bytes));
        }
    }

    /// Counts what an alias at `span` copies, and stops at the limits on what aliases add.
    fn count(&mut self, nodes: usize, bytes: usize, span: Span) -> Step<()> {
        self.nodes = self.nodes.saturating_add(nodes);
        self.bytes = self.bytes.saturating_add(bytes);
        let problem = if self.nodes > MAX_NODES {
            format!(
                "the YAML's aliases copy more than {MAX_NODES} values (the limit on what aliases \
                 add beyond what the file writes out)"
            )
        } else if self.bytes > MAX_BYTES {
            format!(
                "the YAML's aliases copy more than {} MiB of text (the limit on what aliases add \
                 beyond what the file writes out)",
                MAX_BYTES / (1024 * 1024)
            )
        } else {
            return Ok(());
        };
        Err(Box::new(
            Diagnostic::error(Code::YamlTooLarge, problem, Some(span))
                .with_label("this alias goes past the limit")
                .with_help("an alias copies what its anchor holds at every use: use fewer aliases of large anchors (a template's forEach makes instances without copying), or write the values out, which has no such limit"),
        ))
    }

    fn span_of(&self, span: yaml::Span) -> Span {
        self.span_at(span.start, span.end)
    }

    fn span_at(&self, start: yaml::Marker, end: yaml::Marker) -> Span {
        let offset = self.byte_offset(start);
        let end_offset = self.byte_offset(end).max(offset);
        let mut len = end_offset - offset;
        // Underline at least one character, and never past the end of the text.
        if len == 0 {
            len = self.text[offset..]
                .chars()
                .next()
                .map_or(0, char::len_utf8)
                .max(1);
        }
        Span::new(
            self.file,
            narrow(offset),
            narrow(len),
            narrow(start.line().max(1)),
            narrow(start.col() + 1),
        )
    }

    fn byte_offset(&self, marker: yaml::Marker) -> usize {
        let offset = marker.byte_offset().unwrap_or_else(|| {
            self.text
                .char_indices()
                .nth(marker.index())
                .map_or(self.text.len(), |(i, _)| i)
        });
        let mut offset = offset.min(self.text.len());
        while !self.text.is_char_boundary(offset) {
            offset -= 1;
        }
        offset
    }

    fn end_span(&self) -> Span {
        end_of(self.text, self.file)
    }
}

/// Where each key of a mapping being read stands in its entries: a scan while the mapping is
/// small (most are, and a scan is cheaper there), a hash index from [`INDEX_FROM`] keys on, so
/// a mapping of many keys is checked for duplicates in linear time.
#[derive(Default)]
struct KeyIndex {
    index: Option<HashMap<SmolStr, usize>>,
}

/// Keys from which a mapping is indexed.
const INDEX_FROM: usize = 16;

impl KeyIndex {
    fn find(&self, entries: &[(Key, Node)], name: &str) -> Option<usize> {
        match &self.index {
            Some(index) => index.get(name).copied(),
            None => entries.iter().position(|(key, _)| key.name == name),
        }
    }

    /// Takes note of the entry just pushed.
    fn pushed(&mut self, entries: &[(Key, Node)]) {
        match &mut self.index {
            Some(index) => {
                if let Some((key, _)) = entries.last() {
                    index.insert(key.name.clone(), entries.len() - 1);
                }
            }
            None if entries.len() >= INDEX_FROM => {
                self.index = Some(
                    entries
                        .iter()
                        .enumerate()
                        .map(|(at, (key, _))| (key.name.clone(), at))
                        .collect(),
                );
            }
            None => {}
        }
    }
}

/// The JSON pointer of a child: `base` + `/` + the escaped segment (RFC 6901).
pub(crate) fn child_pointer(base: &str, segment: &str) -> String {
    let mut out = String::with_capacity(base.len() + segment.len() + 1);
    out.push_str(base);
    out.push('/');
    for c in segment.chars() {
        match c {
            '~' => out.push_str("~0"),
            '/' => out.push_str("~1"),
            c => out.push(c),
        }
    }
    out
}

/// The first tab in the leading whitespace of a line, from the line holding byte `from` on.
fn indentation_tab(text: &str, from: usize, file: FileId) -> Option<Span> {
    let line_start = text[..from.min(text.len())]
        .rfind('\n')
        .map_or(0, |at| at + 1);
    let first_line = text[..line_start].matches('\n').count() + 1;
    text[line_start..]
        .split_inclusive('\n')
        .scan(line_start, |offset, line| {
            let start = *offset;
            *offset += line.len();
            Some((start, line))
        })
        .enumerate()
        .find_map(|(index, (start, line))| {
            let indent = line.len() - line.trim_start_matches([' ', '\t']).len();
            let column = line[..indent].find('\t')?;
            // The indentation is ASCII, so bytes and characters agree.
            Some(Span::new(
                file,
                narrow(start + column),
                1,
                narrow(first_line + index),
                narrow(column + 1),
            ))
        })
}

/// The error of a key at the wrong depth; `info` is what the parser said.
fn wrong_indent(wrong: &super::indent::WrongIndent, info: &str) -> Diagnostic {
    let spaces = |n: usize| {
        if n == 1 {
            "1 space".to_string()
        } else {
            format!("{n} spaces")
        }
    };
    Diagnostic::error(
        Code::YamlSyntax,
        format!(
            "YAML syntax error: `{}` is indented {} where the keys around it have {}",
            wrong.key,
            spaces(wrong.indent),
            spaces(wrong.expected)
        ),
        Some(wrong.span),
    )
    .with_label("at the wrong depth")
    .with_help(format!(
        "indent `{}` by {}, as `{}` next to it (the parser said: {info})",
        wrong.key,
        spaces(wrong.expected),
        wrong.sibling
    ))
}

/// A one-character span at the end of a text (for "ends too early").
pub(crate) fn end_of(text: &str, file: FileId) -> Span {
    let line = text.lines().count().max(1);
    let column = text.lines().last().map_or(0, |l| l.chars().count()) + 1;
    Span::new(file, narrow(text.len()), 1, narrow(line), narrow(column))
}

/// A literal secret under a key that is dropped (written twice): no later stage sees it, so it
/// is reported here, which also keeps it masked in every snippet.
fn dropped_secret(key: &Key, value: &Node) -> Option<Diagnostic> {
    if !super::secret_fields::is_secret_field_key(&key.name) {
        return None;
    }
    if value
        .as_str()
        .is_some_and(|s| super::interpolate::secret_reference(s).is_some())
        || matches!(value.kind, Kind::Seq(_) | Kind::Map(_) | Kind::Null)
    {
        return None;
    }
    Some(
        Diagnostic::error(
            Code::ConfigLiteralSecret,
            format!(
                "`{}` must be an environment reference such as `${{env:NAME}}`, not a literal value",
                key.name
            ),
            Some(value.span),
        )
        .with_help("remove the secret from the file and rotate it if it was committed"),
    )
}

/// The error for a key written twice: the second place underlined, the first one shown.
pub(crate) fn duplicate_key(key: &Key, first: Span) -> Diagnostic {
    Diagnostic::error(
        Code::ConfigDuplicateKey,
        format!("`{}` is defined twice", key.name),
        Some(key.span),
    )
    .with_label("defined again here")
    .with_related(first, "first defined here")
    .with_help("keep one definition and delete or rename the other")
}

/// Resolves a plain scalar by the YAML 1.2 core schema, booleans strict.
pub(crate) fn resolve_plain(text: &str) -> Kind {
    match text {
        "" | "~" | "null" | "Null" | "NULL" => return Kind::Null,
        "true" | "True" | "TRUE" => return Kind::Bool(true),
        "false" | "False" | "FALSE" => return Kind::Bool(false),
        _ => {}
    }
    if let Some(int) = parse_int(text) {
        return Kind::Int(int);
    }
    if looks_like_float(text)
        && let Ok(f) = text.parse::<f64>()
        && f.is_finite()
    {
        return Kind::Float(f);
    }
    Kind::Str(SmolStr::from(text))
}

fn parse_int(text: &str) -> Option<i64> {
    if let Some(hex) = text.strip_prefix("0x") {
        return i64::from_str_radix(hex, 16).ok();
    }
    if let Some(oct) = text.strip_prefix("0o") {
        return i64::from_str_radix(oct, 8).ok();
    }
    let digits = text.strip_prefix(['-', '+']).unwrap_or(text);
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    text.parse().ok()
}

fn looks_like_float(text: &str) -> bool {
    let body = text.strip_prefix(['-', '+']).unwrap_or(text);
    let (mantissa, exponent) = match body.find(['e', 'E']) {
        Some(i) => (&body[..i], Some(&body[i + 1..])),
        None => (body, None),
    };
    let mut parts = mantissa.splitn(2, '.');
    let whole = parts.next().unwrap_or("");
    let fraction = parts.next();
    let digits = |s: &str| s.bytes().all(|b| b.is_ascii_digit());
    let mantissa_ok = match fraction {
        Some(f) => digits(whole) && digits(f) && !(whole.is_empty() && f.is_empty()),
        None => !whole.is_empty() && digits(whole),
    };
    let exponent_ok = exponent.is_none_or(|e| {
        let e = e.strip_prefix(['-', '+']).unwrap_or(e);
        !e.is_empty() && digits(e)
    });
    mantissa_ok && exponent_ok
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse_ok(text: &str) -> (Option<Node>, Vec<Diagnostic>) {
        let mut diags = Vec::new();
        let node = parse(text, 0, &mut diags);
        (node, diags)
    }

    /// The tree holds a node per value and a key per mapping entry of the whole config: their
    /// sizes are most of the load's peak memory, so a field that grows them shows here.
    #[test]
    fn a_node_is_56_bytes_and_a_mapping_entry_104() {
        assert_eq!(std::mem::size_of::<Node>(), 56);
        assert_eq!(std::mem::size_of::<Key>(), 48);
        assert_eq!(std::mem::size_of::<(Key, Node)>(), 104);
    }

    #[test]
    fn strict_booleans_keep_yes_a_string() {
        let (node, diags) = parse_ok("a: yes\nb: true\nc: off\n");
        assert!(diags.is_empty());
        let node = node.unwrap();
        assert_eq!(node.get("a").unwrap().kind, Kind::Str("yes".into()));
        assert_eq!(node.get("b").unwrap().kind, Kind::Bool(true));
        assert_eq!(node.get("c").unwrap().kind, Kind::Str("off".into()));
    }

    #[test]
    fn numbers_and_quoted_strings() {
        let (node, _) = parse_ok("a: 12\nb: 0.5\nc: '12'\nd: 1e3\ne: 1.2.3\nf: .inf\n");
        let node = node.unwrap();
        assert_eq!(node.get("a").unwrap().kind, Kind::Int(12));
        assert_eq!(node.get("b").unwrap().kind, Kind::Float(0.5));
        assert_eq!(node.get("c").unwrap().kind, Kind::Str("12".into()));
        assert_eq!(node.get("d").unwrap().kind, Kind::Float(1000.0));
        assert_eq!(node.get("e").unwrap().kind, Kind::Str("1.2.3".into()));
        assert_eq!(node.get("f").unwrap().kind, Kind::Str(".inf".into()));
    }

    #[test]
    fn spans_point_at_values() {
        let text = "top:\n  key: value\n";
        let (node, _) = parse_ok(text);
        let value = node
            .unwrap()
            .get("top")
            .unwrap()
            .get("key")
            .unwrap()
            .clone();
        assert_eq!((value.span.line, value.span.column), (2, 8));
        assert_eq!(&text[value.span.range()], "value");
    }

    #[test]
    fn duplicate_keys_show_both_places() {
        let (_, diags) = parse_ok("a: 1\nb: 2\na: 3\n");
        assert_eq!(diags.len(), 1);
        assert_eq!(diags[0].code, Code::ConfigDuplicateKey);
        assert_eq!(diags[0].span.unwrap().line, 3);
        assert_eq!(diags[0].related[0].0.line, 1);
    }

    #[test]
    fn merge_keys_and_aliases() {
        let (node, diags) = parse_ok("base: &b { x: 1, y: 2 }\nuse:\n  <<: *b\n  y: 3\n");
        assert!(diags.is_empty(), "{diags:?}");
        let used = node.unwrap().get("use").unwrap().clone();
        assert_eq!(used.get("x").unwrap().kind, Kind::Int(1));
        assert_eq!(used.get("y").unwrap().kind, Kind::Int(3));
    }

    #[test]
    fn syntax_error_has_a_place() {
        let (node, diags) = parse_ok("a: [1, 2\nb: 3\n");
        assert!(node.is_none());
        assert_eq!(diags[0].code, Code::YamlSyntax);
        assert!(diags[0].span.is_some());
    }

    #[test]
    fn a_tab_in_the_indentation_is_reported_on_its_own_line() {
        let text = "a:\n  b: some value\n\t  c: 1\n";
        let (_, diags) = parse_ok(text);
        assert_eq!(diags[0].code, Code::YamlTab, "{diags:?}");
        let span = diags[0].span.unwrap();
        assert_eq!((span.line, span.column), (3, 1));
        assert_eq!(&text[span.range()], "\t");
        let (_, diags) = parse_ok("a:\n  b:\n  \tc: 1\n");
        let span = diags[0].span.unwrap();
        assert_eq!(
            (diags[0].code, span.line, span.column),
            (Code::YamlTab, 3, 3)
        );
    }

    #[test]
    fn alias_bombs_stop() {
        let mut text = String::from("a0: &a0 [x, x, x, x, x, x, x, x, x, x]\n");
        for i in 1..9 {
            let p = i - 1;
            text.push_str(&format!(
                "a{i}: &a{i} [*a{p}, *a{p}, *a{p}, *a{p}, *a{p}, *a{p}, *a{p}, *a{p}, *a{p}, *a{p}]\n"
            ));
        }
        let (_, diags) = parse_ok(&text);
        assert!(diags.iter().any(|d| d.code == Code::YamlTooLarge));
    }

    #[test]
    fn a_plain_file_of_more_values_than_the_alias_limit_loads() {
        // An export of a whole estate writes millions of values and no alias (issue 38).
        let mut text = String::with_capacity(2 * MAX_NODES + 16);
        text.push_str("l: [");
        for _ in 0..=MAX_NODES {
            text.push_str("1,");
        }
        text.push_str("1]\n");
        let (node, diags) = parse_ok(&text);
        assert!(diags.is_empty(), "{diags:?}");
        assert!(node.is_some());
    }

    #[test]
    fn alias_bombs_of_long_strings_stop_by_bytes() {
        let mut text = format!("s: &s \"{}\"\n", "x".repeat(100_000));
        let aliases = vec!["*s"; 400].join(", ");
        text.push_str(&format!("l: [{aliases}]\n"));
        let (node, diags) = parse_ok(&text);
        assert!(node.is_none());
        assert_eq!(diags.len(), 1, "{diags:?}");
        assert_eq!(diags[0].code, Code::YamlTooLarge);
        assert!(
            diags[0].message.contains("MiB of text"),
            "{}",
            diags[0].message
        );
        // 300 copies (30 MB) are still within the bound.
        let fewer = text.replacen(&aliases, &vec!["*s"; 300].join(", "), 1);
        assert!(parse_ok(&fewer).1.is_empty());
    }

    #[test]
    fn a_key_repeated_far_apart_is_found() {
        let mut text: String = (0..5000).map(|i| format!("k{i}: {i}\n")).collect();
        text.push_str("k42: again\n");
        let (node, diags) = parse_ok(&text);
        assert_eq!(node.unwrap().as_map().unwrap().len(), 5000);
        assert_eq!(diags.len(), 1);
        assert_eq!(diags[0].span.unwrap().line, 5001);
        assert_eq!(diags[0].related[0].0.line, 43);
    }
}
