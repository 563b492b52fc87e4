//! Reads the live state a config needs, by lists: one request for all services, one per service
//! that declares pipes, one per service that declares backup checks (plus one per backup id in
//! `keep`), and per stack API one each for dashboards, alerts (every page) and sources: stacks
//! on one server (a fan-out of a template, stacks of one managed service) share those reads, so
//! a hundred of them cost what one costs.
//!
//! A run limited by `--only` reads only the lists its addresses need (`read_scoped`).
//!
//! Reads that do not depend on each other run concurrently (the transport bounds them by
//! `--parallelism` and each key's rate limit). Pipes and backups wait for the services list so a
//! service id that does not exist costs no further requests. Every problem found is collected
//! and returned as diagnostics pointing at the config line concerned; none stops the others.

use smol_str::SmolStr;
use std::collections::{BTreeMap, BTreeSet};

use futures_util::StreamExt;
use futures_util::future::{BoxFuture, FutureExt};
use futures_util::stream::FuturesUnordered;

use super::model::{LiveState, ReadScope, StackLive};
use super::progress::ReadProgress;
use crate::address::Address;
use crate::api::clients::{CLOUD_API, Clients, OBSERVABILITY_API};
use crate::api::cloud::CloudClient;
use crate::api::error::{ApiError, FailureKind};
use crate::api::stack::StackApi;
use crate::api::wire::{
    Alert, Backup, Connection, Dashboard, Pipe, PipeScaling, ReversePrivateEndpoint, SavedSearch,
    Service, Source, Webhook,
};
use crate::config::model::{Config, Located, ServiceConfig, SourceRef, StackConfig, StackTarget};
use crate::diagnostic::{Code, Diagnostic, Span};
use crate::output::Printer;

/// Which read a task did.
#[derive(Debug, Clone)]
enum Read {
    Services,
    Pipes { service: String },
    Backups { service: String },
    KeptBackup { service: String, index: usize },
    Dashboards { stack: String },
    Alerts { stack: String },
    Sources { stack: String },
    Webhooks { stack: String },
    Connections { stack: String },
    SavedSearches { stack: String },
    PipeCompute { service: String },
    ReverseEndpoints { service: String },
}

/// What a task read.
enum Payload {
    Services(Vec<Service>),
    Pipes(Vec<Pipe>),
    Backups(Vec<Backup>),
    Backup(Box<Backup>),
    Dashboards(Vec<Dashboard>),
    Alerts(Vec<Alert>),
    Sources(Vec<Source>),
    Webhooks(Vec<Webhook>),
    Connections(Vec<Connection>),
    SavedSearches(Vec<SavedSearch>),
    PipeCompute(PipeScaling),
    ReverseEndpoints(Vec<ReversePrivateEndpoint>),
}

type Outcome = (Read, Result<Payload, ApiError>);

/// The reads under way. They run on the thread that awaits the reading, not on the runtime's
/// workers: what they read then lands in that thread's heap, where the config's freed YAML tree
/// is reused, instead of growing a worker's heap of its own (a third of a large plan's
/// resident memory). Parsing was never parallel in effect: one list body dominates.
type Reads = FuturesUnordered<BoxFuture<'static, Outcome>>;

/// Reads everything `config` manages. On failure, every problem found, sorted by place.
pub async fn read(
    config: &Config,
    clients: &Clients,
    printer: &Printer,
) -> Result<LiveState, Vec<Diagnostic>> {
    read_scoped(config, clients, printer, &ReadScope::All).await
}

/// Reads the lists of `config` that `scope` names, and nothing else (see
/// [`crate::plan::address::read_scope`] for the lists an `--only` selection needs). The live
/// state says which lists it holds, so the planner leaves the others alone.
pub(crate) async fn read_scoped(
    config: &Config,
    clients: &Clients,
    printer: &Printer,
    scope: &ReadScope,
) -> Result<LiveState, Vec<Diagnostic>> {
    let mut reading = Reading::new(config, clients, scope);
    let progress = ReadProgress::start(printer, clients.activity(), &scope_words(config, scope));
    reading.start_services();
    reading.start_stacks();
    let reads = reading.collect(&progress).await;
    progress.finish();
    printer.debug(&format!("read the live state in {reads} reads"));
    reading.finish()
}

