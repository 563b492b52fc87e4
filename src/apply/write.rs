//! Sending a step's write: the context the steps of one run share, the ids an alert's create
//! or update needs, and idempotent writes sent again in rounds. [`super::step`] checks a step
//! and decides what to send; `duplicates` cleans up after a create; both build on this.

use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::Duration;

use tokio::sync::OnceCell;

use super::fresh::{Data, Fresh, ROUNDS, ReadError, Scope, stack_api};
use super::model::Options;
use crate::api::clients::Clients;
use crate::api::cloud::CloudClient;
use crate::api::error::ApiError;
use crate::api::wire::{AlertRequest, Dashboard};
use crate::plan::AlertOp;
use crate::plan::DashboardOp;
use crate::plan::PipeOp;
use crate::plan::PrivateEndpointOp;
use crate::plan::ServiceOp;
use crate::plan::target::{Key, Target};
use crate::plan::{AlertTarget, Operation, StackRef, Step, fingerprint, normalize};

/// A create this run made, whose copies are checked once every step has run.
#[derive(Debug, Clone)]
pub(crate) struct Made {
    /// Index of the step.
    pub step: usize,
    /// The create as sent (alert ids filled in).
    pub operation: Operation,
    /// The id the server answered.
    pub id: String,
}

/// What the report says of a write the server may have acted on though it answered no success.
pub(super) const MAY_HAVE_BEEN_APPLIED: &str =
    "it may have been applied; run `converge plan` to see";

/// What a write or a wake-up says when the config names no cloud API.
const CLOUD_NOT_SET_UP: &str = "the cloud API is not set up";

/// The outcome of waking one service, computed once.
type WakeCell = Arc<OnceCell<Result<(), WakeError>>>;

/// Why a service idle behind a pipe write could not be woken.
#[derive(Debug, Clone, thiserror::Error)]
pub(crate) enum WakeError {
    /// The cloud API, which wakes services, is not set up.
    #[error("{}", CLOUD_NOT_SET_UP)]
    NotSetUp,
    /// Sending `awake` or reading the service's state failed.
    #[error(transparent)]
    Api(#[from] ApiError),
    /// The service did not reach `running` within the run's timeout.
    #[error(
        "service {service_id} was sent `awake` but is still `{state}` after {}s",
        timeout.as_secs()
    )]
    StillNotRunning {
        /// The service.
        service_id: String,
        /// Its state at the last read.
        state: String,
        /// How long it was waited for.
        timeout: Duration,
    },
}

/// Why a step did not succeed.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum StepError {
    /// The live object changed since the plan; nothing was written.
    Stale(String),
    /// The write (or the read before it) failed.
    Failed(String),
    /// The run was interrupted before the write was sent; nothing was written.
    NotStarted(String),
}

/// What the steps of one run share.
#[derive(Debug)]
pub(crate) struct Context {
    /// The cache of list reads.
    pub fresh: Fresh,
    options: Options,
    /// Dashboards as the server answered their create or update, by (stack key, name): alerts
    /// that name their dashboard and tile find the ids here.
    answers: std::sync::Mutex<BTreeMap<(String, String), Dashboard>>,
    /// One wake-up per service, shared by every pipe step of that service.
    woken: std::sync::Mutex<BTreeMap<String, WakeCell>>,
    /// Creates no step waits for, checked for copies made by other runs once all steps ran.
    pub(super) made: std::sync::Mutex<Vec<Made>>,
}

impl Context {
    /// A context reading (through `fresh`) and writing through `fresh`'s clients.
    pub(crate) fn new(fresh: Fresh, options: Options) -> Self {
        Context {
            fresh,
            options,
            answers: std::sync::Mutex::new(BTreeMap::new()),
            woken: std::sync::Mutex::new(BTreeMap::new()),
            made: std::sync::Mutex::new(Vec::new()),
        }
    }

