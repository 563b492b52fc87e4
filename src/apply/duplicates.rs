//! Two runs that create the same object at the same time (two `apply`s of one config, a CI job
//! and a person) must not leave it twice. Dashboards, alerts and pipes are the objects a create
//! can double (a pipe also through two replacements at once, each creating once the old pipe is
//! gone): registering a private endpoint the service already has changes nothing.
//!
//! Why a check and a clean-up rather than a lock: the APIs offer nothing a lock could be built
//! on (no conditional write, no unique name, no lease), and a lock made of an object (a "lock"
//! dashboard) can itself be created twice, and outlives a run that is killed. So:
//!
//! 1. Right before each create, the step's fresh check ([`super::fresh`]) reads the list with a
//!    request that began after the step started: an object of that name created by a run that
//!    got there earlier makes the step stale, and nothing is sent.
//! 2. Two runs whose checks both came before either create both create. Right after its create
//!    answered, each run reads the list again (a read that began after the create landed) and
//!    looks for other objects of the same name. Of several, the **oldest** (the first the server
//!    lists: lists come in creation order) is kept; a run removes only the copy it made itself,
//!    which it knows by the id the create answered, and only when an older one exists. The run
//!    whose create landed last always sees the other copy in its read, so one of the two always
//!    cleans up, and both agree on which copy stays. A dashboard's alerts then point at the kept
//!    copy.
//!
//! 3. A create whose answer was lost (a 504 after the write, a dropped connection) has no id;
//!    the re-read that looks for it ([`after_lost_answer`]) resolves every copy of the name the
//!    same way, knowing this run's own dashboard by the tag the run put on it
//!    ([`crate::plan::normalize::run_tag`], ignored wherever dashboards are compared).
//! 4. A copy younger than the kept one that this run cannot prove it made is another run's:
//!    that run removes it, so it is waited for (bounded, [`OTHER_RUNS_WAIT`]); one that stays
//!    (its run was killed; an alert whose answer was lost, which carries no tag) is reported as
//!    a failed step naming the ids, never left behind a run that says done; `apply --dedupe`
//!    repairs it (`crate::plan::build::dedupe`).
//!
//! Why alerts carry no run marker: of the members the alert API stores (the current document's
//! `Alert`), `note` is the user's text (managed by the config on today's servers, shown in
//! the UI) and the others (`groupBy`, `savedSearchId`, schedule, channels) change what the
//! alert does; none can hold a run id unseen. So an alert is known as this run's only by the id
//! its create answered, and a copy whose answer was lost is reported, never guessed at.
//! Neither attribution that needs no marker holds under concurrency:
//! - "on a dashboard this run created": another run whose dashboard create raced this one's
//!   keeps the older copy, which may be this run's, and puts its own alert on it;
//! - "absent from the list read before the POST, one unknown id after it": another run's
//!   create of the same name can land between the two reads too, and nothing a run can read
//!   shows that no other run is between its check and its POST, so two new ids are
//!   indistinguishable.
//!
//! The report names every id and the repair (`apply --dedupe`), whose rule is the sweep's:
//! the oldest stays, copies on dashboards converge owns go.
//!
//! What it costs: one more list read per create that other steps wait for (an alert waits for
//! its dashboard, which must be settled first); the creates nothing waits for are checked
//! together once every step has run, one read per scope ([`sweep`]). A delete is sent only when
//! two runs actually raced, and a run waits only while another run's copy is there.

use std::sync::Arc;
use std::time::Duration;

use super::fresh::Data;
use super::send::{doubles, write_idempotent};
use super::write::{Context, Doubles, Made, StepError, read_failed};
use crate::plan::Operation;

/// After a create of `operation` that the server answered with `own_id`: removes this run's
/// copy when an older object of the same name exists. `Ok` carries a note for the report;
/// `Err(Stale)` when the copy kept differs from what this run wanted.
pub(crate) async fn keep_oldest(
    context: &Context,
    operation: &Operation,
    own_id: &str,
) -> Result<Option<String>, StepError> {
    let (scope, stack) = super::fresh::scope_of(operation);
    // A read that began after the create answered: it holds this run's copy, and every copy
    // whose create landed earlier. It waits for the creates of its list then in flight (every
    // stack's on the server), so their checks share it.
    let data = context
        .fresh
        .after_creates(&scope, stack, context.fresh.now())
        .await
        .map_err(read_failed)?;
    settle(context, operation, own_id, &data, OTHER_RUNS_WAIT).await
}

