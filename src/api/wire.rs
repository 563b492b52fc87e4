//! Wire types of both APIs, shared by the client and the sandbox.
//!
//! Reading is tolerant, as the real services demand: unknown fields are ignored, missing fields
//! are `None` or empty, and numbers that arrive as strings (`"12"`, `"500m"`, `"2Gi"`) are
//! accepted. Writing skips absent fields. Shapes follow `api-contract.md`; where it says "not
//! shown", `api-facts.md` and the reference OpenAPI documents.

use std::fmt;

use serde::{Deserialize, Serialize, Serializer};
use serde_json::Value;

/// A string that is never shown: `Debug` and `Display` print `***`. It serializes to its real
/// value because the sandbox must answer with it; the client never serializes one into output.
#[derive(Clone, Default, PartialEq, Eq, Deserialize)]
#[serde(transparent)]
pub struct Secret(pub String);

impl Serialize for Secret {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(&self.0)
    }
}

impl fmt::Debug for Secret {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("***")
    }
}

impl fmt::Display for Secret {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("***")
    }
}

// ---------------------------------------------------------------------------------------------
// Services

/// One endpoint of a service.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ServiceEndpoint {
    /// Protocol, e.g. `https`, `nativesecure`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub protocol: Option<String>,
    /// Host name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub host: Option<String>,
    /// Port.
    #[serde(
        default,
        deserialize_with = "lenient::opt_i64",
        skip_serializing_if = "Option::is_none"
    )]
    pub port: Option<i64>,
    /// User name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub username: Option<String>,
}

/// One entry of a service's IP access list.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct IpAccessEntry {
    /// CIDR or address.
    #[serde(default, deserialize_with = "lenient::or_default")]
    pub source: String,
    /// Free text.
    #[serde(default, deserialize_with = "lenient::or_default")]
    pub description: String,
}

/// A service (`GET /services`, `GET /services/{id}`, `result` of the scaling update).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Service {
    /// UUID.
    #[serde(default, deserialize_with = "lenient::or_default")]
    pub id: String,
    /// Name.
    #[serde(default, deserialize_with = "lenient::or_default")]
    pub name: String,
    /// Cloud provider (`aws`, `gcp`, `azure`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub provider: Option<String>,
    /// Region.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub region: Option<String>,
    /// Lifecycle state (`running`, `idle`, ...).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub state: Option<String>,
    /// Database version.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub db_version: Option<String>,
    /// Service tier (`development`, `production`, ...), where the server sends it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tier: Option<String>,
    /// Endpoints.
    #[serde(
        default,
        deserialize_with = "lenient::or_default",
        skip_serializing_if = "Vec::is_empty"
    )]
    pub endpoints: Vec<ServiceEndpoint>,
    /// Deprecated total memory minimum.
    #[serde(
        default,
        deserialize_with = "lenient::opt_f64",
        serialize_with = "number::opt",
        skip_serializing_if = "Option::is_none"
    )]
    pub min_total_memory_gb: Option<f64>,
    /// Deprecated total memory maximum.
    #[serde(
        default,
        deserialize_with = "lenient::opt_f64",
        serialize_with = "number::opt",
        skip_serializing_if = "Option::is_none"
    )]
    pub max_total_memory_gb: Option<f64>,
    /// Per-replica memory minimum.
    #[serde(
        default,
        deserialize_with = "lenient::opt_f64",
        serialize_with = "number::opt",
        skip_serializing_if = "Option::is_none"
    )]
    pub min_replica_memory_gb: Option<f64>,
    /// Per-replica memory maximum.
    #[serde(
        default,
        deserialize_with = "lenient::opt_f64",
        serialize_with = "number::opt",
        skip_serializing_if = "Option::is_none"
    )]
    pub max_replica_memory_gb: Option<f64>,
    /// Replica count.
    #[serde(
        default,
        deserialize_with = "lenient::opt_f64",
        serialize_with = "number::opt",
        skip_serializing_if = "Option::is_none"
    )]
    pub num_replicas: Option<f64>,
    /// Whether the service may scale to zero when idle.
    #[serde(
        default,
        deserialize_with = "lenient::opt_bool",
        skip_serializing_if = "Option::is_none"
    )]
    pub idle_scaling: Option<bool>,
    /// Minimum idle timeout in minutes.
    #[serde(
        default,
        deserialize_with = "lenient::opt_f64",
        serialize_with = "number::opt",
        skip_serializing_if = "Option::is_none"
    )]
    pub idle_timeout_minutes: Option<f64>,
    /// IP access list.
    #[serde(
        default,
        deserialize_with = "lenient::or_default",
        skip_serializing_if = "Vec::is_empty"
    )]
    pub ip_access_list: Vec<IpAccessEntry>,
    /// ISO 8601 creation time.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub created_at: Option<String>,
    /// Customer-managed key.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub encryption_key: Option<String>,
    /// Role assumed for the key.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub encryption_assumed_role_identifier: Option<String>,
    /// IAM role of the service.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub iam_role: Option<String>,
    /// Private endpoints attached to the service.
    #[serde(default, deserialize_with = "lenient::or_default")]
    pub private_endpoint_ids: Vec<String>,
    /// Private endpoints that could be attached.
    #[serde(
        default,
        deserialize_with = "lenient::or_default",
        skip_serializing_if = "Vec::is_empty"
    )]
    pub available_private_endpoint_ids: Vec<String>,
    /// Warehouse the service belongs to.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub data_warehouse_id: Option<String>,
    /// Whether the service is the first (primary) of its warehouse.
    #[serde(
        default,
        deserialize_with = "lenient::opt_bool",
        skip_serializing_if = "Option::is_none"
    )]
    pub is_primary: Option<bool>,
    /// Read-only service.
    #[serde(
        default,
        deserialize_with = "lenient::opt_bool",
        skip_serializing_if = "Option::is_none"
    )]
    pub is_readonly: Option<bool>,
    /// Bring-your-own-cloud id.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub byoc_id: Option<String>,
    /// TDE on.
    #[serde(
        default,
        deserialize_with = "lenient::opt_bool",
        skip_serializing_if = "Option::is_none"
    )]
    pub has_transparent_data_encryption: Option<bool>,
    /// TDE key id.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub transparent_data_encryption_key_id: Option<String>,
    /// Encryption role id.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub encryption_role_id: Option<String>,
    /// Configured autoscaling mode (`vertical`, `horizontal`), where the server sends it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub autoscaling_mode: Option<String>,
    /// The scaling in effect right now, which may differ from the baseline fields above; kept
    /// as read and never compared (`api-facts.md`: compare against the baseline).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub current_scaling: Option<Value>,
    /// The service's tags; converge keeps in them only what it must remember between runs
    /// without storing a secret (the credentials version last sent to each pipe).
    #[serde(
        default,
        deserialize_with = "lenient::or_default",
        skip_serializing_if = "Vec::is_empty"
    )]
    pub tags: Vec<ResourceTag>,
}

