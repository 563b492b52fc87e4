//! `converge apply`: plans (or reads a saved plan), shows the plan, asks for confirmation on a
//! terminal, and applies it (see `crate::apply`). Refusals happen before anything is written:
//! destroys without `--allow-destroy` and a missing confirmation exit 4, a stale saved plan
//! exits 3.

use std::path::PathBuf;
use std::time::Duration;

use tokio::sync::watch;

use crate::api::clients::Clients;
use crate::apply::progress::Announcer;
use crate::apply::{self, Options, Progress, Report};
use crate::commands::policy::{self, Gate, PolicyArgs};
use crate::commands::saved_plan::SavedPlanError;
use crate::commands::session;
use crate::error::Result;
use crate::exit::Exit;
use crate::format::{Choices, Format};
use crate::output::Printer;
use crate::plan::pipeline::{self, Idle};
use crate::plan::{self, Plan};
use crate::settings::{ApiArgs, ApiSettings, PlanningSettings};

/// Flags of `converge apply`.
#[derive(Debug, clap::Args)]
#[command(after_help = "Exit codes:\n  \
    0  applied, or nothing to apply\n  \
    1  a step failed, or the run was interrupted\n  \
    3  stale: an object of the saved plan changed since it was made, or a name the stack \
    holds twice stayed longer than another run's copy would (nothing written)\n  \
    4  refused: a delete without --allow-destroy, a confirmation declined at the prompt, \
    no --yes and no terminal to ask on, or a saved plan that would do other than its text \
    shows (nothing written)\n\n\
    Examples:\n  converge apply --sandbox examples/quickstart.yaml --yes\n  \
    converge plan --sandbox examples/quickstart.yaml --out plan.json\n  \
    converge apply --sandbox --plan plan.json --yes\n  \
    converge apply --sandbox examples/quickstart.yaml --resync pipe.analytics.customers --yes")]
pub(crate) struct Args {
    /// Config files or directories of `*.yaml`/`*.yml` files. With `--plan`, only where the
    /// organization, URLs and credentials come from (without them: `CONVERGE_*` variables).
    #[arg(required_unless_present = "plan")]
    pub paths: Vec<PathBuf>,
    /// Apply a plan saved by `converge plan --out FILE`, exactly its changes; refused (exit 3)
    /// when the objects it read changed since, (exit 1) when its steps are not what its changes
    /// show, (exit 4) when they would do other than its text shows. It connects with the config given or the `CONVERGE_*` variables, never the file.
    #[arg(long, value_name = "FILE")]
    pub plan: Option<PathBuf>,
    /// Apply without asking (required when stdin or stderr is not a terminal).
    #[arg(long, short = 'y')]
    pub yes: bool,
    /// Allow deletes: pipes marked `absent`, pruned dashboards and alerts, detached endpoints.
    #[arg(long)]
    pub allow_destroy: bool,
    /// Repair a dashboard or alert name a stack holds more than once: keep one copy (the one
    /// the stack's alerts point at, else the oldest) and delete the others converge owns, as
    /// deletes of the plan (they need `--allow-destroy`); copies it may not delete stay an
    /// error, with their ids.
    #[arg(long, conflicts_with = "plan")]
    pub dedupe: bool,
    /// Keep only addresses matching this glob (`*`, `?`); repeatable. Only the lists those
    /// addresses need are read, and the plan says it is partial; a glob that matches no address
    /// of the config, the live state or the saved plan is an error.
    #[arg(long, value_name = "GLOB")]
    pub only: Vec<String>,
    /// After the writes, poll until services and pipes show their new scaling, and until each
    /// pipe created or changed leaves `Provisioning`/`Modifying`; a pipe that ends `Failed`
    /// fails the run (exit 1), named with its state.
    #[arg(long)]
    pub wait: bool,
    /// When a pipe write finds its service not running (424), wake the service
    /// (`PATCH .../state {"command":"awake"}`), wait for it to run and write again.
    #[arg(long)]
    pub wake: bool,
    /// Longest wait for scaling to show (`--wait`) and for a woken service to run: `90s`,
    /// `10m`, `1h` (from 1s to 24h).
    #[arg(long, value_name = "DURATION", default_value = "10m", value_parser = super::flags::timeout)]
    pub timeout: Duration,
    /// Resync the postgres or mysql pipe at this address (`pipe.<service>.<key>`) and nothing else:
    /// one `PATCH .../state {"command":"resync"}`, which copies its tables again from the
    /// start. The config must declare the pipe and the service must have it.
    #[arg(long, value_name = "ADDRESS", conflicts_with_all = ["plan", "dedupe", "only"])]
    pub resync: Option<String>,
    /// Report format: `text` on stderr, or `json` on stdout.
    #[arg(long, default_value = "text", value_parser = Choices::APPLY)]
    pub format: Format,
    /// The team's rules: a plan they deny is refused (exit 4).
    #[command(flatten)]
    pub policy: PolicyArgs,
    /// Where the APIs are and how hard to use them.
    #[command(flatten)]
    pub api: ApiArgs,
}

