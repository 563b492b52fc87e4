//! The checks of a pipe's members as the server makes them: a create's source and destination,
//! columns and field mappings, settings and scaling members; credentials checked and dropped.

use serde_json::{Map, Value};

use crate::api::limits::{PIPE_BOOLEAN_SETTINGS, PIPE_SETTINGS, Range};
use crate::api::wire::SourceKind;
use crate::sandbox::validate::{self, Check, invalid};

use super::members::{present, required_enum, table_mappings};

/// The members that carry credentials, at any depth of a source: checked, never stored, so
/// never answered.
pub(super) const CREDENTIAL_MEMBERS: [&str; 4] = [
    "credentials",
    "accessKey",
    "connectionString",
    "serviceAccountKey",
];

pub(super) fn pipe_member(
    map: &serde_json::Map<String, Value>,
    range: &Range,
    kind: Option<SourceKind>,
) -> Check<Option<f64>> {
    let value = validate::ranged(map, range, "")?;
    if value.is_some()
        && let Some(kind) = kind
        && !kind.scales(range.field)
    {
        return invalid(
            range.field,
            format!("does not apply to {} pipes", kind.as_str()),
        );
    }
    Ok(value)
}

/// The one source kind of a create, checked for the members its kind requires; returned
/// without its credentials.
pub(super) fn post_source(map: &Map<String, Value>) -> Check<(SourceKind, Value)> {
    let source = validate::object(map.get("source").unwrap_or(&Value::Null), "source")?;
    let named: Vec<&String> = source.keys().filter(|k| *k != "validateSamples").collect();
    let [key] = named.as_slice() else {
        return invalid(
            "source",
            "must hold exactly one of kafka, objectStorage, kinesis, pubsub, postgres, mysql, bigquery, mongodb",
        );
    };
    let prefix = validate::join("source", key);
    let Some(kind) = SourceKind::from_key(key) else {
        return invalid(prefix, "is not a source kind this server creates");
    };
    let body = validate::object(&source[key.as_str()], &prefix)?;
    let p = prefix.as_str();
    match kind {
        SourceKind::Kafka => kafka_source(body, p)?,
        SourceKind::ObjectStorage => object_storage_source(body, p)?,
        SourceKind::Kinesis => kinesis_source(body, p)?,
        SourceKind::Postgres => postgres_source(body, p)?,
        SourceKind::Mysql => mysql_source(body, p)?,
        SourceKind::Mongodb => mongodb_source(body, p)?,
        SourceKind::Bigquery => super::gcp::bigquery_source(body, p)?,
        SourceKind::Pubsub => super::gcp::pubsub_source(body, p)?,
    }
    Ok((kind, without_credentials(&Value::Object(body.clone()))))
}

/// A kafka source: brokers, topics, format, authentication and its offset.
fn kafka_source(body: &Map<String, Value>, p: &str) -> Check<()> {
    validate::required_string(body, "brokers", p, 4096)?;
    validate::required_string(body, "topics", p, 4096)?;
    required_enum(
        body,
        "format",
        p,
        &["JSONEachRow", "Avro", "AvroConfluent", "Protobuf"],
    )?;
    let auth = validate::enumerated(
        body,
        "authentication",
        p,
        &[
            "PLAIN",
            "SCRAM-SHA-256",
            "SCRAM-SHA-512",
            "IAM_ROLE",
            "IAM_USER",
            "MUTUAL_TLS",
        ],
    )?;
    if auth.as_deref() == Some("IAM_ROLE") {
        validate::required_string(body, "iamRole", p, 2048)?;
    }
    if let Some(offset) = body.get("offset").filter(|v| !v.is_null()) {
        let path = validate::join(p, "offset");
        let offset = validate::object(offset, &path)?;
        let strategy = required_enum(
            offset,
            "strategy",
            &path,
            &["from_beginning", "from_latest", "from_timestamp"],
        )?;
        if strategy == "from_timestamp" {
            validate::required_string(offset, "timestamp", &path, 64)?;
        }
    }
    Ok(())
}