/// A service tag (`ResourceTagsV1`): key and value, each `[a-zA-Z0-9._-]`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ResourceTag {
    /// Tag key, 1 to 128 characters.
    #[serde(default, deserialize_with = "lenient::or_default")]
    pub key: String,
    /// Tag value, up to 256 characters.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub value: Option<String>,
}

/// `{add, remove}` tag lists of a service PATCH (`InstanceTagsPatch`); `remove` runs first.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct TagsPatch {
    /// Tags to add.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub add: Vec<ResourceTag>,
    /// Tags to remove.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub remove: Vec<ResourceTag>,
}

/// Body of `PATCH /services/{id}/scaling`. Only present members are sent.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ServiceScalingPatch {
    /// Deprecated.
    #[serde(
        default,
        serialize_with = "number::opt",
        skip_serializing_if = "Option::is_none"
    )]
    pub min_total_memory_gb: Option<f64>,
    /// Deprecated.
    #[serde(
        default,
        serialize_with = "number::opt",
        skip_serializing_if = "Option::is_none"
    )]
    pub max_total_memory_gb: Option<f64>,
    /// 1 to 20.
    #[serde(
        default,
        serialize_with = "number::opt",
        skip_serializing_if = "Option::is_none"
    )]
    pub num_replicas: Option<f64>,
    /// Scale to zero when idle.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub idle_scaling: Option<bool>,
    /// At least 5.
    #[serde(
        default,
        serialize_with = "number::opt",
        skip_serializing_if = "Option::is_none"
    )]
    pub idle_timeout_minutes: Option<f64>,
}

/// `{add, remove}` lists of a service PATCH; `remove` runs before `add`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct AddRemove {
    /// Elements to add.
    #[serde(
        default,
        deserialize_with = "lenient::or_default",
        skip_serializing_if = "Vec::is_empty"
    )]
    pub add: Vec<String>,
    /// Elements to remove.
    #[serde(
        default,
        deserialize_with = "lenient::or_default",
        skip_serializing_if = "Vec::is_empty"
    )]
    pub remove: Vec<String>,
}

/// Body of `PATCH /services/{id}` as converge uses it (private endpoint detach and attach).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ServicePatch {
    /// Private endpoint ids to add or remove.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub private_endpoint_ids: Option<AddRemove>,
    /// Tags to add or remove.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tags: Option<TagsPatch>,
}

/// Body of `PATCH /services/{id}/state`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub(crate) struct StatePatch {
    /// `start`, `stop` or `awake`.
    pub command: String,
}

/// A private endpoint: body and `result` of `POST /services/{id}/privateEndpoint`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PrivateEndpoint {
    /// Private endpoint identifier (e.g. `vpce-...`).
    #[serde(default, deserialize_with = "lenient::or_default")]
    pub id: String,
    /// Description.
    #[serde(default, deserialize_with = "lenient::or_default")]
    pub description: String,
    /// Cloud provider, where the server sends it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cloud_provider: Option<String>,
    /// Region, where the server sends it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub region: Option<String>,
}

// ---------------------------------------------------------------------------------------------
// Pipes

/// A pipe's scaling as read back. Values may arrive as numbers, numeric strings or quantity
/// strings (`"500m"`, `"2Gi"`), and may be null or 0 for a while after a change.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PipeScaling {
    /// Replicas (kafka).
    #[serde(
        default,
        deserialize_with = "lenient::opt_i64",
        skip_serializing_if = "Option::is_none"
    )]
    pub replicas: Option<i64>,
    /// Concurrency (object storage).
    #[serde(
        default,
        deserialize_with = "lenient::opt_i64",
        skip_serializing_if = "Option::is_none"
    )]
    pub concurrency: Option<i64>,
    /// CPU per replica in millicores (streaming).
    #[serde(
        default,
        deserialize_with = "lenient::opt_millicores",
        skip_serializing_if = "Option::is_none"
    )]
    pub replica_cpu_millicores: Option<i64>,
    /// Memory per replica in GB (streaming).
    #[serde(
        default,
        deserialize_with = "lenient::opt_gigabytes",
        serialize_with = "number::opt",
        skip_serializing_if = "Option::is_none"
    )]
    pub replica_memory_gb: Option<f64>,
}

/// Body of `PATCH /pipes/{id}/scaling`: only present members are sent.
pub(crate) type PipeScalingPatch = PipeScaling;

/// Kafka source. Certificates are secrets.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct KafkaSource {
    /// Flavour of kafka (`confluent`, `msk`, ...).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub r#type: Option<String>,
    /// Message format (`JSONEachRow`, ...).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub format: Option<String>,
    /// Authentication method (`PLAIN`, `IAM_ROLE`, ...).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub authentication: Option<String>,
    /// Exactly-once delivery.
    #[serde(
        default,
        deserialize_with = "lenient::opt_bool",
        skip_serializing_if = "Option::is_none"
    )]
    pub exactly_once: Option<bool>,
    /// Broker list.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub brokers: Option<String>,
    /// Topics.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub topics: Option<String>,
    /// Consumer group.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub consumer_group: Option<String>,
    /// IAM role.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub iam_role: Option<String>,
    /// Start offset.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub offset: Option<Value>,
    /// Schema registry: url and a CA certificate (secret).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub schema_registry: Option<SchemaRegistry>,
    /// CA certificate (secret).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ca_certificate: Option<Secret>,
    /// Reverse private endpoints.
    #[serde(
        default,
        deserialize_with = "lenient::or_default",
        skip_serializing_if = "Vec::is_empty"
    )]
    pub reverse_private_endpoint_ids: Vec<String>,
}

/// Schema registry of a kafka source.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SchemaRegistry {
    /// URL.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub url: Option<String>,
    /// Authentication method.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub authentication: Option<String>,
    /// CA certificate (secret).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ca_certificate: Option<Secret>,
}

