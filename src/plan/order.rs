//! The step graph (DESIGN section 5). The planner emits steps so that every dependency comes
//! earlier in the list:
//! - private endpoints, service scaling and pipe scaling are independent;
//! - an alert's create or update waits for the create or update of its dashboard;
//! - a pruned alert is deleted, and an alert moving off a dashboard is updated, before that
//!   dashboard is deleted (deleting a dashboard deletes its alerts on the server);
//! - a pruned alert whose tile a dashboard update removes is deleted before that update
//!   (the update deletes the alert on the server, and the alert's DELETE would then race it).
//!
//! `levels` groups steps that may run together; `apply` runs a level's steps concurrently.

use super::model::{Change, Step};

/// Why a step list is not in an order apply can follow.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub(crate) enum OrderError {
    /// A step whose id is not its position.
    #[error("step {id} is listed at position {position}")]
    Misplaced {
        /// The step's id.
        id: usize,
        /// Where it is listed.
        position: usize,
    },
    /// A step that depends on itself or on a later step.
    #[error("step {index} ({address}) depends on step {dependency}, which does not come before it")]
    Forward {
        /// The step's position.
        index: usize,
        /// The step's address.
        address: String,
        /// The step it depends on.
        dependency: usize,
    },
}

/// Checks that every dependency names an earlier step (so the list order is a valid order).
pub(crate) fn check(steps: &[Step]) -> Result<(), OrderError> {
    for (index, step) in steps.iter().enumerate() {
        if step.id != index {
            return Err(OrderError::Misplaced {
                id: step.id,
                position: index,
            });
        }
        if let Some(bad) = step.depends_on.iter().find(|d| **d >= index) {
            return Err(OrderError::Forward {
                index,
                address: step.address.to_string(),
                dependency: *bad,
            });
        }
    }
    Ok(())
}

/// Moves the step at `moved` to just before the step at `before` (which comes earlier) and
/// makes that step wait for it; every id, dependency and change's step number follows. Does
/// nothing (returns false) when `moved` does not come after `before` or depends on a step at
/// or after `before`, since it could then not run first.
pub(crate) fn run_before(
    steps: &mut Vec<Step>,
    changes: &mut [Change],
    moved: usize,
    before: usize,
) -> bool {
    let Some(step) = steps.get(moved) else {
        return false;
    };
    if before >= moved || step.depends_on.iter().any(|d| *d >= before) {
        return false;
    }
    let renumber = |id: usize| match id {
        id if id == moved => before,
        id if id >= before && id < moved => id + 1,
        id => id,
    };
    let step = steps.remove(moved);
    steps.insert(before, step);
    for step in steps.iter_mut() {
        step.id = renumber(step.id);
        for dependency in &mut step.depends_on {
            *dependency = renumber(*dependency);
        }
    }
    for change in changes.iter_mut() {
        change.step = change.step.map(renumber);
    }
    if let Some(waiting) = steps.get_mut(before + 1) {
        waiting.depends_on.push(before);
        waiting.depends_on.sort_unstable();
    }
    true
}

/// Groups steps into levels: a step's level is one more than its deepest dependency. Steps of
/// one level are independent of each other.
#[cfg(test)]
pub(crate) fn levels(steps: &[Step]) -> Vec<Vec<usize>> {
    let mut level_of = vec![0usize; steps.len()];
    let mut levels: Vec<Vec<usize>> = Vec::new();
    for (index, step) in steps.iter().enumerate() {
        let level = step
            .depends_on
            .iter()
            .filter(|d| **d < index)
            .map(|d| level_of[*d] + 1)
            .max()
            .unwrap_or(0);
        level_of[index] = level;
        if levels.len() <= level {
            levels.resize(level + 1, Vec::new());
        }
        levels[level].push(index);
    }
    levels
}

/// The step list as printed under a plan: `1. address` and `(after 1, 2)` for dependencies;
/// numbers are 1-based.
pub(crate) fn describe(steps: &[Step]) -> Vec<String> {
    steps
        .iter()
        .map(|step| {
            let mut line = format!("{}. {}", step.id + 1, step.address);
            if !step.depends_on.is_empty() {
                let after: Vec<String> = step
                    .depends_on
                    .iter()
                    .map(|d| (d + 1).to_string())
                    .collect();
                line.push_str(&format!(" (after {})", after.join(", ")));
            }
            line
        })
        .collect()
}
