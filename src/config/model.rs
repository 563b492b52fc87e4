//! The typed desired state: what a config says after loading, merging, interpolation and checks.
//!
//! Values that plan-time rules point at carry a [`Span`] so a live-fact error (a scaling field
//! that does not apply to a pipe's source kind, a service that does not exist) names the file,
//! line and column it came from. Map order is the config's order.
//!
//! A large config holds tens of thousands of tiles, series and alerts beside the live state for
//! the whole plan, so an optional field most configs leave out is boxed
//! (`Option<Box<Located<_>>>`): absent, it costs a pointer rather than a value and its span.
//! Their keys, names and fields are `SmolStr`: most are short (`count`, `tile-3`, `a0001`) and
//! held inline, not each in an allocation of its own.

use std::fmt;

use indexmap::IndexMap;
use smol_str::SmolStr;

use crate::diagnostic::Span;

pub use super::located::{InstanceOrigin, Located, SourceFile, Sources};

/// A secret field (`keySecret`, `token`): always written as an `${env:NAME}` reference.
/// `Debug` never prints the resolved value.
#[derive(Clone, PartialEq)]
pub struct SecretValue {
    /// The reference exactly as written, e.g. `${env:CONVERGE_KEY_SECRET}`; safe to print and save.
    pub reference: String,
    /// The resolved value; `None` when the variable is unset (allowed under `validate`).
    pub value: Option<String>,
    /// Where the reference was written.
    pub span: Span,
}

impl fmt::Debug for SecretValue {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("SecretValue")
            .field("reference", &self.reference)
            .field("value", &self.value.as_ref().map(|_| "***"))
            .finish()
    }
}

/// The whole desired state.
#[derive(Debug, Clone)]
pub struct Config {
    /// Config format version (1).
    pub version: u32,
    /// Organization UUID.
    pub organization: Located<String>,
    /// Cloud management API settings.
    pub cloud: Option<CloudSettings>,
    /// Standalone observability API settings.
    pub observability: Option<ObservabilitySettings>,
    /// Services by local key.
    pub services: IndexMap<String, ServiceConfig>,
    /// Observability stacks by local key.
    pub stacks: IndexMap<String, StackConfig>,
    /// Drift patterns a team has accepted (`ignore:`), globs over addresses or field paths.
    pub ignore: Vec<Located<String>>,
    /// How `converge drift` judges what it finds (`drift:`).
    pub drift: DriftSettings,
    /// `policy:` the rule files (directories, files, `builtin:NAME`) `plan` and `apply`
    /// evaluate, as written (a path relative to the file it is written in).
    pub policy: Vec<Located<String>>,
}

/// `drift:`.
#[derive(Debug, Clone, Default)]
pub struct DriftSettings {
    /// `failOnUnmanaged`: unmanaged objects make `converge drift` exit 2, as differences do.
    pub fail_on_unmanaged: Option<Located<bool>>,
}

/// `cloud:`.
#[derive(Debug, Clone, Default)]
pub struct CloudSettings {
    /// Base URL of the management API.
    pub url: Option<Located<String>>,
    /// Key id (user part of Basic auth).
    pub key_id: Option<Located<String>>,
    /// Key secret (password part), from the environment.
    pub key_secret: Option<SecretValue>,
}

/// `observability:`.
#[derive(Debug, Clone, Default)]
pub struct ObservabilitySettings {
    /// Base URL of the observability API.
    pub url: Option<Located<String>>,
    /// Bearer token, from the environment.
    pub token: Option<SecretValue>,
}

/// `services.<key>`; address `service.<key>`.
#[derive(Debug, Clone)]
pub struct ServiceConfig {
    /// The local key, where it was written.
    pub key: Located<String>,
    /// Service UUID.
    pub id: Located<String>,
    /// Managed scaling fields; `None` when `scaling:` is absent.
    pub scaling: Option<ServiceScaling>,
    /// Private endpoints; `None` when `privateEndpoints:` is absent (not managed at all).
    pub private_endpoints: Option<Vec<PrivateEndpointConfig>>,
    /// Pipes by local key.
    pub pipes: IndexMap<String, PipeConfig>,
    /// Reverse private endpoints of the service's pipes by local key
    /// (`reversePrivateEndpoints:`); empty when none is declared.
    pub reverse_endpoints: IndexMap<String, ReverseEndpointConfig>,
    /// Backup checks.
    pub backups: Option<BackupChecks>,
    /// The shared compute of the service's database pipes; `None` when not managed.
    pub pipe_compute: Option<PipeComputeConfig>,
    /// The service's own settings (`PATCH /services/{id}`); each `None` when not managed.
    pub settings: ServiceSettings,
}

