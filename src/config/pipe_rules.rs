//! The rules of a pipe declared whole that the schema cannot say, each at the line it is about:
//!
//! | Code | Rule |
//! |---|---|
//! | `semantic::pipe-source` | `source` names exactly one of `kafka`, `objectStorage`, `kinesis`, `postgres`, `mysql`, `mongodb`, `bigquery`, `pubsub` |
//! | `semantic::pipe-kind-field` | a field the source kind does not take: per-pipe `scaling` on a database (postgres, mysql, mongodb, bigquery) or pubsub pipe (or a scaling field of another kind), a destination table or field mappings on a database pipe, a setting of another kind |
//! | `semantic::pipe-destination` | a streaming or object-storage pipe names its destination `table`, `managedTable` and `columns` |
//! | `semantic::pipe-field-mappings` | every destination column has a field mapping, and every mapping names a column |
//! | `semantic::duplicate-pipe-name` | pipe names are unique within a service |
//! | `semantic::pipe-compute` | `services.<key>.pipeCompute` has 4 GB of memory for each CPU core |
//!
//! The per-kind required fields (kafka `brokers`, `topics`, `format`, ...) and the conditional
//! ones (`offset.timestamp` for `from_timestamp`, `iamRole` for `IAM_ROLE`, ...) are the
//! schema's (`schema::required`), setting ranges too (`schema::range`).

use std::collections::{HashMap, HashSet};

use crate::api::limits::CDC_MEMORY_PER_CORE_GB;
use crate::api::wire::SourceKind;

use super::model::{PipeConfig, PipeKind, ServiceConfig};
use super::yaml::{Key, Node};
use crate::diagnostic::{Code, Diagnostic, Span};

/// The scaling fields of the config format, in the order it lists them.
const SCALING_FIELDS: [&str; 4] = [
    "replicas",
    "concurrency",
    "replicaCpuMillicores",
    "replicaMemoryGb",
];

/// Destination fields only streaming and object-storage pipes take.
const TABLE_FIELDS: [&str; 4] = ["table", "managedTable", "tableDefinition", "columns"];

/// Checks the pipes of one service; `written` is the service's mapping as written.
pub(crate) fn check(service: &ServiceConfig, written: Option<&Node>, diags: &mut Vec<Diagnostic>) {
    compute(service, diags);
    let written_pipes = written.and_then(|s| s.get("pipes"));
    // A pipe found by name may list the names it had before, each naming one pipe.
    super::rename_rules::renames(
        "pipe",
        ("service", &service.key.value),
        service
            .pipes
            .values()
            .filter_map(|p| Some((p.name.as_ref()?, p.renamed_from.as_slice()))),
        diags,
    );
    let mut names: HashMap<&str, Span> = HashMap::new();
    for pipe in service.pipes.values() {
        let Some(node) = written_pipes.and_then(|p| p.get(&pipe.key.value)) else {
            continue;
        };
        if let Some(name) = &pipe.name
            && let Some(first) = names.insert(&name.value, name.span)
        {
            diags.push(
                Diagnostic::error(
                    Code::SemanticDuplicatePipeName,
                    format!(
                        "two pipes of service `{}` are named `{}`; a pipe is found by its name",
                        service.key.value, name.value
                    ),
                    Some(name.span),
                )
                .with_label("named again")
                .with_related(first, "first named here"),
            );
        }
        let at = Pipe {
            service: &service.key.value,
            pipe,
            node,
        };
        at.source(diags);
        let Some(kind) = pipe.source.as_ref().map(|s| s.kind.value) else {
            continue;
        };
        at.scaling(kind, diags);
        at.destination(kind, diags);
        at.settings(kind, diags);
    }
}

/// One written pipe and what it was built into.
struct Pipe<'a> {
    service: &'a str,
    pipe: &'a PipeConfig,
    node: &'a Node,
}

