//! What the saved-plan check compares for a dashboard step (`plan/trust/`): its body is the
//! dashboard its change shows (a create sends no tile ids), it writes through the stack API
//! the config gives its stack and shows the names the config gives its address, an update
//! carries forward exactly the ids of the live tiles of the same names, and its `before` and
//! `fields` are the live dashboard its address names (a delete, only one converge owns).

use std::collections::BTreeSet;

use serde_json::Value;

use super::op::DashboardOp;
use crate::address::Address;
use crate::api::wire::{Dashboard, DashboardRequest};
use crate::live::LiveState;
use crate::output::Printer;
use crate::plan::diff::diff;
use crate::plan::model::{AddressBuf, Change, FieldChange, Operation, Plan};
use crate::plan::ownership::Ownership;
use crate::plan::trust::{
    Check, ConfigCheck, Disagreement, after, created, dashboards_of, deleted, live_name, named_as,
    owned, owner_of, same, same_before, same_before_masked, same_fields, the_one,
};

impl Check for DashboardOp {
    fn sends_what_it_shows(&self, change: &Change) -> Result<Option<Operation>, Disagreement> {
        match self {
            DashboardOp::Delete { .. } => {
                if change.after.is_some() {
                    return Err(Disagreement::DeleteWithValues);
                }
            }
            DashboardOp::Create { body, .. } => {
                if body.tiles.iter().any(|t| t.id.is_some()) {
                    return Err(Disagreement::CreateWithTileIds);
                }
                same(
                    &super::live::dashboard(&dashboard_of(body)),
                    &tiles_by_name(after(change)?),
                )?;
            }
            DashboardOp::Update { body, .. } => {
                same(
                    &super::live::dashboard(&dashboard_of(body)),
                    &tiles_by_name(after(change)?),
                )?;
            }
        }
        Ok(None)
    }

    fn against_config(
        &self,
        check: &ConfigCheck<'_>,
        index: usize,
        address: &Address<'_>,
    ) -> Option<String> {
        let (DashboardOp::Create { stack, .. }
        | DashboardOp::Update { stack, .. }
        | DashboardOp::Delete { stack, .. }) = self;
        check.stack(stack).or_else(|| {
            // Only an address the config names has names to check; a live one names its
            // object.
            let Address::Dashboard { stack, dashboard } = address else {
                return None;
            };
            let config = check
                .config
                .stacks
                .values()
                .find(|s| s.key.value == *stack)?;
            let d = config
                .dashboards
                .values()
                .find(|d| d.key.value == *dashboard)?;
            check.names(index, "dashboard", &d.name, &d.renamed_from)
        })
    }

    fn against_live(&self, change: &Change, live: &LiveState) -> Vec<String> {
        let DashboardOp::Update {
            stack,
            dashboard_id,
            body,
        } = self
        else {
            // The live state tells nothing more of a create or delete than its fingerprint.
            return Vec::new();
        };
        let Some(current) = live
            .stacks
            .get(&stack.key)
            .and_then(|s| s.dashboards.iter().find(|d| d.id == *dashboard_id))
        else {
            return Vec::new();
        };
        carried_tile_ids(&change.address, current, body)
    }

    fn shown_against_live(
        &self,
        _plan: &Plan,
        change: &Change,
        live: &LiveState,
        printer: &Printer,
    ) -> Result<(), String> {
        match self {
            DashboardOp::Create { .. } => created(change),
            DashboardOp::Update {
                stack,
                dashboard_id,
                ..
            } => live_dashboard(change, live, &stack.key, dashboard_id, printer).and_then(
                |current| {
                    let Some(current) = current else {
                        return Ok(());
                    };
                    same_before(change, &super::live::dashboard(current))?;
                    dashboard_fields(change, current)
                },
            ),
            DashboardOp::Delete {
                stack,
                dashboard_id,
            } => live_dashboard(change, live, &stack.key, dashboard_id, printer).and_then(
                |current| {
                    let Some(current) = current else {
                        return Ok(());
                    };
                    let ownership = Ownership::new(
                        owner_of(change, &stack.key),
                        dashboards_of(live, &stack.key),
                        |_| false,
                    );
                    owned(current, &ownership)?;
                    same_before_masked(change, &super::live::dashboard(current), printer)?;
                    deleted(change)
                },
            ),
        }
    }
}

