//! Showing diagnostics: as miette reports on stderr (text), as a JSON array on stdout, and as
//! GitHub workflow annotations on stderr when `GITHUB_ACTIONS=true`, so pull requests show each
//! problem on its line. Used for config problems and for plan-time rule errors alike.

use std::fmt;
use std::sync::Arc;

use miette::{LabeledSpan, MietteError, MietteSpanContents, NamedSource, SourceSpan, SpanContents};
use serde_json::{Value, json};

use super::model::Sources;
use crate::diagnostic::{Code, Diagnostic, Severity, Span};
use crate::format::Format;
use crate::output::Printer;

/// Codes whose underlined value is a secret: shown with their place but without the snippet.
const REDACTED_CODES: &[Code] = &[Code::ConfigLiteralSecret];

/// Prints every diagnostic in the chosen format, plus GitHub annotations on stderr when
/// `GITHUB_ACTIONS=true`.
pub fn render(diags: &[Diagnostic], sources: &Sources, format: Format, printer: &Printer) {
    let diags = &with_instances(diags, sources);
    let masked = mask_secrets(diags, sources);
    let sources = &masked;
    // `validate` offers no Markdown: anything but JSON is text.
    match format {
        Format::Text | Format::Markdown => {
            let indexed = index_files(sources);
            for diag in diags {
                let text = printer.render(&Report::new(diag, sources, &indexed));
                printer.err(text.trim_end_matches('\n'));
            }
        }
        Format::Json => printer.out(&format!("{}\n", to_json(diags, sources))),
    }
    if std::env::var("GITHUB_ACTIONS").is_ok_and(|v| v == "true") {
        // Always on stderr: the runner reads workflow commands there as well, and stdout
        // carries exactly one document (the plan, the comment, the JSON) whatever the format.
        let annotations = github_annotations(diags, sources);
        printer.err(annotations.trim_end_matches('\n'));
    }
}

/// One diagnostic as a miette report: file:line:col, the value underlined, related places,
/// the help line; plain ASCII when the printer has no color.
pub fn to_text(diag: &Diagnostic, sources: &Sources, printer: &Printer) -> String {
    let diags = with_instances(std::slice::from_ref(diag), sources);
    let masked = mask_secrets(&diags, sources);
    let report = Report::new(&diags[0], &masked, &index_files(&masked));
    printer.render(&report)
}

/// The diagnostics with, for each one raised on a value copied from a template, the instance
/// that value was written for as a related place: the template's line is underlined, the
/// instance's line shown beside it.
fn with_instances(diags: &[Diagnostic], sources: &Sources) -> Vec<Diagnostic> {
    diags
        .iter()
        .map(|diag| {
            let mut diag = diag.clone();
            if let Some(origin) = diag.span.and_then(|span| sources.instance(span))
                && diag
                    .span
                    .is_some_and(|span| span.offset != origin.span.offset)
            {
                diag.related.push((
                    origin.span,
                    format!(
                        "in instance `{}` of template `{}`",
                        origin.key, origin.template
                    ),
                ));
            }
            diag
        })
        .collect()
}

/// The sources with every secret value overwritten by `*`, so that no snippet shows one: the
/// values of redacted diagnostics (a literal secret), and whatever is written under a key that
/// looks like a secret's (`keysecret:`, `password:`, ...), whatever its shape, even on a line
/// with a syntax error.
fn mask_secrets(diags: &[Diagnostic], sources: &Sources) -> Sources {
    let mut masked = sources.clone();
    for file in &mut masked.files {
        if let Some(text) = mask_secret_keys(&file.text) {
            file.text = Arc::from(text);
        }
    }
    for span in diags
        .iter()
        .filter(|d| REDACTED_CODES.contains(&d.code))
        .filter_map(|d| d.span)
    {
        let Some(file) = masked.files.get_mut(span.file_index()) else {
            continue;
        };
        let text: &str = &file.text;
        let mut start = span.start().min(text.len());
        let mut end = span.end().min(text.len());
        while !text.is_char_boundary(start) {
            start -= 1;
        }
        while !text.is_char_boundary(end) {
            end += 1;
        }
        let mut out = String::with_capacity(text.len());
        out.push_str(&text[..start]);
        out.push_str(&stars(&text[start..end]));
        out.push_str(&text[end..]);
        file.text = Arc::from(out);
    }
    masked
}

