//! The Google Cloud source kinds as the server checks them: a BigQuery create
//! (`ClickPipeMutateBigQuerySource`, which no `PATCH` takes), a Pub/Sub create
//! (`ClickPipePostPubSubSource`) and a Pub/Sub `PATCH` source (`ClickPipePatchPubSubSource`,
//! which requires `authentication` and `serviceAccountKey`, each nullable).

use serde_json::{Map, Value};

use crate::api::limits::Range;
use crate::sandbox::validate::{self, Check, invalid};

use super::members::{present, required_enum, table_mappings};

/// A pubsub acknowledgement deadline in seconds (`ClickPipePostPubSubSource.ackDeadline`).
const ACK_DEADLINE: Range = Range {
    field: "ackDeadline",
    min: 10.0,
    max: 600.0,
    integer: true,
};

/// The snapshot settings' counts of a BigQuery pipe: the document types them as numbers; a
/// count below one is no count.
const COUNTS: [Range; 3] = [
    Range {
        field: "initialLoadParallelism",
        min: 1.0,
        max: f64::MAX,
        integer: true,
    },
    Range {
        field: "snapshotNumRowsPerPartition",
        min: 1.0,
        max: f64::MAX,
        integer: true,
    },
    Range {
        field: "snapshotNumberOfParallelTables",
        min: 1.0,
        max: f64::MAX,
        integer: true,
    },
];

/// The only authentication of a pubsub source.
const SERVICE_ACCOUNT: [&str; 1] = ["SERVICE_ACCOUNT"];

/// A bigquery source: the staging path, the key, settings in snapshot mode and table mappings
/// each naming its dataset, table and target.
pub(super) fn bigquery_source(body: &Map<String, Value>, p: &str) -> Check<()> {
    let staging = validate::required_string(body, "snapshotStagingPath", p, 4096)?;
    if !staging.starts_with("gs://") {
        return invalid(
            validate::join(p, "snapshotStagingPath"),
            "must be a GCS path (gs://bucket/path/)",
        );
    }
    service_account(body, "credentials", p)?;
    let settings_path = validate::join(p, "settings");
    let settings = validate::object(body.get("settings").unwrap_or(&Value::Null), &settings_path)?;
    required_enum(settings, "replicationMode", &settings_path, &["snapshot"])?;
    validate::boolean(settings, "allowNullableColumns", &settings_path)?;
    for range in &COUNTS {
        validate::ranged(settings, range, &settings_path)?;
    }
    table_mappings(body, p, ["sourceDatasetName", "sourceTable", "targetTable"])
}

/// A pubsub source of a create: format, project, topic, the service-account key, where it
/// seeks from (a timestamp only for a `timestamp` seek), its filter and deadline.
pub(super) fn pubsub_source(body: &Map<String, Value>, p: &str) -> Check<()> {
    required_enum(body, "format", p, &["JSONEachRow", "Avro", "Protobuf"])?;
    validate::required_string(body, "projectId", p, 1024)?;
    validate::required_string(body, "topic", p, 1024)?;
    required_enum(body, "authentication", p, &SERVICE_ACCOUNT)?;
    service_account(body, "serviceAccountKey", p)?;
    let seek = required_enum(body, "seekType", p, &["latest", "earliest", "timestamp"])?;
    let timestamp = validate::string(body, "seekTimestamp", p, 64)?;
    match (seek.as_str(), timestamp) {
        ("timestamp", None) => return invalid(validate::join(p, "seekTimestamp"), "is required"),
        ("timestamp", Some(_)) => {}
        (_, Some(_)) => {
            return invalid(
                validate::join(p, "seekTimestamp"),
                "is taken only when seekType is timestamp",
            );
        }
        (_, None) => {}
    }
    validate::string(body, "filter", p, 256)?;
    validate::boolean(body, "enableOrdering", p)?;
    validate::ranged(body, &ACK_DEADLINE, p)?;
    Ok(())
}

/// A pubsub source of a `PATCH`: `authentication` and `serviceAccountKey` present (each may be
/// null, which leaves it as it is), and a deadline in its range.
pub(super) fn pubsub_patch(body: &Map<String, Value>, p: &str) -> Check<()> {
    for member in ["authentication", "serviceAccountKey"] {
        if !body.contains_key(member) {
            return invalid(validate::join(p, member), "is required (null keeps it)");
        }
    }
    validate::enumerated(body, "authentication", p, &SERVICE_ACCOUNT)?;
    if body.get("serviceAccountKey").is_some_and(|v| !v.is_null()) {
        service_account(body, "serviceAccountKey", p)?;
    }
    validate::ranged(body, &ACK_DEADLINE, p)?;
    Ok(())
}

/// A `ServiceAccount` member: an object with the base64 key file.
fn service_account(body: &Map<String, Value>, member: &str, p: &str) -> Check<()> {
    present(body, member, p)?;
    let at = validate::join(p, member);
    let key = validate::object(&body[member], &at)?;
    validate::required_string(key, "serviceAccountFile", &at, 65536)?;
    Ok(())
}
