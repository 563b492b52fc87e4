//! The steps a saved plan's changes call for, and what of them only the live state can tell:
//! the engine of the check, which asks each step's kind ([`super::Check`]) and names none.

use std::collections::BTreeMap;

use super::sent::Disagreement;
use crate::live::LiveState;
use crate::plan::address::{Address, instance_entry};
use crate::plan::model::{Action, AddressBuf, Change, Operation, Plan, StackRef, Step};
use crate::plan::normalize;
use crate::plan::target::Effect;

/// The steps `plan`'s changes call for: its steps when they agree with the changes (alert
/// targets taken by name from the changes); otherwise every disagreement, one line each.
pub(crate) fn steps(plan: &Plan) -> Result<Vec<Step>, Vec<String>> {
    let mut problems = Vec::new();
    let mut carried: BTreeMap<usize, Vec<&AddressBuf>> = BTreeMap::new();
    let mut seen: BTreeMap<String, usize> = BTreeMap::new();
    for change in &plan.changes {
        *seen.entry(change.address.to_string()).or_default() += 1;
        if let Some(step) = change.step {
            carried.entry(step).or_default().push(&change.address);
        }
    }
    for (address, count) in &seen {
        if *count > 1 {
            problems.push(format!(
                "{address} is listed {count} times among the changes"
            ));
        }
    }
    let mut steps = plan.steps.clone();
    for (index, step) in steps.iter_mut().enumerate() {
        match carried.get(&index).map(Vec::len).unwrap_or(0) {
            0 => problems.push(format!(
                "step {} ({}) is no change's step: it writes something the plan does not show",
                index + 1,
                step.address
            )),
            1 => {}
            n => problems.push(format!(
                "step {} ({}) is the step of {n} changes",
                index + 1,
                step.address
            )),
        }
        let change = plan
            .changes
            .iter()
            .find(|c| c.step == Some(index) && c.address == step.address);
        if let Some(change) = change {
            match agree(change, step) {
                Ok(derived) => *step = derived,
                Err(problem) => problems.push(format!("{}: {problem}", change.address)),
            }
        }
    }
    for change in &plan.changes {
        match (change.action, change.step) {
            (Action::NoOp, Some(step)) => problems.push(format!(
                "{} is unchanged (no-op) but has step {}",
                change.address,
                step + 1
            )),
            (Action::NoOp, None) => {}
            (action, None) => problems.push(format!(
                "{} is a {} with no step",
                change.address,
                action.as_str()
            )),
            (_, Some(_)) => {}
        }
    }
    problems.extend(waits_for_dashboards(&steps));
    if problems.is_empty() {
        Ok(steps)
    } else {
        Err(problems)
    }
}

/// The step `change` calls for, when `step` agrees with it.
fn agree(change: &Change, step: &Step) -> Result<Step, Disagreement> {
    if step.fingerprint != change.fingerprint {
        return Err(Disagreement::Fingerprint {
            step: step.fingerprint,
            change: change.fingerprint,
        });
    }
    let action = change.action;
    let kind_fits = fits(&step.operation, action, &change.address.view());
    if !kind_fits {
        return Err(Disagreement::Kind {
            action,
            kind: step.operation.name().kind(),
            place: step.operation.target().place(),
        });
    }
    let mut derived = step.clone();
    if let Some(operation) = super::check::of(&step.operation).sends_what_it_shows(change)? {
        derived.operation = operation;
    }
    Ok(derived)
}

/// Whether an operation carries out a change of `action` at `address`: it does what the
/// change does, to an object of the address's kind (and stack, endpoint id).
fn fits(operation: &Operation, action: Action, address: &Address<'_>) -> bool {
    // A removed instance of a whole-stack template is deleted through a remaining instance of
    // the same entry (the config has no stack of its key to reach the API by).
    let entry = address.stack().and_then(instance_entry);
    let in_stack = |stack: &StackRef| {
        address.stack() == Some(stack.key.as_str())
            || (operation.effect() == Effect::Delete
                && entry.is_some()
                && entry == instance_entry(&stack.key))
    };
    let at_address = operation.fits(address) && operation.target().stack().is_none_or(in_stack);
    // A replacement's change says both halves, as its effect does.
    let carried = Action::from(operation.effect());
    carried == action && at_address
}

/// An alert whose dashboard this plan creates or updates must wait for that step: run before
/// it, the alert would point at a tile that is not there yet, or one the update removes.
fn waits_for_dashboards(steps: &[Step]) -> Vec<String> {
    let mut dashboard_steps: BTreeMap<(&str, String), usize> = BTreeMap::new();
    for (index, step) in steps.iter().enumerate() {
        if let Some((stack, body)) = step.operation.dashboard_sent() {
            dashboard_steps.insert((stack.key.as_str(), normalize::name_key(&body.name)), index);
        }
    }
    let mut problems = Vec::new();
    for step in steps {
        if let Some((stack, dashboard)) = step.operation.dashboard_by_name()
            && let Some(needed) =
                dashboard_steps.get(&(stack.key.as_str(), normalize::name_key(dashboard)))
            && !step.depends_on.contains(needed)
        {
            problems.push(format!(
                "{} no longer waits for step {} ({}), which changes its dashboard",
                step.address,
                needed + 1,
                steps
                    .get(*needed)
                    .map_or_else(|| "?".to_string(), |s| s.address.to_string())
            ));
        }
    }
    problems
}

/// Checks what only the live state can tell, with the reads made before any write (each kind
/// says what, [`super::Check::against_live`]): a dashboard update carries forward exactly the
/// ids of the live tiles of the same names, and an alert step whose change leaves the message
/// unmanaged sends the live message. One line per disagreement.
pub(crate) fn against_live(plan: &Plan, live: &LiveState) -> Vec<String> {
    let mut problems = Vec::new();
    for change in &plan.changes {
        let Some(step) = change.step.and_then(|s| plan.steps.get(s)) else {
            continue;
        };
        problems.extend(super::check::of(&step.operation).against_live(change, live));
    }
    problems
}

/// Whether the saved-plan check before any write must read the list of `step`'s object even
/// though the step itself is checked only when it runs: an alert create that sends a message
/// its change does not show is confirmed against the live alert it replaces.
pub(crate) fn read_for_check(plan: &Plan, step: &Step) -> bool {
    super::check::of(&step.operation).read_for_check(plan, step.id)
}
