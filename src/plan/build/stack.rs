//! Stacks: the dashboards and alerts of a stack, and the owned ones the config no longer lists.

use crate::address::AddressBuf;
use crate::plan::kind::Live;
use crate::plan::kinds::alert::live as alert_live;
use crate::plan::kinds::dashboard::live as dashboard_live;
use std::borrow::Cow;
use std::collections::{BTreeMap, BTreeSet};

use serde_json::Value;

use super::builder::Builder;
use super::index::StackIndex;
use crate::api::wire::{Alert, Dashboard};
use crate::config::model::{self, Config, StackConfig};
use crate::diagnostic::{Code, Diagnostic};
use crate::live::StackLive;
use crate::plan::address::{Address, instance_entry};
use crate::plan::diff;
use crate::plan::kinds::alert::doomed_by;
use crate::plan::kinds::alert::op::AlertOp;
use crate::plan::kinds::dashboard::op::DashboardOp;
use crate::plan::kinds::dashboard::{
    CopyGoing, Planned, PlannedDashboard, carried, unlisted_tiles,
};
use crate::plan::model::{
    Action, Change, Fingerprint, NOT_OWNED, Operation, StackRef, StackTarget, Unmanaged,
};
use crate::plan::normalize;
use crate::plan::order;
use crate::plan::ownership::{
    Owned, Ownership, config_tags, mine, other_owner, removed_instance_owner,
};
use crate::plan::tag::ownership_tag;

