//! Ownership: which live objects of a stack are converge's. The one rule, written once here and
//! asked by everything that decides about it: the planner (`plan/build/stack.rs`: what prune
//! deletes, what it reports as not owned, the alerts it manages), drift's unmanaged objects
//! (`drift/mod.rs`) and the saved-plan check (`plan/trust/`: a delete removes only what
//! converge owns; a whole plan accounts for everything it owns).
//!
//! The rule today: a stack's dashboard is converge's when it carries the stack's ownership tag
//! (`plan/tag.rs`), or when the config lists it (it is converge's to manage before the tag rides
//! along with a change); an alert is converge's when it is on such a dashboard. A dashboard
//! tagged for another instance of the same whole-stack template is that instance's, and one
//! tagged for an instance no longer declared is deleted by the first one still declared.

use std::collections::BTreeSet;

use super::address::instance_entry;
use super::tag::{owner, ownership_tag};
use crate::api::wire::{Alert, Dashboard};

/// What converge owns of one stack's live dashboards and alerts.
#[derive(Debug)]
pub(crate) struct Ownership<'l> {
    /// The stack's key.
    stack: &'l str,
    /// The stack's ownership tag.
    tag: String,
    /// The ids of the dashboards converge owns (tagged, or listed by the config).
    dashboards: BTreeSet<&'l str>,
}

impl<'l> Ownership<'l> {
    /// What stack `stack` owns of `dashboards`, the live dashboards read on its server (and
    /// so of the alerts on them), where `listed` says which of them the config lists (the
    /// saved-plan check, which has no config, lists none).
    pub(crate) fn new(
        stack: &'l str,
        dashboards: &'l [Dashboard],
        listed: impl Fn(&Dashboard) -> bool,
    ) -> Self {
        let tag = ownership_tag(stack);
        let dashboards = dashboards
            .iter()
            .filter(|d| d.tags.contains(&tag) || listed(d))
            .map(|d| d.id.as_str())
            .collect();
        Ownership {
            stack,
            tag,
            dashboards,
        }
    }

    /// The stack's ownership tag.
    pub(crate) fn tag(&self) -> &str {
        &self.tag
    }

    /// Whether the dashboard carries this stack's tag: what prune may delete once the config
    /// no longer lists it.
    pub(crate) fn tagged(&self, dashboard: &Dashboard) -> bool {
        dashboard.tags.contains(&self.tag)
    }

    /// Whether the dashboard is tagged for this stack or for another instance of the same
    /// whole-stack template (which owns its own): a dashboard with neither is not converge's
    /// here, and prune leaves it.
    pub(crate) fn claimed_here_or_by_sibling(&self, dashboard: &Dashboard) -> bool {
        let entry = instance_entry(self.stack);
        let sibling = |t: &String| entry.is_some() && owner(t).and_then(instance_entry) == entry;
        dashboard.tags.iter().any(|t| *t == self.tag || sibling(t))
    }

    /// Whether converge owns the dashboard (tagged, or listed by the config).
    pub(crate) fn owns_dashboard(&self, dashboard: &Dashboard) -> bool {
        self.dashboards.contains(dashboard.id.as_str())
    }

    /// Whether converge owns the alert: it is on a dashboard converge owns.
    pub(crate) fn owns_alert(&self, alert: &Alert) -> bool {
        alert
            .dashboard
            .as_deref()
            .is_some_and(|d| self.dashboards.contains(d))
    }
}

/// The removed instance of the whole-stack template `entry` that owns `dashboard`: the stack its
/// tag names, an instance of `entry` that is no longer `declared` (its objects are deleted by
/// the first instance still declared).
pub(crate) fn removed_instance_owner<'d>(
    dashboard: &'d Dashboard,
    entry: &str,
    declared: impl Fn(&str) -> bool,
) -> Option<&'d str> {
    dashboard
        .tags
        .iter()
        .find_map(|t| owner(t).filter(|o| instance_entry(o) == Some(entry) && !declared(o)))
}
