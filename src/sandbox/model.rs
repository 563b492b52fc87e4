//! What the sandbox is started with (credentials, seed, faults, quirks) and what its request
//! log holds.

use std::path::PathBuf;
use std::time::Duration;

use serde::{Deserialize, Serialize};

use super::faults::FaultSpec;
use crate::api::wire::Secret;

/// Organization of the demo world.
pub const DEMO_ORG: &str = "7d3f6a2e-0c1b-4e5f-9a8b-1c2d3e4f5a6b";
/// Key id of the demo credentials.
pub const DEMO_KEY_ID: &str = "sandbox-key";
/// Key secret of the demo credentials (a well-known value, not a real secret).
pub const DEMO_KEY_SECRET: &str = "sandbox-secret";
/// Bearer token of the demo credentials.
pub const DEMO_TOKEN: &str = "sandbox-token";

/// A cloud API key pair (HTTP Basic user and password).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KeyPair {
    /// Key id.
    pub id: String,
    /// Key secret.
    pub secret: Secret,
}

/// The world the sandbox starts with when it has no state file (or the file does not exist yet).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, clap::ValueEnum)]
pub enum Seed {
    /// The objects `examples/quickstart.yaml` names, with scaling different from it.
    #[default]
    Demo,
    /// A big organization for benchmarks: 20 services, 100 pipes, 40 private endpoints, 2 stacks
    /// with 300 dashboards and 1,000 alerts.
    Large,
    /// No services or pipes; an observability API with no dashboards, alerts or sources.
    Empty,
}

/// Departures from the tidy wire format that real servers show.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Quirk {
    /// Pipe CPU and memory read back as quantity strings (`"500m"`, `"2Gi"`).
    QuantityStrings,
    /// Chart series values sent as numeric strings (`"12"`).
    NumberStrings,
    /// While a pipe scaling change is in flight (`--scaling-delay`), its members read as null.
    ScalingGaps,
    /// Today's generation of dashboards and alerts, which the sandbox answers by default: an
    /// alias of `--generation current`, kept so that scripts written before the default
    /// changed keep working.
    NewerGeneration,
    /// The observability API has no `/api/v2/sources` (its document names none): 404.
    NoSources,
    /// Dashboard and alert names are stored with runs of white space collapsed to one space and
    /// none at the ends (`"API  health "` reads back as `"API health"`).
    CollapseSpaces,
    /// A pipe created or started ends `Failed` instead of running, as one whose source cannot
    /// be reached does.
    PipesFail,
    /// A postgres pipe's table-mapping edit answers 400 and changes nothing, as one naming a
    /// table the source database does not have.
    PipeEditsRefused,
    /// A service goes `idle` as soon as one of its pipes is deleted, as one whose idle timeout
    /// runs out between a replacement's delete and its create.
    IdleAfterPipeDelete,
    /// A service goes `idle` as soon as one of its pipes is sent `stop`, as one whose idle
    /// timeout runs out while a pipe is paused for an edit.
    IdleAfterPipeStop,
    /// A reverse private endpoint ends `Failed` instead of `Ready`, as one whose endpoint
    /// service rejects the connection.
    ReverseEndpointsFail,
}

/// Which generation of the dashboard and alert APIs the sandbox answers as.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, clap::ValueEnum)]
pub enum Generation {
    /// Today's servers (the observability API since 2.18, the managed stack): tiles read back
    /// with `config`, alerts with `dashboardId`, `teamId` and upper-case states, a missing
    /// dashboard answers plain-text `Not Found`, ids that are not 24-hex ObjectIds answer 400,
    /// and deleting an alert that is gone answers 404.
    #[default]
    #[value(alias = "today")]
    Current,
    /// The API contract's generation (`observability-api.openapi.json`): tiles read back with
    /// `series`, alerts with `dashboard` and `team`, errors as JSON, any id accepted.
    Contract,
}

