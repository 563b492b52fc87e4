//! What the saved-plan check compares for a pipe step (`plan/trust/`): each body is the one
//! its change's fields build (a resync sends none), and it writes to the pipe and service the
//! config gives its keys (a create, to the pipe the config names there, on its service).

use serde_json::Value;

use super::op::{self as pipe, PipeOp};
use crate::address::Address;
use crate::config::model::{Config, PipeConfig, ServiceConfig};
use crate::plan::kind::Kind;
use crate::plan::model::{Change, Operation};
use crate::plan::target::{Key, Target};
use crate::plan::trust::{
    Bound, Check, ConfigCheck, Disagreement, Hinted, after, fields_of, same, same_body, written,
};

impl Check for PipeOp {
    fn sends_what_it_shows(&self, change: &Change) -> Result<Option<Operation>, Disagreement> {
        match self {
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
        Ok(None)
    }

    fn against_config(
        &self,
        check: &ConfigCheck<'_>,
        _index: usize,
        address: &Address<'_>,
    ) -> Option<String> {
        // What each operation writes to is its target (`Kind::target`): a create by name, every
        // other pipe step by the pipe's id, a compute step by its service.
        match self.target() {
            Target::Pipe {
                service_id,
                key: Key::Name(name),
            } => create_problem(check.config, address, service_id, name),
            Target::Pipe {
                service_id,
                key: Key::Id(pipe_id),
            } => pipe_problem(check, address, service_id, pipe_id),
            Target::PipeCompute { service_id } => check.service(address, service_id),
            // A pipe operation targets nothing else.
            Target::Service { .. }
            | Target::PrivateEndpoint { .. }
            | Target::Dashboard { .. }
            | Target::Alert { .. }
            | Target::ServiceMember { .. } => None,
        }
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
