//! Renderings of a drift `Report`: text for people, versioned JSON (`converge-drift/1`) for
//! programs, Markdown (at most `BUDGET` bytes, first line [`MARKER`]) for an issue or a
//! comment a scheduled job keeps up to date.

use serde::Serialize;

use super::model::{Changed, DriftField, DriftSummary, Report, UnmanagedObject};
use crate::format::Format;
use crate::markdown::{escape, prose};
use crate::output::{Printer, Style};
use crate::plan::Action;
use crate::plan::CheckResult;
use crate::plan::text::show;

/// The format identifier of the JSON rendering.
pub(crate) const FORMAT: &str = "converge-drift/1";

/// The first line of every Markdown report, so a job can find and update its own issue.
pub const MARKER: &str = "<!-- converge-drift -->";

/// The largest Markdown report, in bytes (GitHub's limit for a body is 65,536 characters).
pub(crate) const BUDGET: usize = 65_000;

/// Renders a report in a format (what `drift` writes to stdout).
pub fn render(report: &Report, format: Format, printer: &Printer) -> String {
    match format {
        Format::Text => text(report, printer),
        Format::Json => json(report),
        Format::Markdown => markdown(report),
    }
}

/// `N changed, N unmanaged, N failed checks (N ignored)`.
pub(crate) fn summary_line(summary: &DriftSummary) -> String {
    let mut line = format!(
        "{} changed, {} unmanaged, {} failed {}",
        summary.changed,
        summary.unmanaged,
        summary.failed_checks,
        if summary.failed_checks == 1 {
            "check"
        } else {
            "checks"
        }
    );
    if summary.ignored > 0 {
        line.push_str(&format!(" ({} ignored)", summary.ignored));
    }
    line
}

/// One field line: `path: config X, live Y`.
fn field_line(field: &DriftField) -> String {
    let path = if field.path.is_empty() {
        "(object)"
    } else {
        field.path.as_str()
    };
    let side = |value: &Option<serde_json::Value>, missing: &str| match value {
        None => missing.to_string(),
        some => show(some),
    };
    format!(
        "{path}: config {}, live {}",
        side(&field.config, "(not set)"),
        side(&field.live, "(absent)")
    )
}

/// The lines under a changed address: each field for an update; one line for an object that
/// is missing live or must not exist (listing every field of it would drown the rest).
fn detail_lines(change: &Changed) -> Vec<String> {
    match change.action {
        Action::Create => vec!["missing live (apply would create it)".to_string()],
        Action::Delete => {
            vec!["exists live (apply would remove it with --allow-destroy)".to_string()]
        }
        Action::Replace => {
            let mut lines = vec![
                "differs in a field fixed at creation (apply would replace it with --allow-destroy)"
                    .to_string(),
            ];
            lines.extend(change.fields.iter().map(field_line));
            lines
        }
        Action::Update | Action::NoOp => change.fields.iter().map(field_line).collect(),
    }
}

/// A changed address's lines for Markdown, as one fenced `diff` block inside its list item:
/// `-` the config's value, `+` the live one, a string of several lines line by line. In a code
/// block nothing is a link and nothing needs escaping (a value holding a fence is broken up).
fn markdown_details(change: &Changed) -> String {
    if matches!(change.action, Action::Create | Action::Delete) {
        let lines: Vec<String> = detail_lines(change)
            .iter()
            .map(|line| format!("  - {}", prose(line)))
            .collect();
        return lines.join("\n");
    }
    let mut block = String::from("\n  ```diff\n");
    if change.action == Action::Replace
        && let Some(first) = detail_lines(change).first()
    {
        diff_line(&mut block, ' ', first);
    }
    for field in &change.fields {
        let path = if field.path.is_empty() {
            "(object)"
        } else {
            field.path.as_str()
        };
        diff_side(&mut block, '-', path, &field.config, "(not set)");
        diff_side(&mut block, '+', path, &field.live, "(absent)");
    }
    block.push_str("  ```\n");
    block
}

/// One line of a fenced `diff` block in a list item; a fence inside it is broken up.
fn diff_line(block: &mut String, mark: char, text: &str) {
    block.push_str(&format!("  {mark} {}\n", text.replace("```", "` ` `")));
}

/// One side of a field: `path: value`, or a string of several lines under `path: |`.
fn diff_side(
    block: &mut String,
    mark: char,
    path: &str,
    value: &Option<serde_json::Value>,
    missing: &str,
) {
    match value {
        Some(serde_json::Value::String(text)) if text.contains('\n') => {
            diff_line(block, mark, &format!("{path}: |"));
            for line in text.lines() {
                diff_line(block, mark, &format!("    {line}"));
            }
        }
        None => diff_line(block, mark, &format!("{path}: {missing}")),
        some => diff_line(block, mark, &format!("{path}: {}", show(some))),
    }
}

fn action_style(action: Action) -> Style {
    match action {
        Action::Create => Style::Add,
        Action::Delete | Action::Replace => Style::Remove,
        Action::Update | Action::NoOp => Style::Change,
    }
}

/// Says, beside the unmanaged list, whether it counts as drift.
fn unmanaged_note(report: &Report) -> &'static str {
    if report.fail_on_unmanaged {
        " (counted as drift: `--fail-on-unmanaged` or `drift.failOnUnmanaged`)"
    } else {
        " (listed, not counted as drift; `--fail-on-unmanaged` counts them)"
    }
}

/// What a report limited by `--only` says about itself.
fn partial_line(report: &Report) -> Option<String> {
    if report.only.is_empty() {
        return None;
    }
    let patterns: Vec<String> = report.only.iter().map(|p| format!("`{p}`")).collect();
    Some(format!(
        "partial: only addresses matching {} (`--only`); the rest of the config was not read \
         or compared",
        patterns.join(", ")
    ))
}

