//! Showing diagnostics: as miette reports on stderr (text), as a JSON array on stdout, and as
//! GitHub workflow annotations on stdout when `GITHUB_ACTIONS=true`, so pull requests show each
//! problem on its line. Used for config problems and for plan-time rule errors alike.

use std::fmt;
use std::sync::Arc;

use miette::{LabeledSpan, NamedSource, SourceSpan};
use serde_json::{Value, json};

use super::diagnostic::{Diagnostic, Severity};
use super::model::{Sources, Span};
use crate::output::Printer;

/// Codes whose underlined value is a secret: shown with their place but without the snippet.
const REDACTED_CODES: &[&str] = &["config::literal-secret"];

/// How diagnostics are printed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, clap::ValueEnum)]
pub enum Format {
    /// Human-readable reports on stderr with the value underlined.
    #[default]
    Text,
    /// A JSON array on stdout: objects with `file`, `line`, `column`, `severity`, `code`, `message`.
    Json,
}

/// Prints every diagnostic in the chosen format, plus GitHub annotations when
/// `GITHUB_ACTIONS=true` (on stdout with `text`; on stderr with `json`, so stdout stays valid JSON).
pub fn render(diags: &[Diagnostic], sources: &Sources, format: Format, printer: &Printer) {
    let masked = mask_secrets(diags, sources);
    let sources = &masked;
    match format {
        Format::Text => {
            for diag in diags {
                let text = to_text(diag, sources, printer);
                printer.err(text.trim_end_matches('\n'));
            }
        }
        Format::Json => printer.out(&format!("{}\n", to_json(diags, sources))),
    }
    if std::env::var("GITHUB_ACTIONS").is_ok_and(|v| v == "true") {
        let annotations = github_annotations(diags, sources);
        match format {
            Format::Text => printer.out(&annotations),
            // stdout stays one JSON document for `jq`; the runner reads workflow commands
            // from stderr as well.
            Format::Json => printer.err(annotations.trim_end_matches('\n')),
        }
    }
}

/// One diagnostic as a miette report: file:line:col, the value underlined, related places,
/// the help line; plain ASCII when the printer has no color.
pub fn to_text(diag: &Diagnostic, sources: &Sources, printer: &Printer) -> String {
    let report = Report::new(diag, sources);
    printer.render(&report)
}

/// The sources with every redacted value (a literal secret) overwritten by `*`, so that the
/// snippets of other diagnostics, which show neighbouring lines, never show it either.
fn mask_secrets(diags: &[Diagnostic], sources: &Sources) -> Sources {
    let mut masked = sources.clone();
    for span in diags
        .iter()
        .filter(|d| REDACTED_CODES.contains(&d.code.as_str()))
        .filter_map(|d| d.span)
    {
        let Some(file) = masked.files.get_mut(span.file) else {
            continue;
        };
        let text: &str = &file.text;
        let mut start = span.offset.min(text.len());
        let mut end = span.offset.saturating_add(span.len).min(text.len());
        while !text.is_char_boundary(start) {
            start -= 1;
        }
        while !text.is_char_boundary(end) {
            end += 1;
        }
        // One `*` per byte keeps every later offset of the file in place.
        let mut stars = String::with_capacity(end - start);
        for c in text[start..end].chars() {
            if c == '\n' {
                stars.push('\n');
            } else {
                stars.push_str(&"*".repeat(c.len_utf8()));
            }
        }
        file.text = Arc::from(format!("{}{stars}{}", &text[..start], &text[end..]));
    }
    masked
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
                "code": d.code,
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
                escape_property(&file_name(sources, span))
            ));
            properties.push(format!("line={}", span.line));
            properties.push(format!("col={}", span.column));
        }
        properties.push(format!("title={}", escape_property(&d.code)));
        let mut message = printable(&d.message);
        if let Some(help) = &d.help {
            message.push_str("\nhelp: ");
            message.push_str(help);
        }
        out.push_str(&format!(
            "::{kind} {}::{}\n",
            properties.join(","),
            escape_data(&message)
        ));
    }
    out
}

fn escape_data(text: &str) -> String {
    text.replace('%', "%25")
        .replace('\r', "%0D")
        .replace('\n', "%0A")
}

fn escape_property(text: &str) -> String {
    escape_data(text).replace(':', "%3A").replace(',', "%2C")
}