/// Why `converge apply --resync ADDRESS` has nothing to resync.
#[derive(Debug, thiserror::Error, miette::Diagnostic)]
#[error("`--resync {address}`: {reason}; nothing was written")]
#[diagnostic(help(
    "name a postgres or mysql pipe the config declares and its service has, as `pipe.<service>.<key>`"
))]
pub(crate) struct ResyncError {
    /// The address given.
    pub(crate) address: String,
    /// Why it names no pipe to resync.
    pub(crate) reason: String,
}

impl crate::error::CommandError for ResyncError {
    fn code(&self) -> crate::diagnostic::Code {
        crate::diagnostic::Code::FlagResync
    }
}

/// What `converge apply` runs with, resolved once from its flags and the environment.
struct Settings {
    /// How it reaches the APIs, and what it asks of the plan it applies (made from the config,
    /// not a saved one).
    planning: PlanningSettings,
    /// How the plan is applied.
    apply: Options,
}

impl Settings {
    fn resolve(args: &Args) -> Self {
        let api = ApiSettings::resolve(&args.api);
        let apply = Options {
            parallelism: api.parallelism,
            wake: args.wake,
            timeout: args.timeout,
            ..Options::default()
        };
        let plan = pipeline::Options {
            only: args.only.clone(),
            dedupe: args.dedupe,
            drop_unchanged_values: false,
            // `--wake` wakes a service that is not running: no warning that its pipes fail.
            idle: if args.wake { Idle::Quiet } else { Idle::Said },
        };
        Settings {
            planning: PlanningSettings { api, plan },
            apply,
        }
    }
}

/// Runs `converge apply`.
pub(crate) fn run(args: Args, printer: &Printer) -> Result<Exit> {
    let settings = Settings::resolve(&args);
    if let Some(file) = &args.plan {
        run_saved(&args, &settings, file, printer)
    } else if let Some(address) = &args.resync {
        // Only the pipes of the address's service are read (any pipe address of it matches).
        let only: Vec<String> =
            if let Some(plan::Address::Pipe { service, .. }) = plan::Address::parse(address) {
                vec![format!("pipe.{service}*")]
            } else {
                Vec::new()
            };
        let session = session::open_scoped(
            &args.paths,
            &settings.planning.api,
            printer,
            apply::fresh::ROUNDS,
            &only,
        )?;
        let plan = plan::kinds::pipe::resync_plan(
            &session.config,
            &session.live,
            address,
            &session.sources,
        )
        .map_err(|reason| ResyncError {
            address: address.clone(),
            reason,
        })?;
        proceed(
            &args,
            printer,
            &session.runtime,
            session.clients.clone(),
            &plan,
            &settings.apply,
            None,
        )
    } else {
        let mut session = session::open_scoped(
            &args.paths,
            &settings.planning.api,
            printer,
            apply::fresh::ROUNDS,
            &args.only,
        )?;
        // A repair deletes the copies it may; another run's copy is not waited for first.
        if !args.dedupe
            && session.wait_for_other_runs_copies(&settings.planning.api, &args.only, printer)?
        {
            session.copies_stayed(printer);
            return Ok(Exit::Stale);
        }
        let mut plan = session.plan(&settings.planning.plan, printer)?;
        let gate = policy::gate(
            &session.config,
            &session.sources,
            &args.policy,
            &mut plan,
            printer,
        )?;
        if let Some(refused) = refuse_by_policy(&args, printer, &plan, gate) {
            return Ok(refused);
        }
        proceed(
            &args,
            printer,
            &session.runtime,
            session.clients.clone(),
            &plan,
            &settings.apply,
            None,
        )
    }
}

