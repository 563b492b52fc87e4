//! Drift: what differs between a config and the live state, framed for a scheduled job.
//!
//! A `Report` has three parts:
//! - **changed**: every plan change that is not a no-op, with each field's config value and
//!   live value;
//! - **unmanaged**: live objects that exist but no config entry manages: dashboards and alerts
//!   of a declared stack that carry no ownership tag (and are not named in the config) or that
//!   converge owns but the config no longer lists, private endpoints attached to a declared
//!   service whose config has no `privateEndpoints:` (with the list present, an extra endpoint
//!   is a change: the plan would detach it), and pipes of a declared service the config does not
//!   name. Pipes are only read for services that declare `pipes:`: a service without that key
//!   does not manage pipes, so its pipes are neither read nor reported;
//! - **checks**: backup checks (`check.<service>.backups`); a failed one is drift.
//!
//! Differences and failed checks are drift; unmanaged objects are always listed but count as
//! drift only when the team asks (`--fail-on-unmanaged`, `drift.failOnUnmanaged`), since a
//! stack often holds dashboards people made by hand on purpose.
//!
//! `--ignore` patterns and the config's `ignore:` list are globs (`crate::plan::glob`) over
//! addresses (`dashboard.prod.*`, `dashboard.prod[*`) and over field paths written after their
//! address (`service.analytics.scaling.numReplicas`). A change whose every field is ignored is
//! dropped. Everything silenced is counted in `Report::ignored` so nothing disappears quietly.

pub(crate) mod model;
pub mod render;

use crate::plan::kinds::private_endpoint::live as private_endpoint_live;
use std::borrow::Cow;
use std::collections::BTreeSet;

use serde_json::Value;

use crate::api::wire::Service;
use crate::config::model::{Config, ServiceConfig, StackConfig};
use crate::live::{LiveState, StackLive};
use crate::plan::AddressBuf;
use crate::plan::address::Address;
use crate::plan::ownership::{Owned, Ownership, config_tags, mine, other_owner};
use crate::plan::tag::ownership_tag;
use crate::plan::{Action, Change, FieldChange, Plan, glob, lines, normalize};

pub(crate) use model::{Changed, DriftField, Report, UnmanagedObject};

/// Builds the drift report of a computed plan. `ignore` holds the patterns from the command
/// line and the config together.
pub(crate) fn report(config: &Config, live: &LiveState, plan: &Plan, ignore: &[String]) -> Report {
    let mut ignoring = Ignoring {
        patterns: ignore,
        ignored: Vec::new(),
    };
    let changed = changed(config, plan, &mut ignoring);
    let unmanaged = unmanaged(config, live, plan, &mut ignoring);
    let checks = plan
        .checks
        .iter()
        .filter(|c| ignoring.keeps(&c.address))
        .cloned()
        .collect();
    let mut ignored = ignoring.ignored;
    ignored.sort();
    ignored.dedup();
    Report {
        organization: plan.organization.clone(),
        changed,
        unmanaged,
        checks,
        ignored,
        fail_on_unmanaged: config
            .drift
            .fail_on_unmanaged
            .as_ref()
            .is_some_and(|v| v.value),
        only: plan.only.clone(),
    }
}

/// The ignore patterns, and what they silenced so far.
struct Ignoring<'p> {
    patterns: &'p [String],
    ignored: Vec<String>,
}

impl Ignoring<'_> {
    /// Whether `name` (an address, or `address.field`) is kept: not matched by any pattern.
    /// What is not kept is recorded.
    fn keeps(&mut self, name: &str) -> bool {
        let silenced = self.patterns.iter().any(|p| glob::matches(p, name));
        if silenced {
            self.ignored.push(name.to_string());
        }
        !silenced
    }
}

