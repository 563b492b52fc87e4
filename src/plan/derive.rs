//! A saved plan crosses a trust boundary: made in one job (a pull request's), applied in another
//! (the merge's), kept as a file in between. What a person reviewed is its changes (what
//! `plan` printed: address, action, fields); what `apply` sends is its steps. Before a saved plan
//! is applied, [`steps`] checks that the steps are exactly what the changes call for and refuses
//! the plan when any part disagrees: a step no change shows (a duplicate create), a no-op with a
//! step, a body that writes other values than its change's fields, a step of another kind or
//! address than its change, an alert that no longer waits for its dashboard.
//!
//! Where a step carries more than a change shows, it is derived from the change instead: an
//! alert's dashboard and tile are taken by name from the change (and their ids looked up when
//! the step runs), never as ids from the file. What only the live state can tell (the tile ids a
//! dashboard update carries forward; the message of an alert whose config leaves it unmanaged)
//! is checked by [`against_live`] with the reads made before any write.
//!
//! Which objects the steps write to: dashboard, alert and pipe ids are part of the fingerprints
//! compared with a fresh read before anything is written. Service and pipe ids are tied to the
//! addresses the changes show only by the config: when `apply --plan FILE PATH...` is given the
//! config, [`against_config`] checks them (and each stack's API) against it.

use std::collections::{BTreeMap, BTreeSet, HashSet};

use serde_json::{Map, Value};

use super::address::{Address, instance_entry};
use super::kind::Kind;
use super::kinds::pipe::op as pipe;
use super::kinds::private_endpoint::op as private_endpoint;
use super::kinds::service::op as service;
use super::model::{
    Action, AddressBuf, AlertTarget, Change, Fingerprint, Operation, Plan, StackRef, StackTarget,
    Step,
};
use super::target::{Effect, Key, Target};
use super::{fingerprint, normalize};
use crate::api::wire::{Alert, AlertRequest, Dashboard, DashboardRequest};
use crate::config::model::{Config, StackTarget as ModelTarget};
use crate::live::LiveState;
use crate::plan::kinds::alert::op::AlertOp;
use crate::plan::kinds::dashboard::op::DashboardOp;
use crate::plan::kinds::pipe::op::PipeOp;
use crate::plan::kinds::private_endpoint::op::PrivateEndpointOp;

/// The steps `plan`'s changes call for: its steps when they agree with the changes (alert
/// targets taken by name from the changes); otherwise every disagreement, one line each.
pub(crate) fn steps(plan: &Plan) -> Result<Vec<Step>, Vec<String>> {
    let mut problems = Vec::new();
    let mut carried: BTreeMap<usize, Vec<&AddressBuf>> = BTreeMap::new();
    let mut seen: BTreeMap<String, usize> = BTreeMap::new();
    for change in &plan.changes {
        *seen.entry(change.address.to_string()).or_default() += 1;
        if let Some(step) = change.step {
            carried.entry(step).or_default().push(&change.address);
        }
    }
    for (address, count) in &seen {
        if *count > 1 {
            problems.push(format!(
                "{address} is listed {count} times among the changes"
            ));
        }
    }
    let mut steps = plan.steps.clone();
    for (index, step) in steps.iter_mut().enumerate() {
        match carried.get(&index).map(Vec::len).unwrap_or(0) {
            0 => problems.push(format!(
                "step {} ({}) is no change's step: it writes something the plan does not show",
                index + 1,
                step.address
            )),
            1 => {}
            n => problems.push(format!(
                "step {} ({}) is the step of {n} changes",
                index + 1,
                step.address
            )),
        }
        let change = plan
            .changes
            .iter()
            .find(|c| c.step == Some(index) && c.address == step.address);
        if let Some(change) = change {
            match agree(change, step) {
                Ok(derived) => *step = derived,
                Err(problem) => problems.push(format!("{}: {problem}", change.address)),
            }
        }
    }
    for change in &plan.changes {
        match (change.action, change.step) {
            (Action::NoOp, Some(step)) => problems.push(format!(
                "{} is unchanged (no-op) but has step {}",
                change.address,
                step + 1
            )),
            (Action::NoOp, None) => {}
            (action, None) => problems.push(format!(
                "{} is a {} with no step",
                change.address,
                action.as_str()
            )),
            (_, Some(_)) => {}
        }
    }
    problems.extend(waits_for_dashboards(&steps));
    if problems.is_empty() {
        Ok(steps)
    } else {
        Err(problems)
    }
}