/// Object storage source. The connection string carries credentials.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ObjectStorageSource {
    /// Storage flavour (`s3`, `gcs`, `azureblobstorage`, ...).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub r#type: Option<String>,
    /// File format (`JSONEachRow`, `CSV`, ...).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub format: Option<String>,
    /// Skip the initial load (queue-driven ingestion only).
    #[serde(
        default,
        deserialize_with = "lenient::opt_bool",
        skip_serializing_if = "Option::is_none"
    )]
    pub skip_initial_load: Option<bool>,
    /// Skip every file up to this key.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub start_after: Option<String>,
    /// Authentication method (`IAM_ROLE`, `IAM_USER`, ...).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub authentication: Option<String>,
    /// URL, may contain globs.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub url: Option<String>,
    /// Delimiter.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub delimiter: Option<String>,
    /// Compression (`auto`, ...).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub compression: Option<String>,
    /// Continuous ingestion.
    #[serde(
        default,
        deserialize_with = "lenient::opt_bool",
        skip_serializing_if = "Option::is_none"
    )]
    pub is_continuous: Option<bool>,
    /// Queue URL.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub queue_url: Option<String>,
    /// IAM role.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub iam_role: Option<String>,
    /// Credential-bearing connection string (secret).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub connection_string: Option<Secret>,
    /// Path glob.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub path: Option<String>,
    /// Azure container.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub azure_container_name: Option<String>,
}

/// Kinesis source.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct KinesisSource {
    /// Record format (`JSONEachRow`, ...).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub format: Option<String>,
    /// Where reading starts (`TRIM_HORIZON`, `LATEST`, `AT_TIMESTAMP`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub iterator_type: Option<String>,
    /// Authentication method (`IAM_ROLE`, `IAM_USER`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub authentication: Option<String>,
    /// Stream name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stream_name: Option<String>,
    /// Region.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub region: Option<String>,
    /// Enhanced fan-out.
    #[serde(
        default,
        deserialize_with = "lenient::opt_bool",
        skip_serializing_if = "Option::is_none"
    )]
    pub use_enhanced_fan_out: Option<bool>,
    /// Numeric start timestamp.
    #[serde(
        default,
        deserialize_with = "lenient::opt_i64",
        skip_serializing_if = "Option::is_none"
    )]
    pub timestamp: Option<i64>,
    /// IAM role.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub iam_role: Option<String>,
}

/// Postgres (database) source; its settings and table mappings are kept as read.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PostgresSource {
    /// Flavour of postgres (`postgres`, `supabase`, ...).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub r#type: Option<String>,
    /// Authentication method (`basic`, `IAM_ROLE`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub authentication: Option<String>,
    /// IAM role, for `IAM_ROLE` authentication.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub iam_role: Option<String>,
    /// Host the TLS certificate names.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tls_host: Option<String>,
    /// CA certificate (PEM).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ca_certificate: Option<String>,
    /// TLS off.
    #[serde(
        default,
        deserialize_with = "lenient::opt_bool",
        skip_serializing_if = "Option::is_none"
    )]
    pub disable_tls: Option<bool>,
    /// Certificate not verified.
    #[serde(
        default,
        deserialize_with = "lenient::opt_bool",
        skip_serializing_if = "Option::is_none"
    )]
    pub skip_cert_verification: Option<bool>,
    /// Host.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub host: Option<String>,
    /// Port.
    #[serde(
        default,
        deserialize_with = "lenient::opt_i64",
        skip_serializing_if = "Option::is_none"
    )]
    pub port: Option<i64>,
    /// Database.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub database: Option<String>,
    /// Replication settings.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub settings: Option<CompactJson>,
    /// Table mappings.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub table_mappings: Option<CompactJson>,
}

/// A pipe's source: exactly one member is normally present.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PipeSource {
    /// Kafka.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub kafka: Option<KafkaSource>,
    /// Object storage.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub object_storage: Option<ObjectStorageSource>,
    /// Kinesis.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub kinesis: Option<KinesisSource>,
    /// Postgres.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub postgres: Option<PostgresSource>,
}

/// The kind of a pipe's source, which decides which scaling fields apply.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) enum SourceKind {
    /// Kafka: `replicas`, CPU and memory.
    Kafka,
    /// Object storage: `concurrency`.
    ObjectStorage,
    /// Kinesis: CPU and memory.
    Kinesis,
    /// Postgres: not scaled per pipe.
    Postgres,
}

impl SourceKind {
    /// The wire name of the kind.
    pub(crate) fn as_str(self) -> &'static str {
        match self {
            SourceKind::Kafka => "kafka",
            SourceKind::ObjectStorage => "objectStorage",
            SourceKind::Kinesis => "kinesis",
            SourceKind::Postgres => "postgres",
        }
    }

    /// Whether a pipe scaling field (wire name) applies to this kind (`api-facts.md`).
    pub(crate) fn scales(self, field: &str) -> bool {
        matches!(
            (self, field),
            (SourceKind::Kafka, "replicas")
                | (
                    SourceKind::Kafka | SourceKind::Kinesis,
                    "replicaCpuMillicores" | "replicaMemoryGb"
                )
                | (SourceKind::ObjectStorage, "concurrency")
        )
    }

    /// Whether a pipe setting (`streaming_max_insert_wait_ms`) applies to this kind: `streaming_*`
    /// to kafka and kinesis, `object_storage_*` to object storage, `db_*` to every kind.
    pub(crate) fn takes_setting(self, key: &str) -> bool {
        if key.starts_with("streaming_") {
            matches!(self, SourceKind::Kafka | SourceKind::Kinesis)
        } else if key.starts_with("object_storage_") {
            self == SourceKind::ObjectStorage
        } else {
            key.starts_with("db_")
        }
    }

    /// The kind written under `key` (`objectStorage`).
    pub(crate) fn from_key(key: &str) -> Option<SourceKind> {
        [
            SourceKind::Kafka,
            SourceKind::ObjectStorage,
            SourceKind::Kinesis,
            SourceKind::Postgres,
        ]
        .into_iter()
        .find(|kind| kind.as_str() == key)
    }
}

