//! Fresh reads for the checks made right before each write. Reads are by list (one per scope:
//! the services list, one service's pipes, one stack's dashboards or alerts) and shared: a list
//! read after every dependency of a step finished is good enough for that step, so steps of one
//! level share one read per scope instead of one GET per object.
//!
//! "After every dependency finished" is tracked with an epoch counter: each finished step bumps
//! it, a step needs a read that started at or after the epoch its last dependency finished at.

use std::collections::BTreeMap;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use tokio::sync::Mutex;

use crate::api::clients::Clients;
use crate::api::cloud::CloudClient;
use crate::api::error::ApiError;
use crate::api::observability::ObservabilityClient;
use crate::api::stack::StackApi;
use crate::api::wire::{Alert, Dashboard, Pipe, Service};
use crate::live::{LiveState, StackLive};
use crate::plan::{Operation, StackRef, StackTarget};

/// What one list read covers.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub enum Scope {
    /// `GET /services`.
    Services,
    /// `GET /services/{id}/pipes`.
    Pipes(String),
    /// A stack's dashboards, by stack key.
    Dashboards(String),
    /// A stack's alerts, by stack key.
    Alerts(String),
}

/// One list, as read.
#[derive(Debug, Clone)]
pub enum Data {
    /// Services.
    Services(Vec<Service>),
    /// Pipes of one service.
    Pipes(Vec<Pipe>),
    /// Dashboards of one stack.
    Dashboards(Vec<Dashboard>),
    /// Alerts of one stack.
    Alerts(Vec<Alert>),
}

/// Rounds of transport attempts for one read or idempotent write.
pub const ROUNDS: usize = 3;

type Slot = Arc<Mutex<Option<(u64, Arc<Data>)>>>;

/// The shared cache of list reads.
#[derive(Debug)]
pub struct Fresh {
    clients: Clients,
    epoch: AtomicU64,
    slots: std::sync::Mutex<BTreeMap<Scope, Slot>>,
}

/// The scope a step's object lives in, and the stack when it is a stack object.
pub fn scope_of(operation: &Operation) -> (Scope, Option<&StackRef>) {
    match operation {
        Operation::ServiceScaling { .. }
        | Operation::PrivateEndpointCreate { .. }
        | Operation::PrivateEndpointDetach { .. } => (Scope::Services, None),
        Operation::PipeScaling { service_id, .. } | Operation::PipeDelete { service_id, .. } => {
            (Scope::Pipes(service_id.clone()), None)
        }
        Operation::DashboardCreate { stack, .. }
        | Operation::DashboardUpdate { stack, .. }
        | Operation::DashboardDelete { stack, .. } => {
            (Scope::Dashboards(stack.key.clone()), Some(stack))
        }
        Operation::AlertCreate { stack, .. }
        | Operation::AlertUpdate { stack, .. }
        | Operation::AlertDelete { stack, .. } => (Scope::Alerts(stack.key.clone()), Some(stack)),
    }
}

/// The API of a stack the plan names.
pub fn stack_api(clients: &Clients, stack: &StackRef) -> Result<StackApi, String> {
    match &stack.target {
        StackTarget::Managed { service_id } => match &clients.cloud {
            Some(cloud) => Ok(StackApi::Managed {
                cloud: cloud.clone(),
                service_id: service_id.clone(),
            }),
            None => Err(format!(
                "stack `{}` lives behind the cloud API, which is not set up",
                stack.key
            )),
        },
        StackTarget::Observability => match &clients.observability {
            Some(client) => Ok(StackApi::Standalone(client.clone())),
            None => Err(format!(
                "stack `{}` lives behind the observability API, which is not set up",
                stack.key
            )),
        },
    }
}

/// Why a read could not be made.
#[derive(Debug, Clone)]
pub enum ReadError {
    /// The API answered with an error.
    Api(ApiError),
    /// No client for the API.
    Setup(String),
}

impl std::fmt::Display for ReadError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ReadError::Api(error) => write!(f, "{error}"),
            ReadError::Setup(problem) => write!(f, "{problem}"),
        }
    }
}

impl Fresh {
    /// An empty cache reading through `clients`.
    pub fn new(clients: Clients) -> Self {
        Fresh {
            clients,
            epoch: AtomicU64::new(0),
            slots: std::sync::Mutex::new(BTreeMap::new()),
        }
    }