impl Builder<'_> {
    /// Plans a stack: its dashboards, its alerts, and the owned ones the config no longer
    /// lists (alerts deleted first, dashboards last, each after what must go before it).
    pub(crate) fn stack(&mut self, config: &Config, stack: &StackConfig) {
        let Some(target) = self.stack_target(config, stack) else {
            return;
        };
        let stack_ref = StackRef {
            key: stack.key.value.clone(),
            target,
        };
        let empty = StackLive::default();
        let all = self.live.stacks.get(&stack.key.value).unwrap_or(&empty);
        let declared = config_tags(config.stacks.keys().map(String::as_str));
        // Never another stack's to match, change or prune (`plan/ownership.rs`).
        let mine = mine(&stack.key.value, all, &declared);
        let live: &StackLive = &mine;
        let tag = ownership_tag(&stack.key.value);
        let index = StackIndex::new(live, all, stack.generation.as_ref().map(|g| g.value));
        self.diagnostics.extend(carried_tiles(stack, &index));
        self.before_dashboards(stack, &stack_ref, (live, all));
        let first_step = self.plan.steps.len();
        // Dashboards: create or update, config order.
        let mut planned: BTreeMap<&str, PlannedDashboard> = BTreeMap::new();
        for dashboard in stack.dashboards.values() {
            if let Some(p) = self.dashboard(stack, &stack_ref, &index, &tag, dashboard) {
                planned.insert(dashboard.key.value.as_str(), p);
            }
        }
        self.diagnostics
            .extend(unlisted_tiles(stack, &index, &planned));
        let planned_by_live_id: BTreeMap<&str, &PlannedDashboard> = planned
            .values()
            .filter_map(|p| p.live.map(|d| (d.id.as_str(), p)))
            .collect();
        // What converge owns here (`plan/ownership.rs`): the tagged dashboards, the ones the
        // config lists, and the alerts on them.
        let listed: BTreeSet<&str> = planned
            .values()
            .filter_map(|p| p.live.map(|d| d.id.as_str()))
            .collect();
        let ownership = Ownership::new(&stack.key.value, &live.dashboards, |d| {
            listed.contains(d.id.as_str())
        });
        let owned: Vec<&Dashboard> = live
            .dashboards
            .iter()
            .filter(|d| ownership.tagged(d))
            .collect();

        // Steps touching alerts that live on each dashboard, so its delete waits for them.
        let mut alert_steps_by_dashboard: BTreeMap<String, Vec<usize>> = BTreeMap::new();
        let (stray_alerts, doomed_deletes) = self.stray_alerts(
            stack,
            &stack_ref,
            &index,
            (&ownership, &planned_by_live_id),
            &mut alert_steps_by_dashboard,
        );
        self.config_alerts(
            stack,
            &stack_ref,
            &index,
            (&planned, &planned_by_live_id),
            &stray_alerts,
            &mut alert_steps_by_dashboard,
        );
        self.dashboard_copies_going(&planned, &alert_steps_by_dashboard);
        self.stray_dashboards(
            stack,
            &stack_ref,
            owned,
            &planned,
            &alert_steps_by_dashboard,
        );
        self.run_deletes_first(doomed_deletes);
        self.closing_steps(stack, &stack_ref, (live, all), first_step);
        self.not_owned(stack, all, (&ownership, &declared), &planned);
        self.removed_instances(config, stack, &stack_ref, all);
    }

    /// Webhooks, sources and saved searches first: an alert or a tile that names one created
    /// here waits for its step. `live` is the stack's own view, `all` the team's lists.
    fn before_dashboards(
        &mut self,
        stack: &StackConfig,
        stack_ref: &StackRef,
        (live, all): (&StackLive, &StackLive),
    ) {
        self.webhooks = self.plan_webhooks(stack, stack_ref, live);
        self.plan_sources(stack, stack_ref, all);
        self.plan_saved_searches(stack, stack_ref, live);
    }

    /// After the alerts (planned since step `from`): the webhooks, saved searches and sources
    /// declared `absent`, and the steps naming a source created here made to wait for it.
    fn closing_steps(
        &mut self,
        stack: &StackConfig,
        stack_ref: &StackRef,
        (live, all): (&StackLive, &StackLive),
        from: usize,
    ) {
        self.absent_webhooks(stack, stack_ref, live, from);
        self.absent_saved_searches(stack, stack_ref, live, from);
        self.wait_for_sources(from);
        self.absent_sources(stack, stack_ref, all, from);
    }

    /// Moves each `(delete, update)` pair's delete before its update.
    fn run_deletes_first(&mut self, doomed_deletes: Vec<(usize, usize)>) {
        // Addresses first: each move renumbers the steps.
        let address = |id: usize| self.plan.steps.get(id).map(|s| s.address.clone());
        let moves: Vec<(AddressBuf, AddressBuf)> = doomed_deletes
            .into_iter()
            .filter_map(|(delete, update)| Some((address(delete)?, address(update)?)))
            .collect();
        for (delete, update) in moves {
            let position =
                |address: &AddressBuf| self.plan.steps.iter().position(|s| s.address == *address);
            if let (Some(moved), Some(before)) = (position(&delete), position(&update)) {
                order::run_before(&mut self.plan.steps, &mut self.plan.changes, moved, before);
            }
        }
    }

    /// The objects of the removed instances of a whole-stack template: live dashboards tagged
    /// for an `entry[key]` stack the config no longer has, where a remaining instance of that
    /// entry (the first one read, per API or service) finds them. Deleted with their alerts
    /// (prune), or reported, each at the removed instance's address.
    fn removed_instances(
        &mut self,
        config: &Config,
        stack: &StackConfig,
        stack_ref: &StackRef,
        live: &StackLive,
    ) {
        let Some(entry) = instance_entry(&stack.key.value) else {
            return;
        };
        let first = config.stacks.values().find(|s| {
            instance_entry(&s.key.value) == Some(entry)
                && same_target(&s.target, &stack.target)
                && self.live.scope.reads_stack(&s.key.value)
        });
        if first.is_none_or(|s| s.key.value != stack.key.value) {
            return;
        }
        // A dashboard some stack on the same API names (or named before a rename) is that
        // stack's, whatever tag it still carries: an instance whose key was renamed keeps its
        // dashboards, and the next apply tags them anew.
        let named: BTreeSet<String> = config
            .stacks
            .values()
            .filter(|s| same_target(&s.target, &stack.target))
            .flat_map(|s| s.dashboards.values())
            .flat_map(|d| std::iter::once(&d.name).chain(&d.renamed_from))
            .map(|n| normalize::name_key(&n.value))
            .collect();
        let mut gone: BTreeMap<&str, Vec<&Dashboard>> = BTreeMap::new();
        for dashboard in live
            .dashboards
            .iter()
            .filter(|d| !named.contains(&normalize::name_key(&d.name)))
        {
            if let Some(owner) =
                removed_instance_owner(dashboard, entry, |o| config.stacks.contains_key(o))
            {
                gone.entry(owner).or_default().push(dashboard);
            }
        }
        for (removed, dashboards) in gone {
            self.remove_instance(stack, stack_ref, live, removed, dashboards);
        }
    }

    /// The alerts and dashboards of one removed instance `removed`, alerts first: each
    /// dashboard's delete waits for those of its alerts.
    fn remove_instance(
        &mut self,
        stack: &StackConfig,
        stack_ref: &StackRef,
        live: &StackLive,
        removed: &str,
        mut dashboards: Vec<&Dashboard>,
    ) {
        dashboards.sort_by(|a, b| (&a.name, &a.id).cmp(&(&b.name, &b.id)));
        let ids: BTreeSet<&str> = dashboards.iter().map(|d| d.id.as_str()).collect();
        let mut alerts: Vec<&Alert> = live
            .alerts
            .iter()
            .filter(|a| a.dashboard.as_deref().is_some_and(|d| ids.contains(d)))
            .collect();
        alerts.sort_by(|a, b| (&a.name, &a.id).cmp(&(&b.name, &b.id)));
        let reason =
            format!("instance `{removed}` of a whole-stack template is no longer in the config");
        let mut alert_steps: BTreeMap<&str, Vec<usize>> = BTreeMap::new();
        for alert in alerts {
            let address = Address::LiveAlert {
                stack: removed,
                name: Cow::Borrowed(&alert.name),
            };
            let Some(address) = self.removed_object(address, &reason, stack.prune) else {
                continue;
            };
            let before = alert_live::alert(
                alert,
                dashboards
                    .iter()
                    .copied()
                    .find(|d| Some(d.id.as_str()) == alert.dashboard.as_deref()),
            );
            let operation = Operation::Alert(AlertOp::Delete {
                stack: stack_ref.clone(),
                alert_id: alert.id.clone(),
            });
            let mut change = deleted(address, before, alert.fingerprint());
            change.reason = format!("{reason}; prune is on");
            if let (Some(step), Some(d)) = (
                self.push(change, Some((operation, Vec::new()))),
                alert.dashboard.as_deref(),
            ) {
                alert_steps.entry(d).or_default().push(step);
            }
        }
        for dashboard in dashboards {
            let address = Address::LiveDashboard {
                stack: removed,
                name: Cow::Borrowed(&dashboard.name),
            };
            let Some(address) = self.removed_object(address, &reason, stack.prune) else {
                continue;
            };
            let operation = Operation::Dashboard(DashboardOp::Delete {
                stack: stack_ref.clone(),
                dashboard_id: dashboard.id.clone(),
            });
            let depends_on = alert_steps
                .remove(dashboard.id.as_str())
                .unwrap_or_default();
            let mut change = deleted(
                address,
                dashboard_live::dashboard(dashboard),
                dashboard.fingerprint(),
            );
            change.reason = format!("{reason}; prune is on");
            self.push(change, Some((operation, depends_on)));
        }
    }

    /// The address an object of a removed stack instance is deleted at (prune on); with prune
    /// off, `None`, and the object is reported.
    fn removed_object(
        &mut self,
        address: Address<'_>,
        reason: &str,
        prune: bool,
    ) -> Option<AddressBuf> {
        let address = AddressBuf::from(address);
        if prune {
            return Some(address);
        }
        self.plan.unmanaged.push(Unmanaged {
            address,
            reason: format!("{reason}; prune is off"),
        });
        None
    }

    /// With prune on, the live dashboards the config does not list that converge does not own
    /// (no ownership tag: made in the UI, or adopted through `export` and never changed since):
    /// prune leaves them, so the plan says so instead of reading as if the live state matched.
    fn not_owned(
        &mut self,
        stack: &StackConfig,
        live: &StackLive,
        (ownership, declared): (&Ownership, &BTreeSet<String>),
        planned: &BTreeMap<&str, PlannedDashboard>,
    ) {
        self.names_taken(stack, live, declared, planned);
        if !stack.prune {
            return;
        }
        let listed: BTreeSet<&str> = planned
            .values()
            .filter_map(|p| p.live.map(|d| d.id.as_str()))
            .collect();
        // Another instance of the same whole-stack template owns its own (or, removed,
        // `removed_instances` deletes them).
        let mut left: Vec<&Dashboard> = live
            .dashboards
            .iter()
            .filter(|d| !ownership.claimed_here_or_by_sibling(d) && !listed.contains(d.id.as_str()))
            .collect();
        let tag = ownership.tag();
        left.sort_by(|a, b| (&a.name, &a.id).cmp(&(&b.name, &b.id)));
        for dashboard in left {
            let reason = match other_owner(&stack.key.value, dashboard, declared) {
                // That stack's: it plans it.
                Some((_, true)) => continue,
                Some((other, false)) => format!(
                    "tagged `converge:{other}` for stack `{other}`, which this config does not \
                     have (another repository's stack on the same server?), so this stack \
                     leaves it as is"
                ),
                None => format!(
                    "{NOT_OWNED} (no `{tag}` tag) and not in the config, so prune leaves it as \
                     is: list it in the config to manage it (the next apply that changes it tags \
                     it), or delete it in its UI"
                ),
            };
            self.plan.unmanaged.push(Unmanaged {
                address: Address::LiveDashboard {
                    stack: &stack.key.value,
                    name: Cow::Borrowed(&dashboard.name),
                }
                .into(),
                reason,
            });
        }
    }

    /// An error at each dashboard the plan creates or renames to the name of a dashboard another
    /// stack owns on the same server (`live` is the whole stack's read): the server keeps one
    /// dashboard of a name, and this stack never takes another stack's.
    fn names_taken(
        &mut self,
        stack: &StackConfig,
        live: &StackLive,
        declared: &BTreeSet<String>,
        planned: &BTreeMap<&str, PlannedDashboard>,
    ) {
        for p in planned.values().filter(|p| p.step.is_some()) {
            let name = &p.config.name;
            let theirs = live.dashboards.iter().find_map(|d| {
                let other = other_owner(&stack.key.value, d, declared)?;
                (normalize::same_name(&d.name, &name.value) && p.live.is_none_or(|l| l.id != d.id))
                    .then_some((d, other))
            });
            let Some((dashboard, (other, in_config))) = theirs else {
                continue;
            };
            let whose = if in_config {
                "of this config"
            } else {
                "this config does not have (another repository's)"
            };
            self.error(Diagnostic::error(
                Code::PlanOtherStack,
                format!(
                    "dashboard `{}.{}` is named `{}`, the name of stack `{other}`'s dashboard \
                     on the same server (id {}, tagged `converge:{other}`; a stack {whose}): the \
                     server keeps one dashboard of a name, and stack `{}` never takes another \
                     stack's; give this dashboard another name",
                    stack.key.value, p.config.key.value, name.value, dashboard.id, stack.key.value
                ),
                Some(name.span),
            ));
        }
    }

    /// Where the stack's objects are written; `None` when it names a service the config does
    /// not define (reported).
    fn stack_target(&mut self, config: &Config, stack: &StackConfig) -> Option<StackTarget> {
        match &stack.target {
            model::StackTarget::Observability => Some(StackTarget::Observability),
            model::StackTarget::Managed { service } => match config.services.get(&service.value) {
                Some(s) => Some(StackTarget::Managed {
                    service_id: s.id.value.clone(),
                }),
                None => {
                    self.error(
                        Diagnostic::error(
                            Code::PlanUnknownService,
                            format!(
                                "stack `{}` names service `{}`, which the config does not define",
                                stack.key.value, service.value
                            ),
                            Some(service.span),
                        )
                        .with_help("name a key under `services:`"),
                    );
                    None
                }
            },
        }
    }

    /// Owned alerts missing from the config: deleted (prune; each delete step recorded under
    /// its dashboard) or reported. Returns them, sorted, and each delete whose tile a dashboard
    /// update removes with that update's step (the delete must run first).
    fn stray_alerts<'l>(
        &mut self,
        stack: &StackConfig,
        stack_ref: &StackRef,
        index: &StackIndex<'l>,
        (ownership, planned_by_live_id): (&Ownership, &BTreeMap<&str, &PlannedDashboard>),
        alert_steps_by_dashboard: &mut BTreeMap<String, Vec<usize>>,
    ) -> (Vec<&'l Alert>, Vec<(usize, usize)>) {
        let mut doomed_deletes = Vec::new();
        // A live alert named as the config names it now (as the server stores names), or as it
        // was named before a rename, is the config's: never stray, even when its own planning
        // reported an error.
        let config_alert_names: BTreeSet<String> = stack
            .alerts
            .values()
            .flat_map(|a| std::iter::once(&a.name).chain(&a.renamed_from))
            .map(|n| normalize::name_key(&n.value))
            .collect();
        let mut stray: Vec<&Alert> = index
            .live
            .alerts
            .iter()
            .filter(|a| {
                a.owned(ownership) && !config_alert_names.contains(&normalize::name_key(&a.name))
            })
            .collect();
        stray.sort_by(|a, b| (&a.name, &a.id).cmp(&(&b.name, &b.id)));
        for alert in &stray {
            let address = stray_address(stack, "alert", &alert.name);
            if !stack.prune {
                self.plan.unmanaged.push(Unmanaged {
                    address,
                    reason: "on a dashboard converge owns but not in the config; prune is off"
                        .into(),
                });
                continue;
            }
            let before = alert_live::alert(alert, index.dashboard_of(alert));
            let operation = Operation::Alert(AlertOp::Delete {
                stack: stack_ref.clone(),
                alert_id: alert.id.clone(),
            });
            let step = self.push(
                deleted(address, before, alert.fingerprint()),
                Some((operation, Vec::new())),
            );
            if let (Some(step), Some(d)) = (step, &alert.dashboard) {
                alert_steps_by_dashboard
                    .entry(d.clone())
                    .or_default()
                    .push(step);
            }
            // The server deletes the alert with its tile; deleting it first keeps the two
            // writes from racing (its DELETE would answer 404 after the update).
            if let (Some(step), Some(update)) = (
                step,
                doomed_by(index, planned_by_live_id, alert).and_then(|p| p.step),
            ) {
                doomed_deletes.push((step, update));
            }
        }
        (stray, doomed_deletes)
    }

    /// The config's alerts, then a hint for each new one on the tile of a stray alert (it may
    /// be a rename that forgot `renamedFrom`).
    fn config_alerts(
        &mut self,
        stack: &StackConfig,
        stack_ref: &StackRef,
        index: &StackIndex,
        planned: Planned,
        stray_alerts: &[&Alert],
        alert_steps_by_dashboard: &mut BTreeMap<String, Vec<usize>>,
    ) {
        let mut created_alerts = Vec::new();
        for alert in stack.alerts.values() {
            let created_on = self.alert(
                stack,
                stack_ref,
                index,
                planned,
                alert,
                alert_steps_by_dashboard,
            );
            if let Some(tile_id) = created_on {
                created_alerts.push((alert, tile_id));
            }
        }
        for (alert, tile_id) in created_alerts {
            let same_tile: Vec<&str> = stray_alerts
                .iter()
                .filter(|a| a.tile_id.as_deref() == Some(tile_id.as_str()))
                .map(|a| a.name.as_str())
                .collect();
            self.maybe_renamed("alert", &alert.key.value, &alert.name, &same_tile);
        }
    }

    /// The dashboard copies `--dedupe` deletes that hold alerts: each after the steps of the
    /// alerts on it (their deletes, and the creates of those whose only copy it held).
    fn dashboard_copies_going(
        &mut self,
        planned: &BTreeMap<&str, PlannedDashboard>,
        alert_steps_by_dashboard: &BTreeMap<String, Vec<usize>>,
    ) {
        let going: Vec<CopyGoing> = planned
            .values()
            .flat_map(|p| p.copies_going.iter().cloned())
            .collect();
        for copy in going {
            let mut depends_on = alert_steps_by_dashboard
                .get(&copy.id)
                .cloned()
                .unwrap_or_default();
            depends_on.sort_unstable();
            depends_on.dedup();
            self.push(copy.change, Some((copy.operation, depends_on)));
        }
    }

    /// Owned dashboards missing from the config: deleted last, after the alert steps on them
    /// (prune), or reported; first a hint for each new dashboard sharing a tile name with one
    /// of them.
    fn stray_dashboards(
        &mut self,
        stack: &StackConfig,
        stack_ref: &StackRef,
        owned: Vec<&Dashboard>,
        planned: &BTreeMap<&str, PlannedDashboard>,
        alert_steps_by_dashboard: &BTreeMap<String, Vec<usize>>,
    ) {
        // As for alerts: a name the config gives (or gave before a rename) is never stray.
        let config_dashboard_names: BTreeSet<String> = stack
            .dashboards
            .values()
            .flat_map(|d| std::iter::once(&d.name).chain(&d.renamed_from))
            .map(|n| normalize::name_key(&n.value))
            .collect();
        let mut stray: Vec<&Dashboard> = owned
            .into_iter()
            .filter(|d| !config_dashboard_names.contains(&normalize::name_key(&d.name)))
            .collect();
        stray.sort_by(|a, b| (&a.name, &a.id).cmp(&(&b.name, &b.id)));
        for created in planned.values().filter(|p| p.live.is_none()) {
            let config = created.config;
            let alike: Vec<&str> = stray
                .iter()
                .filter(|d| {
                    d.tiles
                        .iter()
                        .any(|t| config.tiles.iter().any(|c| c.name.value == t.name))
                })
                .map(|d| d.name.as_str())
                .collect();
            self.maybe_renamed("dashboard", &config.key.value, &config.name, &alike);
        }
        for dashboard in stray {
            let address = stray_address(stack, "dashboard", &dashboard.name);
            if !stack.prune {
                self.plan.unmanaged.push(Unmanaged {
                    address,
                    reason: "owned by converge but not in the config; prune is off".into(),
                });
                continue;
            }
            let before = dashboard_live::dashboard(dashboard);
            let operation = Operation::Dashboard(DashboardOp::Delete {
                stack: stack_ref.clone(),
                dashboard_id: dashboard.id.clone(),
            });
            let depends_on = alert_steps_by_dashboard
                .get(&dashboard.id)
                .cloned()
                .unwrap_or_default();
            self.push(
                deleted(address, before, dashboard.fingerprint()),
                Some((operation, depends_on)),
            );
        }
    }
}

