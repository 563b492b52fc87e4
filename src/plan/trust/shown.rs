//! What a reviewer of a saved plan saw is its rendered changes: each change's address and
//! `fields` (the text and Markdown print nothing else of it). [`super::steps`] ties the steps
//! to each change's `after`; [`shown_against_live`] ties `after`, `before` and the target to
//! what was shown, with the live state read now, so a file edited to write more than its
//! review showed is refused. Each kind says what that is for it
//! ([`super::Check::shown_against_live`]), with the helpers here:
//!
//! - the object a dashboard or alert step writes to is the one its address names in the live
//!   state (by name within the step's stack: the live name the change shows, or the desired
//!   name), never another id the file carries ([`the_one`]);
//! - its `before` is that object as read now, and its `fields` are exactly what turns that
//!   into its `after` (no field changes unshown, none shown that does not change);
//! - a delete removes only an object converge owns (a dashboard with the stack's ownership tag,
//!   an alert on such a dashboard), listed as a delete among the file's changes.
//!
//! A create's fields are every field of its `after` ([`created`]), which needs no read.
//!
//! The file is saved masked, so a live name that holds a secret reads back as the mask: an
//! object is found by its name as read or as masked, and a delete's `before` may be the object
//! masked. An update is compared unmasked, so one whose desired values hold the mask (it would
//! write the mask over the secret) is refused.

use std::collections::{BTreeMap, BTreeSet};

use serde_json::Value;

use crate::address::StackList;
use crate::api::wire::Dashboard;
use crate::live::LiveState;
use crate::output::Printer;
use crate::plan::diff;
use crate::plan::model::{Action, AddressBuf, Change, FieldChange, Operation, Plan, StackRef};
use crate::plan::normalize;
use crate::plan::ownership::{Owned, Ownership};
use crate::plan::target::Effect;

/// Whether `step`'s check needs its stack's dashboards and alerts read: every dashboard and
/// alert step but a create (whose fields are checked without a read).
pub(crate) fn reads_stack(operation: &Operation) -> Option<&StackRef> {
    match operation.effect() {
        Effect::Create => None,
        Effect::Update | Effect::Delete | Effect::Replace => operation.target().stack(),
    }
}

/// Every way the plan's dashboard and alert steps would do other than its rendered changes
/// show, given `live` (holding the dashboards and alerts of each stack [`reads_stack`] names):
/// one line each, empty when every step does exactly what was shown. Steps in `stale` (their
/// objects changed since the plan was made) are left to the stale check.
pub(crate) fn shown_against_live(
    plan: &Plan,
    live: &LiveState,
    stale: &BTreeSet<usize>,
    printer: &Printer,
) -> Vec<String> {
    let mut problems = Vec::new();
    for change in &plan.changes {
        let Some(step) = change.step.and_then(|s| plan.steps.get(s)) else {
            continue;
        };
        // A stale step stops the whole run before any write (exit 3): its object is no longer
        // what the change shows, so there is nothing here to compare it with.
        if stale.contains(&step.id) {
            continue;
        }
        let found =
            super::check::of(&step.operation).shown_against_live(plan, change, live, printer);
        if let Err(problem) = found {
            problems.push(format!("{}: {problem}", change.address));
        }
    }
    problems.extend(unaccounted(plan, live, printer));
    problems
}