/// One `*` per byte (line breaks and blanks kept), so every later offset of the file stays in
/// place.
fn stars(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        if c.is_whitespace() {
            out.push(c);
        } else {
            out.push_str(&"*".repeat(c.len_utf8()));
        }
    }
    out
}

/// Words that make a key a secret's, lowercase, besides the config's own secret fields
/// ([`super::secret_fields::SECRET_FIELDS`]): what a misplaced credential is usually called.
const SECRET_KEY_WORDS: &[&str] = &[
    "secret",
    "password",
    "passwd",
    "passphrase",
    "credential",
    "apikey",
    "api_key",
    "api-key",
    "privatekey",
    "private_key",
    "private-key",
    "accesskey",
    "access_key",
    "access-key",
    "connectionstring",
    "connection_string",
];

/// Whether a key names a secret, whatever its case or spelling around the word.
pub(crate) fn is_secret_key(key: &str) -> bool {
    let lower = key.to_lowercase();
    super::secret_fields::SECRET_FIELDS
        .iter()
        .any(|field| lower.contains(&field.key.to_lowercase()))
        || SECRET_KEY_WORDS.iter().any(|word| lower.contains(word))
}

/// `text` with the value of every secret-looking key masked, read line by line rather than as
/// YAML so that it works on text that does not parse: after `key:` the rest of the line, and
/// when that is empty (or a block scalar or anchor only) the lines indented under the key. A
/// value that is exactly one `${env:NAME}` reference is not a secret and stays readable.
/// `None` when nothing was masked.
fn mask_secret_keys(text: &str) -> Option<String> {
    let mut out: Option<String> = None;
    // The key whose value continues on the following lines.
    let mut block: Option<Block> = None;
    let mut start = 0;
    while start < text.len() {
        let end = text[start..]
            .find('\n')
            .map_or(text.len(), |i| start + i + 1);
        let line = &text[start..end];
        let content = line.trim_end_matches(['\n', '\r']);
        let indent = content.len() - content.trim_start_matches([' ', '\t']).len();
        let rest = &content[indent..];
        if let Some(open) = &mut block {
            let inside = rest.is_empty()
                || indent > open.column
                || (indent == open.column && (rest == "-" || rest.starts_with("- ")));
            if inside {
                // A list item keeps its `- ` so the snippet still reads as the YAML it is.
                let item = rest.len() - rest.trim_start_matches(['-', ' ']).len();
                let at = indent + item;
                // In a mapping under the key (`credentials:` then `password: ${env:P}`), each
                // key stays readable, and a value that is one `${env:...}` reference too: the
                // reference names a variable, not the secret. A scalar's text (`|`, `>`, or
                // under a key whose value opens one) is masked whole.
                let scalar = open.scalar.is_some_and(|column| indent > column);
                match (!open.scalar_block && !scalar)
                    .then(|| mapping_entry(&content[at..]))
                    .flatten()
                {
                    Some((value_at, written)) => {
                        let value_at = at + value_at;
                        let reference = super::interpolate::secret_reference(written).is_some();
                        let masked_from = if reference {
                            content[value_at..].find(" #").map(|i| value_at + i)
                        } else {
                            Some(value_at)
                        };
                        if let Some(from) = masked_from {
                            mask_range(text, &mut out, start + from, start + content.len());
                        }
                        open.scalar = (!reference && opens_block(written))
                            .then_some(indent)
                            .or(open.scalar.filter(|column| indent > *column));
                    }
                    None => mask_range(text, &mut out, start + at, start + content.len()),
                }
                start = end;
                continue;
            }
            block = None;
        }
        if let Some((column, value_at)) = secret_key_on(content) {
            let value = &content[value_at..];
            let written = value.split(" #").next().unwrap_or("").trim();
            let reference = super::interpolate::secret_reference(written).is_some();
            let masked_from = if reference {
                // Only a comment after the reference can hold anything worth hiding.
                value.find(" #").map(|i| value_at + i)
            } else {
                Some(value_at)
            };
            if let Some(from) = masked_from {
                mask_range(text, &mut out, start + from, start + content.len());
            }
            if opens_block(written) && !reference {
                block = Some(Block {
                    column,
                    // `|` or `>`: what follows is one text, not keys.
                    scalar_block: written.starts_with(['|', '>']),
                    scalar: None,
                });
            }
        }
        start = end;
    }
    out
}

