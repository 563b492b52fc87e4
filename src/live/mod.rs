//! The live state a config needs, read with the fewest requests (by lists, never object by
//! object where a list exists).

use std::collections::BTreeMap;

pub mod progress;
pub mod reader;

use crate::api::wire::{Alert, Backup, Dashboard, Pipe, Service, Source};

/// Everything read from the APIs for one plan. Keys are server ids unless said otherwise, so
/// iteration order (and therefore output) is deterministic.
#[derive(Debug, Clone, Default)]
pub struct LiveState {
    /// All services of the organization (`GET /services`), by service id.
    pub services: BTreeMap<String, Service>,
    /// Pipes of each service that declares pipes (`GET /services/{id}/pipes`), by service id.
    pub pipes: BTreeMap<String, Vec<Pipe>>,
    /// Backups of each service that declares backup checks, newest first, by service id.
    pub backups: BTreeMap<String, Vec<Backup>>,
    /// Backups named in `keep`, read one by one: (service id, backup id) → the backup, or
    /// `None` when the server answered 404.
    pub kept_backups: BTreeMap<(String, String), Option<Backup>>,
    /// Each stack of the config, by stack key.
    pub stacks: BTreeMap<String, StackLive>,
}

/// The live objects of one stack.
#[derive(Debug, Clone, Default)]
pub struct StackLive {
    /// All dashboards.
    pub dashboards: Vec<Dashboard>,
    /// All alerts (every page).
    pub alerts: Vec<Alert>,
    /// Data sources (used to resolve `source:` names to ids).
    pub sources: Vec<Source>,
}
