//! `converge drift`: what differs between the config and the live state, for a scheduled job.
//! Exit 0 in sync, 2 drift found, 1 error.

use std::path::PathBuf;

use crate::commands::session;
use crate::drift;
use crate::error::Result;
use crate::exit::Exit;
use crate::format::{Choices, Format};
use crate::output::Printer;
use crate::settings::{ApiArgs, ApiSettings};

/// Flags of `converge drift`.
#[derive(Debug, clap::Args)]
#[command(after_help = "Exit codes:\n  \
    0  in sync (unmanaged objects are listed but do not count)\n  \
    2  drift: a managed object differs or a check failed (or, with --fail-on-unmanaged, an \
    unmanaged object exists)\n  \
    1  error: config, network, API, a pattern that matches nothing\n\n\
    Examples:\n  converge drift --sandbox examples/quickstart.yaml\n  \
    converge drift --sandbox examples/quickstart.yaml --format markdown \
    --ignore 'service.analytics.scaling.numReplicas' --ignore 'dashboard.prod[*'")]
pub(crate) struct Args {
    /// Config files or directories of `*.yaml`/`*.yml` files.
    #[arg(required = true)]
    pub paths: Vec<PathBuf>,
    /// Output format on stdout: `text` for people, `json` (`converge-drift/1`) for programs,
    /// `markdown` for an issue or comment body.
    #[arg(long, default_value = "text", value_parser = Choices::DRIFT)]
    pub format: Format,
    /// Silence drift a team has accepted: a glob (`*`, `?`) over addresses
    /// (`dashboard.prod.*`) or field paths (`service.analytics.scaling.numReplicas`);
    /// repeatable, added to the config's `ignore:` list. A pattern that matches no address or
    /// field path of the config or the live state is an error.
    #[arg(long, value_name = "PATTERN")]
    pub ignore: Vec<String>,
    /// Count unmanaged objects as drift (exit 2), as the config's `drift.failOnUnmanaged: true`
    /// does; by default they are listed but only differences and failed checks exit 2.
    #[arg(long)]
    pub fail_on_unmanaged: bool,
    /// Compare only addresses matching this glob (`*`, `?`); repeatable. Only the lists those
    /// addresses need are read, and the report says it is partial.
    #[arg(long, value_name = "GLOB")]
    pub only: Vec<String>,
    /// Where the APIs are and how hard to use them.
    #[command(flatten)]
    pub api: ApiArgs,
}

/// Runs `converge drift`.
pub(crate) fn run(args: Args, printer: &Printer) -> Result<Exit> {
    let api = ApiSettings::resolve(&args.api);
    let session = session::open_scoped(&args.paths, &api, printer, 1, &args.only)?;
    // Backup ages are measured from the real clock: a drift job asks "is it fine now".
    let plan = session.plan(&args.only, printer)?;
    session::check_globs("--ignore", &args.ignore, || session.addresses(&plan, true))?;
    let ignore: Vec<String> = session
        .config
        .ignore
        .iter()
        .map(|p| p.value.clone())
        .chain(args.ignore.iter().cloned())
        .collect();
    let mut report = drift::report(&session.config, &session.live, &plan, &ignore);
    report.fail_on_unmanaged |= args.fail_on_unmanaged;
    let text = drift::render::render(&report, args.format, &printer.for_stdout());
    match args.format {
        Format::Json => printer.out(&text),
        Format::Text | Format::Markdown => printer.out_text(&text),
    }
    Ok(if report.in_sync() {
        Exit::Success
    } else {
        Exit::Changes
    })
}
