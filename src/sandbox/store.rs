//! The sandbox's world: services, pipes, backups, private endpoints and stacks, with the changes
//! still waiting to become visible, and its persistence as one JSON file, which one process
//! at a time may serve ([`StateLock`]).

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use super::error::{Result, SandboxError};
use crate::api::wire::{
    Alert, Backup, Dashboard, Pipe, PipeScaling, PrivateEndpoint, Service, ServiceScalingPatch,
    Source, Webhook,
};

use super::secrets::{fill_secrets, strip_secrets};

/// Format version of the state file.
const STATE_FORMAT: &str = "converge-sandbox/1";

/// Everything the sandbox knows.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct World {
    /// `converge-sandbox/1`.
    #[serde(default)]
    pub format: String,
    pub services: Vec<ServiceRecord>,
    pub pipes: Vec<PipeRecord>,
    pub backups: Vec<Backup>,
    /// Private endpoints registered in the organization.
    pub private_endpoints: Vec<PrivateEndpoint>,
    pub stacks: Vec<Stack>,
    /// The shared compute of each service's database pipes (`.../pipesCdcScaling`), by service
    /// id; a service not listed has the default.
    #[serde(default, skip_serializing_if = "std::collections::BTreeMap::is_empty")]
    pub cdc_scaling: std::collections::BTreeMap<String, PipeScaling>,
    /// Reverse private endpoints of the services' pipes (`.../pipesReversePrivateEndpoints`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub reverse_private_endpoints: Vec<ReverseEndpointRecord>,
    /// Counter behind server-assigned 24-hex ids.
    pub next_id: u64,
}

/// A reverse private endpoint as answered (its `status` aside) and when it is ready.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct ReverseEndpointRecord {
    pub endpoint: serde_json::Value,
    /// Epoch ms from which it reads `Ready` (`Provisioning` before).
    pub ready_at: i64,
}

/// A service and what it is waiting for.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct ServiceRecord {
    pub service: Service,
    /// Paid services may go up to 1068 GB total memory; others up to 360.
    pub paid: bool,
    /// Scaling accepted but not yet visible: (epoch ms when it shows, the change).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pending_scaling: Option<(i64, ServiceScalingPatch)>,
    /// State command accepted: (epoch ms when it completes, final state).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pending_state: Option<(i64, String)>,
}

/// A pipe and its scaling waiting to become visible.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct PipeRecord {
    pub pipe: Pipe,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pending_scaling: Option<(i64, PipeScaling)>,
    /// States still to come, in order: (epoch ms when each shows, the state).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub pending_states: Vec<(i64, String)>,
    /// Deleted, and gone from reads at this epoch ms; until then it reads as stopping.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub gone_at: Option<i64>,
}

/// Which API a stack is reached through.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", tag = "kind")]
pub(crate) enum StackKey {
    /// The managed stack of a service, through the cloud API (`.../stack/...`).
    Managed {
        #[serde(rename = "serviceId")]
        service_id: String,
    },
    /// The standalone observability API (`/api/v2/...`).
    Observability,
}

/// Dashboards, alerts and sources of one stack.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct Stack {
    pub key: StackKey,
    pub dashboards: Vec<Dashboard>,
    pub alerts: Vec<Alert>,
    pub sources: Vec<Source>,
    /// Webhooks (absent from state files written before them).
    #[serde(default)]
    pub webhooks: Vec<StoredWebhook>,
    /// ClickHouse connections the sources name (absent from state files written before them).
    #[serde(default)]
    pub connections: Vec<crate::api::wire::Connection>,
    /// Saved searches (absent from state files written before them).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub saved_searches: Vec<crate::api::wire::SavedSearch>,
}

/// A stored webhook: what a list answers, and fingerprints of the write-only members.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct StoredWebhook {
    /// As answered (the `body` only for `generic`, as the server's schema strips it for the
    /// others).
    pub webhook: Webhook,
    /// A fingerprint of the `headers` written, never the values.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub headers: Option<String>,
    /// A fingerprint of the `queryParams` written.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub query_params: Option<String>,
}

impl World {
    /// A server-assigned id: 24 hex characters from a counter, so runs are reproducible.
    pub(crate) fn new_id(&mut self) -> String {
        self.next_id += 1;
        format!("65f5e4a3{:016x}", self.next_id)
    }

    /// Makes visible every pending change whose time has come.
    pub(crate) fn settle(&mut self, now_ms: i64) {
        for record in &mut self.services {
            if let Some((at, patch)) = record.pending_scaling.take() {
                if at <= now_ms {
                    apply_service_scaling(&mut record.service, &patch);
                } else {
                    record.pending_scaling = Some((at, patch));
                }
            }
            if let Some((at, state)) = record.pending_state.take() {
                if at <= now_ms {
                    record.service.state = Some(state);
                } else {
                    record.pending_state = Some((at, state));
                }
            }
        }
        for record in &mut self.pipes {
            if let Some((at, patch)) = record.pending_scaling.take() {
                if at <= now_ms {
                    apply_pipe_scaling(&mut record.pipe, &patch);
                } else {
                    record.pending_scaling = Some((at, patch));
                }
            }
            let due = record
                .pending_states
                .iter()
                .take_while(|(at, _)| *at <= now_ms)
                .count();
            for (_, state) in record.pending_states.drain(..due) {
                record.pipe.state = Some(state);
            }
        }
        self.pipes
            .retain(|record| record.gone_at.is_none_or(|at| at > now_ms));
    }