/// `converge apply --plan FILE`: the saved plan, checked against its digest, kept to `--only`.
fn run_saved(
    args: &Args,
    settings: &Settings,
    file: &std::path::Path,
    printer: &Printer,
) -> Result<Exit> {
    let session = session::open_saved(file, &args.paths, &settings.planning.api, printer)?;
    if let Err(mismatch) = session.saved.check_digest(printer) {
        printer.err(&format!(
            "error: `{}`: {mismatch}; nothing was written",
            crate::output::path_text(file)
        ));
        printer.err("run `converge plan --out FILE` again and review the new plan");
        refused_report(args, printer, &session.saved.plan, "digest", &[]);
        return Ok(Exit::Refused);
    }
    // What `show` prints too: the run can be matched with the review.
    printer.err(&format!(
        "the plan's text has digest {}",
        plan::saved::digest(&session.saved.plan, printer)
    ));
    let mut plan = session.saved.plan.clone();
    let gate = policy::gate_saved(
        session.saved.policy.as_ref(),
        &args.policy,
        &mut plan,
        printer,
    )?;
    if let Some(refused) = refuse_by_policy(args, printer, &plan, gate) {
        return Ok(refused);
    }
    session::check_globs("--only", &args.only, || pipeline::addresses(&plan))?;
    for (kept, left_out) in plan.retain_addresses(&args.only) {
        printer.warn(&format!(
            "`--only` keeps `{kept}` but leaves out `{left_out}`, which it waits for"
        ));
    }
    proceed(
        args,
        printer,
        &session.runtime,
        session.clients.clone(),
        &plan,
        &settings.apply,
        Some(&session.bound),
    )
}

fn proceed(
    args: &Args,
    printer: &Printer,
    runtime: &tokio::runtime::Runtime,
    clients: Clients,
    plan: &Plan,
    options: &Options,
    saved: Option<&[crate::plan::trust::Bound]>,
) -> Result<Exit> {
    show_plan(args, printer, plan);
    if !plan.has_changes() {
        printer.err("nothing to apply");
        if args.format == Format::Json {
            printer.out(&Report::new(Vec::new(), false).of_plan(plan).to_json());
        }
        return Ok(Exit::Success);
    }
    if let Some(refused) = refuse_destroys(args, printer, plan) {
        return Ok(refused);
    }
    if let Some(bound) = saved
        && let Some(stale) = check_saved(args, printer, runtime, &clients, plan, bound)?
    {
        return Ok(stale);
    }
    if !args.yes && !confirmed(args, printer, plan)? {
        refused_report(args, printer, plan, "confirmation", &[]);
        return Ok(Exit::Refused);
    }
    Ok(apply_steps(args, printer, runtime, clients, plan, options))
}

/// The plan: on stdout with the text report, on stderr when stdout carries JSON.
fn show_plan(args: &Args, printer: &Printer, plan: &Plan) {
    match args.format {
        // `apply` offers no Markdown.
        Format::Text | Format::Markdown => {
            printer.out_text(&plan::render(plan, Format::Text, &printer.for_stdout()))
        }
        Format::Json => {
            printer.err(plan::render(plan, Format::Text, printer).trim_end());
        }
    }
}

/// Refuses a plan the policy denies, or a saved plan whose rules changed since its review.
fn refuse_by_policy(args: &Args, printer: &Printer, plan: &Plan, gate: Gate) -> Option<Exit> {
    match gate {
        Gate::Pass => return None,
        Gate::Denied(count) => printer.err(&format!(
            "error: the policy denies the plan ({count} finding(s) above); nothing was written"
        )),
        Gate::Changed { reviewed, now } => {
            printer.err(&format!(
                "error: the policy changed since the plan was reviewed (its rules' digest was \
                 {reviewed}, it is now {now}); nothing was written"
            ));
            printer.err("run `converge plan --out FILE` again and review the new plan");
        }
    }
    refused_report(args, printer, plan, "policy", &[]);
    Some(Exit::Refused)
}

/// Refuses a plan that deletes without `--allow-destroy`, listing the deletes.
fn refuse_destroys(args: &Args, printer: &Printer, plan: &Plan) -> Option<Exit> {
    let destroys: Vec<String> = plan
        .steps
        .iter()
        .filter(|s| s.operation.is_destroy())
        .map(|s| s.address.to_string())
        .collect();
    if destroys.is_empty() || args.allow_destroy {
        return None;
    }
    printer.err(&format!(
        "error: the plan deletes {} object(s), and deletes need `--allow-destroy`; nothing \
         was written:",
        destroys.len()
    ));
    for address in destroys {
        printer.err(&format!("  - {address}"));
    }
    refused_report(args, printer, plan, "destroy", &[]);
    Some(Exit::Refused)
}