/// The members of `services.<key>` sent through `PATCH /services/{id}` and `.../state`: only
/// those written are managed.
#[derive(Debug, Clone, Default)]
pub struct ServiceSettings {
    /// `name:` the service's name (1 to 50 characters).
    pub name: Option<Located<String>>,
    /// `ipAccessList:`, where it was written, with its entries in config order.
    pub ip_access_list: Option<Located<Vec<IpAccessConfig>>>,
    /// `tags:` in config order, where it was written.
    pub tags: Option<Located<Vec<TagConfig>>>,
    /// `releaseChannel:` `slow`, `default` or `fast`.
    pub release_channel: Option<Located<String>>,
    /// `endpoints: { mysql: ... }`: whether the MySQL endpoint is on.
    pub mysql_endpoint: Option<Located<bool>>,
    /// `state:` `running` or `stopped`.
    pub state: Option<Located<String>>,
}

impl ServiceSettings {
    /// Whether any member is written.
    pub fn any(&self) -> bool {
        self.name.is_some()
            || self.ip_access_list.is_some()
            || self.tags.is_some()
            || self.release_channel.is_some()
            || self.mysql_endpoint.is_some()
            || self.state.is_some()
    }
}

/// One entry of a service's `tags:`.
#[derive(Debug, Clone)]
pub struct TagConfig {
    /// The tag's key, where it was written.
    pub key: Located<String>,
    /// Its value (`""` for a tag without one), where it was written.
    pub value: Located<String>,
}

/// One entry of `ipAccessList`.
#[derive(Debug, Clone)]
pub struct IpAccessConfig {
    /// IP address or CIDR, where it was written.
    pub source: Located<String>,
    /// Free text; `""` when not written.
    pub description: String,
}

/// `services.<key>.pipeCompute` (`PATCH .../pipesCdcScaling`): CPU and memory shared by every
/// database pipe of the service.
#[derive(Debug, Clone, Default)]
pub struct PipeComputeConfig {
    /// Where `pipeCompute:` was written.
    pub span: Span,
    /// 1000 to 32000, a multiple of 1000.
    pub replica_cpu_millicores: Option<Located<i64>>,
    /// 4 to 128, 4 GB for each CPU core.
    pub replica_memory_gb: Option<Located<f64>>,
}

/// `services.<key>.scaling`: only fields written here are managed.
#[derive(Debug, Clone, Default)]
pub struct ServiceScaling {
    /// Where `scaling:` was written.
    pub span: Span,
    /// 1 to 20.
    pub num_replicas: Option<Located<f64>>,
    /// Scale to zero when idle.
    pub idle_scaling: Option<Located<bool>>,
    /// At least 5.
    pub idle_timeout_minutes: Option<Located<f64>>,
    /// Deprecated.
    pub min_total_memory_gb: Option<Located<f64>>,
    /// Deprecated.
    pub max_total_memory_gb: Option<Located<f64>>,
    /// `vertical` or `horizontal`; absent keeps the service's mode.
    pub autoscaling_mode: Option<Located<String>>,
    /// Horizontal band minimum (with `max_replicas`, never `num_replicas`).
    pub min_replicas: Option<Located<f64>>,
    /// Horizontal band maximum.
    pub max_replicas: Option<Located<f64>>,
    /// Per-replica memory minimum, 8 to 356, a multiple of 4.
    pub min_replica_memory_gb: Option<Located<f64>>,
    /// Per-replica memory maximum (at most 120 for non-paid services).
    pub max_replica_memory_gb: Option<Located<f64>>,
}

impl ServiceScaling {
    /// Whether it writes a deprecated total (`minTotalMemoryGb`, `maxTotalMemoryGb`): such a
    /// scaling goes through the deprecated `scaling` route, every other through
    /// `replicaScaling`.
    pub fn writes_totals(&self) -> bool {
        self.min_total_memory_gb.is_some() || self.max_total_memory_gb.is_some()
    }
}

/// One entry of `privateEndpoints`.
#[derive(Debug, Clone)]
pub struct PrivateEndpointConfig {
    /// Endpoint id (e.g. `vpce-...`).
    pub id: Located<String>,
    /// Description sent when registering.
    pub description: Option<Located<String>>,
}

/// `reversePrivateEndpoints.<key>`; address `service.<service>.reverse_endpoint.<key>`.
/// Identity: its description within the service (the key when none is written).
#[derive(Debug, Clone)]
pub struct ReverseEndpointConfig {
    /// The local key, where it was written.
    pub key: Located<String>,
    /// `absent: true`: the endpoint must not exist (deleted with `--allow-destroy`).
    pub absent: bool,
    /// What it is created with (`description` the key when none is written).
    pub spec: crate::api::wire::ReverseEndpointSpec,
    /// Where each member was written (`type`, `customPrivateDnsMappings`, ...), for a
    /// diagnostic at its line.
    pub spans: Vec<(SmolStr, Span)>,
}

