//! What the saved-plan check compares for a pipe step (`plan/trust/`): each body is the one
//! its change's fields build (a resync sends none), and it writes to the pipe and service the
//! config gives its keys (a create, to the pipe the config names there, on its service).

use serde_json::Value;

use super::op::{self as pipe, PipeOp};
use super::project::deep_project;
use super::sends;
use crate::address::Address;
use crate::api::wire::{CompactJson, Pipe};
use crate::config::model::{Config, PipeConfig, ServiceConfig};
use crate::live::LiveState;
use crate::output::Printer;
use crate::plan::diff::diff;
use crate::plan::model::{Change, Operation, Plan};
use crate::plan::target::Key;
use crate::plan::trust::{
    Bound, Check, ConfigCheck, Disagreement, Hinted, after, created, fields_of, same, same_before,
    same_body, same_fields, written,
};

impl Check for PipeOp {
    fn sends_what_it_shows(&self, change: &Change) -> Result<Option<Operation>, Disagreement> {
        match self {
            PipeOp::Create {
                name,
                body,
                stopped,
                credentials,
                ..
            }
            | PipeOp::Replace {
                name,
                body,
                stopped,
                credentials,
                ..
            } => {
                same(body, after(change)?)?;
                // The name finds the new pipe once created (and its copies): the one shown.
                same(&Value::from(name.as_str()), &body["name"])?;
                own_version_tag(self)?;
                let sent = credentials
                    .iter()
                    .map(|c| (c.path.as_str(), c.reference.as_str()));
                let reason = credentials_shown(change, sent)?;
                // The stop after the create is shown only by the reason (the body takes no state).
                let shown = reason.ends_with(" stopped");
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
                credentials,
                ..
            } => rotation_shown(change, body, (*version, *recorded), credentials)?,
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
                own_version_tag(self)?;
            }
        }
        Ok(None)
    }

    fn shown_against_live(
        &self,
        _plan: &Plan,
        change: &Change,
        live: &LiveState,
        _printer: &Printer,
    ) -> Result<(), String> {
        match self {
            // A create shows every member it sends.
            PipeOp::Create { .. } => created(change),
            PipeOp::Replace {
                service_id,
                pipe_id,
                ..
            }
            | PipeOp::Update {
                service_id,
                pipe_id,
                ..
            }
            | PipeOp::Lifecycle {
                service_id,
                pipe_id,
                ..
            }
            | PipeOp::Rotate {
                service_id,
                pipe_id,
                ..
            } => {
                let Some(current) = live_pipe(live, service_id, pipe_id) else {
                    // Gone since the plan was made: the stale check says so.
                    return Ok(());
                };
                let after = change
                    .after
                    .as_ref()
                    .ok_or("the change has no desired values")?;
                let before = before_now(change, current, after);
                shown_before(change, &before)?;
                same_fields(change, &diff(&before, after))
            }
            PipeOp::Settings {
                service_id,
                pipe_id,
                ..
            } => {
                let Some(current) = live_pipe(live, service_id, pipe_id) else {
                    return Ok(());
                };
                let after = change
                    .after
                    .as_ref()
                    .ok_or("the change has no desired values")?;
                let settings = current.settings.as_ref().map(CompactJson::value);
                let before = pipe::settings_body(settings.as_ref(), &Value::Null);
                shown_before(change, &before)?;
                same_fields(change, &diff(&before, after))
            }
            // Their bodies are built from the shown fields alone, or they send none.
            PipeOp::Scaling { .. }
            | PipeOp::Compute { .. }
            | PipeOp::Resync { .. }
            | PipeOp::Delete { .. } => Ok(()),
        }
    }

    fn against_config(
        &self,
        check: &ConfigCheck<'_>,
        _index: usize,
        address: &Address<'_>,
    ) -> Option<String> {
        // What each operation writes to is its object (`PipeOp::object`): a create by name, every
        // other pipe step by the pipe's id, a compute step by its service.
        let target = match self.object() {
            (service_id, Some(Key::Name(name))) => {
                create_problem(check.config, address, service_id, name)
            }
            (service_id, Some(Key::Id(pipe_id))) => {
                pipe_problem(check, address, service_id, pipe_id)
            }
            (service_id, None) => check.service(address, service_id),
        };
        target
            .or_else(|| credentials_problem(check.config, address, self))
            .or_else(|| version_problem(check.config, address, self))
    }
}

/// Whether the `credentialsVersion` a create or replacement records for its new pipe is the
/// one the config declares: another would decide later rotations, unreviewed.
fn version_problem(config: &Config, address: &Address<'_>, op: &PipeOp) -> Option<String> {
    let (PipeOp::Create {
        credentials_version,
        ..
    }
    | PipeOp::Replace {
        credentials_version,
        ..
    }) = op
    else {
        return None;
    };
    let (service, pipe) = address.config_pipe()?;
    let declared = config
        .services
        .values()
        .find(|s| s.key.value == service)?
        .pipes
        .values()
        .find(|p| p.key.value == pipe)?
        .credentials_version
        .as_ref()
        .map(|v| v.value);
    (declared != *credentials_version).then(|| {
        let text = |v: Option<i64>| v.map_or("none".to_string(), |v| v.to_string());
        format!(
            "records credentialsVersion {}, but the config declares {}",
            text(*credentials_version),
            text(declared)
        )
    })
}

