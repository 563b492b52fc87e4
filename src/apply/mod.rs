//! Applying a plan (DESIGN section 6): the plan's steps run in its order, a step as soon as the
//! steps it depends on succeeded, at most `parallelism` at once on each key (the transport keeps
//! every request within its key's rate limit and `parallelism` requests in flight overall). Before each write the object is re-read, by a list
//! read at most one rate window old when the write leaves (shared by the writes of its window),
//! and compared with the fingerprint the plan recorded (`fresh`); a create whose answer was lost
//! is looked for by its identity before it is sent again (`step`). A failed step skips only
//! its dependents. An interruption starts no new step and sends no write that has not gone out
//! yet: a started step still waiting for a rate-limit token, a permit or a retry stops there
//! and is reported not started (the transport checks right before sending); a write already
//! sent finishes.
//!
//! [`execute`] returns a [`Report`] (done, failed, stale, skipped, not started); `wait` polls
//! until scaling changes show; `report` renders the report as text or JSON.

mod duplicates;
pub(crate) mod fresh;
mod kinds;
pub(crate) mod model;
pub(crate) mod progress;
pub(crate) mod report;
mod send;
mod sends;
pub(crate) mod step;
pub(crate) mod wait;
pub(crate) mod write;

use std::collections::BTreeMap;
use std::sync::Arc;

use tokio::sync::watch;
use tokio::task::JoinSet;

use crate::api::clients::Clients;
use crate::plan::{Plan, Step};
pub use model::{Options, Status, operation_name};
pub use progress::Progress;
pub use report::Report;

#[derive(Debug, Clone, PartialEq)]
enum State {
    Pending,
    Running,
    Finished(Status),
}

/// Which key a step's requests go through: each key runs up to `parallelism` steps of its
/// own, so steps waiting for one key's rate limit never keep the other key's steps from
/// starting (the transport still bounds the requests in flight overall).
fn key_of(step: &Step) -> usize {
    match step.operation.target().stack().map(|stack| &stack.target) {
        None | Some(crate::plan::StackTarget::Managed { .. }) => 0,
        Some(crate::plan::StackTarget::Observability) => 1,
    }
}

/// Runs the steps of `plan`. `cancel` turning `true` (SIGINT/SIGTERM) starts no new step and
/// sends no write not yet sent; writes already sent finish. Never fails as a whole: every
/// step's outcome is in the report. Each step checks its object with a read at most one rate
/// window old when its write leaves (see `fresh`); no read made before the run is reused.
pub async fn execute(
    plan: &Plan,
    clients: Clients,
    options: &Options,
    mut cancel: watch::Receiver<bool>,
    progress: &Progress,
) -> Report {
    let fresh = fresh::Fresh::new(clients);
    let steps: Arc<Vec<Step>> = Arc::new(plan.steps.clone());
    progress.begin(steps.len());
    // Steps already started may still wait for a rate-limit token or a permit when the signal
    // comes: their writes are stopped by the transport right before sending, not only new steps.
    let fresh = fresh.stop_writes_on(cancel.clone());
    let context = Arc::new(write::Context::new(fresh, options.clone()));
    let mut run = Run::new(steps, context, options, progress);
    let interrupted = run.steps_in_order(&mut cancel).await;
    run.record_versions().await;
    run.sweep_duplicates().await;
    run.report(interrupted)
}

/// What a step task gives back: its index and its outcome.
type StepOutcome = (usize, Result<Option<String>, write::StepError>);

/// The steps of one apply and where each stands.
struct Run<'a> {
    steps: Arc<Vec<Step>>,
    context: Arc<write::Context>,
    progress: &'a Progress,
    parallelism: usize,
    state: Vec<State>,
    messages: Vec<Option<String>>,
    running: JoinSet<StepOutcome>,
    /// The step each running task runs, for a task that ends without an outcome.
    tasks: BTreeMap<tokio::task::Id, usize>,
    /// Steps another step depends on.
    waited_on: Vec<bool>,
    /// Running steps per key ([`key_of`]).
    running_on: [usize; 2],
}

