//! `converge validate`: offline checks of configuration files.

use crate::cli::GlobalArgs;
use crate::error::Result;
use crate::exit::Exit;
use crate::output::Printer;

/// Flags of `converge validate`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// Config files or directories of `*.yaml`/`*.yml` files.
    #[arg(required = true)]
    pub paths: Vec<std::path::PathBuf>,
}

/// Runs `converge validate`.
pub fn run(_args: Args, _global: &GlobalArgs, _printer: &Printer) -> Result<Exit> {
    Err(crate::error::Error::msg("validate: not built yet"))
}
