//! `converge export`: the live state written as a config that plans to no changes.
//!
//! Pure: [`export`] takes what was read and returns the YAML text and warnings about objects it
//! had to leave out (a config could not manage them as they are: two dashboards with one name,
//! an alert whose tile is gone). Keys come from names: lowercase, runs of other characters
//! turned into `-`, a `-2`, `-3`... suffix when two names give the same key; objects are
//! visited sorted by name then id, so keys are stable from one export to the next. Tiles keep
//! the server's order: a tile renamed where it stands in that list keeps its id. Nothing else
//! is needed for a later rename: it is declared in the config with `renamedFrom`. Values are
//! written as the planner compares them (defaults and empty strings left out). Connection
//! settings and secrets are `${env:CONVERGE_*}` references; pipe credentials are never read
//! into the output (only scaling is exported). What each kind writes is one file under
//! `kinds/`, registered in the lists there.

pub(crate) mod build;
mod kinds;
pub(crate) use kinds::{adopted_alert_node, dashboard_node, tile_node};
pub(crate) mod yaml;

use std::collections::{BTreeMap, BTreeSet};

use build::{Keys, StackWriting, entry, reference, slug, str};
use yaml::Node;

use crate::api::wire::{Pipe, PipeScaling, Service};
use crate::config::secret_fields::{KEY_SECRET, TOKEN};
use crate::live::StackLive;
use crate::plan::tag;

/// Which API a stack to export lives behind.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum ExportTarget {
    /// The managed stack of a service (by id; exported under that service's key).
    Managed {
        /// Service id.
        service_id: String,
    },
    /// The standalone observability API.
    Observability,
}

/// A stack to export with what was read from it.
#[derive(Debug, Clone)]
pub(crate) struct StackExport {
    /// Where it lives.
    pub target: ExportTarget,
    /// Its dashboards, alerts and sources.
    pub live: StackLive,
}

/// Everything an export writes.
#[derive(Debug, Clone, Default)]
pub(crate) struct ExportInput {
    /// Services to export, with their pipes.
    pub services: Vec<(Service, Vec<Pipe>)>,
    /// Services a managed stack names without being exported themselves (their key is needed).
    pub stack_services: Vec<Service>,
    /// Stacks to export.
    pub stacks: Vec<StackExport>,
    /// The compute shared by the database pipes of each exported service that has one, by
    /// service id.
    pub pipe_compute: BTreeMap<String, PipeScaling>,
    /// The reverse private endpoints of each exported service that has some, by service id.
    pub reverse_endpoints: BTreeMap<String, Vec<crate::api::wire::ReversePrivateEndpoint>>,
}

/// The text of an export and what was left out.
#[derive(Debug, Clone, Default)]
pub(crate) struct Exported {
    /// The config, YAML.
    pub yaml: String,
    /// One line per object left out, saying why.
    pub warnings: Vec<String>,
}

/// Writes the config for `input`; `observability` adds the observability API's connection
/// section (the cloud section is written whenever a service or managed stack is exported).
pub(crate) fn export(input: &ExportInput, observability: bool) -> Exported {
    let mut warnings = Vec::new();
    let mut root = vec![
        entry("version", Node::int(1)),
        entry("organization", reference("CONVERGE_ORG_ID")),
    ];
    connections(input, observability, &mut root);

    // Services, by name then id; stack-only services get keys too (a managed stack names one).
    let mut service_keys: BTreeMap<String, String> = BTreeMap::new();
    let mut keys = Keys::default();
    let mut all: Vec<(&Service, Option<&Vec<Pipe>>)> = input
        .services
        .iter()
        .map(|(s, p)| (s, Some(p)))
        .chain(input.stack_services.iter().map(|s| (s, None)))
        .collect();
    all.sort_by(|a, b| (&a.0.name, &a.0.id).cmp(&(&b.0.name, &b.0.id)));
    all.dedup_by(|a, b| a.0.id == b.0.id);
    let mut services = Vec::new();
    for (service, pipes) in all {
        warnings.extend(pipes.into_iter().flatten().filter_map(in_flight));
        let key = keys.take(slug(&service.name, "service"));
        service_keys.insert(service.id.clone(), key.clone());
        let compute = input.pipe_compute.get(&service.id);
        let mut node = service_node(&key, service, pipes, compute);
        if let (Some(endpoints), Node::Map(members)) =
            (input.reverse_endpoints.get(&service.id), &mut node)
        {
            kinds::reverse_endpoints(endpoints, members);
        }
        services.push((key, node));
    }
    if !services.is_empty() {
        root.push(entry("services", Node::Map(services)));
    }

    let mut stacks = Vec::new();
    let mut stack_keys = Keys::default();
    for stack in &input.stacks {
        let (wanted, target) = match &stack.target {
            ExportTarget::Managed { service_id } => {
                let service_key = service_keys
                    .get(service_id)
                    .cloned()
                    .unwrap_or_else(|| slug(service_id, "service"));
                (service_key.clone(), entry("service", str(&service_key)))
            }
            ExportTarget::Observability => (
                "observability".to_string(),
                entry("api", str("observability")),
            ),
        };
        // A stack converge already manages keeps its key, so its ownership tag stays valid.
        let key = stack_keys.take(owner_key(&stack.live).unwrap_or(wanted));
        let mut node = vec![target];
        let observability = matches!(stack.target, ExportTarget::Observability);
        stack_body(&key, (&stack.live, observability), &mut node, &mut warnings);
        stacks.push((key, Node::Map(node)));
    }
    if !stacks.is_empty() {
        root.push(entry("stacks", Node::Map(stacks)));
    }

    let mut yaml = String::from(
        "# Written by `converge export`. Connection settings and secrets come from the\n\
         # CONVERGE_* environment variables named below.\n",
    );
    yaml.push_str(&yaml::to_string(&root));
    Exported { yaml, warnings }
}