impl<'a> Run<'a> {
    fn new(
        steps: Arc<Vec<Step>>,
        context: Arc<write::Context>,
        options: &Options,
        progress: &'a Progress,
    ) -> Self {
        let count = steps.len();
        let mut waited_on = vec![false; count];
        for step in steps.iter() {
            for dependency in &step.depends_on {
                if let Some(flag) = waited_on.get_mut(*dependency) {
                    *flag = true;
                }
            }
        }
        Run {
            steps,
            context,
            progress,
            parallelism: options.parallelism.max(1),
            state: vec![State::Pending; count],
            messages: vec![None; count],
            running: JoinSet::new(),
            tasks: BTreeMap::new(),
            waited_on,
            running_on: [0; 2],
        }
    }

    /// Starts each step once the steps it depends on are done, until none is left or running;
    /// after an interruption it starts none. Returns whether the run was interrupted.
    async fn steps_in_order(&mut self, cancel: &mut watch::Receiver<bool>) -> bool {
        let mut interrupted = *cancel.borrow();
        let mut cancel_open = true;
        loop {
            if !interrupted {
                let starting = self.ready_steps();
                self.start(starting);
            }
            if self.running.is_empty() {
                break;
            }
            tokio::select! {
                joined = self.running.join_next_with_id() => {
                    let Some(joined) = joined else { break };
                    if let Some((index, status, message)) = self.outcome(joined) {
                        self.finish(index, status, message);
                    }
                }
                changed = cancel.changed(), if cancel_open && !interrupted => {
                    match changed {
                        Ok(()) => interrupted = *cancel.borrow(),
                        Err(_) => cancel_open = false,
                    }
                }
            }
        }
        // The steps waiting for a turn see the interrupt themselves and end at once; when the
        // select takes their ends before the interrupt's own branch, the loop drains without
        // having seen it, so the watch's value says whether the run was interrupted.
        interrupted || *cancel.borrow()
    }

    /// The pending steps that may start now (their dependencies done, within the parallelism),
    /// marked running; a step whose dependency did not succeed is skipped.
    fn ready_steps(&mut self) -> Vec<usize> {
        let mut starting = Vec::new();
        // Steps other steps wait for first: creates that start together share the read that
        // checks them for copies (`fresh::Fresh::after_creates`), and their dependents are
        // freed sooner.
        let (first, then): (Vec<usize>, Vec<usize>) =
            (0..self.steps.len()).partition(|index| self.waited_on[*index]);
        for index in first.into_iter().chain(then) {
            if self.state[index] != State::Pending {
                continue;
            }
            let step = &self.steps[index];
            let blocker = step.depends_on.iter().find(
                |d| matches!(self.state.get(**d), Some(State::Finished(s)) if *s != Status::Done),
            );
            if let Some(blocker) = blocker {
                let address = self
                    .steps
                    .get(*blocker)
                    .map_or_else(|| "?".to_string(), |s| s.address.to_string());
                let message = format!("it waits for {address}, which did not succeed");
                self.finish(index, Status::Skipped, Some(message));
                continue;
            }
            let ready = step
                .depends_on
                .iter()
                .all(|d| self.state.get(*d) == Some(&State::Finished(Status::Done)));
            let key = key_of(step);
            if !ready || self.running_on[key] >= self.parallelism {
                continue;
            }
            self.state[index] = State::Running;
            self.running_on[key] += 1;
            starting.push(index);
        }
        starting
    }

    /// Spawns the steps `starting`.
    fn start(&mut self, starting: Vec<usize>) {
        // Every step starting now takes its ticket before any of them reads, so they can
        // share one read per scope (see `fresh`).
        let tickets: Vec<_> = starting.iter().map(|_| self.context.fresh.now()).collect();
        for (index, ticket) in starting.into_iter().zip(tickets) {
            let step = &self.steps[index];
            self.progress.start(step);
            let task_step = step.clone();
            let task_context = self.context.clone();
            let waited = self.waited_on[index];
            let handle = self.running.spawn(async move {
                let result = step::run(&task_context, &task_step, ticket, waited).await;
                (index, result)
            });
            self.tasks.insert(handle.id(), index);
        }
    }