impl PipeSource {
    /// The kind of the first present member.
    pub(crate) fn kind(&self) -> Option<SourceKind> {
        if self.kafka.is_some() {
            Some(SourceKind::Kafka)
        } else if self.object_storage.is_some() {
            Some(SourceKind::ObjectStorage)
        } else if self.kinesis.is_some() {
            Some(SourceKind::Kinesis)
        } else if self.postgres.is_some() {
            Some(SourceKind::Postgres)
        } else {
            None
        }
    }
}

/// A pipe (`GET /services/{id}/pipes`, `GET .../pipes/{id}`, `result` of the scaling update).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Pipe {
    /// UUID.
    #[serde(default, deserialize_with = "lenient::or_default")]
    pub id: String,
    /// Service UUID.
    #[serde(default, deserialize_with = "lenient::or_default")]
    pub service_id: String,
    /// Name.
    #[serde(default, deserialize_with = "lenient::or_default")]
    pub name: String,
    /// State (`Running`, ...).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub state: Option<String>,
    /// Scaling.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub scaling: Option<PipeScaling>,
    /// Source.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub source: Option<PipeSource>,
    /// Destination, kept as read.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub destination: Option<CompactJson>,
    /// Field mappings, kept as read.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub field_mappings: Option<CompactJson>,
    /// Flat settings object, kept as read.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub settings: Option<CompactJson>,
    /// Creation time.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub created_at: Option<String>,
    /// Last update time.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub updated_at: Option<String>,
}

// ---------------------------------------------------------------------------------------------
// Backups

/// A backup (`GET /services/{id}/backups`, newest first; `GET .../backups/{id}`).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Backup {
    /// UUID.
    #[serde(default, deserialize_with = "lenient::or_default")]
    pub id: String,
    /// `done`, `error` or `in_progress`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub status: Option<String>,
    /// Service id.
    #[serde(default, deserialize_with = "lenient::or_default")]
    pub service_id: String,
    /// Start time, ISO 8601.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub started_at: Option<String>,
    /// Finish time, ISO 8601; only for finished backups.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub finished_at: Option<String>,
    /// Size in bytes.
    #[serde(
        default,
        deserialize_with = "lenient::opt_f64",
        serialize_with = "number::opt",
        skip_serializing_if = "Option::is_none"
    )]
    pub size_in_bytes: Option<f64>,
    /// Duration in seconds.
    #[serde(
        default,
        deserialize_with = "lenient::opt_f64",
        serialize_with = "number::opt",
        skip_serializing_if = "Option::is_none"
    )]
    pub duration_in_seconds: Option<f64>,
    /// `full` or `incremental`.
    #[serde(default, rename = "type", skip_serializing_if = "Option::is_none")]
    pub kind: Option<String>,
    /// Name in the external bucket.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub backup_name: Option<String>,
    /// Bucket, kept as read.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bucket: Option<Value>,
}

// ---------------------------------------------------------------------------------------------
// Observability: dashboards, alerts, sources, chart series

/// One series of a tile or of a chart query.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Series {
    /// `time`, `table`, `number`, `histogram`, `search`, `markdown`.
    #[serde(default, rename = "type", skip_serializing_if = "Option::is_none")]
    pub kind: Option<String>,
    /// `events` or `metrics`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub data_source: Option<String>,
    /// Source id.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub source_id: Option<String>,
    /// Aggregation.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub agg_fn: Option<String>,
    /// Field aggregated.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub field: Option<String>,
    /// Quantile level of a `quantile` aggregation (0 to 1); the servers draw the median
    /// without one.
    #[serde(
        default,
        deserialize_with = "lenient::opt_f64",
        serialize_with = "number::opt",
        skip_serializing_if = "Option::is_none"
    )]
    pub level: Option<f64>,
    /// Text of a `markdown` series (the servers require it on one).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub content: Option<String>,
    /// Columns of a `search` series (the servers require them on one).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fields: Option<Vec<String>>,
    /// Filter expression. Always sent (`""`, no filter, when absent): the observability
    /// document requires the member on every series.
    #[serde(default, rename = "where", serialize_with = "always_text")]
    pub where_: Option<String>,
    /// `lucene` or `sql`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub where_language: Option<String>,
    /// Group-by fields. Always sent (`[]` when absent): both public documents require the
    /// member on every series, and the real servers reject a series without it.
    #[serde(default, serialize_with = "always_list")]
    pub group_by: Option<Vec<String>>,
    /// Metric name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub metric_name: Option<String>,
    /// `sum`, `gauge`, `histogram`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub metric_data_type: Option<String>,
}

/// A dashboard tile.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Tile {
    /// Server-assigned id.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub id: Option<String>,
    /// Name, unique within its dashboard for converge.
    #[serde(default, deserialize_with = "lenient::or_default")]
    pub name: String,
    /// Grid column, 0 to 23.
    #[serde(default, deserialize_with = "lenient::i64_or_zero")]
    pub x: i64,
    /// Grid row.
    #[serde(default, deserialize_with = "lenient::i64_or_zero")]
    pub y: i64,
    /// Width, 1 to 24.
    #[serde(default, deserialize_with = "lenient::i64_or_zero")]
    pub w: i64,
    /// Height.
    #[serde(default, deserialize_with = "lenient::i64_or_zero")]
    pub h: i64,
    /// Draw series 0 divided by series 1.
    #[serde(
        default,
        deserialize_with = "lenient::opt_bool",
        skip_serializing_if = "Option::is_none"
    )]
    pub as_ratio: Option<bool>,
    /// Series (the contract's tile format). Left out when empty: a tile of today's format
    /// carries `config` instead.
    #[serde(
        default,
        deserialize_with = "lenient::or_default",
        skip_serializing_if = "Vec::is_empty"
    )]
    pub series: Vec<Series>,
    /// Today's tile definition (`config` instead of `series`): what servers since 2.18 answer,
    /// and what converge writes to them.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub config: Option<CompactJson>,
    /// The dashboard container the tile is drawn in (today's servers; absent: the ungrouped area).
    #[serde(
        default,
        deserialize_with = "lenient::or_default",
        skip_serializing_if = "Option::is_none"
    )]
    pub container_id: Option<String>,
    /// The tab of its container the tile is on (today's servers).
    #[serde(
        default,
        deserialize_with = "lenient::or_default",
        skip_serializing_if = "Option::is_none"
    )]
    pub tab_id: Option<String>,
}

