//! The one error type commands return; how it is rendered lives in `output`.

use miette::Diagnostic;

use crate::api::clients::RateLimitEnvError;
use crate::api::error::ApiError;
use crate::api::transport::HttpClientError;
use crate::output::WriteFileError;
use crate::sandbox::SandboxError;

/// An error that ends a command with exit code 1.
#[derive(Debug, thiserror::Error, Diagnostic)]
pub enum Error {
    /// The configuration is invalid; the diagnostics were already printed.
    #[error("{count} error(s) in the configuration")]
    #[diagnostic(code(converge::config))]
    Config {
        /// How many errors were reported.
        count: usize,
    },
    /// Reading or writing a local file failed.
    #[error("{action} `{path}`: {cause}")]
    #[diagnostic(code(converge::io))]
    Io {
        /// What was being done, e.g. "cannot read".
        action: &'static str,
        /// The file concerned.
        path: String,
        /// The underlying error: part of the message, not a `source`, so that it is said once.
        cause: std::io::Error,
    },
    /// A file converge was asked to write (`--out`, `--svg`) could not be written.
    #[error(transparent)]
    #[diagnostic(transparent)]
    WriteFile(#[from] WriteFileError),
    /// A call to one of the APIs failed.
    #[error(transparent)]
    #[diagnostic(transparent)]
    Api(#[from] ApiError),
    /// A `CONVERGE_*_RATE_LIMIT` variable cannot be read.
    #[error(transparent)]
    #[diagnostic(code(converge::error))]
    RateLimit(#[from] RateLimitEnvError),
    /// The HTTP client could not be built.
    #[error(transparent)]
    #[diagnostic(code(converge::error))]
    HttpClient(#[from] HttpClientError),
    /// The sandbox could not start, or could not load or save its state.
    #[error(transparent)]
    #[diagnostic(transparent)]
    Sandbox(#[from] SandboxError),
    /// Any other failure, already phrased for the user.
    #[error("{message}")]
    #[diagnostic(code(converge::error))]
    Message {
        /// What failed and what to do next.
        message: String,
        /// An optional `hint:` line.
        #[help]
        hint: Option<String>,
    },
}

impl Error {
    /// An error phrased for the user, with no hint.
    pub fn msg(message: impl Into<String>) -> Self {
        Error::Message {
            message: message.into(),
            hint: None,
        }
    }

    /// An error phrased for the user, with a `hint:` line.
    pub fn with_hint(message: impl Into<String>, hint: impl Into<String>) -> Self {
        Error::Message {
            message: message.into(),
            hint: Some(hint.into()),
        }
    }
}

/// The result type of commands.
pub type Result<T, E = Error> = std::result::Result<T, E>;
