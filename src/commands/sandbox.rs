//! `converge sandbox serve`: the local emulator of both APIs.

use crate::cli::GlobalArgs;
use crate::error::Result;
use crate::exit::Exit;
use crate::output::Printer;

/// Flags of `converge sandbox`.
#[derive(Debug, clap::Args)]
pub struct Args {}

/// Runs `converge sandbox`.
pub fn run(_args: Args, _global: &GlobalArgs, _printer: &Printer) -> Result<Exit> {
    Err(crate::error::Error::msg("sandbox: not built yet"))
}