/// The connection sections: `cloud` whenever a service or managed stack is exported, and
/// `observability` when asked; every value a `${env:...}` reference.
fn connections(input: &ExportInput, observability: bool, root: &mut Vec<(String, Node)>) {
    let needs_cloud = !input.services.is_empty()
        || input
            .stacks
            .iter()
            .any(|s| matches!(s.target, ExportTarget::Managed { .. }));
    if needs_cloud {
        root.push(entry(
            "cloud",
            Node::Map(vec![
                entry("url", reference("CONVERGE_CLOUD_URL")),
                entry("keyId", reference("CONVERGE_KEY_ID")),
                entry(KEY_SECRET.key, reference(KEY_SECRET.variable)),
            ]),
        ));
    }
    if observability {
        root.push(entry(
            "observability",
            Node::Map(vec![
                entry("url", reference("CONVERGE_OBSERVABILITY_URL")),
                entry(TOKEN.key, reference(TOKEN.variable)),
            ]),
        ));
    }
}

/// A warning for a pipe whose scaling reads a field its source kind scales as null or 0, as
/// the API shows a scaling change still in flight (right after an apply): the export cannot
/// write a value it does not see, and says so instead of exporting a partial scaling quietly.
fn in_flight(pipe: &Pipe) -> Option<String> {
    let scaling = pipe.scaling.as_ref()?;
    let kind = pipe.source.as_ref().and_then(|s| s.kind())?;
    let fields = [
        ("replicas", scaling.replicas.map(|v| v as f64)),
        ("concurrency", scaling.concurrency.map(|v| v as f64)),
        (
            "replicaCpuMillicores",
            scaling.replica_cpu_millicores.map(|v| v as f64),
        ),
        ("replicaMemoryGb", scaling.replica_memory_gb),
    ];
    let unseen: Vec<String> = fields
        .iter()
        .filter(|(field, value)| kind.scales(field) && value.is_none_or(|v| v == 0.0))
        .map(|(field, _)| format!("`{field}`"))
        .collect();
    if unseen.is_empty() {
        return None;
    }
    Some(format!(
        "pipe `{}`: its scaling reads {} as null or 0, as while a scaling change is still in \
         flight; the export leaves {} out: run `converge export` again once the change shows \
         (`converge apply --wait` waits for it)",
        pipe.name,
        unseen.join(", "),
        if unseen.len() == 1 { "it" } else { "them" }
    ))
}

/// A service as exported: its id, and when the service itself is exported (`pipes` is
/// there) what each kind writes under it, then the compute of its database pipes.
fn service_node(
    key: &str,
    service: &Service,
    pipes: Option<&Vec<Pipe>>,
    compute: Option<&PipeScaling>,
) -> Node {
    let mut node = vec![entry("id", str(&service.id))];
    if let Some(pipes) = pipes {
        for section in kinds::SERVICE_SECTIONS {
            section(key, service, pipes, &mut node);
        }
    }
    if let Some(compute) = compute {
        kinds::pipe_compute(compute, &mut node);
    }
    Node::Map(node)
}

/// The stack key of the ownership tag the stack's dashboards carry, when they agree on one.
fn owner_key(live: &StackLive) -> Option<String> {
    let owners: BTreeSet<&str> = live
        .dashboards
        .iter()
        .flat_map(|d| d.tags.iter())
        .filter_map(|t| tag::owner(t))
        .collect();
    match owners.into_iter().collect::<Vec<_>>().as_slice() {
        // A cut tag (`~hash`) cannot be turned back into its key.
        [one] if !one.contains('~') && slug(one, "") == *one => Some((*one).to_string()),
        _ => None,
    }
}

fn stack_body(
    key: &str,
    (live, observability): (&StackLive, bool),
    node: &mut Vec<(String, Node)>,
    warnings: &mut Vec<String>,
) {
    let mut writing = StackWriting {
        key,
        tag: tag::ownership_tag(key),
        live,
        dashboards: BTreeMap::new(),
        warnings,
        observability,
    };
    for section in kinds::STACK_SECTIONS {
        section(&mut writing, node);
    }
}

#[cfg(test)]
mod tests;
