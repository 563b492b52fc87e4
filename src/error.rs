//! The one error type commands return, a variant for each kind of failure with what the user
//! must know as fields; how it is rendered lives in `output`. It wraps the typed errors of the
//! modules below it (`api`, `sandbox`, `output`, `plan`, `apply`), which never import it.

use std::path::PathBuf;

use miette::Diagnostic;

use crate::api::clients::RateLimitEnvError;
use crate::api::error::ApiError;
use crate::api::transport::{ApiSetupError, HttpClientError};
use crate::apply::fresh::ReadError;
use crate::apply::report;
use crate::output::WriteFileError;
use crate::plan::saved::{self, LoadError};
use crate::sandbox::SandboxError;

/// An error that ends a command with exit code 1.
#[derive(Debug, thiserror::Error, Diagnostic)]
pub(crate) enum Error {
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
    /// The network runtime the requests run on could not be built.
    #[error("cannot start the network runtime: {cause}")]
    #[diagnostic(code(converge::error))]
    Runtime {
        /// What the OS said.
        cause: std::io::Error,
    },
    /// A command-line value that clap accepted but the command cannot use.
    #[error(transparent)]
    #[diagnostic(transparent)]
    Flag(#[from] FlagError),
    /// An `--only` or `--ignore` pattern that matches no address.
    #[error("{}", unmatched_globs(flag, globs))]
    #[diagnostic(
        code(converge::error),
        help(
            "fix the pattern (`*` matches any run of characters, `?` one); `{flag}` must match at \
             least one address"
        )
    )]
    NoMatch {
        /// The flag, e.g. `--only`.
        flag: String,
        /// Each pattern that matches nothing.
        globs: Vec<UnmatchedGlob>,
    },
    /// The live state could not be read; the diagnostics were already printed.
    #[error("cannot read the live state ({errors} error(s) above); nothing was planned")]
    #[diagnostic(code(converge::error))]
    LiveRead {
        /// How many errors were reported.
        errors: usize,
    },
    /// `converge show FILE` was given something it cannot show.
    #[error(transparent)]
    #[diagnostic(transparent)]
    Show(#[from] ShowError),
    /// `converge apply --plan FILE` refused the plan or cannot connect to apply it.
    #[error(transparent)]
    #[diagnostic(transparent)]
    SavedPlan(#[from] SavedPlanError),
    /// `converge preview ADDRESS` cannot draw what the address names.
    #[error(transparent)]
    #[diagnostic(transparent)]
    Preview(#[from] PreviewError),
    /// `converge plan --check-queries` could not check, or the API rejected tile queries.
    #[error(transparent)]
    #[diagnostic(transparent)]
    QueryCheck(#[from] QueryCheckError),
    /// `converge export` has nothing to export or cannot read it.
    #[error(transparent)]
    #[diagnostic(transparent)]
    Export(#[from] ExportError),
}

/// A pattern of `--only` or `--ignore` that matches no address, with the closest addresses.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct UnmatchedGlob {
    /// The pattern as given.
    pub glob: String,
    /// The closest addresses of the config and the live state, closest first; empty when there
    /// is no address at all.
    pub closest: Vec<String>,
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

/// A command-line value clap accepted that the command cannot use.
#[derive(Debug, thiserror::Error, Diagnostic)]
#[diagnostic(code(converge::error))]
pub(crate) enum FlagError {
    /// `preview --window` is not a duration.
    #[error("--window {problem}")]
    #[diagnostic(help("for example `--window 24h`"))]
    Window {
        /// Why: part of the message, not a `source`, so that it is said once.
        problem: DurationError,
    },
    /// `preview --end` is not a time.
    #[error("--end `{text}` is not a time: {cause}")]
    #[diagnostic(help("use RFC 3339 with a zone, e.g. `2026-11-21T06:00:00Z`"))]
    End {
        /// The value as given.
        text: String,
        /// What the time parser said.
        cause: jiff::Error,
    },
    /// `preview --window` reaches back before the epoch the API counts from.
    #[error("--window `{window}` ending at {end} would start before 1970-01-01")]
    #[diagnostic(help("use a shorter --window or a later --end"))]
    BeforeEpoch {
        /// The window as given.
        window: String,
        /// The end of the window, as an ISO time.
        end: String,
    },
    /// `sandbox serve` was given key ids and key secrets that do not pair up.
    #[error("{key_ids} `--key-id` but {key_secrets} `--key-secret`")]
    #[diagnostic(help("give one `--key-secret` after each `--key-id`"))]
    KeyPairs {
        /// How many `--key-id`.
        key_ids: usize,
        /// How many `--key-secret`.
        key_secrets: usize,
    },
}

/// Why a text is not a duration as `preview` reads them (`--window`, an alert's interval):
/// digits and one of `s`, `m`, `h`, `d`, `w`. The text is quoted without its blanks.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub(crate) enum DurationError {
    /// Not a number followed by a unit.
    #[error("`{text}` is not a duration such as 15m, 24h or 7d")]
    Malformed {
        /// The text.
        text: String,
    },
    /// No unit, or one that is not `s`, `m`, `h`, `d` or `w`.
    #[error("`{text}`: the unit must be s, m, h, d or w")]
    Unit {
        /// The text.
        text: String,
    },
    /// Zero, negative, or more milliseconds than the clock counts.
    #[error("`{text}` must be a positive duration")]
    NotPositive {
        /// The text.
        text: String,
    },
}

/// Why `converge show FILE` cannot show the file.
#[derive(Debug, thiserror::Error, Diagnostic)]
#[diagnostic(code(converge::error))]
pub(crate) enum ShowError {
    /// The file is not JSON.
    #[error("`{}` is not JSON: {cause}", crate::output::path_text(path))]
    #[diagnostic(help("{}", show_reads()))]
    NotJson {
        /// The file.
        path: PathBuf,
        /// What the JSON reader said.
        cause: serde_json::Error,
    },
    /// The file says it is a saved plan but cannot be read as one.
    #[error("`{}`: {cause}", crate::output::path_text(path))]
    Plan {
        /// The file.
        path: PathBuf,
        /// Why the saved plan cannot be read.
        cause: LoadError,
    },
    /// The file says it is an apply report but lacks what a report has.
    #[error(
        "`{}` is not a complete `{}`: {cause}",
        crate::output::path_text(path),
        report::FORMAT
    )]
    Report {
        /// The file.
        path: PathBuf,
        /// What the JSON reader said.
        cause: serde_json::Error,
    },
    /// The file is a JSON document of another format.
    #[error("`{}` is a `{format}` document", crate::output::path_text(path))]
    #[diagnostic(help("{}", show_reads()))]
    OtherFormat {
        /// The file.
        path: PathBuf,
        /// The format it declares.
        format: String,
    },
    /// The file is JSON without a `format` field.
    #[error("`{}` has no `format` field", crate::output::path_text(path))]
    #[diagnostic(help("{}", show_reads()))]
    NoFormat {
        /// The file.
        path: PathBuf,
    },
}

/// What `converge show` reads, for the `help:` line of a file it cannot show.
fn show_reads() -> String {
    format!(
        "`converge show` reads saved plans (`{}`, from `converge plan --out FILE`) and apply \
         reports (`{}`, from `converge apply --format json`)",
        saved::FORMAT,
        report::FORMAT
    )
}

/// Why `converge apply --plan FILE` refused a saved plan, or cannot connect to apply it.
#[derive(Debug, thiserror::Error, Diagnostic)]
#[diagnostic(code(converge::error))]
pub(crate) enum SavedPlanError {
    /// The file cannot be read as a saved plan.
    #[error("`{}`: {cause}", crate::output::path_text(path))]
    #[diagnostic(help("save a plan with `converge plan PATH... --out FILE`"))]
    Unreadable {
        /// The file.
        path: PathBuf,
        /// Why it cannot be read.
        cause: LoadError,
    },
    /// With a config given, the plan's steps write to objects the config does not name.
    #[error(
        "`{}` writes to other objects than the config names; nothing was written:\n{}",
        crate::output::path_text(path),
        listed(problems)
    )]
    #[diagnostic(help("apply it with the config it was made from, or plan again"))]
    OtherObjects {
        /// The file.
        path: PathBuf,
        /// One line per step that does not fit the config.
        problems: Vec<String>,
    },
    /// The run connects to another organization than the plan was made for.
    #[error(
        "`{}` was made for organization {planned}, but this run connects to organization \
         {connected} (from {origin}); nothing was written",
        crate::output::path_text(path)
    )]
    #[diagnostic(help(
        "apply it with the config or environment of the organization it was made for"
    ))]
    OtherOrganization {
        /// The file.
        path: PathBuf,
        /// The organization the plan was made for.
        planned: String,
        /// The organization this run connects to.
        connected: String,
        /// Where this run's organization comes from: the sandbox, the config, a variable.
        origin: String,
    },
    /// The plan writes to an API the run has no settings for.
    #[error(
        "`{}` writes to {api}, which the config given does not set up; nothing was written",
        crate::output::path_text(path)
    )]
    ApiNotSetUp {
        /// The file.
        path: PathBuf,
        /// Which API, e.g. "the cloud API".
        api: &'static str,
    },
    /// With no config given, a `CONVERGE_*` variable the plan's APIs need is not set.
    #[error("applying a saved plan needs `{variable}`, which is not set")]
    #[diagnostic(help(
        "export {variable}, or give the config after the plan file: `converge apply --plan FILE \
         PATH...`"
    ))]
    MissingVariable {
        /// The variable.
        variable: &'static str,
    },
    /// A `CONVERGE_*_URL` variable that cannot be used to make a client.
    #[error("`{variable}` cannot be used: {problem}")]
    UnusableVariable {
        /// The variable.
        variable: &'static str,
        /// Why.
        problem: ApiSetupError,
    },
    /// The config given cannot be connected with; the diagnostics were already printed.
    #[error("cannot connect with the config given ({errors} error(s) above); nothing was written")]
    CannotConnect {
        /// How many errors were reported.
        errors: usize,
    },
    /// The reads that check the plan against the live state failed.
    #[error("cannot read the live state to check the saved plan: {cause}")]
    Precheck {
        /// The read that failed.
        cause: ReadError,
    },
    /// The steps write other than the changes show, as only the live state can tell.
    #[error(
        "the saved plan's steps are not what its changes show (was the file edited?); nothing \
         was written:\n{}",
        listed(disagreements)
    )]
    #[diagnostic(help("run `converge plan --out FILE` again and review the new plan"))]
    Edited {
        /// One line per disagreement.
        disagreements: Vec<String>,
    },
}

