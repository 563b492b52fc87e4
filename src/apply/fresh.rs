//! Fresh reads for the check made right before each write (DESIGN section 6): before a step
//! writes, it compares the plan's fingerprint with the object as read by a list read that is
//!
//! - at most **one rate window old** when the write leaves, on a rate-limited API (10 s on the
//!   cloud API, a minute on the observability API), however many steps run at once (a read
//!   that itself took longer than a window counts from its answer);
//! - never one made before the run (the plan's own reads, the saved-plan check before any
//!   write), nor, for a step that waits for other steps, one that began before it started
//!   (their writes change what it must see);
//! - on an API with no rate limit, one that began after the step started (a read there costs
//!   only its time).
//!
//! An edit someone makes while an apply runs is therefore caught as stale as long as it lands
//! more than a window before the write of its object. (An edit landing between the read and
//! the write cannot be seen by any client of an API without conditional writes.)
//!
//! # What it costs
//!
//! Reads are of lists (one request per scope: the services list, one service's pipes, one
//! stack's dashboards or alerts; alerts may take more pages past 1,000), never one GET per
//! object, and each is shared by every step that writes within its window: under R requests per
//! window, N changes cost about N + N/(R - 1) requests (50 dashboard updates on the cloud key:
//! about 56; 200 on the observability token: about 203).
//!
//! The reads after a write are shared too: the steps of one service polling their pipes at
//! once share a read, and the check of a create its dependents wait for (for another run's
//! copy) waits for the creates then coming on its server ([`Fresh::after_creates`]), so the
//! creates running together share one read instead of one each.
//!
//! # How the bound is kept
//!
//! Per API, one step at a time holds a [`Turn`]: it waits until the API's rate limit has a slot
//! free, checks against the newest read if that is young enough (else reads, which takes the
//! slot, and waits for the next), and sends its write, which takes the slot; the turn passes on
//! as soon as it has. No other step's read or write can take the slot in between, so the read's
//! age when the write leaves is its age at the check. Writes still overlap on the wire.
//!
//! Other reads ([`Fresh::get`]: re-checks after an ambiguous create, the look for copies other
//! runs made) keep the stricter rule: a [`Ticket`] from one counter is handed out when the check
//! starts; a read records the newest ticket handed out when it began and serves a ticket no
//! newer than that. Per scope, at most one read is in flight; a read that would only wait for
//! a rate-limit slot waits before it begins, so checks starting meanwhile share it.

use std::collections::BTreeMap;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use tokio::sync::{Mutex, MutexGuard};
use tokio::time::Instant;

use crate::api::clients::{CLOUD_API, Clients, OBSERVABILITY_API};
use crate::api::cloud::CloudClient;
use crate::api::error::ApiError;
use crate::api::observability::ObservabilityClient;
use crate::api::stack::{StackApi, lists_key};
use crate::api::transport::{Api, RateBucket};
use crate::api::wire::{Pipe, PipeScaling, ReversePrivateEndpoint, Service};
use crate::live::{LiveState, StackLive};
use crate::plan::target::List;
use crate::plan::{Operation, StackRef, StackTarget};

/// What one list read covers: a list (`plan::target::List`), by service id and stack key.
pub(crate) type Scope = List<String, String>;

/// One list, as read.
#[derive(Debug, Clone)]
pub(crate) enum Data {
    /// Services.
    Services(Vec<Service>),
    /// Pipes of one service.
    Pipes(Vec<Pipe>),
    /// The compute shared by one service's database pipes.
    PipeCompute(PipeScaling),
    /// One list of a stack (its dashboards, alerts or webhooks), as the stack's live state
    /// holding only that list: a new list of a stack is one arm of [`Fresh`]'s read.
    Stack(StackLive),
    /// Reverse private endpoints of one service.
    ReverseEndpoints(Vec<ReversePrivateEndpoint>),
}

impl Data {
    /// The stack's live state holding the list read, for a list of a stack.
    pub(crate) fn stack(&self) -> Option<&StackLive> {
        match self {
            Data::Stack(part) => Some(part),
            Data::Services(_)
            | Data::Pipes(_)
            | Data::PipeCompute(_)
            | Data::ReverseEndpoints(_) => None,
        }
    }
}

/// Rounds of transport attempts for one read or idempotent write.
pub(crate) const ROUNDS: usize = 3;

/// A point in the run: handed out when a step starts (or a check must see the server as it is
/// from now on). A read serves a ticket when it began after the ticket was handed out.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) struct Ticket(u64);

