//! The local emulator of both APIs: routes, store, limits, faults, series.
//!
//! One HTTP port serves the cloud management API (`/v1/organizations/{organizationId}/...`, HTTP
//! Basic) and the observability API (`/api/v2/...`, Bearer), with the envelopes, error bodies,
//! limits and awkward behaviours of the real services (`api-facts.md`).
//!
//! # Library API
//!
//! - [`SandboxOptions`]: everything the server is started with. `Default` is the demo
//!   credentials ([`DEMO_ORG`], [`DEMO_KEY_ID`], [`DEMO_KEY_SECRET`], [`DEMO_TOKEN`]), the demo
//!   seed, rate limits on, no faults, no latency, no scaling delay, the real clock.
//! - [`SandboxHandle::spawn`]: runs the server on `127.0.0.1:<port>` (0 = any) on its own thread
//!   and tokio runtime, so sync code (tests, commands) can use it; [`SandboxHandle::url`],
//!   [`SandboxHandle::request_log`], [`SandboxHandle::reset_log`]; the server stops on drop.
//! - [`Server::bind`] + [`Server::run`]: the async entry point `converge sandbox serve` uses.
//! - [`in_process`]: what the global `--sandbox` flag uses: state in a JSON file (created from the
//!   demo seed when missing, saved atomically after every write), real rate limits.
//!
//! # Control routes (no auth, not logged, not rate limited)
//!
//! - `GET /_sandbox/requests`: JSON array of `{method, route, path, status}` (route is the
//!   template, e.g. `/v1/organizations/{organizationId}/services/{serviceId}/pipes`, path the
//!   concrete one; `status` 0 means the connection was dropped with no answer; a `fault` member
//!   names an injected fault; with [`SandboxOptions::log_bodies`], the bodies both ways).
//! - `POST /_sandbox/reset`: clears the request log.

mod cloud;
mod error;
mod faults;
mod large_config;
mod rate;
mod routes;
mod seed;
mod series;
mod server;
mod stack;
mod store;
mod validate;

use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use serde::{Deserialize, Serialize};

use crate::api::wire::Secret;
use error::Result;

pub use error::SandboxError;
pub use faults::{Fault, FaultSpec, FaultSpecError};
pub use large_config::{
    LargeConfigChanges, large_config, large_config_changing_alert, large_config_with_changes,
};
pub use server::{FaultSwitch, Server};

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
    /// The managed stack answers as the cloud document's newer generation: a tile reads back
    /// with `config` instead of `series`, an alert names its dashboard and team `dashboardId`
    /// and `teamId`.
    NewerGeneration,
    /// The observability API has no `/api/v2/sources` (its document names none): 404.
    NoSources,
    /// Dashboard and alert names are stored with runs of white space collapsed to one space and
    /// none at the ends (`"API  health "` reads back as `"API health"`).
    CollapseSpaces,
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
    /// How long scaling changes and state commands take to become visible.
    pub scaling_delay: Duration,
    /// Wire-format quirks to show.
    pub quirks: Vec<Quirk>,
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
            scaling_delay: Duration::ZERO,
            quirks: Vec::new(),
            clock: None,
            log_bodies: false,
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
}

/// A sandbox running on its own thread; stops when dropped.
pub struct SandboxHandle {
    addr: SocketAddr,
    state: Arc<server::Shared>,
    stop: Option<tokio::sync::oneshot::Sender<()>>,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl std::fmt::Debug for SandboxHandle {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SandboxHandle")
            .field("addr", &self.addr)
            .finish()
    }
}

impl SandboxHandle {
    /// Starts a sandbox on its own thread and tokio runtime and waits until it listens. A
    /// state file another process serves is refused.
    pub fn spawn(options: SandboxOptions) -> Result<SandboxHandle> {
        let lock = match &options.state_file {
            Some(path) => Some(
                store::StateLock::try_take(path)?
                    .ok_or_else(|| SandboxError::StateInUse { path: path.clone() })?,
            ),
            None => None,
        };
        Self::spawn_locked(options, lock)
    }

