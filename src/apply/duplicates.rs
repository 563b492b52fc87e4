//! Two runs that create the same object at the same time (two `apply`s of one config, a CI job
//! and a person) must not leave it twice. Dashboards and alerts are the only objects a create
//! can double: registering a private endpoint the service already has changes nothing.
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
//! What it costs: one more list read per create that other steps wait for (an alert waits for
//! its dashboard, which must be settled first); the creates nothing waits for are checked
//! together once every step has run, one read per scope ([`sweep`]). A delete is sent only when
//! two runs actually raced. Limits: a copy whose create answer was lost has no id this run can
//! prove, so it is never removed here; the next plan then refuses with the duplicate named
//! (`plan::duplicate-dashboard`).

use super::fresh::Data;
use super::send::write_idempotent;
use super::write::{Context, Made, StepError, read_failed};
use crate::api::wire::{Alert, Dashboard};
use crate::plan::{
    AlertOp, DashboardOp, Operation, PipeOp, PrivateEndpointOp, ServiceOp, normalize,
};

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
    // whose create landed earlier.
    let data = context
        .fresh
        .get(&scope, stack, context.fresh.now())
        .await
        .map_err(read_failed)?;
    settle(context, operation, own_id, &data).await
}

/// Checks the creates in `made` with one read per scope, made after all of them answered;
/// returns the steps whose outcome this changes (a copy removed, a read that failed).
pub(crate) async fn sweep(
    context: &Context,
    made: Vec<Made>,
) -> Vec<(usize, Result<Option<String>, StepError>)> {
    let ticket = context.fresh.now();
    let mut changed = Vec::new();
    for made in made {
        let (scope, stack) = super::fresh::scope_of(&made.operation);
        let outcome = match context.fresh.get(&scope, stack, ticket).await {
            Ok(data) => settle(context, &made.operation, &made.id, &data).await,
            Err(error) => Err(StepError::Failed(format!(
                "created (id {}), but the read that checks no other run created it at the same                  time failed: {error}; run `converge plan` to see whether it is there twice",
                made.id
            ))),
        };
        if !matches!(outcome, Ok(None)) {
            changed.push((made.step, outcome));
        }
    }
    changed
}

/// [`keep_oldest`] with the list already read.
async fn settle(
    context: &Context,
    operation: &Operation,
    own_id: &str,
    data: &Data,
) -> Result<Option<String>, StepError> {
    match (operation, data) {
        (Operation::Dashboard(DashboardOp::Create { stack, body }), Data::Dashboards(list)) => {
            let same: Vec<&Dashboard> = list
                .iter()
                .filter(|d| normalize::same_name(&d.name, &body.name))
                .collect();
            let Some(oldest) = oldest(&same, own_id, |d| &d.id) else {
                return Ok(None);
            };
            remove_own(context, operation, own_id, &oldest.id).await?;
            context.remember(stack, oldest.clone());
            let wanted = Dashboard {
                id: String::new(),
                name: oldest.name.clone(),
                tiles: body.tiles.clone(),
                tags: body.tags.clone(),
            };
            outcome(
                "dashboard",
                &oldest.id,
                own_id,
                normalize::dashboard(oldest) == normalize::dashboard(&wanted),
            )
        }
        (Operation::Alert(AlertOp::Create { body, .. }), Data::Alerts(list)) => {
            let name = body.name.as_deref().unwrap_or_default();
            let same: Vec<&Alert> = list
                .iter()
                .filter(|a| normalize::same_name(&a.name, name))
                .collect();
            let Some(oldest) = oldest(&same, own_id, |a| &a.id) else {
                return Ok(None);
            };
            remove_own(context, operation, own_id, &oldest.id).await?;
            let wanted = Alert {
                id: oldest.id.clone(),
                name: oldest.name.clone(),
                message: body.message.clone(),
                threshold: body.threshold,
                interval: body.interval.clone(),
                threshold_type: body.threshold_type.clone(),
                source: body.source.clone(),
                channel: body.channel.clone(),
                tile_id: body.tile_id.clone(),
                dashboard: body.dashboard_id.clone(),
                ..Alert::default()
            };
            outcome(
                "alert",
                &oldest.id,
                own_id,
                normalize::alert_with_ids(oldest) == normalize::alert_with_ids(&wanted),
            )
        }
        // Only a create can double, and its list is the one read for it.
        (
            Operation::Dashboard(
                DashboardOp::Create { .. }
                | DashboardOp::Update { .. }
                | DashboardOp::Delete { .. },
            )
            | Operation::Alert(
                AlertOp::Create { .. } | AlertOp::Update { .. } | AlertOp::Delete { .. },
            )
            | Operation::Service(ServiceOp::Scaling { .. })
            | Operation::PrivateEndpoint(
                PrivateEndpointOp::Create { .. } | PrivateEndpointOp::Detach { .. },
            )
            | Operation::Pipe(PipeOp::Scaling { .. } | PipeOp::Delete { .. }),
            Data::Services(_) | Data::Pipes(_) | Data::Dashboards(_) | Data::Alerts(_),
        ) => Ok(None),
    }
}

/// The copy to keep when `same` (in the server's order) holds more than this run's own copy
/// and that copy is not the oldest; `None` when there is nothing to remove.
fn oldest<'a, T>(same: &[&'a T], own_id: &str, id: impl Fn(&T) -> &String) -> Option<&'a T> {
    let first = *same.first()?;
    let own_listed = same.iter().any(|o| id(o) == own_id);
    (same.len() > 1 && own_listed && id(first) != own_id).then_some(first)
}

async fn remove_own(
    context: &Context,
    operation: &Operation,
    own_id: &str,
    kept: &str,
) -> Result<(), StepError> {
    let removal = match operation {
        Operation::Dashboard(DashboardOp::Create { stack, .. }) => {
            Operation::Dashboard(DashboardOp::Delete {
                stack: stack.clone(),
                dashboard_id: own_id.to_string(),
            })
        }
        Operation::Alert(AlertOp::Create { stack, .. }) => Operation::Alert(AlertOp::Delete {
            stack: stack.clone(),
            alert_id: own_id.to_string(),
        }),
        // Only a create leaves a copy of its own to remove.
        Operation::Dashboard(DashboardOp::Update { .. } | DashboardOp::Delete { .. })
        | Operation::Alert(AlertOp::Update { .. } | AlertOp::Delete { .. })
        | Operation::Service(ServiceOp::Scaling { .. })
        | Operation::PrivateEndpoint(
            PrivateEndpointOp::Create { .. } | PrivateEndpointOp::Detach { .. },
        )
        | Operation::Pipe(PipeOp::Scaling { .. } | PipeOp::Delete { .. }) => return Ok(()),
    };
    write_idempotent(context, &removal).await.map_err(|error| {
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
    removed: &str,
    as_wanted: bool,
) -> Result<Option<String>, StepError> {
    let what = format!(
        "another run created this {kind} at the same time; its copy (id {kept}) is older and \
         is kept, this run's copy (id {removed}) was removed"
    );
    if as_wanted {
        Ok(Some(what))
    } else {
        Err(StepError::Stale(format!(
            "{what}, but the kept copy differs from this config: run `converge plan` again"
        )))
    }
}