/// Whether two stacks are written through the same API (the same service's, or the
/// standalone one).
fn same_target(a: &model::StackTarget, b: &model::StackTarget) -> bool {
    match (a, b) {
        (model::StackTarget::Observability, model::StackTarget::Observability) => true,
        (
            model::StackTarget::Managed { service: a },
            model::StackTarget::Managed { service: b },
        ) => a.value == b.value,
        _ => false,
    }
}

/// The address of an owned alert or dashboard the config no longer lists: the removed template
/// instance's (`alert.prod.api-errors[billing]`) when its live name reads as one of the
/// stack's templates makes it, else its live name's (`alert.prod["Old alert"]`).
fn stray_address(stack: &StackConfig, kind: &str, name: &str) -> AddressBuf {
    let stack_key = stack.key.value.as_str();
    let instance = stack
        .instance_names
        .iter()
        .filter(|n| n.kind == kind)
        .find_map(|n| Some(format!("{}[{}]", n.entry, n.removed_key(name)?)));
    let name = Cow::Borrowed(name);
    match (kind, &instance) {
        ("alert", Some(alert)) => Address::Alert {
            stack: stack_key,
            alert,
        }
        .into(),
        ("alert", None) => Address::LiveAlert {
            stack: stack_key,
            name,
        }
        .into(),
        (_, Some(dashboard)) => Address::Dashboard {
            stack: stack_key,
            dashboard,
        }
        .into(),
        (_, None) => Address::LiveDashboard {
            stack: stack_key,
            name,
        }
        .into(),
    }
}