    /// Reads a state file; `Ok(None)` when it does not exist.
    pub(crate) fn load(path: &Path) -> Result<Option<World>> {
        let text = match std::fs::read_to_string(path) {
            Ok(text) => text,
            Err(error) if error.kind() == std::io::ErrorKind::NotFound => return Ok(None),
            Err(cause) => {
                return Err(SandboxError::Io {
                    action: "cannot read the sandbox state",
                    path: path.display().to_string(),
                    cause,
                });
            }
        };
        let mut world: World =
            serde_json::from_str(&text).map_err(|cause| SandboxError::StateNotValid {
                path: path.to_path_buf(),
                cause,
            })?;
        if world.format != STATE_FORMAT {
            return Err(SandboxError::StateFormat {
                path: path.to_path_buf(),
                found: world.format,
                expected: STATE_FORMAT,
            });
        }
        // Secrets are never written to disk; they are derived from the pipe ids again.
        for record in &mut world.pipes {
            fill_secrets(&mut record.pipe);
        }
        Ok(Some(world))
    }

    /// Writes the world atomically (temporary file, then rename), without pipe secrets.
    pub(crate) fn save(&self, path: &Path) -> Result<()> {
        let mut copy = self.clone();
        copy.format = STATE_FORMAT.to_string();
        for record in &mut copy.pipes {
            strip_secrets(&mut record.pipe);
        }
        let io = |action: &'static str| {
            move |cause| SandboxError::Io {
                action,
                path: path.display().to_string(),
                cause,
            }
        };
        let text = serde_json::to_string_pretty(&copy).map_err(SandboxError::Encode)?;
        // A temporary name of its own per write: two processes sharing `.converge/sandbox.json`
        // (a plan and a drift run side by side) must not rename each other's half-written file.
        static WRITES: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
        let n = WRITES.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let mut tmp = path.as_os_str().to_owned();
        tmp.push(format!(".{}.{n}.tmp", std::process::id()));
        let tmp = std::path::PathBuf::from(tmp);
        std::fs::write(&tmp, text).map_err(io("cannot write the sandbox state"))?;
        std::fs::rename(&tmp, path).map_err(io("cannot replace the sandbox state"))?;
        Ok(())
    }
}

/// The right to serve a state file, held by one process at a time. Each sandbox keeps the whole
/// world in memory and saves all of it after every write, so two processes serving one file
/// (two `--sandbox` runs in one directory) would each overwrite the other's writes. The lock is
/// an OS file lock on `<state>.lock` (the state file itself is replaced on every save, so it
/// cannot carry the lock); the OS releases it when the process ends, however it ends.
///
/// The holder removes the lock file when it is done, so a stopped sandbox leaves nothing beside
/// its state. It removes it while still holding the lock, and a process that gets the lock
/// checks that the path still names the file it locked (else it was removed under it and
/// another process may hold a new one), and starts again when it does not.
#[derive(Debug)]
pub(crate) struct StateLock {
    file: std::fs::File,
    path: PathBuf,
}

impl Drop for StateLock {
    fn drop(&mut self) {
        // Still locked here: `file` closes after this body, so no one holds a file by this
        // name while it is being removed.
        let _ = std::fs::remove_file(&self.path);
        let _ = &self.file;
    }
}

/// Whether `path` still names the open `file` (a lock file removed and made again names
/// another one).
#[cfg(unix)]
fn names(path: &Path, file: &std::fs::File) -> bool {
    use std::os::unix::fs::MetadataExt as _;
    match (std::fs::metadata(path), file.metadata()) {
        (Ok(on_disk), Ok(open)) => on_disk.dev() == open.dev() && on_disk.ino() == open.ino(),
        _ => false,
    }
}

/// Elsewhere an open file cannot be removed, so the path always names it.
#[cfg(not(unix))]
fn names(_path: &Path, _file: &std::fs::File) -> bool {
    true
}

impl StateLock {
    /// The lock file of a state file.
    pub(crate) fn path_of(state: &Path) -> PathBuf {
        let mut path = state.as_os_str().to_owned();
        path.push(".lock");
        PathBuf::from(path)
    }

    fn open(state: &Path) -> Result<(std::fs::File, PathBuf)> {
        let path = Self::path_of(state);
        let file = std::fs::OpenOptions::new()
            .create(true)
            .truncate(false)
            .write(true)
            .open(&path)
            .map_err(|cause| SandboxError::Io {
                action: "cannot open the sandbox state lock",
                path: path.display().to_string(),
                cause,
            })?;
        Ok((file, path))
    }