impl ReverseEndpointConfig {
    /// Where member `name` was written; the key when it was not.
    pub fn span_of(&self, name: &str) -> Span {
        self.spans
            .iter()
            .find(|(n, _)| n == name)
            .map_or(self.key.span, |(_, span)| *span)
    }
}

/// `pipes.<key>`; address `pipe.<service>.<key>`. Either scaling only (`id` with `scaling`),
/// or declared whole (`name`, `source`, `destination`, ...). Identity: `id` when written (it
/// adopts an existing pipe), else `name` within the service.
#[derive(Debug, Clone)]
pub struct PipeConfig {
    /// The local key.
    pub key: Located<String>,
    /// Pipe UUID, when the config adopts an existing pipe.
    pub id: Option<Located<String>>,
    /// Name, unique within the service.
    pub name: Option<Located<String>>,
    /// `renamedFrom:` names the pipe had before; a live pipe with one of them is this pipe,
    /// renamed in place.
    pub renamed_from: Vec<Located<SmolStr>>,
    /// `absent: true`: the pipe must not exist (deleted with `--allow-destroy`).
    pub absent: bool,
    /// Managed scaling fields.
    pub scaling: Option<PipeScalingConfig>,
    /// `state:` the pipe is kept in; `None` leaves it as it is.
    pub state: Option<Located<PipeState>>,
    /// `credentialsVersion:`: raising it sends the credentials again.
    pub credentials_version: Option<Located<i64>>,
    /// `source:`, when the pipe is declared whole.
    pub source: Option<PipeSourceConfig>,
    /// `destination:` as written (the schema checked its shape).
    pub destination: Option<Located<serde_json::Value>>,
    /// `fieldMappings:` as written.
    pub field_mappings: Option<Located<serde_json::Value>>,
    /// `settings:` as written.
    pub settings: Option<Located<serde_json::Value>>,
}

impl PipeConfig {
    /// A pipe adopted by `id` with nothing else written: the scaling-only shape.
    pub fn by_id(key: Located<String>, id: Located<String>) -> Self {
        PipeConfig {
            key,
            id: Some(id),
            name: None,
            renamed_from: Vec::new(),
            absent: false,
            scaling: None,
            state: None,
            credentials_version: None,
            source: None,
            destination: None,
            field_mappings: None,
            settings: None,
        }
    }

    /// Whether a live pipe (its id and name) is this one: by `id` when written, else by name.
    pub fn is(&self, live_id: &str, live_name: &str) -> bool {
        match (&self.id, &self.name) {
            (Some(id), _) => id.value == live_id,
            (None, Some(name)) => name.value == live_name,
            (None, None) => false,
        }
    }

    /// How messages name the pipe's identity: its id, or `named <name>`.
    pub fn identity(&self) -> String {
        match (&self.id, &self.name) {
            (Some(id), _) => id.value.clone(),
            (None, Some(name)) => format!("named `{}`", name.value),
            (None, None) => String::new(),
        }
    }

    /// Where the identity was written (the pipe's key when neither was).
    pub fn identity_span(&self) -> Span {
        self.id
            .as_ref()
            .or(self.name.as_ref())
            .map_or(self.key.span, |l| l.span)
    }
}

/// `state:` of a pipe.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PipeState {
    /// Ingesting (started when stopped).
    Running,
    /// Stopped, and stopped again after an edit the server resumes.
    Stopped,
}

/// The source kinds a config can declare.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PipeKind {
    /// `kafka`.
    Kafka,
    /// `objectStorage`.
    ObjectStorage,
    /// `kinesis`.
    Kinesis,
    /// `postgres`.
    Postgres,
    /// `mysql`.
    Mysql,
    /// `mongodb`.
    Mongodb,
    /// `bigquery`.
    Bigquery,
    /// `pubsub` (GCP Pub/Sub).
    Pubsub,
}

impl PipeKind {
    /// Every kind, in the order the config format lists them.
    pub const ALL: [PipeKind; 8] = [
        PipeKind::Kafka,
        PipeKind::ObjectStorage,
        PipeKind::Kinesis,
        PipeKind::Postgres,
        PipeKind::Mysql,
        PipeKind::Mongodb,
        PipeKind::Bigquery,
        PipeKind::Pubsub,
    ];

