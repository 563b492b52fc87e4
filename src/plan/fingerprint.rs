//! Fingerprints of live objects: a stable hash (FNV-1a, 64 bits) of an object's normalized JSON
//! written with sorted keys. A saved plan records the fingerprint of every object it read;
//! `apply` recomputes it from a fresh read with the same functions and refuses a step whose
//! object changed since.

use serde_json::Value;

use super::hash::{OFFSET, fnv1a};
pub(crate) use super::model::Fingerprint;
use super::model::Operation;
use super::normalize;
use super::ownership::tagged_for_another;
use super::target::{Key, StackRef, Target};
use crate::api::wire::{Alert, Dashboard, Pipe, Service};
use crate::live::LiveState;

/// Fingerprint of any JSON value, independent of key order.
pub(crate) fn of_value(value: &Value) -> Fingerprint {
    let mut text = String::new();
    canonical(value, &mut text);
    Fingerprint(fnv1a(text.as_bytes(), OFFSET))
}

fn canonical(value: &Value, out: &mut String) {
    match value {
        Value::Object(map) => {
            let mut keys: Vec<&String> = map.keys().collect();
            keys.sort();
            out.push('{');
            for (i, key) in keys.into_iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                out.push_str(&Value::String(key.clone()).to_string());
                out.push(':');
                if let Some(v) = map.get(key) {
                    canonical(v, out);
                }
            }
            out.push('}');
        }
        Value::Array(items) => {
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                canonical(item, out);
            }
            out.push(']');
        }
        Value::Number(n) => match n.as_f64() {
            // `3` and `3.0` hash alike.
            Some(f) if f.fract() == 0.0 && f.abs() < 9.0e15 => {
                out.push_str(&(f as i64).to_string())
            }
            _ => out.push_str(&n.to_string()),
        },
        other => out.push_str(&other.to_string()),
    }
}

/// A service's scaling (address `service.<key>.scaling`).
pub(crate) fn service_scaling(service: &Service) -> Fingerprint {
    of_value(&normalize::service_scaling(service))
}

/// A private endpoint attached to a service (`service.<key>.private_endpoint[<id>]`).
pub(crate) fn private_endpoint(id: &str) -> Fingerprint {
    of_value(&private_endpoint_value(id))
}

fn private_endpoint_value(id: &str) -> Value {
    serde_json::json!({ "id": id, "attached": true })
}

/// A pipe: identity, source kind and scaling (`pipe.<service>.<key>` and its `.scaling`).
/// Never its source settings, which may carry credentials.
pub(crate) fn pipe(pipe: &Pipe) -> Fingerprint {
    of_value(&normalize::pipe_identity(pipe))
}

/// The compute shared by a service's database pipes (`service.<key>.pipe_compute`).
pub(crate) fn pipe_compute(compute: &crate::api::wire::PipeScaling) -> Fingerprint {
    of_value(&normalize::pipe_scaling(compute))
}

/// A dashboard, tile ids included: an update body carries them forward, so a plan made before
/// tile ids changed must not be applied.
pub(crate) fn dashboard(dashboard: &Dashboard) -> Fingerprint {
    of_value(&normalize::dashboard_with_ids(dashboard))
}

/// An alert, with the ids of its dashboard and tile.
pub(crate) fn alert(alert: &Alert) -> Fingerprint {
    of_value(&normalize::alert_with_ids(alert))
}

/// A webhook as listed: its destination and body enter the hash (never the saved plan), so a
/// plan made before either changed is not applied.
pub(crate) fn webhook(webhook: &crate::api::wire::Webhook) -> Fingerprint {
    of_value(&normalize::webhook_with_secrets(webhook))
}

/// The fingerprint of the object a step writes, in a (fresh) live state: `None` when the object
/// does not exist. A step is stale when this differs from [`super::model::Step::fingerprint`]; for a
/// create, an object that appeared since (same endpoint id, dashboard or alert name as the
/// server stores it, [`normalize::same_name`], and not another stack's) is a change.
pub(crate) fn current(operation: &Operation, live: &LiveState) -> Option<Fingerprint> {
    current_value(operation, live).as_ref().map(of_value)
}

/// The normalized value [`current`] hashes: what a stale step's object is now, field by field.
pub(crate) fn current_value(operation: &Operation, live: &LiveState) -> Option<Value> {
    let stack = |stack: &StackRef| live.stacks.get(&stack.key);
    match operation.target() {
        Target::Service { service_id } => live
            .services
            .get(service_id)
            .map(normalize::service_scaling),
        Target::PrivateEndpoint { service_id, id } => live
            .services
            .get(service_id)
            .filter(|s| s.private_endpoint_ids.iter().any(|e| e == id))
            .map(|_| private_endpoint_value(id)),
        Target::Pipe { service_id, key } => live
            .pipes
            .get(service_id)
            .and_then(|pipes| {
                pipes.iter().find(|p| match key {
                    Key::Id(id) => p.id == id,
                    Key::Name(name) => p.name == name,
                })
            })
            .map(normalize::pipe_identity),
        // A create's object found by name is never another stack's: a dashboard tagged for
        // another stack, or an alert the plan read on one, is that stack's of the same name.
        Target::Dashboard { stack: s, key } => stack(s)
            .and_then(|l| {
                l.dashboards.iter().find(|d| match key {
                    Key::Id(id) => d.id == id,
                    Key::Name(name) => {
                        normalize::same_name(&d.name, name) && !tagged_for_another(&s.key, d)
                    }
                })
            })
            .map(normalize::dashboard_with_ids),
        Target::Alert {
            stack: s,
            key,
            theirs,
        } => stack(s)
            .and_then(|l| {
                l.alerts.iter().find(|a| match key {
                    Key::Id(id) => a.id == id,
                    Key::Name(name) => {
                        normalize::same_name(&a.name, name) && !theirs.contains(&a.id)
                    }
                })
            })
            .map(normalize::alert_with_ids),
        Target::PipeCompute { service_id } => live
            .pipe_compute
            .get(service_id)
            .map(normalize::pipe_scaling),
        Target::ServiceMember { service_id, member } => live
            .services
            .get(service_id)
            .map(|s| normalize::service_member(s, member)),
        Target::Webhook {
            stack: s,
            key,
            service,
        } => stack(s)
            .and_then(|l| {
                l.webhooks.iter().find(|w| match key {
                    Key::Id(id) => w.id == id,
                    Key::Name(name) => w.name == name && w.service == service,
                })
            })
            .map(normalize::webhook_with_secrets),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn key_order_and_integral_floats_do_not_matter() {
        let a = serde_json::json!({"a": 3, "b": [1, {"y": 1, "x": 2}]});
        let b = serde_json::json!({"b": [1.0, {"x": 2, "y": 1}], "a": 3.0});
        assert_eq!(of_value(&a), of_value(&b));
        let c = serde_json::json!({"a": 4, "b": [1, {"y": 1, "x": 2}]});
        assert_ne!(of_value(&a), of_value(&c));
    }

    #[test]
    fn round_trips_as_hex() {
        let f = Fingerprint(0x0123_4567_89ab_cdef);
        let text = serde_json::to_string(&f).unwrap();
        assert_eq!(text, "\"0123456789abcdef\"");
        assert_eq!(serde_json::from_str::<Fingerprint>(&text).unwrap(), f);
    }
}
