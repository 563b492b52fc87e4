//! A pipe's lifecycle step: stopped for a change that needs it paused or kept stopped, edited,
//! and left in the state the config asks, polling its service's list (the shared reads of
//! `apply::fresh`) until each state shows.

use serde_json::Value;

use super::calls::{Since, awake, find, read};
use crate::api::wire::{ResourceTag, ServicePatch, TagsPatch};
use crate::apply::write::{Context, WriteError};
use crate::plan::Step;
use crate::plan::kinds::pipe::op::Keep;
use crate::plan::kinds::pipe::paused;

/// The pipe a lifecycle step works on, as its messages name it.
pub(super) struct Named<'a> {
    pub(super) service_id: &'a str,
    pub(super) pipe_id: &'a str,
    pub(super) name: &'a str,
    /// The step, as a 424's message names its service.
    pub(super) step: &'a Step,
}

impl Named<'_> {
    /// `PATCH .../state` with `command`, woken like any pipe write: the service can go idle
    /// between the requests of one lifecycle step.
    pub(super) async fn command(&self, context: &Context, command: &str) -> Result<(), WriteError> {
        let cloud = context.cloud()?;
        let send = || async {
            cloud
                .pipe_command(self.service_id, self.pipe_id, command)
                .await
                .map(|_| ())
                .map_err(WriteError::Api)
        };
        awake(context, self.step, self.service_id, send).await
    }

    /// `PATCH .../pipes/{id}` with `body`, woken like any pipe write.
    pub(super) async fn edit(&self, context: &Context, body: &Value) -> Result<(), WriteError> {
        let cloud = context.cloud()?;
        let send = || async {
            cloud
                .update_pipe(self.service_id, self.pipe_id, body)
                .await
                .map(|_| ())
                .map_err(WriteError::Api)
        };
        awake(context, self.step, self.service_id, send).await
    }
}

/// The states of a pipe that is not ingesting and can be started (`Stopped` for streaming
/// pipes, `Paused` for database pipes).
const STOPPED: [&str; 2] = ["Stopped", "Paused"];

/// The states a pipe passes through on its way to another.
const PASSING: [&str; 5] = ["Provisioning", "Modifying", "Stopping", "Pausing", "Resync"];

/// Stop (when the change needs a pause or the pipe is to be kept stopped) → wait until
/// stopped → `PATCH` → leave the pipe in the state `keep` says. Once the pipe was stopped, a
/// failure starts it again unless it is to be kept stopped: a pipe is never left stopped that
/// the config did not ask stopped.
pub(super) async fn lifecycle(
    context: &Context,
    pipe: &Named<'_>,
    body: &Value,
    pause: bool,
    keep: Keep,
) -> Result<(), WriteError> {
    let mut stopped_here = false;
    if pause || keep == Keep::Stopped {
        // Nothing written yet: the read the step's check was made against shows the state.
        let state = state_of(context, pipe, Since::Checked).await?;
        if !STOPPED.contains(&state.as_str()) {
            if !["Stopping", "Pausing"].contains(&state.as_str()) {
                // Said before the stop: a run killed after it leaves the fact for the next.
                if pause && keep == Keep::Running {
                    paused_mark(context, pipe, true).await?;
                }
                pipe.command(context, "stop").await?;
                stopped_here = true;
            }
            if pause && let Err(error) = settle(context, pipe, "stopped", Since::Now).await {
                return Err(
                    resumed(context, pipe, stopped_here && keep == Keep::Running, error).await,
                );
            }
        }
    }
    let edits = body.as_object().is_some_and(|b| !b.is_empty());
    if edits && let Err(error) = pipe.edit(context, body).await {
        let resume = pause && keep == Keep::Running;
        return Err(resumed(context, pipe, resume, error).await);
    }
    // What the step wrote shows only in a read begun after it.
    let since = if edits || stopped_here {
        Since::Now
    } else {
        Since::Checked
    };
    match keep {
        // The server resumes a pipe after a table-mapping edit: stopped again. Without an
        // edit, the pipe is stopped or stopping already.
        Keep::Stopped if edits => {
            let state = state_of(context, pipe, Since::Now).await?;
            if !STOPPED.contains(&state.as_str())
                && !["Stopping", "Pausing"].contains(&state.as_str())
            {
                pipe.command(context, "stop").await?;
            }
        }
        Keep::Stopped => {}
        Keep::Running => {
            let state = settle(context, pipe, "edited", since).await?;
            let start = STOPPED.contains(&state.as_str()) || state == "Failed";
            if start {
                pipe.command(context, "start").await?;
            }
            // Running again: the mark of a stop for a change (this run's, or a killed run's
            // this one resumes) goes.
            if stopped_here || ((start || pause) && marked(context, pipe).await?) {
                paused_mark(context, pipe, false).await?;
            }
        }
    }
    Ok(())
}