    /// The creates left to check for copies other runs made ([`super::duplicates::sweep`]).
    pub(crate) fn take_made(&self) -> Vec<Made> {
        let mut made = match self.made.lock() {
            Ok(made) => made,
            Err(poisoned) => poisoned.into_inner(),
        };
        std::mem::take(&mut *made)
    }

    fn clients(&self) -> &Clients {
        self.fresh.clients()
    }

    fn cloud(&self) -> Result<&CloudClient, WriteError> {
        self.clients()
            .cloud
            .as_ref()
            .ok_or_else(|| WriteError::Other(CLOUD_NOT_SET_UP.to_string()))
    }

    /// Keeps a dashboard as the server answered it, for the alerts that name it.
    pub(crate) fn remember(&self, stack: &StackRef, dashboard: Dashboard) {
        let mut answers = match self.answers.lock() {
            Ok(answers) => answers,
            Err(poisoned) => poisoned.into_inner(),
        };
        answers.insert(
            (stack.key.clone(), normalize::name_key(&dashboard.name)),
            dashboard,
        );
    }

    fn answer(&self, stack: &StackRef, name: &str) -> Option<Dashboard> {
        let answers = match self.answers.lock() {
            Ok(answers) => answers,
            Err(poisoned) => poisoned.into_inner(),
        };
        answers
            .get(&(stack.key.clone(), normalize::name_key(name)))
            .cloned()
    }

    /// Sends `awake` to a service once and waits until it runs.
    async fn wake(&self, service_id: &str) -> Result<(), WakeError> {
        let cell = {
            let mut woken = match self.woken.lock() {
                Ok(woken) => woken,
                Err(poisoned) => poisoned.into_inner(),
            };
            woken.entry(service_id.to_string()).or_default().clone()
        };
        cell.get_or_init(|| async {
            let cloud = self.clients().cloud.as_ref().ok_or(WakeError::NotSetUp)?;
            cloud.change_service_state(service_id, "awake").await?;
            // `None` only for a timeout beyond what the clock can count: no deadline.
            let deadline = tokio::time::Instant::now().checked_add(self.options.timeout);
            loop {
                let service = cloud.get_service(service_id).await?;
                let state = service.state.unwrap_or_default();
                if state == "running" {
                    return Ok(());
                }
                if deadline.is_some_and(|d| tokio::time::Instant::now() >= d) {
                    return Err(WakeError::StillNotRunning {
                        service_id: service_id.to_string(),
                        state,
                        timeout: self.options.timeout,
                    });
                }
                tokio::time::sleep(self.options.poll_interval).await;
            }
        })
        .await
        .clone()
    }
}

/// A failed write.
#[derive(Debug, Clone)]
pub(super) enum WriteError {
    Api(ApiError),
    Other(String),
}

impl std::fmt::Display for WriteError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            WriteError::Api(error) => write!(f, "{error}"),
            WriteError::Other(problem) => write!(f, "{problem}"),
        }
    }
}

impl From<ApiError> for WriteError {
    fn from(error: ApiError) -> Self {
        WriteError::Api(error)
    }
}

pub(crate) fn read_failed(error: ReadError) -> StepError {
    StepError::Failed(format!("cannot re-read the object before writing: {error}"))
}

fn fingerprint_text(value: Option<fingerprint::Fingerprint>) -> String {
    value.map_or_else(|| "absent".to_string(), |f| f.to_string())
}

/// A dashboard or alert as its create was answered.
pub(super) struct Created {
    pub(super) id: String,
    name: String,
}

