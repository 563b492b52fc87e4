//! The report of an apply: what each step did, as text on stderr or as JSON on stdout
//! (`--format json`, `converge-apply-report/1`).

use serde::{Deserialize, Serialize};

use super::model::{Status, operation_name};
use crate::output::{Printer, Style};

/// Format identifier of the JSON report.
pub(crate) const FORMAT: &str = "converge-apply-report/1";

/// Not-started addresses the text report lists (an interrupted large apply has hundreds).
pub(crate) const MAX_NOT_STARTED_SHOWN: usize = 10;

/// Steps grouped by their message, groups in the order their first step comes.
fn by_message<'r>(steps: &[&'r StepReport]) -> Vec<(Option<&'r str>, Vec<&'r StepReport>)> {
    let mut groups: Vec<(Option<&'r str>, Vec<&'r StepReport>)> = Vec::new();
    for step in steps {
        let message = step.message.as_deref();
        match groups.iter_mut().find(|(m, _)| *m == message) {
            Some((_, group)) => group.push(step),
            None => groups.push((message, vec![step])),
        }
    }
    groups
}

/// One step's outcome.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct StepReport {
    /// Step id (its position in the plan).
    pub id: usize,
    /// Address of the change.
    pub address: String,
    /// What the step does, e.g. `create dashboard`.
    pub operation: String,
    /// How it ended.
    pub status: Status,
    /// Why it failed or was skipped, or a note (e.g. `already gone`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub message: Option<String>,
}

/// Counts per status.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Counts {
    /// Done.
    pub done: usize,
    /// Failed.
    pub failed: usize,
    /// Stale.
    pub stale: usize,
    /// Skipped.
    pub skipped: usize,
    /// Not started.
    pub not_started: usize,
}

/// The outcome of `--wait`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct WaitReport {
    /// Whether every scaling change showed within the timeout.
    pub settled: bool,
    /// Addresses still showing old values when the wait ended.
    pub pending: Vec<String>,
    /// Pipes written by this run that ended `Failed` while the wait ran: `address` and state.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub failed: Vec<String>,
}

/// The whole report.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Report {
    /// Always `FORMAT` (`converge show` checks a file's format before reading it).
    #[serde(skip_deserializing, default = "format_id")]
    pub format: &'static str,
    /// Whether SIGINT/SIGTERM stopped the run early.
    pub interrupted: bool,
    /// Counts per status.
    pub summary: Counts,
    /// Every step, in plan order.
    pub steps: Vec<StepReport>,
    /// The `--wait` outcome, when asked for.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub wait: Option<WaitReport>,
    /// Why nothing was written, when `apply` refused before the first write (`destroy`,
    /// `confirmation` or `stale`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub refused: Option<String>,
    /// The `--only` patterns of a partial run (its plan's); absent when the whole config ran.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub only: Vec<String>,
}

fn format_id() -> &'static str {
    FORMAT
}

impl Report {
    /// A report of these outcomes.
    pub(crate) fn new(steps: Vec<StepReport>, interrupted: bool) -> Self {
        let mut summary = Counts::default();
        for step in &steps {
            match step.status {
                Status::Done => summary.done += 1,
                Status::Failed => summary.failed += 1,
                Status::Stale => summary.stale += 1,
                Status::Skipped => summary.skipped += 1,
                Status::NotStarted => summary.not_started += 1,
            }
        }
        Report {
            format: FORMAT,
            interrupted,
            summary,
            steps,
            wait: None,
            refused: None,
            only: Vec::new(),
        }
    }

    /// The same report, saying it covers only the addresses `plan` was limited to.
    pub(crate) fn of_plan(self, plan: &crate::plan::Plan) -> Self {
        Report {
            only: plan.only.clone(),
            ..self
        }
    }

    /// The report of a run refused before any write: every step not started, except those
    /// found `stale` (step id and message).
    pub(crate) fn refused(
        plan: &crate::plan::Plan,
        reason: &str,
        stale: &[(usize, String)],
    ) -> Self {
        let steps = plan
            .steps
            .iter()
            .map(|step| {
                let found = stale.iter().find(|(id, _)| *id == step.id);
                StepReport {
                    id: step.id,
                    address: step.address.to_string(),
                    operation: operation_name(&step.operation),
                    status: if found.is_some() {
                        Status::Stale
                    } else {
                        Status::NotStarted
                    },
                    message: found.map(|(_, message)| message.clone()),
                }
            })
            .collect();
        Report {
            refused: Some(reason.to_string()),
            ..Report::new(steps, false).of_plan(plan)
        }
    }