/// Sets (`on`) or removes the service tag that says converge stopped the pipe for a change
/// ([`paused::paused_tag`]).
async fn paused_mark(context: &Context, pipe: &Named<'_>, on: bool) -> Result<(), WriteError> {
    let tag = ResourceTag {
        key: paused::paused_tag(pipe.pipe_id),
        value: Some("true".to_string()),
    };
    let (add, remove) = if on {
        (vec![tag], Vec::new())
    } else {
        (Vec::new(), vec![ResourceTag { value: None, ..tag }])
    };
    let patch = ServicePatch {
        tags: Some(TagsPatch { add, remove }),
        ..ServicePatch::default()
    };
    context
        .cloud()?
        .update_service_tags(pipe.service_id, &patch)
        .await
        .map_err(|error| {
            WriteError::Other(if on {
                format!(
                    "pipe `{}` was not stopped for the change: recording the stop on the \
                     service failed: {error}",
                    pipe.name
                )
            } else {
                format!(
                    "pipe `{}` runs again, but removing the mark of its stop from the service \
                     failed: {error}; the next run removes it",
                    pipe.name
                )
            })
        })?;
    Ok(())
}

/// Whether the pipe's service carries the mark of a stop for a change (a killed run's: this
/// run's own stops are known), as the services list read once for the run shows it: the
/// steps starting pipes share that read rather than each reading its service.
async fn marked(context: &Context, pipe: &Named<'_>) -> Result<bool, WriteError> {
    let scope = crate::apply::fresh::Scope::Services;
    let ticket = crate::apply::fresh::Ticket::RUN_START;
    let data = context
        .fresh
        .get(&scope, None, ticket)
        .await
        .map_err(read)?;
    let crate::apply::fresh::Data::Services(services) = &*data else {
        return Ok(false);
    };
    Ok(services
        .iter()
        .find(|service| service.id == pipe.service_id)
        .is_some_and(|service| paused::paused_by_converge(service, pipe.pipe_id)))
}

/// The error of a lifecycle step that failed after its pipe was stopped, once the pipe was
/// started again (when `resume`), saying what happened to it.
async fn resumed(
    context: &Context,
    pipe: &Named<'_>,
    resume: bool,
    error: WriteError,
) -> WriteError {
    let error = match error {
        WriteError::Api(error) => error.to_string(),
        WriteError::Other(error) => error,
    };
    if !resume {
        return WriteError::Other(format!("pipe `{}`: the change failed: {error}", pipe.name));
    }
    let started = async {
        let state = settle(context, pipe, "stopped", Since::Now).await?;
        if STOPPED.contains(&state.as_str()) || state == "Failed" {
            pipe.command(context, "start").await?;
        }
        paused_mark(context, pipe, false).await?;
        Ok::<(), WriteError>(())
    };
    match started.await {
        Ok(()) => WriteError::Other(format!(
            "pipe `{}` was stopped for the change, which failed: {error}; the pipe was started \
             again, unchanged",
            pipe.name
        )),
        Err(again) => {
            let again = match again {
                WriteError::Api(again) => again.to_string(),
                WriteError::Other(again) => again,
            };
            WriteError::Other(format!(
                "pipe `{}` was stopped for the change, which failed: {error}; starting it \
                 again failed too ({again}): it is left stopped, run `converge apply` again \
                 or start it in the console",
                pipe.name
            ))
        }
    }
}

/// The pipe's state, as a read `since` shows it; a pipe no longer listed is an error naming it.
async fn state_of(context: &Context, pipe: &Named<'_>, since: Since) -> Result<String, WriteError> {
    let live = find(context, pipe.service_id, pipe.pipe_id, since).await?;
    let live =
        live.ok_or_else(|| WriteError::Other(format!("pipe `{}` is no longer listed", pipe.name)))?;
    Ok(live.state.unwrap_or_default())
}

/// Polls until the pipe is in no passing state (`Stopping`, `Modifying`, ...), bounded by
/// `--timeout`, saying once on stderr what it waits for; returns the state it settled in.
async fn settle(
    context: &Context,
    pipe: &Named<'_>,
    until: &str,
    mut since: Since,
) -> Result<String, WriteError> {
    let (timeout, poll) = context.patience();
    let deadline = tokio::time::Instant::now().checked_add(timeout);
    let mut said = false;
    loop {
        let state = state_of(context, pipe, since).await?;
        since = Since::Now;
        if !PASSING.contains(&state.as_str()) {
            return Ok(state);
        }
        if deadline.is_some_and(|d| tokio::time::Instant::now() >= d) {
            return Err(WriteError::Other(format!(
                "pipe `{}` is still `{state}` after {}s (`--timeout`)",
                pipe.name,
                timeout.as_secs()
            )));
        }
        if !said {
            context.say(&format!(
                "waiting up to {}s for pipe `{}` to be {until} (now `{state}`)",
                timeout.as_secs(),
                pipe.name
            ));
            said = true;
        }
        tokio::time::sleep(poll).await;
    }
}
