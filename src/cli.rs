//! The command line: clap definitions. Each command's own flags live beside its code in
//! `commands/`; this file holds the few flags every command takes, the flags of the commands
//! that talk to the APIs, and the list of commands.

use clap::{Parser, Subcommand};

use crate::commands;
pub use crate::settings::{ApiArgs, ColorChoice, GlobalArgs};

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
pub struct Cli {
    /// The command to run.
    #[command(subcommand)]
    pub command: Command,
    /// Flags every command takes.
    #[command(flatten)]
    pub global: GlobalArgs,
}

/// The commands.
#[derive(Debug, Subcommand)]
pub enum Command {
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