/// Whether the credentials a pipe step at `address` sends are the ones the config declares for
/// that pipe, each path with its reference: a reference is bound to the member it was
/// reviewed for, and none reads a variable the config's own secrets read.
fn credentials_problem(config: &Config, address: &Address<'_>, op: &PipeOp) -> Option<String> {
    let sent: Vec<(&str, &str)> = match op {
        PipeOp::Create { credentials, .. } | PipeOp::Replace { credentials, .. } => credentials
            .iter()
            .map(|c| (c.path.as_str(), c.reference.as_str()))
            .collect(),
        PipeOp::Rotate { credentials, .. } => credentials
            .iter()
            .map(|c| (c.path.as_str(), c.reference.as_str()))
            .collect(),
        PipeOp::Update { .. }
        | PipeOp::Scaling { .. }
        | PipeOp::Delete { .. }
        | PipeOp::Lifecycle { .. }
        | PipeOp::Resync { .. }
        | PipeOp::Settings { .. }
        | PipeOp::Compute { .. } => return None,
    };
    let own = sends::own_variables(config);
    if let Some(problem) = sent
        .iter()
        .find_map(|(path, reference)| sends::own_secret(path, reference, &own))
    {
        return Some(problem);
    }
    let (service, pipe) = address.config_pipe()?;
    let declared = config
        .services
        .values()
        .find(|s| s.key.value == service)?
        .pipes
        .values()
        .find(|p| p.key.value == pipe)?
        .source
        .as_ref()
        .map(|source| {
            source
                .credentials
                .iter()
                .map(|c| (c.path, c.secret.reference.as_str()))
                .collect::<std::collections::BTreeSet<_>>()
        })
        .unwrap_or_default();
    let sent: std::collections::BTreeSet<(&str, &str)> = sent.into_iter().collect();
    (sent != declared).then(|| {
        format!(
            "sends {}, but the config declares {} for this pipe",
            listed(&sent),
            listed(&declared)
        )
    })
}

/// The version tag a delete or replacement removes is the one of the pipe it deletes
/// ([`pipe::version_tag`]): another pipe's would make converge send that pipe's credentials
/// again, unreviewed.
fn own_version_tag(op: &PipeOp) -> Result<(), Disagreement> {
    let (PipeOp::Delete {
        pipe_id,
        version_tag: Some(tag),
        ..
    }
    | PipeOp::Replace {
        pipe_id,
        version_tag: Some(tag),
        ..
    }) = op
    else {
        return Ok(());
    };
    same(
        &Value::from(tag.as_str()),
        &Value::from(pipe::version_tag(pipe_id)),
    )
}

/// A rotation's body, versions and credentials, against what its change shows.
fn rotation_shown(
    change: &Change,
    body: &Value,
    (version, recorded): (i64, Option<i64>),
    credentials: &[pipe::SealedCredential],
) -> Result<(), Disagreement> {
    let sent = credentials
        .iter()
        .map(|c| (c.path.as_str(), c.reference.as_str()));
    credentials_shown(change, sent)?;
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
    )
}

/// The live pipe `pipe_id` of service `service_id`, as read before any write.
fn live_pipe<'a>(live: &'a LiveState, service_id: &str, pipe_id: &str) -> Option<&'a Pipe> {
    live.pipes.get(service_id)?.iter().find(|p| p.id == pipe_id)
}

/// The `before` a change of `current` to `after` shows, as the planner makes it: the live pipe
/// kept to the members `after` names, its state as a change shows one when `after` has one,
/// and the `credentialsVersion` recorded on the service (the step's `recorded`, which
/// [`Check::sends_what_it_shows`] ties to the change) when `after` has one.
fn before_now(change: &Change, current: &Pipe, after: &Value) -> Value {
    let mut members = after.clone();
    if let Some(members) = members.as_object_mut() {
        members.remove("state");
        members.remove(pipe::CREDENTIALS_VERSION);
    }
    let live = serde_json::to_value(current).unwrap_or(Value::Null);
    let mut before = deep_project(&live, &members);
    if after.get("state").is_some() {
        before["state"] = Value::from(pipe::shown_state(
            current.state.as_deref().unwrap_or_default(),
        ));
    }
    let recorded = change
        .before
        .as_ref()
        .and_then(|b| b.get(pipe::CREDENTIALS_VERSION));
    if let (Some(recorded), Some(_)) = (recorded, after.get(pipe::CREDENTIALS_VERSION)) {
        before[pipe::CREDENTIALS_VERSION] = recorded.clone();
    }
    before
}