impl Created {
    /// What to tell when the server stored the name other than as sent (some servers collapse
    /// white space): the next plan matches the object as stored, and warns at the config line.
    pub(super) fn renamed(&self, operation: &Operation) -> Option<String> {
        let sent = match operation.target() {
            Target::Dashboard {
                key: Key::Name(sent),
                ..
            }
            | Target::Alert {
                key: Key::Name(sent),
                ..
            } => sent,
            // Only a create finds its object by name; nothing else is answered with a name.
            Target::Dashboard {
                key: Key::Id(_), ..
            }
            | Target::Alert {
                key: Key::Id(_), ..
            }
            | Target::Service { .. }
            | Target::PrivateEndpoint { .. }
            | Target::Pipe { .. } => return None,
        };
        (self.name != sent).then(|| {
            format!(
                "the server stored its name as {:?} (sent {sent:?}); converge matches it as \
                 stored, write it that way in the config",
                self.name
            )
        })
    }
}

/// Why [`write_rounds`] gave up.
pub(super) enum Rounds {
    /// Interrupted before a round was sent; carries what an earlier round got, if the server
    /// may have acted on it.
    Stopped(Option<String>),
    /// The last round's error; the server certainly did not act on any round.
    Failed(String),
    /// The last round's error, after a round the server may have acted on (a 5xx, a timeout,
    /// a lost connection: a gateway that gave up does not mean the write did not land).
    MaybeApplied(String),
}

/// Sends an idempotent write (update, delete) in up to [`ROUNDS`] rounds: the transport retried
/// each already, and another round is as safe.
pub(super) async fn write_rounds(
    context: &Context,
    step: &Step,
    operation: &Operation,
) -> Result<(), Rounds> {
    let mut round = 1;
    let mut previous = None;
    loop {
        match write(context, step, operation).await {
            Ok(_) => return Ok(()),
            Err(WriteError::Api(error)) if error.is_stopped() => {
                return Err(Rounds::Stopped(previous));
            }
            Err(WriteError::Api(error)) if error.is_retryable() && round < ROUNDS => {
                // 429s and refused connections changed nothing on the server.
                if !error.is_safe_to_resend() {
                    previous = Some(error.to_string());
                }
                round += 1;
            }
            Err(WriteError::Api(error)) if error.is_ambiguous() || previous.is_some() => {
                return Err(Rounds::MaybeApplied(error.to_string()));
            }
            Err(error) => return Err(Rounds::Failed(error.to_string())),
        }
    }
}

/// Why [`write_idempotent`] gave up. The errors are the last round's, as the report says them.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub(crate) enum IdempotentWriteError {
    /// The run was interrupted before the write was sent.
    #[error("the run was interrupted before it was sent")]
    Interrupted,
    /// The server certainly did not act on any round.
    #[error("{0}")]
    Failed(String),
    /// A round the server may have acted on.
    #[error("{0}; {may}", may = MAY_HAVE_BEEN_APPLIED)]
    MaybeApplied(String),
}

/// Sends an idempotent write that is not a step of the plan (removing a copy another run made
/// at the same time); `Err` says why it did not happen.
pub(crate) async fn write_idempotent(
    context: &Context,
    operation: &Operation,
) -> Result<(), IdempotentWriteError> {
    let step = Step {
        id: usize::MAX,
        address: String::new(),
        depends_on: Vec::new(),
        fingerprint: None,
        operation: operation.clone(),
    };
    write_rounds(context, &step, operation)
        .await
        .map_err(|rounds| match rounds {
            Rounds::Stopped(_) => IdempotentWriteError::Interrupted,
            Rounds::Failed(error) => IdempotentWriteError::Failed(error),
            Rounds::MaybeApplied(error) => IdempotentWriteError::MaybeApplied(error),
        })
}

pub(super) fn short(error: &ApiError) -> String {
    match error.status() {
        Some(status) => format!("status {status}"),
        None => "connection lost".to_string(),
    }
}

pub(crate) fn stale_message(step: &Step, current: Option<fingerprint::Fingerprint>) -> String {
    let what = match (step.fingerprint, current) {
        (None, Some(_)) => "was created since the plan was made, which creates it".to_string(),
        (Some(_), None) => "was deleted since the plan was made".to_string(),
        _ => "changed since the plan was made".to_string(),
    };
    format!(
        "{} {what} (fingerprint {} in the plan, {} now); nothing was written for it: run \
         `converge plan` again",
        step.address,
        fingerprint_text(step.fingerprint),
        fingerprint_text(current)
    )
}

