//! One step: check the object against the plan's fingerprint, then write it.
//!
//! Creates are never sent twice blindly: the transport does not resend a POST that may have
//! reached the server, and after such an ambiguous failure (5xx, timeout, lost connection) the
//! list is read again and the object looked for by its identity (dashboard or alert name, private
//! endpoint id) before the create is tried again; when it is there, every copy of the name is
//! resolved as after an answered create. After a create, [`super::duplicates`] removes this
//! run's copy when another run created the same object at the same time.

use super::duplicates;
use super::fresh::{Creating, Need, Scope, Ticket, Turn, live_of, scope_of};
use super::send::{Rounds, doubles, found_created, resolve, write, write_rounds};
use super::write::{
    Context, Created, MAY_HAVE_BEEN_APPLIED, Made, Part, StepError, WriteError, read_failed, short,
    stale_message,
};
use crate::api::error::ApiError;
use crate::plan::target::Effect;
use crate::plan::{Operation, StackRef, Step};

/// How many times a create is sent when each attempt ends ambiguously and a re-read shows it
/// did not land.
const CREATE_ATTEMPTS: usize = 8;

/// What a step stopped by an interruption reports: not started when nothing of it went out,
/// failed (with what the last attempt got) when an attempt may have reached the server.
fn interrupted(previous: Option<String>) -> StepError {
    match previous {
        None => StepError::NotStarted("interrupted before its write was sent".to_string()),
        Some(error) => StepError::Failed(format!(
            "{error}; the run was interrupted before it was sent again: run `converge plan` to \
             see whether it took effect"
        )),
    }
}

/// Runs one step, which started when `started` was handed out: its check reads what the server
/// holds from then on. `Ok` carries a note for the report (e.g. "already gone"). A create is
/// checked for a copy another run made at the same time right away when `waited_on` (its
/// dependents must find the copy that stays), otherwise later, with the others.
pub(crate) async fn run(
    context: &Context,
    step: &Step,
    started: Ticket,
    waited_on: bool,
) -> Result<Option<String>, StepError> {
    let (scope, stack) = scope_of(&step.operation);
    // A step that waits for others must see their writes: no read from before it started.
    let need = Need {
        started,
        after: if step.depends_on.is_empty() {
            Ticket::RUN_START
        } else {
            started
        },
    };
    // A create coming from a running step: the post-create checks of its list wait for it, so
    // the creates running together share one read for those checks.
    let coming =
        (step.operation.effect() == Effect::Create).then(|| context.fresh.creating(&scope, stack));
    let turn = context.fresh.turn(stack).await.map_err(read_failed)?;
    if check(context, step, &scope, stack, need, turn.as_ref()).await? == Checked::AlreadyGone {
        return Ok(Some("already gone".to_string()));
    }
    // The operation says whether it creates: a create left out of a list here would go
    // through the update path, which resends on a 5xx and could create twice.
    let effect = step.operation.effect();
    let operation = resolve(context, step).await?;
    let written = async {
        match effect {
            Effect::Create => {
                let run = (operation, waited_on, coming);
                create(context, step, run, &scope, stack).await
            }
            Effect::Update | Effect::Delete => update(context, step, &operation, Part::Whole).await,
            Effect::Replace => replace(context, step, operation, (&scope, stack), waited_on).await,
        }
    };
    match turn {
        Some(turn) => turn.write(written).await,
        None => written.await,
    }
}

/// Sends an update or delete (or `part` of one) in rounds.
async fn update(
    context: &Context,
    step: &Step,
    operation: &Operation,
    part: Part,
) -> Result<Option<String>, StepError> {
    match write_rounds(context, step, operation, part).await {
        Ok(()) => Ok(None),
        Err(Rounds::Stopped(previous)) => Err(interrupted(previous)),
        Err(Rounds::Failed(error)) => Err(StepError::Failed(error)),
        Err(Rounds::MaybeApplied(error)) => Err(StepError::Failed(format!(
            "{error}; {MAY_HAVE_BEEN_APPLIED}"
        ))),
    }
}