/// A secret-looking key whose value goes on over the lines indented under it.
struct Block {
    /// The key's column.
    column: usize,
    /// Its value is a block scalar (`|`, `>`): every line under it is text.
    scalar_block: bool,
    /// The column of a key inside it whose value opens a scalar or a nested block: the lines
    /// indented deeper are its value.
    scalar: Option<usize>,
}

/// Whether a key's written value (comment left out) goes on over the lines under it.
fn opens_block(written: &str) -> bool {
    written.is_empty() || written.starts_with(['|', '>', '&', '!'])
}

/// A `key: value` line's value: where it starts, and the value as written without a comment.
/// `None` when the line is not a plain block mapping entry.
fn mapping_entry(line: &str) -> Option<(usize, &str)> {
    let colon = line
        .find(": ")
        .or_else(|| line.strip_suffix(':').map(str::len))?;
    let key = &line[..colon];
    if key.is_empty() || key.starts_with(['{', '[', '"', '\'', '-', '#']) || key.contains(' ') {
        return None;
    }
    let value_at = (colon + 1).min(line.len());
    let written = line[value_at..].split(" #").next().unwrap_or("").trim();
    Some((value_at, written))
}

/// The column of the first secret-looking key on a line and where its value starts (just after
/// the `:`): a key is the word before a `:` that ends the line or is followed by a blank,
/// quoted or not, in block or flow style.
fn secret_key_on(line: &str) -> Option<(usize, usize)> {
    let bytes = line.as_bytes();
    for (colon, _) in line.match_indices(':') {
        let next = bytes.get(colon + 1).copied();
        if !matches!(next, None | Some(b' ' | b'\t')) {
            continue;
        }
        let before = line[..colon].trim_end_matches(['"', '\'']);
        let key_start = before
            .rfind(|c: char| c.is_whitespace() || matches!(c, '{' | '[' | ',' | '"' | '\''))
            .map_or(0, |i| {
                i + before[i..].chars().next().map_or(1, char::len_utf8)
            });
        let key = &before[key_start..];
        if !key.is_empty() && is_secret_key(key) {
            return Some((key_start, colon + 1));
        }
    }
    None
}

/// Overwrites `text[from..to]` with `*` in `out` (made from `text` on first use).
fn mask_range(text: &str, out: &mut Option<String>, from: usize, to: usize) {
    if from >= to {
        return;
    }
    let target = out.get_or_insert_with(|| text.to_string());
    let masked = stars(&text[from..to]);
    target.replace_range(from..to, &masked);
}