/// What to do when an alert's dashboard or tile is not there yet: most often `--only` kept the
/// alert and left out the dashboard change it depends on.
const APPLY_THE_DASHBOARD_FIRST: &str = "apply the dashboard first: run without `--only`, or \
     with an `--only` glob that also matches the dashboard's address";

/// Fills in the dashboard and tile ids of an alert that names them.
pub(super) async fn resolve(context: &Context, step: &Step) -> Result<Operation, StepError> {
    let Operation::Alert(alert) = &step.operation else {
        return Ok(step.operation.clone());
    };
    let stack = alert.stack();
    let Some((AlertTarget::Names { dashboard, tile }, body)) = alert.written() else {
        return Ok(step.operation.clone());
    };
    let found = match context.answer(stack, dashboard) {
        Some(found) => Some(found),
        None => {
            // Rare (no answer was kept): read now, after the dashboard's step.
            let scope = Scope::Dashboards(stack.key.clone());
            let data = context
                .fresh
                .get(&scope, Some(stack), context.fresh.now())
                .await
                .map_err(read_failed)?;
            match data.as_ref() {
                Data::Dashboards(list) => list
                    .iter()
                    .find(|d| normalize::same_name(&d.name, dashboard))
                    .cloned(),
                _ => None,
            }
        }
    };
    let Some(found) = found else {
        return Err(StepError::Failed(format!(
            "dashboard `{dashboard}` of stack `{}` does not exist, so the alert cannot point at it; \
             {APPLY_THE_DASHBOARD_FIRST}",
            stack.key
        )));
    };
    let Some(tile_id) = found
        .tiles
        .iter()
        .find(|t| t.name == *tile)
        .and_then(|t| t.id.clone())
    else {
        return Err(StepError::Failed(format!(
            "dashboard `{dashboard}` of stack `{}` has no tile `{tile}` with an id; \
             {APPLY_THE_DASHBOARD_FIRST}",
            stack.key
        )));
    };
    let body = AlertRequest {
        dashboard_id: Some(found.id.clone()),
        tile_id: Some(tile_id),
        ..body.clone()
    };
    let mut alert = alert.clone();
    if let Some((_, b)) = alert.written_mut() {
        *b = body;
    }
    let operation = Operation::Alert(alert);
    Ok(operation)
}