/// A tile keeps the id of the live tile of its name; a renamed tile (its old name sent no more)
/// keeps the id of the live tile it was. No id goes to two tiles, and no tile takes the id of
/// another live tile that is still sent: that would move the other tile's alerts. One line per
/// tile that breaks this.
fn carried_tile_ids(
    address: &AddressBuf,
    current: &Dashboard,
    body: &DashboardRequest,
) -> Vec<String> {
    let sent: BTreeSet<&str> = body.tiles.iter().map(|t| t.name.as_str()).collect();
    let carried: BTreeSet<&str> = body.tiles.iter().filter_map(|t| t.id.as_deref()).collect();
    let mut used = BTreeSet::new();
    let mut problems = Vec::new();
    for tile in &body.tiles {
        let by_name = current
            .tiles
            .iter()
            .find(|t| t.name == tile.name)
            .and_then(|t| t.id.as_deref());
        let renamed = |id: &str| {
            current
                .tiles
                .iter()
                .any(|t| t.id.as_deref() == Some(id) && !sent.contains(t.name.as_str()))
        };
        let fine = match tile.id.as_deref() {
            None => by_name.is_none_or(|id| carried.contains(id)),
            Some(id) => {
                used.insert(id) && (by_name == Some(id) || (by_name.is_none() && renamed(id)))
            }
        };
        if !fine {
            problems.push(format!(
                "{address}: tile \"{}\" is sent with id {} but is {} on the dashboard",
                tile.name,
                tile.id.as_deref().unwrap_or("(none)"),
                by_name.unwrap_or("a new tile"),
            ));
        }
    }
    problems
}

/// A dashboard value with its tiles in name order, as [`super::live::dashboard`] writes them: a
/// created dashboard's change lists its tiles in config order, for people to read.
fn tiles_by_name(dashboard: &Value) -> Value {
    let mut dashboard = dashboard.clone();
    if let Some(Value::Array(tiles)) = dashboard.get_mut("tiles") {
        tiles.sort_by(|a, b| {
            let name = |t: &Value| t.get("name").and_then(Value::as_str).map(str::to_owned);
            name(a).cmp(&name(b))
        });
    }
    dashboard
}

fn dashboard_of(body: &crate::api::wire::DashboardRequest) -> Dashboard {
    Dashboard {
        id: String::new(),
        name: body.name.clone(),
        tiles: body.tiles.clone(),
        tags: body.tags.clone(),
        containers: body.containers.clone().unwrap_or_default(),
    }
}

/// The live dashboard the change's address names, when it is the one the step writes to.
fn live_dashboard<'a>(
    change: &Change,
    live: &'a LiveState,
    stack: &str,
    step_id: &str,
    printer: &Printer,
) -> Result<Option<&'a Dashboard>, String> {
    let name = live_name(change).ok_or("names no dashboard")?;
    let dashboards = dashboards_of(live, stack);
    let named: Vec<&Dashboard> = dashboards
        .iter()
        .filter(|d| named_as(&d.name, &name, printer))
        .collect();
    let exists = dashboards.iter().any(|d| d.id == step_id);
    the_one(&named, exists, "dashboard", &name, stack, step_id, |d| {
        &d.id
    })
}

/// A dashboard update's fields: its renames (the dashboard's, and each tile's: `name` and
/// `tiles[NEW].name`, from the live names to the desired ones) lead, then what differs once
/// they are made.
fn dashboard_fields(change: &Change, current: &Dashboard) -> Result<(), String> {
    let after = change
        .after
        .as_ref()
        .ok_or("the change has no desired values")?;
    let mut view = current.clone();
    let mut expected = Vec::new();
    if let Some(name) = after.get("name").and_then(Value::as_str)
        && name != current.name
    {
        expected.push(FieldChange {
            path: "name".into(),
            before: Some(Value::from(current.name.clone())),
            after: Some(Value::from(name)),
        });
        view.name = name.to_string();
    }
    for field in &change.fields {
        let Some(new) = field
            .path
            .strip_prefix("tiles[")
            .and_then(|rest| rest.strip_suffix("].name"))
        else {
            continue;
        };
        let (Some(Value::String(old)), Some(Value::String(shown_new))) =
            (&field.before, &field.after)
        else {
            continue;
        };
        if shown_new != new {
            continue;
        }
        // A rename is shown only when the live tile is there to rename.
        let Some(tile) = view.tiles.iter_mut().find(|t| t.name == *old) else {
            continue;
        };
        tile.name = new.to_string();
        expected.push(field.clone());
    }
    expected.extend(diff(&super::live::dashboard(&view), after));
    same_fields(change, &expected)
}