/// A whole plan accounts for every object converge owns in each stack it read: each live
/// dashboard with the stack's ownership tag, and each alert on one, is named by a change of
/// that stack or reported as unmanaged. A file edited to leave out a change together with its
/// step (a delete above all) still reads as a plan, and its steps all do what it shows; what
/// it no longer shows is what the live state holds and the plan does not name. An object made
/// after the plan is missing the same way, and planning again shows it. A plan limited by
/// `--only` says nothing about the rest, so it is not checked.
fn unaccounted(plan: &Plan, live: &LiveState, printer: &Printer) -> Vec<String> {
    if !plan.only.is_empty() {
        return Vec::new();
    }
    // Each name by its server-side key (`normalize::name_key`), so a live object is looked up
    // once, not compared with every name of a large plan.
    let mut named: BTreeSet<(StackList, &str, String)> = BTreeSet::new();
    let addresses = plan
        .changes
        .iter()
        .map(|c| (&c.address, Some(c)))
        .chain(plan.unmanaged.iter().map(|u| (&u.address, None)));
    for (address, change) in addresses {
        // Not a stack's dashboard or alert: nothing the ownership tag accounts for.
        let Some((held, stack, live_name)) = address.stack_object() else {
            continue;
        };
        let shown = change.into_iter().flat_map(|c| c.names_shown()).flatten();
        for name in live_name.into_iter().chain(shown) {
            named.insert((held, stack, normalize::name_key(name)));
        }
    }
    // As the file is saved masked, a live name holding a secret reads back as the mask.
    let known = |held: StackList, stack: &str, name: &str| {
        [name.to_owned(), printer.redact(name).into_owned()]
            .into_iter()
            .any(|n| named.contains(&(held, stack, normalize::name_key(&n))))
    };
    let mut problems = Vec::new();
    for (stack, read) in &live.stacks {
        // What converge owns (`plan/ownership.rs`); a saved plan has no config to list more.
        let ownership = Ownership::new(stack, &read.dashboards, |_| false);
        let tag = ownership.tag();
        for dashboard in read.dashboards.iter().filter(|d| d.owned(&ownership)) {
            if !known(StackList::Dashboards, stack, &dashboard.name) {
                problems.push(not_named("dashboard", stack, &dashboard.name, tag, printer));
            }
        }
        for alert in &read.alerts {
            if alert.owned(&ownership) && !known(StackList::Alerts, stack, &alert.name) {
                problems.push(not_named("alert", stack, &alert.name, tag, printer));
            }
        }
    }
    problems
}

/// The problem of an owned object the plan does not name.
fn not_named(kind: &str, stack: &str, name: &str, tag: &str, printer: &Printer) -> String {
    format!(
        "{kind} \"{}\" of stack `{stack}` is converge's (`{tag}` tag), but the plan neither \
         changes nor reports it: the file was edited to leave it out, or it was made after the \
         plan (plan again)",
        printer.redact(name)
    )
}

/// The live name the change's address names: a live address's own name; otherwise the name
/// the change shows the object had (a rename's old name) or has.
pub(crate) fn live_name(change: &Change) -> Option<String> {
    if let AddressBuf::LiveDashboard { name, .. } | AddressBuf::LiveAlert { name, .. } =
        &change.address
    {
        return Some(name.to_string());
    }
    change
        .names_shown()
        .into_iter()
        .flatten()
        .next()
        .map(str::to_owned)
}

pub(crate) fn dashboards_of<'a>(live: &'a LiveState, stack: &str) -> &'a [Dashboard] {
    live.stacks
        .get(stack)
        .map_or(&[][..], |s| s.dashboards.as_slice())
}

/// The one live object of a name, when the step writes to it; the object a step writes to is
/// found by the name the review showed, never by the id the file carries. `None` when neither
/// that name nor the step's id (`exists`) is live: a delete already done, or an update the
/// stale check reports.
pub(crate) fn the_one<'a, T>(
    named: &[&'a T],
    exists: bool,
    kind: &str,
    name: &str,
    stack: &str,
    step_id: &str,
    id: impl Fn(&T) -> &String,
) -> Result<Option<&'a T>, String> {
    match named {
        [one] if id(one) == step_id => Ok(Some(*one)),
        [one] => Err(format!(
            "the step writes to {kind} {step_id}, but the {kind} \"{name}\" of stack `{stack}` \
             is {}",
            id(one)
        )),
        [] if !exists => Ok(None),
        [] => Err(format!(
            "the step writes to {kind} {step_id}, but stack `{stack}` has no {kind} \"{name}\""
        )),
        [..] => Err(format!(
            "stack `{stack}` has {} {kind}s named \"{name}\": which one the step writes to is not \
             shown",
            named.len()
        )),
    }
}

/// The stack whose ownership tag a delete's object must carry: the one its address names. That
/// is the step's own stack, but for an instance of a whole-stack template removed from the
/// config, whose objects are reached (and deleted) through a remaining instance of the same
/// entry on the same API.
pub(crate) fn owner_of<'a>(change: &'a Change, step_stack: &'a str) -> &'a str {
    change.address.stack().unwrap_or(step_stack)
}

/// A dashboard converge owns (`plan/ownership.rs`).
pub(crate) fn owned(dashboard: &Dashboard, ownership: &Ownership) -> Result<(), String> {
    if dashboard.owned(ownership) {
        Ok(())
    } else {
        Err(format!(
            "the step deletes dashboard \"{}\", which converge does not own (no `{}` tag)",
            dashboard.name,
            ownership.tag()
        ))
    }
}

