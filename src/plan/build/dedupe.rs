//! The repair of a name a stack holds more than once (two runs that raced, a run killed between
//! its create and its clean-up, a copy made by hand): which copy stays, which go, and which
//! converge cannot prove are its own to delete. `plan --dedupe` and `apply --dedupe` plan the
//! deletes as the plan's own steps (destroys: gated by `--allow-destroy`, each shown, counted
//! and checked against what was read, like a prune); without the flag the plan's error offers
//! them.
//!
//! The rule, the same one concurrent applies follow when they race:
//!
//! - a dashboard: the copy the stack's alerts point at stays (it holds the tiles they watch);
//!   when none or several do, the oldest (the first the server lists: lists come in creation
//!   order). Another copy goes only when converge owns it (the stack's ownership tag) and no
//!   alert points at it: deleting it would take those alerts with it.
//! - an alert: the oldest stays; another copy goes only when it is on a dashboard converge owns.
//!
//! A copy that cannot go is reported with its id and why, and the plan stays an error for that
//! name: nothing is left silently.

use serde_json::Value;

use crate::api::wire::{Alert, Dashboard};
use crate::plan::address::Address;
use crate::plan::diff;
use crate::plan::model::{Action, Change, Fingerprint};

/// What the copies of one name come to.
pub(crate) struct Repair {
    /// The id of the copy that stays.
    pub(crate) kept: String,
    /// Which copy that is, in words (`the oldest`).
    pub(crate) why: &'static str,
    /// The other copies converge may delete, oldest first.
    pub(crate) removable: Vec<String>,
    /// The other copies it may not, each with the reason.
    pub(crate) left: Vec<(String, String)>,
}

/// The repair of a dashboard name held by `copies` (oldest first), given the stack's alerts and
/// its ownership tag. `None` when there is no copy.
pub(crate) fn dashboards(copies: &[&Dashboard], alerts: &[Alert], tag: &str) -> Option<Repair> {
    let pointing = |id: &str| {
        alerts
            .iter()
            .filter(|a| a.dashboard.as_deref() == Some(id))
            .count()
    };
    let referenced: Vec<&&Dashboard> = copies.iter().filter(|d| pointing(&d.id) > 0).collect();
    let (kept, why) = match referenced.as_slice() {
        [one] => (one.id.clone(), "the one the stack's alerts point at"),
        _ => (copies.first()?.id.clone(), OLDEST),
    };
    let mut repair = Repair {
        kept,
        why,
        removable: Vec::new(),
        left: Vec::new(),
    };
    for copy in copies.iter().filter(|d| d.id != repair.kept) {
        let alerts = pointing(&copy.id);
        if !copy.tags.iter().any(|t| t == tag) {
            repair.left.push((
                copy.id.clone(),
                format!("converge does not own it, it has no `{tag}` tag"),
            ));
        } else if alerts > 0 {
            repair.left.push((
                copy.id.clone(),
                format!("{alerts} alert(s) point at it, and would go with it"),
            ));
        } else {
            repair.removable.push(copy.id.clone());
        }
    }
    Some(repair)
}

/// The repair of an alert name held by `copies` (oldest first), given the stack's dashboards
/// and its ownership tag. `None` when there is no copy.
pub(crate) fn alerts(copies: &[&Alert], dashboards: &[Dashboard], tag: &str) -> Option<Repair> {
    let mut repair = Repair {
        kept: copies.first()?.id.clone(),
        why: OLDEST,
        removable: Vec::new(),
        left: Vec::new(),
    };
    for copy in copies.iter().skip(1) {
        let owned = dashboards.iter().any(|d| {
            copy.dashboard.as_deref() == Some(d.id.as_str()) && d.tags.iter().any(|t| t == tag)
        });
        if owned {
            repair.removable.push(copy.id.clone());
        } else {
            repair.left.push((
                copy.id.clone(),
                "it is on no dashboard converge owns".to_string(),
            ));
        }
    }
    Some(repair)
}

impl Repair {
    /// What to do, for the error of a plan made without `--dedupe` (`dedupe` false) or of one
    /// whose repair leaves copies converge may not delete.
    pub(crate) fn help(&self, kind: &str, dedupe: bool) -> String {
        let mut keep = format!("keep {} (id {})", self.why, self.kept);
        if self.why == OLDEST {
            keep.push_str(", the copy converge's own runs keep when they race");
        }
        let removable = ids(&self.removable);
        let left = self
            .left
            .iter()
            .map(|(id, why)| format!("id {id}: {why}"))
            .collect::<Vec<String>>()
            .join("; ");
        match (self.left.is_empty(), dedupe) {
            (true, _) => format!(
                "{keep}: run `converge apply --dedupe --allow-destroy` to delete the other \
                 {kind}s ({removable}), or delete or rename all but one of them in the stack, \
                 then plan again"
            ),
            (false, _) if self.removable.is_empty() => format!(
                "{keep}; converge may delete none of the others ({left}): delete or rename all \
                 but one of them in the stack, then plan again"
            ),
            (false, false) => format!(
                "{keep}; `converge apply --dedupe --allow-destroy` deletes {removable}, but not \
                 the others ({left}): delete or rename all but one of them in the stack, then \
                 plan again"
            ),
            (false, true) => format!(
                "{keep}; `--dedupe` would delete {removable}, but converge may not delete the \
                 others ({left}): delete or rename those in the stack, then plan again"
            ),
        }
    }
}

/// `id X` or `ids X, Y`.
fn ids(ids: &[String]) -> String {
    match ids {
        [one] => format!("id {one}"),
        _ => format!("ids {}", ids.join(", ")),
    }
}

/// The words of the rule that keeps the oldest copy.
const OLDEST: &str = "the oldest";

/// The change that deletes a copy (id `id` at `address`, as read in `before`) of the config
/// object at `of`, for `repair`.
pub(crate) fn deleted(
    address: Address<'_>,
    id: &str,
    of: &Address<'_>,
    repair: &Repair,
    before: Value,
    fingerprint: Fingerprint,
) -> Change {
    Change {
        address: address.to_string(),
        action: Action::Delete,
        reason: format!(
            "--dedupe: id {id} is a copy of `{of}`; {} (id {}) stays",
            repair.why, repair.kept
        ),
        fields: diff::deleted(&before),
        before: Some(before),
        after: None,
        fingerprint: Some(fingerprint),
        step: None,
        renamed_from: None,
    }
}