impl Pipe<'_> {
    /// `semantic::pipe-source`: exactly one kind under `source`.
    fn source(&self, diags: &mut Vec<Diagnostic>) {
        let Some((source_key, source)) = entry(self.node, "source") else {
            return;
        };
        let Some(entries) = source.as_map() else {
            return;
        };
        let kinds: Vec<&Key> = entries
            .iter()
            .map(|(k, _)| k)
            .filter(|k| PipeKind::from_key(&k.name).is_some())
            .collect();
        let all = PipeKind::ALL
            .iter()
            .map(|k| format!("`{}`", k.as_str()))
            .collect::<Vec<_>>()
            .join(", ");
        match kinds.as_slice() {
            [] => diags.push(
                Diagnostic::error(
                    Code::SemanticPipeSource,
                    format!(
                        "the source of pipe `{}` names no source kind",
                        self.address()
                    ),
                    Some(source_key.span),
                )
                .with_label("which source?")
                .with_help(format!("write one of {all} under `source`")),
            ),
            [_] => {}
            [first, rest @ ..] => {
                for extra in rest {
                    diags.push(
                        Diagnostic::error(
                            Code::SemanticPipeSource,
                            format!(
                                "the source of pipe `{}` names two kinds, `{}` and `{}`; a pipe reads from one",
                                self.address(),
                                first.name,
                                extra.name
                            ),
                            Some(extra.span),
                        )
                        .with_label("a second source kind")
                        .with_related(first.span, "first kind here")
                        .with_help("keep one kind; a second source is a second pipe"),
                    );
                }
            }
        }
    }

    /// `semantic::pipe-kind-field` for `scaling`: postgres pipes are not scaled per pipe, and
    /// each field applies to the kinds it names.
    fn scaling(&self, kind: PipeKind, diags: &mut Vec<Diagnostic>) {
        let Some((scaling_key, scaling)) = entry(self.node, "scaling") else {
            return;
        };
        let wire = wire_kind(kind);
        let applicable: Vec<&str> = SCALING_FIELDS
            .into_iter()
            .filter(|f| wire.scales(f))
            .collect();
        if applicable.is_empty() {
            diags.push(
                Diagnostic::error(
                    Code::SemanticPipeKindField,
                    format!(
                        "pipe `{}` reads from {}, and {} pipes take no per-pipe `scaling`",
                        self.address(),
                        kind.as_str(),
                        kind.as_str()
                    ),
                    Some(scaling_key.span),
                )
                .with_label("not scaled per pipe")
                .with_help(if kind.is_database() {
                    format!(
                        "database pipes share the compute of their service: set it with `services.{}.pipeCompute`, and remove `scaling` from this pipe",
                        self.service
                    )
                } else {
                    "the cloud's pipe scaling takes kafka, kinesis and object-storage pipes only; remove `scaling` from this pipe".to_string()
                }),
            );
            return;
        }
        for (key, _) in scaling.as_map().unwrap_or_default() {
            if SCALING_FIELDS.contains(&key.name.as_str()) && !wire.scales(&key.name) {
                diags.push(
                    Diagnostic::error(
                        Code::SemanticPipeKindField,
                        format!(
                            "`{}` does not apply to pipe `{}`, whose source is {}",
                            key.name,
                            self.address(),
                            kind.as_str()
                        ),
                        Some(key.span),
                    )
                    .with_label(format!("not a scaling field of {} pipes", kind.as_str()))
                    .with_help(format!(
                        "{} pipes scale by {}; remove `{}`",
                        kind.as_str(),
                        applicable.join(", "),
                        key.name
                    )),
                );
            }
        }
    }

    /// The destination and field mappings: a database pipe names only a database (its tables
    /// come from `tableMappings`); the others name a table, its columns and a mapping for each.
    fn destination(&self, kind: PipeKind, diags: &mut Vec<Diagnostic>) {
        let destination = entry(self.node, "destination");
        let mappings = entry(self.node, "fieldMappings");
        if kind.is_database() {
            self.no_table_fields(kind, destination, mappings, diags);
            return;
        }
        let Some((destination_key, destination)) = destination else {
            return;
        };
        let missing: Vec<&str> = ["table", "managedTable", "columns"]
            .into_iter()
            .filter(|f| destination.get(f).is_none())
            .collect();
        if !missing.is_empty() {
            let list = missing
                .iter()
                .map(|f| format!("`{f}`"))
                .collect::<Vec<_>>()
                .join(", ");
            diags.push(
                Diagnostic::error(
                    Code::SemanticPipeDestination,
                    format!(
                        "the destination of pipe `{}` is missing {list}, which {} pipes need",
                        self.address(),
                        kind.as_str()
                    ),
                    Some(destination_key.span),
                )
                .with_label(format!("add {list}"))
                .with_help("name the table, whether the pipe manages it, and its columns"),
            );
        }
        let columns: Vec<&Node> = seq(destination.get("columns"))
            .iter()
            .filter_map(|c| c.get("name"))
            .filter(|n| n.as_str().is_some())
            .collect();
        if columns.is_empty() {
            return;
        }
        self.field_mappings(&columns, mappings, diags);
    }

    /// A database pipe names no destination table, columns or field mappings: its tables are
    /// its `source.<kind>.tableMappings`.
    fn no_table_fields(
        &self,
        kind: PipeKind,
        destination: Option<(&Key, &Node)>,
        mappings: Option<(&Key, &Node)>,
        diags: &mut Vec<Diagnostic>,
    ) {
        let written = destination
            .and_then(|(_, d)| d.as_map())
            .unwrap_or_default()
            .iter()
            .map(|(k, _)| k)
            .filter(|k| TABLE_FIELDS.contains(&k.name.as_str()));
        for key in written.chain(mappings.map(|(k, _)| k)) {
            diags.push(
                Diagnostic::error(
                    Code::SemanticPipeKindField,
                    format!(
                        "`{}` does not apply to pipe `{}`, whose source is {}",
                        key.name,
                        self.address(),
                        kind.as_str()
                    ),
                    Some(key.span),
                )
                .with_label(format!("not a field of {} pipes", kind.as_str()))
                .with_help(format!(
                    "a {0} pipe's tables are its `source.{0}.tableMappings`; remove this",
                    kind.as_str()
                )),
            );
        }
    }

    /// Every destination column has a field mapping, and every field mapping names a column.
    fn field_mappings(
        &self,
        columns: &[&Node],
        mappings: Option<(&Key, &Node)>,
        diags: &mut Vec<Diagnostic>,
    ) {
        let Some((mappings_key, mappings)) = mappings else {
            diags.push(
                Diagnostic::error(
                    Code::SemanticPipeFieldMappings,
                    format!(
                        "pipe `{}` has destination columns but no `fieldMappings`",
                        self.address()
                    ),
                    Some(self.pipe.key.span),
                )
                .with_label("add `fieldMappings:`")
                .with_help("map a source field to every destination column"),
            );
            return;
        };
        let mapped: HashSet<&str> = seq(Some(mappings))
            .iter()
            .filter_map(|m| m.get("destinationField")?.as_str())
            .collect();
        let names: HashSet<&str> = columns.iter().filter_map(|n| n.as_str()).collect();
        for column in columns {
            let Some(name) = column.as_str() else {
                continue;
            };
            if !mapped.contains(name) {
                diags.push(
                    Diagnostic::error(
                        Code::SemanticPipeFieldMappings,
                        format!(
                            "destination column `{name}` of pipe `{}` has no field mapping",
                            self.address()
                        ),
                        Some(column.span),
                    )
                    .with_label("not mapped")
                    .with_related(mappings_key.span, "field mappings here")
                    .with_help(format!(
                        "add `- {{sourceField: <field>, destinationField: {name}}}` to `fieldMappings`"
                    )),
                );
            }
        }
        for target in seq(Some(mappings))
            .iter()
            .filter_map(|m| m.get("destinationField"))
        {
            let Some(name) = target.as_str() else {
                continue;
            };
            if !names.contains(name) {
                diags.push(
                    Diagnostic::error(
                        Code::SemanticPipeFieldMappings,
                        format!(
                            "field mapping of pipe `{}` names `{name}`, which is not a destination column",
                            self.address()
                        ),
                        Some(target.span),
                    )
                    .with_label("no such column")
                    .with_help("add the column to `destination.columns`, or fix the name"),
                );
            }
        }
    }

    /// `semantic::pipe-kind-field` for `settings`: `streaming_*` for kafka and kinesis pipes,
    /// `object_storage_*` for object-storage pipes, `db_*` for every kind.
    fn settings(&self, kind: PipeKind, diags: &mut Vec<Diagnostic>) {
        let Some((_, settings)) = entry(self.node, "settings") else {
            return;
        };
        for (key, _) in settings.as_map().unwrap_or_default() {
            let takes = match setting_kinds(&key.name) {
                Some(kinds) => kinds.contains(&kind),
                // Not a setting: the schema reports the unknown key.
                None => true,
            };
            if !takes {
                diags.push(
                    Diagnostic::error(
                        Code::SemanticPipeKindField,
                        format!(
                            "setting `{}` does not apply to pipe `{}`, whose source is {}",
                            key.name,
                            self.address(),
                            kind.as_str()
                        ),
                        Some(key.span),
                    )
                    .with_label(format!(
                        "a setting of {} pipes",
                        kinds_text(kinds_of(&key.name))
                    ))
                    .with_help(format!(
                        "`{}` is taken only by {} pipes; remove it from this {} pipe",
                        key.name,
                        kinds_text(kinds_of(&key.name)),
                        kind.as_str()
                    )),
                );
            }
        }
    }

    fn address(&self) -> String {
        format!("{}.{}", self.service, self.pipe.key.value)
    }
}

