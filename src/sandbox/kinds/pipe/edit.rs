//! Changes of a pipe: `PATCH .../pipes/{id}` (only what the document's PATCH schemas take) and
//! its settings, read and put whole.

use serde_json::{Map, Value, json};

use crate::api::wire::{CompactJson, Pipe, SourceKind};
use crate::sandbox::kinds::common::{require_running, service_index, to_value};
use crate::sandbox::model::Quirk;
use crate::sandbox::routes::{ApiError, Call, Ctx, Reply};
use crate::sandbox::seed::iso;
use crate::sandbox::validate;

use super::check::{CREDENTIAL_MEMBERS, checked_settings, columns_of, cover_columns};
use super::stored::{
    MODIFYING, PAUSED, RUNNING, STOPPED, advance, answer_in, find_pipe, refuse_finished,
};

/// What `PATCH .../pipes/{id}` takes of each source kind (the cloud document's
/// `ClickPipePatch*Source`); any other member needs the pipe deleted and created again.
const PATCHABLE: [(SourceKind, &[&str]); 7] = [
    (
        SourceKind::Kafka,
        &[
            "authentication",
            "iamRole",
            "caCertificate",
            "reversePrivateEndpointIds",
            "credentials",
        ],
    ),
    (
        SourceKind::ObjectStorage,
        &[
            "skipInitialLoad",
            "startAfter",
            "authentication",
            "iamRole",
            "connectionString",
            "path",
            "azureContainerName",
            "accessKey",
            "serviceAccountKey",
        ],
    ),
    (
        SourceKind::Kinesis,
        &["authentication", "iamRole", "accessKey"],
    ),
    (
        SourceKind::Pubsub,
        &["authentication", "ackDeadline", "serviceAccountKey"],
    ),
    (
        SourceKind::Postgres,
        &[
            "credentials",
            "host",
            "port",
            "database",
            "tlsHost",
            "caCertificate",
            "disableTls",
            "skipCertVerification",
            "settings",
            "tableMappingsToAdd",
            "tableMappingsToRemove",
        ],
    ),
    (
        SourceKind::Mysql,
        &[
            "credentials",
            "host",
            "port",
            "authentication",
            "iamRole",
            "tlsHost",
            "caCertificate",
            "disableTls",
            "skipCertVerification",
            "serverId",
            "settings",
            "tableMappingsToAdd",
            "tableMappingsToRemove",
        ],
    ),
    (
        SourceKind::Mongodb,
        &[
            "credentials",
            "uri",
            "readPreference",
            "tlsHost",
            "disableTls",
            "skipCertVerification",
            "caCertificate",
            "settings",
            "tableMappingsToAdd",
            "tableMappingsToRemove",
        ],
    ),
];

/// The top-level members `PATCH .../pipes/{id}` takes.
const PATCH_MEMBERS: [&str; 5] = ["name", "source", "destination", "fieldMappings", "settings"];

/// The settings a PATCH may change, by database kind (`ClickPipePatchPostgresPipeSettings`,
/// `ClickPipePatchMySQLPipeSettings`).
fn patch_settings(kind: SourceKind) -> &'static [&'static str] {
    match kind {
        SourceKind::Postgres | SourceKind::Mongodb => &["syncIntervalSeconds", "pullBatchSize"],
        SourceKind::Mysql => &["syncIntervalSeconds", "pullBatchSize", "useCompression"],
        _ => &[],
    }
}