    /// The key the kind is written under (`objectStorage`), as in the API.
    pub fn as_str(self) -> &'static str {
        match self {
            PipeKind::Kafka => "kafka",
            PipeKind::ObjectStorage => "objectStorage",
            PipeKind::Kinesis => "kinesis",
            PipeKind::Postgres => "postgres",
            PipeKind::Mysql => "mysql",
            PipeKind::Mongodb => "mongodb",
            PipeKind::Bigquery => "bigquery",
            PipeKind::Pubsub => "pubsub",
        }
    }

    /// Whether the kind is a database (CDC) pipe: tables from `tableMappings`, no per-pipe
    /// scaling, the service's `pipeCompute`.
    pub fn is_database(self) -> bool {
        matches!(
            self,
            PipeKind::Postgres | PipeKind::Mysql | PipeKind::Mongodb | PipeKind::Bigquery
        )
    }

    /// The kind written under `key`.
    pub fn from_key(key: &str) -> Option<PipeKind> {
        PipeKind::ALL.into_iter().find(|kind| kind.as_str() == key)
    }
}

/// `pipes.<key>.source`.
#[derive(Debug, Clone)]
pub struct PipeSourceConfig {
    /// Where `source:` was written.
    pub span: Span,
    /// The one kind written, where its key was written.
    pub kind: Located<PipeKind>,
    /// The kind's fields as written, credentials left out.
    pub body: serde_json::Value,
    /// `validateSamples:`.
    pub validate_samples: Option<bool>,
    /// The credential fields, resolved from the environment.
    pub credentials: Vec<PipeCredential>,
}

/// One write-only credential field of a pipe source.
#[derive(Debug, Clone, PartialEq)]
pub struct PipeCredential {
    /// Its path under the kind, dot-separated (`credentials.password`).
    pub path: &'static str,
    /// The reference and its value.
    pub secret: SecretValue,
}

/// `pipes.<key>.scaling`.
#[derive(Debug, Clone, Default)]
pub struct PipeScalingConfig {
    /// Where `scaling:` was written.
    pub span: Span,
    /// Kafka pipes, 1 to 10.
    pub replicas: Option<Located<i64>>,
    /// Object-storage pipes, 0 to 34.
    pub concurrency: Option<Located<i64>>,
    /// Streaming pipes, 125 to 2000.
    pub replica_cpu_millicores: Option<Located<i64>>,
    /// Streaming pipes, 0.5 to 8.
    pub replica_memory_gb: Option<Located<f64>>,
}

/// `backups:`; address `check.<service>.backups`.
#[derive(Debug, Clone, Default)]
pub struct BackupChecks {
    /// Where `backups:` was written.
    pub span: Span,
    /// The newest `done` backup must be at most this many hours old.
    pub max_age_hours: Option<Located<f64>>,
    /// Backup ids that must exist with status `done`.
    pub keep: Vec<Located<String>>,
}

/// Which API a stack lives behind.
#[derive(Debug, Clone, PartialEq)]
pub enum StackTarget {
    /// The managed stack through the cloud API (`.../services/{id}/stack/...`); names a service key.
    Managed {
        /// The service key.
        service: Located<String>,
    },
    /// The standalone observability API (`api: observability`).
    Observability,
}

/// The tile format a stack speaks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Generation {
    /// Known from what the stack's GETs answer (`generation: auto`).
    Auto,
    /// The contract's: tiles carry `series`.
    Series,
    /// Today's servers: tiles carry `config`.
    Config,
}

/// `stacks.<key>`; address `stack.<key>`.
#[derive(Debug, Clone)]
pub struct StackConfig {
    /// The local key.
    pub key: Located<String>,
    /// Where the stack lives.
    pub target: StackTarget,
    /// Delete owned dashboards and alerts that the config does not list.
    pub prune: bool,
    /// `generation:` the tile format written to the stack; absent is `auto`.
    pub generation: Option<Located<Generation>>,
    /// Dashboards by local key.
    pub dashboards: IndexMap<SmolStr, DashboardConfig>,
    /// Alerts by local key.
    pub alerts: IndexMap<SmolStr, AlertConfig>,
    /// How the live names of this stack's template instances read back as their keys.
    pub instance_names: Vec<InstanceNames>,
    /// For an instance of a whole-stack template (`env[prod]`): the parameter its key is made
    /// from (or one whose value differs between every two instances), which a name must hold
    /// to tell the instances' objects apart.
    pub key_parameter: Option<SmolStr>,
    /// Read the stack's webhooks list even when no alert names a webhook by name (an export
    /// writes the names of the webhooks its alerts notify).
    pub read_webhooks: bool,
    /// `webhooks:` by local key (the observability API writes them; the managed stack's
    /// document only lists them).
    pub webhooks: IndexMap<SmolStr, WebhookConfig>,
    /// `sources:` by local key (the observability API writes them; the managed stack's
    /// document only lists them).
    pub sources: IndexMap<SmolStr, SourceConfig>,
    /// `savedSearches:` by local key (the observability API only).
    pub saved_searches: IndexMap<SmolStr, SavedSearchConfig>,
}

