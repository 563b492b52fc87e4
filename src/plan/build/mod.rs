//! Building a plan: desired state against live state, per kind, with the rules that need live
//! facts. Pure: the same inputs give the same plan, byte for byte once rendered.
//!
//! [`plan`] walks the config; each kind is planned in its own file under `super::kinds`
//! (`service`, `private_endpoint`, `pipe`, `dashboard`, `alert`; a stack's in `stack` here,
//! which plans its dashboards and alerts), all through one `Builder` that collects the
//! changes, their steps and the diagnostics.

pub(crate) mod builder;
pub(crate) mod dedupe;
pub(crate) mod index;
pub(crate) mod names;
pub(crate) mod series;
mod stack;

pub(crate) use series::{resolve_config, resolve_source, wire_series};

use std::collections::{BTreeMap, BTreeSet};

use serde_json::Value;

use crate::config::model::Config;
use crate::diagnostic::{Code, Diagnostic};
use crate::live::LiveState;
use crate::plan::model::Plan;
use builder::Builder;

/// Options of `converge plan` that shape the plan itself.
#[derive(Debug, Clone, Default)]
pub struct PlanOptions {
    /// `--only` globs over addresses; empty keeps everything.
    pub only: Vec<String>,
    /// The time backup ages are measured from (the plan itself stays pure); `None` leaves the
    /// age condition unevaluated.
    pub now: Option<jiff::Timestamp>,
    /// `--dedupe`: a name the stack holds more than once is repaired by the plan's own deletes
    /// of the copies converge may remove ([`dedupe`]), instead of only being an error.
    pub dedupe: bool,
    /// Drop the live and desired values of each no-op change as it is planned: only
    /// `--format json` and a saved plan show them, and on a large config they are most of the
    /// plan's memory. Off by default: the plan keeps them.
    pub drop_unchanged_values: bool,
}

/// Computes the plan of `config` against `live`. Plan-time rule violations come back as
/// diagnostics pointing at the config; the objects they concern get no change.
pub fn plan(config: &Config, live: &LiveState, options: &PlanOptions) -> (Plan, Vec<Diagnostic>) {
    let mut builder = Builder {
        live,
        now: options.now,
        dedupe: options.dedupe,
        drop_unchanged_values: options.drop_unchanged_values,
        plan: Plan {
            organization: config.organization.value.clone(),
            ..Plan::default()
        },
        diagnostics: Vec::new(),
        webhooks: BTreeMap::new(),
        sources: BTreeMap::new(),
        reverse_endpoints: BTreeMap::new(),
    };
    // A run limited by `--only` read only the lists its addresses need; what was not read is
    // not planned (it would look missing), and `retain_addresses` drops it anyway.
    if live.scope.reads_services() {
        for service in config.services.values() {
            builder.service(service);
        }
    }
    for stack in config.stacks.values() {
        if live.scope.reads_stack(&stack.key.value) {
            builder.stack(config, stack);
        }
    }
    let Builder {
        mut plan,
        mut diagnostics,
        ..
    } = builder;
    let warnings = keep_only(&mut plan, &options.only);
    // After the filter: the names a partial plan shows are those of its own changes.
    plan.sources = source_names(&plan, live);
    plan.webhooks = webhook_names(&plan, live);
    diagnostics.extend(warnings);
    (plan, diagnostics)
}

/// Keeps the addresses `only` matches (all when empty), recording the globs in the plan; a
/// warning for each kept step that waits for one left out.
pub(crate) fn keep_only(plan: &mut Plan, only: &[String]) -> Vec<Diagnostic> {
    plan.retain_addresses(only)
        .into_iter()
        .map(|(kept, left_out)| {
            Diagnostic::warning(
                Code::PlanOnlyLeavesOutDependency,
                format!("`--only` keeps `{kept}` but leaves out `{left_out}`, which it waits for"),
                None,
            )
            .with_help(format!(
                "add an `--only` glob that matches `{left_out}`, or the step may fail when applied"
            ))
        })
        .collect()
}

/// The name of every source whose id a change shows (`sourceId`, or a source's `traceSourceId`
/// and the like, in a before or after value), from the stacks' sources lists.
pub(crate) fn source_names(plan: &Plan, live: &LiveState) -> BTreeMap<String, String> {
    let listed = live
        .stacks
        .values()
        .flat_map(|s| &s.sources)
        .map(|s| (s.id.as_str(), s.name.as_str()));
    names_shown(plan, |k| k == "sourceId" || k.ends_with("SourceId"), listed)
}

/// The name of every webhook whose id a change shows (`webhookId` in a before or after value),
/// from the stacks' webhooks lists (read when a config names a webhook by name).
pub(crate) fn webhook_names(plan: &Plan, live: &LiveState) -> BTreeMap<String, String> {
    let listed = live
        .stacks
        .values()
        .flat_map(|s| &s.webhooks)
        .map(|w| (w.id.as_str(), w.name.as_str()));
    names_shown(plan, |k| k == "webhookId", listed)
}

/// The names of the `listed` (id, name) pairs whose id a change shows under a key `key` takes.
fn names_shown<'l>(
    plan: &Plan,
    key: fn(&str) -> bool,
    listed: impl Iterator<Item = (&'l str, &'l str)>,
) -> BTreeMap<String, String> {
    fn ids<'v>(value: &'v Value, key: fn(&str) -> bool, out: &mut BTreeSet<&'v str>) {
        match value {
            Value::Object(map) => {
                for (k, v) in map {
                    match v {
                        Value::String(id) if key(k) => {
                            out.insert(id);
                        }
                        _ => ids(v, key, out),
                    }
                }
            }
            Value::Array(items) => items.iter().for_each(|v| ids(v, key, out)),
            _ => {}
        }
    }
    let mut wanted = BTreeSet::new();
    for change in &plan.changes {
        for value in change.before.iter().chain(&change.after) {
            ids(value, key, &mut wanted);
        }
    }
    let mut names = BTreeMap::new();
    for (id, name) in listed {
        if wanted.contains(id) && !name.is_empty() {
            names
                .entry(id.to_string())
                .or_insert_with(|| name.to_string());
        }
    }
    names
}