/// One read of the live state under way: what is read so far, the problems found, the reads
/// still running.
struct Reading<'a> {
    config: &'a Config,
    clients: &'a Clients,
    scope: &'a ReadScope,
    live: LiveState,
    problems: Vec<Diagnostic>,
    tasks: Reads,
    /// The API each stack is read through; its errors name that API.
    stack_apis: BTreeMap<String, StackApi>,
    /// Services of the config the organization does not have.
    missing_services: Vec<String>,
    /// The stacks whose lists another stack's reads bring (same server), by that stack.
    followers: BTreeMap<String, Vec<String>>,
}

impl<'a> Reading<'a> {
    fn new(config: &'a Config, clients: &'a Clients, scope: &'a ReadScope) -> Self {
        Reading {
            config,
            clients,
            scope,
            live: LiveState {
                scope: scope.clone(),
                ..LiveState::default()
            },
            problems: Vec::new(),
            tasks: Reads::new(),
            stack_apis: BTreeMap::new(),
            missing_services: Vec::new(),
            followers: BTreeMap::new(),
        }
    }

    /// The services list, when the config manages services and the scope reads them.
    fn start_services(&mut self) {
        if self.config.services.is_empty() || !self.scope.reads_services() {
            return;
        }
        match &self.clients.cloud {
            Some(cloud) => {
                let cloud = cloud.clone();
                self.tasks.push(
                    async move {
                        let result = cloud.list_services().await.map(Payload::Services);
                        (Read::Services, result)
                    }
                    .boxed(),
                );
            }
            None => self.problems.push(Diagnostic::error(
                Code::LiveMissingSetting,
                "the config manages services but the cloud API is not set up",
                Some(self.config.organization.span),
            )),
        }
    }

    /// The lists of each stack the scope reads.
    ///
    /// Stacks do not wait for the services list: a managed stack's service id comes from the
    /// config, and a wrong one is reported once, from the list.
    ///
    /// The first stack of each server reads for all of them (its lists are copied to the others
    /// when the reading ends); the webhooks list is read once for a server whose stacks need it.
    fn start_stacks(&mut self) {
        let (config, scope) = (self.config, self.scope);
        let mut leaders: BTreeMap<String, String> = BTreeMap::new();
        let mut webhooks: BTreeSet<String> = BTreeSet::new();
        let mut connections: BTreeSet<String> = BTreeSet::new();
        let mut saved_searches: BTreeSet<String> = BTreeSet::new();
        for (key, stack) in config
            .stacks
            .iter()
            .filter(|(key, _)| scope.reads_stack(key))
        {
            match stack_api(self.clients, config, stack) {
                Ok(api) => {
                    self.live.stacks.insert(key.clone(), StackLive::default());
                    let lists = api.lists_key();
                    let leader = match leaders.get(&lists) {
                        Some(leader) => {
                            let leader = leader.clone();
                            self.followers
                                .entry(leader.clone())
                                .or_default()
                                .push(key.clone());
                            leader
                        }
                        None => {
                            spawn_stack_reads(&mut self.tasks, key, &api);
                            leaders.insert(lists.clone(), key.clone());
                            key.clone()
                        }
                    };
                    if stack.needs_saved_searches() && saved_searches.insert(lists.clone()) {
                        spawn_saved_searches_read(&mut self.tasks, &leader, &api);
                    }
                    if stack.needs_webhooks() && webhooks.insert(lists.clone()) {
                        spawn_webhooks_read(&mut self.tasks, &leader, &api);
                    }
                    // An export (which reads the webhooks too) writes connections by name.
                    let sources = !stack.sources.is_empty() || stack.read_webhooks;
                    if sources && connections.insert(lists) {
                        spawn_connections_read(&mut self.tasks, &leader, &api);
                    }
                    self.stack_apis.insert(key.clone(), api);
                }
                Err(problem) => self.problems.push(*problem),
            }
        }
    }