impl Ticket {
    /// Before every read of the run: a step that waits for no other step may be checked
    /// against any read the run made (within the age bound), never one made before the run.
    pub(crate) const RUN_START: Ticket = Ticket(0);
}

/// What the check right before a write may be made against.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Need {
    /// The step's start: a read that began after it always serves.
    pub started: Ticket,
    /// No read that began before this serves, however young: the step's start when it waits
    /// for other steps (their writes change what it must see), else [`Ticket::RUN_START`].
    pub after: Ticket,
}

/// One read of a scope: the newest ticket handed out when it began, when it began and was
/// answered, the list.
#[derive(Debug)]
struct Read {
    began: Ticket,
    at: Instant,
    answered: Instant,
    data: Arc<Data>,
    /// The list as a live state of each stack checked against it (stacks on one server share
    /// the read), made once for every check: a check holds its API's turn, so a copy of the
    /// whole list per write would slow every write after it.
    live: std::sync::Mutex<BTreeMap<Scope, Arc<LiveState>>>,
}

impl Read {
    /// The list as the live state of `scope` (the stack a check is for).
    fn live_for(&self, scope: &Scope) -> Arc<LiveState> {
        let mut made = locked(&self.live);
        made.entry(scope.clone())
            .or_insert_with(|| Arc::new(live_of(scope, &self.data)))
            .clone()
    }
}

/// The value behind `mutex`, also when a thread panicked holding it (what it guards stays
/// whole: every change to it is one insert or remove).
fn locked<T>(mutex: &std::sync::Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    match mutex.lock() {
        Ok(guard) => guard,
        Err(poisoned) => poisoned.into_inner(),
    }
}

/// The slot a scope's reads share: a stack's lists are its server's, so stacks on one server
/// (a template's fan-out, the stacks of one managed service) share one read of each list.
fn shared(scope: &Scope, stack: Option<&StackRef>) -> Scope {
    let server = || {
        stack.map_or_else(String::new, |stack| match &stack.target {
            StackTarget::Managed { service_id } => lists_key(Some(service_id)),
            StackTarget::Observability => lists_key(None),
        })
    };
    scope.clone().map(|service| service, |_| server())
}

/// The newest read of one scope.
type Slot = Arc<Mutex<Option<Read>>>;

/// The shared cache of list reads.
#[derive(Debug)]
pub(crate) struct Fresh {
    clients: Clients,
    clock: AtomicU64,
    slots: std::sync::Mutex<BTreeMap<Scope, Slot>>,
    /// One per API: the step holding it checks its object and then sends its write, which
    /// takes the rate-limit slot the check waited for (see [`Turn`]).
    cloud_turns: Mutex<()>,
    observability_turns: Mutex<()>,
    /// Turns `true` when the run is interrupted: a step waiting for its turn or its slot
    /// stops waiting, since its write will not be sent.
    stop: Option<tokio::sync::watch::Receiver<bool>>,
    /// The creates coming (their steps running, their answers not yet in), by the slot of
    /// their list (see [`Fresh::after_creates`]).
    creates: std::sync::Mutex<BTreeMap<Scope, std::collections::BTreeSet<u64>>>,
    /// The last create's number.
    create_count: AtomicU64,
    /// Bumped whenever a coming create ends.
    answered: tokio::sync::watch::Sender<u64>,
}

/// A create coming, from its step's start until dropped (its answer came, it failed, or the
/// step ended before sending it).
pub(crate) struct Creating<'a> {
    fresh: &'a Fresh,
    slot: Scope,
    number: u64,
}

impl Drop for Creating<'_> {
    fn drop(&mut self) {
        let mut creates = locked(&self.fresh.creates);
        if let Some(numbers) = creates.get_mut(&self.slot) {
            numbers.remove(&self.number);
        }
        drop(creates);
        self.fresh.answered.send_modify(|count| *count += 1);
    }
}

/// A step's turn to check and write on a rate-limited API: held from before the check until
/// its write takes the slot the check waited for, so no other step's check or write takes it
/// in between and the read behind the write is as young as the check found it.
#[derive(Debug)]
pub(crate) struct Turn<'a> {
    _held: MutexGuard<'a, ()>,
    api: &'a Api,
}

impl Turn<'_> {
    /// Runs `write`, giving the turn up as soon as it has taken a rate-limit slot (or ended).
    pub(crate) async fn write<F: Future>(self, write: F) -> F::Output {
        let Turn { _held: held, api } = self;
        let bucket = api.bucket();
        let taken = bucket.taken();
        let mut write = std::pin::pin!(write);
        tokio::select! {
            biased;
            output = &mut write => return output,
            () = bucket.taken_beyond(taken) => drop(held),
        }
        write.await
    }
}