/// Problems as a list under a message, one `  - ` line each.
fn listed(problems: &[String]) -> String {
    problems
        .iter()
        .map(|problem| format!("  - {problem}"))
        .collect::<Vec<_>>()
        .join("\n")
}

/// Why `converge preview ADDRESS` cannot draw what the address names.
#[derive(Debug, thiserror::Error, Diagnostic)]
#[diagnostic(code(converge::error))]
pub(crate) enum PreviewError {
    /// An alert on a search, not on a tile.
    #[error("{address} watches a search, not a tile; preview draws tile series only")]
    SearchAlert {
        /// The alert's address.
        address: String,
    },
    /// An alert whose tile the config does not have.
    #[error("{address}: no tile \"{tile}\" on dashboard `{dashboard}` in the config")]
    #[diagnostic(help("run `converge validate` to see the alert's problems"))]
    AlertTile {
        /// The alert's address.
        address: String,
        /// The tile it names.
        tile: String,
        /// The dashboard it names.
        dashboard: String,
    },
    /// An alert whose `thresholdType` is neither `above` nor `below`.
    #[error("{address}: thresholdType `{threshold_type}` is neither above nor below")]
    ThresholdType {
        /// The alert's address.
        address: String,
        /// Its `thresholdType`.
        threshold_type: String,
    },
    /// A dashboard none of whose tiles has series.
    #[error("{address} has no tile with series")]
    NoTileWithSeries {
        /// The dashboard's address.
        address: String,
    },
    /// A tile with no series.
    #[error("{address} has no series to draw")]
    NoSeries {
        /// The tile's address.
        address: String,
    },
    /// A markdown tile.
    #[error("{address} is a markdown tile: it shows text and has no series to draw")]
    MarkdownTile {
        /// The tile's address.
        address: String,
    },
    /// A tile address with a name its dashboard does not have.
    #[error("`{address}`: the dashboard has no such tile in the config")]
    #[diagnostic(help("tiles of {dashboard}: {}", tiles.join(", ")))]
    NoSuchTile {
        /// The address as given.
        address: String,
        /// The dashboard's address.
        dashboard: String,
        /// The dashboard's tiles, as `tile[NAME]`.
        tiles: Vec<String>,
    },
    /// An address that names nothing of the config.
    #[error("`{address}` is not an alert, dashboard or tile of the config")]
    #[diagnostic(help("{}", known_addresses(known)))]
    UnknownAddress {
        /// The address as given.
        address: String,
        /// The alert and dashboard addresses of the config, sorted.
        known: Vec<String>,
    },
    /// A tile of a managed stack, whose API has no charts/series endpoint.
    #[error(
        "{address}: stack `{stack}` is the managed stack of service `{service}`, which has no \
         charts/series endpoint: there is no data to preview there"
    )]
    #[diagnostic(help(
        "preview and `plan --check-queries` work on stacks with `api: observability`"
    ))]
    ManagedStack {
        /// The tile's address.
        address: String,
        /// The stack's key.
        stack: String,
        /// The service the stack belongs to.
        service: String,
    },
    /// A stack of the observability API when the config sets that API up not.
    #[error("stack.{stack}: the config sets up no observability API")]
    NoObservabilityApi {
        /// The stack's key.
        stack: String,
    },
    /// The series query failed.
    #[error("{address}: {error}")]
    Fetch {
        /// The tile's address.
        address: String,
        /// The failed call.
        error: ApiError,
        /// What to do about it, for the `help:` line.
        #[help]
        hint: &'static str,
    },
}