    /// Waits for every read (those the services list starts included) and records what each
    /// read; returns how many reads were made.
    async fn collect(&mut self, progress: &ReadProgress) -> usize {
        let mut reads = 0usize;
        progress.update(reads, self.tasks.len());
        while let Some((read, result)) = self.tasks.next().await {
            reads += 1;
            progress.update(reads, reads + self.tasks.len());
            self.record(read, result, progress, reads);
        }
        reads
    }

    /// One finished read: its lists go into the live state, its failure into the problems.
    fn record(
        &mut self,
        read: Read,
        result: Result<Payload, ApiError>,
        progress: &ReadProgress,
        reads: usize,
    ) {
        let config = self.config;
        match (read, result) {
            (Read::Services, Ok(Payload::Services(services))) => {
                self.services_listed(services, progress, reads);
            }
            (Read::Pipes { service }, Ok(Payload::Pipes(pipes))) => {
                if let Some(config_service) = config.services.get(&service) {
                    self.live
                        .pipes
                        .insert(config_service.id.value.clone(), kept(pipes));
                }
            }
            (Read::ReverseEndpoints { service }, Ok(Payload::ReverseEndpoints(endpoints))) => {
                if let Some(config_service) = config.services.get(&service) {
                    self.live
                        .reverse_endpoints
                        .insert(config_service.id.value.clone(), endpoints);
                }
            }
            (Read::PipeCompute { service }, Ok(Payload::PipeCompute(compute))) => {
                if let Some(config_service) = config.services.get(&service) {
                    self.live
                        .pipe_compute
                        .insert(config_service.id.value.clone(), compute);
                }
            }
            (Read::Backups { service }, Ok(Payload::Backups(backups))) => {
                if let Some(config_service) = config.services.get(&service) {
                    self.live
                        .backups
                        .insert(config_service.id.value.clone(), backups);
                }
            }
            (Read::KeptBackup { service, index }, result) => {
                self.kept_backup_read(&service, index, result);
            }
            (
                read @ (Read::Dashboards { .. }
                | Read::Alerts { .. }
                | Read::Sources { .. }
                | Read::Webhooks { .. }
                | Read::Connections { .. }
                | Read::SavedSearches { .. }),
                Ok(payload),
            ) => self.stack_listed(read, payload),
            // The observability API's public document names no sources list: a server without
            // one is fine until a series names its source by name.
            (Read::Sources { stack }, Err(error))
                if error.is_not_found()
                    && matches!(self.stack_apis.get(&stack), Some(StackApi::Standalone(_))) =>
            {
                self.no_sources_lists(&stack, &error);
            }
            // Read for an export only: without the list it writes ids, as it always did.
            (read, Err(_)) if for_export_only(config, &read) => {}
            (read, Err(error)) => {
                if let Some(problem) =
                    read_problem(config, self.clients, &read, &error, &self.stack_apis)
                {
                    self.problems.push(problem);
                }
            }
            (read, Ok(_)) => self.problems.push(Diagnostic::error(
                Code::LiveInternal,
                format!("a read of the live state returned the wrong kind of object ({read:?})"),
                None,
            )),
        }
    }

    /// The server of `stack` (and of the stacks sharing its reads) has no sources list: a
    /// problem for each of them that names a source by name.
    fn no_sources_lists(&mut self, stack: &String, error: &ApiError) {
        let sharing = self.followers.get(stack).into_iter().flatten();
        for key in std::iter::once(stack).chain(sharing) {
            if let Some(problem) = self
                .config
                .stacks
                .get(key)
                .and_then(|stack_config| no_sources_list(stack_config, error))
            {
                self.problems.push(problem);
            }
        }
    }

    /// One list of a stack is in.
    fn stack_listed(&mut self, read: Read, payload: Payload) {
        match (read, payload) {
            (Read::Dashboards { stack }, Payload::Dashboards(dashboards)) => {
                self.live.stacks.entry(stack).or_default().dashboards = kept(dashboards);
            }
            (Read::Alerts { stack }, Payload::Alerts(alerts)) => {
                self.live.stacks.entry(stack).or_default().alerts = kept(alerts);
            }
            (Read::Sources { stack }, Payload::Sources(sources)) => {
                self.live.stacks.entry(stack).or_default().sources = sources;
            }
            (Read::Webhooks { stack }, Payload::Webhooks(webhooks)) => {
                self.live.stacks.entry(stack).or_default().webhooks = webhooks;
            }
            (Read::Connections { stack }, Payload::Connections(connections)) => {
                self.live.stacks.entry(stack).or_default().connections = connections;
            }
            (Read::SavedSearches { stack }, Payload::SavedSearches(searches)) => {
                self.live.stacks.entry(stack).or_default().saved_searches = searches;
            }
            (read, _) => self.problems.push(Diagnostic::error(
                Code::LiveInternal,
                format!("a read of the live state returned the wrong kind of object ({read:?})"),
                None,
            )),
        }
    }

