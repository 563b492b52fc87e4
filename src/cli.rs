//! The command line: clap definitions. Each command's own flags live beside its code in
//! `commands/`; this file holds the few flags every command takes, the flags of the commands
//! that talk to the APIs, and the list of commands.

use clap::{Args, Parser, Subcommand, ValueEnum};

use crate::commands;

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

/// Flags every command takes, before or after the command's name.
#[derive(Debug, Clone, Args)]
pub struct GlobalArgs {
    /// When to color output (`NO_COLOR` is respected under `auto`).
    #[arg(long, global = true, value_enum, default_value_t = ColorChoice::Auto)]
    pub color: ColorChoice,
    /// Log more to stderr: `-v` for requests, `-vv` for everything.
    #[arg(short, long, global = true, action = clap::ArgAction::Count)]
    pub verbose: u8,
}

/// Flags of the commands that talk to the APIs (plan, apply, drift, preview, export); the
/// others do not show or take them.
#[derive(Debug, Clone, Args)]
pub struct ApiArgs {
    /// Run against an in-process sandbox whose state lives in `.converge/sandbox.json`.
    #[arg(long)]
    pub sandbox: bool,
    /// How many requests may be in flight at once (always within the rate limit).
    #[arg(long, default_value_t = 4, value_parser = clap::value_parser!(u16).range(1..=64))]
    pub parallelism: u16,
    /// With `--sandbox`: enforce the real APIs' rate limits (10 requests per 10s, 100 per
    /// minute) in the sandbox and in converge's pacing; without it the sandbox runs unpaced.
    #[arg(
        long,
        env = "CONVERGE_SANDBOX_RATE_LIMIT",
        value_parser = clap::builder::BoolishValueParser::new()
    )]
    pub sandbox_rate_limit: bool,
}

/// When to color output.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ColorChoice {
    /// Color each stream (stdout, stderr) only when it is a terminal and `NO_COLOR` is unset.
    Auto,
    /// Always color.
    Always,
    /// Never color.
    Never,
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