/// The change's `before` is the live pipe as read now ([`same_before`]), said member by
/// member: a pipe is long, and the member that differs is what a reader needs.
fn shown_before(change: &Change, now: &Value) -> Result<(), String> {
    same_before(change, now).map_err(|problem| {
        let shown = change.before.as_ref().unwrap_or(&Value::Null);
        let members: Vec<String> = diff(now, shown)
            .iter()
            .map(|field| {
                let text = |value: &Option<Value>| {
                    value
                        .as_ref()
                        .map_or("absent".to_string(), Value::to_string)
                };
                format!(
                    "`{}` as {} but it is {}",
                    field.path,
                    text(&field.after),
                    text(&field.before)
                )
            })
            .collect();
        if members.is_empty() {
            problem
        } else {
            format!(
                "the change shows {} now (edited, or changed since the plan was made)",
                members.join("; ")
            )
        }
    })
}

/// The credentials a create, replacement or rotation sends, against what its change shows:
/// each goes to a credential member of the source's kind, from a reference that is none of
/// converge's own secrets, and the reason ends with exactly their note ([`sends::note`]).
/// The reason without that note.
fn credentials_shown<'a>(
    change: &'a Change,
    sent: impl Iterator<Item = (&'a str, &'a str)> + Clone,
) -> Result<&'a str, Disagreement> {
    let kind = change.after.as_ref().and_then(sends::kind_of);
    let mut paths = std::collections::BTreeSet::new();
    for (path, reference) in sent.clone() {
        if let Some(problem) = sends::refused(kind, path, reference, &[]) {
            return Err(Disagreement::NotShown(problem));
        }
        if !paths.insert(path) {
            return Err(Disagreement::NotShown(format!(
                "the step sends credential `{path}` twice"
            )));
        }
    }
    let note = sends::note(sent);
    match change.reason.strip_suffix(note.as_str()) {
        Some(reason) if !reason.contains("; sends `") => Ok(reason),
        _ => Err(Disagreement::NotShown(format!(
            "the step sends {}, but the change shows it {}",
            if note.is_empty() {
                "no credential".to_string()
            } else {
                note.trim_start_matches("; sends ").to_string()
            },
            match change.reason.find("; sends `") {
                Some(at) => change.reason[at + 2..].to_string(),
                None => "sends none".to_string(),
            }
        ))),
    }
}

/// Whether a pipe step at `address` writes to the pipe (and service) the config gives those
/// keys. A pipe the config finds by name is bound to the id the step carries, held to the live
/// state before any write (`plan/trust/bound.rs`).
fn pipe_problem(
    check: &ConfigCheck<'_>,
    address: &Address<'_>,
    service_id: &str,
    pipe_id: &str,
) -> Option<String> {
    if let Address::LivePipe { name, .. } = address {
        // A copy `--dedupe` deletes shares its name with the pipe that stays.
        return Some(format!(
            "deletes pipe {pipe_id}, a copy named \"{name}\": a saved plan cannot prove which \
             pipe of the name it deletes; run `converge apply --dedupe --allow-destroy`"
        ));
    }
    let config = check.config;
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
        // can read it): the pipe the config's name finds now must be the step's.
        Some((s, p)) if s.id.value == service_id && p.id.is_none() => {
            // Validate requires an id or a name.
            let Some(name) = p.name.as_ref() else {
                return Some("names a pipe the config gives neither id nor name".to_string());
            };
            check.bound.borrow_mut().push(Bound {
                address: address.to_string(),
                service_id: service_id.to_string(),
                pipe_id: pipe_id.to_string(),
                name: name.value.to_string(),
                renamed_from: p.renamed_from.iter().map(|n| n.value.to_string()).collect(),
                hinted: Some(hinted(s, p)),
            });
            None
        }
        Some((s, p)) => Some(format!(
            "writes to pipe {pipe_id} of service {service_id}, but the config has pipe {} \
             of service {}",
            p.identity(),
            s.id.value
        )),
        None => Some("names a pipe the config does not have".to_string()),
    }
}

/// The pipe `pipe` of `service` takes as a hinted rename among a service's live pipes, asked
/// again of the pipes read before any write (`plan/trust/bound.rs`).
fn hinted(service: &ServiceConfig, pipe: &PipeConfig) -> Hinted {
    let (service, pipe) = (service.clone(), pipe.clone());
    std::sync::Arc::new(move |pipes| {
        super::rename::same_source_and_destination(&service, &pipe, pipes).map(|p| p.id.clone())
    })
}

/// Whether a pipe create at `address` makes the pipe the config names there, on its service:
/// a create finds its pipe by name, so the name and the service are what hold it.
fn create_problem(
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

/// Credentials as a message lists them: `` `path` from `reference` ``, or `none`.
fn listed(credentials: &std::collections::BTreeSet<(&str, &str)>) -> String {
    if credentials.is_empty() {
        return "none".to_string();
    }
    credentials
        .iter()
        .map(|(path, reference)| format!("`{path}` from `{reference}`"))
        .collect::<Vec<_>>()
        .join(", ")
}