/// Every plan change that is not a no-op, in display order, with the fields not ignored.
fn changed(config: &Config, plan: &Plan, ignoring: &mut Ignoring) -> Vec<Changed> {
    let mut changed = Vec::new();
    for change in plan.display_order() {
        if change.action == Action::NoOp || !ignoring.keeps(&change.address.to_string()) {
            continue;
        }
        let owner_tag = owner_tag_of(config, &change.address);
        let mut fields = Vec::new();
        // The fields shown, for the reason line: it names exactly the fields that have a line
        // below it (not one ignored, nor a `tags` differing only by the ownership tag).
        let mut kept = Vec::new();
        for original in &change.fields {
            let Some(field) = without_owner_tag(original, owner_tag.as_deref()) else {
                continue;
            };
            if !field.path.is_empty()
                && !ignoring.keeps(&format!("{}.{}", change.address, field.path))
            {
                continue;
            }
            kept.push(original.clone());
            fields.push(DriftField {
                path: field.path,
                config: field.after,
                live: field.before,
            });
        }
        // A change whose every differing field is accepted (or is the ownership tag apply
        // would add) is no drift.
        if fields.is_empty() && !change.fields.is_empty() {
            continue;
        }
        changed.push(Changed {
            address: change.address.to_string(),
            action: change.action,
            reason: reason_of_kept(&change.reason, &change.fields, &kept),
            fields: whole_elements(fields, change),
        });
    }
    changed
}

/// A list element added live (a tile the config does not have) is one field holding the whole
/// element, as the plan shows it as one block, not a field per leaf. (One the config has and
/// live lost stays field by field: each is what apply would write.)
fn whole_elements(fields: Vec<DriftField>, change: &Change) -> Vec<DriftField> {
    let mut out: Vec<DriftField> = Vec::new();
    let mut done: Vec<String> = Vec::new();
    for field in &fields {
        if let Some(element) = lines::element_of(&field.path) {
            if done.iter().any(|d| d == element) {
                continue;
            }
            let inside: Vec<&DriftField> = fields
                .iter()
                .filter(|f| lines::element_of(&f.path) == Some(element))
                .collect();
            let live = change
                .before
                .as_ref()
                .and_then(|v| lines::lookup(v, element));
            let config = change
                .after
                .as_ref()
                .and_then(|v| lines::lookup(v, element));
            if let (Some(live), None) = (live, config)
                && inside.iter().all(|f| f.config.is_none())
            {
                done.push(element.to_string());
                out.push(DriftField {
                    path: element.to_string(),
                    config: None,
                    live: Some(live.clone()),
                });
                continue;
            }
        }
        out.push(field.clone());
    }
    out
}

/// The reason line of a change some of whose fields were silenced: the field names it lists
/// (`idleScaling, numReplicas differ`) are those still shown, so an ignored field is never named.
fn reason_of_kept(
    reason: &str,
    all: &[crate::plan::FieldChange],
    kept: &[crate::plan::FieldChange],
) -> String {
    if kept.len() == all.len() {
        return reason.to_string();
    }
    match reason.strip_suffix(&crate::plan::diff::reason(all)) {
        Some(prefix) => format!("{prefix}{}", crate::plan::diff::reason(kept)),
        None => reason.to_string(),
    }
}

/// The plan's unmanaged objects and the live objects nothing manages, sorted, without those
/// ignored (or, for a partial plan, outside its `--only` patterns).
fn unmanaged(
    config: &Config,
    live: &LiveState,
    plan: &Plan,
    ignoring: &mut Ignoring,
) -> Vec<UnmanagedObject> {
    let mut unmanaged: Vec<UnmanagedObject> = plan
        .unmanaged
        .iter()
        .map(|u| UnmanagedObject {
            address: u.address.to_string(),
            reason: u.reason.clone(),
        })
        .chain(untracked(config, live, plan))
        .collect();
    // The plan kept only what `--only` selects; objects it does not know are filtered here.
    if plan.is_partial() {
        unmanaged.retain(|u| plan.only.iter().any(|p| glob::matches(p, &u.address)));
    }
    unmanaged.sort();
    unmanaged.dedup_by(|a, b| a.address == b.address);
    unmanaged.retain(|u| ignoring.keeps(&u.address));
    unmanaged
}

