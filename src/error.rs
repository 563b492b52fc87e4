//! The one error type commands return, a variant for each kind of failure shared by commands
//! with what the user must know as fields, and each with its stable [`Code`]; how it is
//! rendered lives in `output`. It wraps the typed errors of the modules below it (`api`,
//! `sandbox`, `output`), which never import it, and the error enums of single commands, which
//! live beside their command and implement [`CommandError`].

use std::fmt;

use miette::{Diagnostic, LabeledSpan, SourceCode};

use crate::api::clients::RateLimitEnvError;
use crate::api::error::ApiError;
use crate::api::transport::HttpClientError;
use crate::diagnostic::Code;
use crate::output::WriteFileError;
pub(crate) use crate::plan::pipeline::UnmatchedGlob;
use crate::sandbox::SandboxError;

/// An error that ends a command with exit code 1.
#[derive(Debug, thiserror::Error)]
pub(crate) enum Error {
    /// The configuration is invalid; the diagnostics were already printed.
    #[error("{count} error(s) in the configuration")]
    Config {
        /// How many errors were reported.
        count: usize,
    },
    /// Reading a local file (a file to show, a saved plan) failed.
    #[error("{action} `{path}`: {cause}")]
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
    WriteFile(#[from] WriteFileError),
    /// A call to one of the APIs failed.
    #[error(transparent)]
    Api(#[from] ApiError),
    /// A `CONVERGE_*_RATE_LIMIT` variable cannot be read.
    #[error(transparent)]
    RateLimit(#[from] RateLimitEnvError),
    /// The HTTP client could not be built.
    #[error(transparent)]
    HttpClient(#[from] HttpClientError),
    /// The sandbox could not start, or could not load or save its state.
    #[error(transparent)]
    Sandbox(#[from] SandboxError),
    /// The network runtime the requests run on could not be built.
    #[error("cannot start the network runtime: {cause}")]
    Runtime {
        /// What the OS said.
        cause: std::io::Error,
    },
    /// An `--only` or `--ignore` pattern that matches no address.
    #[error("{}", unmatched_globs(flag, globs))]
    NoMatch {
        /// The flag, e.g. `--only`.
        flag: String,
        /// Each pattern that matches nothing.
        globs: Vec<UnmatchedGlob>,
    },
    /// The live state could not be read; the diagnostics were already printed.
    #[error("cannot read the live state ({errors} error(s) above); nothing was planned")]
    LiveRead {
        /// How many errors were reported.
        errors: usize,
    },
    /// A failure of one command, told by that command's own error enum, which lives beside it
    /// (e.g. `commands::show::ShowError`) and names its code.
    #[error("{0}")]
    Command(Box<dyn CommandError>),
}

impl Error {
    /// The stable code shown above the message, one for each kind of failure, so that a script
    /// or a reader tells them apart.
    pub(crate) fn code(&self) -> Code {
        match self {
            Error::Config { .. } => Code::ConfigInvalid,
            Error::Io { .. } => Code::IoRead,
            Error::WriteFile(_) => Code::IoWriteFile,
            Error::Api(error) => error.code(),
            Error::RateLimit(_) => Code::EnvRateLimit,
            Error::HttpClient(_) => Code::ApiHttpClient,
            Error::Sandbox(error) => sandbox_code(error),
            Error::Runtime { .. } => Code::IoRuntime,
            Error::NoMatch { .. } => Code::FlagNoMatch,
            Error::LiveRead { .. } => Code::LiveReadFailed,
            Error::Command(error) => CommandError::code(&**error),
        }
    }

    /// The error this one shows as, for its help line and anything else it has to show.
    fn wrapped(&self) -> Option<&dyn Diagnostic> {
        match self {
            Error::WriteFile(error) => Some(error),
            Error::Api(error) => Some(error),
            Error::Sandbox(error) => Some(error),
            Error::Command(error) => Some(&**error),
            Error::Config { .. }
            | Error::Io { .. }
            | Error::RateLimit(_)
            | Error::HttpClient(_)
            | Error::Runtime { .. }
            | Error::NoMatch { .. }
            | Error::LiveRead { .. } => None,
        }
    }
}

/// Shown as the error it wraps, with the error's own code: written by hand because the code is
/// chosen by the variant (and by the wrapped error's kind), which miette's derive cannot do.
impl Diagnostic for Error {
    fn code<'a>(&'a self) -> Option<Box<dyn fmt::Display + 'a>> {
        Some(Box::new(Error::code(self)))
    }

    fn help<'a>(&'a self) -> Option<Box<dyn fmt::Display + 'a>> {
        match self {
            Error::NoMatch { flag, .. } => Some(Box::new(format!(
                "fix the pattern (`*` matches any run of characters, `?` one); `{flag}` must \
                 match at least one address"
            ))),
            other => other.wrapped().and_then(Diagnostic::help),
        }
    }

    fn severity(&self) -> Option<miette::Severity> {
        self.wrapped().and_then(Diagnostic::severity)
    }

    fn url<'a>(&'a self) -> Option<Box<dyn fmt::Display + 'a>> {
        self.wrapped().and_then(Diagnostic::url)
    }

    fn source_code(&self) -> Option<&dyn SourceCode> {
        self.wrapped().and_then(Diagnostic::source_code)
    }

    fn labels(&self) -> Option<Box<dyn Iterator<Item = LabeledSpan> + '_>> {
        self.wrapped().and_then(Diagnostic::labels)
    }

    fn related<'a>(&'a self) -> Option<Box<dyn Iterator<Item = &'a dyn Diagnostic> + 'a>> {
        self.wrapped().and_then(Diagnostic::related)
    }

    fn diagnostic_source(&self) -> Option<&dyn Diagnostic> {
        self.wrapped().and_then(Diagnostic::diagnostic_source)
    }
}