    /// Takes the lock of `state`; `Ok(None)` when another process holds it.
    pub(crate) fn try_take(state: &Path) -> Result<Option<StateLock>> {
        loop {
            let (file, path) = Self::open(state)?;
            match file.try_lock() {
                Ok(()) if names(&path, &file) => return Ok(Some(StateLock { file, path })),
                // Removed by the holder that just ended: take the new one.
                Ok(()) => continue,
                Err(std::fs::TryLockError::WouldBlock) => return Ok(None),
                Err(std::fs::TryLockError::Error(cause)) => {
                    return Err(SandboxError::Io {
                        action: "cannot lock the sandbox state",
                        path: path.display().to_string(),
                        cause,
                    });
                }
            }
        }
    }

    /// Takes the lock of `state`, waiting for the process that holds it to end; `on_wait` is
    /// called once first when it must wait.
    pub(crate) fn take_waiting(state: &Path, on_wait: impl FnOnce()) -> Result<StateLock> {
        if let Some(lock) = Self::try_take(state)? {
            return Ok(lock);
        }
        on_wait();
        loop {
            let (file, path) = Self::open(state)?;
            file.lock().map_err(|cause| SandboxError::Io {
                action: "cannot lock the sandbox state",
                path: path.display().to_string(),
                cause,
            })?;
            if names(&path, &file) {
                return Ok(StateLock { file, path });
            }
        }
    }
}

/// Applies accepted service scaling members.
pub(crate) fn apply_service_scaling(service: &mut Service, patch: &ServiceScalingPatch) {
    if let Some(v) = patch.min_total_memory_gb {
        service.min_total_memory_gb = Some(v);
    }
    if let Some(v) = patch.max_total_memory_gb {
        service.max_total_memory_gb = Some(v);
    }
    if let Some(v) = patch.num_replicas {
        service.num_replicas = Some(v);
    }
    if let Some(v) = patch.idle_scaling {
        service.idle_scaling = Some(v);
    }
    if let Some(v) = patch.idle_timeout_minutes {
        service.idle_timeout_minutes = Some(v);
    }
    apply_replica_scaling(service, patch);
}

/// Applies the `replicaScaling` members: per-replica memory, and the mode with its replica
/// members (a band shows only in horizontal mode; an equal band in vertical mode is a count).
fn apply_replica_scaling(service: &mut Service, patch: &ServiceScalingPatch) {
    if let Some(v) = patch.min_replica_memory_gb {
        service.min_replica_memory_gb = Some(v);
    }
    if let Some(v) = patch.max_replica_memory_gb {
        service.max_replica_memory_gb = Some(v);
    }
    if let Some(mode) = &patch.autoscaling_mode {
        service.autoscaling_mode = Some(mode.clone());
    }
    if let (Some(min), Some(max)) = (patch.min_replicas, patch.max_replicas) {
        service.min_replicas = Some(min);
        service.max_replicas = Some(max);
    }
    if service.autoscaling_mode.as_deref() == Some("horizontal") {
        return;
    }
    if let (Some(min), None) = (service.min_replicas, patch.num_replicas) {
        // Back to vertical (or an equal band): the band's minimum is the fixed count.
        service.num_replicas = Some(min);
    }
    service.min_replicas = None;
    service.max_replicas = None;
}

/// Applies accepted pipe scaling members (null members leave the value alone).
pub(crate) fn apply_pipe_scaling(pipe: &mut Pipe, patch: &PipeScaling) {
    let scaling = pipe.scaling.get_or_insert_with(PipeScaling::default);
    if let Some(v) = patch.replicas {
        scaling.replicas = Some(v);
    }
    if let Some(v) = patch.concurrency {
        scaling.concurrency = Some(v);
    }
    if let Some(v) = patch.replica_cpu_millicores {
        scaling.replica_cpu_millicores = Some(v);
    }
    if let Some(v) = patch.replica_memory_gb {
        scaling.replica_memory_gb = Some(v);
    }
}

/// The state of an alert that has not fired, as each API names it: the managed stack lists
/// `ALERT`, `OK`, `INSUFFICIENT_DATA`, `DISABLED`, `PENDING` (the cloud document's enum); the
/// observability API's document shows `inactive`.
pub(crate) fn quiet_state(key: &StackKey) -> &'static str {
    match key {
        StackKey::Managed { .. } => "OK",
        StackKey::Observability => "inactive",
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sandbox::model::Seed;
    use crate::sandbox::seed;

    #[test]
    fn concurrent_saves_never_leave_a_torn_state_file() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("sandbox.json");
        let world = seed::world(Seed::Demo, "2026-01-01T12:00:00Z".parse().unwrap());
        std::thread::scope(|scope| {
            for _ in 0..4 {
                scope.spawn(|| {
                    for _ in 0..25 {
                        world.save(&path).unwrap();
                        assert!(World::load(&path).unwrap().is_some());
                    }
                });
            }
        });
        let left: Vec<_> = std::fs::read_dir(dir.path()).unwrap().collect();
        assert_eq!(left.len(), 1, "no temporary file is left behind");
    }
}