/// Checks the creates in `made` with reads made after all of them answered; returns the steps
/// whose outcome this changes (a copy removed, a read that failed). Every copy this run made
/// and can prove younger is removed first, without waiting on anyone: two runs whose sweeps
/// each waited for the other's copy of another object would wait on each other. Only then are
/// the copies of other runs waited for.
pub(crate) async fn sweep(
    context: &Context,
    made: Vec<Made>,
) -> Vec<(usize, Result<Option<String>, StepError>)> {
    let mut changed = Vec::new();
    let mut waiting = Vec::new();
    // Every create of `made` has answered: one read of each list that begins from now on sees
    // them all, so the creates of one list (and of every stack on its server) share it.
    let ticket = context.fresh.now();
    for made in made {
        match sweep_one(context, &made, Duration::ZERO, ticket).await {
            Ok(None) => {}
            Ok(note) => changed.push((made.step, Ok(note))),
            Err(_) => waiting.push(made),
        }
    }
    for made in waiting {
        let outcome = sweep_one(context, &made, OTHER_RUNS_WAIT, context.fresh.now()).await;
        if !matches!(outcome, Ok(None)) {
            changed.push((made.step, outcome));
        }
    }
    changed
}

/// One create of [`sweep`], checked against a read that began after `ticket`, waiting up to
/// `patience` for another run's copies to go.
async fn sweep_one(
    context: &Context,
    made: &Made,
    patience: Duration,
    ticket: super::fresh::Ticket,
) -> Result<Option<String>, StepError> {
    let (scope, stack) = super::fresh::scope_of(&made.operation);
    match context.fresh.get(&scope, stack, ticket).await {
        Ok(data) => settle(context, &made.operation, &made.id, &data, patience).await,
        Err(error) => Err(StepError::Failed(format!(
            "created (id {}), but the read that checks no other run created it at the same \
             time failed: {error}; run `converge plan` to see whether it is there twice",
            made.id
        ))),
    }
}

/// How long a run waits for copies another run made to go (that run's own check removes its
/// copy when it is younger) before it reports them.
const OTHER_RUNS_WAIT: Duration = Duration::from_secs(10);

/// How often the list is read again while waiting for another run's copies to go.
const OTHER_RUNS_POLL: Duration = Duration::from_millis(250);

/// Which copies of a name this run can prove it made.
#[derive(Clone, Copy)]
enum Own<'a> {
    /// The create was answered with this id.
    Id(&'a str),
    /// The create's answer was lost: its copy carries this run's tag (dashboards only).
    Tagged,
}

/// What the copies of one name came to.
struct Copies {
    /// The oldest copy's id, kept.
    kept: String,
    /// This run's copies that were removed.
    removed: Vec<String>,
    /// Whether the kept copy is as this run wanted it.
    as_wanted: bool,
}

/// [`keep_oldest`] with the list already read.
async fn settle(
    context: &Context,
    operation: &Operation,
    own_id: &str,
    data: &Arc<Data>,
    patience: Duration,
) -> Result<Option<String>, StepError> {
    let Some(made) = doubles(operation) else {
        return Ok(None);
    };
    let own = Own::Id(own_id);
    let found = resolve(
        context,
        operation,
        made.as_ref(),
        own,
        data.clone(),
        patience,
    );
    match found.await? {
        Some(copies) if !copies.removed.is_empty() => {
            outcome(made.kind(), &copies.kept, &copies.removed, copies.as_wanted)
        }
        Some(_) | None => Ok(None),
    }
}

/// After a create whose answer was lost, `data` (read after the failure) holds at least one
/// object of its name: the copies are resolved as after an answered create, this run's own
/// known by its tag. `Ok` carries a note for the report.
pub(crate) async fn after_lost_answer(
    context: &Context,
    operation: &Operation,
    data: &Arc<Data>,
) -> Result<Option<String>, StepError> {
    let Some(made) = doubles(operation) else {
        return Ok(None);
    };
    let found = resolve(
        context,
        operation,
        made.as_ref(),
        Own::Tagged,
        data.clone(),
        OTHER_RUNS_WAIT,
    );
    match found.await? {
        Some(copies) if !copies.removed.is_empty() => {
            outcome(made.kind(), &copies.kept, &copies.removed, copies.as_wanted)
                .map(|note| note.map(|note| format!("a re-read found this run's copy; {note}")))
        }
        // One copy: the create landed (or another run's did, as this run wanted).
        Some(_) | None => Ok(None),
    }
}

/// One copy of a name, as the list showed it.
struct Copy {
    id: String,
    own: bool,
}

/// The copies of the create's name in `data`, oldest first (lists come in creation order).
fn copies(context: &Context, made: &dyn Doubles, own: Own<'_>, data: &Data) -> Vec<Copy> {
    made.copies(data)
        .into_iter()
        .map(|(id, tags)| Copy {
            id: id.to_string(),
            own: match own {
                Own::Id(own_id) => id == own_id,
                Own::Tagged => tags.contains(&context.run_tag) || made.claims_untagged(id, data),
            },
        })
        .collect()
}