/// The code of a sandbox failure, by what failed.
fn sandbox_code(error: &SandboxError) -> Code {
    match error {
        SandboxError::StateInUse { .. } | SandboxError::ServedStateInUse { .. } => {
            Code::SandboxStateInUse
        }
        SandboxError::StateNotValid { .. } | SandboxError::StateFormat { .. } => {
            Code::SandboxStateNotValid
        }
        SandboxError::Encode(_) | SandboxError::Io { .. } => Code::SandboxStateIo,
        SandboxError::Runtime(_) | SandboxError::Thread(_) | SandboxError::ThreadEnded => {
            Code::SandboxStart
        }
        SandboxError::Listen { .. } => Code::SandboxListen,
    }
}

/// An error enum that belongs to one command: it lives beside the command (the layers keep this
/// module from naming it) and says which code each of its variants shows.
pub(crate) trait CommandError: Diagnostic + Send + Sync + 'static {
    /// The stable code shown above the message.
    fn code(&self) -> Code;
}

impl<E: CommandError> From<E> for Error {
    fn from(error: E) -> Self {
        Error::Command(Box::new(error))
    }
}

fn unmatched_globs(flag: &str, globs: &[UnmatchedGlob]) -> String {
    let lines: Vec<String> = globs
        .iter()
        .map(|UnmatchedGlob { glob, closest }| {
            if closest.is_empty() {
                format!(
                    "`{flag} {glob}` matches nothing: the config and the live state hold no \
                     address"
                )
            } else {
                format!(
                    "`{flag} {glob}` matches no address of the config or the live state; the \
                     closest:\n{}",
                    closest
                        .iter()
                        .map(|a| format!("  {a}"))
                        .collect::<Vec<_>>()
                        .join("\n")
                )
            }
        })
        .collect();
    lines.join("\n")
}

/// The result type of commands.
pub(crate) type Result<T, E = Error> = std::result::Result<T, E>;

#[cfg(test)]
mod tests {
    use std::collections::{BTreeMap, BTreeSet};
    use std::path::PathBuf;

    use super::*;
    use crate::api::clients::RateLimits;
    use crate::api::error::{ApiErrorDetails, FailureKind};
    use crate::api::transport::ApiSetupError;
    use crate::apply::fresh::ReadError;
    use crate::commands::apply::ResyncError;
    use crate::commands::drift::WriteBackError;
    use crate::commands::export::ExportError;
    use crate::commands::flags::FlagError;
    use crate::commands::policy::PolicyError;
    use crate::commands::preview::PreviewError;
    use crate::commands::saved_plan::SavedPlanError;
    use crate::commands::show::ShowError;
    use crate::plan::saved::LoadError;
    use crate::preview::check::QueryCheckError;
    use crate::preview::model::DurationError;

    fn io() -> std::io::Error {
        std::io::Error::other("the disk is gone")
    }

    fn json() -> serde_json::Error {
        serde_json::from_str::<serde_json::Value>("{").unwrap_err()
    }

    fn api(kind: FailureKind) -> ApiError {
        ApiError::from(ApiErrorDetails {
            operation: "list services".into(),
            method: "GET".into(),
            path: "/v1/organizations/o/services".into(),
            kind,
            message: String::new(),
            request_id: None,
            retry_after: None,
            attempts: 1,
        })
    }

    fn path() -> PathBuf {
        PathBuf::from("plan.json")
    }

