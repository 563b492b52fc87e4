//! A problem and the stable code that names it. Config problems (the YAML reader, the schema
//! check, the semantic rules) and problems that need live facts (reading the live state,
//! planning) are [`Diagnostic`]s pointing at a [`Span`]; the errors that end a command carry a
//! [`Code`] too. This module sits below every layer that raises one; showing a diagnostic with
//! its file's text lives with the loader (`config::render`), which holds the files.

mod code;
mod span;

pub use code::Code;
pub use span::Span;
pub(crate) use span::{FileId, narrow};

/// How bad a diagnostic is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Severity {
    /// Makes the config invalid (exit 1).
    Error,
    /// Worth fixing; does not fail the run (deprecated fields, unset variables under `validate`).
    Warning,
}

impl Severity {
    /// `error` or `warning`, as JSON output and GitHub annotations spell it.
    pub(crate) fn as_str(self) -> &'static str {
        match self {
            Severity::Error => "error",
            Severity::Warning => "warning",
        }
    }
}

/// One problem, with where it is.
#[derive(Debug, Clone, PartialEq)]
pub struct Diagnostic {
    /// Error or warning.
    pub severity: Severity,
    /// A stable code, e.g. `config::unknown-key`, `schema::range`, `plan::pipe-scaling-field`.
    pub code: Code,
    /// What is wrong, in one sentence.
    pub message: String,
    /// Where; `None` only for problems with no place (an unreadable directory).
    pub span: Option<Span>,
    /// Text shown under the underlined value.
    pub label: Option<String>,
    /// Other places that matter (e.g. the first definition of a duplicated key).
    pub related: Vec<(Span, String)>,
    /// A `help:` line: what to do about it.
    pub help: Option<String>,
}

impl Diagnostic {
    /// An error at a place.
    pub(crate) fn error(code: Code, message: impl Into<String>, span: Option<Span>) -> Self {
        Diagnostic {
            severity: Severity::Error,
            code,
            message: message.into(),
            span,
            label: None,
            related: Vec::new(),
            help: None,
        }
    }

    /// A warning at a place.
    pub(crate) fn warning(code: Code, message: impl Into<String>, span: Option<Span>) -> Self {
        Diagnostic {
            severity: Severity::Warning,
            ..Diagnostic::error(code, message, span)
        }
    }

    /// Adds the text shown under the value.
    pub(crate) fn with_label(mut self, label: impl Into<String>) -> Self {
        self.label = Some(label.into());
        self
    }

    /// Adds a `help:` line.
    pub(crate) fn with_help(mut self, help: impl Into<String>) -> Self {
        self.help = Some(help.into());
        self
    }

    /// Adds another place that matters.
    pub(crate) fn with_related(mut self, span: Span, label: impl Into<String>) -> Self {
        self.related.push((span, label.into()));
        self
    }
}