/// The scope a step's object lives in, and the stack when it is a stack object.
pub(crate) fn scope_of(operation: &Operation) -> (Scope, Option<&StackRef>) {
    let target = operation.target();
    let scope = target
        .list()
        .map(str::to_string, |stack: &StackRef| stack.key.clone());
    (scope, target.stack())
}

/// The API a read or write needs has no client in this run.
#[derive(Debug, Clone, thiserror::Error)]
pub(crate) enum NotSetUp {
    /// The cloud API, for services and pipes.
    #[error("{api} is not set up")]
    Api {
        /// Which API, e.g. "the cloud API".
        api: &'static str,
    },
    /// The API a stack lives behind.
    #[error("stack `{stack}` lives behind {api}, which is not set up")]
    Stack {
        /// The stack's key.
        stack: String,
        /// Which API.
        api: &'static str,
    },
}

/// The API of a stack the plan names.
pub(crate) fn stack_api(clients: &Clients, stack: &StackRef) -> Result<StackApi, NotSetUp> {
    let not_set_up = |api| NotSetUp::Stack {
        stack: stack.key.clone(),
        api,
    };
    match &stack.target {
        StackTarget::Managed { service_id } => match &clients.cloud {
            Some(cloud) => Ok(StackApi::Managed {
                cloud: cloud.clone(),
                service_id: service_id.clone(),
            }),
            None => Err(not_set_up(CLOUD_API)),
        },
        StackTarget::Observability => match &clients.observability {
            Some(client) => Ok(StackApi::Standalone(client.clone())),
            None => Err(not_set_up(OBSERVABILITY_API)),
        },
    }
}

/// Why a read could not be made.
#[derive(Debug, Clone, thiserror::Error)]
pub(crate) enum ReadError {
    /// The API answered with an error.
    #[error("{0}")]
    Api(ApiError),
    /// No client for the API.
    #[error("{0}")]
    Setup(NotSetUp),
    /// A stack's list was asked for without the stack.
    #[error("no stack given for a stack read")]
    NoStack,
    /// The run was interrupted while the check waited for its turn or its rate-limit slot.
    #[error("the run was interrupted")]
    Stopped,
}

impl Fresh {
    /// An empty cache reading through `clients`.
    pub(crate) fn new(clients: Clients) -> Self {
        Fresh {
            clients,
            clock: AtomicU64::new(0),
            slots: std::sync::Mutex::new(BTreeMap::new()),
            cloud_turns: Mutex::new(()),
            observability_turns: Mutex::new(()),
            stop: None,
            creates: std::sync::Mutex::new(BTreeMap::new()),
            create_count: AtomicU64::new(0),
            answered: tokio::sync::watch::Sender::new(0),
        }
    }

