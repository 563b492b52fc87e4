//! What every request of a pipe step goes through: waking its idle service first (`--wake`),
//! and looking its pipe up in its service's list through the shared reads of `apply::fresh`.

use crate::api::error::ApiError;
use crate::api::wire::Pipe;
use crate::apply::write::{Context, WriteError};
use crate::plan::Step;

/// Runs `send`; when it meets a 424 (the service is not running), wakes the service and runs
/// it once more with `--wake`, or fails saying to give it. Each pipe request that can come
/// after another (a replacement's create, the stop after a create) goes through here on its
/// own, so a service that went idle between two requests of one step is woken too.
pub(super) async fn awake<T, F, Fut>(
    context: &Context,
    step: &Step,
    service_id: &str,
    send: F,
) -> Result<T, WriteError>
where
    F: Fn() -> Fut,
    Fut: std::future::Future<Output = Result<T, WriteError>>,
{
    match send().await {
        Err(WriteError::Api(error)) if error.status() == Some(424) => {
            if !context.wakes() {
                return Err(WriteError::Other(idle_message(step, service_id, &error)));
            }
            context.wake(service_id).await.map_err(|problem| {
                WriteError::Other(format!("cannot wake the service first: {problem}"))
            })?;
            send().await
        }
        other => other,
    }
}

/// Which read of its service's pipes a pipe is looked at in.
#[derive(Clone, Copy)]
pub(super) enum Since {
    /// The newest of the run: before the step wrote anything, the read its check right before
    /// was made against, or a younger one (the steps of a service share their reads).
    Checked,
    /// One begun from now on: it shows what the step's writes did.
    Now,
}

/// Pipe `pipe_id` as its service's list shows it in a read `since`: the shared reads of
/// `apply::fresh`, so the steps of one service polling their pipes at once (replacements
/// waiting for their old pipes to go, stops waiting to settle) share one read, and a step that
/// has written nothing yet looks in the read its check was made against.
pub(super) async fn find(
    context: &Context,
    service_id: &str,
    pipe_id: &str,
    since: Since,
) -> Result<Option<Pipe>, WriteError> {
    let scope = crate::apply::fresh::Scope::Pipes(service_id.to_string());
    let ticket = match since {
        Since::Checked => crate::apply::fresh::Ticket::RUN_START,
        Since::Now => context.fresh.now(),
    };
    let data = context
        .fresh
        .get(&scope, None, ticket)
        .await
        .map_err(read)?;
    let crate::apply::fresh::Data::Pipes(pipes) = &*data else {
        return Ok(None);
    };
    Ok(pipes.iter().find(|p| p.id == pipe_id).cloned())
}

/// A failed read of the shared reads, as a write error.
pub(super) fn read(error: crate::apply::fresh::ReadError) -> WriteError {
    match error {
        crate::apply::fresh::ReadError::Api(error) => WriteError::Api(error),
        other => WriteError::Other(other.to_string()),
    }
}

/// The 424 a pipe write gets while its service is idle, said briefly with the fix. The same
/// words for every pipe of the service, so progress and the report say it once for all of them
/// (the request id of each 424 is in the `-vv` log).
fn idle_message(step: &Step, service_id: &str, error: &ApiError) -> String {
    let service = step.address.service().unwrap_or(service_id);
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