    /// Whether every step was done (and the wait, if any, settled).
    pub(crate) fn succeeded(&self) -> bool {
        self.refused.is_none()
            && !self.interrupted
            && self.steps.iter().all(|s| s.status == Status::Done)
            && self.wait.as_ref().is_none_or(|w| w.settled)
    }

    /// Whether some step was refused as stale.
    pub(crate) fn has_stale(&self) -> bool {
        self.summary.stale > 0
    }

    /// The JSON report with a trailing newline.
    pub fn to_json(&self) -> String {
        let mut text = serde_json::to_string_pretty(self).unwrap_or_else(|_| "{}".to_string());
        text.push('\n');
        text
    }

    /// The summary line, e.g. `apply: 3 done, 1 failed, 0 stale, 2 skipped, 0 not started`.
    pub(crate) fn summary_line(&self) -> String {
        let s = &self.summary;
        format!(
            "apply{}: {} done, {} failed, {} stale, {} skipped, {} not started",
            if self.interrupted { " interrupted" } else { "" },
            s.done,
            s.failed,
            s.stale,
            s.skipped,
            s.not_started
        )
    }

    /// The text report for stderr: every step that did not succeed, by status, a reason shared
    /// by several steps said once above their addresses; at most [`MAX_NOT_STARTED_SHOWN`]
    /// not-started addresses (the JSON report has them all); the summary line last, where a
    /// reader looks first.
    pub(crate) fn to_text(&self, printer: &Printer) -> String {
        let mut out = String::new();
        if !self.only.is_empty() {
            let patterns: Vec<String> = self.only.iter().map(|p| format!("`{p}`")).collect();
            out.push_str(&format!(
                "partial: only addresses matching {} (`--only`)\n",
                patterns.join(", ")
            ));
        }
        for status in [
            Status::Failed,
            Status::Stale,
            Status::Skipped,
            Status::NotStarted,
        ] {
            let group: Vec<&StepReport> =
                self.steps.iter().filter(|s| s.status == status).collect();
            if group.is_empty() {
                continue;
            }
            out.push_str(&format!("{}:\n", status.as_str()));
            let listed = group_lines(&mut out, status, &group);
            if group.len() > listed {
                out.push_str(&format!(
                    "  … and {} more (every step is in the report of `--format json`)\n",
                    group.len() - listed
                ));
            }
        }
        if let Some(wait) = &self.wait
            && !wait.pending.is_empty()
        {
            out.push_str("still applying when the wait ended:\n");
            for address in &wait.pending {
                out.push_str(&format!("  {address}\n"));
            }
        }
        if let Some(wait) = &self.wait
            && !wait.failed.is_empty()
        {
            out.push_str("failed after it was written:\n");
            for failed in &wait.failed {
                out.push_str(&format!("  {failed}\n"));
            }
        }
        if !self.succeeded() {
            out.push_str("run `converge plan` to see what is left\n");
        }
        let style = if self.succeeded() {
            Style::Add
        } else {
            Style::Error
        };
        out.push_str(&printer.paint(&self.summary_line(), style));
        out.push('\n');
        out
    }
}

/// The lines of the steps of one `status`, each reason said once above the steps it is
/// shared by; returns how many steps were listed (not-started ones are cut at
/// [`MAX_NOT_STARTED_SHOWN`]).
fn group_lines(out: &mut String, status: Status, group: &[&StepReport]) -> usize {
    let shown = if status == Status::NotStarted {
        MAX_NOT_STARTED_SHOWN
    } else {
        usize::MAX
    };
    let mut listed = 0;
    // Not-started steps keep plan order, one line each: their only note is whether
    // they had started and were stopped before their write went out.
    let groups = if status == Status::NotStarted {
        group
            .iter()
            .map(|step| (step.message.as_deref(), vec![*step]))
            .collect()
    } else {
        by_message(group)
    };
    for (message, steps) in groups {
        let steps: Vec<&StepReport> = steps
            .into_iter()
            .take(shown.saturating_sub(listed))
            .collect();
        listed += steps.len();
        match (message, steps.as_slice()) {
            (_, []) => {}
            (Some(message), [step]) => out.push_str(&format!(
                "  {} ({}): {message}\n",
                step.address, step.operation
            )),
            (None, steps) => {
                for step in steps {
                    out.push_str(&format!("  {} ({})\n", step.address, step.operation));
                }
            }
            (Some(message), steps) => {
                out.push_str(&format!("  {message}\n"));
                for step in steps {
                    out.push_str(&format!("    {} ({})\n", step.address, step.operation));
                }
            }
        }
    }
    listed
}