/// The ownership tag of the stack a dashboard address belongs to.
fn owner_tag_of(config: &Config, address: &AddressBuf) -> Option<String> {
    let view = address.view();
    let stack = view.dashboard_stack()?;
    config
        .stacks
        .keys()
        .find(|key| key.as_str() == stack)
        .map(|key| ownership_tag(key))
}

/// A dashboard's `tags` field without the ownership tag: the planner adds that tag to what it
/// writes, but a live dashboard lacking it has not drifted. `None` when nothing else differs.
fn without_owner_tag(field: &FieldChange, tag: Option<&str>) -> Option<FieldChange> {
    let Some(tag) = tag.filter(|_| field.path == "tags") else {
        return Some(field.clone());
    };
    let strip = |value: &Option<Value>| {
        value.as_ref().map(|v| match v {
            Value::Array(items) => Value::Array(
                items
                    .iter()
                    .filter(|t| t.as_str() != Some(tag))
                    .cloned()
                    .collect(),
            ),
            other => other.clone(),
        })
    };
    let before = strip(&field.before);
    let after = strip(&field.after);
    if before == after {
        return None;
    }
    Some(FieldChange {
        path: field.path.clone(),
        before,
        after,
    })
}

/// Live objects of declared services and stacks that the config does not manage at all (the
/// plan only knows about the owned ones).
fn untracked(config: &Config, live: &LiveState, plan: &Plan) -> Vec<UnmanagedObject> {
    let mut out = Vec::new();
    // The live pipes the plan writes to by id are the config's (found by a name they had before,
    // or a hinted rename), whatever their live name.
    let written: BTreeSet<&str> = plan
        .steps
        .iter()
        .filter_map(|step| {
            let crate::plan::target::Target::Pipe {
                key: crate::plan::target::Key::Id(id),
                ..
            } = step.operation.target()
            else {
                return None;
            };
            Some(id)
        })
        .collect();
    for service in config.services.values() {
        if let Some(live_service) = live.services.get(&service.id.value) {
            untracked_of_service(&mut out, service, live_service, (live, &written));
        }
    }
    let declared = config_tags(config.stacks.keys().map(String::as_str));
    for stack in config.stacks.values() {
        if let Some(stack_live) = live.stacks.get(&stack.key.value) {
            untracked_of_stack(&mut out, stack, stack_live, &declared);
        }
    }
    out
}

/// A declared service's endpoints (when the config has no `privateEndpoints:`) and the pipes
/// the config does not name (when it names any).
fn untracked_of_service(
    out: &mut Vec<UnmanagedObject>,
    service: &ServiceConfig,
    live_service: &Service,
    (live, written): (&LiveState, &BTreeSet<&str>),
) {
    let key = &service.key.value;
    if service.private_endpoints.is_none() {
        for id in private_endpoint_live::private_endpoint_ids(live_service) {
            out.push(UnmanagedObject {
                address: Address::PrivateEndpoint {
                    service: key,
                    id: &id,
                }
                .to_string(),
                reason: "attached to the service; the config has no `privateEndpoints:`".into(),
            });
        }
    }
    if !service.reverse_endpoints.is_empty() {
        let listed = live.reverse_endpoints.get(&service.id.value);
        for endpoint in listed.into_iter().flatten() {
            let description = &endpoint.spec.description;
            let declared = service.reverse_endpoints.values();
            if !declared.clone().any(|e| e.spec.description == *description) {
                out.push(UnmanagedObject {
                    address: crate::address::live_reverse_endpoint(key, description),
                    reason: format!(
                        "reverse private endpoint {} exists on the service; the config does not \
                         declare it",
                        endpoint.id
                    ),
                });
            }
        }
    }
    if !service.pipes.is_empty() {
        let listed = live
            .pipes
            .get(&service.id.value)
            .map_or(&[][..], Vec::as_slice);
        for pipe in listed {
            let unmanaged = |reason: String| UnmanagedObject {
                address: Address::LivePipe {
                    service: key,
                    name: Cow::Borrowed(&pipe.name),
                }
                .to_string(),
                reason,
            };
            if let Some(config_pipe) = copy_of(service, listed, pipe) {
                out.push(unmanaged(format!(
                    "pipe {} is a copy of `{}`, which the oldest pipe of its name answers \
                     (`plan::duplicate-pipe`)",
                    pipe.id,
                    Address::Pipe {
                        service: key,
                        pipe: &config_pipe.key.value
                    }
                )));
                continue;
            }
            let renamed = |p: &crate::config::model::PipeConfig| {
                p.renamed_from.iter().any(|old| old.value == pipe.name)
            };
            let named = service
                .pipes
                .values()
                .any(|p| p.is(&pipe.id, &pipe.name) || renamed(p));
            if !named && !written.contains(pipe.id.as_str()) {
                out.push(unmanaged(format!(
                    "pipe {} exists on the service; the config does not name it",
                    pipe.id
                )));
            }
        }
    }
}