/// All diagnostics as a pretty-printed JSON array.
pub fn to_json(diags: &[Diagnostic], sources: &Sources) -> String {
    let items: Vec<Value> = diags
        .iter()
        .map(|d| {
            let mut item = json!({
                "file": d.span.map(|s| file_name(sources, s)),
                "line": d.span.map(|s| s.line),
                "column": d.span.map(|s| s.column),
                "severity": d.severity.as_str(),
                "code": d.code.as_str(),
                "message": d.message,
            });
            if let Some(help) = &d.help {
                item["help"] = Value::String(help.clone());
            }
            if !d.related.is_empty() {
                item["related"] = Value::Array(
                    d.related
                        .iter()
                        .map(|(s, label)| {
                            json!({
                                "file": file_name(sources, *s),
                                "line": s.line,
                                "column": s.column,
                                "label": label,
                            })
                        })
                        .collect(),
                );
            }
            item
        })
        .collect();
    serde_json::to_string_pretty(&Value::Array(items)).unwrap_or_else(|_| "[]".to_string())
}

/// GitHub workflow commands, one line per diagnostic.
pub fn github_annotations(diags: &[Diagnostic], sources: &Sources) -> String {
    let mut out = String::new();
    for d in diags {
        let kind = match d.severity {
            Severity::Error => "error",
            Severity::Warning => "warning",
        };
        let mut properties = Vec::new();
        if let Some(span) = d.span {
            properties.push(format!(
                "file={}",
                crate::output::annotation_property(&file_name(sources, span))
            ));
            properties.push(format!("line={}", span.line));
            properties.push(format!("col={}", span.column));
        }
        properties.push(format!(
            "title={}",
            crate::output::annotation_property(d.code.as_str())
        ));
        let mut message = printable(&d.message);
        if let Some(help) = &d.help {
            message.push_str("\nhelp: ");
            message.push_str(&printable(help));
        }
        out.push_str(&format!(
            "::{kind} {}::{}\n",
            properties.join(","),
            crate::output::annotation_data(&message)
        ));
        // A problem in a template's text is annotated at the instance too, where a reviewer
        // of the instance's line looks for it.
        if let Some(origin) = d.span.and_then(|span| sources.instance(span)) {
            let at = origin.span;
            out.push_str(&format!(
                "::{kind} file={},line={},col={},title={}::{}\n",
                crate::output::annotation_property(&file_name(sources, at)),
                at.line,
                at.column,
                crate::output::annotation_property(d.code.as_str()),
                crate::output::annotation_data(&format!(
                    "in instance `{}` of template `{}`: {message}",
                    origin.key, origin.template
                ))
            ));
        }
    }
    out
}

/// Where a diagnostic points, `file:line:column`; `None` for one without a place.
pub(crate) fn place(diag: &Diagnostic, sources: &Sources) -> Option<String> {
    Some(span_place(diag.span?, sources))
}

/// Where a span points, `file:line:column`.
pub(crate) fn span_place(span: Span, sources: &Sources) -> String {
    format!("{}:{}:{}", file_name(sources, span), span.line, span.column)
}

fn file_name(sources: &Sources, span: Span) -> String {
    sources.file(span.file_index()).map_or_else(
        || "<unknown>".to_string(),
        |f| crate::output::path_text(&f.path),
    )
}

/// A diagnostic prepared for miette: owned text, the file's source, labels per file.
#[derive(Debug)]
struct Report {
    message: String,
    code: Option<Code>,
    /// `None` for a related place: shown as advice under its diagnostic.
    severity: Option<Severity>,
    help: Option<String>,
    source: Option<NamedSource<Indexed>>,
    labels: Vec<LabeledSpan>,
    related: Vec<Report>,
}

