//! Pipes of the cloud API: scaling, the kinds of source, and the pipe.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::compact::CompactJson;
use super::lenient;
use super::number;
use super::secret::Secret;

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

/// MySQL (database) source (`ClickPipeMySQLSource`); its settings and table mappings are kept
/// as read.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct MysqlSource {
    /// Flavour of MySQL (`mysql`, `mariadb`, ...).
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
    /// The replication `server_id` the pipe declares itself as.
    #[serde(
        default,
        deserialize_with = "lenient::opt_i64",
        skip_serializing_if = "Option::is_none"
    )]
    pub server_id: Option<i64>,
    /// Replication settings.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub settings: Option<CompactJson>,
    /// Table mappings.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub table_mappings: Option<CompactJson>,
}

/// MongoDB (database) source (`ClickPipeMongoDBSource`); its settings and collection mappings
/// are kept as read.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct MongodbSource {
    /// Connection URI (`mongodb://...`, `mongodb+srv://...`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub uri: Option<String>,
    /// Read preference (`primary`, `secondaryPreferred`, ...).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub read_preference: Option<String>,
    /// Host the TLS certificate names.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tls_host: Option<String>,
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
    /// CA certificate (PEM).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ca_certificate: Option<String>,
    /// Replication settings.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub settings: Option<CompactJson>,
    /// Collection mappings.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub table_mappings: Option<CompactJson>,
}

/// BigQuery (database, snapshot-only) source (`ClickPipeBigQuerySource`); its settings and
/// table mappings are kept as read.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct BigquerySource {
    /// GCS path the snapshot is staged in (`gs://bucket/staging/`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub snapshot_staging_path: Option<String>,
    /// Replication settings.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub settings: Option<CompactJson>,
    /// Table mappings.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub table_mappings: Option<CompactJson>,
}

/// GCP Pub/Sub (streaming) source (`ClickPipePubSubSource`).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PubsubSource {
    /// Message format (`JSONEachRow`, `Avro`, `Protobuf`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub format: Option<String>,
    /// GCP project that owns the topic.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub project_id: Option<String>,
    /// Topic name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub topic: Option<String>,
    /// Authentication method (`SERVICE_ACCOUNT`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub authentication: Option<String>,
    /// Where consumption starts (`latest`, `earliest`, `timestamp`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub seek_type: Option<String>,
    /// The time a `timestamp` seek starts at.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub seek_timestamp: Option<String>,
    /// Subscription filter (CEL).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub filter: Option<String>,
    /// Ordered delivery.
    #[serde(
        default,
        deserialize_with = "lenient::opt_bool",
        skip_serializing_if = "Option::is_none"
    )]
    pub enable_ordering: Option<bool>,
    /// Acknowledgement deadline in seconds.
    #[serde(
        default,
        deserialize_with = "lenient::opt_i64",
        skip_serializing_if = "Option::is_none"
    )]
    pub ack_deadline: Option<i64>,
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
    /// MySQL.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mysql: Option<MysqlSource>,
    /// MongoDB.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mongodb: Option<MongodbSource>,
    /// BigQuery.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bigquery: Option<BigquerySource>,
    /// GCP Pub/Sub.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pubsub: Option<PubsubSource>,
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
    /// MySQL: not scaled per pipe.
    Mysql,
    /// MongoDB: not scaled per pipe.
    Mongodb,
    /// BigQuery: a database pipe (snapshot only), not scaled per pipe.
    Bigquery,
    /// GCP Pub/Sub: streaming; the scaling endpoint takes no pubsub pipe.
    Pubsub,
}

impl SourceKind {
    /// The wire name of the kind.
    pub(crate) fn as_str(self) -> &'static str {
        match self {
            SourceKind::Kafka => "kafka",
            SourceKind::ObjectStorage => "objectStorage",
            SourceKind::Kinesis => "kinesis",
            SourceKind::Postgres => "postgres",
            SourceKind::Mysql => "mysql",
            SourceKind::Mongodb => "mongodb",
            SourceKind::Bigquery => "bigquery",
            SourceKind::Pubsub => "pubsub",
        }
    }

    /// Whether the kind is a database pipe: tables from table mappings, paused when stopped,
    /// and the service's shared compute (`pipesCdcScaling`, which the document names for
    /// PostgreSQL, MySQL, MongoDB and BigQuery) instead of per-pipe scaling.
    pub(crate) fn is_database(self) -> bool {
        matches!(
            self,
            SourceKind::Postgres | SourceKind::Mysql | SourceKind::Mongodb | SourceKind::Bigquery
        )
    }

    /// Whether `PATCH .../state {"command":"resync"}` takes the kind: the document's state
    /// endpoint says "Resyncing is only for Postgres and MySQL pipes" (not MongoDB, nor
    /// BigQuery, a one-time snapshot).
    pub(crate) fn resyncs(self) -> bool {
        matches!(self, SourceKind::Postgres | SourceKind::Mysql)
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
    /// to the streaming kinds (kafka, kinesis, pubsub), `object_storage_*` to object storage, `db_*` to every kind.
    pub(crate) fn takes_setting(self, key: &str) -> bool {
        if key.starts_with("streaming_") {
            matches!(
                self,
                SourceKind::Kafka | SourceKind::Kinesis | SourceKind::Pubsub
            )
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
            SourceKind::Mysql,
            SourceKind::Mongodb,
            SourceKind::Bigquery,
            SourceKind::Pubsub,
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
        } else if self.mysql.is_some() {
            Some(SourceKind::Mysql)
        } else if self.mongodb.is_some() {
            Some(SourceKind::Mongodb)
        } else if self.bigquery.is_some() {
            Some(SourceKind::Bigquery)
        } else if self.pubsub.is_some() {
            Some(SourceKind::Pubsub)
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