fn file_name(sources: &Sources, span: Span) -> String {
    sources
        .file(span.file)
        .map_or_else(|| "<unknown>".to_string(), |f| f.path.display().to_string())
}

/// A diagnostic prepared for miette: owned text, the file's source, labels per file.
#[derive(Debug)]
struct Report {
    message: String,
    code: String,
    /// `None` for a related place: shown as advice under its diagnostic.
    severity: Option<Severity>,
    help: Option<String>,
    source: Option<NamedSource<Arc<str>>>,
    labels: Vec<LabeledSpan>,
    related: Vec<Report>,
}

impl Report {
    fn new(diag: &Diagnostic, sources: &Sources) -> Self {
        let redacted = REDACTED_CODES.contains(&diag.code.as_str());
        let mut message = diag.message.clone();
        let mut report = Report {
            message: String::new(),
            code: diag.code.clone(),
            severity: Some(diag.severity),
            help: diag.help.as_deref().map(printable),
            source: None,
            labels: Vec::new(),
            related: Vec::new(),
        };
        if let Some(span) = diag.span {
            let wide = sources
                .file(span.file)
                .is_some_and(|f| has_wide_lines(&f.text, span.offset));
            if redacted || wide {
                message.push_str(&format!(
                    " (at {}:{}:{})",
                    file_name(sources, span),
                    span.line,
                    span.column
                ));
            } else if let Some(file) = sources.file(span.file) {
                report.source = Some(
                    NamedSource::new(file.path.display().to_string(), Arc::clone(&file.text))
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
            match sources.file(span.file) {
                Some(file) if same_file => {
                    report.labels.push(LabeledSpan::new_with_span(
                        Some(label.clone()),
                        clamp(*span, &file.text),
                    ));
                }
                Some(file) => report.related.push(Report {
                    message: label.clone(),
                    code: String::new(),
                    severity: None,
                    help: None,
                    source: Some(
                        NamedSource::new(file.path.display().to_string(), Arc::clone(&file.text))
                            .with_language("yaml"),
                    ),
                    labels: vec![LabeledSpan::new_primary_with_span(
                        None,
                        clamp(*span, &file.text),
                    )],
                    related: Vec::new(),
                }),
                None => {}
            }
        }
        report.message = printable(&message);
        report
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
    let offset = span.offset.min(text.len());
    let len = span.len.min(text.len() - offset);
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
        (!self.code.is_empty()).then(|| Box::new(&self.code) as Box<dyn fmt::Display>)
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
        }
    }

    fn span(offset: usize, len: usize, line: usize, column: usize) -> Span {
        Span {
            file: 0,
            offset,
            len,
            line,
            column,
        }
    }

    #[test]
    fn text_shows_place_underline_and_help() {
        let d = Diagnostic::error(
            "schema::type",
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
        let d = Diagnostic::error("config::literal-secret", "bad", Some(span(16, 7, 2, 12)));
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
        };
        let wide = Diagnostic::error("schema::type", "bad", Some(span(9, 1, 2, 5)));
        let out = to_text(&wide, &files, &Printer::plain());
        assert!(out.contains("wide.yaml:2:5"), "{out}");
        assert!(out.len() < 400, "{out}");
        // The line above the wide one is shown with its context only when that is narrow.
        let narrow = Diagnostic::error("schema::type", "bad", Some(span(3, 1, 1, 4)));
        let out = to_text(&narrow, &files, &Printer::plain());
        assert!(out.contains("wide.yaml:1:4") && out.len() < 400, "{out}");
        let ok = Sources {
            files: vec![SourceFile {
                path: PathBuf::from("ok.yaml"),
                text: Arc::from("a: 1\nb: 2\n"),
            }],
        };
        let out = to_text(&narrow, &ok, &Printer::plain());
        assert!(
            out.contains("a: 1"),
            "a normal file keeps its snippet: {out}"
        );
    }

    #[test]
    fn control_characters_in_messages_are_escaped() {
        let d = Diagnostic::error("a::b", "key `\u{1b}[2Jx\u{0}`", Some(span(0, 1, 1, 1)))
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
        let d = Diagnostic::warning("a::b", "50% done\nnext", Some(span(0, 1, 1, 1)));
        let out = github_annotations(&[d], &sources());
        assert_eq!(
            out,
            "::warning file=c.yaml,line=1,col=1,title=a%3A%3Ab::50%25 done%0Anext\n"
        );
    }
}
