//! What a live read holds: the live state, and which of a config's lists a read covers.

use std::collections::{BTreeMap, BTreeSet};

use crate::api::wire::{
    Alert, Backup, Dashboard, Pipe, PipeScaling, ReversePrivateEndpoint, SavedSearch, Service,
    Source, Webhook,
};

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
    /// Which of the config's lists were read: a run limited by `--only` reads only those its
    /// addresses need, and the planner leaves the others alone.
    pub scope: ReadScope,
    /// The shared compute of the database pipes of each service that declares `pipeCompute`
    /// (`GET /services/{id}/pipesCdcScaling`), by service id.
    pub pipe_compute: BTreeMap<String, PipeScaling>,
    /// The reverse private endpoints of each service that declares some
    /// (`GET /services/{id}/pipesReversePrivateEndpoints`, read with its pipes), by service id.
    pub reverse_endpoints: BTreeMap<String, Vec<ReversePrivateEndpoint>>,
}

/// Which of a config's lists a read covers.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub enum ReadScope {
    /// Every list the config needs.
    #[default]
    All,
    /// Only these.
    Only(Lists),
}

/// Lists to read, named by config keys. Reading a service's pipes or backups needs the
/// services list too (the service must exist); `Lists::pipes_of` and `Lists::backups_of`
/// add it.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Lists {
    /// The services list (`GET /services`): services' scaling and private endpoints.
    pub services: bool,
    /// Services (by key) whose pipes list is read.
    pub pipes: BTreeSet<String>,
    /// Services (by key) whose backups (and kept backups) are read.
    pub backups: BTreeSet<String>,
    /// Stacks (by key) whose dashboards, alerts and sources are read.
    pub stacks: BTreeSet<String>,
    /// Services (by key) whose database-pipe compute is read.
    pub pipe_compute: BTreeSet<String>,
}

impl Lists {
    /// Adds the services list.
    pub(crate) fn services(&mut self) {
        self.services = true;
    }

    /// Adds one service's pipes (and the services list).
    pub(crate) fn pipes_of(&mut self, service: &str) {
        self.services = true;
        self.pipes.insert(service.to_string());
    }

    /// Adds one service's backups (and the services list).
    pub(crate) fn backups_of(&mut self, service: &str) {
        self.services = true;
        self.backups.insert(service.to_string());
    }

    /// Adds one stack's three lists.
    pub(crate) fn stack(&mut self, stack: &str) {
        self.stacks.insert(stack.to_string());
    }
    /// Adds one service's database-pipe compute (and the services list).
    pub(crate) fn pipe_compute_of(&mut self, service: &str) {
        self.services = true;
        self.pipe_compute.insert(service.to_string());
    }
}

impl ReadScope {
    /// Whether the services list is read.
    pub(crate) fn reads_services(&self) -> bool {
        match self {
            ReadScope::All => true,
            ReadScope::Only(lists) => lists.services,
        }
    }

    /// Whether the pipes of service `key` are read.
    pub(crate) fn reads_pipes(&self, key: &str) -> bool {
        match self {
            ReadScope::All => true,
            ReadScope::Only(lists) => lists.pipes.contains(key),
        }
    }

    /// Whether the backups of service `key` are read.
    pub(crate) fn reads_backups(&self, key: &str) -> bool {
        match self {
            ReadScope::All => true,
            ReadScope::Only(lists) => lists.backups.contains(key),
        }
    }

    /// Whether the lists of stack `key` are read.
    pub(crate) fn reads_stack(&self, key: &str) -> bool {
        match self {
            ReadScope::All => true,
            ReadScope::Only(lists) => lists.stacks.contains(key),
        }
    }
    /// Whether the database-pipe compute of service `key` is read.
    pub(crate) fn reads_pipe_compute(&self, key: &str) -> bool {
        match self {
            ReadScope::All => true,
            ReadScope::Only(lists) => lists.pipe_compute.contains(key),
        }
    }
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
    /// Webhooks (used to resolve `webhook:` names to ids), read when the stack's config names
    /// one by name.
    pub webhooks: Vec<Webhook>,
    /// ClickHouse connections (a declared source's `connection:` names one), read when the
    /// stack declares sources.
    pub connections: Vec<crate::api::wire::Connection>,
    /// Saved searches, read when the stack declares one or an alert names one.
    pub saved_searches: Vec<SavedSearch>,
}
