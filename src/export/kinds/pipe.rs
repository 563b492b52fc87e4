//! A service's pipes, each whole: name, state, source with every field the API answers,
//! destination, field mappings, settings and scaling. The server never answers a credential,
//! so each one the source takes is written as an `${env:...}` placeholder with a comment naming
//! the variable to set; what servers answer as secret-typed (a kafka CA certificate, an Azure
//! connection string) is never read into the output.

use serde_json::{Map, Value};

use crate::api::wire::{Pipe, Service};
use crate::config::secret_fields::{PIPE_CREDENTIALS, pipe_credentials_taken};
use crate::export::build::{Keys, entry, reference, slug, str};
use crate::export::yaml::Node;

/// Source members answered as secret-typed (`wire::Secret`) that are not credentials the
/// config writes: left out of the export, as no output may hold them.
const NOT_EXPORTED: [(&str, &str); 2] = [
    ("kafka", "caCertificate"),
    ("kafka", "schemaRegistry.caCertificate"),
];

/// `pipes:` of an exported service, by name then id, when it has any. The placeholders'
/// variables are named by `service_key`, the key the export writes the service under: two
/// services whose names share a slug get distinct keys, so their pipes get distinct variables.
pub(super) fn pipes(
    service_key: &str,
    _: &Service,
    pipes: &[Pipe],
    node: &mut Vec<(String, Node)>,
) {
    let mut sorted: Vec<&Pipe> = pipes.iter().collect();
    sorted.sort_by(|a, b| (&a.name, &a.id).cmp(&(&b.name, &b.id)));
    let mut keys = Keys::default();
    let mut pipe_nodes = Vec::new();
    for pipe in sorted {
        let key = keys.take(slug(&pipe.name, "pipe"));
        let mut p = vec![entry("id", str(&pipe.id))];
        if !pipe.name.is_empty() {
            p.push(entry("name", str(&pipe.name)));
        }
        if let Some(state) = pipe.state.as_deref().and_then(declared_state) {
            p.push(entry("state", str(state)));
        }
        if let Some(source) = source_node(service_key, &key, pipe) {
            p.push(entry("source", source));
        }
        for (member, value) in [
            ("destination", &pipe.destination),
            ("fieldMappings", &pipe.field_mappings),
            ("settings", &pipe.settings),
        ] {
            if let Some(node) = value.as_ref().and_then(|v| json_node(&v.value(), "", &[])) {
                p.push(entry(member, node));
            }
        }
        if let Some(s) = &pipe.scaling {
            let mut fields = Vec::new();
            if let Some(v) = s.replicas {
                fields.push(entry("replicas", Node::int(v)));
            }
            if let Some(v) = s.concurrency {
                fields.push(entry("concurrency", Node::int(v)));
            }
            if let Some(v) = s.replica_cpu_millicores {
                fields.push(entry("replicaCpuMillicores", Node::int(v)));
            }
            if let Some(v) = s.replica_memory_gb {
                fields.push(entry("replicaMemoryGb", Node::float(v)));
            }
            if !fields.is_empty() {
                p.push(entry("scaling", Node::Map(fields)));
            }
        }
        pipe_nodes.push((key, Node::Map(p)));
    }
    if !pipe_nodes.is_empty() {
        node.push(entry("pipes", Node::Map(pipe_nodes)));
    }
}

/// The `state:` a live state reads as: running or stopped; none for a pipe in between or
/// failed, whose state the config cannot ask.
fn declared_state(live: &str) -> Option<&'static str> {
    match live {
        "Running" | "Provisioning" | "Modifying" => Some("running"),
        "Stopped" | "Paused" => Some("stopped"),
        _ => None,
    }
}

