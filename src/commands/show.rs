//! `converge show FILE`: prints a saved plan (`plan --out`) or an apply report
//! (`apply --format json`) in any format, without reading the APIs, as `terraform show` does.
//! A saved plan prints exactly as `plan` printed it when it was made.

use std::path::PathBuf;

use crate::apply::report::{self, Report, StepReport};
use crate::diagnostic::Code;
use crate::error::{CommandError, Error, Result};
use crate::exit::Exit;
use crate::format::{Choices, Format};
use crate::output::Printer;
use crate::plan;
use crate::plan::saved::{self, LoadError, SavedPlan};

/// Flags of `converge show`.
#[derive(Debug, clap::Args)]
#[command(after_help = "Exit codes:\n  \
    0  shown\n  \
    1  the file cannot be read, or is neither a saved plan nor an apply report\n\n\
    Examples:\n  converge plan --sandbox examples/quickstart.yaml --out plan.json\n  \
    converge show plan.json --format markdown")]
pub(crate) struct Args {
    /// A plan saved by `converge plan --out FILE`, or a report written by
    /// `converge apply --format json`.
    pub file: PathBuf,
    /// Output format on stdout: `text` for people, `json` for programs (`converge-plan/1` for a
    /// plan, the report as it is for a report), `markdown` for a pull-request comment.
    #[arg(long, default_value = "text", value_parser = Choices::PLAN)]
    pub format: Format,
}

/// Runs `converge show`.
pub(crate) fn run(args: Args, printer: &Printer) -> Result<Exit> {
    let path = crate::output::path_text(&args.file);
    let text = std::fs::read_to_string(&args.file).map_err(|cause| Error::Io {
        action: "cannot read",
        path: path.clone(),
        cause,
    })?;
    let file = || args.file.clone();
    let value: serde_json::Value =
        serde_json::from_str(&text).map_err(|cause| ShowError::NotJson {
            path: file(),
            cause,
        })?;
    let stdout = printer.for_stdout();
    match value.get("format").and_then(serde_json::Value::as_str) {
        Some(saved::FORMAT) => {
            let saved = SavedPlan::from_json(&text).map_err(|cause| ShowError::Plan {
                path: file(),
                cause,
            })?;
            saved
                .check_digest(printer)
                .map_err(|mismatch| ShowError::Plan {
                    path: file(),
                    cause: LoadError::Digest(mismatch),
                })?;
            printer.out(&plan::render(&saved.plan, args.format, &stdout));
            // What `apply --plan` prints too: the run can be matched with this review.
            printer.err(&format!(
                "the plan's text has digest {}",
                saved::digest(&saved.plan, printer)
            ));
        }
        Some(report::FORMAT) => {
            let report: Report =
                serde_json::from_value(value).map_err(|cause| ShowError::Report {
                    path: file(),
                    cause,
                })?;
            printer.out(&match args.format {
                Format::Text => report_text(&report, &stdout),
                Format::Json => report.to_json(),
                Format::Markdown => report_markdown(&report),
            });
        }
        Some(other) => {
            return Err(ShowError::OtherFormat {
                path: file(),
                format: other.to_string(),
            }
            .into());
        }
        None => {
            return Err(ShowError::NoFormat { path: file() }.into());
        }
    }
    printer.err(&format!(
        "shown from `{path}`; nothing was read from the APIs"
    ));
    Ok(Exit::Success)
}

/// An apply report as text: every step in plan order, as `apply` printed each when it ended,
/// then what `apply` printed last (the steps that did not succeed, grouped, and the summary).
fn report_text(report: &Report, printer: &Printer) -> String {
    use crate::apply::model::Status;
    use crate::output::Style;
    let mut out = String::new();
    for step in &report.steps {
        let style = match step.status {
            Status::Done => Style::Add,
            Status::Skipped | Status::NotStarted => Style::Dim,
            Status::Failed | Status::Stale => Style::Error,
        };
        // Padded before painting: escape codes would count as width.
        let status = printer.paint(&format!("{:<8}", step.status.as_str()), style);
        out.push_str(&format!("{status} {} ({})", step.address, step.operation));
        match &step.message {
            Some(message) if step.status == Status::Done => out.push_str(&format!(": {message}")),
            Some(_) if step.status != Status::NotStarted => out.push_str(": see below"),
            _ => {}
        }
        out.push('\n');
    }
    if !report.steps.is_empty() {
        out.push('\n');
    }
    out.push_str(&report.to_text(printer));
    out
}