/// A grouping container of a dashboard's tiles (today's servers: `DashboardContainer`).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Container {
    /// Id, unique within the dashboard; tiles join it by `containerId`.
    #[serde(default, deserialize_with = "lenient::or_default")]
    pub id: String,
    /// Title shown on its header.
    #[serde(default, deserialize_with = "lenient::or_default")]
    pub title: String,
    /// Whether it starts collapsed (the server requires it).
    #[serde(default, deserialize_with = "lenient::or_default")]
    pub collapsed: bool,
    /// Whether a viewer can collapse it (the server's default: true).
    #[serde(
        default,
        deserialize_with = "lenient::opt_bool",
        skip_serializing_if = "Option::is_none"
    )]
    pub collapsible: Option<bool>,
    /// Whether it has a border (the server's default: true).
    #[serde(
        default,
        deserialize_with = "lenient::opt_bool",
        skip_serializing_if = "Option::is_none"
    )]
    pub bordered: Option<bool>,
    /// Its tabs; tiles join one by `tabId`.
    #[serde(
        default,
        deserialize_with = "lenient::or_default",
        skip_serializing_if = "Option::is_none"
    )]
    pub tabs: Option<Vec<ContainerTab>>,
}

/// A tab of a dashboard container.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ContainerTab {
    /// Id, unique within its container.
    #[serde(default, deserialize_with = "lenient::or_default")]
    pub id: String,
    /// Title shown on the tab.
    #[serde(default, deserialize_with = "lenient::or_default")]
    pub title: String,
}

impl Tile {
    /// Whether the tile is of today's format: `config` and no `series`.
    pub(crate) fn is_newer_format(&self) -> bool {
        self.config.as_ref().is_some_and(|c| !c.is_null()) && self.series.is_empty()
    }
}

/// A free-form member (a tile's `config`, a pipe's settings and mappings) held as its compact
/// JSON text. A large estate's live tiles and pipes, each a JSON tree of a few dozen small
/// maps, took more memory than anything else a plan reads; the text is a tenth of that and one
/// allocation. Readers parse it with [`CompactJson::value`] one object at a time. The text is
/// written from the tree read (keys sorted, no spaces), so it reads, compares and writes exactly
/// as the tree did, unknown members included.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CompactJson(Box<str>);

impl CompactJson {
    /// Holds `value`'s compact text.
    pub fn new(value: &Value) -> Self {
        CompactJson(value.to_string().into_boxed_str())
    }

    /// The config as a JSON tree, for a reader to look into and drop.
    pub fn value(&self) -> Value {
        // The text was written from a `Value`, which always reads back; `Null` is never
        // reached.
        serde_json::from_str(&self.0).unwrap_or(Value::Null)
    }

    /// Member `key` of the config when it is an object.
    pub fn get(&self, key: &str) -> Option<Value> {
        match self.value() {
            Value::Object(mut object) => object.remove(key),
            _ => None,
        }
    }

    /// Whether the config is JSON `null`.
    pub fn is_null(&self) -> bool {
        &*self.0 == "null"
    }
}

impl From<Value> for CompactJson {
    fn from(value: Value) -> Self {
        CompactJson::new(&value)
    }
}

impl Serialize for CompactJson {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        // Through the tree, so every serializer (not only JSON's) writes what it wrote before.
        self.value().serialize(serializer)
    }
}

impl<'de> Deserialize<'de> for CompactJson {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        Value::deserialize(deserializer).map(|value| CompactJson::new(&value))
    }
}

/// Writes an absent list as `[]`.
fn always_text<S: Serializer>(value: &Option<String>, serializer: S) -> Result<S::Ok, S::Error> {
    value.as_deref().unwrap_or_default().serialize(serializer)
}

fn always_list<S: Serializer>(
    value: &Option<Vec<String>>,
    serializer: S,
) -> Result<S::Ok, S::Error> {
    value.as_deref().unwrap_or(&[]).serialize(serializer)
}

/// Serializers of numbers: a whole `f64` is written as a JSON integer (`3`, not `3.0`), as the
/// real services write numbers; the documents say `integer` for some of these fields
/// (`numReplicas`), and a typed client of them fails on `3.0`.
pub(crate) mod number {
    use serde::Serializer;

    /// Largest magnitude below which every whole `f64` is exact as an `i64` (2^53).
    const EXACT: f64 = 9_007_199_254_740_992.0;

    /// One number.
    pub(crate) fn one<S: Serializer>(value: &f64, serializer: S) -> Result<S::Ok, S::Error> {
        if value.fract() == 0.0 && value.abs() < EXACT {
            serializer.serialize_i64(*value as i64)
        } else {
            serializer.serialize_f64(*value)
        }
    }

    /// An optional number (skipped when absent by the field's own attribute).
    pub(crate) fn opt<S: Serializer>(
        value: &Option<f64>,
        serializer: S,
    ) -> Result<S::Ok, S::Error> {
        match value {
            Some(value) => one(value, serializer),
            None => serializer.serialize_none(),
        }
    }
}

/// A dashboard (both stack APIs).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Dashboard {
    /// Server-assigned id.
    #[serde(default, deserialize_with = "lenient::or_default")]
    pub id: String,
    /// Name; converge's identity for matching.
    #[serde(default, deserialize_with = "lenient::or_default")]
    pub name: String,
    /// Tiles.
    #[serde(default, deserialize_with = "lenient::or_default")]
    pub tiles: Vec<Tile>,
    /// Tags.
    #[serde(default, deserialize_with = "lenient::or_default")]
    pub tags: Vec<String>,
    /// Grouping containers of the tiles (today's servers; left out when there are none, as
    /// they answer).
    #[serde(
        default,
        deserialize_with = "lenient::or_default",
        skip_serializing_if = "Vec::is_empty"
    )]
    pub containers: Vec<Container>,
}

/// Body of dashboard create and update (update replaces the whole object).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct DashboardRequest {
    /// Name.
    #[serde(default)]
    pub name: String,
    /// Tiles; ids are kept on update only when they already exist on the dashboard.
    #[serde(default)]
    pub tiles: Vec<Tile>,
    /// Tags.
    #[serde(default)]
    pub tags: Vec<String>,
    /// Grouping containers; left out when neither the config nor the live dashboard has any
    /// (an update without them keeps the server's, and the contract's servers have none).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub containers: Option<Vec<Container>>,
}