/// Checks a saved plan against a fresh read before anything is written: an edited plan is an
/// error, a stale one is refused (`Some`).
fn check_saved(
    args: &Args,
    printer: &Printer,
    runtime: &tokio::runtime::Runtime,
    clients: &Clients,
    plan: &Plan,
    bound: &[crate::plan::trust::Bound],
) -> Result<Option<Exit>> {
    let checked = runtime
        .block_on(apply::precheck(plan, clients.clone(), bound, printer))
        .map_err(|cause| SavedPlanError::Precheck { cause })?;
    if !checked.disagreements.is_empty() {
        return Err(SavedPlanError::Edited {
            disagreements: checked.disagreements,
        }
        .into());
    }
    if !checked.not_shown.is_empty() {
        refuse_not_shown(args, printer, plan, &checked.not_shown);
        return Ok(Some(Exit::Refused));
    }
    let stale = checked.stale;
    if stale.is_empty() {
        return Ok(None);
    }
    printer.err(&format!(
        "error: the saved plan is stale: {} object(s) changed since it was made; \
         nothing was written:",
        stale.len()
    ));
    for (_, message) in &stale {
        printer.err(&format!("  - {message}"));
    }
    printer.err("run `converge plan --out FILE` again and review the new plan");
    refused_report(args, printer, plan, "stale", &stale);
    Ok(Some(Exit::Stale))
}

/// Refuses a saved plan whose steps would do other than its rendered changes show (what its
/// reviewer saw), or write to other objects than their addresses name in the live state.
fn refuse_not_shown(args: &Args, printer: &Printer, plan: &Plan, problems: &[String]) {
    printer.err(&format!(
        "error: the saved plan would do other than it shows: {} change(s) differ from what \
         was reviewed; nothing was written:",
        problems.len()
    ));
    for problem in problems {
        printer.err(&format!("  - {problem}"));
    }
    printer.err("run `converge plan --out FILE` again and review the new plan");
    refused_report(args, printer, plan, "not-shown", &[]);
}

/// Whether the person at the terminal confirms the plan.
fn confirmed(args: &Args, printer: &Printer, plan: &Plan) -> Result<bool> {
    // The plan went to stdout; when that is a pipe or a file, the person answering has not
    // seen it (or sees it late, after the question), so it is shown where they answer.
    let plan_on_terminal = args.format == Format::Json || {
        use std::io::IsTerminal;
        std::io::stdout().is_terminal()
    };
    confirm(plan, printer, !plan_on_terminal)
}

/// Runs the plan's steps (stopped by a signal), waits for scaling with `--wait`, reports, and
/// says how the run ended.
fn apply_steps(
    args: &Args,
    printer: &Printer,
    runtime: &tokio::runtime::Runtime,
    clients: Clients,
    plan: &Plan,
    options: &Options,
) -> Exit {
    let (cancel_tx, cancel_rx) = watch::channel(false);
    let progress = Progress::new(printer).with_activity(clients.activity());
    {
        let _entered = runtime.enter();
        listen_for_signals(cancel_tx, progress.announcer());
    }
    // Each step reads its object again when it starts (`apply::fresh`): a change made while a
    // person answered the question, or while earlier steps ran, is caught as stale.
    let mut report = runtime
        .block_on(apply::execute(
            plan,
            clients.clone(),
            options,
            cancel_rx.clone(),
            &progress,
        ))
        .of_plan(plan);
    if args.wait && !report.interrupted {
        report.wait = Some(runtime.block_on(apply::wait::wait(
            plan, &report, &clients, options, cancel_rx, printer,
        )));
    }
    printer.err(report.to_text(printer).trim_end());
    if args.format == Format::Json {
        printer.out(&report.to_json());
    }
    if report.succeeded() {
        Exit::Success
    } else if report.summary.failed == 0
        && !report.interrupted
        && report.has_stale()
        && report.wait.as_ref().is_none_or(|w| w.settled)
    {
        Exit::Stale
    } else {
        Exit::Error
    }
}

