//! `converge schema`: prints the JSON Schema of the configuration format.

use crate::error::Result;
use crate::exit::Exit;
use crate::output::Printer;

/// Flags of `converge schema`.
#[derive(Debug, clap::Args)]
#[command(after_help = "Editors read it from the first line of a config: \
    `# yaml-language-server: $schema=converge.schema.json`.\n\n\
    Exit codes:\n  0  printed\n\n\
    Examples:\n  converge schema > converge.schema.json\n  \
    converge schema --policy-input > policy-input.schema.json")]
pub(crate) struct Args {
    /// Print the JSON Schema of the document policy rules read as `input` instead
    /// (docs/policy.md).
    #[arg(long)]
    pub policy_input: bool,
}

/// Runs `converge schema`.
pub(crate) fn run(args: Args, printer: &Printer) -> Result<Exit> {
    printer.out(match args.policy_input {
        true => crate::policy::INPUT_SCHEMA,
        false => crate::config::SCHEMA,
    });
    Ok(Exit::Success)
}
