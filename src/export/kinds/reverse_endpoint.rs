//! A service's reverse private endpoints, each with every member it was created with, keyed
//! by the slug of its description; a kafka pipe that names them by id names them by key
//! instead, so the export moves to another organization with its endpoints.

use std::collections::BTreeMap;

use crate::api::wire::ReversePrivateEndpoint;
use crate::export::build::{Keys, entry, slug, str};
use crate::export::yaml::Node;
use crate::plan::kinds::reverse_endpoint::live::normalized;

/// `reversePrivateEndpoints:` of an exported service (before its `pipes:`), when it has any,
/// and its kafka pipes' `reversePrivateEndpointIds` written as their keys.
pub(crate) fn reverse_endpoints(
    endpoints: &[ReversePrivateEndpoint],
    node: &mut Vec<(String, Node)>,
) {
    if endpoints.is_empty() {
        return;
    }
    let mut sorted: Vec<&ReversePrivateEndpoint> = endpoints.iter().collect();
    sorted.sort_by(|a, b| (&a.spec.description, &a.id).cmp(&(&b.spec.description, &b.id)));
    let mut keys = Keys::default();
    let mut by_id = BTreeMap::new();
    let mut entries = Vec::new();
    for endpoint in sorted {
        let key = keys.take(slug(&endpoint.spec.description, "endpoint"));
        by_id.insert(endpoint.id.clone(), key.clone());
        entries.push((key, endpoint_node(endpoint)));
    }
    let at = node
        .iter()
        .position(|(k, _)| k == "pipes")
        .unwrap_or(node.len());
    node.insert(at, entry("reversePrivateEndpoints", Node::Map(entries)));
    if let Some((_, Node::Map(pipes))) = node.iter_mut().find(|(k, _)| k == "pipes") {
        for (_, pipe) in pipes.iter_mut() {
            by_key(pipe, &by_id);
        }
    }
}

/// One endpoint: its members as the config writes them.
fn endpoint_node(endpoint: &ReversePrivateEndpoint) -> Node {
    let spec = normalized(&endpoint.spec);
    let mut fields = vec![
        entry("description", str(&spec.description)),
        entry("type", str(&spec.kind)),
    ];
    for (member, value) in [
        ("vpcEndpointServiceName", &spec.vpc_endpoint_service_name),
        (
            "vpcResourceConfigurationId",
            &spec.vpc_resource_configuration_id,
        ),
        ("vpcResourceShareArn", &spec.vpc_resource_share_arn),
        ("mskClusterArn", &spec.msk_cluster_arn),
        ("mskAuthentication", &spec.msk_authentication),
        ("gcpServiceAttachment", &spec.gcp_service_attachment),
    ] {
        if let Some(value) = value {
            fields.push(entry(member, str(value)));
        }
    }
    if !spec.custom_private_dns_mappings.is_empty() {
        let mappings = spec
            .custom_private_dns_mappings
            .iter()
            .map(|m| Node::Map(vec![entry("privateDnsName", str(&m.private_dns_name))]))
            .collect();
        fields.push(entry("customPrivateDnsMappings", Node::List(mappings)));
    }
    Node::Map(fields)
}

/// A pipe's `source.kafka.reversePrivateEndpointIds` as `reversePrivateEndpoints` keys, when
/// every id is an exported endpoint's (else the ids stay as they are).
fn by_key(pipe: &mut Node, by_id: &BTreeMap<String, String>) {
    let Some(kafka) = child(pipe, "source").and_then(|s| child(s, "kafka")) else {
        return;
    };
    let Node::Map(members) = kafka else {
        return;
    };
    let Some(at) = members
        .iter()
        .position(|(k, _)| k == "reversePrivateEndpointIds")
    else {
        return;
    };
    let Node::List(ids) = &members[at].1 else {
        return;
    };
    let keys: Option<Vec<Node>> = ids
        .iter()
        .map(|id| match id {
            Node::Str(id) => by_id.get(id).map(|key| str(key)),
            _ => None,
        })
        .collect();
    if let Some(keys) = keys {
        members[at] = entry("reversePrivateEndpoints", Node::List(keys));
    }
}

fn child<'n>(node: &'n mut Node, key: &str) -> Option<&'n mut Node> {
    match node {
        Node::Map(entries) => entries.iter_mut().find(|(k, _)| k == key).map(|(_, v)| v),
        _ => None,
    }
}
