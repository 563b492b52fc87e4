//! Why a sandbox cannot start or keep its state; a command shows it as any other error.
//! Its code is chosen where it is shown (`crate::error`), by what failed.

use std::path::PathBuf;

use miette::Diagnostic;

/// Why a sandbox could not start, or could not load or save its state file.
#[derive(Debug, thiserror::Error, Diagnostic)]
pub enum SandboxError {
    /// Another `--sandbox` run holds the state file.
    #[error("the sandbox state `{}` is in use by another converge process", path.display())]
    #[diagnostic(help("wait for it to end, or use another state file"))]
    StateInUse {
        /// The state file.
        path: PathBuf,
    },
    /// Another process holds the state file `sandbox serve --state` was given.
    #[error(
        "the sandbox state `{}` is in use by another converge process (a `--sandbox` run or \
         `sandbox serve --state`), which would overwrite this one's writes",
        path.display()
    )]
    #[diagnostic(help("wait for it to end, or use another state file"))]
    ServedStateInUse {
        /// The state file.
        path: PathBuf,
    },
    /// The state file is not JSON of the world's shape.
    #[error("the sandbox state `{}` is not valid: {cause}", path.display())]
    #[diagnostic(help("delete the file to start again from the seed"))]
    StateNotValid {
        /// The state file.
        path: PathBuf,
        /// What the JSON reader said.
        cause: serde_json::Error,
    },
    /// The state file was written by another version of the sandbox.
    #[error(
        "the sandbox state `{}` has format `{found}`, expected `{expected}`",
        path.display()
    )]
    #[diagnostic(help("delete the file to start again from the seed"))]
    StateFormat {
        /// The state file.
        path: PathBuf,
        /// The format it declares.
        found: String,
        /// The format this sandbox writes.
        expected: &'static str,
    },
    /// The world could not be written as JSON.
    #[error("cannot encode the sandbox state: {0}")]
    Encode(serde_json::Error),
    /// Reading, writing or locking the state file (or making its directory) failed.
    #[error("{action} `{path}`: {cause}")]
    Io {
        /// What was being done, e.g. "cannot read the sandbox state".
        action: &'static str,
        /// The file concerned.
        path: String,
        /// The underlying error: part of the message, not a `source`, so that it is said once.
        cause: std::io::Error,
    },
    /// The sandbox's tokio runtime could not be built.
    #[error("sandbox: cannot start its runtime: {0}")]
    Runtime(std::io::Error),
    /// The thread an in-process sandbox runs on could not be started.
    #[error("sandbox: cannot start its thread: {0}")]
    Thread(std::io::Error),
    /// The in-process sandbox's thread ended without saying whether it listens.
    #[error("sandbox: its thread ended before it listened")]
    ThreadEnded,
    /// The port is taken (or not ours to take).
    #[error("sandbox: cannot listen on 127.0.0.1:{port}: {cause}")]
    #[diagnostic(help("choose another port with `--port`, or 0 for any free port"))]
    Listen {
        /// The port asked for.
        port: u16,
        /// What the OS said.
        cause: std::io::Error,
    },
}

/// The result type of the sandbox's fallible setup.
pub(crate) type Result<T, E = SandboxError> = std::result::Result<T, E>;