/// An alert's notification channel.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Channel {
    /// `webhook`, or `email` on the managed stack of today's generation.
    #[serde(default, rename = "type", deserialize_with = "lenient::or_default")]
    pub kind: String,
    /// Webhook id.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub webhook_id: Option<String>,
    /// Recipients of an `email` channel (the managed stack of today's generation).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub email_recipients: Option<Vec<String>>,
}

/// An alert (both stack APIs). Servers of the newer generation name two members differently
/// (`dashboardId`, `teamId`); they are read as `dashboard` and `team`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", remote = "Self")]
pub struct Alert {
    /// Server-assigned id.
    #[serde(default, deserialize_with = "lenient::or_default")]
    pub id: String,
    /// Name; converge's identity for matching.
    #[serde(default, deserialize_with = "lenient::or_default")]
    pub name: String,
    /// Message.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub message: Option<String>,
    /// Threshold.
    #[serde(
        default,
        deserialize_with = "lenient::opt_f64",
        serialize_with = "number::opt",
        skip_serializing_if = "Option::is_none"
    )]
    pub threshold: Option<f64>,
    /// Interval (`5m`, ...).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub interval: Option<String>,
    /// `above` or `below`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub threshold_type: Option<String>,
    /// `tile` or `search`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub source: Option<String>,
    /// State (`inactive`, `alert`, ...).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub state: Option<String>,
    /// Channel.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub channel: Option<Channel>,
    /// Team id.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub team: Option<String>,
    /// Tile id.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tile_id: Option<String>,
    /// Dashboard id.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dashboard: Option<String>,
    /// Creation time, ISO 8601 with milliseconds.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub created_at: Option<String>,
    /// Update time, ISO 8601 with milliseconds.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub updated_at: Option<String>,
    /// The members servers of today's generation added.
    #[serde(flatten)]
    pub newer: NewerAlertFields,
}

/// The alert members the observability API added after the contract (releases 2.21 to 2.30);
/// servers of the contract's generation have none of them. Absent members are not sent.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct NewerAlertFields {
    /// Upper bound of a `between` / `not_between` threshold (`threshold` is the lower one).
    #[serde(
        default,
        deserialize_with = "lenient::opt_f64",
        serialize_with = "number::opt",
        skip_serializing_if = "Option::is_none"
    )]
    pub threshold_max: Option<f64>,
    /// Windows in a row the condition must hold before the alert fires.
    #[serde(
        default,
        deserialize_with = "lenient::opt_i64",
        skip_serializing_if = "Option::is_none"
    )]
    pub num_consecutive_windows: Option<i64>,
    /// Minutes after the interval boundary at which windows are evaluated.
    #[serde(
        default,
        deserialize_with = "lenient::opt_i64",
        skip_serializing_if = "Option::is_none"
    )]
    pub schedule_offset_minutes: Option<i64>,
    /// Date-time the schedule counts its windows from.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub schedule_start_at: Option<String>,
    /// Note shown with the alert's notifications.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
    /// All the channels notified, 1 to 10; the servers answer `channel` as their first.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub channels: Option<Vec<Channel>>,
}

impl Serialize for Alert {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        Alert::serialize(self, serializer)
    }
}

impl<'de> Deserialize<'de> for Alert {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let mut alert = serde_json::Map::<String, Value>::deserialize(deserializer)?;
        for (newer, contract) in [("dashboardId", "dashboard"), ("teamId", "team")] {
            if let Some(value) = alert.remove(newer)
                && alert.get(contract).is_none_or(Value::is_null)
            {
                alert.insert(contract.to_string(), value);
            }
        }
        // The members' own errors keep their place: `.name: invalid type ...` (see
        // `nested_path`), which the reader joins to the path of the alert.
        let mut track = serde_path_to_error::Track::new();
        let value = Value::Object(alert);
        Alert::deserialize(serde_path_to_error::Deserializer::new(&value, &mut track)).map_err(
            |error| {
                serde::de::Error::custom(format!(
                    "{}{NESTED}{error}",
                    nested_path(&track.path().to_string())
                ))
            },
        )
    }
}

/// Separates a member path from the message in errors of objects read in two steps (alerts).
pub(crate) const NESTED: &str = "\u{1f}";

/// `name` → `.name`, `[2]` stays `[2]`: how a member path continues the path of its object.
fn nested_path(path: &str) -> String {
    if path.is_empty() || path == "." || path.starts_with('[') {
        path.trim_start_matches('.').to_string()
    } else {
        format!(".{path}")
    }
}

/// Body of alert create and update.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct AlertRequest {
    /// Dashboard id.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dashboard_id: Option<String>,
    /// Tile id.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tile_id: Option<String>,
    /// Threshold.
    #[serde(
        default,
        serialize_with = "number::opt",
        skip_serializing_if = "Option::is_none"
    )]
    pub threshold: Option<f64>,
    /// Interval.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub interval: Option<String>,
    /// `tile` or `search`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub source: Option<String>,
    /// `above` or `below`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub threshold_type: Option<String>,
    /// Channel.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub channel: Option<Channel>,
    /// Name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// Message.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub message: Option<String>,
    /// The members servers of today's generation added.
    #[serde(flatten)]
    pub newer: NewerAlertFields,
}

/// A data source of a stack (read-only).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Source {
    /// Id referenced by series `sourceId`.
    #[serde(default, deserialize_with = "lenient::or_default")]
    pub id: String,
    /// Display name, which configs may use instead of the id.
    #[serde(default, deserialize_with = "lenient::or_default")]
    pub name: String,
    /// `log`, `trace`, `metric`, `session`, ...
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub kind: Option<String>,
    /// Connection id.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub connection: Option<String>,
    /// Database and table.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub from: Option<Value>,
    /// Every other member (expressions, settings), kept as read.
    #[serde(flatten)]
    pub details: serde_json::Map<String, Value>,
}

/// Body of `POST /api/v2/charts/series`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SeriesQuery {
    /// 1 to 5 series.
    pub series: Vec<Series>,
    /// Epoch milliseconds.
    pub start_time: i64,
    /// Epoch milliseconds.
    pub end_time: i64,
    /// Bucket size (`1m`, ..., `auto`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub granularity: Option<String>,
    /// `ratio` or `column`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub series_return_type: Option<String>,
}