    /// The same cache, whose clients stop sending writes once `stop` turns `true`
    /// ([`crate::api::transport::Api::stop_writes_on`]); reads go on.
    pub fn stop_writes_on(mut self, stop: tokio::sync::watch::Receiver<bool>) -> Fresh {
        let clients = &self.clients;
        self.clients = Clients {
            cloud: clients.cloud.as_ref().map(|cloud| {
                CloudClient::new(
                    cloud.api().stop_writes_on(stop.clone()),
                    cloud.organization(),
                )
            }),
            observability: clients
                .observability
                .as_ref()
                .map(|client| ObservabilityClient::new(client.api().stop_writes_on(stop.clone()))),
        };
        self
    }

    /// The clients reads go through.
    pub fn clients(&self) -> &Clients {
        &self.clients
    }

    /// Marks one more step as finished; returns the new epoch.
    pub fn bump(&self) -> u64 {
        self.epoch.fetch_add(1, Ordering::SeqCst) + 1
    }

    /// The current epoch.
    pub fn epoch(&self) -> u64 {
        self.epoch.load(Ordering::SeqCst)
    }

    fn slot(&self, scope: &Scope) -> Slot {
        let mut slots = match self.slots.lock() {
            Ok(slots) => slots,
            Err(poisoned) => poisoned.into_inner(),
        };
        slots.entry(scope.clone()).or_default().clone()
    }

    /// The list of `scope`, read at or after epoch `since`; `force` reads it again regardless
    /// (after an ambiguous write).
    pub async fn get(
        &self,
        scope: &Scope,
        stack: Option<&StackRef>,
        since: u64,
        force: bool,
    ) -> Result<Arc<Data>, ReadError> {
        let slot = self.slot(scope);
        let mut guard = slot.lock().await;
        if !force
            && let Some((read_at, data)) = guard.as_ref()
            && *read_at >= since
        {
            return Ok(data.clone());
        }
        let read_at = self.epoch();
        // The transport already retried each read; a list read is safe to repeat, so a run of
        // bad luck on a flaky network costs another round rather than the step.
        let mut round = 1;
        let data = loop {
            match self.read(scope, stack).await {
                Ok(data) => break Arc::new(data),
                Err(ReadError::Api(error)) if error.is_retryable() && round < ROUNDS => round += 1,
                Err(error) => return Err(error),
            }
        };
        *guard = Some((read_at, data.clone()));
        Ok(data)
    }

    async fn read(&self, scope: &Scope, stack: Option<&StackRef>) -> Result<Data, ReadError> {
        let cloud = || {
            self.clients
                .cloud
                .as_ref()
                .ok_or_else(|| ReadError::Setup("the cloud API is not set up".to_string()))
        };
        let stack_api = || match stack {
            Some(stack) => stack_api(&self.clients, stack).map_err(ReadError::Setup),
            None => Err(ReadError::Setup("no stack given for a stack read".into())),
        };
        Ok(match scope {
            Scope::Services => {
                Data::Services(cloud()?.list_services().await.map_err(ReadError::Api)?)
            }
            Scope::Pipes(service) => {
                Data::Pipes(cloud()?.list_pipes(service).await.map_err(ReadError::Api)?)
            }
            Scope::Dashboards(_) => Data::Dashboards(
                stack_api()?
                    .list_dashboards()
                    .await
                    .map_err(ReadError::Api)?,
            ),
            Scope::Alerts(_) => {
                Data::Alerts(stack_api()?.list_alerts().await.map_err(ReadError::Api)?)
            }
        })
    }
}

/// A live state holding only one list, enough for [`crate::plan::fingerprint::current`] of a
/// step in that scope.
pub fn live_of(scope: &Scope, data: &Data) -> LiveState {
    let mut live = LiveState::default();
    match (scope, data) {
        (Scope::Services, Data::Services(services)) => {
            live.services = services.iter().map(|s| (s.id.clone(), s.clone())).collect();
        }
        (Scope::Pipes(service), Data::Pipes(pipes)) => {
            live.pipes.insert(service.clone(), pipes.clone());
        }
        (Scope::Dashboards(key), Data::Dashboards(dashboards)) => {
            live.stacks.insert(
                key.clone(),
                StackLive {
                    dashboards: dashboards.clone(),
                    ..StackLive::default()
                },
            );
        }
        (Scope::Alerts(key), Data::Alerts(alerts)) => {
            live.stacks.insert(
                key.clone(),
                StackLive {
                    alerts: alerts.clone(),
                    ..StackLive::default()
                },
            );
        }
        _ => {}
    }
    live
}