/// The declared pipe `pipe` is a second live pipe of: one the config finds by name (no `id:`)
/// while an older pipe of that name answers it. The plan takes the oldest
/// (`plan::duplicate-pipe`), and `--dedupe` deletes the copy.
fn copy_of<'a>(
    service: &'a ServiceConfig,
    listed: &[crate::api::wire::Pipe],
    pipe: &crate::api::wire::Pipe,
) -> Option<&'a crate::config::model::PipeConfig> {
    service.pipes.values().find(|p| {
        p.id.is_none()
            && p.is(&pipe.id, &pipe.name)
            && listed.iter().find(|l| p.is(&l.id, &l.name)).map(|l| &l.id) != Some(&pipe.id)
    })
}

/// A declared stack's dashboards converge does not own, and the alerts on them the config does
/// not name.
fn untracked_of_stack(
    out: &mut Vec<UnmanagedObject>,
    stack: &StackConfig,
    all: &StackLive,
    declared: &BTreeSet<String>,
) {
    let key = &stack.key.value;
    // Another stack's dashboards and the alerts on them are that stack's (`plan/ownership.rs`);
    // one of a stack this config does not have is said with whose tag it carries.
    for dashboard in &all.dashboards {
        if let Some((other, false)) = other_owner(key, dashboard, declared) {
            out.push(UnmanagedObject {
                address: Address::LiveDashboard {
                    stack: key,
                    name: Cow::Borrowed(&dashboard.name),
                }
                .to_string(),
                reason: format!(
                    "tagged `converge:{other}` for stack `{other}`, which this config does not have"
                ),
            });
        }
    }
    let stack_live: &StackLive = &mine(key, all, declared);
    // Names as a server that normalises white space stores them, as the planner compares.
    let named_dashboards: BTreeSet<String> = stack
        .dashboards
        .values()
        .map(|d| normalize::name_key(&d.name.value))
        .collect();
    let named_alerts: BTreeSet<String> = stack
        .alerts
        .values()
        .map(|a| normalize::name_key(&a.name.value))
        .collect();
    // Dashboards converge owns (`plan/ownership.rs`): tagged, or named in the config. Alerts
    // on them are the plan's business (reported there as owned-but-unlisted).
    let ownership = Ownership::new(key, &stack_live.dashboards, |d| {
        named_dashboards.contains(&normalize::name_key(&d.name))
    });
    let tag = ownership.tag();
    for dashboard in &stack_live.dashboards {
        if !dashboard.owned(&ownership) {
            out.push(UnmanagedObject {
                address: Address::LiveDashboard {
                    stack: key,
                    name: Cow::Borrowed(&dashboard.name),
                }
                .to_string(),
                reason: format!("exists in the stack without the `{tag}` tag; not in the config"),
            });
        }
    }
    for alert in &stack_live.alerts {
        if !alert.owned(&ownership) && !named_alerts.contains(&normalize::name_key(&alert.name)) {
            out.push(UnmanagedObject {
                address: Address::LiveAlert {
                    stack: key,
                    name: Cow::Borrowed(&alert.name),
                }
                .to_string(),
                reason:
                    "exists in the stack on a dashboard converge does not manage; not in the config"
                        .into(),
            });
        }
    }
}

#[cfg(test)]
mod tests;