/// An apply report as a pull-request comment: the summary line, then a table of the steps.
fn report_markdown(report: &Report) -> String {
    let cell = |text: &str| {
        text.replace('&', "&amp;")
            .replace('<', "&lt;")
            .replace('>', "&gt;")
            .replace('|', "&#124;")
            .replace('\n', " ")
    };
    let mut out = format!("### converge apply\n\n**{}**\n", report.summary_line());
    if let Some(reason) = &report.refused {
        out.push_str(&format!(
            "\nRefused before any write ({}): nothing was written.\n",
            cell(reason)
        ));
    }
    if !report.steps.is_empty() {
        out.push_str("\n| Step | Operation | Status | Message |\n|---|---|---|---|\n");
        for StepReport {
            address,
            operation,
            status,
            message,
            ..
        } in &report.steps
        {
            out.push_str(&format!(
                "| <code>{}</code> | {} | {} | {} |\n",
                cell(address),
                cell(operation),
                status.as_str(),
                cell(message.as_deref().unwrap_or(""))
            ));
        }
    }
    if let Some(wait) = &report.wait
        && !wait.settled
    {
        out.push_str("\nStill applying when the wait ended:\n\n");
        for address in &wait.pending {
            out.push_str(&format!("- <code>{}</code>\n", cell(address)));
        }
    }
    out
}

/// Why `converge show FILE` cannot show the file.
#[derive(Debug, thiserror::Error, miette::Diagnostic)]
pub(crate) enum ShowError {
    /// The file is not JSON.
    #[error("`{}` is not JSON: {cause}", crate::output::path_text(path))]
    #[diagnostic(help("{}", show_reads()))]
    NotJson {
        /// The file.
        path: PathBuf,
        /// What the JSON reader said.
        cause: serde_json::Error,
    },
    /// The file says it is a saved plan but cannot be read as one.
    #[error("`{}`: {cause}", crate::output::path_text(path))]
    Plan {
        /// The file.
        path: PathBuf,
        /// Why the saved plan cannot be read.
        cause: LoadError,
    },
    /// The file says it is an apply report but lacks what a report has.
    #[error(
        "`{}` is not a complete `{}`: {cause}",
        crate::output::path_text(path),
        report::FORMAT
    )]
    Report {
        /// The file.
        path: PathBuf,
        /// What the JSON reader said.
        cause: serde_json::Error,
    },
    /// The file is a JSON document of another format.
    #[error("`{}` is a `{format}` document", crate::output::path_text(path))]
    #[diagnostic(help("{}", show_reads()))]
    OtherFormat {
        /// The file.
        path: PathBuf,
        /// The format it declares.
        format: String,
    },
    /// The file is JSON without a `format` field.
    #[error("`{}` has no `format` field", crate::output::path_text(path))]
    #[diagnostic(help("{}", show_reads()))]
    NoFormat {
        /// The file.
        path: PathBuf,
    },
}

impl CommandError for ShowError {
    fn code(&self) -> Code {
        match self {
            ShowError::NotJson { .. } => Code::ShowNotJson,
            ShowError::Plan { .. } => Code::ShowPlan,
            ShowError::Report { .. } => Code::ShowReport,
            ShowError::OtherFormat { .. } | ShowError::NoFormat { .. } => Code::ShowOtherFormat,
        }
    }
}

/// What `converge show` reads, for the `help:` line of a file it cannot show.
fn show_reads() -> String {
    format!(
        "`converge show` reads saved plans (`{}`, from `converge plan --out FILE`) and apply \
         reports (`{}`, from `converge apply --format json`)",
        saved::FORMAT,
        report::FORMAT
    )
}
