//! `converge drift`: what differs between the config and the live state, for a scheduled job.
//! Exit 0 in sync, 2 drift found, 1 error; with `--write` or `--diff`, 5 when some drift must
//! be written into the config by hand.

use std::path::PathBuf;

use crate::commands::session::{self, Session};
use crate::diagnostic::Code;
use crate::drift;
use crate::drift::Report;
use crate::error::{CommandError, Result};
use crate::exit::Exit;
use crate::format::{Choices, Format};
use crate::output::Printer;
use crate::plan::PlanOptions;
use crate::plan::pipeline;
use crate::settings::{ApiArgs, ApiSettings, PlanningSettings};
use crate::writeback::{self, files};

/// Flags of `converge drift`.
#[derive(Debug, clap::Args)]
#[command(after_help = "Exit codes:\n  \
    0  in sync (unmanaged objects are listed but do not count)\n  \
    2  drift: a managed object differs or a check failed (or, with --fail-on-unmanaged, an \
    unmanaged object exists)\n  \
    5  with --write or --diff: drift found, and some of it must be edited into the config by \
    hand (listed on stderr)\n  \
    1  error: config, network, API, a pattern that matches nothing, an edit that failed its \
    check\n\n\
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
    /// Edit the config files in place so they say what is live for each drifted managed field:
    /// only the bytes of changed values are replaced (comments, order, quoting and anchors
    /// stay). Values behind anchors, `${env:...}`, templates and secrets are listed to edit by
    /// hand; an object missing live is left untouched for apply. The edit is checked (the
    /// result loads, changes nothing else, plans in sync at those fields) and written
    /// atomically (through a symlink to its target), never over a file changed since it was
    /// read.
    #[arg(long, conflicts_with = "diff")]
    pub write: bool,
    /// Print the edit `--write` would make as a unified diff on stdout, and write nothing.
    #[arg(long)]
    pub diff: bool,
    /// Append the unmanaged dashboard or alert at ADDRESS (as `drift` lists it, e.g.
    /// `dashboard.prod["On-call overview"]`) to its stack in the config, written as `export`
    /// writes it; repeatable. With `--write` the files are edited, else the diff is shown.
    #[arg(long, value_name = "ADDRESS")]
    pub adopt: Vec<String>,
    /// With `--write` or `--diff`: keep the tiles deleted live in the config and list them,
    /// instead of removing their lines (an alert missing live is always kept, for apply).
    #[arg(long)]
    pub keep_deleted: bool,
    /// Where the APIs are and how hard to use them.
    #[command(flatten)]
    pub api: ApiArgs,
}

/// What `converge drift` runs with, resolved once from its flags and the environment.
fn settings(args: &Args) -> PlanningSettings {
    PlanningSettings {
        api: ApiSettings::resolve(&args.api),
        plan: pipeline::Options {
            only: args.only.clone(),
            ..pipeline::Options::default()
        },
    }
}