impl Report {
    fn new(diag: &Diagnostic, sources: &Sources, indexed: &[Indexed]) -> Self {
        let redacted = REDACTED_CODES.contains(&diag.code);
        let mut message = diag.message.clone();
        let mut report = Report {
            message: String::new(),
            code: Some(diag.code),
            severity: Some(diag.severity),
            help: diag.help.as_deref().map(printable),
            source: None,
            labels: Vec::new(),
            related: Vec::new(),
        };
        if let Some(span) = diag.span {
            let wide = sources
                .file(span.file_index())
                .is_some_and(|f| has_wide_lines(&f.text, span.start()));
            if redacted || wide {
                message.push_str(&format!(
                    " (at {}:{}:{})",
                    file_name(sources, span),
                    span.line,
                    span.column
                ));
            } else if let (Some(file), Some(source)) = (
                sources.file(span.file_index()),
                indexed.get(span.file_index()),
            ) {
                report.source = Some(
                    NamedSource::new(crate::output::path_text(&file.path), source.clone())
                        .with_language("yaml"),
                );
                report.labels.push(LabeledSpan::new_primary_with_span(
                    diag.label.clone(),
                    clamp(span, &file.text),
                ));
            }
        }
        for (span, label) in &diag.related {
            let same_file = diag.span.is_some_and(|s| s.file == span.file) && !redacted;
            match (
                sources.file(span.file_index()),
                indexed.get(span.file_index()),
            ) {
                (Some(file), _) if same_file => {
                    report.labels.push(LabeledSpan::new_with_span(
                        Some(label.clone()),
                        clamp(*span, &file.text),
                    ));
                }
                (Some(file), Some(source)) => report.related.push(Report {
                    message: label.clone(),
                    code: None,
                    severity: None,
                    help: None,
                    source: Some(
                        NamedSource::new(crate::output::path_text(&file.path), source.clone())
                            .with_language("yaml"),
                    ),
                    labels: vec![LabeledSpan::new_primary_with_span(
                        None,
                        clamp(*span, &file.text),
                    )],
                    related: Vec::new(),
                }),
                _ => {}
            }
        }
        report.message = printable(&message);
        report
    }
}

/// A file's text for miette with the offset of every line start, made once per file: miette's
/// own reading counts the lines from the top of the text for every snippet, which made many
/// diagnostics in one large file quadratic. Here a snippet is found by binary search.
#[derive(Debug, Clone)]
struct Indexed {
    text: Arc<str>,
    starts: Arc<[usize]>,
}

fn index_files(sources: &Sources) -> Vec<Indexed> {
    sources
        .files
        .iter()
        .map(|file| Indexed {
            text: Arc::clone(&file.text),
            starts: line_starts(&file.text).into(),
        })
        .collect()
}

/// Where each line starts, line breaks counted as miette counts them (`\n`, `\r\n`, `\r`).
fn line_starts(text: &str) -> Vec<usize> {
    let bytes = text.as_bytes();
    let mut starts = vec![0];
    for (i, b) in bytes.iter().enumerate() {
        let ends_line = *b == b'\n' || (*b == b'\r' && bytes.get(i + 1) != Some(&b'\n'));
        if ends_line {
            starts.push(i + 1);
        }
    }
    starts
}

impl miette::SourceCode for Indexed {
    fn read_span<'a>(
        &'a self,
        span: &SourceSpan,
        context_lines_before: usize,
        context_lines_after: usize,
    ) -> Result<Box<dyn SpanContents<'a> + 'a>, MietteError> {
        // miette's reading, on the text from the first line the snippet can show: the same
        // snippet, shifted back into place.
        let line = self
            .starts
            .partition_point(|start| *start <= span.offset())
            .saturating_sub(1);
        let first = line.saturating_sub(context_lines_before);
        let base = self.starts.get(first).copied().unwrap_or(0);
        let tail = self
            .text
            .as_bytes()
            .get(base..)
            .ok_or(MietteError::OutOfBounds)?;
        let shifted = SourceSpan::new((span.offset() - base).into(), span.len());
        let inner = tail.read_span(&shifted, context_lines_before, context_lines_after)?;
        Ok(Box::new(MietteSpanContents::new(
            inner.data(),
            SourceSpan::new((inner.span().offset() + base).into(), inner.span().len()),
            inner.line() + first,
            inner.column(),
            inner.line_count() + first,
        )))
    }
}