/// With `--format json`, the report of a refused run (nothing written) on stdout.
fn refused_report(
    args: &Args,
    printer: &Printer,
    plan: &Plan,
    reason: &str,
    stale: &[(usize, String)],
) {
    if args.format == Format::Json {
        printer.out(&Report::refused(plan, reason, stale).to_json());
    }
}

/// Asks on the terminal (stderr); refuses (with the reason) when there is no terminal to ask
/// on. `show_plan`: print the plan on stderr first, right before the question.
fn confirm(plan: &Plan, printer: &Printer, show_plan: bool) -> Result<bool> {
    use std::io::IsTerminal;
    if !(std::io::stdin().is_terminal() && printer.is_terminal()) {
        printer.err(
            "error: apply needs a confirmation and there is no terminal to ask on; nothing was \
             written: pass `--yes` to apply without asking",
        );
        return Ok(false);
    }
    if show_plan {
        printer.err(plan::render(plan, Format::Text, printer).trim_end());
    }
    let summary = plan.summary();
    // A typed word, not a single key: with a one-key prompt, any answer containing a `y`
    // ("maybe", "any") approved the writes.
    // The question on a line of its own, and a prompt short enough never to wrap: the prompt
    // is redrawn after the answer, and a wrapped one was drawn twice (seen at 60 columns).
    printer.err(&format!("Apply these changes ({})?", summary.line()));
    let answer = dialoguer::Input::<String>::new()
        .with_prompt("Only `yes` applies")
        .allow_empty(true)
        .interact_text()
        .is_ok_and(|typed| approves(&typed));
    if !answer {
        printer.err("not applied; nothing was written");
    }
    Ok(answer)
}

/// Whether a typed answer approves the apply: `yes` only (surrounding blanks and case aside).
fn approves(answer: &str) -> bool {
    answer.trim().eq_ignore_ascii_case("yes")
}

/// Turns SIGINT and SIGTERM into `cancel = true`. The handlers are installed before this
/// returns, so a signal from here on never kills the process mid-write.
/// What it says goes above the running steps' spinners (`announcer`), never through them.
fn listen_for_signals(cancel: watch::Sender<bool>, printer: Announcer) {
    #[cfg(unix)]
    {
        use tokio::signal::unix::{SignalKind, signal};
        let interrupt = signal(SignalKind::interrupt());
        let terminate = signal(SignalKind::terminate());
        if let (Ok(mut interrupt), Ok(mut terminate)) = (interrupt, terminate) {
            tokio::spawn(async move {
                tokio::select! {
                    _ = interrupt.recv() => {}
                    _ = terminate.recv() => {}
                }
                printer.say(
                    "interrupted: no new step starts; waiting for the running ones (interrupt \
                     again to stop now)",
                );
                let _ = cancel.send(true);
                // The handlers stay installed, so a second signal must be honoured here.
                tokio::select! {
                    _ = interrupt.recv() => {}
                    _ = terminate.recv() => {}
                }
                printer.say(
                    "interrupted twice: stopping now; requests in flight may or may not have \
                     been applied: run `converge plan` to see what is left",
                );
                std::process::exit(Exit::Error as i32);
            });
        }
    }
    #[cfg(not(unix))]
    {
        tokio::spawn(async move {
            if tokio::signal::ctrl_c().await.is_ok() {
                printer.say("interrupted: no new step starts; waiting for the running ones");
                let _ = cancel.send(true);
            }
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::commands::flags::timeout as parse_duration;

    #[test]
    fn only_yes_approves() {
        assert!(approves("yes"));
        assert!(approves("  YES \n"));
        for garbage in [
            "",
            "y",
            "maybe",
            "any",
            "yes please",
            "no",
            "oui",
            "\u{1b}[A",
        ] {
            assert!(!approves(garbage), "{garbage:?} must not approve");
        }
    }

    #[test]
    fn durations_take_seconds_minutes_and_hours() {
        assert_eq!(parse_duration("90").ok(), Some(Duration::from_secs(90)));
        assert_eq!(parse_duration("90s").ok(), Some(Duration::from_secs(90)));
        assert_eq!(parse_duration("10m").ok(), Some(Duration::from_secs(600)));
        assert_eq!(parse_duration("1h").ok(), Some(Duration::from_secs(3600)));
        assert!(parse_duration("1d").is_err());
        assert!(parse_duration("soon").is_err());
    }
}