/// Everything the sandbox is started with.
#[derive(Debug, Clone)]
pub struct SandboxOptions {
    /// The one organization the cloud API serves.
    pub organization: String,
    /// Accepted cloud API key pairs.
    pub keys: Vec<KeyPair>,
    /// Accepted observability bearer tokens.
    pub tokens: Vec<Secret>,
    /// Initial world when there is no state file.
    pub seed: Seed,
    /// Where the world is persisted (atomically, after every write); `None` keeps it in memory.
    pub state_file: Option<PathBuf>,
    /// Port to listen on (0 = any free port).
    pub port: u16,
    /// Latency added to every API request.
    pub latency: Duration,
    /// Share of requests answered with each fault.
    pub faults: FaultSpec,
    /// Seed of the fault decisions: the same seed and request sequence give the same faults.
    pub fault_seed: u64,
    /// Enforce the real services' rate limits.
    pub rate_limit: bool,
    /// The rate limits' windows divided by this (1, the default, keeps the real ones): the
    /// same requests per window, in a shorter window, so a test or bench sees many windows
    /// go by without waiting minutes (a client pacing to match says so in
    /// `CONVERGE_*_RATE_LIMIT`). 0 counts as 1.
    pub rate_window_divisor: u32,
    /// How long scaling changes and state commands take to become visible.
    pub scaling_delay: Duration,
    /// Wire-format quirks to show.
    pub quirks: Vec<Quirk>,
    /// The generation of dashboards and alerts answered (`newer-generation` among the quirks
    /// is [`Generation::Current`] whatever this says).
    pub generation: Generation,
    /// A fixed "now" (backup ages, timestamps); `None` uses the real clock.
    pub clock: Option<jiff::Timestamp>,
    /// Keep the request and response bodies in the request log, for conformance checks. At
    /// most [`LOG_BODY_BUDGET`] bytes of bodies are kept in all; later entries say theirs were
    /// left out.
    pub log_bodies: bool,
}

/// Most bytes of bodies the request log keeps when [`SandboxOptions::log_bodies`] is on.
pub const LOG_BODY_BUDGET: usize = 64 * 1024 * 1024;

impl Default for SandboxOptions {
    fn default() -> Self {
        SandboxOptions {
            organization: DEMO_ORG.to_string(),
            keys: vec![KeyPair {
                id: DEMO_KEY_ID.to_string(),
                secret: Secret(DEMO_KEY_SECRET.to_string()),
            }],
            tokens: vec![Secret(DEMO_TOKEN.to_string())],
            seed: Seed::Demo,
            state_file: None,
            port: 0,
            latency: Duration::ZERO,
            faults: FaultSpec::default(),
            fault_seed: 0,
            rate_limit: true,
            rate_window_divisor: 1,
            scaling_delay: Duration::ZERO,
            quirks: Vec::new(),
            generation: Generation::default(),
            clock: None,
            log_bodies: false,
        }
    }
}

impl SandboxOptions {
    /// The generation answered, with the `newer-generation` quirk as its alias.
    pub fn effective_generation(&self) -> Generation {
        if self.quirks.contains(&Quirk::NewerGeneration) {
            Generation::Current
        } else {
            self.generation
        }
    }
}

/// One entry of the request log.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct LogEntry {
    /// HTTP method.
    pub method: String,
    /// Route template (or the raw path when no route matched).
    pub route: String,
    /// Status answered; 0 when the connection was dropped with no answer.
    pub status: u16,
    /// The injected fault, if any (`429`, `500`, `503`, `reset`, `lost`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fault: Option<String>,
    /// How many series a charts/series request carried (its `series` array's length).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub series: Option<usize>,
    /// The concrete path (ids filled in), without the query.
    #[serde(default)]
    pub path: String,
    /// The query string, if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub query: Option<String>,
    /// The request body as received ([`SandboxOptions::log_bodies`]; only bodies that were read).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub request_body: Option<String>,
    /// The response body as sent ([`SandboxOptions::log_bodies`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub response_body: Option<String>,
    /// The response's `Content-Type` ([`SandboxOptions::log_bodies`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub response_type: Option<String>,
    /// Whether bodies were left out because the log had used its [`LOG_BODY_BUDGET`].
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub bodies_left_out: bool,
    /// From the request's arrival to its logging, when its answer is about to leave (not
    /// saved): a bench dates a list read from when the server received it.
    #[serde(skip)]
    pub took: std::time::Duration,
    /// When the request arrived (not saved): tests read the log's timing against the scaled
    /// windows from it (how many requests of a key each window held, which went first).
    #[serde(skip)]
    pub arrived: Option<std::time::Instant>,
}