/// Sends a replacement: its delete in rounds like any delete (resent, it finds the object gone
/// already), then its create once, after a fresh read shows no object of its name: another
/// run replacing it at the same time may have created it already. The create is never
/// resent: after an ambiguous failure a re-read says whether it landed; once answered, a copy
/// another run made at the same time is settled as a create's is ([`made`]: right away when
/// the step is `waited_on`, else with the others once every step ran).
async fn replace(
    context: &Context,
    step: &Step,
    operation: Operation,
    (scope, stack): (&Scope, Option<&StackRef>),
    waited_on: bool,
) -> Result<Option<String>, StepError> {
    update(context, step, &operation, Part::Destroy).await?;
    let data = gone_read(context, step, scope, stack).await?;
    let operation = &operation;
    let double = doubles(operation);
    let (kind, name) = double
        .as_ref()
        .map_or(("object", ""), |made| (made.kind(), made.name()));
    if let Some(double) = &double
        && let Some((kept, _)) = double.copies(&data).first()
    {
        let kept = kept.to_string();
        if !double.kept_as_wanted(context, &kept, &data) {
            return Err(StepError::Stale(format!(
                "{kind} `{name}` was deleted, and another run created it again (id {kept}) \
                 differing from this config; nothing was created: run `converge plan` again"
            )));
        }
        return Ok(Some(format!(
            "another run replaced it at the same time; its {kind} (id {kept}) is kept and \
             nothing was created"
        )));
    }
    let failed = |error: &dyn std::fmt::Display, found: &str| {
        StepError::Failed(format!(
            "{kind} `{name}` was deleted, but creating it again failed: {error}{found}; \
             `converge plan` shows the create that is left"
        ))
    };
    match write(context, step, operation, Part::Create).await {
        Ok(Some(created)) => made(context, step, operation.clone(), created, waited_on).await,
        Ok(None) => Ok(None),
        Err(WriteError::Api(error)) if error.is_ambiguous() => {
            match landed(context, step, operation, scope, stack, &error).await? {
                Some(note) => Ok(Some(note)),
                None => Err(failed(&error, " (a re-read found it not created)")),
            }
        }
        Err(error) => Err(failed(&error, "")),
    }
}

/// A read of a replacement's list that no longer shows the object it replaced: the newest
/// read when it does not (a kind that waits for its object to go, as pipes do, made it after
/// the delete), else one begun now. Another run's copy of the new object is looked for in it.
async fn gone_read(
    context: &Context,
    step: &Step,
    scope: &Scope,
    stack: Option<&StackRef>,
) -> Result<std::sync::Arc<super::fresh::Data>, StepError> {
    let newest = context
        .fresh
        .get(scope, stack, Ticket::RUN_START)
        .await
        .map_err(read_failed)?;
    if step.operation.current(&live_of(scope, &newest)).is_none() {
        return Ok(newest);
    }
    context
        .fresh
        .get(scope, stack, context.fresh.now())
        .await
        .map_err(read_failed)
}

/// What the check before a write found.
#[derive(Debug, PartialEq)]
enum Checked {
    /// The object is as the plan recorded it.
    AsPlanned,
    /// A delete whose object is gone already.
    AlreadyGone,
}

/// Compares the object, read from `started` on, with the plan's fingerprint: a changed object
/// is stale.
async fn check(
    context: &Context,
    step: &Step,
    scope: &Scope,
    stack: Option<&StackRef>,
    need: Need,
    turn: Option<&Turn<'_>>,
) -> Result<Checked, StepError> {
    let live = context
        .fresh
        .for_write(scope, stack, need, turn)
        .await
        .map_err(read_failed)?;
    let current = step.operation.current(&live);
    // A replacement whose object is gone is stale like an update's: another run replaced it
    // (its create is there, or on its way), or an earlier run left the create that the next
    // plan shows; creating here could make the object twice.
    if current.is_none() && step.operation.effect() == Effect::Delete {
        return Ok(Checked::AlreadyGone);
    }
    if current != step.fingerprint {
        return Err(StepError::Stale(stale_message(step, current)));
    }
    Ok(Checked::AsPlanned)
}

