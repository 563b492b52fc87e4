//! `converge plan`: reads the live state and prints what `apply` would change.

use std::path::PathBuf;

use crate::commands::policy::{self, PolicyArgs, PolicyError};
use crate::commands::session::{self, Session};
use crate::config::render;
use crate::error::Result;
use crate::exit::Exit;
use crate::format::{Choices, Format};
use crate::output::Printer;
use crate::plan;
use crate::plan::Plan;
use crate::plan::pipeline::{self, Idle};
use crate::plan::saved::SavedPlan;
use crate::preview::check;
use crate::preview::check::QueryCheckError;
use crate::preview::validation;
use crate::settings::{ApiArgs, ApiSettings, PlanningSettings};

/// Flags of `converge plan`.
#[derive(Debug, clap::Args)]
#[command(after_help = "Exit codes:\n  \
    0  planned (with --detailed-exitcode: no changes)\n  \
    2  changes (only with --detailed-exitcode)\n  \
    1  error: config, credentials, API, an --only glob that matches nothing\n\n\
    Examples:\n  converge plan --sandbox examples/quickstart.yaml\n  \
    converge plan --sandbox examples/production --format markdown --out plan.json \
    --detailed-exitcode")]
pub(crate) struct Args {
    /// Config files or directories of `*.yaml`/`*.yml` files.
    #[arg(required = true)]
    pub paths: Vec<PathBuf>,
    /// Output format on stdout: `text` for people, `json` (`converge-plan/1`) for programs,
    /// `markdown` for a pull-request comment.
    #[arg(long, default_value = "text", value_parser = Choices::PLAN)]
    pub format: Format,
    /// Save the plan (JSON, no secret values) for `converge apply --plan FILE`.
    #[arg(long, value_name = "FILE")]
    pub out: Option<PathBuf>,
    /// Exit 2 when there are changes, 0 when there are none, 1 on error.
    #[arg(long)]
    pub detailed_exitcode: bool,
    /// Plan the repair of a dashboard or alert name a stack holds more than once: keep one
    /// copy (the one the stack's alerts point at, else the oldest) and delete the others
    /// converge owns; copies it may not delete stay an error, with their ids.
    #[arg(long)]
    pub dedupe: bool,
    /// Keep only addresses matching this glob (`*`, `?`); repeatable. Only the lists those
    /// addresses need are read, and the plan says it is partial; a glob that matches no address
    /// of the config or the live state is an error.
    #[arg(long, value_name = "GLOB")]
    pub only: Vec<String>,
    /// Run the series of every tile the plan creates or updates over the last 15 minutes, and
    /// send each dashboard it creates or updates to the server's validation; exit 1 when the
    /// server rejects any query or dashboard.
    #[arg(long)]
    pub check_queries: bool,
    /// The team's rules.
    #[command(flatten)]
    pub policy: PolicyArgs,
    /// Where the APIs are and how hard to use them.
    #[command(flatten)]
    pub api: ApiArgs,
}

/// What `converge plan` runs with, resolved once from its flags and the environment.
fn settings(args: &Args) -> PlanningSettings {
    PlanningSettings {
        api: ApiSettings::resolve(&args.api),
        plan: pipeline::Options {
            only: args.only.clone(),
            dedupe: args.dedupe,
            // Text and Markdown show no values of unchanged objects; JSON and a saved plan
            // do.
            drop_unchanged_values: args.out.is_none() && !matches!(args.format, Format::Json),
            idle: Idle::Shown,
        },
    }
}

/// Runs `converge plan`.
pub(crate) fn run(args: Args, printer: &Printer) -> Result<Exit> {
    let mut settings = settings(&args);
    let session = session::open_scoped(&args.paths, &settings.api, printer, 1, &args.only)?;
    let specs = policy::specs(Some((&session.config, &session.sources)), &args.policy);
    // The rules read the live values of unchanged objects too.
    settings.plan.drop_unchanged_values &= specs.is_empty();
    let mut plan = session.plan(&settings.plan, printer)?;
    let reviewed = match specs.is_empty() {
        true => None,
        false => {
            let set = policy::load(&specs, &session.sources, printer)?;
            Some(policy::review(
                &set,
                &specs,
                args.policy.policy_timeout,
                &session.sources,
                None,
                &mut plan,
                printer,
            )?)
        }
    };
    match args.format {
        // Written as it is produced: a large config's JSON plan is many times its size.
        Format::Json => printer.out_streamed(|out| plan::render_json::render_to(&plan, out)),
        Format::Text | Format::Markdown => {
            printer.out_text(&plan::render(&plan, args.format, &printer.for_stdout()));
        }
    }
    if let Some(path) = &args.out {
        let mut saved = SavedPlan::new(&session.config, plan.clone(), printer);
        saved.policy = reviewed.as_ref().map(|r| r.saved.clone());
        printer.write_file(path, &saved.to_json())?;
        printer.err(&format!(
            "saved the plan to `{}`",
            crate::output::path_text(path)
        ));
    }
    if args.check_queries {
        check_queries(&session, &plan, printer)?;
    }
    if let Some(denied) = reviewed.map(|r| r.denied).filter(|&n| n > 0) {
        return Err(PolicyError::Denied { count: denied }.into());
    }
    Ok(if args.detailed_exitcode && plan.has_changes() {
        Exit::Changes
    } else {
        Exit::Success
    })
}

/// `plan --check-queries` after the plan is printed: runs the tiles' queries and the server's
/// validation of each planned dashboard, renders what was rejected at its config line, and
/// fails when anything was.
fn check_queries(session: &Session, plan: &Plan, printer: &Printer) -> Result<()> {
    let now_ms = jiff::Timestamp::now().as_millisecond();
    let outcome = check::run(
        &session.runtime,
        &session.config,
        &session.live,
        &session.clients,
        plan,
        now_ms,
        printer,
    )?;
    let validation = validation::run(
        &session.runtime,
        &session.config,
        &session.clients,
        plan,
        printer,
    )?;
    let failed = outcome.diagnostics.len();
    let refused = validation.diagnostics.len();
    if failed + refused > 0 {
        let mut diagnostics = outcome.diagnostics;
        diagnostics.extend(validation.diagnostics);
        render::render(&diagnostics, &session.sources, Format::Text, printer);
        return Err(if refused > 0 {
            QueryCheckError::DashboardsRejected {
                dashboards: refused,
                queries: failed,
            }
        } else {
            QueryCheckError::Rejected { count: failed }
        }
        .into());
    }
    let skipped: usize = outcome.skipped.iter().map(|(_, n)| n).sum();
    let mut notes = String::new();
    if skipped > 0 {
        notes.push_str(&format!(
            "; {skipped} tile(s) on stacks without charts/series not checked"
        ));
    }
    if outcome.text_only > 0 {
        notes.push_str(&format!(
            "; {} markdown tile(s) have no query",
            outcome.text_only
        ));
    }
    printer.err(&format!(
        "check-queries: {} tile(s) ran in {} request(s){notes}",
        outcome.passed, outcome.requests,
    ));
    // Stacks without the endpoint were warned about; only what was validated is counted.
    if validation.passed > 0 {
        let unvalidated = match validation.skipped {
            0 => String::new(),
            n => format!("; {n} on stacks without the endpoint not validated"),
        };
        printer.err(&format!(
            "check-queries: {} dashboard(s) passed the server's validation in {} request(s){unvalidated}",
            validation.passed,
            validation.requests - validation.skipped,
        ));
    }
    Ok(())
}