/// One point of a charts/series answer, read tolerantly: `ts_bucket` plus `series_<i>.data`
/// values that may be numbers or numeric strings.
#[derive(Debug, Clone, PartialEq)]
pub struct SeriesPoint {
    /// Bucket start, epoch milliseconds.
    pub ts_bucket: i64,
    /// Value per series index; `None` where the bucket has no value for it.
    pub values: Vec<Option<f64>>,
}

impl SeriesPoint {
    /// Reads one data point object; `None` if it has no usable `ts_bucket`.
    pub fn from_json(object: &serde_json::Map<String, Value>, series: usize) -> Option<Self> {
        let ts_bucket = lenient::value_f64(object.get("ts_bucket")?)? as i64;
        let values = (0..series)
            .map(|i| {
                object
                    .get(&format!("series_{i}.data"))
                    .and_then(lenient::value_f64)
            })
            .collect();
        Some(SeriesPoint { ts_bucket, values })
    }
}

/// Tolerant deserializers: numbers as numbers or strings, quantities with units.
pub(crate) mod lenient {
    use serde::{Deserialize, Deserializer};
    use serde_json::Value;

    /// A JSON value as a number: numbers, numeric strings; `None` for anything else.
    pub(crate) fn value_f64(value: &Value) -> Option<f64> {
        match value {
            Value::Number(n) => n.as_f64(),
            Value::String(s) => s.trim().parse::<f64>().ok().filter(|v| v.is_finite()),
            _ => None,
        }
    }

    /// Splits `"500m"` into `(500.0, "m")`.
    fn split_quantity(text: &str) -> Option<(f64, &str)> {
        let text = text.trim();
        let end = text
            .find(|c: char| !(c.is_ascii_digit() || c == '.' || c == '-' || c == '+'))
            .unwrap_or(text.len());
        let (number, unit) = text.split_at(end);
        let number: f64 = number.parse().ok()?;
        number.is_finite().then_some((number, unit.trim()))
    }

    /// CPU as millicores: a number or numeric string is millicores, as the field's name says;
    /// `"500m"` is 500.
    pub(crate) fn millicores(value: &Value) -> Option<f64> {
        match value {
            Value::String(s) => {
                let (number, unit) = split_quantity(s)?;
                match unit {
                    "" | "m" => Some(number),
                    _ => None,
                }
            }
            other => value_f64(other),
        }
    }

    /// Memory as GB: numbers and numeric strings are GB; `"2Gi"`/`"2G"` are 2, `"512Mi"` 0.5.
    pub(crate) fn gigabytes(value: &Value) -> Option<f64> {
        match value {
            Value::String(s) => {
                let (number, unit) = split_quantity(s)?;
                match unit {
                    "" | "G" | "Gi" | "GB" | "GiB" => Some(number),
                    "M" | "Mi" | "MB" | "MiB" => Some(number / 1024.0),
                    "T" | "Ti" | "TB" | "TiB" => Some(number * 1024.0),
                    _ => None,
                }
            }
            other => value_f64(other),
        }
    }

    fn read<'de, D, F>(deserializer: D, convert: F) -> Result<Option<f64>, D::Error>
    where
        D: Deserializer<'de>,
        F: Fn(&Value) -> Option<f64>,
    {
        let value = Option::<Value>::deserialize(deserializer)?;
        Ok(value.as_ref().and_then(convert))
    }

    /// A value whose `null` reads as its default (an empty string or list): a nullable member
    /// of the documents never fails the read of the object around it.
    pub(crate) fn or_default<'de, D, T>(d: D) -> Result<T, D::Error>
    where
        D: Deserializer<'de>,
        T: Deserialize<'de> + Default,
    {
        Ok(Option::<T>::deserialize(d)?.unwrap_or_default())
    }

    /// An optional number that may arrive as a string.
    pub(crate) fn opt_f64<'de, D: Deserializer<'de>>(d: D) -> Result<Option<f64>, D::Error> {
        read(d, value_f64)
    }

    /// An optional whole number that may arrive as a string or as `3.0`.
    pub(crate) fn opt_i64<'de, D: Deserializer<'de>>(d: D) -> Result<Option<i64>, D::Error> {
        Ok(read(d, value_f64)?.map(|v| v.round() as i64))
    }

    /// A whole number defaulting to 0.
    pub(crate) fn i64_or_zero<'de, D: Deserializer<'de>>(d: D) -> Result<i64, D::Error> {
        Ok(opt_i64(d)?.unwrap_or(0))
    }

    /// Millicores that may arrive as `"500m"`.
    pub(crate) fn opt_millicores<'de, D: Deserializer<'de>>(d: D) -> Result<Option<i64>, D::Error> {
        Ok(read(d, millicores)?.map(|v| v.round() as i64))
    }

    /// Gigabytes that may arrive as `"2Gi"`.
    pub(crate) fn opt_gigabytes<'de, D: Deserializer<'de>>(d: D) -> Result<Option<f64>, D::Error> {
        read(d, gigabytes)
    }