    /// The step a finished task ran and how it ended; `None` for a task no step is known for.
    fn outcome(
        &mut self,
        joined: Result<(tokio::task::Id, StepOutcome), tokio::task::JoinError>,
    ) -> Option<(usize, Status, Option<String>)> {
        match joined {
            Ok((id, (index, result))) => {
                self.tasks.remove(&id);
                Some(match result {
                    Ok(note) => (index, Status::Done, note),
                    Err(write::StepError::Stale(m)) => (index, Status::Stale, Some(m)),
                    Err(write::StepError::Failed(m)) => (index, Status::Failed, Some(m)),
                    Err(write::StepError::NotStarted(m)) => (index, Status::NotStarted, Some(m)),
                })
            }
            Err(error) => {
                let index = self.tasks.remove(&error.id())?;
                Some((
                    index,
                    Status::Failed,
                    Some(format!("the step stopped unexpectedly: {error}")),
                ))
            }
        }
    }

    /// Records how step `index` ended and shows it.
    fn finish(&mut self, index: usize, status: Status, message: Option<String>) {
        if self.state[index] == State::Running
            && let Some(step) = self.steps.get(index)
        {
            let key = key_of(step);
            self.running_on[key] = self.running_on[key].saturating_sub(1);
        }
        self.state[index] = State::Finished(status);
        if let Some(step) = self.steps.get(index) {
            self.progress.finish(step, status, message.as_deref());
        }
        self.messages[index] = message;
    }

    /// The credential versions the pipe creates sent, recorded per service in one request.
    async fn record_versions(&mut self) {
        let versions = self.context.take_versions();
        for (index, message) in kinds::pipe::record_versions(&self.context, versions).await {
            self.finish(index, Status::Failed, Some(message));
        }
    }

    /// Creates no step waited for are checked for copies other runs made at the same time
    /// together, with one read per scope made after all of them answered.
    async fn sweep_duplicates(&mut self) {
        for (index, result) in duplicates::sweep(&self.context, self.context.take_made()).await {
            let (status, message) = match result {
                Ok(note) => (Status::Done, note),
                Err(write::StepError::Stale(m)) => (Status::Stale, Some(m)),
                Err(write::StepError::Failed(m) | write::StepError::NotStarted(m)) => {
                    (Status::Failed, Some(m))
                }
            };
            self.finish(index, status, message);
        }
    }

    /// Every step's outcome; a step that never finished was not started.
    fn report(&self, interrupted: bool) -> Report {
        let outcomes = self
            .steps
            .iter()
            .enumerate()
            .map(|(index, step)| {
                let status = match &self.state[index] {
                    State::Finished(status) => *status,
                    State::Pending | State::Running => Status::NotStarted,
                };
                report::StepReport {
                    id: step.id,
                    address: step.address.to_string(),
                    operation: operation_name(&step.operation),
                    status,
                    message: self.messages[index].clone(),
                }
            })
            .collect();
        Report::new(outcomes, interrupted)
    }
}

/// What [`precheck`] found before anything was written.
#[derive(Debug, Default)]
pub(crate) struct Precheck {
    /// Steps whose object changed since the plan was made, each with a message.
    pub stale: Vec<(usize, String)>,
    /// Steps that write other than their changes show, as only the live state can tell
    /// ([`crate::plan::trust::against_live`]).
    pub disagreements: Vec<String>,
    /// Steps that would do other than the plan's rendered changes show, or write to another
    /// object than their address names now ([`crate::plan::trust::shown_against_live`]).
    pub not_shown: Vec<String>,
}

