//! The formats a plan is rendered in, and the one call that renders it.

use super::model::Plan;
use super::{markdown, render_json, text};
use crate::output::Printer;

/// The output formats of `converge plan --format`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, clap::ValueEnum)]
pub enum Format {
    /// A field diff for people, colored on a terminal.
    #[default]
    Text,
    /// `converge-plan/1` JSON for programs.
    Json,
    /// A pull-request comment of at most 65,000 characters.
    Markdown,
}

/// Renders a plan in a format (what `plan` writes to stdout).
pub fn render(plan: &Plan, format: Format, printer: &Printer) -> String {
    match format {
        Format::Text => text::render(plan, printer),
        Format::Json => render_json::render(plan),
        Format::Markdown => markdown::render(plan),
    }
}