/// An object storage source: format, compression, and where the objects are.
fn object_storage_source(body: &Map<String, Value>, p: &str) -> Check<()> {
    required_enum(
        body,
        "format",
        p,
        &[
            "JSONEachRow",
            "JSONAsObject",
            "CSV",
            "CSVWithNames",
            "TabSeparated",
            "TabSeparatedWithNames",
            "Parquet",
            "Avro",
        ],
    )?;
    validate::enumerated(
        body,
        "compression",
        p,
        &[
            "none", "gzip", "gz", "brotli", "br", "xz", "LZMA", "zstd", "auto",
        ],
    )?;
    if validate::string(body, "type", p, 64)?.as_deref() == Some("azureblobstorage") {
        validate::required_string(body, "azureContainerName", p, 1024)?;
        validate::required_string(body, "path", p, 4096)?;
        validate::required_string(body, "connectionString", p, 4096)?;
    } else {
        validate::required_string(body, "url", p, 4096)?;
    }
    Ok(())
}

/// A kinesis source: stream, region, format, iterator and authentication.
fn kinesis_source(body: &Map<String, Value>, p: &str) -> Check<()> {
    validate::required_string(body, "streamName", p, 1024)?;
    validate::required_string(body, "region", p, 64)?;
    required_enum(body, "format", p, &["JSONEachRow", "Avro", "AvroConfluent"])?;
    let iterator = required_enum(
        body,
        "iteratorType",
        p,
        &["TRIM_HORIZON", "LATEST", "AT_TIMESTAMP"],
    )?;
    if iterator == "AT_TIMESTAMP" {
        present(body, "timestamp", p)?;
    }
    match required_enum(body, "authentication", p, &["IAM_ROLE", "IAM_USER"])?.as_str() {
        "IAM_ROLE" => {
            validate::required_string(body, "iamRole", p, 2048)?;
        }
        _ => present(body, "accessKey", p)?,
    }
    Ok(())
}

/// A postgres source: host, database, credentials, replication mode and table mappings.
fn postgres_source(body: &Map<String, Value>, p: &str) -> Check<()> {
    validate::required_string(body, "host", p, 1024)?;
    validate::required_string(body, "database", p, 1024)?;
    present(body, "credentials", p)?;
    let settings_path = validate::join(p, "settings");
    let settings = validate::object(body.get("settings").unwrap_or(&Value::Null), &settings_path)?;
    required_enum(
        settings,
        "replicationMode",
        &settings_path,
        &["cdc", "snapshot", "cdc_only"],
    )?;
    match validate::array(body, "tableMappings", p)? {
        Some(items) if !items.is_empty() => {}
        _ => return invalid(validate::join(p, "tableMappings"), "is required"),
    }
    Ok(())
}

/// A database server's port (`ClickPipeMutateMySQLSource.port`).
pub(super) const PORT: Range = Range {
    field: "port",
    min: 1.0,
    max: 65535.0,
    integer: true,
};

/// A mysql pipe's replication `server_id` (`ClickPipeMutateMySQLSource.serverId`).
pub(super) const SERVER_ID: Range = Range {
    field: "serverId",
    min: 1.0,
    max: 4_294_967_295.0,
    integer: true,
};

/// A mysql source (`ClickPipeMutateMySQLSource`): host, port, credentials (or an IAM role),
/// the document's enums and ranges, settings with a replication mode, and table mappings each
/// naming its source and target.
fn mysql_source(body: &Map<String, Value>, p: &str) -> Check<()> {
    validate::required_string(body, "host", p, 1024)?;
    if validate::ranged(body, &PORT, p)?.is_none() {
        return invalid(validate::join(p, "port"), "is required");
    }
    validate::ranged(body, &SERVER_ID, p)?;
    let flavours = ["mysql", "rdsmysql", "auroramysql", "mariadb", "rdsmariadb"];
    validate::enumerated(body, "type", p, &flavours)?;
    match validate::enumerated(body, "authentication", p, &["basic", "IAM_ROLE"])?.as_deref() {
        Some("IAM_ROLE") => drop(validate::required_string(body, "iamRole", p, 2048)?),
        _ => present(body, "credentials", p)?,
    }
    let settings_path = validate::join(p, "settings");
    let settings = validate::object(body.get("settings").unwrap_or(&Value::Null), &settings_path)?;
    let modes = ["cdc", "snapshot", "cdc_only"];
    required_enum(settings, "replicationMode", &settings_path, &modes)?;
    let mechanisms = ["GTID", "FILE_POS"];
    validate::enumerated(
        settings,
        "replicationMechanism",
        &settings_path,
        &mechanisms,
    )?;
    table_mappings(body, p, ["sourceSchemaName", "sourceTable", "targetTable"])
}

/// A mongodb read preference (`ClickPipeMutateMongoDBSource.readPreference`).
pub(super) const READ_PREFERENCES: [&str; 5] = [
    "primary",
    "primaryPreferred",
    "secondary",
    "secondaryPreferred",
    "nearest",
];