    /// Marks a create of an object of `scope` coming until the guard returned drops.
    pub(crate) fn creating(&self, scope: &Scope, stack: Option<&StackRef>) -> Creating<'_> {
        let number = self.create_count.fetch_add(1, Ordering::SeqCst) + 1;
        let slot = shared(scope, stack);
        let mut creates = locked(&self.creates);
        creates.entry(slot.clone()).or_default().insert(number);
        Creating {
            fresh: self,
            slot,
            number,
        }
    }

    /// The list of `scope` for the check of a create that answered when `ticket` was handed
    /// out, by a read that began once every create of that list (on any stack of its server)
    /// coming at the call had ended too: the creates of steps running together share one read
    /// for their checks, instead of one read each. Only running steps' creates are waited
    /// for, and a create's own step drops its mark before its check, so none waits on itself.
    pub(crate) async fn after_creates(
        &self,
        scope: &Scope,
        stack: Option<&StackRef>,
        ticket: Ticket,
    ) -> Result<Arc<Data>, ReadError> {
        let slot = shared(scope, stack);
        let last = self.create_count.load(Ordering::SeqCst);
        let mut answered = self.answered.subscribe();
        loop {
            let in_flight = {
                let creates = locked(&self.creates);
                creates
                    .get(&slot)
                    .is_some_and(|numbers| numbers.range(..=last).next().is_some())
            };
            if !in_flight {
                break;
            }
            tokio::select! {
                changed = answered.changed() => if changed.is_err() { break },
                () = self.stopped() => return Err(ReadError::Stopped),
            }
        }
        self.get(scope, stack, ticket).await
    }

    /// Returns once the run is interrupted (never when it cannot be).
    async fn stopped(&self) {
        if let Some(mut stop) = self.stop.clone()
            && stop.wait_for(|stop| *stop).await.is_ok()
        {
            return;
        }
        std::future::pending::<()>().await;
    }

    /// The same cache, whose clients stop sending writes once `stop` turns `true`
    /// ([`crate::api::transport::Api::stop_writes_on`]); reads go on.
    pub(crate) fn stop_writes_on(mut self, stop: tokio::sync::watch::Receiver<bool>) -> Fresh {
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
        self.stop = Some(stop);
        self
    }

    /// The clients reads go through.
    pub(crate) fn clients(&self) -> &Clients {
        &self.clients
    }

    /// A new ticket: what is read for it must have begun after this call.
    pub(crate) fn now(&self) -> Ticket {
        Ticket(self.clock.fetch_add(1, Ordering::SeqCst) + 1)
    }

    fn slot(&self, scope: &Scope, stack: Option<&StackRef>) -> Slot {
        let mut slots = locked(&self.slots);
        slots.entry(shared(scope, stack)).or_default().clone()
    }

    /// The list of `scope`, as read by a request that began after `ticket` was handed out: the
    /// newest read when it did, a new read otherwise (waiting for one already in flight first,
    /// since the next read may then serve the steps that queued behind it together).
    pub(crate) async fn get(
        &self,
        scope: &Scope,
        stack: Option<&StackRef>,
        ticket: Ticket,
    ) -> Result<Arc<Data>, ReadError> {
        let slot = self.slot(scope, stack);
        let mut guard = slot.lock().await;
        if let Some(read) = guard.as_ref()
            && read.began >= ticket
        {
            return Ok(read.data.clone());
        }
        // A read that would only wait for its rate-limit slot waits here instead, before it
        // begins: steps that start meanwhile share it rather than queue for the next one.
        if let Some(bucket) = self.bucket(stack)
            && let Some(free_at) = bucket.free_at(tokio::time::Instant::now())
        {
            tokio::time::sleep_until(free_at).await;
        }
        // Every ticket handed out so far belongs to a step (or check) that started before this
        // read begins, so the read serves them all.
        let began = Ticket(self.clock.load(Ordering::SeqCst));
        let at = Instant::now();
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
        *guard = Some(Read {
            began,
            at,
            answered: Instant::now(),
            data: data.clone(),
            live: std::sync::Mutex::new(BTreeMap::new()),
        });
        Ok(data)
    }

    /// The turn of a step writing through the API of `stack` (the cloud API without one),
    /// when that API is rate-limited; `None` when it is not, or has no client (the write then
    /// fails on its own).
    pub(crate) async fn turn(
        &self,
        stack: Option<&StackRef>,
    ) -> Result<Option<Turn<'_>>, ReadError> {
        let Some(api) = self.api(stack).filter(|api| api.bucket().is_limited()) else {
            return Ok(None);
        };
        let turns = match stack.map(|s| &s.target) {
            None | Some(StackTarget::Managed { .. }) => &self.cloud_turns,
            Some(StackTarget::Observability) => &self.observability_turns,
        };
        tokio::select! {
            held = turns.lock() => Ok(Some(Turn { _held: held, api })),
            () = self.stopped() => Err(ReadError::Stopped),
        }
    }

    /// The list of `scope` for the check right before a write. Without `turn` (an API with no
    /// rate limit, where a read costs nothing but its time) a read that began after the step
    /// started. With it, a read that began after `need.after` and at most one rate window
    /// before the moment returned, which is when the write's rate-limit slot is free, so the
    /// write leaves at once: the bound holds however many steps run at once, since a read that
    /// grew older while the step waited for its slot is made again.
    /// The list comes as a live state holding only it ([`live_of`]).
    pub(crate) async fn for_write(
        &self,
        scope: &Scope,
        stack: Option<&StackRef>,
        need: Need,
        turn: Option<&Turn<'_>>,
    ) -> Result<Arc<LiveState>, ReadError> {
        let Some(turn) = turn else {
            let data = self.get(scope, stack, need.started).await?;
            return Ok(Arc::new(live_of(scope, &data)));
        };
        let window = turn.api.bucket().limit().window;
        let slot = self.slot(scope, stack);
        let checking = self.now();
        loop {
            tokio::select! {
                () = turn.api.slot_free() => {}
                () = self.stopped() => return Err(ReadError::Stopped),
            }
            {
                let guard = slot.lock().await;
                // A read that began after this check did and took longer than a window (a
                // long list, a slow server) is still the youngest there can be: its age counts
                // from its answer, or no read would ever do.
                if let Some(read) = guard.as_ref()
                    && read.began >= need.after
                    && (read.at.elapsed() <= window
                        || (read.began >= checking && read.answered.elapsed() <= window))
                {
                    return Ok(read.live_for(scope));
                }
            }
            // Too old, or none yet: read now (the read takes the free slot) and wait for the
            // next slot for the write.
            self.get(scope, stack, self.now()).await?;
        }
    }

    /// The rate bucket the read of a scope draws from.
    fn bucket(&self, stack: Option<&StackRef>) -> Option<&RateBucket> {
        self.api(stack).map(Api::bucket)
    }

    /// The API a scope is read from and its objects written through.
    fn api(&self, stack: Option<&StackRef>) -> Option<&Api> {
        match stack.map(|s| &s.target) {
            None | Some(StackTarget::Managed { .. }) => {
                self.clients.cloud.as_ref().map(|c| c.api())
            }
            Some(StackTarget::Observability) => {
                self.clients.observability.as_ref().map(|o| o.api())
            }
        }
    }

    async fn read(&self, scope: &Scope, stack: Option<&StackRef>) -> Result<Data, ReadError> {
        let cloud = || {
            self.clients
                .cloud
                .as_ref()
                .ok_or(ReadError::Setup(NotSetUp::Api { api: CLOUD_API }))
        };
        let stack_api = || match stack {
            Some(stack) => stack_api(&self.clients, stack).map_err(ReadError::Setup),
            None => Err(ReadError::NoStack),
        };
        Ok(match scope {
            Scope::Services => {
                Data::Services(cloud()?.list_services().await.map_err(ReadError::Api)?)
            }
            Scope::Pipes(service) => {
                Data::Pipes(cloud()?.list_pipes(service).await.map_err(ReadError::Api)?)
            }
            Scope::Dashboards(_) => Data::Stack(StackLive {
                dashboards: stack_api()?
                    .list_dashboards()
                    .await
                    .map_err(ReadError::Api)?,
                ..StackLive::default()
            }),
            Scope::Alerts(_) => Data::Stack(StackLive {
                alerts: stack_api()?.list_alerts().await.map_err(ReadError::Api)?,
                ..StackLive::default()
            }),
            Scope::Webhooks(_) => Data::Stack(StackLive {
                webhooks: stack_api()?.list_webhooks().await.map_err(ReadError::Api)?,
                ..StackLive::default()
            }),
            Scope::Sources(_) => Data::Stack(StackLive {
                sources: stack_api()?.list_sources().await.map_err(ReadError::Api)?,
                ..StackLive::default()
            }),
            Scope::SavedSearches(_) => Data::Stack(StackLive {
                saved_searches: stack_api()?
                    .list_saved_searches()
                    .await
                    .map_err(ReadError::Api)?,
                ..StackLive::default()
            }),
            Scope::PipeCompute(service) => Data::PipeCompute(
                cloud()?
                    .pipe_compute(service)
                    .await
                    .map_err(ReadError::Api)?,
            ),
            Scope::ReverseEndpoints(service) => Data::ReverseEndpoints(
                cloud()?
                    .list_reverse_endpoints(service)
                    .await
                    .map_err(ReadError::Api)?,
            ),
        })
    }
}

/// A live state holding only one list, enough for [`crate::plan::Operation::current`] of a
/// step in that scope.
pub(crate) fn live_of(scope: &Scope, data: &Data) -> LiveState {
    // Exhaustive: a new kind of list is a compile error here, not an empty state its steps
    // would read as "the object is gone".
    let key = scope.named().cloned().unwrap_or_default();
    let mut live = LiveState::default();
    match data {
        Data::Services(services) => {
            live.services = services.iter().map(|s| (s.id.clone(), s.clone())).collect();
        }
        Data::Pipes(pipes) => {
            live.pipes.insert(key, pipes.clone());
        }
        Data::PipeCompute(compute) => {
            live.pipe_compute.insert(key, compute.clone());
        }
        Data::ReverseEndpoints(endpoints) => {
            live.reverse_endpoints.insert(key, endpoints.clone());
        }
        Data::Stack(part) => {
            live.stacks.insert(key, part.clone());
        }
    }
    live
}
