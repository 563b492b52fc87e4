//! `converge plan`: reads the live state and prints what `apply` would change.

use std::path::PathBuf;

use crate::cli::ApiArgs;
use crate::commands::session;
use crate::error::{Error, Result};
use crate::exit::Exit;
use crate::output::Printer;
use crate::plan::saved::SavedPlan;
use crate::plan::{self, Format};

/// Flags of `converge plan`.
#[derive(Debug, clap::Args)]
#[command(after_help = "Exit codes:\n  \
    0  planned (with --detailed-exitcode: no changes)\n  \
    2  changes (only with --detailed-exitcode)\n  \
    1  error: config, credentials, API, an --only glob that matches nothing\n\n\
    Examples:\n  converge plan --sandbox examples/quickstart.yaml\n  \
    converge plan --sandbox examples/production --format markdown --out plan.json \
    --detailed-exitcode")]
pub struct Args {
    /// Config files or directories of `*.yaml`/`*.yml` files.
    #[arg(required = true)]
    pub paths: Vec<PathBuf>,
    /// Output format on stdout: `text` for people, `json` (`converge-plan/1`) for programs,
    /// `markdown` for a pull-request comment.
    #[arg(long, value_enum, default_value_t = Format::Text)]
    pub format: Format,
    /// Save the plan (JSON, no secret values) for `converge apply --plan FILE`.
    #[arg(long, value_name = "FILE")]
    pub out: Option<PathBuf>,
    /// Exit 2 when there are changes, 0 when there are none, 1 on error.
    #[arg(long)]
    pub detailed_exitcode: bool,
    /// Keep only addresses matching this glob (`*`, `?`); repeatable. A glob that matches no
    /// address of the config or the live state is an error.
    #[arg(long, value_name = "GLOB")]
    pub only: Vec<String>,
    /// Run the series of every tile the plan creates or updates over the last 15 minutes;
    /// exit 1 when the server rejects any query.
    #[arg(long)]
    pub check_queries: bool,
    /// Where the APIs are and how hard to use them.
    #[command(flatten)]
    pub api: ApiArgs,
}

/// Runs `converge plan`.
pub fn run(args: Args, printer: &Printer) -> Result<Exit> {
    let session = session::open(&args.paths, &args.api, printer)?;
    let plan = session.plan(&args.only, printer)?;
    printer.out(&plan::render(&plan, args.format, &printer.for_stdout()));
    if let Some(path) = &args.out {
        let saved = SavedPlan::new(&session.config, plan.clone());
        write_atomically(path, &saved.to_json())?;
        printer.err(&format!("saved the plan to `{}`", path.display()));
    }
    if args.check_queries {
        crate::preview::check::report(&session, &plan, printer)?;
    }
    Ok(if args.detailed_exitcode && plan.has_changes() {
        Exit::Changes
    } else {
        Exit::Success
    })
}

/// Writes a file so that a reader never sees half of it: a temporary file beside it, then a
/// rename.
pub fn write_atomically(path: &std::path::Path, text: &str) -> Result<()> {
    let io = |action, cause| Error::Io {
        action,
        path: path.display().to_string(),
        cause,
    };
    let mut temporary = path.as_os_str().to_owned();
    temporary.push(".tmp");
    let temporary = PathBuf::from(temporary);
    std::fs::write(&temporary, text).map_err(|e| io("cannot write", e))?;
    std::fs::rename(&temporary, path).map_err(|e| {
        // A failed save leaves no half-made file beside the target.
        let _ = std::fs::remove_file(&temporary);
        io("cannot write", e)
    })
}