    /// One error of every kind that ends a command, each under the family it belongs to: a
    /// variant of [`Error`], or the enum of one command.
    fn every_error() -> Vec<(&'static str, Error)> {
        let address = || "stack.prod.alert[x]".to_string();
        let sandbox = |error: SandboxError| ("sandbox", Error::from(error));
        let mut errors = vec![
            ("config", Error::Config { count: 2 }),
            (
                "io",
                Error::Io {
                    action: "cannot read",
                    path: "c.yaml".into(),
                    cause: io(),
                },
            ),
            (
                "write-file",
                Error::from(WriteFileError {
                    path: "out.json".into(),
                    cause: io(),
                }),
            ),
            (
                "rate-limit",
                Error::from(RateLimits::from_lookup(|_| Some("fast".into())).unwrap_err()),
            ),
            ("runtime", Error::Runtime { cause: io() }),
            (
                "no-match",
                Error::NoMatch {
                    flag: "--only".into(),
                    globs: Vec::new(),
                },
            ),
            ("live-read", Error::LiveRead { errors: 1 }),
            sandbox(SandboxError::StateInUse { path: path() }),
            sandbox(SandboxError::ServedStateInUse { path: path() }),
            sandbox(SandboxError::StateNotValid {
                path: path(),
                cause: json(),
            }),
            sandbox(SandboxError::StateFormat {
                path: path(),
                found: "old".into(),
                expected: "new",
            }),
            sandbox(SandboxError::Encode(json())),
            sandbox(SandboxError::Io {
                action: "cannot lock",
                path: "state.json".into(),
                cause: io(),
            }),
            sandbox(SandboxError::Runtime(io())),
            sandbox(SandboxError::Thread(io())),
            sandbox(SandboxError::ThreadEnded),
            sandbox(SandboxError::Listen {
                port: 1,
                cause: io(),
            }),
            (
                "flag",
                Error::from(FlagError::Window {
                    problem: DurationError::Malformed { text: "x".into() },
                }),
            ),
            (
                "flag",
                Error::from(FlagError::End {
                    text: "x".into(),
                    cause: "x".parse::<jiff::Timestamp>().unwrap_err(),
                }),
            ),
            (
                "flag",
                Error::from(FlagError::BeforeEpoch {
                    window: "100y".into(),
                    end: "1971-01-01T00:00:00Z".into(),
                }),
            ),
            (
                "flag",
                Error::from(FlagError::KeyPairs {
                    key_ids: 2,
                    key_secrets: 1,
                }),
            ),
        ];
        for kind in [
            FailureKind::Status(400),
            FailureKind::Status(401),
            FailureKind::Status(403),
            FailureKind::Status(429),
            FailureKind::Status(503),
            FailureKind::Connect,
            FailureKind::Refused,
            FailureKind::Timeout,
            FailureKind::Connection,
            FailureKind::Body(200),
            FailureKind::TooMuch(200),
            FailureKind::Shape(200),
            FailureKind::Stopped,
        ] {
            errors.push(("api", Error::from(api(kind))));
        }
        let show = [
            ShowError::NotJson {
                path: path(),
                cause: json(),
            },
            ShowError::Plan {
                path: path(),
                cause: LoadError::Malformed("no steps".into()),
            },
            ShowError::Report {
                path: path(),
                cause: json(),
            },
            ShowError::OtherFormat {
                path: path(),
                format: "other/1".into(),
            },
            ShowError::NoFormat { path: path() },
        ];
        errors.extend(show.into_iter().map(|e| ("show", Error::from(e))));
        let saved = [
            SavedPlanError::Unreadable {
                path: path(),
                cause: LoadError::Malformed("no steps".into()),
            },
            SavedPlanError::OtherObjects {
                path: path(),
                problems: vec!["a step".into()],
            },
            SavedPlanError::OtherOrganization {
                path: path(),
                planned: "a".into(),
                connected: "b".into(),
                origin: "the sandbox".into(),
            },
            SavedPlanError::ApiNotSetUp {
                path: path(),
                api: "the cloud API",
            },
            SavedPlanError::MissingVariable {
                variable: "CONVERGE_ORG_ID",
            },
            SavedPlanError::UnusableVariable {
                variable: "CONVERGE_API_URL",
                problem: ApiSetupError::Credentials,
            },
            SavedPlanError::CannotConnect { errors: 1 },
            SavedPlanError::Precheck {
                cause: ReadError::NoStack,
            },
            SavedPlanError::Edited {
                disagreements: vec!["a step".into()],
            },
        ];
        errors.extend(saved.into_iter().map(|e| ("saved-plan", Error::from(e))));
        errors.push((
            "resync",
            Error::from(ResyncError {
                address: "pipe.analytics.events".into(),
                reason: "pipe `events` reads from kafka".into(),
            }),
        ));
        let preview = [
            PreviewError::SearchAlert { address: address() },
            PreviewError::AlertTile {
                address: address(),
                tile: "t".into(),
                dashboard: "d".into(),
            },
            PreviewError::ThresholdType {
                address: address(),
                threshold_type: "sideways".into(),
            },
            PreviewError::NoTileWithSeries { address: address() },
            PreviewError::NoSeries { address: address() },
            PreviewError::MarkdownTile { address: address() },
            PreviewError::NoSuchTile {
                address: address(),
                dashboard: "d".into(),
                tiles: Vec::new(),
            },
            PreviewError::UnknownAddress {
                address: address(),
                known: Vec::new(),
            },
            PreviewError::ManagedStack {
                address: address(),
                stack: "prod".into(),
                service: "main".into(),
            },
            PreviewError::NoObservabilityApi {
                stack: "prod".into(),
            },
            PreviewError::Fetch {
                address: address(),
                error: api(FailureKind::Status(500)),
                hint: "run again",
            },
        ];
        errors.extend(preview.into_iter().map(|e| ("preview", Error::from(e))));
        let checks = [
            QueryCheckError::NoObservabilityApi {
                stack: "prod".into(),
            },
            QueryCheckError::Unfinished { address: address() },
            QueryCheckError::Rejected { count: 2 },
            QueryCheckError::NotSetUp {
                why: "stack `prod` lives behind the cloud API, which is not set up".into(),
            },
            QueryCheckError::DashboardsRejected {
                dashboards: 1,
                queries: 2,
            },
        ];
        errors.extend(
            checks
                .into_iter()
                .map(|e| ("check-queries", Error::from(e))),
        );
        let export = [
            ExportError::Nothing,
            ExportError::MissingVariable {
                variable: "CONVERGE_ORG_ID",
                what: "the organization id",
            },
            ExportError::LiveRead {
                problems: vec!["a read".into()],
                hint: None,
            },
            ExportError::Pipes {
                service: "s".into(),
                error: api(FailureKind::Timeout),
                hint: None,
            },
            ExportError::UnknownService { id: "s".into() },
        ];
        errors.extend(export.into_iter().map(|e| ("export", Error::from(e))));
        let write_back = [
            WriteBackError::Unverified {
                reason: "a reason".into(),
            },
            WriteBackError::Write(crate::writeback::files::WriteError::ChangedOnDisk {
                path: "c.yaml".into(),
            }),
            WriteBackError::Write(crate::writeback::files::WriteError::Io {
                path: "c.yaml".into(),
                cause: io(),
            }),
            WriteBackError::Adopt {
                address: "dashboard.prod[\"x\"]".into(),
                reason: "a reason".into(),
            },
        ];
        errors.extend(write_back.into_iter().map(|e| ("drift", Error::from(e))));
        let policy = [
            PolicyError::Denied { count: 1 },
            PolicyError::Invalid { count: 1 },
        ];
        errors.extend(policy.into_iter().map(|e| ("policy", Error::from(e))));
        errors
    }