/// A data source of a stack (`sources.<key>`), at `source.<stack>.<key>`: its members as the
/// observability API names them, checked by kind by the schema.
#[derive(Debug, Clone, PartialEq)]
pub struct SourceConfig {
    /// The local key.
    pub key: Located<SmolStr>,
    /// Name (two sources may share one; configs refer to a source by its key or name).
    pub name: Located<SmolStr>,
    /// `renamedFrom:` names the source had before (its id kept).
    pub renamed_from: Vec<Located<SmolStr>>,
    /// `log`, `trace`, `metric`, `session` or `promql`.
    pub kind: Option<Located<SmolStr>>,
    /// The ClickHouse connection, by id or name.
    pub connection: Option<Located<SmolStr>>,
    /// Every other member, as written (`logSource`, `traceSource`, `metricSource` and
    /// `sessionSource` name another source by key or name, sent as its `...SourceId`).
    pub members: Vec<(SmolStr, Located<serde_json::Value>)>,
    /// `absent: true`: delete it (with `--allow-destroy`).
    pub absent: bool,
}

/// A saved search of a stack (`savedSearches.<key>`), at `saved_search.<stack>.<key>`. Each
/// member left out is the server's default, so the plan compares what the server stores.
#[derive(Debug, Clone, PartialEq)]
pub struct SavedSearchConfig {
    /// The local key.
    pub key: Located<SmolStr>,
    /// Display name.
    pub name: Located<SmolStr>,
    /// `renamedFrom:` names it had before (its id kept).
    pub renamed_from: Vec<Located<SmolStr>>,
    /// The source it queries, by name or id.
    pub source: Option<SourceRef>,
    /// `select`.
    pub select: Option<Located<SmolStr>>,
    /// `where`.
    pub where_: Option<Located<SmolStr>>,
    /// `whereLanguage`.
    pub where_language: Option<Located<SmolStr>>,
    /// `orderBy`.
    pub order_by: Option<Located<SmolStr>>,
    /// `tags`.
    pub tags: Vec<Located<SmolStr>>,
    /// `filters`: each a SQL predicate.
    pub filters: Vec<Located<SmolStr>>,
    /// `absent: true`: delete it (with `--allow-destroy`).
    pub absent: bool,
    /// Where the entry was written.
    pub span: Span,
}

/// A webhook of a stack (`webhooks.<key>`), at `webhook.<stack>.<key>`. Its destination,
/// body and write-only entries may hold secrets: each is a [`SecretValue`].
#[derive(Debug, Clone, PartialEq)]
pub struct WebhookConfig {
    /// The local key.
    pub key: Located<SmolStr>,
    /// Name, unique per service within the team.
    pub name: Located<SmolStr>,
    /// `renamedFrom:` names the webhook had before (its id kept).
    pub renamed_from: Vec<Located<SmolStr>>,
    /// `slack`, `incidentio` or `generic`.
    pub service: Located<SmolStr>,
    /// The destination.
    pub url: Option<SecretValue>,
    /// Shown in the UI.
    pub description: Option<Located<SmolStr>>,
    /// The request body template (`generic`, `incidentio`).
    pub body: Option<SecretValue>,
    /// Write-only headers, sent on create, with a new destination, and on a raised
    /// `credentialsVersion`.
    pub headers: Option<Vec<(SmolStr, SecretValue)>>,
    /// Write-only query parameters, sent as `headers` are.
    pub query_params: Option<Vec<(SmolStr, SecretValue)>>,
    /// `credentialsVersion:`: raising it sends `headers` and `queryParams` again.
    pub credentials_version: Option<Located<i64>>,
    /// `absent: true`: delete it (with `--allow-destroy`).
    pub absent: bool,
    /// Where the entry was written.
    pub span: Span,
}

impl StackConfig {
    /// Whether the stack's saved searches are read: it declares one (a config of none, or a
    /// server of the contract generation, which has no such list, reads none).
    pub fn needs_saved_searches(&self) -> bool {
        !self.saved_searches.is_empty()
    }

    /// Whether the stack's webhooks list is read: an alert names a webhook by name, or an
    /// export asks for it.
    pub fn needs_webhooks(&self) -> bool {
        self.read_webhooks || self.names_webhooks() || !self.webhooks.is_empty()
    }