/// How a step disagrees with its change.
#[derive(Debug, thiserror::Error)]
enum Disagreement {
    /// The step checks another fingerprint than the change was planned from.
    #[error("the step's fingerprint ({}) is not the change's ({})", text(*step), text(*change))]
    Fingerprint {
        step: Option<fingerprint::Fingerprint>,
        change: Option<fingerprint::Fingerprint>,
    },
    /// The step is of another kind, or for another address, than the change.
    #[error("the change is a {} of this address, but its step is a `{kind}` {place}", action.as_str())]
    Kind {
        action: Action,
        kind: String,
        place: String,
    },
    /// A detach of endpoints other than the one the change removes.
    #[error("the step detaches other endpoints than `{id}`")]
    OtherEndpoints { id: String },
    /// A delete whose change shows values to write.
    #[error("a delete whose change has desired values")]
    DeleteWithValues,
    /// A dashboard create that sends tile ids.
    #[error("the create sends tile ids")]
    CreateWithTileIds,
    /// A scaling change listing a field that is not a scaling field.
    #[error("`{path}` is not a scaling field")]
    NotScalingField { path: String },
    /// A scaling change listing a field without its desired value.
    #[error("`{path}` has no desired value")]
    NoDesiredValue { path: String },
    /// A field whose value in the field list is not its desired value.
    #[error(
        "`{path}` is {listed} in the field list but {} in the desired values",
        desired.as_ref().map_or("absent".into(), Value::to_string)
    )]
    FieldDiffers {
        path: String,
        listed: Value,
        desired: Option<Value>,
    },
    /// An update whose fields all keep their values.
    #[error("an update with no field that differs")]
    NothingDiffers,
    /// A create or update whose change has no desired values.
    #[error("the change has no desired values")]
    NoDesiredValues,
    /// The step writes other values than the change shows.
    #[error(
        "the step writes {} but the change shows {}",
        compact(sent),
        compact(shown)
    )]
    Writes { sent: Value, shown: Value },
}

/// The step `change` calls for, when `step` agrees with it.
fn agree(change: &Change, step: &Step) -> Result<Step, Disagreement> {
    if step.fingerprint != change.fingerprint {
        return Err(Disagreement::Fingerprint {
            step: step.fingerprint,
            change: change.fingerprint,
        });
    }
    let action = change.action;
    let kind_fits = fits(&step.operation, action, &change.address.view());
    if !kind_fits {
        return Err(Disagreement::Kind {
            action,
            kind: step.operation.name().kind(),
            place: step.operation.target().place(),
        });
    }
    let mut derived = step.clone();
    sends_what_it_shows(change, &mut derived.operation)?;
    Ok(derived)
}