    /// The codes of the errors that end a command: those declared from `config::invalid` on.
    fn runtime_codes() -> BTreeSet<&'static str> {
        let first = Code::ALL
            .iter()
            .position(|code| *code == Code::ConfigInvalid)
            .unwrap();
        Code::ALL[first..]
            .iter()
            .map(|code| code.as_str())
            .collect()
    }

    #[test]
    fn no_error_maps_to_a_catch_all_code() {
        let mut families: BTreeMap<&str, BTreeSet<&str>> = BTreeMap::new();
        let mut owner: BTreeMap<&str, &str> = BTreeMap::new();
        let runtime = runtime_codes();
        for (family, error) in every_error() {
            let code = error.code().as_str();
            // What miette shows above the message is that code.
            let shown = Diagnostic::code(&error).map(|c| c.to_string());
            assert_eq!(shown.as_deref(), Some(code), "{family}: {error}");
            assert!(
                runtime.contains(code),
                "{family}: {code} is not an error code"
            );
            let first = *owner.entry(code).or_insert(family);
            assert_eq!(first, family, "{code} is shared by {first} and {family}");
            families.entry(family).or_default().insert(code);
        }
        for (family, codes) in &families {
            let kinds = every_error().iter().filter(|(f, _)| f == family).count();
            assert!(
                kinds == 1 || codes.len() > 1,
                "every kind of {family} failure shows one code: {codes:?}"
            );
        }
        // The HTTP client's error is made only by the transport, from a failure of the HTTP
        // library; `Error::code` gives it `api::http-client` by its variant.
        let reached: BTreeSet<&str> = owner.keys().copied().collect();
        let unreached: Vec<&&str> = runtime
            .difference(&reached)
            .filter(|code| **code != Code::ApiHttpClient.as_str())
            .collect();
        assert!(unreached.is_empty(), "codes no error shows: {unreached:?}");
    }
}