/// `PATCH .../pipes/{id}`: only what the document's PATCH schemas take; table mappings of a
/// database pipe only while it is paused, after which the server resumes it.
pub(super) fn patch(ctx: &mut Ctx<'_>, call: &Call<'_>) -> Result<Reply, ApiError> {
    let index = service_index(ctx, call)?;
    let pipe_index = find_pipe(ctx.world, call.service, call.id)?;
    let map = validate::object(call.body, "")?;
    if let Some(member) = map.keys().find(|k| !PATCH_MEMBERS.contains(&k.as_str())) {
        return Err(replace_only(member).into());
    }
    let record = &ctx.world.pipes[pipe_index];
    let state = record.pipe.state.clone().unwrap_or_default();
    refuse_finished(&state, "edited")?;
    let kind = record
        .pipe
        .source
        .as_ref()
        .and_then(|s| s.kind())
        .ok_or_else(|| ApiError::body("source", "the ClickPipe's source cannot be changed"))?;
    let mut pipe = to_value(&record.pipe)?;
    let edits_mappings = edit_members(&mut pipe, map, kind)?;
    crate::sandbox::kinds::reverse_endpoint::check_named(ctx, call.service, &pipe["source"])?;
    if edits_mappings && state != PAUSED && state != STOPPED {
        return Err(ApiError::new(
            400,
            "BAD_REQUEST",
            format!("{} ClickPipe must be paused to edit", database_name(kind)),
        ));
    }
    if edits_mappings && ctx.quirks.contains(&Quirk::PipeEditsRefused) {
        return Err(ApiError::new(
            400,
            "BAD_REQUEST",
            "Table mappings could not be changed: a source table does not exist",
        ));
    }
    require_running(ctx.world, index)?;
    pipe["updatedAt"] = json!(iso(ctx.now));
    let updated: Pipe = serde_json::from_value(pipe)
        .map_err(|error| ApiError::new(500, "INTERNAL_SERVER_ERROR", error.to_string()))?;
    let clock = (ctx.wall_ms, ctx.delay_ms);
    let record = &mut ctx.world.pipes[pipe_index];
    record.pipe = updated;
    // A table-mapping edit resumes the paused pipe; any edit of a running one modifies it.
    let shown = if edits_mappings || state == RUNNING {
        advance(record, clock, MODIFYING, &[RUNNING]);
        MODIFYING
    } else {
        state.as_str()
    };
    Ok(Reply::Ok(answer_in(record, shown, ctx.quirks)?))
}

/// The members of a PATCH applied to the stored pipe, `pipe`, each checked as the server does,
/// and its field mappings checked to cover the destination's columns still; whether it edits
/// table mappings.
fn edit_members(
    pipe: &mut Value,
    map: &Map<String, Value>,
    kind: SourceKind,
) -> Result<bool, ApiError> {
    if let Some(name) = validate::string(map, "name", "", 255)? {
        if name.is_empty() {
            return Err(ApiError::body("name", "must not be empty"));
        }
        pipe["name"] = json!(name);
    }
    if let Some(settings) = checked_settings(map.get("settings"), kind, "settings")? {
        let into = pipe["settings"].as_object().cloned().unwrap_or_default();
        pipe["settings"] = Value::Object(into.into_iter().chain(settings).collect());
    }
    if let Some(destination) = map.get("destination").filter(|v| !v.is_null()) {
        let destination = validate::object(destination, "destination")?;
        if let Some(member) = destination.keys().find(|k| k.as_str() != "columns") {
            return Err(replace_only(&validate::join("destination", member)).into());
        }
        if let Some(columns) = destination.get("columns") {
            columns_of(columns, "destination.columns")?;
            pipe["destination"]["columns"] = columns.clone();
        }
    }
    if let Some(mappings) = map.get("fieldMappings").filter(|v| !v.is_null()) {
        validate::array(map, "fieldMappings", "")?;
        pipe["fieldMappings"] = mappings.clone();
    }
    let mut edits_mappings = false;
    if let Some(source) = map.get("source").filter(|v| !v.is_null()) {
        edits_mappings = patch_source(pipe, source, kind)?;
    }
    if !kind.is_database() {
        let columns = pipe["destination"].clone();
        let mappings = pipe.as_object().and_then(|p| {
            p.get("fieldMappings")
                .and_then(Value::as_array)
                .map(|a| ("fieldMappings".to_string(), Value::Array(a.clone())))
        });
        let mappings: Map<String, Value> = mappings.into_iter().collect();
        cover_columns(&columns, validate::array(&mappings, "fieldMappings", "")?)?;
    }
    Ok(edits_mappings)
}

