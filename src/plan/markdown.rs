//! `--format markdown`: a pull-request comment. It never exceeds `BUDGET` characters
//! (GitHub's limit is 65,536): the marker line, the summary and the destroys are always kept;
//! each change's details sit in a `<details>` block, added while they fit; a note says what
//! was cut. The first line is a stable marker so CI can update one comment in place.
//!
//! Details are ```` ```diff ```` blocks whose lines start with `+`, `-` or a space, the marks
//! GitHub highlights: a changed value is a `-` line and a `+` line (a `~` line would show as
//! plain text). Destroys are listed once, in their own section.

use super::lines::{self, Layout};
use super::model::{Action, Change, Plan};
use super::order;
use crate::markdown::{escape, escape_html, prose, prose_html};
use crate::output::DEFAULT_WIDTH;

/// The first line of every comment.
pub const MARKER: &str = "<!-- converge-plan -->";

/// The largest comment rendered, in bytes (never fewer bytes than characters).
pub(crate) const BUDGET: usize = 65_000;

/// Room kept for the closing note.
const NOTE_ROOM: usize = 400;

/// The heading above the changes listed without their details.
const CUT_HEADING: &str = "\n**Cut to fit: these changes are listed by address only** (the full plan has their details)\n\n";

/// A change in one line, for a comment cut to fit: its mark, address and reason.
fn line(change: &Change) -> String {
    format!(
        "- <code>{} {}</code>: {}\n",
        change.action.marker(),
        escape(&change.address.to_string()),
        prose(&change.reason)
    )
}

/// Text inside a fenced block must not close the fence.
fn fenced(text: &str) -> String {
    text.replace("```", "` ` `")
}

/// What a change's summary says: its reason, or `renamed "Old" -> "New"` and what else differs;
/// HTML-escaped, since the summary sits in a raw HTML block.
fn summary(change: &Change) -> String {
    match lines::rename(change) {
        Some((renamed, Some(rest))) => format!("{}; {}", escape_html(&renamed), prose_html(&rest)),
        Some((renamed, None)) => escape_html(&renamed),
        None => prose_html(&change.reason),
    }
}

fn details(change: &Change, plan: &Plan) -> String {
    let layout = Layout {
        split_changes: true,
        rename_in_heading: false,
        width: DEFAULT_WIDTH,
        sources: &plan.names(),
    };
    let mut block = format!(
        "<details><summary><code>{} {}</code>: {}</summary>\n\n```diff\n",
        change.action.marker(),
        escape_html(&change.address.to_string()),
        summary(change)
    );
    for line in lines::body(change, &layout) {
        block.push_str(&fenced(line.plain().trim_end()));
        block.push('\n');
    }
    block.push_str("```\n\n</details>\n");
    block
}

/// Renders the plan as a Markdown comment of at most `BUDGET` bytes.
pub fn render(plan: &Plan) -> String {
    let mut comment = Comment {
        out: header(plan),
        cut: Vec::new(),
    };
    // Sections in order of importance: once one is cut, the rest are left out.
    comment.destroys(plan);
    comment.checks(plan);
    comment.changes(plan);
    comment.unmanaged(plan);
    comment.steps(plan);
    let Comment { mut out, cut } = comment;
    if !cut.is_empty() {
        out.push_str(&format!(
            "\n> **Note:** this comment was cut to stay under GitHub's size limit; not shown: {}. Run `converge plan` for the full plan.\n",
            cut.join(", ")
        ));
    }
    out
}

/// The marker, the title, the summary and, for a partial plan, what it was limited to.
fn header(plan: &Plan) -> String {
    let mut out = format!(
        "{MARKER}\n### converge plan\n\n**{}**\n",
        plan.summary().line()
    );
    if plan.is_partial() {
        // Patterns in code spans (where Markdown is inert); one holding a backtick, which would
        // end its span, is escaped instead.
        let patterns: Vec<String> = plan
            .only
            .iter()
            .map(|p| match p.contains('`') {
                true => escape(p),
                false => format!("`{p}`"),
            })
            .collect();
        out.push_str(&format!(
            "\n> **Note:** partial: only addresses matching {} (`--only`); the rest of the config \
             was not read or planned\n",
            patterns.join(", ")
        ));
    }
    // A reviewer must see the warnings: they come first, in at most a quarter of the budget
    // (a plan limited by `--only` can warn once per step it leaves out), the rest counted.
    if !plan.warnings.is_empty() {
        out.push_str("\n#### Warnings\n\n");
        for (shown, warning) in plan.warnings.iter().enumerate() {
            let mut line = String::from("- ");
            if let Some(code) = &warning.code {
                line.push_str(&format!("<code>{}</code> ", escape(code)));
            }
            if let Some(place) = &warning.place {
                line.push_str(&format!("(<code>{}</code>) ", escape(place)));
            }
            line.push_str(&prose(&warning.message));
            if let Some(help) = &warning.help {
                line.push_str(&format!("<br>help: {}", prose(help)));
            }
            if out.len() + line.len() > BUDGET / 4 {
                out.push_str(&format!(
                    "- and {} more warning(s): run `converge plan` for all of them\n",
                    plan.warnings.len() - shown
                ));
                break;
            }
            out.push_str(&line);
            out.push('\n');
        }
    }
    out
}