    /// Whether an alert of the stack names a webhook by name.
    pub fn names_webhooks(&self) -> bool {
        self.alerts
            .values()
            .flat_map(AlertConfig::all_channels)
            .any(|channel| channel.webhook.is_some())
    }
}

/// How the live name of an alert or dashboard template instance reads back as its key: the
/// template's `name` with each `${parameter}` a hole, and the parameters whose values make an
/// instance's key. So a removed instance's delete is shown at its address
/// (`alert.prod.api-errors[billing]`), not only under its live name.
#[derive(Debug, Clone, PartialEq)]
pub struct InstanceNames {
    /// `alert` or `dashboard`.
    pub kind: String,
    /// The entry's key (`api-errors`).
    pub entry: String,
    /// The template's `name`: literal text and parameter holes.
    pub name: Vec<NamePart>,
    /// The parameters whose values, joined with `,`, are an instance's key (`key` itself, a
    /// parameter every instance's key repeats, or a matrix's axes).
    pub key: Vec<String>,
    /// The keys of the instances the config lists.
    pub keys: Vec<String>,
}

/// A piece of a template's `name`.
#[derive(Debug, Clone, PartialEq)]
pub enum NamePart {
    /// Literal text.
    Text(String),
    /// `${parameter}`.
    Param(String),
}

impl InstanceNames {
    /// The key of the removed instance whose live name is `name`: `None` when the name does not
    /// read as this template's, or reads as an instance the config still lists.
    pub(crate) fn removed_key(&self, name: &str) -> Option<String> {
        let mut found = Vec::new();
        if !holes(&self.name, name, &mut found) {
            return None;
        }
        let mut parts = Vec::with_capacity(self.key.len());
        for param in &self.key {
            let (_, value) = found.iter().find(|(p, _)| p == param)?;
            let word = !value.is_empty()
                && value
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_');
            if !word {
                return None;
            }
            parts.push(*value);
        }
        let key = parts.join(",");
        (!self.keys.contains(&key)).then_some(key)
    }
}

/// Whether `text` reads as `parts`, each hole taking a non-empty run (the first reading that
/// fits, holes filled shortest first); `found` gets each hole's text.
fn holes<'t>(parts: &[NamePart], text: &'t str, found: &mut Vec<(String, &'t str)>) -> bool {
    match parts.split_first() {
        None => text.is_empty(),
        Some((NamePart::Text(literal), rest)) => text
            .strip_prefix(literal.as_str())
            .is_some_and(|after| holes(rest, after, found)),
        Some((NamePart::Param(param), rest)) => {
            for (end, _) in text.char_indices().skip(1).chain([(text.len(), ' ')]) {
                let mark = found.len();
                let value = &text[..end];
                // One parameter in two holes takes one value.
                if found.iter().any(|(p, v)| p == param && *v != value) {
                    continue;
                }
                found.push((param.clone(), value));
                if holes(rest, &text[end..], found) {
                    return true;
                }
                found.truncate(mark);
            }
            false
        }
    }
}

/// `dashboards.<key>`; address `dashboard.<stack>.<key>`. Identity: the name, or one of the
/// names in `renamedFrom`.
#[derive(Debug, Clone)]
pub struct DashboardConfig {
    /// The local key.
    pub key: Located<SmolStr>,
    /// Name, unique within the stack.
    pub name: Located<SmolStr>,
    /// `renamedFrom:` names the dashboard had before; a live dashboard with one of them is this
    /// dashboard, renamed in place (its id, tiles and alerts kept).
    pub renamed_from: Vec<Located<SmolStr>>,
    /// Tags (the ownership tag is added by the planner, not written here).
    pub tags: Vec<Located<SmolStr>>,
    /// Tiles, matched by name within the dashboard.
    pub tiles: Vec<TileConfig>,
    /// `containers:` the grouping containers tiles join by `containerId` (today's servers);
    /// `None` when the config does not say.
    pub containers: Option<Box<Located<Vec<ContainerConfig>>>>,
}

/// One grouping container of a dashboard (`containers[]`).
#[derive(Debug, Clone)]
pub struct ContainerConfig {
    /// Where the container's mapping starts.
    pub span: Span,
    /// Id, unique within the dashboard.
    pub id: Located<SmolStr>,
    /// Title shown on its header.
    pub title: Located<SmolStr>,
    /// Whether it starts collapsed (absent: `false`).
    pub collapsed: Option<Located<bool>>,
    /// Whether a viewer can collapse it (absent: the server's default, `true`).
    pub collapsible: Option<Located<bool>>,
    /// Whether it has a border (absent: the server's default, `true`).
    pub bordered: Option<Located<bool>>,
    /// Its tabs, each with an id unique within the container.
    pub tabs: Vec<ContainerTabConfig>,
}