    /// The services list is in: the lists of each service the config names are read now, and a
    /// service the organization does not have is a problem.
    fn services_listed(&mut self, services: Vec<Service>, progress: &ReadProgress, reads: usize) {
        let config = self.config;
        self.live.services = services
            .into_iter()
            .map(|service| (service.id.clone(), service))
            .collect();
        for (key, service) in &config.services {
            if self.live.services.contains_key(&service.id.value) {
                if let Some(cloud) = &self.clients.cloud {
                    spawn_service_reads(&mut self.tasks, cloud, key, service, self.scope);
                    progress.update(reads, reads + self.tasks.len());
                }
            } else {
                self.missing_services.push(key.clone());
                self.problems
                    .push(service_not_found(config, key, service, &self.live.services));
            }
        }
    }

    /// A backup `keep` names: found, gone (the check reports that), or a failed read.
    fn kept_backup_read(&mut self, service: &str, index: usize, result: Result<Payload, ApiError>) {
        let Some(config_service) = self.config.services.get(service) else {
            return;
        };
        let Some(kept) = config_service
            .backups
            .as_ref()
            .and_then(|checks| checks.keep.get(index))
        else {
            return;
        };
        let key = (config_service.id.value.clone(), kept.value.clone());
        match result {
            Ok(Payload::Backup(backup)) => {
                self.live.kept_backups.insert(key, Some(*backup));
            }
            Err(error) if error.is_not_found() => {
                self.live.kept_backups.insert(key, None);
            }
            Err(error) => self.problems.push(api_problem(
                &Address::Backups { service }.to_string(),
                &error,
                kept.span,
            )),
            Ok(_) => {}
        }
    }

    /// The live state, or every problem found, sorted by place.
    fn finish(self) -> Result<LiveState, Vec<Diagnostic>> {
        let Reading {
            config,
            mut live,
            mut problems,
            missing_services,
            followers,
            ..
        } = self;
        for (leader, sharing) in &followers {
            if let Some(lists) = live.stacks.get(leader).cloned() {
                for key in sharing {
                    live.stacks.insert(key.clone(), lists.clone());
                }
            }
        }
        // A managed stack of a service that does not exist fails too; its service's error says
        // why.
        problems.retain(|problem| {
            !missing_services.iter().any(|key| {
                config.stacks.values().any(|stack| {
                    matches!(&stack.target, StackTarget::Managed { service } if service.value == *key)
                        && problem.span == Some(stack.key.span)
                })
            })
        });
        problems.extend(missing_pipes(config, &live));

        if problems.is_empty() {
            Ok(live)
        } else {
            problems.sort_by(|a, b| {
                let place = |d: &Diagnostic| d.span.map(|s| (s.file, s.offset));
                place(a)
                    .cmp(&place(b))
                    .then_with(|| a.message.cmp(&b.message))
            });
            // One problem per line and kind: a stack that refuses the credentials refuses all
            // three of its reads.
            problems.dedup_by(|later, first| later.code == first.code && later.span == first.span);
            Err(problems)
        }
    }
}

/// A list read, as the live state keeps it: without the room its reading grew into (a list
/// read item by item, or page by page, doubles its buffer as it goes and ends up to half
/// empty; at a large estate's thousands of alerts that is megabytes held to the end).
fn kept<T>(mut list: Vec<T>) -> Vec<T> {
    list.shrink_to_fit();
    list
}