/// The source members of a PATCH applied to the stored pipe (credentials checked and
/// dropped); whether it edits table mappings.
fn patch_source(pipe: &mut Value, source: &Value, kind: SourceKind) -> Result<bool, ApiError> {
    let source = validate::object(source, "source")?;
    let mut edits_mappings = false;
    for (key, body) in source {
        if key == "validateSamples" {
            validate::boolean(source, key, "source")?;
            continue;
        }
        let prefix = validate::join("source", key);
        if key != kind.as_str() {
            return Err(ApiError::body(
                prefix,
                format!(
                    "the ClickPipe's source is {}; a source kind cannot be changed, delete the ClickPipe and create it again",
                    kind.as_str()
                ),
            ));
        }
        if kind == SourceKind::Bigquery {
            // `ClickPipePatchSource` has no bigquery member.
            return Err(replace_only(&prefix).into());
        }
        let body = validate::object(body, &prefix)?;
        // `ClickPipePatchMySQLSource` and `ClickPipePatchMongoDBSource` require them whatever
        // else changes.
        patch_required(body, &prefix, kind)?;
        // Removals first: a mapping removed and added again in one PATCH is an edited one.
        let mut members: Vec<(&String, &Value)> = body.iter().collect();
        members.sort_by_key(|(member, _)| member.as_str() == "tableMappingsToAdd");
        let takes = PATCHABLE
            .iter()
            .find(|(k, _)| *k == kind)
            .map_or(&[][..], |(_, members)| *members);
        for (member, value) in members {
            let path = validate::join(&prefix, member);
            if !takes.contains(&member.as_str()) {
                return Err(replace_only(&path).into());
            }
            if CREDENTIAL_MEMBERS.contains(&member.as_str()) || value.is_null() {
                continue;
            }
            let into = &mut pipe["source"][kind.as_str()];
            match member.as_str() {
                "settings" => patch_database_settings(into, value, &path, kind)?,
                "tableMappingsToRemove" => {
                    edits_mappings = true;
                    let remove = validate::array(body, member, &prefix)?.cloned();
                    remove_mappings(into, remove.iter().flatten());
                }
                "tableMappingsToAdd" => {
                    edits_mappings = true;
                    let add = validate::array(body, member, &prefix)?.cloned();
                    let mut mappings = into["tableMappings"]
                        .as_array()
                        .cloned()
                        .unwrap_or_default();
                    mappings.extend(add.into_iter().flatten());
                    into["tableMappings"] = Value::Array(mappings);
                }
                _ => into[member.as_str()] = value.clone(),
            }
        }
    }
    Ok(edits_mappings)
}

/// The settings of a database pipe's PATCH (`syncIntervalSeconds`, `pullBatchSize`, integers
/// of at least 1; mysql's `useCompression`, a boolean) written into the stored source, `into`.
fn patch_database_settings(
    into: &mut Value,
    value: &Value,
    path: &str,
    kind: SourceKind,
) -> Result<(), ApiError> {
    let settings = validate::object(value, path)?;
    for (setting, v) in settings {
        if !patch_settings(kind).contains(&setting.as_str()) {
            return Err(replace_only(&validate::join(path, setting)).into());
        }
        if setting == "useCompression" {
            validate::boolean(settings, setting, path)?;
            into["settings"][setting.as_str()] = v.clone();
            continue;
        }
        let n = validate::number(settings, setting, path)?;
        if n.is_some_and(|n| n < 1.0 || n.fract() != 0.0) {
            return Err(ApiError::body(
                validate::join(path, setting),
                "must be an integer of at least 1",
            ));
        }
        into["settings"][setting.as_str()] = v.clone();
    }
    Ok(())
}

