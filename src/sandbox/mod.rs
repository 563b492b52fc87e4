//! The local emulator of both APIs: routes, store, limits, faults, series.
//!
//! One HTTP port serves the cloud management API (`/v1/organizations/{organizationId}/...`, HTTP
//! Basic) and the observability API (`/api/v2/...`, Bearer), with the envelopes, error bodies,
//! limits and awkward behaviours of the real services (`api-facts.md`). Each kind's routes,
//! handlers and validation are one file under `kinds/`, registered in one list there; the
//! server, the store, the limits, faults, seeds and series are shared.
//!
//! # Library API
//!
//! - [`SandboxOptions`]: everything the server is started with. `Default` is the demo
//!   credentials ([`DEMO_ORG`], [`DEMO_KEY_ID`], [`DEMO_KEY_SECRET`], [`DEMO_TOKEN`]), the demo
//!   seed, rate limits on, no faults, no latency, no scaling delay, the real clock.
//! - [`SandboxHandle::spawn`]: runs the server on `127.0.0.1:<port>` (0 = any) on its own thread
//!   and tokio runtime, so sync code (tests, commands) can use it; [`SandboxHandle::url`],
//!   [`SandboxHandle::request_log`], [`SandboxHandle::reset_log`]; the server stops on drop.
//! - `Server::bind` + `Server::run`: the async entry point `converge sandbox serve` uses.
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

mod error;
mod faults;
mod kinds;
mod large_config;
mod model;
mod rate;
mod routes;
mod secrets;
mod seed;
mod series;
mod server;
pub(crate) mod store;
mod validate;

use std::net::SocketAddr;
use std::path::Path;
use std::sync::Arc;

use error::Result;

pub use error::SandboxError;
pub use faults::{Fault, FaultSpec, FaultSpecError};
pub use large_config::{
    LargeConfigChanges, large_config, large_config_changing_alert, large_config_changing_alerts,
    large_config_with_changes, write_large_estate,
};
pub use model::{
    DEMO_KEY_ID, DEMO_KEY_SECRET, DEMO_ORG, DEMO_TOKEN, Generation, KeyPair, LOG_BODY_BUDGET,
    LogEntry, Quirk, SandboxOptions, Seed,
};
pub(crate) use server::{FaultSwitch, Server};

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

    /// Turns the rate limits on or off while the sandbox serves (the windows start afresh):
    /// a bench creates its objects without a limit, then measures under it, with the world
    /// in memory rather than saved to a state file after every write.
    pub fn set_rate_limit(&self, on: bool) {
        self.state.set_rate_limit(on);
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
pub(crate) const IN_PROCESS_STATE: &str = ".converge/sandbox.json";

/// Starts the sandbox the global `--sandbox` flag uses: demo credentials, state in `state_path`
/// (created from the demo seed when missing, saved after every write), the real services' rate
/// limits, on `127.0.0.1` at a free port.
pub fn in_process(state_path: &Path) -> Result<SandboxHandle> {
    in_process_waiting(state_path, true, Generation::Current, || {})
}

/// [`in_process`], enforcing the real services' rate limits only when `rate_limit` is set,
/// answering dashboards and alerts as `generation`'s servers do, and
/// waiting while another process serves the same state file (another `--sandbox` run in the
/// same directory): the world is loaded once it is free, so this run sees the other's writes
/// and neither run's writes are lost. `on_wait` is called first when it must wait.
pub(crate) fn in_process_waiting(
    state_path: &Path,
    rate_limit: bool,
    generation: Generation,
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
            generation,
            ..SandboxOptions::default()
        },
        Some(lock),
    )
}