/// The source kinds a setting applies to, by its prefix; `None` for a key that is no setting.
pub(crate) fn setting_kinds(key: &str) -> Option<&'static [PipeKind]> {
    if key.starts_with("streaming_") {
        Some(&[PipeKind::Kafka, PipeKind::Kinesis, PipeKind::Pubsub])
    } else if key.starts_with("object_storage_") {
        Some(&[PipeKind::ObjectStorage])
    } else if key.starts_with("db_") {
        Some(&PipeKind::ALL)
    } else {
        None
    }
}

/// `semantic::pipe-compute`: the shared compute of database pipes takes memory 4 GB for each
/// CPU core (the schema asks both members and their ranges).
fn compute(service: &ServiceConfig, diags: &mut Vec<Diagnostic>) {
    let Some(compute) = &service.pipe_compute else {
        return;
    };
    let (Some(cpu), Some(memory)) = (&compute.replica_cpu_millicores, &compute.replica_memory_gb)
    else {
        return;
    };
    let wanted = cpu.value as f64 / 1000.0 * CDC_MEMORY_PER_CORE_GB;
    if (memory.value - wanted).abs() > f64::EPSILON {
        diags.push(
            Diagnostic::error(
                Code::SemanticPipeCompute,
                format!(
                    "`services.{}.pipeCompute.replicaMemoryGb` must be {CDC_MEMORY_PER_CORE_GB} GB for each CPU core: {wanted} for {} millicores, not {}",
                    service.key.value, cpu.value, memory.value
                ),
                Some(memory.span),
            )
            .with_label(format!("{wanted} for {} millicores", cpu.value))
            .with_related(cpu.span, "CPU here")
            .with_help(format!(
                "write `replicaMemoryGb: {wanted}`, or the CPU that {} GB goes with",
                memory.value
            )),
        );
    }
}

