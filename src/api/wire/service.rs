//! Services of the cloud API: the service, its endpoints, IP access list, tags, scaling and
//! state bodies, and private endpoints.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::lenient;
use super::number;

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
    /// Horizontal autoscaling: the replica band's minimum (present only in that mode).
    #[serde(
        default,
        deserialize_with = "lenient::opt_f64",
        serialize_with = "number::opt",
        skip_serializing_if = "Option::is_none"
    )]
    pub min_replicas: Option<f64>,
    /// Horizontal autoscaling: the replica band's maximum.
    #[serde(
        default,
        deserialize_with = "lenient::opt_f64",
        serialize_with = "number::opt",
        skip_serializing_if = "Option::is_none"
    )]
    pub max_replicas: Option<f64>,
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
    /// Release channel (`slow`, `default`, `fast`), where the server sends it; absent reads as
    /// `default`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub release_channel: Option<String>,
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

/// Body of `PATCH /services/{id}/scaling` (the deprecated totals) or of
/// `PATCH /services/{id}/replicaScaling` (per-replica memory and the autoscaling mode): one
/// shape, so `apply --wait` sees either show; each route's planner fills only its own members,
/// and only present members are sent.
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
    /// `replicaScaling` only: per-replica memory minimum, 8 to 356, a multiple of 4.
    #[serde(
        default,
        serialize_with = "number::opt",
        skip_serializing_if = "Option::is_none"
    )]
    pub min_replica_memory_gb: Option<f64>,
    /// `replicaScaling` only: per-replica memory maximum (at most 120 for non-paid services).
    #[serde(
        default,
        serialize_with = "number::opt",
        skip_serializing_if = "Option::is_none"
    )]
    pub max_replica_memory_gb: Option<f64>,
    /// `replicaScaling` only: `vertical` or `horizontal`; absent keeps the service's mode.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub autoscaling_mode: Option<String>,
    /// `replicaScaling` only: horizontal band minimum (with `maxReplicas`, never `numReplicas`).
    #[serde(
        default,
        serialize_with = "number::opt",
        skip_serializing_if = "Option::is_none"
    )]
    pub min_replicas: Option<f64>,
    /// `replicaScaling` only: horizontal band maximum.
    #[serde(
        default,
        serialize_with = "number::opt",
        skip_serializing_if = "Option::is_none"
    )]
    pub max_replicas: Option<f64>,
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

/// `{add, remove}` entries of a service's IP access list (`IpAccessListPatch`); `remove` runs
/// first.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct IpAccessListPatch {
    /// Entries to add.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub add: Vec<IpAccessEntry>,
    /// Entries to remove.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub remove: Vec<IpAccessEntry>,
}

/// One endpoint switched on or off (`ServiceEndpointChange`; only `mysql` can be).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct EndpointChange {
    /// `mysql`.
    pub protocol: String,
    /// On or off.
    pub enabled: bool,
}

/// Body of `PATCH /services/{id}` as converge uses it: private endpoints detached and
/// attached, tags, the IP access list, the release channel and the `mysql` endpoint.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ServicePatch {
    /// Private endpoint ids to add or remove.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub private_endpoint_ids: Option<AddRemove>,
    /// Tags to add or remove.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tags: Option<TagsPatch>,
    /// IP access list entries to add or remove.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ip_access_list: Option<IpAccessListPatch>,
    /// `slow`, `default` or `fast`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub release_channel: Option<String>,
    /// Endpoints switched on or off.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub endpoints: Option<Vec<EndpointChange>>,
}

/// Body of `PATCH /services/{id}/state`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct StatePatch {
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