/// The comment so far, and what was left out to stay within the budget.
struct Comment {
    out: String,
    cut: Vec<String>,
}

impl Comment {
    /// Whether `text` still fits, leaving room for the note about what was cut.
    fn fits(&self, text: &str) -> bool {
        self.out.len() + text.len() + NOTE_ROOM <= BUDGET
    }

    fn destroys(&mut self, plan: &Plan) {
        let destroys: Vec<&Change> = plan
            .changes
            .iter()
            .filter(|c| c.action.destroys())
            .collect();
        if destroys.is_empty() || !self.cut.is_empty() {
            return;
        }
        self.out
            .push_str("\n#### Destroys (need `--allow-destroy`)\n\n");
        let mut left = destroys.len();
        for change in &destroys {
            // Each with its details while they fit, else one line: a destroy is never left out
            // while a line for it fits.
            let block = details(change, plan);
            let line = format!(
                "- <code>{}</code>: {}\n",
                escape(&change.address.to_string()),
                prose(&change.reason)
            );
            if self.fits(&block) {
                self.out.push_str(&block);
            } else if self.fits(&line) {
                self.out.push_str(&line);
            } else {
                self.cut.push(format!("{left} destroys"));
                break;
            }
            left -= 1;
        }
    }

    fn checks(&mut self, plan: &Plan) {
        if plan.checks.is_empty() || !self.cut.is_empty() {
            return;
        }
        self.out.push_str("\n#### Checks\n\n");
        for check in &plan.checks {
            let line = format!(
                "- {} <code>{}</code>: {}\n",
                if check.passed { "ok" } else { "**FAILED**" },
                escape(&check.address),
                prose(&check.details.join("; "))
            );
            if !self.fits(&line) {
                self.cut.push("some checks".to_string());
                break;
            }
            self.out.push_str(&line);
        }
    }

    fn changes(&mut self, plan: &Plan) {
        let shown: Vec<&Change> = plan
            .display_order()
            .filter(|c| c.action != Action::NoOp && !c.action.destroys())
            .collect();
        if shown.is_empty() || !self.cut.is_empty() {
            return;
        }
        self.out.push_str("\n#### Changes\n\n");
        // A change whose details do not fit is still named: one line each, by address. Details
        // stop early enough that the lines of every change after them fit too (while the lines
        // alone fit at all), so a reviewer sees every address the plan touches.
        let lines: Vec<String> = shown.iter().map(|change| line(change)).collect();
        // When not even the lines of all fit, none gets details: as many addresses as fit.
        let mut detailed = 0;
        if self.fits_all(&lines) {
            let mut after: usize = lines.iter().map(String::len).sum();
            for (change, line) in shown.iter().zip(&lines) {
                after -= line.len();
                let block = details(change, plan);
                let heading = if after > 0 { CUT_HEADING.len() } else { 0 };
                if self.out.len() + block.len() + after + heading + NOTE_ROOM > BUDGET {
                    break;
                }
                self.out.push_str(&block);
                detailed += 1;
            }
        }
        let rest = &lines[detailed..];
        if rest.is_empty() {
            return;
        }
        self.out.push_str(CUT_HEADING);
        let mut listed = 0;
        for line in rest {
            if !self.fits(line) {
                break;
            }
            self.out.push_str(line);
            listed += 1;
        }
        self.cut
            .push(format!("the details of {} changes", rest.len()));
        if listed < rest.len() {
            self.cut.push(format!(
                "the addresses of {} more changes",
                rest.len() - listed
            ));
        }
    }

    /// Whether the one-line form of every change fits with what is already written.
    fn fits_all(&self, lines: &[String]) -> bool {
        let all: usize = lines.iter().map(String::len).sum();
        self.out.len() + all + CUT_HEADING.len() + NOTE_ROOM <= BUDGET
    }

    fn unmanaged(&mut self, plan: &Plan) {
        let listed: Vec<_> = plan.listed_unmanaged().collect();
        if (listed.is_empty() && plan.acknowledged.is_empty()) || !self.cut.is_empty() {
            return;
        }
        let mut block = String::new();
        if !listed.is_empty() {
            block.push_str("\n#### Not managed (reported only)\n\n");
        }
        for item in &listed {
            block.push_str(&format!(
                "- <code>{}</code>: {}\n",
                escape(&item.address.to_string()),
                prose(&item.reason)
            ));
        }
        if let Some(line) = plan.acknowledged_line() {
            block.push_str(&format!("\n{}.\n", prose(&line)));
        }
        if self.fits(&block) {
            self.out.push_str(&block);
        } else {
            self.cut.push(format!("{} unmanaged objects", listed.len()));
        }
    }

    fn steps(&mut self, plan: &Plan) {
        if plan.steps.is_empty() || !self.cut.is_empty() {
            return;
        }
        let mut block = format!(
            "\n<details><summary>Steps ({})</summary>\n\n",
            plan.steps.len()
        );
        for line in order::describe(&plan.steps) {
            block.push_str(&format!("{}<br>\n", escape(&line)));
        }
        block.push_str("\n</details>\n");
        if self.fits(&block) {
            self.out.push_str(&block);
        } else {
            self.cut
                .push(format!("the list of {} steps", plan.steps.len()));
        }
    }
}