/// Runs `converge drift`.
pub(crate) fn run(args: Args, printer: &Printer) -> Result<Exit> {
    let settings = settings(&args);
    let session = session::open_scoped(&args.paths, &settings.api, printer, 1, &args.only)?;
    // Backup ages are measured from the real clock: a drift job asks "is it fine now".
    let plan = session.plan(&settings.plan, printer)?;
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
    if args.write || args.diff || !args.adopt.is_empty() {
        return write_back(&args, &session, &report, &ignore, printer);
    }
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

/// `--write` and `--diff`: the edits the drift calls for, checked, then written or shown; what
/// a person must edit is listed on stderr.
fn write_back(
    args: &Args,
    session: &Session,
    report: &Report,
    ignore: &[String],
    printer: &Printer,
) -> Result<Exit> {
    let options = writeback::Options {
        keep_deleted: args.keep_deleted,
    };
    let mut proposal = writeback::propose(&session.sources, report, &session.live, options);
    let root = writeback::locate::expanded(&session.sources);
    for address in &args.adopt {
        let edit = writeback::adopt::adopt(&session.sources, root.as_ref(), &session.live, address)
            .map_err(|reason| WriteBackError::Adopt {
                address: address.clone(),
                reason,
            })?;
        proposal.edits.push(edit);
    }
    proposal.edits.sort_by_key(|e| (e.file, e.offset, e.len));
    let texts = writeback::apply(&session.sources, &proposal.edits);
    if !texts.is_empty() {
        verify(session, &texts, &proposal.edits, ignore)?;
    }
    if !args.write {
        printer.out_text(&writeback::diff(&session.sources, &texts));
    } else {
        let replacements: Vec<files::Replacement<'_>> = texts
            .iter()
            .filter_map(|(id, new)| {
                let file = session.sources.file(*id)?;
                Some(files::Replacement {
                    path: &file.path,
                    old: &file.text,
                    new,
                })
            })
            .collect();
        files::replace_all(&replacements).map_err(WriteBackError::Write)?;
        let text = drift::render::render(report, args.format, &printer.for_stdout());
        match args.format {
            Format::Json => printer.out(&text),
            Format::Text | Format::Markdown => printer.out_text(&text),
        }
        for (id, _) in &texts {
            let count = proposal.edits.iter().filter(|e| e.file == *id).count();
            if let Some(file) = session.sources.file(*id) {
                printer.err(&format!(
                    "wrote {count} live value{} into {}",
                    if count == 1 { "" } else { "s" },
                    file.path.display()
                ));
            }
        }
    }
    for manual in &proposal.manual {
        printer.err(&manual.line());
    }
    if let Some(line) = proposal.for_apply_line() {
        printer.err(&line);
    }
    Ok(if !proposal.manual.is_empty() {
        Exit::ManualEdits
    } else if report.in_sync() {
        Exit::Success
    } else {
        Exit::Changes
    })
}

/// Checks the edited config texts: they load, and their drift report is what the edit meant.
fn verify(
    session: &Session,
    texts: &[(usize, String)],
    edits: &[writeback::Edit],
    ignore: &[String],
) -> Result<()> {
    let now = Some(jiff::Timestamp::now());
    writeback::verify(
        &session.sources,
        texts,
        edits,
        |files| session.reload(files),
        |config| {
            let options = PlanOptions {
                only: Vec::new(),
                now,
                dedupe: false,
                drop_unchanged_values: false,
            };
            let plan = crate::plan::plan(config, &session.live, &options).0;
            drift::report(config, &session.live, &plan, ignore)
        },
    )
    .map_err(|reason| WriteBackError::Unverified { reason }.into())
}

/// Why `drift --write` or `--diff` wrote nothing.
#[derive(Debug, thiserror::Error, miette::Diagnostic)]
pub(crate) enum WriteBackError {
    /// The edited config failed its check.
    #[error("the edit of the config failed its check, so nothing was written: {reason}")]
    #[diagnostic(help(
        "run `converge drift` to see the drift, and edit the config by hand; please report \
         this with the config's shape"
    ))]
    Unverified {
        /// What the check found.
        reason: String,
    },
    /// `--adopt` names nothing that can be adopted.
    #[error("cannot adopt {address}: {reason}")]
    #[diagnostic(help("run `converge drift` to see the unmanaged objects and their addresses"))]
    Adopt {
        /// The address as given.
        address: String,
        /// Why not.
        reason: String,
    },
    /// Writing failed, or a file changed meanwhile.
    #[error(transparent)]
    #[diagnostic(help(
        "run `converge drift --write` again: it reads the files afresh and edits what they say now"
    ))]
    Write(files::WriteError),
}

impl CommandError for WriteBackError {
    fn code(&self) -> Code {
        match self {
            WriteBackError::Unverified { .. } => Code::DriftWriteUnverified,
            WriteBackError::Adopt { .. } => Code::DriftAdopt,
            WriteBackError::Write(files::WriteError::ChangedOnDisk { .. }) => {
                Code::DriftWriteChanged
            }
            WriteBackError::Write(files::WriteError::Io { .. }) => Code::DriftWriteIo,
        }
    }
}
