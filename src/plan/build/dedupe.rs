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
//!   order). Another copy goes only when converge owns it (the stack's ownership tag) and every
//!   alert on it is a copy of one the config declares on that dashboard (what a run killed
//!   between its creates and its sweep leaves): deleting it takes those alerts with it, so each
//!   is deleted first and an alert whose only copy is there is created again on the copy that
//!   stays. A copy holding an alert the config does not declare (made by hand) is reported.
//! - an alert: the oldest stays; another copy goes only when it is on a dashboard converge owns.
//!   A copy on a dashboard copy that goes is deleted with it whatever its age: the alert that
//!   stays is the one on the dashboard that stays.
//!
//! Name alone is never enough ([`Repair::hold`]): a copy goes only when it is also what the
//! config makes (planning the config against it would change nothing), and none goes when the
//! copy that stays is not (a person changed it; the plan would overwrite it). An alert copy on
//! a dashboard copy that goes is held the same way where the alert is planned.
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
    /// The removable dashboard copies that hold alerts (copies of the config's), with how many:
    /// deleted after those alerts.
    pub(crate) holding: Vec<(String, usize)>,
}

/// The repair of a dashboard name held by `copies` (oldest first), given the stack's alerts,
/// its ownership tag and whether an alert is one the config declares on this dashboard (by its
/// name). `None` when there is no copy.
pub(crate) fn dashboards(
    copies: &[&Dashboard],
    alerts: &[Alert],
    tag: &str,
    declared: impl Fn(&Alert) -> bool,
) -> Option<Repair> {
    let alerts_on = |id: &str| {
        let id = id.to_string();
        alerts
            .iter()
            .filter(move |a| a.dashboard.as_deref() == Some(id.as_str()))
    };
    let pointing = |id: &str| alerts_on(id).count();
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
        holding: Vec::new(),
    };
    for copy in copies.iter().filter(|d| d.id != repair.kept) {
        let alerts = pointing(&copy.id);
        // Alerts the config does not declare here: a person's, which would go with the copy.
        let undeclared: Vec<&str> = alerts_on(&copy.id)
            .filter(|a| !declared(a))
            .map(|a| a.id.as_str())
            .collect();
        if !copy.tags.iter().any(|t| t == tag) {
            repair.left.push((
                copy.id.clone(),
                format!("converge does not own it, it has no `{tag}` tag"),
            ));
        } else if !undeclared.is_empty() {
            repair.left.push((
                copy.id.clone(),
                format!(
                    "it holds {} the config does not declare on this dashboard ({}), which \
                     would go with it",
                    if undeclared.len() == 1 {
                        "an alert"
                    } else {
                        "alerts"
                    },
                    ids(&undeclared
                        .iter()
                        .map(|id| (*id).to_string())
                        .collect::<Vec<_>>())
                ),
            ));
        } else {
            if alerts > 0 {
                repair.holding.push((copy.id.clone(), alerts));
            }
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
        holding: Vec::new(),
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
    /// Name alone never makes a copy converge's to delete: each removable copy stays unless
    /// `made` says it is what the config makes (`what` differs otherwise), and none goes when
    /// the copy that stays is not (a person changed it; the plan would then overwrite it).
    pub(crate) fn hold(&mut self, made: impl Fn(&str) -> bool, kind: &str, what: &str) {
        let kept_made = made(&self.kept);
        for id in std::mem::take(&mut self.removable) {
            if !kept_made {
                let why = format!(
                    "the {kind} that stays (id {}, {}) is not what the config makes, so a person \
                     may have changed it, and the plan would overwrite it",
                    self.kept, self.why
                );
                self.left.push((id, why));
            } else if !made(&id) {
                let why = format!(
                    "it is not what the config makes ({what} differ), so a person may have \
                     changed it"
                );
                self.left.push((id, why));
            } else {
                self.removable.push(id);
            }
        }
        let removable = &self.removable;
        self.holding.retain(|(id, _)| removable.contains(id));
    }

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
                 {kind}s ({removable}){}, or delete or rename all but one of them in the stack, \
                 then plan again",
                self.holding_words()
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

    /// What goes with the removable copies that hold alerts (nothing said when none do).
    fn holding_words(&self) -> String {
        let alerts: usize = self.holding.iter().map(|(_, n)| n).sum();
        let on = if self.holding.len() == 1 {
            "it"
        } else {
            "them"
        };
        let copies = match alerts {
            0 => return String::new(),
            1 => "the copy of the config's alert".to_string(),
            n => format!("the {n} copies of the config's alerts"),
        };
        format!(
            " and {copies} on {on} (an alert whose only copy is there is created again on the \
             one that stays)"
        )
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
    let mut reason = format!(
        "--dedupe: id {id} is a copy of `{of}`; {} (id {}) stays",
        repair.why, repair.kept
    );
    if let Some((_, alerts)) = repair.holding.iter().find(|(copy, _)| copy == id) {
        reason.push_str(&format!("; deleted after the {alerts} alert(s) on it"));
    }
    deleted_for(address, reason, before, fingerprint)
}

/// The change that deletes a copy, for `reason`.
pub(crate) fn deleted_for(
    address: Address<'_>,
    reason: String,
    before: Value,
    fingerprint: Fingerprint,
) -> Change {
    Change {
        address: address.into(),
        action: Action::Delete,
        reason,
        fields: diff::deleted(&before),
        before: Some(before),
        after: None,
        fingerprint: Some(fingerprint),
        step: None,
        renamed_from: None,
    }
}