/// Whether `read` is of a list only an export needs: the webhooks of a stack no alert of
/// which names a webhook, the connections of a stack that declares no source.
fn for_export_only(config: &Config, read: &Read) -> bool {
    match read {
        Read::Webhooks { stack } => config
            .stacks
            .get(stack)
            .is_some_and(|s| !s.names_webhooks()),
        Read::Connections { stack } => config
            .stacks
            .get(stack)
            .is_some_and(|s| s.sources.is_empty()),
        _ => false,
    }
}

/// Starts one read: it makes progress whenever the reading is awaited.
fn start(tasks: &mut Reads, read: impl Future<Output = Outcome> + Send + 'static) {
    tasks.push(read.boxed());
}

fn spawn_stack_reads(tasks: &mut Reads, key: &str, api: &StackApi) {
    let (stack, client) = (key.to_string(), api.clone());
    start(tasks, async move {
        let result = client.list_dashboards().await.map(Payload::Dashboards);
        (Read::Dashboards { stack }, result)
    });
    let (stack, client) = (key.to_string(), api.clone());
    start(tasks, async move {
        let result = client.list_alerts().await.map(Payload::Alerts);
        (Read::Alerts { stack }, result)
    });
    let (stack, client) = (key.to_string(), api.clone());
    start(tasks, async move {
        let result = client.list_sources().await.map(Payload::Sources);
        (Read::Sources { stack }, result)
    });
}

/// The webhooks list: read only for a stack that names a webhook by name, so a config of ids
/// makes the requests it always made.
fn spawn_webhooks_read(tasks: &mut Reads, key: &str, api: &StackApi) {
    let (stack, client) = (key.to_string(), api.clone());
    start(tasks, async move {
        let result = client.list_webhooks().await.map(Payload::Webhooks);
        (Read::Webhooks { stack }, result)
    });
}

/// The connections list: read only for a stack that declares sources (their `connection:`).
fn spawn_connections_read(tasks: &mut Reads, key: &str, api: &StackApi) {
    let (stack, client) = (key.to_string(), api.clone());
    start(tasks, async move {
        let result = client.list_connections().await.map(Payload::Connections);
        (Read::Connections { stack }, result)
    });
}
/// The saved searches list: read only for a stack that declares one or whose alert names one.
fn spawn_saved_searches_read(tasks: &mut Reads, key: &str, api: &StackApi) {
    let (stack, client) = (key.to_string(), api.clone());
    start(tasks, async move {
        let result = client
            .list_saved_searches()
            .await
            .map(Payload::SavedSearches);
        (Read::SavedSearches { stack }, result)
    });
}

fn spawn_service_reads(
    tasks: &mut Reads,
    cloud: &CloudClient,
    key: &str,
    service: &ServiceConfig,
    scope: &ReadScope,
) {
    let id = service.id.value.clone();
    if !service.pipes.is_empty() && scope.reads_pipes(key) {
        let (cloud, id, service) = (cloud.clone(), id.clone(), key.to_string());
        start(tasks, async move {
            let result = cloud.list_pipes(&id).await.map(Payload::Pipes);
            (Read::Pipes { service }, result)
        });
    }
    // Read with the pipes, which name them.
    if !service.reverse_endpoints.is_empty() && scope.reads_pipes(key) {
        let (cloud, id, service) = (cloud.clone(), id.clone(), key.to_string());
        start(tasks, async move {
            let result = cloud
                .list_reverse_endpoints(&id)
                .await
                .map(Payload::ReverseEndpoints);
            (Read::ReverseEndpoints { service }, result)
        });
    }
    if service.pipe_compute.is_some() && scope.reads_pipe_compute(key) {
        let (cloud, id, service) = (cloud.clone(), id.clone(), key.to_string());
        start(tasks, async move {
            let result = cloud.pipe_compute(&id).await.map(Payload::PipeCompute);
            (Read::PipeCompute { service }, result)
        });
    }
    if let Some(checks) = service
        .backups
        .as_ref()
        .filter(|_| scope.reads_backups(key))
    {
        let (client, backup_id, service_key) = (cloud.clone(), id.clone(), key.to_string());
        start(tasks, async move {
            let result = client.list_backups(&backup_id).await.map(Payload::Backups);
            (
                Read::Backups {
                    service: service_key,
                },
                result,
            )
        });
        for (index, kept) in checks.keep.iter().enumerate() {
            let (client, id, service, backup) = (
                cloud.clone(),
                id.clone(),
                key.to_string(),
                kept.value.clone(),
            );
            start(tasks, async move {
                let result = client
                    .get_backup(&id, &backup)
                    .await
                    .map(|backup| Payload::Backup(Box::new(backup)));
                (Read::KeptBackup { service, index }, result)
            });
        }
    }
}