/// Whether a live object's name is `shown`, as read or as the saved file masks it.
pub(crate) fn named_as(live: &str, shown: &str, printer: &Printer) -> bool {
    normalize::same_name(live, shown) || normalize::same_name(&printer.redact(live), shown)
}

/// Every string of `value` masked by `printer`, as the saved file holds it.
fn masked(value: &Value, printer: &Printer) -> Value {
    match value {
        Value::String(text) => Value::String(printer.redact(text).into_owned()),
        Value::Array(items) => Value::Array(items.iter().map(|v| masked(v, printer)).collect()),
        Value::Object(members) => Value::Object(
            members
                .iter()
                .map(|(k, v)| (printer.redact(k).into_owned(), masked(v, printer)))
                .collect(),
        ),
        Value::Null | Value::Bool(_) | Value::Number(_) => value.clone(),
    }
}

/// [`same_before`] for a delete, which writes nothing of `before`: the object as read now, or
/// as the saved file masks it.
pub(crate) fn same_before_masked(
    change: &Change,
    now: &Value,
    printer: &Printer,
) -> Result<(), String> {
    same_before(change, now)
        .or_else(|problem| same_before(change, &masked(now, printer)).map_err(|_| problem))
}

/// The change's `before` is the object as read now.
pub(crate) fn same_before(change: &Change, now: &Value) -> Result<(), String> {
    match &change.before {
        Some(before) if diff::equal(before, now) => Ok(()),
        _ => Err(format!(
            "the change shows it as {}, but it is {} now",
            compact(change.before.as_ref().unwrap_or(&Value::Null)),
            compact(now)
        )),
    }
}

/// The shown fields are exactly `expected`: the same paths with the same values.
pub(crate) fn same_fields(change: &Change, expected: &[FieldChange]) -> Result<(), String> {
    let by_path = |fields: &[FieldChange]| -> BTreeMap<String, (Option<Value>, Option<Value>)> {
        fields
            .iter()
            .map(|f| (f.path.clone(), (f.before.clone(), f.after.clone())))
            .collect()
    };
    let wanted = by_path(expected);
    let same_value = |a: &Option<Value>, b: &Option<Value>| match (a, b) {
        (Some(a), Some(b)) => diff::equal(a, b),
        (None, None) => true,
        _ => false,
    };
    let mut problems = Vec::new();
    for (path, (before, after)) in &wanted {
        if !change.fields.iter().any(|f| f.path == *path) {
            problems.push(format!(
                "`{path}` changes ({} -> {}) but the plan does not show it",
                show(before),
                show(after)
            ));
        }
    }
    for field in &change.fields {
        match wanted.get(&field.path) {
            Some((before, after))
                if same_value(&field.before, before) && same_value(&field.after, after) => {}
            Some((before, after)) => problems.push(format!(
                "`{}` is shown as {} -> {} but goes from {} to {}",
                field.path,
                show(&field.before),
                show(&field.after),
                show(before),
                show(after)
            )),
            None => problems.push(format!(
                "`{}` is shown as changing but does not",
                field.path
            )),
        }
    }
    if problems.is_empty() {
        Ok(())
    } else {
        Err(problems.join("; "))
    }
}

/// A create shows every field of what it creates.
pub(crate) fn created(change: &Change) -> Result<(), String> {
    match (&change.action, &change.after) {
        (Action::Create, Some(after)) => same_fields(change, &diff::created(after)),
        _ => Err("the create has no desired values".to_string()),
    }
}

/// A delete shows every field of what it deletes.
pub(crate) fn deleted(change: &Change) -> Result<(), String> {
    match (&change.action, &change.before) {
        (Action::Delete, Some(before)) => same_fields(change, &diff::deleted(before)),
        _ => Err("the delete shows no object".to_string()),
    }
}

fn show(value: &Option<Value>) -> String {
    value.as_ref().map_or("(absent)".to_string(), compact)
}

/// A value for a one-line message, cut when long.
fn compact(value: &Value) -> String {
    let text = value.to_string();
    if text.chars().count() > 120 {
        format!("{}…", text.chars().take(120).collect::<String>())
    } else {
        text
    }
}