/// `text` with control characters (other than line breaks) written as escapes: keys and values
/// quoted in messages come from the file, and a raw ESC would drive the terminal.
fn printable(text: &str) -> String {
    text.chars()
        .map(|c| {
            if c.is_control() && c != '\n' {
                c.escape_unicode().to_string()
            } else {
                c.to_string()
            }
        })
        .collect()
}

/// Longest line a snippet shows; a longer one (minified, one-line JSON) would flood the terminal
/// once per diagnostic, so such a diagnostic gives its place in the message instead.
const WIDEST_SNIPPET_LINE: usize = 400;

/// Whether the line at `offset` or one of its neighbours (the snippet's context) is too wide.
fn has_wide_lines(text: &str, offset: usize) -> bool {
    let offset = offset.min(text.len());
    let start = text.as_bytes()[..offset]
        .iter()
        .rposition(|b| *b == b'\n')
        .map_or(0, |i| i + 1);
    let before = text.as_bytes()[..start.saturating_sub(1)]
        .iter()
        .rposition(|b| *b == b'\n')
        .map_or(0, |i| i + 1);
    text.as_bytes()[before..]
        .split(|b| *b == b'\n')
        .take(3)
        .any(|line| line.len() > WIDEST_SNIPPET_LINE)
}

/// A span miette can read: inside the text, whatever produced it.
fn clamp(span: Span, text: &str) -> SourceSpan {
    let offset = span.start().min(text.len());
    let len = (span.len as usize).min(text.len() - offset);
    SourceSpan::new(offset.into(), len)
}