fn service_not_found(
    config: &Config,
    key: &str,
    service: &ServiceConfig,
    live: &BTreeMap<String, Service>,
) -> Diagnostic {
    let mut known: Vec<String> = live
        .values()
        .take(5)
        .map(|s| format!("{} ({})", s.name, s.id))
        .collect();
    if live.len() > 5 {
        known.push(format!("and {} more", live.len() - 5));
    }
    let help = if known.is_empty() {
        "the organization has no services; check `organization:` and the id".to_string()
    } else {
        format!(
            "check the id; the organization's services are: {}",
            known.join(", ")
        )
    };
    Diagnostic::error(
        Code::LiveServiceNotFound,
        format!(
            "service.{key}: no service with id `{}` in organization `{}`",
            service.id.value, config.organization.value
        ),
        Some(service.id.span),
    )
    .with_label("not found")
    .with_help(help)
}

/// Pipes the config names that the service does not have (unless `absent: true`).
fn missing_pipes(config: &Config, live: &LiveState) -> Vec<Diagnostic> {
    let mut problems = Vec::new();
    for (service_key, service) in &config.services {
        let Some(pipes) = live.pipes.get(&service.id.value) else {
            continue;
        };
        for (pipe_key, pipe) in &service.pipes {
            // A pipe found by name is the planner's to judge: it may be one to create.
            let Some(id) = &pipe.id else { continue };
            if pipe.absent || pipes.iter().any(|live| live.id == id.value) {
                continue;
            }
            // Replaced since the config was written: the planner takes the one pipe of its
            // name for it and says the id to write.
            let named = pipe.name.as_ref().map_or(0, |name| {
                pipes.iter().filter(|live| live.name == name.value).count()
            });
            if named == 1 {
                continue;
            }
            problems.push(
                Diagnostic::error(
                    Code::LivePipeNotFound,
                    format!(
                        "pipe.{service_key}.{pipe_key}: service `{service_key}` has no pipe with id `{}`",
                        id.value
                    ),
                    Some(id.span),
                )
                .with_label("not found")
                .with_help("check the id, or write `absent: true` if this pipe must not exist"),
            );
        }
    }
    problems
}

/// `1 service and 2 stacks`, for the plain progress line: those whose lists are read.
fn scope_words(config: &Config, scope: &ReadScope) -> String {
    let count =
        |n: usize, one: &str, many: &str| format!("{n} {}", if n == 1 { one } else { many });
    let services = if scope.reads_services() {
        config.services.len()
    } else {
        0
    };
    let stacks = config
        .stacks
        .keys()
        .filter(|key| scope.reads_stack(key))
        .count();
    match (services, stacks) {
        (services, 0) => count(services, "service", "services"),
        (0, stacks) => count(stacks, "stack", "stacks"),
        (services, stacks) => format!(
            "{} and {}",
            count(services, "service", "services"),
            count(stacks, "stack", "stacks")
        ),
    }
}

