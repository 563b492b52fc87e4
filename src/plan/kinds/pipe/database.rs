//! What database (CDC) pipes, postgres, mysql and mongodb, share in a `PATCH`: the settings
//! changed in place, the table mappings sent as the deltas the document's
//! `ClickPipePatch*Source` takes, and the members a source of a `PATCH` must always carry
//! (`ClickPipePatchMySQLSource` requires `host` and `port`, `ClickPipePatchMongoDBSource` `uri`
//! and `readPreference`).

use serde_json::Value;

/// The source kinds that are database pipes.
pub(crate) const DATABASE_KINDS: [&str; 3] = ["postgres", "mysql", "mongodb"];

/// The postgres settings `PATCH` changes in place (`ClickPipePatchPostgresPipeSettings`).
pub(crate) const POSTGRES_PATCH_SETTINGS: [&str; 2] = ["syncIntervalSeconds", "pullBatchSize"];

/// The mysql settings `PATCH` changes in place (`ClickPipePatchMySQLPipeSettings`).
pub(crate) const MYSQL_PATCH_SETTINGS: [&str; 3] =
    ["syncIntervalSeconds", "pullBatchSize", "useCompression"];

/// The mysql source members `PATCH` takes (`ClickPipePatchMySQLSource`, credentials, settings
/// and table-mapping edits aside).
pub(crate) const MYSQL_PATCHABLE: [&str; 9] = [
    "host",
    "port",
    "authentication",
    "iamRole",
    "tlsHost",
    "caCertificate",
    "disableTls",
    "skipCertVerification",
    "serverId",
];

/// The mongodb source members `PATCH` takes (`ClickPipePatchMongoDBSource`, credentials,
/// settings and table-mapping edits aside).
pub(crate) const MONGODB_PATCHABLE: [&str; 6] = [
    "uri",
    "readPreference",
    "tlsHost",
    "disableTls",
    "skipCertVerification",
    "caCertificate",
];

/// The members a kind's `PATCH` source carries whatever changed: the document requires them.
fn patch_required(kind: &str) -> &'static [&'static str] {
    match kind {
        "mysql" => &["host", "port"],
        "mongodb" => &["uri", "readPreference"],
        _ => &[],
    }
}

/// The members a removal of a kind's table mapping names (the document requires them).
fn removal_members(kind: &str) -> [&'static str; 3] {
    match kind {
        "mongodb" => ["sourceDatabaseName", "sourceCollection", "targetTable"],
        _ => ["sourceSchemaName", "sourceTable", "targetTable"],
    }
}

/// The settings a database kind's `PATCH` changes in place (none for other kinds).
pub(crate) fn patch_settings(kind: &str) -> &'static [&'static str] {
    match kind {
        "postgres" => &POSTGRES_PATCH_SETTINGS,
        "mysql" => &MYSQL_PATCH_SETTINGS,
        "mongodb" => &POSTGRES_PATCH_SETTINGS,
        _ => &[],
    }
}

/// The database kind of a pipe body's source, if it is one.
pub(crate) fn database_kind(body: &Value) -> Option<&'static str> {
    DATABASE_KINDS.into_iter().find(|kind| {
        body.pointer(&format!("/source/{kind}"))
            .is_some_and(Value::is_object)
    })
}

/// Adds to a `PATCH` body's source the members the document requires of its kind, from
/// `after` (the declared pipe): a mysql source without `host` and `port`, or a mongodb one
/// without `uri` and `readPreference`, is refused.
pub(crate) fn complete(body: &mut Value, after: &Value) {
    let Some(kind) = database_kind(body) else {
        return;
    };
    let Some(Value::Object(source)) = body.pointer_mut(&format!("/source/{kind}")) else {
        return;
    };
    for member in patch_required(kind) {
        if let Some(value) = after.pointer(&format!("/source/{kind}/{member}")) {
            source.entry(*member).or_insert_with(|| value.clone());
        }
    }
}

/// Writes the table mappings of a database pipe into a `PATCH` body as the deltas the
/// document's PATCH takes (an existing mapping cannot be edited: a changed one is removed and
/// added again), from the live (`before`) and declared (`after`) pipes.
pub(crate) fn mapping_deltas(body: &mut Value, before: &Value, after: &Value) {
    let Some(kind) = database_kind(after) else {
        return;
    };
    let pointer = format!("/source/{kind}/tableMappings");
    let list = |value: &Value| -> Vec<Value> {
        value
            .pointer(&pointer)
            .and_then(Value::as_array)
            .cloned()
            .unwrap_or_default()
    };
    let (had, wants) = (list(before), list(after));
    // A live mapping is the declared one when it has each member the config writes: the
    // server adds defaults (`tableEngine`) the config need not write.
    let same = |live: &Value, want: &Value| {
        want.as_object().is_some_and(|want| {
            want.iter()
                .all(|(member, value)| live.get(member) == Some(value))
        })
    };
    // Removed by the three members the document requires of a removal, read from the live one.
    let remove: Vec<Value> = had
        .iter()
        .filter(|m| !wants.iter().any(|w| same(m, w)))
        .map(|m| {
            let mut removal = serde_json::Map::new();
            for member in removal_members(kind) {
                if let Some(value) = m.get(member) {
                    removal.insert(member.into(), value.clone());
                }
            }
            Value::Object(removal)
        })
        .collect();
    let add: Vec<Value> = wants
        .into_iter()
        .filter(|w| !had.iter().any(|m| same(m, w)))
        .collect();
    if !body.get("source").is_some_and(Value::is_object) {
        body["source"] = Value::Object(serde_json::Map::new());
    }
    if !body["source"].get(kind).is_some_and(Value::is_object) {
        body["source"][kind] = Value::Object(serde_json::Map::new());
    }
    body["source"][kind]["tableMappingsToRemove"] = Value::Array(remove);
    body["source"][kind]["tableMappingsToAdd"] = Value::Array(add);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_mysql_patch_source_always_carries_host_and_port() {
        let after =
            serde_json::json!({"source": {"mysql": {"host": "h", "port": 3306, "tlsHost": "t"}}});
        let mut body = serde_json::json!({"source": {"mysql": {"tlsHost": "t"}}});
        complete(&mut body, &after);
        assert_eq!(
            body,
            serde_json::json!({"source": {"mysql": {"host": "h", "port": 3306, "tlsHost": "t"}}})
        );
        let mut name_only = serde_json::json!({"name": "n"});
        complete(&mut name_only, &after);
        assert_eq!(name_only, serde_json::json!({"name": "n"}));
    }
}