/// A mongodb source (`ClickPipeMutateMongoDBSource`): uri, read preference, credentials,
/// settings with a replication mode, and collection mappings each naming its source and
/// target.
fn mongodb_source(body: &Map<String, Value>, p: &str) -> Check<()> {
    validate::required_string(body, "uri", p, 4096)?;
    required_enum(body, "readPreference", p, &READ_PREFERENCES)?;
    present(body, "credentials", p)?;
    let settings_path = validate::join(p, "settings");
    let settings = validate::object(body.get("settings").unwrap_or(&Value::Null), &settings_path)?;
    let modes = ["cdc", "snapshot", "cdc_only"];
    required_enum(settings, "replicationMode", &settings_path, &modes)?;
    table_mappings(
        body,
        p,
        ["sourceDatabaseName", "sourceCollection", "targetTable"],
    )
}

/// The destination of a create: a database always; a table and its columns for every kind
/// but database pipes.
pub(super) fn post_destination(map: &Map<String, Value>, kind: SourceKind) -> Check<Value> {
    let value = map.get("destination").unwrap_or(&Value::Null);
    let destination = validate::object(value, "destination")?;
    validate::required_string(destination, "database", "destination", 255)?;
    if !kind.is_database() {
        validate::required_string(destination, "table", "destination", 255)?;
        validate::boolean(destination, "managedTable", "destination")?;
        columns_of(
            destination.get("columns").unwrap_or(&Value::Null),
            "destination.columns",
        )?;
    }
    Ok(value.clone())
}

/// Destination columns: a non-empty list of `{name, type}`.
pub(super) fn columns_of<'a>(value: &'a Value, path: &str) -> Check<Vec<&'a str>> {
    let Some(columns) = value.as_array().filter(|c| !c.is_empty()) else {
        return invalid(path, "must list the destination's columns");
    };
    columns
        .iter()
        .enumerate()
        .map(|(i, column)| {
            let at = format!("{path}[{i}]");
            let column = validate::object(column, &at)?;
            validate::required_string(column, "type", &at, 1024)?;
            match column.get("name").and_then(Value::as_str) {
                Some(name) if !name.is_empty() => Ok(name),
                _ => invalid(validate::join(&at, "name"), "is required"),
            }
        })
        .collect()
}

/// Field mappings must name every destination column.
pub(super) fn cover_columns(destination: &Value, mappings: Option<&Vec<Value>>) -> Check<()> {
    let columns = columns_of(&destination["columns"], "destination.columns")?;
    let mapped: Vec<&str> = mappings
        .into_iter()
        .flatten()
        .filter_map(|m| m["destinationField"].as_str())
        .collect();
    match columns.iter().find(|c| !mapped.contains(c)) {
        Some(column) => invalid(
            "fieldMappings",
            format!("must map every destination column; `{column}` is not mapped"),
        ),
        None => Ok(()),
    }
}

/// Pipe settings: each key a setting of the document, in its range, of a kind that takes it;
/// nulls dropped.
pub(super) fn checked_settings(
    value: Option<&Value>,
    kind: SourceKind,
    prefix: &str,
) -> Check<Option<Map<String, Value>>> {
    let Some(value) = value.filter(|v| !v.is_null()) else {
        return Ok(None);
    };
    let map = validate::object(value, prefix)?;
    let mut kept = Map::new();
    for (key, setting) in map {
        if let Some(range) = PIPE_SETTINGS.iter().find(|r| r.field == key) {
            validate::ranged(map, range, prefix)?;
        } else if PIPE_BOOLEAN_SETTINGS.contains(&key.as_str()) {
            validate::boolean(map, key, prefix)?;
        } else {
            return invalid(validate::join(prefix, key), "is not a ClickPipe setting");
        }
        if setting.is_null() {
            continue;
        }
        if !kind.takes_setting(key) {
            return invalid(
                validate::join(prefix, key),
                format!("does not apply to {} ClickPipes", kind.as_str()),
            );
        }
        kept.insert(key.clone(), setting.clone());
    }
    Ok(Some(kept))
}

/// A source body with every credential member dropped, at any depth.
fn without_credentials(value: &Value) -> Value {
    match value {
        Value::Object(map) => Value::Object(
            map.iter()
                .filter(|(k, _)| !CREDENTIAL_MEMBERS.contains(&k.as_str()))
                .map(|(k, v)| (k.clone(), without_credentials(v)))
                .collect(),
        ),
        other => other.clone(),
    }
}