/// A read that could not reach its API (nothing listening, no route, a redirect to another
/// host) as a diagnostic at the URL the config gives for that API: the URL is what to check, not
/// the object being read.
fn unreachable(
    config: &Config,
    clients: &Clients,
    read: &Read,
    error: &ApiError,
    stacks: &BTreeMap<String, StackApi>,
) -> Option<Diagnostic> {
    let redirect = error
        .status()
        .is_some_and(|status| (300..400).contains(&status));
    if !matches!(error.kind, FailureKind::Refused | FailureKind::Connect) && !redirect {
        return None;
    }
    let standalone = match read {
        Read::Dashboards { stack }
        | Read::Alerts { stack }
        | Read::Sources { stack }
        | Read::Webhooks { stack }
        | Read::Connections { stack }
        | Read::SavedSearches { stack } => {
            matches!(stacks.get(stack), Some(StackApi::Standalone(_)))
        }
        _ => false,
    };
    let (field, api, base, span) = if standalone {
        (
            "observability.url",
            OBSERVABILITY_API,
            clients.observability.as_ref().map(|c| c.api().base_url()),
            config
                .observability
                .as_ref()
                .and_then(|o| o.url.as_ref())
                .map(|url| url.span),
        )
    } else {
        (
            "cloud.url",
            CLOUD_API,
            clients.cloud.as_ref().map(|c| c.api().base_url()),
            config
                .cloud
                .as_ref()
                .and_then(|c| c.url.as_ref())
                .map(|url| url.span),
        )
    };
    let base = base.unwrap_or("its URL");
    let span = span.unwrap_or(config.organization.span);
    let (message, help) = if redirect {
        (
            format!(
                "{api} at {base} answered with a redirect: {}",
                error.message
            ),
            format!(
                "if the API moved, set `{field}` to its new address; converge sends credentials \
                 only to the host the config names"
            ),
        )
    } else if error.kind == FailureKind::Refused {
        (
            format!("cannot reach {api} at {base}: {}", error.message),
            format!(
                "check that `{field}` names the right host and port, and that the server there \
                 is running (to try converge without an account, use `--sandbox`)"
            ),
        )
    } else {
        (
            format!("cannot reach {api} at {base}: {}", error.message),
            format!("check `{field}` and your network (DNS, proxy, firewall)"),
        )
    };
    Some(
        Diagnostic::error(Code::LiveUnreachable, message, Some(span))
            .with_label(format!("`{field}`"))
            .with_help(help),
    )
}

/// A failed read as a diagnostic at the config line it concerns.
fn read_problem(
    config: &Config,
    clients: &Clients,
    read: &Read,
    error: &ApiError,
    stacks: &BTreeMap<String, StackApi>,
) -> Option<Diagnostic> {
    if let Some(problem) = unreachable(config, clients, read, error, stacks) {
        return Some(problem);
    }
    let key_span = config
        .cloud
        .as_ref()
        .and_then(|cloud| cloud.key_id.as_ref().map(|id| id.span))
        .unwrap_or(config.organization.span);
    match read {
        Read::Services => services_problem(config, error, key_span),
        Read::Pipes { service }
        | Read::Backups { service }
        | Read::PipeCompute { service }
        | Read::ReverseEndpoints { service } => {
            let config_service = config.services.get(service)?;
            let (address, span) = match read {
                Read::Backups { .. } => (
                    Address::Backups { service }.to_string(),
                    config_service
                        .backups
                        .as_ref()
                        .map_or(config_service.id.span, |b| b.span),
                ),
                Read::PipeCompute { .. } => (
                    Address::PipeCompute { service }.to_string(),
                    config_service
                        .pipe_compute
                        .as_ref()
                        .map_or(config_service.id.span, |c| c.span),
                ),
                _ => (format!("service.{service}"), config_service.id.span),
            };
            if error.is_unauthorized() {
                return Some(refused(
                    "the cloud API",
                    &address,
                    error,
                    key_span,
                    "check `cloud.keyId` and the key secret",
                ));
            }
            Some(api_problem(&address, error, span))
        }
        Read::KeptBackup { .. } => None,
        Read::Dashboards { stack }
        | Read::Alerts { stack }
        | Read::Sources { stack }
        | Read::Webhooks { stack }
        | Read::Connections { stack }
        | Read::SavedSearches { stack } => {
            let stack_config = config.stacks.get(stack)?;
            let address = format!("stack.{stack}");
            if error.is_unauthorized() {
                let (api, help) = match stacks.get(stack) {
                    Some(StackApi::Standalone(_)) => (
                        "the observability API",
                        "check the token `observability.token` names",
                    ),
                    _ => (
                        "the cloud API",
                        "check `cloud.keyId` and the key secret; the key needs access to the stack",
                    ),
                };
                return Some(refused(api, &address, error, stack_config.key.span, help));
            }
            Some(api_problem(&address, error, stack_config.key.span))
        }
    }
}

