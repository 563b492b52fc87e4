//! What the saved-plan check compares for an alert step (`plan/trust/`): its dashboard and
//! tile are the ones its change shows by name (their ids looked up when it runs) and the rest
//! of its body is its change's desired alert, it writes through the stack API the config gives
//! its stack and shows the names the config gives its address, a message the config leaves
//! unmanaged is the live one, and its `before` and `fields` are the live alert its address
//! names (a delete, only one on a dashboard converge owns).

use serde_json::Value;

use super::op::AlertOp;
use crate::address::Address;
use crate::api::wire::{Alert, AlertRequest, Dashboard};
use crate::live::LiveState;
use crate::output::Printer;
use crate::plan::diff::diff;
use crate::plan::model::{AlertTarget, Change, Operation, Plan};
use crate::plan::normalize;
use crate::plan::ownership::Ownership;
use crate::plan::target::{Effect, Key, Target};
use crate::plan::trust::{
    Check, ConfigCheck, Disagreement, after, created, dashboards_of, deleted, live_name, named_as,
    owned, owner_of, same, same_before, same_before_masked, same_fields, the_one,
};

impl Check for AlertOp {
    fn sends_what_it_shows(&self, change: &Change) -> Result<Option<Operation>, Disagreement> {
        let mut derived = self.clone();
        match &mut derived {
            AlertOp::Delete { .. } => {
                if change.after.is_some() {
                    return Err(Disagreement::DeleteWithValues);
                }
                Ok(None)
            }
            AlertOp::Create { target, body, .. } | AlertOp::Update { target, body, .. } => {
                alert_by_names(change, target, body)?;
                Ok(Some(Operation::Alert(derived)))
            }
        }
    }

    fn against_config(
        &self,
        check: &ConfigCheck<'_>,
        index: usize,
        address: &Address<'_>,
    ) -> Option<String> {
        check.stack(self.stack()).or_else(|| {
            // Only an address the config names has names to check; a live one names its
            // object.
            let Address::Alert { stack, alert } = address else {
                return None;
            };
            let config = check
                .config
                .stacks
                .values()
                .find(|s| s.key.value == *stack)?;
            let a = config.alerts.values().find(|a| a.key.value == *alert)?;
            check.names(index, "alert", &a.name, &a.renamed_from)
        })
    }

    fn against_live(&self, change: &Change, live: &LiveState) -> Vec<String> {
        // The live state tells nothing more of a delete than its fingerprint does.
        let Some((_, body)) = self.written() else {
            return Vec::new();
        };
        if !unmanaged_message(change) {
            return Vec::new();
        }
        let Some(alerts) = live.stacks.get(&self.stack().key).map(|s| &s.alerts) else {
            return Vec::new();
        };
        if sends_live_message(self, alerts, body) {
            Vec::new()
        } else {
            vec![format!(
                "{}: the step sends a message the change does not show",
                change.address
            )]
        }
    }

    fn shown_against_live(
        &self,
        plan: &Plan,
        change: &Change,
        live: &LiveState,
        printer: &Printer,
    ) -> Result<(), String> {
        match self {
            AlertOp::Create { .. } => created(change),
            AlertOp::Update {
                stack, alert_id, ..
            } => {
                let dashboards = dashboards_of(live, &stack.key);
                live_alert(change, live, &stack.key, alert_id, printer).and_then(|current| {
                    let Some(current) = current else {
                        return Ok(());
                    };
                    let view = alert_view(plan, current, dashboards);
                    let after = change.after.as_ref().unwrap_or(&Value::Null);
                    let before =
                        normalize::project(&super::live::alert(current, view.as_ref()), after);
                    same_before(change, &before)?;
                    same_fields(change, &diff(&before, after))
                })
            }
            AlertOp::Delete { stack, alert_id } => {
                alert_delete_as_shown(change, live, &stack.key, alert_id, printer)
            }
        }
    }

    fn read_for_check(&self, plan: &Plan, step: usize) -> bool {
        let sends_message = match self {
            AlertOp::Create { body, .. } => body.message.is_some(),
            AlertOp::Update { .. } | AlertOp::Delete { .. } => false,
        };
        sends_message
            && plan
                .changes
                .iter()
                .any(|c| c.step == Some(step) && unmanaged_message(c))
    }
}