/// How the server names a database kind in its messages.
fn database_name(kind: SourceKind) -> &'static str {
    match kind {
        SourceKind::Mysql => "MySQL",
        SourceKind::Mongodb => "MongoDB",
        _ => "Postgres",
    }
}

/// What a source of a PATCH must carry: a mysql one `host` and `port`
/// (`ClickPipePatchMySQLSource`), a mongodb one `uri` and `readPreference`
/// (`ClickPipePatchMongoDBSource`), each of its kind and range.
fn patch_required(
    body: &Map<String, Value>,
    prefix: &str,
    kind: SourceKind,
) -> Result<(), ApiError> {
    if kind == SourceKind::Pubsub {
        return Ok(super::gcp::pubsub_patch(body, prefix)?);
    }
    if kind == SourceKind::Mongodb {
        validate::required_string(body, "uri", prefix, 4096)?;
        let preferences = &super::check::READ_PREFERENCES;
        if validate::enumerated(body, "readPreference", prefix, preferences)?.is_none() {
            let path = validate::join(prefix, "readPreference");
            return Err(ApiError::body(path, "is required"));
        }
        return Ok(());
    }
    if kind != SourceKind::Mysql {
        return Ok(());
    }
    validate::required_string(body, "host", prefix, 1024)?;
    if validate::ranged(body, &super::check::PORT, prefix)?.is_none() {
        return Err(ApiError::body(
            validate::join(prefix, "port"),
            "is required",
        ));
    }
    validate::ranged(body, &super::check::SERVER_ID, prefix)?;
    Ok(())
}

/// Drops from the stored source, `into`, each table mapping of the same schema and table as
/// one of `remove`.
fn remove_mappings<'r>(into: &mut Value, remove: impl Iterator<Item = &'r Value> + Clone) {
    let mappings = into["tableMappings"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    let kept: Vec<Value> = mappings
        .into_iter()
        .filter(|m| {
            !remove.clone().any(|r| {
                // Postgres and mysql name a schema and table, mongodb a database and collection.
                [
                    "sourceSchemaName",
                    "sourceTable",
                    "sourceDatabaseName",
                    "sourceCollection",
                ]
                .iter()
                .all(|member| r.get(member) == m.get(member))
            })
        })
        .collect();
    into["tableMappings"] = Value::Array(kept);
}

fn replace_only(path: &str) -> validate::Invalid {
    validate::Invalid {
        field: path.to_string(),
        message: "cannot be changed; delete the ClickPipe and create it again".into(),
    }
}

pub(super) fn get_settings(ctx: &mut Ctx<'_>, call: &Call<'_>) -> Result<Reply, ApiError> {
    service_index(ctx, call)?;
    let pipe = find_pipe(ctx.world, call.service, call.id)?;
    Ok(Reply::Ok(
        ctx.world.pipes[pipe]
            .pipe
            .settings
            .as_ref()
            .map_or_else(|| json!({}), CompactJson::value),
    ))
}

/// `PUT .../pipes/{id}/settings`: the whole map, each key range-checked and only for the kinds
/// that take it.
pub(super) fn put_settings(ctx: &mut Ctx<'_>, call: &Call<'_>) -> Result<Reply, ApiError> {
    let index = service_index(ctx, call)?;
    let pipe_index = find_pipe(ctx.world, call.service, call.id)?;
    let record = &ctx.world.pipes[pipe_index];
    refuse_finished(record.pipe.state.as_deref().unwrap_or(""), "changed")?;
    let kind = record
        .pipe
        .source
        .as_ref()
        .and_then(|s| s.kind())
        .unwrap_or(SourceKind::Kafka);
    validate::object(call.body, "")?;
    let settings = checked_settings(Some(call.body), kind, "")?.unwrap_or_default();
    require_running(ctx.world, index)?;
    let record = &mut ctx.world.pipes[pipe_index];
    let settings = Value::Object(settings);
    record.pipe.settings = Some(CompactJson::new(&settings));
    record.pipe.updated_at = Some(iso(ctx.now));
    Ok(Reply::Ok(settings))
}