fn text(report: &Report, printer: &Printer) -> String {
    let summary = report.summary();
    let mut out = if report.in_sync() {
        format!("In sync: {}\n", summary_line(&summary))
    } else {
        format!("Drift found: {}\n", summary_line(&summary))
    };
    if let Some(line) = partial_line(report) {
        out.push_str(&line);
        out.push('\n');
    }
    if !report.changed.is_empty() {
        out.push_str("\nDiffers from the config (config vs live):\n");
        for change in &report.changed {
            let head = format!("{} {}", change.action.marker(), change.address);
            out.push_str(&format!(
                "  {}  ({})\n",
                printer.paint(&head, action_style(change.action)),
                change.reason
            ));
            for line in detail_lines(change) {
                out.push_str(&format!("      {line}\n"));
            }
        }
    }
    if !report.unmanaged.is_empty() {
        out.push_str(&format!(
            "\nNot managed by the config{}:\n",
            unmanaged_note(report)
        ));
        for item in &report.unmanaged {
            out.push_str(&format!(
                "  {}  ({})\n",
                printer.paint(&format!("? {}", item.address), Style::Warning),
                item.reason
            ));
        }
    }
    if !report.checks.is_empty() {
        out.push_str("\nChecks:\n");
        for check in &report.checks {
            let (word, style) = if check.passed {
                ("ok    ", Style::Add)
            } else {
                ("FAILED", Style::Error)
            };
            out.push_str(&format!(
                "  {}  {}\n",
                printer.paint(word, style),
                check.address
            ));
            for detail in &check.details {
                out.push_str(&format!("      {detail}\n"));
            }
        }
    }
    if !report.ignored.is_empty() {
        out.push_str("\nIgnored (accepted drift):\n");
        for item in &report.ignored {
            out.push_str(&format!("  {item}\n"));
        }
    }
    out
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Document<'a> {
    format: &'static str,
    organization: &'a str,
    #[serde(skip_serializing_if = "<[String]>::is_empty")]
    only: &'a [String],
    in_sync: bool,
    fail_on_unmanaged: bool,
    summary: DriftSummary,
    changed: &'a [Changed],
    unmanaged: &'a [UnmanagedObject],
    checks: &'a [CheckResult],
    ignored: &'a [String],
}

fn json(report: &Report) -> String {
    let document = Document {
        format: FORMAT,
        organization: &report.organization,
        only: &report.only,
        in_sync: report.in_sync(),
        fail_on_unmanaged: report.fail_on_unmanaged,
        summary: report.summary(),
        changed: &report.changed,
        unmanaged: &report.unmanaged,
        checks: &report.checks,
        ignored: &report.ignored,
    };
    // Serializing plain data with string keys cannot fail; an empty object is the fallback.
    let mut text = serde_json::to_string_pretty(&document).unwrap_or_else(|_| "{}".to_string());
    text.push('\n');
    text
}

fn markdown(report: &Report) -> String {
    let summary = report.summary();
    let mut out = format!(
        "{MARKER}\n### converge drift\n\n**{}: {}**\n",
        if report.in_sync() {
            "In sync"
        } else {
            "Drift found"
        },
        summary_line(&summary)
    );
    if let Some(line) = partial_line(report) {
        out.push_str(&format!("\n> **Note:** {}\n", prose(&line)));
    }
    let lines = markdown_lines(report);
    let room = 300;
    let total = lines.len();
    let mut in_details = false;
    for (shown, line) in lines.into_iter().enumerate() {
        if out.len() + line.len() + 1 + room > BUDGET {
            if in_details {
                out.push_str("\n</details>\n");
            }
            out.push_str(&format!(
                "\n> **Note:** cut to stay under GitHub's size limit ({} more lines). Run `converge drift` for the full report.\n",
                total - shown
            ));
            return out;
        }
        in_details = (in_details || line.contains("<details>")) && !line.contains("</details>");
        out.push_str(&line);
        out.push('\n');
    }
    out
}

/// The Markdown report's lines after its header, in order of importance (cut from the end).
fn markdown_lines(report: &Report) -> Vec<String> {
    let mut lines: Vec<String> = Vec::new();
    // Checks first: there are few, and a failed backup must not be what a cut drops.
    if !report.checks.is_empty() {
        lines.push("\n#### Checks\n".into());
        for check in &report.checks {
            lines.push(format!(
                "- {} <code>{}</code>: {}",
                if check.passed { "ok" } else { "**FAILED**" },
                escape(&check.address),
                prose(&check.details.join("; "))
            ));
        }
    }
    if !report.changed.is_empty() {
        lines.push("\n#### Differs from the config (`-` config, `+` live)\n".into());
        for change in &report.changed {
            lines.push(format!(
                "- <code>{} {}</code>: {}",
                change.action.marker(),
                escape(&change.address),
                prose(&change.reason)
            ));
            lines.push(markdown_details(change));
        }
    }
    if !report.unmanaged.is_empty() {
        lines.push(format!(
            "\n#### Not managed by the config{}\n",
            unmanaged_note(report)
        ));
        for item in &report.unmanaged {
            lines.push(format!(
                "- <code>{}</code>: {}",
                escape(&item.address),
                prose(&item.reason)
            ));
        }
    }
    if !report.ignored.is_empty() {
        lines.push(format!(
            "\n<details><summary>Ignored ({})</summary>\n",
            report.ignored.len()
        ));
        for item in &report.ignored {
            lines.push(format!("- <code>{}</code>", escape(item)));
        }
        lines.push("\n</details>".into());
    }
    lines
}