/// The kinds that take a setting (none for a key that is no setting).
fn kinds_of(key: &str) -> &'static [PipeKind] {
    setting_kinds(key).unwrap_or_default()
}

/// `kafka and kinesis`, `objectStorage`: kinds as a message lists them.
fn kinds_text(kinds: &[PipeKind]) -> String {
    match kinds {
        [] => String::new(),
        [one] => one.as_str().to_string(),
        [rest @ .., last] => format!(
            "{} and {}",
            rest.iter()
                .map(|k| k.as_str())
                .collect::<Vec<_>>()
                .join(", "),
            last.as_str()
        ),
    }
}

/// The wire's kind of a config kind.
pub(crate) fn wire_kind(kind: PipeKind) -> SourceKind {
    match kind {
        PipeKind::Kafka => SourceKind::Kafka,
        PipeKind::ObjectStorage => SourceKind::ObjectStorage,
        PipeKind::Kinesis => SourceKind::Kinesis,
        PipeKind::Postgres => SourceKind::Postgres,
        PipeKind::Mysql => SourceKind::Mysql,
        PipeKind::Mongodb => SourceKind::Mongodb,
        PipeKind::Bigquery => SourceKind::Bigquery,
        PipeKind::Pubsub => SourceKind::Pubsub,
    }
}

fn entry<'n>(node: &'n Node, key: &str) -> Option<(&'n Key, &'n Node)> {
    node.as_map()?
        .iter()
        .find(|(k, _)| k.name == key)
        .map(|(k, v)| (k, v))
}

fn seq(node: Option<&Node>) -> &[Node] {
    match node.map(|n| &n.kind) {
        Some(super::yaml::Kind::Seq(items)) => items,
        _ => &[],
    }
}