/// A failed read of the services list as a diagnostic: the key refused, the organization not
/// found, or the API's own problem.
fn services_problem(config: &Config, error: &ApiError, key_span: Span) -> Option<Diagnostic> {
    if error.is_unauthorized() {
        return Some(refused(
            "the cloud API",
            "organization",
            error,
            key_span,
            "check `cloud.keyId` and the key secret; the key must belong to this organization",
        ));
    }
    if error.is_not_found() {
        return Some(
            Diagnostic::error(
                Code::LiveOrganizationNotFound,
                format!(
                    "organization `{}` was not found: {error}",
                    config.organization.value
                ),
                Some(config.organization.span),
            )
            .with_help("check `organization:`"),
        );
    }
    Some(api_problem("organization", error, config.organization.span))
}

/// A stack on a server without `/api/v2/sources` whose series name sources by name: one
/// diagnostic for the stack, at its first such name, saying what to write instead.
fn no_sources_list(stack: &StackConfig, error: &ApiError) -> Option<Diagnostic> {
    let names: Vec<&Located<SmolStr>> = stack
        .dashboards
        .values()
        .flat_map(|dashboard| &dashboard.tiles)
        .flat_map(|tile| &tile.series)
        .filter_map(|series| match &series.source {
            Some(SourceRef::Name(name)) => Some(name),
            _ => None,
        })
        .collect();
    let first = names.first()?;
    let mut distinct: Vec<&str> = names.iter().map(|n| n.value.as_str()).collect();
    distinct.sort_unstable();
    distinct.dedup();
    let listed: Vec<String> = distinct.iter().map(|n| format!("`{n}`")).collect();
    Some(
        Diagnostic::error(
            Code::LiveNoSourcesList,
            format!(
                "stack.{}: the observability API has no sources list (`GET /api/v2/sources` answered {}; the API's public document names none), so the source name(s) {} cannot be resolved",
                stack.key.value,
                error.status().unwrap_or(404),
                listed.join(", ")
            ),
            Some(first.span),
        )
        .with_label("a source by name")
        .with_help(format!(
            "name each source by its id: `sourceId: <id>` instead of `source: {}` (the ids are in the stack's own UI)",
            first.value
        )),
    )
}

fn refused(api: &str, address: &str, error: &ApiError, span: Span, help: &str) -> Diagnostic {
    Diagnostic::error(
        Code::LiveUnauthorized,
        format!("{address}: {api} refused the credentials: {error}"),
        Some(span),
    )
    .with_label("read with these credentials")
    .with_help(help)
}

fn api_problem(address: &str, error: &ApiError, span: Span) -> Diagnostic {
    let mut problem = Diagnostic::error(
        Code::LiveApi,
        format!("{address}: cannot read the live state: {error}"),
        Some(span),
    );
    if let Some(hint) = error.hint() {
        problem = problem.with_help(hint);
    }
    problem
}

/// The API of a stack of `config`, or why there is none (pointing at the stack's line).
fn stack_api(
    clients: &Clients,
    config: &Config,
    stack: &StackConfig,
) -> Result<StackApi, Box<Diagnostic>> {
    match &stack.target {
        StackTarget::Managed { service } => {
            let Some(service_config) = config.services.get(&service.value) else {
                return Err(Box::new(Diagnostic::error(
                    Code::LiveUnknownService,
                    format!(
                        "stack.{}: no service `{}` in the config",
                        stack.key.value, service.value
                    ),
                    Some(service.span),
                )));
            };
            let Some(cloud) = &clients.cloud else {
                return Err(Box::new(no_client(stack, "the cloud API", "cloud")));
            };
            Ok(StackApi::Managed {
                cloud: cloud.clone(),
                service_id: service_config.id.value.clone(),
            })
        }
        StackTarget::Observability => match &clients.observability {
            Some(client) => Ok(StackApi::Standalone(client.clone())),
            None => Err(Box::new(no_client(
                stack,
                "the observability API",
                "observability",
            ))),
        },
    }
}

fn no_client(stack: &StackConfig, api: &str, section: &str) -> Diagnostic {
    Diagnostic::error(
        Code::LiveMissingSetting,
        format!(
            "stack.{} lives behind {api}, which the config does not set up",
            stack.key.value
        ),
        Some(stack.key.span),
    )
    .with_help(format!("add the `{section}:` section"))
}
