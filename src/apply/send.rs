//! Sending a step's write: each kind sends its own (`super::sends::Sends`, implemented in
//! `super::kinds`, one file per kind); this file asks it, fills in what a step learns only
//! while the run goes on (an alert's dashboard and tile ids) and sends idempotent writes again
//! in rounds.

use super::fresh::ROUNDS;
use super::sends;
use super::write::{Context, Created, Doubles, MAY_HAVE_BEEN_APPLIED, Part, StepError, WriteError};
use crate::plan::{AddressBuf, Operation, Step};

/// Sends `part` of the write of `operation` once (the transport retries what is safe to
/// retry); returns a created dashboard or alert as the server answered.
pub(super) async fn write(
    context: &Context,
    step: &Step,
    operation: &Operation,
    part: Part,
) -> Result<Option<Created>, WriteError> {
    sends::of(operation).send(context, step, part).await
}

/// The operation to send for `step`, with what only the run can tell filled in (an alert's
/// dashboard and tile ids, looked up by the names the plan shows).
pub(super) async fn resolve(context: &Context, step: &Step) -> Result<Operation, StepError> {
    let resolved = sends::of(&step.operation).resolve(context).await?;
    Ok(resolved.unwrap_or_else(|| step.operation.clone()))
}

/// What a create of `operation` makes, when it can leave its object twice.
pub(super) fn doubles(operation: &Operation) -> Option<Box<dyn Doubles + '_>> {
    sends::of(operation).doubles()
}

/// After a re-read found a create whose answer was lost: what the answered create would have
/// done after it (a pipe's credentials version recorded, its stop).
pub(super) async fn found_created(
    context: &Context,
    step: &Step,
    operation: &Operation,
    live: &crate::live::LiveState,
) -> Result<(), WriteError> {
    sends::of(operation)
        .found_created(context, step, live)
        .await
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

/// Sends an idempotent write (update, delete, a replacement's delete) in up to [`ROUNDS`]
/// rounds: the transport retried each already, and another round is as safe.
pub(super) async fn write_rounds(
    context: &Context,
    step: &Step,
    operation: &Operation,
    part: Part,
) -> Result<(), Rounds> {
    let mut round = 1;
    let mut previous = None;
    loop {
        match write(context, step, operation, part).await {
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
    address: AddressBuf,
) -> Result<(), IdempotentWriteError> {
    let step = Step {
        id: usize::MAX,
        address,
        depends_on: Vec::new(),
        fingerprint: None,
        operation: operation.clone(),
    };
    write_rounds(context, &step, operation, Part::Whole)
        .await
        .map_err(|rounds| match rounds {
            Rounds::Stopped(_) => IdempotentWriteError::Interrupted,
            Rounds::Failed(error) => IdempotentWriteError::Failed(error),
            Rounds::MaybeApplied(error) => IdempotentWriteError::MaybeApplied(error),
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn removal_errors_read_as_the_report_says_them() {
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