impl fmt::Display for Report {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for Report {}

impl miette::Diagnostic for Report {
    fn code<'a>(&'a self) -> Option<Box<dyn fmt::Display + 'a>> {
        self.code
            .map(|code| Box::new(code.as_str()) as Box<dyn fmt::Display>)
    }

    fn severity(&self) -> Option<miette::Severity> {
        Some(match self.severity {
            Some(Severity::Error) => miette::Severity::Error,
            Some(Severity::Warning) => miette::Severity::Warning,
            None => miette::Severity::Advice,
        })
    }

    fn help<'a>(&'a self) -> Option<Box<dyn fmt::Display + 'a>> {
        self.help
            .as_ref()
            .map(|h| Box::new(h) as Box<dyn fmt::Display>)
    }

    fn source_code(&self) -> Option<&dyn miette::SourceCode> {
        self.source.as_ref().map(|s| s as &dyn miette::SourceCode)
    }

    fn labels(&self) -> Option<Box<dyn Iterator<Item = LabeledSpan> + '_>> {
        if self.labels.is_empty() {
            return None;
        }
        Some(Box::new(self.labels.iter().cloned()))
    }

    fn related<'a>(&'a self) -> Option<Box<dyn Iterator<Item = &'a dyn miette::Diagnostic> + 'a>> {
        if self.related.is_empty() {
            return None;
        }
        Some(Box::new(
            self.related.iter().map(|r| r as &dyn miette::Diagnostic),
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::model::SourceFile;
    use std::path::PathBuf;

    fn sources() -> Sources {
        Sources {
            files: vec![SourceFile {
                path: PathBuf::from("c.yaml"),
                text: Arc::from("a: 1\nkeySecret: hunter2\n"),
            }],
            instances: Vec::new(),
        }
    }

    fn span(offset: usize, len: usize, line: usize, column: usize) -> Span {
        use crate::diagnostic::narrow;
        Span::new(0, narrow(offset), narrow(len), narrow(line), narrow(column))
    }

    #[test]
    fn text_shows_place_underline_and_help() {
        let d = Diagnostic::error(
            Code::SchemaType,
            "`a` must be a string",
            Some(span(3, 1, 1, 4)),
        )
        .with_label("expected a string")
        .with_help("quote it");
        let text = to_text(&d, &sources(), &Printer::plain());
        assert!(text.contains("c.yaml:1:4"), "{text}");
        assert!(text.contains("expected a string"), "{text}");
        assert!(text.contains("help: quote it"), "{text}");
        assert!(text.is_ascii(), "{text}");
    }

    #[test]
    fn literal_secrets_are_never_shown() {
        let d = Diagnostic::error(Code::ConfigLiteralSecret, "bad", Some(span(16, 7, 2, 12)));
        let s = sources();
        let text = to_text(&d, &s, &Printer::plain());
        assert!(!text.contains("hunter2"), "{text}");
        assert!(text.contains("c.yaml:2:12"), "{text}");
        assert!(!to_json(std::slice::from_ref(&d), &s).contains("hunter2"));
        assert!(!github_annotations(&[d], &s).contains("hunter2"));
    }

    #[test]
    fn a_very_wide_line_gives_the_place_without_a_snippet() {
        let text = format!("a: 1\nb: [{}]\nc: 2\n", "x, ".repeat(300));
        let files = Sources {
            files: vec![SourceFile {
                path: PathBuf::from("wide.yaml"),
                text: Arc::from(text.as_str()),
            }],
            instances: Vec::new(),
        };
        let wide = Diagnostic::error(Code::SchemaType, "bad", Some(span(9, 1, 2, 5)));
        let out = to_text(&wide, &files, &Printer::plain());
        assert!(out.contains("wide.yaml:2:5"), "{out}");
        assert!(out.len() < 400, "{out}");
        // The line above the wide one is shown with its context only when that is narrow.
        let narrow = Diagnostic::error(Code::SchemaType, "bad", Some(span(3, 1, 1, 4)));
        let out = to_text(&narrow, &files, &Printer::plain());
        assert!(out.contains("wide.yaml:1:4") && out.len() < 400, "{out}");
        let ok = Sources {
            files: vec![SourceFile {
                path: PathBuf::from("ok.yaml"),
                text: Arc::from("a: 1\nb: 2\n"),
            }],
            instances: Vec::new(),
        };
        let out = to_text(&narrow, &ok, &Printer::plain());
        assert!(
            out.contains("a: 1"),
            "a normal file keeps its snippet: {out}"
        );
    }

    #[test]
    fn values_under_secret_looking_keys_are_masked_whatever_their_shape() {
        let text = "cloud:\n  keysecret: hunter1\n  keySecret: [hunter2, x]\n  token:\n    - hunter3\n  \
                    Password: |\n    hunter4\n    hunter5\n  next: {api_key: hunter6, n: 1}\n  \
                    broken: \"apiToken\": hunter7: [\n  url: keep\n";
        let masked = mask_secret_keys(text).unwrap();
        assert_eq!(masked.len(), text.len(), "offsets stay in place");
        assert!(!masked.contains("hunter"), "{masked}");
        assert!(masked.contains("  url: keep\n"), "{masked}");
        assert!(
            masked.contains("    - *******\n"),
            "list items keep their dash: {masked}"
        );
        let reference = "keySecret: ${env:KEY} # old hunter8\ntoken: ${env:TOKEN}\n";
        let masked = mask_secret_keys(reference).unwrap();
        assert!(masked.starts_with("keySecret: ${env:KEY} *"), "{masked}");
        assert!(!masked.contains("hunter"), "{masked}");
        assert!(masked.ends_with("token: ${env:TOKEN}\n"), "{masked}");
        assert_eq!(mask_secret_keys("a: 1\nname: token bucket\n"), None);
    }

    #[test]
    fn a_reference_under_a_secret_looking_mapping_stays_readable() {
        let text = "credentials:\n  username: ${env:KAFKA_USER}\n  password: ${env:KAFKA_PASSWORD} # was hunter1\n  \
                    literal: hunter2\n  nested:\n    deep: hunter3\n  pem: |\n    key: hunter4\n    hunter5\n\
                    connectionString: |\n  user: hunter6\nurl: keep\n";
        let masked = mask_secret_keys(text).unwrap();
        assert_eq!(masked.len(), text.len(), "offsets stay in place");
        assert!(
            masked.contains("  username: ${env:KAFKA_USER}\n"),
            "{masked}"
        );
        assert!(
            masked.contains("  password: ${env:KAFKA_PASSWORD} *"),
            "{masked}"
        );
        assert!(masked.contains("  literal: *******\n"), "{masked}");
        assert!(!masked.contains("hunter"), "{masked}");
        assert!(masked.ends_with("url: keep\n"), "{masked}");
    }

    #[test]
    fn snippets_read_through_the_line_index_match_miette_s_own() {
        let text: String = (1..=40).map(|i| format!("key{i}: value {i}\r\n")).collect();
        let files = Sources {
            files: vec![SourceFile {
                path: PathBuf::from("many.yaml"),
                text: Arc::from(text.as_str()),
            }],
            instances: Vec::new(),
        };
        let at = |line: usize| {
            let offset = text.match_indices("key").nth(line - 1).unwrap().0;
            span(offset, 4, line, 1)
        };
        let diag = Diagnostic::error(Code::YamlSyntax, "message", Some(at(30)))
            .with_label("here")
            .with_related(at(33), "and here");
        let ours = to_text(&diag, &files, &Printer::plain());
        // The same report with miette reading the whole text itself.
        let mut report = Report::new(&diag, &files, &index_files(&files));
        report.source = None;
        let plain =
            NamedSource::new("many.yaml", Arc::clone(&files.files[0].text)).with_language("yaml");
        let handler = miette::GraphicalReportHandler::new_themed(miette::GraphicalTheme::none())
            .with_width(100);
        let mut theirs = String::new();
        handler
            .render_report(&mut theirs, &WithSource(&report, plain))
            .unwrap();
        assert_eq!(ours, theirs);
        assert!(ours.contains("30 | key30"), "{ours}");
    }

    /// A report with another source, to render it the way miette reads a plain text.
    struct WithSource<'a>(&'a Report, NamedSource<Arc<str>>);

    impl fmt::Debug for WithSource<'_> {
        fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            fmt::Debug::fmt(self.0, f)
        }
    }

    impl fmt::Display for WithSource<'_> {
        fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            fmt::Display::fmt(self.0, f)
        }
    }

    impl std::error::Error for WithSource<'_> {}

    impl miette::Diagnostic for WithSource<'_> {
        fn code<'b>(&'b self) -> Option<Box<dyn fmt::Display + 'b>> {
            miette::Diagnostic::code(self.0)
        }
        fn severity(&self) -> Option<miette::Severity> {
            miette::Diagnostic::severity(self.0)
        }
        fn source_code(&self) -> Option<&dyn miette::SourceCode> {
            Some(&self.1)
        }
        fn labels(&self) -> Option<Box<dyn Iterator<Item = LabeledSpan> + '_>> {
            miette::Diagnostic::labels(self.0)
        }
    }

    #[test]
    fn control_characters_in_messages_are_escaped() {
        let d = Diagnostic::error(
            Code::YamlSyntax,
            "key `\u{1b}[2Jx\u{0}`",
            Some(span(0, 1, 1, 1)),
        )
        .with_help("see `\u{1b}]0;title\u{7}`");
        let text = to_text(&d, &sources(), &Printer::plain());
        assert!(
            !text.contains('\u{1b}') && !text.contains('\u{0}'),
            "{text:?}"
        );
        assert!(text.contains("\\u{1b}[2Jx\\u{0}"), "{text}");
    }

    #[test]
    fn github_annotations_escape_and_place() {
        let d = Diagnostic::warning(Code::YamlSyntax, "50% done\nnext", Some(span(0, 1, 1, 1)));
        let out = github_annotations(&[d], &sources());
        assert_eq!(
            out,
            "::warning file=c.yaml,line=1,col=1,title=yaml%3A%3Asyntax::50%25 done%0Anext\n"
        );
    }
}