    /// [`SandboxHandle::spawn`] with the state file's lock already taken.
    fn spawn_locked(
        options: SandboxOptions,
        lock: Option<store::StateLock>,
    ) -> Result<SandboxHandle> {
        let (ready_tx, ready_rx) = std::sync::mpsc::channel();
        let (stop_tx, stop_rx) = tokio::sync::oneshot::channel::<()>();
        let thread = std::thread::Builder::new()
            .name("converge-sandbox".into())
            .spawn(move || {
                let runtime = match tokio::runtime::Builder::new_multi_thread()
                    .worker_threads(2)
                    .enable_all()
                    .build()
                {
                    Ok(runtime) => runtime,
                    Err(error) => {
                        let _ = ready_tx.send(Err(SandboxError::Runtime(error)));
                        return;
                    }
                };
                runtime.block_on(async move {
                    match Server::bind_locked(options, lock).await {
                        Ok(server) => {
                            let _ = ready_tx.send(Ok((server.local_addr(), server.shared())));
                            server
                                .run(async {
                                    let _ = stop_rx.await;
                                })
                                .await;
                        }
                        Err(error) => {
                            let _ = ready_tx.send(Err(error));
                        }
                    }
                });
            })
            .map_err(SandboxError::Thread)?;
        let (addr, state) = ready_rx.recv().map_err(|_| SandboxError::ThreadEnded)??;
        Ok(SandboxHandle {
            addr,
            state,
            stop: Some(stop_tx),
            thread: Some(thread),
        })
    }

    /// Base URL of both APIs, e.g. `http://127.0.0.1:41234`.
    pub fn url(&self) -> String {
        format!("http://{}", self.addr)
    }

    /// The address the server listens on.
    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    /// The environment a `converge` run needs to reach this sandbox with the demo credentials
    /// (`CONVERGE_CLOUD_URL`, `CONVERGE_OBSERVABILITY_URL`, `CONVERGE_ORG_ID`, `CONVERGE_KEY_ID`,
    /// `CONVERGE_KEY_SECRET`, `CONVERGE_OBS_TOKEN`), as the quickstart config reads them.
    pub fn environment(&self) -> Vec<(&'static str, String)> {
        vec![
            ("CONVERGE_CLOUD_URL", self.url()),
            ("CONVERGE_OBSERVABILITY_URL", self.url()),
            ("CONVERGE_ORG_ID", DEMO_ORG.to_string()),
            ("CONVERGE_KEY_ID", DEMO_KEY_ID.to_string()),
            ("CONVERGE_KEY_SECRET", DEMO_KEY_SECRET.to_string()),
            ("CONVERGE_OBS_TOKEN", DEMO_TOKEN.to_string()),
        ]
    }

    /// The requests served so far, oldest first.
    pub fn request_log(&self) -> Vec<LogEntry> {
        self.state.log_snapshot()
    }

    /// Clears the request log.
    pub fn reset_log(&self) {
        self.state.reset_log();
    }

    /// A handle that changes the faults while the sandbox serves.
    pub fn fault_switch(&self) -> FaultSwitch {
        self.state.fault_switch()
    }

    /// Calls `observer` with every request as it is logged, before its answer leaves (at most
    /// one observer): tests act at an exact point of a run this way, not after a sleep.
    pub fn observe(&self, observer: impl Fn(&LogEntry) + Send + Sync + 'static) {
        self.state.observe(observer);
    }
}

impl Drop for SandboxHandle {
    fn drop(&mut self) {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

/// Where `--sandbox` keeps its state, relative to the working directory.
pub const IN_PROCESS_STATE: &str = ".converge/sandbox.json";

/// Starts the sandbox the global `--sandbox` flag uses: demo credentials, state in `state_path`
/// (created from the demo seed when missing, saved after every write), the real services' rate
/// limits, on `127.0.0.1` at a free port.
pub fn in_process(state_path: &Path) -> Result<SandboxHandle> {
    in_process_waiting(state_path, true, || {})
}

/// [`in_process`], enforcing the real services' rate limits only when `rate_limit` is set, and
/// waiting while another process serves the same state file (another `--sandbox` run in the
/// same directory): the world is loaded once it is free, so this run sees the other's writes
/// and neither run's writes are lost. `on_wait` is called first when it must wait.
pub fn in_process_waiting(
    state_path: &Path,
    rate_limit: bool,
    on_wait: impl FnOnce(),
) -> Result<SandboxHandle> {
    if let Some(parent) = state_path.parent()
        && !parent.as_os_str().is_empty()
    {
        std::fs::create_dir_all(parent).map_err(|cause| SandboxError::Io {
            action: "cannot create the sandbox state directory",
            path: parent.display().to_string(),
            cause,
        })?;
    }
    let lock = store::StateLock::take_waiting(state_path, on_wait)?;
    SandboxHandle::spawn_locked(
        SandboxOptions {
            state_file: Some(state_path.to_path_buf()),
            rate_limit,
            ..SandboxOptions::default()
        },
        Some(lock),
    )
}