fn known_addresses(known: &[String]) -> String {
    if known.is_empty() {
        "the config declares no alerts or dashboards".to_string()
    } else {
        format!("addresses in the config: {}", known.join(", "))
    }
}

/// Why `converge plan --check-queries` failed.
#[derive(Debug, thiserror::Error, Diagnostic)]
#[diagnostic(code(converge::error))]
pub(crate) enum QueryCheckError {
    /// A stack of the observability API when the config sets that API up not.
    #[error("stack.{stack}: cannot check queries: the config sets up no observability API")]
    NoObservabilityApi {
        /// The stack's key.
        stack: String,
    },
    /// A tile's check did not finish (its task ended without an answer).
    #[error("{address}: the query check did not finish; run it again")]
    Unfinished {
        /// The tile's address.
        address: String,
    },
    /// The API rejected tile queries; the diagnostics were already printed.
    #[error(
        "{count} tile quer{} rejected",
        if *count == 1 { "y was" } else { "ies were" }
    )]
    #[diagnostic(help(
        "fix the series at the lines above, then run `converge plan --check-queries` again"
    ))]
    Rejected {
        /// How many tile queries.
        count: usize,
    },
}

/// Why `converge export` cannot export.
#[derive(Debug, thiserror::Error, Diagnostic)]
#[diagnostic(code(converge::error))]
pub(crate) enum ExportError {
    /// No `--service`, `--stack` or `--observability`.
    #[error("export needs something to export")]
    #[diagnostic(help("name at least one --service ID, --stack SERVICE_ID or --observability"))]
    Nothing,
    /// A `CONVERGE_*` variable it needs is not set (and no `--sandbox`).
    #[error("export needs `{variable}` ({what}) and it is not set")]
    #[diagnostic(help("export {variable}=..., or add --sandbox to export the local sandbox"))]
    MissingVariable {
        /// The variable.
        variable: &'static str,
        /// What it holds, e.g. "the organization id".
        what: &'static str,
    },
    /// The live state could not be read.
    #[error("export could not read the live state: {}", problems.join("; "))]
    LiveRead {
        /// What each failed read says.
        problems: Vec<String>,
        /// The first help the failures carry.
        #[help]
        hint: Option<String>,
    },
    /// A service's pipes could not be listed.
    #[error("export could not list the pipes of service {service}: {error}")]
    Pipes {
        /// The service id.
        service: String,
        /// The failed call.
        error: ApiError,
        /// What to do about it, for the `help:` line.
        #[help]
        hint: Option<&'static str>,
    },
    /// A `--service` or `--stack` id the organization does not have.
    #[error("service {id} does not exist in the organization")]
    #[diagnostic(help("check the id in the cloud console (`GET /services` lists them)"))]
    UnknownService {
        /// The id as given.
        id: String,
    },
}

/// The result type of commands.
pub(crate) type Result<T, E = Error> = std::result::Result<T, E>;