/// Resolves the copies of a create's name: the oldest is kept; this run's other copies (known
/// by `own`) are removed; copies made by others and younger than the kept one are waited for
/// (their run removes them, [`OTHER_RUNS_WAIT`]) and reported when they stay. `None` when the
/// name has no copy, or only this run's.
async fn resolve(
    context: &Context,
    operation: &Operation,
    made: &dyn Doubles,
    own: Own<'_>,
    mut data: Arc<Data>,
    patience: Duration,
) -> Result<Option<Copies>, StepError> {
    let (kind, name) = (made.kind(), made.name());
    let found = copies(context, made, own, &data);
    let Some(oldest) = found.first() else {
        return Ok(None);
    };
    let kept = oldest.id.clone();
    let mut removed = Vec::new();
    for copy in found.iter().skip(1).filter(|c| c.own) {
        remove_own(context, made, &copy.id, &kept).await?;
        removed.push(copy.id.clone());
    }
    // Another run's younger copy: that run removes it once its create answered, or after its
    // own lost answer by its tag; a killed run or a copy nobody can prove stays, and is said.
    let deadline = tokio::time::Instant::now() + patience;
    let mut others = foreign(&found, &kept, &removed);
    while !others.is_empty() && tokio::time::Instant::now() < deadline {
        tokio::time::sleep(OTHER_RUNS_POLL).await;
        let (scope, stack) = super::fresh::scope_of(operation);
        data = context
            .fresh
            .get(&scope, stack, context.fresh.now())
            .await
            .map_err(read_failed)?;
        others = foreign(&copies(context, made, own, &data), &kept, &removed);
    }
    if !others.is_empty() && matches!(own, Own::Tagged) && !made.tags_its_copies() {
        return Err(StepError::Failed(unattributed(kind, name, &kept, &others)));
    }
    if !others.is_empty() {
        return Err(StepError::Failed(format!(
            "{kind} \"{name}\" exists more than once: id {kept} (the oldest) is kept, and \
             {} (id {}) made by another run or by hand stayed for {}s; converge removes only \
             the copies it can prove this run made: run `converge plan` to see them, and \
             `converge apply --dedupe --allow-destroy` to keep one",
            if others.len() == 1 {
                "a younger copy".to_string()
            } else {
                format!("{} younger copies", others.len())
            },
            others.join(", "),
            OTHER_RUNS_WAIT.as_secs()
        )));
    }
    let as_wanted = made.kept_as_wanted(context, &kept, &data);
    Ok(Some(Copies {
        kept,
        removed,
        as_wanted,
    }))
}

/// The report of an alert (or pipe) left twice after this run's create lost its answer: one of the
/// younger copies may be this run's, but nothing tells which (see the module's note on run
/// markers), so none is deleted; every id is named, with the repair.
fn unattributed(kind: &str, name: &str, kept: &str, others: &[String]) -> String {
    let younger = others.join(", ");
    let article = if kind.starts_with('a') { "an" } else { "a" };
    // Alerts are deduplicated only on dashboards converge owns.
    let owns = if kind == "alert" {
        "; it deletes only copies on dashboards converge owns"
    } else {
        ""
    };
    format!(
        "{kind} \"{name}\" exists more than once (ids {kept}, {younger}): this run's create lost \
         its answer, and {article} {kind} carries no mark of the run that made it, so converge \
         cannot tell this run's copy from another run's or a person's, and deletes none; the \
         oldest (id {kept}) is the one converge keeps: run `converge apply --dedupe \
         --allow-destroy` to delete the younger {} ({younger}{owns}), or delete {} by hand",
        if others.len() == 1 { "copy" } else { "copies" },
        if others.len() == 1 { "it" } else { "them" },
    )
}

/// The ids among `found` that are neither kept nor removed by this run.
fn foreign(found: &[Copy], kept: &str, removed: &[String]) -> Vec<String> {
    found
        .iter()
        .filter(|c| c.id != kept && !c.own && !removed.contains(&c.id))
        .map(|c| c.id.clone())
        .collect()
}

/// Removes this run's copy `own_id` of a name whose older copy `kept` stays.
async fn remove_own(
    context: &Context,
    made: &dyn Doubles,
    own_id: &str,
    kept: &str,
) -> Result<(), StepError> {
    let (removal, address) = made.removal(own_id);
    write_idempotent(context, &removal, address)
        .await
        .map_err(|error| {
            StepError::Failed(format!(
                "created (id {own_id}), but another object of this name (id {kept}) was created \
                 at the same time, by another run, and is older; removing this run's copy \
                 failed: {error}; run `converge plan` to see what is left"
            ))
        })
}

fn outcome(
    kind: &str,
    kept: &str,
    removed: &[String],
    as_wanted: bool,
) -> Result<Option<String>, StepError> {
    let what = format!(
        "another run created this {kind} at the same time; its copy (id {kept}) is older and \
         is kept, this run's copy (id {}) was removed",
        removed.join(", ")
    );
    if as_wanted {
        Ok(Some(what))
    } else {
        Err(StepError::Stale(format!(
            "{what}, but the kept copy differs from this config: run `converge plan` again"
        )))
    }
}