#[cfg(test)]
mod tests {
    use std::path::PathBuf;

    use serde_json::json;

    use super::super::model::PipeState;
    use super::super::{LoadMode, load_texts};
    use super::*;

    #[test]
    fn a_whole_pipe_builds_with_its_credentials_out_of_the_body() {
        let files = vec![(
            PathBuf::from("examples/pipes.yaml"),
            include_str!("../../examples/pipes.yaml").to_string(),
        )];
        let env = |name: &str| Some(format!("value-of-{name}"));
        let loaded = load_texts(&files, LoadMode::Live, &env);
        assert!(loaded.diagnostics.is_empty(), "{:?}", loaded.diagnostics);
        let config = loaded.config.unwrap();
        let pipes = &config.services["analytics"].pipes;

        let events = &pipes["events"];
        assert_eq!(events.id, None);
        assert_eq!(events.name.as_ref().unwrap().value, "events from kafka");
        assert_eq!(events.state.as_ref().unwrap().value, PipeState::Running);
        assert_eq!(events.credentials_version.as_ref().unwrap().value, 1);
        let source = events.source.as_ref().unwrap();
        assert_eq!(source.kind.value, PipeKind::Kafka);
        assert_eq!((source.kind.span.line, source.kind.span.column), (18, 11));
        assert_eq!(source.body["brokers"], json!("broker-1.example.com:9092"));
        assert_eq!(source.body.get("credentials"), None);
        let credentials: Vec<(&str, &str, Option<&str>)> = source
            .credentials
            .iter()
            .map(|c| {
                (
                    c.path,
                    c.secret.reference.as_str(),
                    c.secret.value.as_deref(),
                )
            })
            .collect();
        assert_eq!(
            credentials,
            [
                (
                    "credentials.username",
                    "${env:PIPE_EVENTS_USERNAME}",
                    Some("value-of-PIPE_EVENTS_USERNAME")
                ),
                (
                    "credentials.password",
                    "${env:PIPE_EVENTS_PASSWORD}",
                    Some("value-of-PIPE_EVENTS_PASSWORD")
                ),
            ]
        );
        assert!(!format!("{events:?}").contains("value-of-"));
        assert_eq!(
            events.field_mappings.as_ref().unwrap().value,
            json!([
                {"sourceField": "timestamp", "destinationField": "at"},
                {"sourceField": "msg", "destinationField": "message"},
            ])
        );

        let files_pipe = pipes["files"].source.as_ref().unwrap();
        assert_eq!(files_pipe.kind.value, PipeKind::ObjectStorage);
        // `accessKey` held only credentials: it leaves no empty mapping behind.
        assert_eq!(files_pipe.body.get("accessKey"), None);
        assert_eq!(files_pipe.credentials.len(), 2);
        assert_eq!(
            pipes["stream"].state.as_ref().unwrap().value,
            PipeState::Stopped
        );
        let replica = pipes["replica"].source.as_ref().unwrap();
        assert_eq!(replica.kind.value, PipeKind::Postgres);
        assert_eq!(replica.body["settings"]["replicationMode"], json!("cdc"));

        let legacy = &pipes["legacy"];
        assert_eq!(
            legacy.id.as_ref().unwrap().value,
            "0f9d3b1e-6a52-4c0b-8f7e-2d5a9c1b4e77"
        );
        assert!(legacy.source.is_none() && legacy.name.is_none());
        assert!(legacy.is("0f9d3b1e-6a52-4c0b-8f7e-2d5a9c1b4e77", "anything"));
        assert!(events.is("another-id", "events from kafka"));
        assert!(!events.is("another-id", "events"));
    }

    #[test]
    fn settings_go_to_the_kinds_their_prefix_names() {
        assert_eq!(
            setting_kinds("streaming_max_insert_wait_ms"),
            Some(&[PipeKind::Kafka, PipeKind::Kinesis, PipeKind::Pubsub][..])
        );
        assert_eq!(
            setting_kinds("object_storage_concurrency"),
            Some(&[PipeKind::ObjectStorage][..])
        );
        assert_eq!(setting_kinds("db_max_threads"), Some(&PipeKind::ALL[..]));
        assert_eq!(setting_kinds("replicas"), None);
    }
}