/// Sends a create until it is answered, looking for the object by its identity after every
/// ambiguous failure before sending it again.
async fn create(
    context: &Context,
    step: &Step,
    (operation, waited_on, mut coming): (Operation, bool, Option<Creating<'_>>),
    scope: &Scope,
    stack: Option<&StackRef>,
) -> Result<Option<String>, StepError> {
    let mut attempt = 0;
    let mut previous = None;
    loop {
        attempt += 1;
        let sent = write(context, step, &operation, Part::Whole).await;
        // Answered (or failed): the checks of the creates answered meanwhile no longer wait.
        drop(coming.take());
        match sent {
            Ok(Some(created)) => return made(context, step, operation, created, waited_on).await,
            Ok(None) => return Ok(None),
            Err(WriteError::Api(error)) if error.is_stopped() => return Err(interrupted(previous)),
            Err(WriteError::Api(error)) if error.is_ambiguous() => {
                if let Some(note) = landed(context, step, &operation, scope, stack, &error).await? {
                    return Ok(Some(note));
                }
                if attempt >= CREATE_ATTEMPTS {
                    return Err(StepError::Failed(format!(
                        "{error} (after {attempt} attempts, each checked by re-reading: not created)"
                    )));
                }
                previous = Some(format!("{error} (a re-read found it not created)"));
            }
            // The server certainly did not act (429s or no connection all along): sending
            // again cannot create a second object.
            Err(WriteError::Api(error))
                if error.is_safe_to_resend()
                    && error.is_retryable()
                    && attempt < CREATE_ATTEMPTS => {}
            Err(error) => return Err(StepError::Failed(error.to_string())),
        }
    }
}

/// A create was answered: a copy another run made at the same time is looked for now when
/// the step is `waited_on`, else the create joins those checked together at the end.
async fn made(
    context: &Context,
    step: &Step,
    operation: Operation,
    created: Created,
    waited_on: bool,
) -> Result<Option<String>, StepError> {
    let renamed = created.renamed(&operation);
    if waited_on {
        let kept = duplicates::keep_oldest(context, &operation, &created.id);
        return kept.await.map(|note| join_notes(renamed, note));
    }
    let mut made = match context.made.lock() {
        Ok(made) => made,
        Err(poisoned) => poisoned.into_inner(),
    };
    made.push(Made {
        step: step.id,
        operation,
        id: created.id,
    });
    Ok(renamed)
}

/// After a create failed ambiguously, reads the list again: `Some` (a note) when the object is
/// there, so the create landed and its answer was lost.
async fn landed(
    context: &Context,
    step: &Step,
    operation: &Operation,
    scope: &Scope,
    stack: Option<&StackRef>,
    error: &ApiError,
) -> Result<Option<String>, StepError> {
    let data = context
        .fresh
        .get(scope, stack, context.fresh.now())
        .await
        .map_err(|read| {
            StepError::Failed(format!(
                "{error}; the read that would tell whether it landed failed too \
                 ({read}): {MAY_HAVE_BEEN_APPLIED}"
            ))
        })?;
    let live = live_of(scope, &data);
    // A replacement's target is the old object, gone: its create is looked for by name.
    let found = match operation.effect() {
        Effect::Replace => doubles(operation).is_some_and(|made| !made.copies(&data).is_empty()),
        Effect::Create | Effect::Update | Effect::Delete => operation.current(&live).is_some(),
    };
    if !found {
        return Ok(None);
    }
    // A pipe's answered create records its credentials version; a found one does it here.
    found_created(context, step, operation, &live)
        .await
        .map_err(|error| StepError::Failed(error.to_string()))?;
    // Another run may have created the same object meanwhile: every copy of the name is
    // looked at, not only the first.
    let resolved = duplicates::after_lost_answer(context, operation, &data).await?;
    let found = format!(
        "the answer was lost ({}), but a re-read found it created",
        short(error)
    );
    Ok(Some(match resolved {
        Some(note) => format!("{found}; {note}"),
        None => found,
    }))
}

fn join_notes(first: Option<String>, second: Option<String>) -> Option<String> {
    match (first, second) {
        (Some(first), Some(second)) => Some(format!("{first}; {second}")),
        (first, second) => first.or(second),
    }
}