/// An alert step as its change shows it: which dashboard and tile it points at is what the
/// change shows, by name (the ids are looked up when the step runs), and the rest of its body
/// is the change's desired alert.
fn alert_by_names(
    change: &Change,
    target: &mut AlertTarget,
    body: &mut AlertRequest,
) -> Result<(), Disagreement> {
    let after = after(change)?;
    let name = |key: &str| {
        after
            .get(key)
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_string()
    };
    *target = AlertTarget::Names {
        dashboard: name("dashboard"),
        tile: name("tile"),
    };
    body.dashboard_id = None;
    body.tile_id = None;
    // A message the config leaves unmanaged is the live one (checked by `against_live`).
    let managed_message = after.get("message").is_some();
    let mut sent = super::live::alert_view(&super::live::AlertView {
        name: body.name.as_deref().unwrap_or_default(),
        dashboard: name("dashboard"),
        tile: name("tile"),
        threshold: body.threshold,
        threshold_type: &body.threshold_type,
        interval: &body.interval,
        source: &body.source,
        channel: &body.channel,
        message: &body.message,
        newer: &body.newer,
    });
    if !managed_message && let Value::Object(map) = &mut sent {
        map.remove("message");
    }
    // So are the newer members the change does not show (the live ones are sent).
    if let Value::Object(map) = &mut sent {
        for key in super::live::NEWER_ALERT_KEYS {
            if after.get(*key).is_none() {
                map.remove(*key);
            }
        }
        // What the step clears shows as `null`: the members it sends `null`, and a message it
        // leaves out where the change shows it going. A clear the change does not show differs.
        for member in &body.cleared.0 {
            map.insert((*member).to_string(), Value::Null);
        }
        if body.message.is_none() && after.get("message").is_some_and(Value::is_null) {
            map.insert("message".to_string(), Value::Null);
        }
    }
    same(&sent, after)
}

/// Whether an alert step whose change leaves the message unmanaged sends the live message of
/// the alert it replaces: by id for an update; by name for a create (an alert created again
/// because its tile goes keeps its message).
fn sends_live_message(operation: &AlertOp, alerts: &[Alert], body: &AlertRequest) -> bool {
    let current: Option<&Alert> = match operation.object().1 {
        Key::Id(id) => alerts.iter().find(|a| a.id == id),
        Key::Name(name) => alerts.iter().find(|a| normalize::same_name(&a.name, name)),
    };
    current.and_then(|a| a.message.as_ref()) == body.message.as_ref()
}

/// Whether the change leaves an alert's message unmanaged (the config does not set one), so
/// its step sends the live message, which only the live state can confirm.
fn unmanaged_message(change: &Change) -> bool {
    change
        .after
        .as_ref()
        .is_some_and(|after| after.get("message").is_none())
}

/// The live alert the change's address names, when it is the one the step writes to.
fn live_alert<'a>(
    change: &Change,
    live: &'a LiveState,
    stack: &str,
    step_id: &str,
    printer: &Printer,
) -> Result<Option<&'a Alert>, String> {
    let name = live_name(change).ok_or("names no alert")?;
    let alerts = live
        .stacks
        .get(stack)
        .map_or(&[][..], |s| s.alerts.as_slice());
    let named: Vec<&Alert> = alerts
        .iter()
        .filter(|a| named_as(&a.name, &name, printer))
        .collect();
    let exists = alerts.iter().any(|a| a.id == step_id);
    the_one(&named, exists, "alert", &name, stack, step_id, |a| &a.id)
}

/// An alert delete removes the alert the change shows, on a dashboard converge owns.
fn alert_delete_as_shown(
    change: &Change,
    live: &LiveState,
    stack: &str,
    alert_id: &str,
    printer: &Printer,
) -> Result<(), String> {
    let dashboards = dashboards_of(live, stack);
    live_alert(change, live, stack, alert_id, printer).and_then(|current| {
        let Some(current) = current else {
            return Ok(());
        };
        let on = dashboards
            .iter()
            .find(|d| current.dashboard.as_deref() == Some(d.id.as_str()));
        let ownership = Ownership::new(owner_of(change, stack), dashboards, |_| false);
        match on {
            Some(dashboard) => owned(dashboard, &ownership).map_err(|_| {
                format!(
                    "is on dashboard \"{}\", which converge does not own (no `{}` tag)",
                    dashboard.name,
                    ownership.tag()
                )
            }),
            None => Err("is on no dashboard converge owns".to_string()),
        }?;
        let before = super::live::alert(current, on);
        let shown = change.before.as_ref().unwrap_or(&Value::Null);
        same_before_masked(change, &normalize::project(&before, shown), printer)?;
        deleted(change)
    })
}

/// The live dashboard of an alert as this plan shows it: under the names the plan's update of
/// that dashboard gives it and its tiles (its own renames, checked against the live state too).
fn alert_view(plan: &Plan, alert: &Alert, dashboards: &[Dashboard]) -> Option<Dashboard> {
    let current = dashboards
        .iter()
        .find(|d| alert.dashboard.as_deref() == Some(d.id.as_str()))?;
    let mut view = current.clone();
    let update = plan.changes.iter().find(|c| {
        c.step.and_then(|s| plan.steps.get(s)).is_some_and(|step| {
            step.operation.effect() == Effect::Update
                && matches!(
                    step.operation.target(),
                    Target::Dashboard { key: Key::Id(id), .. } if id == current.id
                )
        })
    });
    if let Some(change) = update {
        if let Some(name) = change
            .after
            .as_ref()
            .and_then(|a| a.get("name"))
            .and_then(Value::as_str)
        {
            view.name = name.to_string();
        }
        for field in &change.fields {
            if let (Some(new), Some(Value::String(old))) = (
                field
                    .path
                    .strip_prefix("tiles[")
                    .and_then(|rest| rest.strip_suffix("].name")),
                &field.before,
            ) && let Some(tile) = view.tiles.iter_mut().find(|t| t.name == *old)
            {
                tile.name = new.to_string();
            }
        }
    }
    Some(view)
}