/// The change of an owned object the config no longer lists, deleted by prune.
fn deleted(address: AddressBuf, before: Value, fingerprint: Fingerprint) -> Change {
    Change {
        address,
        action: Action::Delete,
        reason: "not in the config; prune is on".into(),
        fields: diff::deleted(&before),
        before: Some(before),
        after: None,
        fingerprint: Some(fingerprint),
        step: None,
        renamed_from: None,
    }
}

/// One warning per stack whose configured dashboards hold live tiles converge does not model
/// (a display type it does not know): they are carried over by id on every update.
pub(crate) fn carried_tiles(stack: &StackConfig, index: &StackIndex<'_>) -> Option<Diagnostic> {
    let mut found: Vec<String> = Vec::new();
    for dashboard in stack.dashboards.values() {
        let Some([live]) = index
            .dashboards_by_name
            .get(&normalize::name_key(&dashboard.name.value))
            .map(Vec::as_slice)
        else {
            continue;
        };
        for tile in live.tiles.iter().filter(|t| carried(t)) {
            found.push(format!("{} / {}", live.name, tile.name));
        }
    }
    let first = found.first()?;
    let more = match found.len() {
        1 => String::new(),
        n => format!(" and {} more", n - 1),
    };
    Some(
        Diagnostic::warning(
            Code::PlanCarriedTiles,
            format!(
                "stack `{}`: {} tile(s) ({first}{more}) are of a kind converge does not model (a `displayType` it does not know); every update sends them back as the server has them, by id",
                stack.key.value,
                found.len(),
            ),
            Some(stack.key.span),
        )
        .with_help("edit these tiles in the stack's own UI; converge neither compares nor changes them"),
    )
}
