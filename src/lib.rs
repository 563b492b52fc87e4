//! converge keeps a cloud database organization and its observability stack the way a YAML file
//! says: it reads the config, reads the live state over two REST APIs, prints a plan and applies it.
//!
//! # Layers
//!
//! Lowest first. A module uses only the modules listed before it, never one after it, and no
//! two files import each other, even through others; `tests/it/layers.rs` reads this list and
//! fails on any `crate::` path that goes up it and on any import cycle between files.
//!
//! - `exit`: the exit codes.
//! - `diagnostic`: a problem at a place in the config, and the stable code of every problem and
//!   every error; nothing else, so that every layer can raise one.
//! - `duration`: the one parser of durations such as `90s`, `10m` or `7d`.
//! - `format`: the one `--format` enum, and the values each command offers.
//! - `address`: the one way an object's address is written and read back.
//! - `markdown`: escaping names and values for Markdown output.
//! - `api`: the transport, the wire types and the two clients, built from a URL, credentials
//!   and a rate limit; they report progress and waits through `api::report::Reporter`.
//! - `output`: the printer, built from plain values: stdout, stderr, color, masked secrets;
//!   above `api`, which never holds it: the printer shows what `api` reports.
//! - `sandbox`: the local emulator of both APIs; it shares only `api`'s wire types and limits.
//! - `config`: files to the checked, typed desired state.
//! - `live`: the live state a config needs, read through ready clients.
//! - `plan`: desired and live state to a plan, and its renderings; no I/O.
//! - `drift`: the drift report of a plan.
//! - `export`: the live state written as a config.
//! - `writeback`: drift written back into the config files, byte for byte where it is not
//!   edited, each edit verified before it lands.
//! - `policy`: the team's rules in Rego, evaluated on the config, the plan and the live state;
//!   their findings and errors as diagnostics.
//! - `apply`: a plan's steps executed in order.
//! - `error`: the one error type commands return, each kind with its stable code: typed
//!   variants, some wrapping the errors of the modules before it (an API call, the sandbox, a
//!   file written), and the error enums of single commands, which live beside their command.
//! - `preview`: a tile's series and an alert's backtest.
//! - `settings`: the shared flags, resolved once with the environment into plain settings.
//! - `commands`: one module per command, and the one place clients are wired (`connect`).
//! - `cli`: the list of commands and the dispatch; nothing uses it.
#![forbid(unsafe_code)]
#![deny(clippy::print_stdout, clippy::print_stderr)]
#![cfg_attr(
    not(test),
    deny(clippy::unwrap_used, clippy::expect_used, clippy::panic)
)]

pub(crate) mod address;
pub mod api;
pub mod apply;
pub(crate) mod cli;
pub mod commands;
pub mod config;
pub mod diagnostic;
pub mod drift;
pub(crate) mod duration;
pub(crate) mod error;
pub(crate) mod exit;
pub(crate) mod export;
pub(crate) mod format;
pub mod live;
pub(crate) mod markdown;
pub mod output;
pub mod plan;
pub(crate) mod policy;
pub(crate) mod preview;
pub mod sandbox;
pub(crate) mod settings;
pub(crate) mod writeback;

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
