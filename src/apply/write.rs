//! What a step's write needs: the context the steps of one run share (clients, the answers
//! alerts find their dashboard in, one wake-up per service) and how a write fails. Each kind's
//! write is in `super::kinds`; `super::send` dispatches to them and resends in rounds;
//! [`super::step`] checks a step and decides what to send; `duplicates` cleans up after a create.

use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::Duration;

use tokio::sync::OnceCell;

use super::fresh::{Data, Fresh, ReadError, stack_api};
use super::model::Options;
use crate::address::AddressBuf;
use crate::api::clients::Clients;
use crate::api::cloud::CloudClient;
use crate::api::error::ApiError;
use crate::api::stack::StackApi;
use crate::api::wire::Dashboard;
use crate::plan::target::Key;
use crate::plan::{Operation, StackRef, Step, fingerprint, normalize};

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

/// A create that can leave its object twice when two runs make it at once (dashboards and
/// alerts; `super::duplicates` settles the copies): each kind's file says how its copies are
/// found, removed and compared.
pub(crate) trait Doubles: Send + Sync {
    /// The kind, as the report names it.
    fn kind(&self) -> &'static str;
    /// The name the create makes.
    fn name(&self) -> &str;
    /// Whether a copy carries the tag of the run that made it (dashboards), so that a create
    /// whose answer was lost knows its own copy.
    fn tags_its_copies(&self) -> bool;
    /// The copies of that name in the list read for it, oldest first (lists come in creation
    /// order): each id with its tags.
    fn copies<'d>(&self, data: &'d Data) -> Vec<(&'d str, &'d [String])>;
    /// The delete of this run's copy `own_id`, with the address it is reported at.
    fn removal(&self, own_id: &str) -> (Operation, AddressBuf);
    /// Whether the kept copy `kept` is as the create wanted it (a kept dashboard is
    /// remembered for the alerts that name it).
    fn kept_as_wanted(&self, context: &Context, kept: &str, data: &Data) -> bool;
    /// After this run's create lost its answer, whether the younger copy `id` may be removed
    /// as this run's though it carries no tag: a pipe identical to the one the create sends
    /// (same name, source, destination and mappings) is a copy whichever run made it, and one
    /// of them is enough. `false` for kinds whose copies a person may have made on purpose.
    fn claims_untagged(&self, _id: &str, _data: &Data) -> bool {
        false
    }
}

/// What the report says of a write the server may have acted on though it answered no success.
pub(crate) const MAY_HAVE_BEEN_APPLIED: &str =
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
    /// The tag this run puts on the dashboards it creates ([`normalize::run_tag`]).
    pub(crate) run_tag: String,
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
            // Twelve hex digits of a random UUID: two runs at once never share one, and the
            // tag stays within the API's 32 characters.
            run_tag: normalize::run_tag(&uuid::Uuid::new_v4().simple().to_string()[..12]),
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

    pub(super) fn clients(&self) -> &Clients {
        self.fresh.clients()
    }

    pub(super) fn cloud(&self) -> Result<&CloudClient, WriteError> {
        self.clients()
            .cloud
            .as_ref()
            .ok_or_else(|| WriteError::Other(CLOUD_NOT_SET_UP.to_string()))
    }

    /// How long to wait for a change to show (`--timeout`) and the pause between two polls.
    pub(super) fn patience(&self) -> (std::time::Duration, std::time::Duration) {
        (self.options.timeout, self.options.poll_interval)
    }

    /// Says a line of progress on stderr (a pipe being waited for).
    pub(super) fn say(&self, line: &str) {
        if let Some(activity) = self.clients().activity() {
            activity.say(line);
        }
    }

    /// Whether pipe writes wake an idle service first (`--wake`).
    pub(super) fn wakes(&self) -> bool {
        self.options.wake
    }

    /// The API of a stack the plan names.
    pub(super) fn stack(&self, stack: &StackRef) -> Result<StackApi, WriteError> {
        stack_api(self.clients(), stack).map_err(|e| WriteError::Other(e.to_string()))
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

    pub(super) fn answer(&self, stack: &StackRef, name: &str) -> Option<Dashboard> {
        let answers = match self.answers.lock() {
            Ok(answers) => answers,
            Err(poisoned) => poisoned.into_inner(),
        };
        answers
            .get(&(stack.key.clone(), normalize::name_key(name)))
            .cloned()
    }

    /// Sends `awake` to a service once and waits until it runs.
    pub(super) async fn wake(&self, service_id: &str) -> Result<(), WakeError> {
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

/// Which part of a step's write is sent: the whole of it, or one half of a replacement
/// ([`crate::plan::target::Effect::Replace`]), whose halves the engine sends on their own paths.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Part {
    /// Everything the operation does.
    Whole,
    /// A replacement's delete, up to the object being gone: resent in rounds.
    Destroy,
    /// A replacement's create, once its object is gone: sent once, never resent.
    Create,
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
    if let ReadError::Stopped = error {
        return StepError::NotStarted("interrupted before its write was sent".to_string());
    }
    StepError::Failed(format!("cannot re-read the object before writing: {error}"))
}

fn fingerprint_text(value: Option<fingerprint::Fingerprint>) -> String {
    value.map_or_else(|| "absent".to_string(), |f| f.to_string())
}

/// A dashboard or alert as its create was answered.
pub(super) struct Created {
    pub(super) id: String,
    pub(super) name: String,
}

impl Created {
    /// What to tell when the server stored the name other than as sent (some servers collapse
    /// white space): the next plan matches the object as stored, and warns at the config line.
    pub(super) fn renamed(&self, operation: &Operation) -> Option<String> {
        // Only a create finds its object by name; a stack object's name is what its server
        // may store otherwise.
        let target = operation.target();
        let Some(Key::Name(sent)) = target.stack().and(target.key()) else {
            return None;
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wake_errors_read_as_the_report_says_them() {
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
    }
}
