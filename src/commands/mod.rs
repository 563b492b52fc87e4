//! One module per subcommand; each gets its parsed flags and the printer.

pub mod apply;
pub mod completions;
pub mod drift;
pub mod export;
pub mod flags;
pub mod plan;
pub mod preview;
pub mod sandbox;
pub mod schema;
pub mod session;
pub mod show;
pub mod validate;

use crate::cli::{Cli, Command};
use crate::error::Result;
use crate::exit::Exit;
use crate::output::Printer;

/// Runs the chosen command.
pub fn run(cli: Cli, printer: &Printer) -> Result<Exit> {
    match cli.command {
        Command::Validate(args) => validate::run(args, printer),
        Command::Plan(args) => plan::run(args, printer),
        Command::Preview(args) => preview::run(args, printer),
        Command::Apply(args) => apply::run(args, printer),
        Command::Schema(args) => schema::run(args, printer),
        Command::Sandbox(args) => sandbox::run(args, printer),
        Command::Drift(args) => drift::run(args, printer),
        Command::Export(args) => export::run(args, printer),
        Command::Show(args) => show::run(args, printer),
        Command::Completions(args) => completions::run(args, printer),
    }
}