/// One tab of a dashboard container.
#[derive(Debug, Clone)]
pub struct ContainerTabConfig {
    /// Id, unique within its container.
    pub id: Located<SmolStr>,
    /// Title shown on the tab.
    pub title: Located<SmolStr>,
}

/// One tile; address `dashboard.<stack>.<key>.tile[<name>]`.
#[derive(Debug, Clone)]
pub struct TileConfig {
    /// Where the tile's mapping starts.
    pub span: Span,
    /// Name, unique within the dashboard.
    pub name: Located<SmolStr>,
    /// `renamedFrom:` names the tile had before on this dashboard (its id and alerts kept).
    pub renamed_from: Vec<Located<SmolStr>>,
    /// Grid column, 0 to 23.
    pub x: Located<i64>,
    /// Grid row.
    pub y: Located<i64>,
    /// Width, 1 to 24.
    pub w: Located<i64>,
    /// Height.
    pub h: Located<i64>,
    /// Series 0 divided by series 1.
    pub as_ratio: Option<Box<Located<bool>>>,
    /// Series: the contract's shape, a shorthand lowered to `config` on servers of today's
    /// generation.
    pub series: Vec<SeriesConfig>,
    /// `config:` the tile in today's shape (`displayType`, `select`, ...), as written; a
    /// `source:` in it names a source and is resolved to `sourceId` at plan time.
    pub config: Option<Box<Located<serde_json::Value>>>,
    /// Where each member of `config` was written, by JSON pointer (`/select/0/aggFn`), for
    /// messages at the member's line.
    pub config_at: std::collections::BTreeMap<String, Span>,
    /// `containerId:` the dashboard container the tile is drawn in.
    pub container_id: Option<Box<Located<SmolStr>>>,
    /// `tabId:` the tab of its container the tile is on.
    pub tab_id: Option<Box<Located<SmolStr>>>,
}

impl TileConfig {
    /// Where the member of `config` at `pointer` was written, else where `config` was.
    pub fn config_span(&self, pointer: &str) -> Option<Span> {
        self.config_at
            .get(pointer)
            .copied()
            .or(self.config.as_ref().map(|c| c.span))
    }
}

/// How a series names its data source.
#[derive(Debug, Clone, PartialEq)]
pub enum SourceRef {
    /// `sourceId:` as the server knows it.
    Id(Located<SmolStr>),
    /// `source:` a source name, resolved through the stack's sources list at plan time.
    Name(Located<SmolStr>),
}

/// One series of a tile (every field of the contract's Series).
#[derive(Debug, Clone, Default)]
pub struct SeriesConfig {
    /// Where the series mapping starts.
    pub span: Span,
    /// `type`.
    pub kind: Option<Located<SmolStr>>,
    /// `dataSource`.
    pub data_source: Option<Located<SmolStr>>,
    /// `source` or `sourceId`.
    pub source: Option<SourceRef>,
    /// `aggFn`.
    pub agg_fn: Option<Located<SmolStr>>,
    /// `field`.
    pub field: Option<Located<SmolStr>>,
    /// `level` of a `quantile` aggregation.
    pub level: Option<Box<Located<f64>>>,
    /// `content` of a `markdown` series.
    pub content: Option<Box<Located<SmolStr>>>,
    /// `fields` of a `search` series.
    pub fields: Option<Vec<Located<SmolStr>>>,
    /// `where`.
    pub where_: Option<Located<SmolStr>>,
    /// `whereLanguage`.
    pub where_language: Option<Located<SmolStr>>,
    /// `groupBy`.
    pub group_by: Option<Vec<Located<SmolStr>>>,
    /// `metricName`.
    pub metric_name: Option<Box<Located<SmolStr>>>,
    /// `metricDataType`.
    pub metric_data_type: Option<Box<Located<SmolStr>>>,
}

