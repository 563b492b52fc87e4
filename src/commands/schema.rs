//! `converge schema`: prints the JSON Schema of the configuration format.

use crate::error::Result;
use crate::exit::Exit;
use crate::output::Printer;

/// Flags of `converge schema`.
#[derive(Debug, clap::Args)]
#[command(after_help = "Editors read it from the first line of a config: \
    `# yaml-language-server: $schema=converge.schema.json`.\n\n\
    Exit codes:\n  0  printed\n\n\
    Examples:\n  converge schema > converge.schema.json")]
pub(crate) struct Args {}

/// Runs `converge schema`.
pub(crate) fn run(_args: Args, printer: &Printer) -> Result<Exit> {
    printer.out(crate::config::SCHEMA);
    Ok(Exit::Success)
}
