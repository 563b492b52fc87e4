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
//!
//! An object belongs to exactly one stack: a dashboard tagged for another stack (of this config,
//! or of another repository's) is that stack's, and so are the alerts on it. A stack neither
//! matches nor strips, rewrites or deletes it ([`mine`] leaves it out of what the stack reads).

use std::borrow::Cow;
use std::collections::BTreeSet;

use super::address::instance_entry;
use super::tag::{owner, ownership_tag};
use crate::api::wire::{Alert, Dashboard};
use crate::live::StackLive;

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

    /// Whether converge owns the dashboard of id `id` (tagged, or listed by the config): what
    /// each kind's [`Owned`] rule is made from.
    pub(crate) fn owns_dashboard_id(&self, id: &str) -> bool {
        self.dashboards.contains(id)
    }
}

/// Who owns a stack object: each kind's rule, on its live type in its
/// `plan/kinds/<kind>/live.rs` (a dashboard is converge's when tagged or listed, an alert when
/// it is on such a dashboard). The planner's prune, drift's unmanaged objects and the
/// saved-plan check ask it; none reads the ownership tag itself.
pub(crate) trait Owned {
    /// Whether converge owns it, by the stack's `ownership`.
    fn owned(&self, ownership: &Ownership<'_>) -> bool;
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

/// The other stack a dashboard belongs to, seen from stack `stack`: the first ownership tag it
/// carries when it does not carry `stack`'s own, unless that tag names a removed instance of
/// `stack`'s whole-stack template (the first instance still declared deletes those). `declared`
/// holds the ownership tags of the config's stacks ([`config_tags`]); the answer says whether
/// the owner is one of them.
pub(crate) fn other_owner<'d>(
    stack: &str,
    dashboard: &'d Dashboard,
    declared: &BTreeSet<String>,
) -> Option<(&'d str, bool)> {
    let own = ownership_tag(stack);
    if dashboard.tags.contains(&own) {
        return None;
    }
    let entry = instance_entry(stack);
    dashboard.tags.iter().find_map(|t| {
        let o = owner(t)?;
        let in_config = declared.contains(t);
        let removed_sibling = entry.is_some() && instance_entry(o) == entry && !in_config;
        (!removed_sibling).then_some((o, in_config))
    })
}

/// The ownership tags of a config's stacks, by their keys.
pub(crate) fn config_tags<'k>(keys: impl IntoIterator<Item = &'k str>) -> BTreeSet<String> {
    keys.into_iter().map(ownership_tag).collect()
}

/// What stack `stack` reads of `live` as its own to match, change and prune: everything but the
/// dashboards another stack owns ([`other_owner`]) and the alerts on them.
pub(crate) fn mine<'l>(
    stack: &str,
    live: &'l StackLive,
    declared: &BTreeSet<String>,
) -> Cow<'l, StackLive> {
    let theirs: BTreeSet<&str> = live
        .dashboards
        .iter()
        .filter(|d| other_owner(stack, d, declared).is_some())
        .map(|d| d.id.as_str())
        .collect();
    if theirs.is_empty() {
        return Cow::Borrowed(live);
    }
    let on_theirs = |a: &Alert| a.dashboard.as_deref().is_some_and(|d| theirs.contains(d));
    Cow::Owned(StackLive {
        dashboards: live
            .dashboards
            .iter()
            .filter(|d| !theirs.contains(d.id.as_str()))
            .cloned()
            .collect(),
        alerts: live
            .alerts
            .iter()
            .filter(|a| !on_theirs(a))
            .cloned()
            .collect(),
        sources: live.sources.clone(),
        webhooks: live.webhooks.clone(),
        connections: live.connections.clone(),
        saved_searches: live.saved_searches.clone(),
    })
}

/// Whether a dashboard carries another stack's ownership tag and not `stack`'s own: a create in
/// `stack` never counts it as the object it creates (it is that stack's).
pub(crate) fn tagged_for_another(stack: &str, dashboard: &Dashboard) -> bool {
    let own = ownership_tag(stack);
    !dashboard.tags.contains(&own) && dashboard.tags.iter().any(|t| owner(t).is_some())
}