/// `source:` with its one kind: every member the API answers, secret-typed ones left out, and
/// a placeholder for each credential the kind takes.
fn source_node(service_key: &str, pipe_key: &str, pipe: &Pipe) -> Option<Node> {
    let source = serde_json::to_value(pipe.source.as_ref()?).ok()?;
    let (kind, body) = source
        .as_object()?
        .iter()
        .find(|(_, body)| body.is_object())?;
    let mut body = body.clone();
    for (_, path) in NOT_EXPORTED.iter().filter(|(k, _)| k == kind) {
        remove(&mut body, path);
    }
    for (_, path) in PIPE_CREDENTIALS.iter().filter(|(k, _)| k == kind) {
        remove(&mut body, path);
    }
    let credentials: Vec<(&str, String)> = pipe_credentials_taken(kind, &body)
        .into_iter()
        .map(|path| (path, variable(service_key, pipe_key, path)))
        .collect();
    for (path, _) in &credentials {
        place(&mut body, path);
    }
    let node = json_node(&body, "", &credentials)?;
    Some(Node::Map(vec![entry(kind, node)]))
}

/// The variable a credential's placeholder names: `PIPE_<SERVICE>_<PIPE>_<PATH>`, upper snake
/// case, the same for the same service, pipe and field in every export.
fn variable(service_key: &str, pipe_key: &str, path: &str) -> String {
    let mut name = String::from("PIPE");
    for part in [service_key, pipe_key, path] {
        name.push('_');
        let mut previous_lower = false;
        for c in part.chars() {
            if c.is_ascii_uppercase() && previous_lower {
                name.push('_');
            }
            previous_lower = c.is_ascii_lowercase() || c.is_ascii_digit();
            if c.is_ascii_alphanumeric() {
                name.push(c.to_ascii_uppercase());
            } else if !name.ends_with('_') {
                name.push('_');
            }
        }
    }
    name
}

/// Removes the member at a dot-separated path, and a parent it leaves empty.
fn remove(value: &mut Value, path: &str) {
    let Some((head, rest)) = path.split_once('.') else {
        if let Value::Object(map) = value {
            map.remove(path);
        }
        return;
    };
    if let Some(child) = value.get_mut(head) {
        remove(child, rest);
        if child.as_object().is_some_and(Map::is_empty)
            && let Value::Object(map) = value
        {
            map.remove(head);
        }
    }
}

/// Makes room for a placeholder at a dot-separated path (a null [`json_node`] replaces).
fn place(value: &mut Value, path: &str) {
    let mut at = value;
    for part in path.split('.') {
        if !at.is_object() {
            *at = Value::Object(Map::new());
        }
        let Value::Object(map) = at else { return };
        at = map.entry(part).or_insert(Value::Null);
    }
}

/// A JSON value as YAML, nulls left out; at each credential path, its placeholder.
pub(super) fn json_node(value: &Value, at: &str, credentials: &[(&str, String)]) -> Option<Node> {
    if let Some((_, name)) = credentials.iter().find(|(path, _)| *path == at) {
        return Some(Node::Commented(
            Box::new(reference(name)),
            format!("write-only, never read back: set {name}"),
        ));
    }
    Some(match value {
        Value::Null => return None,
        Value::Bool(b) => Node::Bool(*b),
        Value::Number(n) => Node::Num(n.to_string()),
        Value::String(s) => str(s),
        Value::Array(items) => Node::List(
            items
                .iter()
                .filter_map(|item| json_node(item, "\u{0}", &[]))
                .collect(),
        ),
        Value::Object(map) => Node::Map(
            map.iter()
                .filter_map(|(key, value)| {
                    let path = if at.is_empty() {
                        key.clone()
                    } else {
                        format!("{at}.{key}")
                    };
                    Some(entry(key, json_node(value, &path, credentials)?))
                })
                .collect(),
        ),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_placeholder_variable_is_upper_snake_case_of_service_pipe_and_field() {
        assert_eq!(
            variable("analytics", "orders", "credentials.password"),
            "PIPE_ANALYTICS_ORDERS_CREDENTIALS_PASSWORD"
        );
        assert_eq!(
            variable("prod-eu", "files-from-s3", "accessKey.accessKeyId"),
            "PIPE_PROD_EU_FILES_FROM_S3_ACCESS_KEY_ACCESS_KEY_ID"
        );
    }
}
