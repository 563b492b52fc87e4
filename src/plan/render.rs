//! The formats a plan is rendered in, and the one call that renders it.

use super::model::Plan;
use super::{markdown, render_json, text};
use crate::output::Printer;

pub use crate::format::Format;

/// Renders a plan in a format (what `plan` writes to stdout).
pub fn render(plan: &Plan, format: Format, printer: &Printer) -> String {
    match format {
        Format::Text => text::render(plan, printer),
        Format::Json => render_json::render(plan),
        Format::Markdown => markdown::render(plan),
    }
}