/// Checks every step of a saved plan against a fresh read (one list per scope) before anything
/// is written. Creates that wait for other steps are checked when they run instead: their
/// objects may exist until a dependency removes them (alerts on a tile a dashboard update
/// drops). The steps read again when they run: these reads are older than any step. `bound`:
/// the steps whose pipes the config finds by name, each held to the pipe that name finds.
pub(crate) async fn precheck(
    plan: &Plan,
    clients: Clients,
    bound: &[crate::plan::trust::Bound],
    printer: &crate::output::Printer,
) -> Result<Precheck, fresh::ReadError> {
    let fresh = fresh::Fresh::new(clients);
    let ticket = fresh.now();
    let mut found = Precheck::default();
    let mut live = crate::live::LiveState::default();
    let mut read = std::collections::BTreeSet::new();
    for step in &plan.steps {
        let is_create = step.fingerprint.is_none();
        let checked_when_run = is_create && !step.depends_on.is_empty();
        if checked_when_run && !crate::plan::trust::read_for_check(plan, step) {
            continue;
        }
        let (scope, stack) = fresh::scope_of(&step.operation);
        let data = fresh.get(&scope, stack, ticket).await?;
        let scoped = fresh::live_of(&scope, &data);
        if read.insert(scope.clone()) {
            live.services.extend(scoped.services.clone());
            live.pipes.extend(scoped.pipes.clone());
            for (key, stack) in &scoped.stacks {
                let entry = live.stacks.entry(key.clone()).or_default();
                entry.dashboards.extend(stack.dashboards.iter().cloned());
                entry.alerts.extend(stack.alerts.iter().cloned());
            }
        }
        if checked_when_run {
            continue;
        }
        let current = step.operation.current(&scoped);
        if step.operation.is_destroy() && current.is_none() {
            continue;
        }
        if current != step.fingerprint {
            // Field by field, so the reader sees what moved under the reviewed plan.
            let mut message = write::stale_message(step, current);
            for line in crate::plan::saved::changed_since(plan, step, &scoped) {
                message.push_str(&format!(
                    "\n      {}: {line} since the plan was made",
                    step.address
                ));
            }
            found.stale.push((step.id, message));
        }
    }
    found.disagreements = crate::plan::trust::against_live(plan, &live);
    read_stacks(plan, &fresh, ticket, &mut read, &mut live).await?;
    let stale = found.stale.iter().map(|(id, _)| *id).collect();
    found.not_shown = crate::plan::trust::shown_against_live(plan, &live, &stale, printer);
    // The pipes the config finds by name are the ones the steps write to.
    found
        .not_shown
        .extend(crate::plan::trust::bound_against_live(
            plan, bound, &live, &stale,
        ));
    Ok(found)
}

/// Reads both lists of each stack a dashboard or alert step writes to (those `read` does not
/// hold yet) into `live`: what was shown is checked on them, as an alert shows its dashboard
/// and tile by name, a delete its dashboard's owner tag.
async fn read_stacks(
    plan: &Plan,
    fresh: &fresh::Fresh,
    ticket: fresh::Ticket,
    read: &mut std::collections::BTreeSet<fresh::Scope>,
    live: &mut crate::live::LiveState,
) -> Result<(), fresh::ReadError> {
    let mut stacks = std::collections::BTreeMap::new();
    for step in &plan.steps {
        if let Some(stack) = crate::plan::trust::reads_stack(&step.operation) {
            stacks.entry(stack.key.clone()).or_insert(stack);
        }
    }
    for (key, stack) in stacks {
        for scope in [
            fresh::Scope::Dashboards(key.clone()),
            fresh::Scope::Alerts(key),
        ] {
            if !read.insert(scope.clone()) {
                continue;
            }
            let data = fresh.get(&scope, Some(stack), ticket).await?;
            for (key, scoped) in fresh::live_of(&scope, &data).stacks {
                let entry = live.stacks.entry(key).or_default();
                entry.dashboards.extend(scoped.dashboards);
                entry.alerts.extend(scoped.alerts);
            }
        }
    }
    Ok(())
}
