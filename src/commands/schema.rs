//! `converge schema`: prints the JSON Schema of the configuration format.

use crate::error::Result;
use crate::exit::Exit;
use crate::output::Printer;

/// Flags of `converge schema`.
#[derive(Debug, clap::Args)]
pub struct Args {}

/// Runs `converge schema`.
pub fn run(_args: Args, printer: &Printer) -> Result<Exit> {
    printer.out(crate::config::SCHEMA);
    Ok(Exit::Success)
}