/// `alerts.<key>`; address `alert.<stack>.<key>`. Identity: the name, or one of the names in
/// `renamedFrom`.
#[derive(Debug, Clone)]
pub struct AlertConfig {
    /// The local key.
    pub key: Located<SmolStr>,
    /// Name, unique within the stack.
    pub name: Located<SmolStr>,
    /// `renamedFrom:` names the alert had before (its id kept).
    pub renamed_from: Vec<Located<SmolStr>>,
    /// Dashboard key in the same stack.
    pub dashboard: Located<SmolStr>,
    /// Tile name on that dashboard.
    pub tile: Located<SmolStr>,
    /// Threshold.
    pub threshold: Located<f64>,
    /// `above` or `below`.
    pub threshold_type: Located<SmolStr>,
    /// `1m` ... `1d`.
    pub interval: Located<SmolStr>,
    /// `channel:`, the notification channel as written (with `channels`, their first).
    pub channel: Option<ChannelConfig>,
    /// `channels:`, 1 to 10 notification channels (today's generation).
    pub channels: Option<Box<Located<Vec<ChannelConfig>>>>,
    /// Message.
    pub message: Option<Located<SmolStr>>,
    /// `tile` (default) or `search`.
    pub source: Option<Box<Located<SmolStr>>>,
    /// `thresholdMax`: the upper bound of `between` and `not_between`.
    pub threshold_max: Option<Box<Located<f64>>>,
    /// `numConsecutiveWindows`.
    pub num_consecutive_windows: Option<Box<Located<i64>>>,
    /// `scheduleOffsetMinutes`, less than the interval.
    pub schedule_offset_minutes: Option<Box<Located<i64>>>,
    /// `scheduleStartAt`, a date-time.
    pub schedule_start_at: Option<Box<Located<SmolStr>>>,
    /// `note`.
    pub note: Option<Box<Located<SmolStr>>>,
    /// The members written `null` (`scheduleStartAt`, `note`, `numConsecutiveWindows`,
    /// `message`): cleared on the server.
    pub cleared: ClearedMembers,
}

/// A set of [`crate::api::wire::Cleared::MEMBERS`], one bit each, and `message` (the typed
/// config stays small: a large config has many alerts).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ClearedMembers(u8);

impl ClearedMembers {
    /// `message: null`. Not a wire `null`: an update clears a message by leaving it out (a PUT
    /// replaces the alert, and every server empties a message it is not sent).
    const MESSAGE: u8 = 1 << 7;

    /// The set of the members `named` by wire name, `message` included (others ignored).
    pub fn of<'a>(named: impl IntoIterator<Item = &'a str>) -> ClearedMembers {
        let members = crate::api::wire::Cleared::MEMBERS;
        let mut bits = 0u8;
        for name in named {
            if let Some(at) = members.iter().position(|m| *m == name) {
                bits |= 1 << at;
            } else if name == "message" {
                bits |= Self::MESSAGE;
            }
        }
        ClearedMembers(bits)
    }

    /// Whether the config writes `message: null`.
    pub fn clears_message(self) -> bool {
        self.0 & Self::MESSAGE != 0
    }

    /// The members in the set, by wire name, in [`crate::api::wire::Cleared::MEMBERS`] order.
    pub fn names(self) -> Vec<&'static str> {
        crate::api::wire::Cleared::MEMBERS
            .into_iter()
            .enumerate()
            .filter(|(at, _)| self.0 & (1 << at) != 0)
            .map(|(_, m)| m)
            .collect()
    }
}

impl AlertConfig {
    /// The channels the alert notifies, in order: `channels`, else the one `channel`.
    pub fn all_channels(&self) -> &[ChannelConfig] {
        match (&self.channels, &self.channel) {
            (Some(list), _) => &list.value,
            (None, Some(one)) => std::slice::from_ref(one),
            (None, None) => &[],
        }
    }
}

/// An alert's channel.
#[derive(Debug, Clone)]
pub struct ChannelConfig {
    /// Where `channel:` was written.
    pub span: Span,
    /// `webhook`, or `email` on a managed stack.
    pub kind: Located<SmolStr>,
    /// Webhook id.
    pub webhook_id: Option<Located<SmolStr>>,
    /// `webhook:` a webhook name, resolved through the stack's webhooks list at plan time.
    pub webhook: Option<Box<Located<SmolStr>>>,
    /// `emailRecipients` of an `email` channel (the managed stack only).
    pub email_recipients: Option<Vec<Located<SmolStr>>>,
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A large config holds tens of thousands of these side by side with the live state, so
    /// each byte inline is tens of kilobytes at the 25 MB scale. Bounds rather than equalities:
    /// a smaller `Span` only lowers them.
    #[test]
    fn typed_objects_stay_small() {
        // With 32-byte spans they were 240, 536, 696, 968 and 168 bytes before the optional
        // fields most configs leave out were boxed, and 192, 352, 512, 680 and 168 after.
        assert!(size_of::<DashboardConfig>() <= 176);
        assert!(size_of::<TileConfig>() <= 304);
        assert!(size_of::<SeriesConfig>() <= 448);
        // 592 before the members a config clears with `null` (one byte, aligned to eight).
        // 600 before a channel's `webhook:` name (one boxed pointer in its `channel`).
        assert!(size_of::<AlertConfig>() <= 608);
        // 144 before `webhook:` (a name, boxed: most channels give the id).
        assert!(size_of::<ChannelConfig>() <= 152);
    }
}