/// Sends the write of `operation` once (the transport retries what is safe to retry); returns
/// a created dashboard or alert as the server answered.
pub(super) async fn write(
    context: &Context,
    step: &Step,
    operation: &Operation,
) -> Result<Option<Created>, WriteError> {
    let stack = |s: &StackRef| {
        stack_api(context.clients(), s).map_err(|e| WriteError::Other(e.to_string()))
    };
    match operation {
        Operation::Service(ServiceOp::Scaling { service_id, body }) => {
            context
                .cloud()?
                .update_service_scaling(service_id, body)
                .await?;
        }
        Operation::PrivateEndpoint(PrivateEndpointOp::Create { service_id, body }) => {
            context
                .cloud()?
                .create_private_endpoint(service_id, body)
                .await?;
        }
        Operation::PrivateEndpoint(PrivateEndpointOp::Detach { service_id, body }) => {
            context
                .cloud()?
                .update_service_private_endpoints(service_id, body)
                .await?;
        }
        Operation::Pipe(pipe) => {
            let service_id = pipe.service_id();
            match pipe_write(context, pipe).await {
                Err(WriteError::Api(error)) if error.status() == Some(424) => {
                    if !context.options.wake {
                        return Err(WriteError::Other(idle_message(step, service_id, &error)));
                    }
                    context.wake(service_id).await.map_err(|problem| {
                        WriteError::Other(format!("cannot wake the service first: {problem}"))
                    })?;
                    pipe_write(context, pipe).await?;
                }
                other => other?,
            }
        }
        Operation::Dashboard(DashboardOp::Create { stack: s, body }) => {
            let answer = stack(s)?.create_dashboard(body).await?;
            let created = Created {
                id: answer.id.clone(),
                name: answer.name.clone(),
            };
            context.remember(s, answer);
            return Ok(Some(created));
        }
        Operation::Dashboard(DashboardOp::Update {
            stack: s,
            dashboard_id,
            body,
        }) => {
            let answer = stack(s)?.update_dashboard(dashboard_id, body).await?;
            context.remember(s, answer);
        }
        Operation::Dashboard(DashboardOp::Delete {
            stack: s,
            dashboard_id,
        }) => stack(s)?.delete_dashboard(dashboard_id).await?,
        Operation::Alert(AlertOp::Create { stack: s, body, .. }) => {
            let answer = stack(s)?.create_alert(body).await?;
            return Ok(Some(Created {
                id: answer.id,
                name: answer.name,
            }));
        }
        Operation::Alert(AlertOp::Update {
            stack: s,
            alert_id,
            body,
            ..
        }) => {
            stack(s)?.update_alert(alert_id, body).await?;
        }
        Operation::Alert(AlertOp::Delete { stack: s, alert_id }) => {
            stack(s)?.delete_alert(alert_id).await?
        }
    }
    Ok(None)
}

async fn pipe_write(context: &Context, operation: &PipeOp) -> Result<(), WriteError> {
    match operation {
        PipeOp::Scaling {
            service_id,
            pipe_id,
            body,
        } => {
            context
                .cloud()?
                .update_pipe_scaling(service_id, pipe_id, body)
                .await?;
        }
        PipeOp::Delete {
            service_id,
            pipe_id,
        } => context.cloud()?.delete_pipe(service_id, pipe_id).await?,
    }
    Ok(())
}

/// The 424 a pipe write gets while its service is idle, said briefly with the fix. The same
/// words for every pipe of the service, so progress and the report say it once for all of them
/// (the request id of each 424 is in the `-vv` log).
fn idle_message(step: &Step, service_id: &str, error: &ApiError) -> String {
    let service = crate::plan::Address::parse(&step.address)
        .and_then(|a| a.service())
        .unwrap_or(service_id);
    let state = error
        .message
        .split("Current state:")
        .nth(1)
        .and_then(|rest| rest.split_whitespace().next())
        .map(|state| state.trim_matches(|c: char| !c.is_ascii_alphanumeric() && c != '_'))
        .filter(|state| !state.is_empty());
    let state = match state {
        Some(state) => format!("is `{state}`"),
        None => "is not running".to_string(),
    };
    format!(
        "service `{service}` {state} (424): pipes change only while their service runs; run \
         again with `--wake` to wake it first"
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wake_and_removal_errors_read_as_the_report_says_them() {
        assert_eq!(
            WakeError::NotSetUp.to_string(),
            "the cloud API is not set up"
        );
        let still = WakeError::StillNotRunning {
            service_id: "svc-1".into(),
            state: "awaking".into(),
            timeout: Duration::from_secs(90),
        };
        assert_eq!(
            still.to_string(),
            "service svc-1 was sent `awake` but is still `awaking` after 90s"
        );
        assert_eq!(
            IdempotentWriteError::Interrupted.to_string(),
            "the run was interrupted before it was sent"
        );
        assert_eq!(
            IdempotentWriteError::Failed("status 400".into()).to_string(),
            "status 400"
        );
        assert_eq!(
            IdempotentWriteError::MaybeApplied("status 502".into()).to_string(),
            "status 502; it may have been applied; run `converge plan` to see"
        );
    }
}
