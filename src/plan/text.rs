//! The text rendering of a plan: summary line, destroys first, then each change with a field
//! diff whose `+ - ~` markers carry the meaning without color; unchanged objects and fields
//! are not shown. Color comes only through [`Printer::paint`].

use serde_json::Value;

use super::{Action, Change, FieldChange, Plan, order};
use crate::output::{Printer, Style};

/// A value for a diff line: compact JSON, long values cut.
pub fn show(value: &Option<Value>) -> String {
    match value {
        None => "(absent)".to_string(),
        Some(v) => {
            let text = v.to_string();
            if text.chars().count() > 200 {
                let head: String = text.chars().take(197).collect();
                format!("{head}...")
            } else {
                text
            }
        }
    }
}

fn style(action: Action) -> Style {
    match action {
        Action::Create => Style::Add,
        Action::Delete => Style::Remove,
        Action::Update => Style::Change,
        Action::NoOp => Style::Dim,
    }
}

/// One field line (without indentation): `+ path: value`, `- path: value`, `~ path: a -> b`.
pub fn field_line(field: &FieldChange) -> (Action, String) {
    let path = if field.path.is_empty() {
        "(value)"
    } else {
        field.path.as_str()
    };
    match (&field.before, &field.after) {
        (None, after) => (Action::Create, format!("+ {path}: {}", show(after))),
        (before, None) => (Action::Delete, format!("- {path}: {}", show(before))),
        (before, after) => (
            Action::Update,
            format!("~ {path}: {} -> {}", show(before), show(after)),
        ),
    }
}

fn change_block(change: &Change, printer: &Printer, out: &mut String) {
    let head = format!("{} {}", change.action.marker(), change.address);
    out.push_str(&format!(
        "  {}  ({})\n",
        printer.paint(&head, style(change.action)),
        change.reason
    ));
    for field in &change.fields {
        let (action, line) = field_line(field);
        out.push_str(&format!("      {}\n", printer.paint(&line, style(action))));
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
    if !plan.has_changes() {
        out.push_str("\nNo changes: the live state matches the config.\n");
    }
    let destroys: Vec<&Change> = plan
        .changes
        .iter()
        .filter(|c| c.action == Action::Delete)
        .collect();
    if !destroys.is_empty() {
        out.push_str(&format!(
            "\n{} (need --allow-destroy):\n",
            printer.paint("Destroys", Style::Remove)
        ));
        for change in &destroys {
            out.push_str(&format!(
                "  {}  ({})\n",
                printer.paint(&format!("- {}", change.address), Style::Remove),
                change.reason
            ));
        }
    }
    let shown: Vec<&Change> = plan
        .display_order()
        .filter(|c| c.action != Action::NoOp)
        .collect();
    if !shown.is_empty() {
        out.push_str("\nChanges:\n");
        for change in shown {
            change_block(change, printer, &mut out);
        }
    }
    if !plan.unmanaged.is_empty() {
        out.push_str("\nNot managed (reported only):\n");
        for item in &plan.unmanaged {
            out.push_str(&format!("  ! {}  ({})\n", item.address, item.reason));
        }
    }
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