/// Checks that an operation writes exactly what its change shows; an alert's is rewritten to
/// find its dashboard and tile by the names the change shows.
fn sends_what_it_shows(change: &Change, operation: &mut Operation) -> Result<(), Disagreement> {
    match operation {
        Operation::Service(op) => {
            written(change, op.route_fields())?;
            same_body(op.body(), &service::scaling_body(fields_of(change)))?;
        }
        Operation::Pipe(op) => pipe_sends_what_it_shows(change, op)?,
        Operation::PrivateEndpoint(PrivateEndpointOp::Create { body, .. }) => {
            same(&serde_json::json!({ "id": body.id }), after(change)?)?;
        }
        Operation::PrivateEndpoint(PrivateEndpointOp::Detach { body, .. }) => {
            let id = change
                .before
                .as_ref()
                .and_then(|b| b.get("id"))
                .and_then(Value::as_str)
                .unwrap_or_default();
            let wanted = private_endpoint::detach_body(id);
            if *body != wanted {
                return Err(Disagreement::OtherEndpoints { id: id.to_string() });
            }
        }
        Operation::Dashboard(DashboardOp::Delete { .. })
        | Operation::Alert(AlertOp::Delete { .. }) => {
            if change.after.is_some() {
                return Err(Disagreement::DeleteWithValues);
            }
        }
        Operation::Dashboard(DashboardOp::Create { body, .. }) => {
            if body.tiles.iter().any(|t| t.id.is_some()) {
                return Err(Disagreement::CreateWithTileIds);
            }
            same(
                &normalize::dashboard(&dashboard_of(body)),
                &tiles_by_name(after(change)?),
            )?;
        }
        Operation::Dashboard(DashboardOp::Update { body, .. }) => {
            same(
                &normalize::dashboard(&dashboard_of(body)),
                &tiles_by_name(after(change)?),
            )?;
        }
        Operation::Alert(AlertOp::Create { target, body, .. })
        | Operation::Alert(AlertOp::Update { target, body, .. }) => {
            alert_by_names(change, target, body)?
        }
    }
    Ok(())
}

