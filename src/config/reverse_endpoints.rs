//! `services.<key>.reversePrivateEndpoints.<key>`: building each declared reverse private
//! endpoint, and the rules the schema cannot say:
//!
//! | Code | Rule |
//! |---|---|
//! | `semantic::duplicate-endpoint` | two endpoints of one service have one description (converge finds an endpoint by it) |
//! | `semantic::unknown-reverse-endpoint` | a kafka pipe's `reversePrivateEndpoints` names an endpoint key its service declares and does not mark `absent`, and is not written beside literal `reversePrivateEndpointIds` |
//!
//! The type's required members and the members a type does not take are the schema's.

use std::collections::HashMap;

use indexmap::IndexMap;

use super::model::{Located, ReverseEndpointConfig, ServiceConfig};
use super::yaml::Node;
use crate::api::wire::ReverseEndpointSpec;
use crate::diagnostic::{Code, Diagnostic, Span};

/// The endpoints `reversePrivateEndpoints:` declares (the schema checked their shape).
pub(crate) fn build(node: Option<&Node>) -> IndexMap<String, ReverseEndpointConfig> {
    let entries = node.and_then(Node::as_map).unwrap_or_default();
    entries
        .iter()
        .map(|(key, node)| {
            let mut written = node.to_json();
            if let Some(map) = written.as_object_mut() {
                map.remove("absent");
            }
            let mut spec: ReverseEndpointSpec = serde_json::from_value(written).unwrap_or_default();
            if spec.description.is_empty() {
                spec.description = key.name.to_string();
            }
            let spans = node
                .as_map()
                .unwrap_or_default()
                .iter()
                .map(|(k, v)| (k.name.clone(), v.span))
                .collect();
            let absent = matches!(
                node.get("absent").map(|n| &n.kind),
                Some(super::yaml::Kind::Bool(true))
            );
            let config = ReverseEndpointConfig {
                key: Located::new(key.name.to_string(), key.span),
                absent,
                spec,
                spans,
            };
            (key.name.to_string(), config)
        })
        .collect()
}

/// Checks the endpoints of one service and the kafka pipes that name them; `written` is the
/// service's mapping as written (where each pipe's entries stand).
pub(crate) fn check(service: &ServiceConfig, written: Option<&Node>, diags: &mut Vec<Diagnostic>) {
    let mut descriptions: HashMap<&str, Span> = HashMap::new();
    for endpoint in service.reverse_endpoints.values() {
        let span = endpoint.span_of("description");
        if let Some(first) = descriptions.insert(&endpoint.spec.description, span) {
            diags.push(
                Diagnostic::error(
                    Code::SemanticDuplicateEndpoint,
                    format!(
                        "two reverse private endpoints of service `{}` have the description `{}`",
                        service.key.value, endpoint.spec.description
                    ),
                    Some(span),
                )
                .with_label("described again")
                .with_related(first, "first described here")
                .with_help("converge finds an endpoint by its description: give each its own"),
            );
        }
    }
    let pipes = written.and_then(|s| s.get("pipes")).and_then(Node::as_map);
    for (_, pipe) in pipes.unwrap_or_default() {
        let Some(kafka) = pipe.get("source").and_then(|s| s.get("kafka")) else {
            continue;
        };
        let Some(named) = kafka.get("reversePrivateEndpoints") else {
            continue;
        };
        if let Some(ids) = kafka.get("reversePrivateEndpointIds") {
            diags.push(
                Diagnostic::error(
                    Code::SemanticUnknownReverseEndpoint,
                    "`reversePrivateEndpoints` and `reversePrivateEndpointIds` are both written",
                    Some(ids.span),
                )
                .with_label("literal ids")
                .with_help("name the endpoints by key only, under `reversePrivateEndpoints`"),
            );
        }
        let items: &[Node] = match &named.kind {
            super::yaml::Kind::Seq(items) => items,
            _ => &[],
        };
        for item in items {
            let Some(key) = item.as_str() else {
                continue;
            };
            if let Some(problem) = unknown(service, key, item.span) {
                diags.push(problem);
            }
        }
    }
}

/// The problem with a pipe naming endpoint `key`, if any.
fn unknown(service: &ServiceConfig, key: &str, span: Span) -> Option<Diagnostic> {
    let declared = service.reverse_endpoints.get(key);
    let (message, help) = match declared {
        Some(endpoint) if !endpoint.absent => return None,
        Some(_) => (
            format!("the pipe names reverse private endpoint `{key}`, which is marked `absent`"),
            "remove it from the pipe, or drop `absent: true` from the endpoint".to_string(),
        ),
        None => {
            let keys: Vec<&str> = service
                .reverse_endpoints
                .keys()
                .map(String::as_str)
                .collect();
            (
                format!(
                    "service `{}` declares no reverse private endpoint `{key}`",
                    service.key.value
                ),
                if keys.is_empty() {
                    "declare it under the service's `reversePrivateEndpoints:`".to_string()
                } else {
                    format!("the service declares: {}", keys.join(", "))
                },
            )
        }
    };
    Some(
        Diagnostic::error(Code::SemanticUnknownReverseEndpoint, message, Some(span))
            .with_label("no such endpoint")
            .with_help(help),
    )
}
