//! converge keeps a cloud database organization and its observability stack the way a YAML file
//! says: it reads the config, reads the live state over two REST APIs, prints a plan and applies it.
#![forbid(unsafe_code)]
#![deny(clippy::print_stdout, clippy::print_stderr)]
#![cfg_attr(
    not(test),
    deny(clippy::unwrap_used, clippy::expect_used, clippy::panic)
)]

pub mod api;
pub mod apply;
pub mod cli;
pub mod commands;
pub mod config;
pub mod drift;
pub mod error;
pub mod exit;
pub mod export;
pub mod live;
pub mod markdown;
pub mod output;
pub mod plan;
pub mod preview;
pub mod sandbox;
pub mod settings;

use std::process::ExitCode;

use clap::Parser;

/// Runs the command line and turns its outcome into the process exit code.
pub fn main() -> ExitCode {
    let cli = match cli::Cli::try_parse() {
        Ok(cli) => cli,
        // clap would exit 2 on a bad flag, which DESIGN gives to "changes planned": a usage
        // error is an error (1); help and version are successes.
        Err(error) => {
            let _ = error.print();
            return if error.use_stderr() {
                exit::Exit::Error.into()
            } else {
                exit::Exit::Success.into()
            };
        }
    };
    let printer = output::Printer::new(cli.global.resolve());
    let outcome = cli.command.run(&printer);
    match outcome {
        Ok(code) => code.into(),
        Err(error) => {
            printer.report(&error);
            exit::Exit::Error.into()
        }
    }
}