/// [`sends_what_it_shows`] for a pipe's operation.
fn pipe_sends_what_it_shows(change: &Change, operation: &PipeOp) -> Result<(), Disagreement> {
    match operation {
        PipeOp::Create { body, stopped, .. } | PipeOp::Replace { body, stopped, .. } => {
            same(body, after(change)?)?;
            // The stop after the create is shown only by the reason (the body takes no state).
            let shown = change.reason.ends_with(" stopped");
            same(&Value::Bool(*stopped), &Value::Bool(shown))?;
        }
        PipeOp::Update { body, .. } => {
            let paths = change.fields.iter().map(|f| f.path.as_str());
            same(body, &pipe::patch_body(after(change)?, paths))?;
        }
        PipeOp::Lifecycle {
            body, pause, keep, ..
        } => {
            let before = change.before.as_ref().unwrap_or(&Value::Null);
            let paths = change.fields.iter().map(|f| f.path.as_str());
            same(body, &pipe::lifecycle_body(before, after(change)?, paths))?;
            let needs_pause = change
                .fields
                .iter()
                .any(|f| pipe::class_of(&f.path).0 == pipe::Class::NeedsPause);
            same(&Value::Bool(*pause), &Value::Bool(needs_pause))?;
            let shown = pipe::keep_shown(after(change)?);
            same(&Value::from(keep.as_str()), &Value::from(shown.as_str()))?;
        }
        PipeOp::Rotate {
            body,
            version,
            recorded,
            ..
        } => {
            // The version is a field of the change; the credentials' values are in no plan.
            let paths = change
                .fields
                .iter()
                .map(|f| f.path.as_str())
                .filter(|path| *path != pipe::CREDENTIALS_VERSION);
            same(body, &pipe::rotation_body(after(change)?, paths))?;
            let version_of = |value: Option<&Value>| {
                value
                    .and_then(|v| v.get(pipe::CREDENTIALS_VERSION))
                    .cloned()
                    .unwrap_or(Value::Null)
            };
            same(
                &serde_json::json!([recorded, version]),
                &serde_json::json!([
                    version_of(change.before.as_ref()),
                    version_of(change.after.as_ref())
                ]),
            )?;
        }
        PipeOp::Scaling { body, .. } => {
            written(change, pipe::SCALING_FIELDS)?;
            same_body(body, &pipe::scaling_body(fields_of(change)))?;
        }
        PipeOp::Settings { body, .. } => {
            same(body, after(change)?)?;
        }
        PipeOp::Compute { body, .. } => {
            written(change, pipe::COMPUTE_FIELDS)?;
            same_body(body, &pipe::compute_body(fields_of(change)))?;
        }
        // A resync sends no body: what it does is its address and its name.
        PipeOp::Resync { .. } => {}
        PipeOp::Delete { .. } => {
            if change.after.is_some() {
                return Err(Disagreement::DeleteWithValues);
            }
        }
    }
    Ok(())
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
    let mut sent = normalize::alert_view(&normalize::AlertView {
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
        for key in normalize::NEWER_ALERT_KEYS {
            if after.get(*key).is_none() {
                map.remove(*key);
            }
        }
    }
    same(&sent, after)
}

/// Checks what only the live state can tell, with the reads made before any write: a dashboard
/// update carries forward exactly the ids of the live tiles of the same names (an id of another
/// tile would move it; a missing one would delete the alerts on it), and an alert step whose
/// change leaves the message unmanaged sends the live message (none when there is no live
/// alert). One line per disagreement.
pub(crate) fn against_live(plan: &Plan, live: &LiveState) -> Vec<String> {
    let mut problems = Vec::new();
    for change in &plan.changes {
        let Some(step) = change.step.and_then(|s| plan.steps.get(s)) else {
            continue;
        };
        match &step.operation {
            Operation::Dashboard(DashboardOp::Update {
                stack,
                dashboard_id,
                body,
            }) => {
                let Some(current) = live
                    .stacks
                    .get(&stack.key)
                    .and_then(|s| s.dashboards.iter().find(|d| d.id == *dashboard_id))
                else {
                    continue;
                };
                problems.extend(carried_tile_ids(&change.address, current, body));
            }
            Operation::Alert(
                alert @ (AlertOp::Update { body, .. } | AlertOp::Create { body, .. }),
            ) => {
                if !unmanaged_message(change) {
                    continue;
                }
                let Some(alerts) = live.stacks.get(&alert.stack().key).map(|s| &s.alerts) else {
                    continue;
                };
                if !sends_live_message(alert, alerts, body) {
                    problems.push(format!(
                        "{}: the step sends a message the change does not show",
                        change.address
                    ));
                }
            }
            // The live state tells nothing more of these than their fingerprints do.
            Operation::Dashboard(DashboardOp::Create { .. } | DashboardOp::Delete { .. })
            | Operation::Alert(AlertOp::Delete { .. })
            | Operation::Service(_)
            | Operation::PrivateEndpoint(_)
            | Operation::Pipe(_) => {}
        }
    }
    problems
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

/// Whether an alert step whose change leaves the message unmanaged sends the live message of
/// the alert it replaces: by id for an update; by name for a create (an alert created again
/// because its tile goes keeps its message).
fn sends_live_message(operation: &AlertOp, alerts: &[Alert], body: &AlertRequest) -> bool {
    let current: Option<&Alert> = match operation.target() {
        Target::Alert {
            key: Key::Id(id), ..
        } => alerts.iter().find(|a| a.id == id),
        Target::Alert {
            key: Key::Name(name),
            ..
        } => alerts.iter().find(|a| normalize::same_name(&a.name, name)),
        Target::Service { .. }
        | Target::PrivateEndpoint { .. }
        | Target::Pipe { .. }
        | Target::Dashboard { .. }
        | Target::PipeCompute { .. } => None,
    };
    current.and_then(|a| a.message.as_ref()) == body.message.as_ref()
}

/// Checks that each step writes to the service, pipe and stack its address names in `config`
/// (the applying run's): a step moved to another service's id is refused. One line per
/// disagreement.
pub(crate) fn against_config(
    plan: &Plan,
    config: &Config,
    redact: &dyn Fn(&str) -> String,
) -> Vec<String> {
    let mut problems = Vec::new();
    for (index, step) in plan.steps.iter().enumerate() {
        let address = &step.address.view();
        let problem = match step.operation.target() {
            Target::Service { service_id }
            | Target::PrivateEndpoint { service_id, .. }
            | Target::PipeCompute { service_id } => service_problem(config, address, service_id),
            Target::Pipe {
                service_id,
                key: Key::Id(pipe_id),
            } => pipe_problem(config, address, service_id, pipe_id),
            Target::Pipe {
                service_id,
                key: Key::Name(name),
            } => pipe_create_problem(config, address, service_id, name),
            Target::Dashboard { stack, .. } | Target::Alert { stack, .. } => {
                stack_problem(config, stack)
                    .or_else(|| name_problem(plan, index, config, address, redact))
            }
        };
        if let Some(problem) = problem {
            problems.push(format!("{address}: {problem}"));
        }
    }
    problems.extend(left_out(plan, config));
    problems
}

/// A whole plan (no `--only`) shows every dashboard and alert of the config, unchanged ones
/// included, so a file edited to drop one together with its step (a create above all, which
/// nothing live could show missing) names the address it left out. One line per address.
fn left_out(plan: &Plan, config: &Config) -> Vec<String> {
    if !plan.only.is_empty() {
        return Vec::new();
    }
    let shown: HashSet<&AddressBuf> = plan.changes.iter().map(|c| &c.address).collect();
    let mut problems = Vec::new();
    for (key, stack) in &config.stacks {
        let dashboards = stack.dashboards.keys().map(|dashboard| Address::Dashboard {
            stack: key,
            dashboard,
        });
        let alerts = stack
            .alerts
            .keys()
            .map(|alert| Address::Alert { stack: key, alert });
        for address in dashboards.chain(alerts) {
            if !shown.contains(&AddressBuf::from(&address)) {
                problems.push(format!(
                    "{address}: the config has it, but the plan shows no change for it (not even \
                     unchanged): the file was edited to leave it out, or made from another config"
                ));
            }
        }
    }
    problems
}

/// Whether a service step at `address` writes to the service the config gives that key.
fn service_problem(config: &Config, address: &Address<'_>, service_id: &str) -> Option<String> {
    let key = address.service_setting();
    match key.and_then(|key| config.services.values().find(|s| s.key.value == key)) {
        Some(s) if s.id.value == service_id => None,
        Some(s) => Some(format!(
            "writes to service {service_id}, but `{}` is {} in the config",
            s.key.value, s.id.value
        )),
        None => Some("names a service the config does not have".to_string()),
    }
}

/// Whether a pipe step at `address` writes to the pipe (and service) the config gives those
/// keys.
fn pipe_problem(
    config: &Config,
    address: &Address<'_>,
    service_id: &str,
    pipe_id: &str,
) -> Option<String> {
    let keys = address.config_pipe();
    let found = keys.and_then(|(service, pipe)| {
        let s = config.services.values().find(|s| s.key.value == service)?;
        s.pipes
            .values()
            .find(|p| p.key.value == pipe)
            .map(|p| (s, p))
    });
    match found {
        Some((s, p))
            if s.id.value == service_id && p.id.as_ref().is_some_and(|id| id.value == pipe_id) =>
        {
            None
        }
        // A pipe found by name has no id in the config to hold the step to, and an id in the
        // file could name any pipe of the service (its fingerprint is computable by anyone who
        // can read it): refused until a saved plan can prove the id is the named pipe's.
        Some((s, p)) if s.id.value == service_id && p.id.is_none() => Some(format!(
            "writes to pipe {pipe_id}, which the config finds by name ({}): a saved plan \
             cannot prove that id is still that pipe's; give the pipe its `id:` in the config, \
             or apply without `--plan`",
            p.identity()
        )),
        Some((s, p)) => Some(format!(
            "writes to pipe {pipe_id} of service {service_id}, but the config has pipe {} \
             of service {}",
            p.identity(),
            s.id.value
        )),
        None => Some("names a pipe the config does not have".to_string()),
    }
}

/// Whether a pipe create at `address` makes the pipe the config names there, on its service:
/// a create finds its pipe by name, so the name and the service are what hold it.
fn pipe_create_problem(
    config: &Config,
    address: &Address<'_>,
    service_id: &str,
    name: &str,
) -> Option<String> {
    // A create makes the pipe itself, at its own address.
    let found = if let Address::Pipe { service, pipe } = address {
        config
            .services
            .values()
            .find(|s| s.key.value == *service)
            .and_then(|s| Some((s, s.pipes.values().find(|p| p.key.value == *pipe)?)))
    } else {
        None
    };
    match found {
        Some((s, p))
            if s.id.value == service_id && p.name.as_ref().is_some_and(|n| n.value == name) =>
        {
            None
        }
        Some((s, p)) => Some(format!(
            "creates pipe {name:?} on service {service_id}, but the config has pipe {} of \
             service {}",
            p.identity(),
            s.id.value
        )),
        None => Some("names a pipe the config does not have".to_string()),
    }
}

/// Whether the names step `index`'s changes show are the names the config gives its address:
/// the file alone ties an address to its object only by the names it shows, and two changes
/// could trade addresses and still read as a plan (a live address names its object itself).
fn name_problem(
    plan: &Plan,
    index: usize,
    config: &Config,
    address: &Address<'_>,
    redact: &dyn Fn(&str) -> String,
) -> Option<String> {
    let in_stack = |stack: &str| config.stacks.values().find(|s| s.key.value == stack);
    // Only an address the config names has names to check; a live one names its object.
    let (kind, name, renamed_from) = if let Address::Dashboard { stack, dashboard } = address {
        in_stack(stack)?
            .dashboards
            .values()
            .find(|d| d.key.value == *dashboard)
            .map(|d| ("dashboard", &d.name, &d.renamed_from))
    } else if let Address::Alert { stack, alert } = address {
        in_stack(stack)?
            .alerts
            .values()
            .find(|a| a.key.value == *alert)
            .map(|a| ("alert", &a.name, &a.renamed_from))
    } else {
        None
    }?;
    let known = |shown: &str| {
        std::iter::once(name).chain(renamed_from.iter()).any(|n| {
            normalize::same_name(shown, &n.value) || normalize::same_name(shown, &redact(&n.value))
        })
    };
    plan.changes
        .iter()
        .filter(|c| c.step == Some(index))
        .flat_map(Change::names_shown)
        .flatten()
        .find(|shown| !known(shown))
        .map(|shown| {
            format!(
                "shows the {kind} {shown:?}, but the config names that address {:?}",
                redact(&name.value)
            )
        })
}

/// Whether a stack step writes through the API (and service) the config gives its stack.
fn stack_problem(config: &Config, stack: &StackRef) -> Option<String> {
    let wanted = config.stacks.get(&stack.key).map(|s| match &s.target {
        ModelTarget::Managed { service } => StackTarget::Managed {
            service_id: config
                .services
                .get(&service.value)
                .map(|s| s.id.value.clone())
                .unwrap_or_default(),
        },
        ModelTarget::Observability => StackTarget::Observability,
    });
    match wanted {
        Some(wanted) if wanted == stack.target => None,
        Some(_) => Some(format!(
            "writes to stack `{}` through another API or service than the config's",
            stack.key
        )),
        None => Some(format!(
            "names stack `{}`, which the config does not have",
            stack.key
        )),
    }
}

/// Whether the change leaves an alert's message unmanaged (the config does not set one), so
/// its step sends the live message, which only the live state can confirm.
fn unmanaged_message(change: &Change) -> bool {
    change
        .after
        .as_ref()
        .is_some_and(|after| after.get("message").is_none())
}

/// Whether the saved-plan check before any write must read the list of `step`'s object even
/// though the step itself is checked only when it runs: an alert create that sends a message
/// its change does not show is confirmed against the live alert it replaces.
pub(crate) fn read_for_check(plan: &Plan, step: &Step) -> bool {
    let sends_message = match &step.operation {
        Operation::Alert(AlertOp::Create { body, .. }) => body.message.is_some(),
        Operation::Alert(AlertOp::Update { .. } | AlertOp::Delete { .. })
        | Operation::Service(_)
        | Operation::PrivateEndpoint(_)
        | Operation::Pipe(_)
        | Operation::Dashboard(_) => false,
    };
    sends_message
        && plan
            .changes
            .iter()
            .any(|c| c.step == Some(step.id) && unmanaged_message(c))
}

/// An alert whose dashboard this plan creates or updates must wait for that step: run before
/// it, the alert would point at a tile that is not there yet, or one the update removes.
fn waits_for_dashboards(steps: &[Step]) -> Vec<String> {
    let mut dashboard_steps: BTreeMap<(&str, String), usize> = BTreeMap::new();
    for (index, step) in steps.iter().enumerate() {
        if let Some((stack, body)) = step.operation.dashboard_sent() {
            dashboard_steps.insert((stack.key.as_str(), normalize::name_key(&body.name)), index);
        }
    }
    let mut problems = Vec::new();
    for step in steps {
        if let Some((stack, dashboard)) = step.operation.dashboard_by_name()
            && let Some(needed) =
                dashboard_steps.get(&(stack.key.as_str(), normalize::name_key(dashboard)))
            && !step.depends_on.contains(needed)
        {
            problems.push(format!(
                "{} no longer waits for step {} ({}), which changes its dashboard",
                step.address,
                needed + 1,
                steps
                    .get(*needed)
                    .map_or_else(|| "?".to_string(), |s| s.address.to_string())
            ));
        }
    }
    problems
}

/// What a scaling change writes: each field that differs with its desired value, as shown.
fn written(change: &Change, known: &[&str]) -> Result<Value, Disagreement> {
    let after = after(change)?;
    let mut wanted = Map::new();
    for field in &change.fields {
        if !known.contains(&field.path.as_str()) {
            return Err(Disagreement::NotScalingField {
                path: field.path.clone(),
            });
        }
        let Some(value) = &field.after else {
            return Err(Disagreement::NoDesiredValue {
                path: field.path.clone(),
            });
        };
        if after.get(&field.path) != Some(value) {
            return Err(Disagreement::FieldDiffers {
                path: field.path.clone(),
                listed: value.clone(),
                desired: after.get(&field.path).cloned(),
            });
        }
        wanted.insert(field.path.clone(), value.clone());
    }
    if wanted.is_empty() {
        return Err(Disagreement::NothingDiffers);
    }
    Ok(Value::Object(wanted))
}

fn after(change: &Change) -> Result<&Value, Disagreement> {
    change.after.as_ref().ok_or(Disagreement::NoDesiredValues)
}

/// A dashboard value with its tiles in name order, as [`normalize::dashboard`] writes them: a
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

/// Whether two values are the same once keys are sorted and `3` is `3.0`.
fn same(sent: &Value, shown: &Value) -> Result<(), Disagreement> {
    if fingerprint::of_value(sent) == fingerprint::of_value(shown) {
        Ok(())
    } else {
        Err(Disagreement::Writes {
            sent: sent.clone(),
            shown: shown.clone(),
        })
    }
}

/// A value for a one-line message, cut when long.
fn compact(value: &Value) -> String {
    let text = value.to_string();
    if text.chars().count() > 200 {
        format!("{}…", text.chars().take(200).collect::<String>())
    } else {
        text
    }
}

/// The fields a change lists, with their desired values, for a kind's body builder.
fn fields_of(change: &Change) -> impl Iterator<Item = (&str, Option<&Value>)> {
    change
        .fields
        .iter()
        .map(|field| (field.path.as_str(), field.after.as_ref()))
}

/// Whether a saved body is the body built now from its change.
fn same_body<T: serde::Serialize>(sent: &T, built: &T) -> Result<(), Disagreement> {
    same(&to_value(sent), &to_value(built))
}

fn to_value<T: serde::Serialize>(value: &T) -> Value {
    serde_json::to_value(value).unwrap_or(Value::Null)
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

/// Whether an operation carries out a change of `action` at `address`: it does what the
/// change does, to an object of the address's kind (and stack, endpoint id).
fn fits(operation: &Operation, action: Action, address: &Address<'_>) -> bool {
    // A removed instance of a whole-stack template is deleted through a remaining instance of
    // the same entry (the config has no stack of its key to reach the API by).
    let entry = address.stack().and_then(instance_entry);
    let in_stack = |stack: &StackRef| {
        address.stack() == Some(stack.key.as_str())
            || (operation.effect() == Effect::Delete
                && entry.is_some()
                && entry == instance_entry(&stack.key))
    };
    let at_address = operation.fits(address) && operation.target().stack().is_none_or(in_stack);
    // A replacement's change says both halves, as its effect does.
    let carried = Action::from(operation.effect());
    carried == action && at_address
}

fn text(value: Option<Fingerprint>) -> String {
    value.map_or_else(|| "none".to_string(), |f| f.to_string())
}
