//! The text rendering of a plan: the summary line, the destroys in their own section, then
//! every other change with its body (`super::lines`): `+ - ~` markers carry the meaning
//! without color; unchanged objects and fields are not shown. A renamed object says so on its
//! heading line. Color comes only through `Printer::paint`.

use serde_json::Value;

use super::lines::{self, Layout, Mark};
use super::model::{Action, Change, Plan};
use super::order;
use crate::output::{Printer, Style};

/// The unmanaged objects a review lists, and the count of those `ignore:` acknowledges.
fn unmanaged(plan: &Plan, out: &mut String) {
    let listed: Vec<_> = plan.listed_unmanaged().collect();
    if !listed.is_empty() {
        out.push_str("\nNot managed (reported only):\n");
        for item in listed {
            out.push_str(&format!("  ! {}  ({})\n", item.address, item.reason));
        }
    }
    if let Some(line) = plan.acknowledged_line() {
        out.push_str(&format!("\n{line}.\n"));
    }
}

/// A value for a diff line: strings quoted, lists and maps YAML-like (`[a, b]`).
pub(crate) fn show(value: &Option<Value>) -> String {
    match value {
        None => "(absent)".to_string(),
        Some(v) => lines::inline(v),
    }
}

fn style(action: Action) -> Style {
    match action {
        Action::Create => Style::Add,
        Action::Delete | Action::Replace => Style::Remove,
        Action::Update => Style::Change,
        Action::NoOp => Style::Dim,
    }
}

fn mark_style(mark: Mark) -> Style {
    match mark {
        Mark::Add => Style::Add,
        Mark::Remove => Style::Remove,
        Mark::Change => Style::Change,
        Mark::Context => Style::Dim,
    }
}

/// `~ address  (reason)`, or `~ address  renamed "Old" -> "New"  (what else differs)`.
fn heading(change: &Change, printer: &Printer) -> String {
    let head = format!("{} {}", change.action.marker(), change.address);
    let tail = match lines::rename(change) {
        Some((renamed, Some(rest))) => format!("{renamed}  ({rest})"),
        Some((renamed, None)) => renamed,
        None => format!("({})", change.reason),
    };
    format!("  {}  {tail}\n", printer.paint(&head, style(change.action)))
}

fn change_block(change: &Change, plan: &Plan, printer: &Printer, out: &mut String) {
    out.push_str(&heading(change, printer));
    let layout = Layout {
        split_changes: false,
        rename_in_heading: true,
        width: printer.width(),
        sources: &plan.names(),
    };
    for line in lines::body(change, &layout) {
        let style = mark_style(line.mark);
        let text = if line.segments.iter().any(|s| s.emphasized) && printer.color() {
            let mut text = printer.paint(
                &format!("{} {}", line.mark.symbol(), " ".repeat(line.indent)),
                style,
            );
            for segment in &line.segments {
                text.push_str(&if segment.emphasized {
                    printer.paint_strong(&segment.text, style)
                } else {
                    printer.paint(&segment.text, style)
                });
            }
            text
        } else {
            printer.paint(line.plain().trim_end(), style)
        };
        out.push_str(&format!("      {text}\n"));
    }
}

/// Renders the whole plan as text.
pub fn render(plan: &Plan, printer: &Printer) -> String {
    let summary = plan.summary();
    let mut out = String::new();
    out.push_str(&format!(
        "{} {}\n",
        printer.paint("Plan:", Style::Bold),
        summary.line()
    ));
    if plan.is_partial() {
        out.push_str(&format!("{}\n", plan.only_words()));
    }
    if !plan.has_changes() {
        match plan.not_owned() {
            0 => out.push_str("\nNo changes: the live state matches the config.\n"),
            n => out.push_str(&format!(
                "\nNothing to apply, but the live state does not match the config: {n} live \
                 object(s) it does not list are not owned by converge and are left as is (below).\n"
            )),
        }
    }
    let destroys: Vec<&Change> = plan
        .changes
        .iter()
        .filter(|c| c.action.destroys())
        .collect();
    if !destroys.is_empty() {
        out.push_str(&format!(
            "\n{} (need --allow-destroy):\n",
            printer.paint("Destroys", Style::Remove)
        ));
        for change in destroys {
            change_block(change, plan, printer, &mut out);
        }
    }
    // Destroys were listed above, once.
    let shown: Vec<&Change> = plan
        .display_order()
        .filter(|c| c.action != Action::NoOp && !c.action.destroys())
        .collect();
    if !shown.is_empty() {
        out.push_str("\nChanges:\n");
        for change in shown {
            change_block(change, plan, printer, &mut out);
        }
    }
    unmanaged(plan, &mut out);
    if !plan.checks.is_empty() {
        out.push_str("\nChecks:\n");
        for check in &plan.checks {
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
    if !plan.steps.is_empty() {
        out.push_str("\nSteps:\n");
        for line in order::describe(&plan.steps) {
            out.push_str(&format!("  {line}\n"));
        }
    }
    out
}