    /// An optional boolean that may arrive as `"true"`/`"false"`.
    pub(crate) fn opt_bool<'de, D: Deserializer<'de>>(d: D) -> Result<Option<bool>, D::Error> {
        let value = Option::<Value>::deserialize(d)?;
        Ok(match value {
            Some(Value::Bool(b)) => Some(b),
            Some(Value::String(s)) => match s.as_str() {
                "true" => Some(true),
                "false" => Some(false),
                _ => None,
            },
            _ => None,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pipe_scaling_reads_quantity_strings() {
        let scaling: PipeScaling = serde_json::from_str(
            r#"{"replicas":"3","concurrency":null,"replicaCpuMillicores":"500m","replicaMemoryGb":"2Gi","extra":1}"#,
        )
        .unwrap();
        assert_eq!(scaling.replicas, Some(3));
        assert_eq!(scaling.concurrency, None);
        assert_eq!(scaling.replica_cpu_millicores, Some(500));
        assert_eq!(scaling.replica_memory_gb, Some(2.0));
    }

    #[test]
    fn memory_in_mebibytes_converts() {
        assert_eq!(lenient::gigabytes(&Value::from("512Mi")), Some(0.5));
        assert_eq!(lenient::gigabytes(&Value::from("lots")), None);
    }

    #[test]
    fn series_point_reads_numeric_strings_and_gaps() {
        let object =
            serde_json::json!({"ts_bucket": 60000, "series_0.data": "12", "series_2.data": 1.5});
        let point = SeriesPoint::from_json(object.as_object().unwrap(), 3).unwrap();
        assert_eq!(point.ts_bucket, 60000);
        assert_eq!(point.values, vec![Some(12.0), None, Some(1.5)]);
    }

    #[test]
    fn secrets_never_debug_print() {
        let source = ObjectStorageSource {
            connection_string: Some(Secret("AccountKey=hunter2".into())),
            ..Default::default()
        };
        assert!(!format!("{source:?}").contains("hunter2"));
    }

    #[test]
    fn whole_numbers_are_written_as_integers_and_fractions_stay() {
        let patch = ServiceScalingPatch {
            num_replicas: Some(3.0),
            idle_timeout_minutes: Some(15.0),
            min_total_memory_gb: Some(24.5),
            ..Default::default()
        };
        assert_eq!(
            serde_json::to_string(&patch).unwrap(),
            r#"{"minTotalMemoryGb":24.5,"numReplicas":3,"idleTimeoutMinutes":15}"#
        );
        let scaling = PipeScaling {
            replica_memory_gb: Some(0.5),
            ..Default::default()
        };
        assert_eq!(
            serde_json::to_string(&scaling).unwrap(),
            r#"{"replicaMemoryGb":0.5}"#
        );
    }

    #[test]
    fn a_series_always_carries_group_by() {
        let text = serde_json::to_string(&Series::default()).unwrap();
        assert_eq!(text, r#"{"where":"","groupBy":[]}"#);
    }

    #[test]
    fn nulls_unknown_values_and_members_read_fine() {
        let alert: Alert = serde_json::from_str(
            r#"{"id":"a","name":null,"state":"SNOOZED","channel":{"type":"email","emailRecipients":["x@y"]},"silenced":null,"extra":{"deep":[1]}}"#,
        )
        .unwrap();
        assert_eq!(alert.name, "");
        assert_eq!(alert.state.as_deref(), Some("SNOOZED"));
        assert_eq!(alert.channel.unwrap().kind, "email");
        let dashboard: Dashboard =
            serde_json::from_str(r#"{"id":"d","name":null,"tiles":null,"tags":null}"#).unwrap();
        assert!(dashboard.tiles.is_empty() && dashboard.tags.is_empty());
        let source: Source = serde_json::from_str(
            r#"{"id":"s","name":"Logs","kind":"log","timestampValueExpression":"T"}"#,
        )
        .unwrap();
        assert_eq!(source.details["timestampValueExpression"], "T");
    }

    #[test]
    fn the_newer_generation_s_alert_members_read_as_the_contract_s() {
        let alert: Alert =
            serde_json::from_str(r#"{"id":"a","dashboardId":"d1","teamId":"t1"}"#).unwrap();
        assert_eq!(alert.dashboard.as_deref(), Some("d1"));
        assert_eq!(alert.team.as_deref(), Some("t1"));
        // Both names: the contract's wins, and nothing fails.
        let both: Alert =
            serde_json::from_str(r#"{"id":"a","dashboard":"d0","dashboardId":"d1"}"#).unwrap();
        assert_eq!(both.dashboard.as_deref(), Some("d0"));
        // Written back in the contract's names.
        let text = serde_json::to_string(&alert).unwrap();
        assert!(text.contains(r#""dashboard":"d1""#) && !text.contains("dashboardId"));
        let tile: Tile = serde_json::from_str(
            r#"{"id":"t","name":"T","x":0,"y":0,"w":6,"h":4,"config":{"displayType":"line"}}"#,
        )
        .unwrap();
        assert!(tile.is_newer_format());
    }

    #[test]
    fn a_member_held_as_compact_json_reads_and_writes_as_the_tree_did() {
        let body = r#"{"name":"T","config":{"z":{"b":[1,2.5,null],"a":"x"},"displayType":"line","unknown":{"kept":true}}}"#;
        let tile: Tile = serde_json::from_str(body).unwrap();
        let tree: Value = serde_json::from_str(body).unwrap();
        let config = tile.config.clone().unwrap();
        assert_eq!(config.value(), tree["config"]);
        assert_eq!(
            config.get("unknown"),
            Some(serde_json::json!({"kept": true}))
        );
        assert_eq!(config.get("absent"), None);
        assert!(!config.is_null());
        // Written byte for byte as the tree wrote it: keys sorted, no spaces.
        assert_eq!(
            serde_json::to_string(&tile).unwrap(),
            format!(
                r#"{{"name":"T","x":0,"y":0,"w":0,"h":0,"config":{}}}"#,
                tree["config"]
            )
        );
        assert_eq!(CompactJson::from(tree["config"].clone()), config);
        let null: Tile = serde_json::from_str(r#"{"name":"T","config":null}"#).unwrap();
        assert_eq!(null.config, None);
        // A pipe's free-form members likewise: read, compared and written as the tree was.
        let pipe = r#"{"id":"p","name":"P","destination":{"table":"t","database":"d"},"fieldMappings":[{"sourceField":"a","destinationField":"b"}],"settings":{"streamingMaxInsertWaitMs":5000,"unknown":[null]}}"#;
        let read: Pipe = serde_json::from_str(pipe).unwrap();
        let tree: Value = serde_json::from_str(pipe).unwrap();
        assert_eq!(
            read.settings.as_ref().map(CompactJson::value),
            Some(tree["settings"].clone())
        );
        assert_eq!(
            serde_json::to_value(&read).unwrap()["destination"],
            tree["destination"]
        );
        assert_eq!(
            serde_json::to_value(&read).unwrap()["fieldMappings"],
            tree["fieldMappings"]
        );
    }

    #[test]
    fn scaling_fields_by_source_kind() {
        assert!(SourceKind::Kafka.scales("replicas"));
        assert!(!SourceKind::Kinesis.scales("replicas"));
        assert!(SourceKind::Kinesis.scales("replicaMemoryGb"));
        assert!(SourceKind::ObjectStorage.scales("concurrency"));
        assert!(!SourceKind::Postgres.scales("concurrency"));
    }
}

/// The answer of `POST .../dashboards/validate`: 200 for a valid and an invalid body alike.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct DashboardValidation {
    /// Whether the body passes every rule of a create.
    pub valid: bool,
    /// What is wrong; empty when valid.
    pub errors: Vec<ValidationProblem>,
}

/// One problem a dashboard validation names.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ValidationProblem {
    /// The member, dot-separated (`tiles.0.config`); empty for the body itself.
    #[serde(default)]
    pub path: String,
    /// What is wrong with it.
    pub message: String,
}
