//! The command line: the list of commands and the dispatch to them. Each command's own flags
//! live beside its code in `commands/`; the flags every command shares, and what they resolve
//! to, in `settings`. This is the top layer: it uses `commands`, nothing uses it.

use clap::{CommandFactory, Parser, Subcommand};

use crate::commands;
use crate::error::Result;
use crate::exit::Exit;
use crate::output::Printer;
use crate::settings::GlobalArgs;

/// Keep a cloud database organization and its observability stack the way a YAML file says.
#[derive(Debug, Parser)]
#[command(
    name = "converge",
    version,
    propagate_version = true,
    after_help = "Exit codes, the same for every command:\n  \
    0  success; nothing to change (plan), in sync (drift)\n  \
    1  error\n  \
    2  changes planned (plan --detailed-exitcode), drift found (drift)\n  \
    3  a saved plan is stale (apply --plan)\n  \
    4  refused (apply)\n\n\
    Examples:\n  converge plan --sandbox examples/quickstart.yaml\n  \
    converge plan --help"
)]
pub(crate) struct Cli {
    /// The command to run.
    #[command(subcommand)]
    pub command: Command,
    /// Flags every command takes.
    #[command(flatten)]
    pub global: GlobalArgs,
}

/// The commands.
#[derive(Debug, Subcommand)]
pub(crate) enum Command {
    /// Check configuration files offline: YAML, schema and semantic rules. No network.
    Validate(commands::validate::Args),
    /// Read the live state and print what `apply` would change, field by field.
    Plan(commands::plan::Args),
    /// Backtest an alert over a window (how often it would have fired), or draw a tile's series.
    Preview(commands::preview::Args),
    /// Apply a plan: confirm, write in order, report what was done, failed or skipped.
    Apply(commands::apply::Args),
    /// Print a saved plan or an apply report in any format, without reading the APIs.
    Show(commands::show::Args),
    /// Print the JSON Schema of the configuration format.
    Schema(commands::schema::Args),
    /// Run the local emulator of both APIs.
    Sandbox(commands::sandbox::Args),
    /// Report drift: changed fields, unmanaged objects and failed checks.
    ///
    /// For scheduled jobs: exit 0 in sync, 2 drift found, 1 error.
    Drift(commands::drift::Args),
    /// Write the live state of services and stacks as a config that plans to no changes.
    Export(commands::export::Args),
    /// Print a shell completion script (bash, zsh, fish, powershell).
    Completions(commands::completions::Args),
}

impl Command {
    /// Runs the chosen command.
    pub(crate) fn run(self, printer: &Printer) -> Result<Exit> {
        match self {
            Command::Validate(args) => commands::validate::run(args, printer),
            Command::Plan(args) => commands::plan::run(args, printer),
            Command::Preview(args) => commands::preview::run(args, printer),
            Command::Apply(args) => commands::apply::run(args, printer),
            Command::Schema(args) => commands::schema::run(args, printer),
            Command::Sandbox(args) => commands::sandbox::run(args, printer),
            Command::Drift(args) => commands::drift::run(args, printer),
            Command::Export(args) => commands::export::run(args, printer),
            Command::Show(args) => commands::show::run(args, printer),
            Command::Completions(args) => commands::completions::run(args, Cli::command(), printer),
        }
    }
}
