//! ClickPipes: the whole lifecycle. Created, changed (only what the document's PATCH schemas
//! take; table mappings of a postgres pipe only while it is paused), started, stopped and
//! resynced through a state machine, their settings put, their scaling patched, the shared
//! compute of database pipes patched, and deleted (slowly, when changes take time).
//! Credentials are checked and dropped: no answer ever holds one.

use serde_json::{Value, json};

use serde_json::Map;

use crate::api::limits::{
    CDC_CPU_MILLICORES, CDC_CPU_STEP_MILLICORES, CDC_MEMORY_GB, CDC_MEMORY_PER_CORE_GB,
    PIPE_BOOLEAN_SETTINGS, PIPE_CONCURRENCY, PIPE_CPU_MILLICORES, PIPE_MEMORY_GB, PIPE_REPLICAS,
    PIPE_SETTINGS, Range,
};
use crate::api::wire::{CompactJson, Pipe, PipeScaling, SourceKind};
use crate::sandbox::model::Quirk;
use crate::sandbox::routes::{Api, ApiError, Call, Ctx, Reply, Route, cloud_template};
use crate::sandbox::seed::{iso, uuid_from};
use crate::sandbox::store::{PipeRecord, World, apply_pipe_scaling};
use crate::sandbox::validate::{self, Check, invalid};

use super::common::{require_running, service_index, to_value};

/// The routes of pipes.
pub(super) const ROUTES: &[Route] = &[
    Route::new(
        Api::Cloud,
        "GET",
        cloud_template!("/services/{serviceId}/pipes"),
        list,
    ),
    Route::new(
        Api::Cloud,
        "POST",
        cloud_template!("/services/{serviceId}/pipes"),
        create,
    )
    .writes(),
    Route::new(
        Api::Cloud,
        "GET",
        cloud_template!("/services/{serviceId}/pipes/{pipeId}"),
        get,
    )
    .uuid_id("pipeId"),
    Route::new(
        Api::Cloud,
        "PATCH",
        cloud_template!("/services/{serviceId}/pipes/{pipeId}"),
        patch,
    )
    .writes()
    .uuid_id("pipeId"),
    Route::new(
        Api::Cloud,
        "PATCH",
        cloud_template!("/services/{serviceId}/pipes/{pipeId}/state"),
        patch_state,
    )
    .writes()
    .uuid_id("pipeId"),
    Route::new(
        Api::Cloud,
        "GET",
        cloud_template!("/services/{serviceId}/pipes/{pipeId}/settings"),
        get_settings,
    )
    .uuid_id("pipeId"),
    Route::new(
        Api::Cloud,
        "PUT",
        cloud_template!("/services/{serviceId}/pipes/{pipeId}/settings"),
        put_settings,
    )
    .writes()
    .uuid_id("pipeId"),
    Route::new(
        Api::Cloud,
        "GET",
        cloud_template!("/services/{serviceId}/pipesCdcScaling"),
        get_cdc_scaling,
    ),
    Route::new(
        Api::Cloud,
        "PATCH",
        cloud_template!("/services/{serviceId}/pipesCdcScaling"),
        patch_cdc_scaling,
    )
    .writes(),
    Route::new(
        Api::Cloud,
        "DELETE",
        cloud_template!("/services/{serviceId}/pipes/{pipeId}"),
        delete,
    )
    .writes()
    .uuid_id("pipeId"),
    Route::new(
        Api::Cloud,
        "PATCH",
        cloud_template!("/services/{serviceId}/pipes/{pipeId}/scaling"),
        patch_scaling,
    )
    .writes()
    .uuid_id("pipeId"),
];

fn list(ctx: &mut Ctx<'_>, call: &Call<'_>) -> Result<Reply, ApiError> {
    service_index(ctx, call)?;
    let pipes: Vec<Value> = ctx
        .world
        .pipes
        .iter()
        .filter(|p| p.pipe.service_id == call.service)
        .map(|p| render_pipe_record(p, ctx.quirks))
        .collect::<Result<_, _>>()?;
    Ok(Reply::Ok(Value::Array(pipes)))
}

fn get(ctx: &mut Ctx<'_>, call: &Call<'_>) -> Result<Reply, ApiError> {
    service_index(ctx, call)?;
    let pipe = find_pipe(ctx.world, call.service, call.id)?;
    Ok(Reply::Ok(render_pipe_record(
        &ctx.world.pipes[pipe],
        ctx.quirks,
    )?))
}

fn delete(ctx: &mut Ctx<'_>, call: &Call<'_>) -> Result<Reply, ApiError> {
    let index = service_index(ctx, call)?;
    let pipe = find_pipe(ctx.world, call.service, call.id)?;
    require_running(ctx.world, index)?;
    // The real API answers before teardown ends: the pipe reads as stopping for a while, then
    // is gone.
    if ctx.delay_ms <= 0 {
        ctx.world.pipes.remove(pipe);
    } else {
        let record = &mut ctx.world.pipes[pipe];
        if record.gone_at.is_none() {
            record.gone_at = Some(ctx.wall_ms.saturating_add(ctx.delay_ms));
            record.pending_states.clear();
            record.pipe.state = Some(STOPPING.into());
        }
    }
    if ctx.quirks.contains(&Quirk::IdleAfterPipeDelete) {
        ctx.world.services[index].service.state = Some("idle".into());
    }
    Ok(Reply::Deleted)
}

fn find_pipe(world: &World, service_id: &str, id: Option<&str>) -> Result<usize, ApiError> {
    world
        .pipes
        .iter()
        .position(|p| p.pipe.service_id == service_id && Some(p.pipe.id.as_str()) == id)
        .ok_or_else(|| ApiError::not_found(format!("ClickPipe {} not found", id.unwrap_or(""))))
}

/// A stored pipe as reads show it: with the scaling-gaps quirk, the members of a change still
/// in flight read back as null, as real servers briefly do.
fn render_pipe_record(record: &PipeRecord, quirks: &[Quirk]) -> Result<Value, ApiError> {
    let mut value = render_pipe(&record.pipe, quirks)?;
    if quirks.contains(&Quirk::ScalingGaps)
        && let Some((_, pending)) = &record.pending_scaling
        && let Some(scaling) = value.get_mut("scaling").and_then(Value::as_object_mut)
    {
        let changed = [
            ("replicas", pending.replicas.is_some()),
            ("concurrency", pending.concurrency.is_some()),
            (
                "replicaCpuMillicores",
                pending.replica_cpu_millicores.is_some(),
            ),
            ("replicaMemoryGb", pending.replica_memory_gb.is_some()),
        ];
        for (member, in_flight) in changed {
            if in_flight {
                scaling.insert(member.into(), Value::Null);
            }
        }
    }
    Ok(value)
}

/// A pipe as JSON, with CPU and memory as quantity strings when that quirk is on.
fn render_pipe(pipe: &Pipe, quirks: &[Quirk]) -> Result<Value, ApiError> {
    let mut value = to_value(pipe)?;
    if quirks.contains(&Quirk::QuantityStrings)
        && let Some(scaling) = value.get_mut("scaling").and_then(Value::as_object_mut)
    {
        if let Some(cpu) = scaling.get("replicaCpuMillicores").and_then(Value::as_f64) {
            scaling.insert("replicaCpuMillicores".into(), json!(format!("{cpu}m")));
        }
        if let Some(mem) = scaling.get("replicaMemoryGb").and_then(Value::as_f64) {
            scaling.insert("replicaMemoryGb".into(), json!(format!("{mem}Gi")));
        }
    }
    Ok(value)
}

fn pipe_member(
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

/// PATCH of a pipe's scaling: only the members its source kind scales, while the service
/// runs; visible after the scaling delay.
fn patch_scaling(ctx: &mut Ctx<'_>, call: &Call<'_>) -> Result<Reply, ApiError> {
    let index = service_index(ctx, call)?;
    let pipe_index = find_pipe(ctx.world, call.service, call.id)?;
    let map = validate::object(call.body, "")?;
    let kind = ctx.world.pipes[pipe_index]
        .pipe
        .source
        .as_ref()
        .and_then(|s| s.kind());
    let patch = PipeScaling {
        replicas: pipe_member(map, &PIPE_REPLICAS, kind)?.map(|v| v as i64),
        concurrency: pipe_member(map, &PIPE_CONCURRENCY, kind)?.map(|v| v as i64),
        replica_cpu_millicores: pipe_member(map, &PIPE_CPU_MILLICORES, kind)?.map(|v| v as i64),
        replica_memory_gb: pipe_member(map, &PIPE_MEMORY_GB, kind)?,
    };
    require_running(ctx.world, index)?;
    let record = &mut ctx.world.pipes[pipe_index];
    let mut answer = record.pipe.clone();
    if let Some((_, pending)) = &record.pending_scaling {
        apply_pipe_scaling(&mut answer, pending);
    }
    apply_pipe_scaling(&mut answer, &patch);
    answer.updated_at = Some(iso(ctx.now));
    record.pipe.updated_at = Some(iso(ctx.now));
    if ctx.delay_ms <= 0 {
        apply_pipe_scaling(&mut record.pipe, &patch);
    } else {
        let mut merged = record
            .pending_scaling
            .take()
            .map(|(_, p)| p)
            .unwrap_or_default();
        apply_patch_to_patch(&mut merged, &patch);
        record.pending_scaling = Some((ctx.wall_ms.saturating_add(ctx.delay_ms), merged));
    }
    Ok(Reply::Ok(render_pipe(&answer, ctx.quirks)?))
}

fn apply_patch_to_patch(into: &mut PipeScaling, patch: &PipeScaling) {
    into.replicas = patch.replicas.or(into.replicas);
    into.concurrency = patch.concurrency.or(into.concurrency);
    into.replica_cpu_millicores = patch.replica_cpu_millicores.or(into.replica_cpu_millicores);
    into.replica_memory_gb = patch.replica_memory_gb.or(into.replica_memory_gb);
}

const PROVISIONING: &str = "Provisioning";
const RUNNING: &str = "Running";
const STOPPING: &str = "Stopping";
const STOPPED: &str = "Stopped";
const PAUSING: &str = "Pausing";
const PAUSED: &str = "Paused";
const FAILED: &str = "Failed";
const COMPLETED: &str = "Completed";
const MODIFYING: &str = "Modifying";
const RESYNC: &str = "Resync";

/// The members that carry credentials, at any depth of a source: checked, never stored, so
/// never answered.
const CREDENTIAL_MEMBERS: [&str; 4] = [
    "credentials",
    "accessKey",
    "connectionString",
    "serviceAccountKey",
];

/// What `PATCH .../pipes/{id}` takes of each source kind (the cloud document's
/// `ClickPipePatch*Source`); any other member needs the pipe deleted and created again.
const PATCHABLE: [(SourceKind, &[&str]); 4] = [
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
];

/// The top-level members `PATCH .../pipes/{id}` takes.
const PATCH_MEMBERS: [&str; 5] = ["name", "source", "destination", "fieldMappings", "settings"];

/// The postgres settings a PATCH may change (`ClickPipePatchPostgresPipeSettings`).
const POSTGRES_PATCH_SETTINGS: [&str; 2] = ["syncIntervalSeconds", "pullBatchSize"];

/// Database pipes' shared compute when a service has never set it.
const DEFAULT_CDC_SCALING: PipeScaling = PipeScaling {
    replicas: None,
    concurrency: None,
    replica_cpu_millicores: Some(2000),
    replica_memory_gb: Some(8.0),
};

/// `POST .../pipes`: the whole pipe, checked as the server does; it starts provisioning.
fn create(ctx: &mut Ctx<'_>, call: &Call<'_>) -> Result<Reply, ApiError> {
    let index = service_index(ctx, call)?;
    let map = validate::object(call.body, "")?;
    let name = validate::required_string(map, "name", "", 255)?;
    let (kind, source) = post_source(map)?;
    let destination = post_destination(map, kind)?;
    if kind != SourceKind::Postgres {
        let mappings = validate::array(map, "fieldMappings", "")?;
        cover_columns(&destination, mappings)?;
    }
    let settings = checked_settings(map.get("settings"), kind, "settings")?;
    let scaling = match map.get("scaling") {
        None | Some(Value::Null) => None,
        Some(value) => {
            let scaling = validate::object(value, "scaling")?;
            Some(PipeScaling {
                replicas: pipe_member(scaling, &PIPE_REPLICAS, Some(kind))?.map(|v| v as i64),
                concurrency: pipe_member(scaling, &PIPE_CONCURRENCY, Some(kind))?.map(|v| v as i64),
                replica_cpu_millicores: pipe_member(scaling, &PIPE_CPU_MILLICORES, Some(kind))?
                    .map(|v| v as i64),
                replica_memory_gb: pipe_member(scaling, &PIPE_MEMORY_GB, Some(kind))?,
            })
        }
    };
    require_running(ctx.world, index)?;
    let counter = ctx.world.new_id();
    let id = uuid_from(&format!("{}/pipe/{counter}", call.service));
    let now = iso(ctx.now);
    let mut stored = json!({
        "id": id,
        "serviceId": call.service,
        "name": name,
        "source": {kind.as_str(): source},
        "destination": destination,
        "createdAt": now,
        "updatedAt": now,
    });
    for (member, value) in [
        ("fieldMappings", map.get("fieldMappings").cloned()),
        ("settings", settings.map(Value::Object)),
        ("scaling", scaling.map(|s| to_value(&s)).transpose()?),
    ] {
        if let (Some(value), Some(object)) = (value, stored.as_object_mut())
            && !value.is_null()
        {
            object.insert(member.into(), value);
        }
    }
    let pipe: Pipe = serde_json::from_value(stored)
        .map_err(|error| ApiError::body("source", error.to_string()))?;
    let one_shot = pipe
        .source
        .as_ref()
        .and_then(|s| s.object_storage.as_ref())
        .is_some_and(|o| o.is_continuous != Some(true));
    let fails = ctx.quirks.contains(&Quirk::PipesFail);
    let then: &[&str] = match (fails, one_shot) {
        (true, _) => &[FAILED],
        (false, true) => &[RUNNING, COMPLETED],
        (false, false) => &[RUNNING],
    };
    let mut record = PipeRecord {
        pipe,
        ..PipeRecord::default()
    };
    advance(&mut record, (ctx.wall_ms, ctx.delay_ms), PROVISIONING, then);
    let answer = answer_in(&record, PROVISIONING, ctx.quirks)?;
    ctx.world.pipes.push(record);
    Ok(Reply::Ok(answer))
}

/// `PATCH .../pipes/{id}`: only what the document's PATCH schemas take; table mappings of a
/// postgres pipe only while it is paused, after which the server resumes it.
fn patch(ctx: &mut Ctx<'_>, call: &Call<'_>) -> Result<Reply, ApiError> {
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
        edits_mappings = patch_source(&mut pipe, source, kind)?;
    }
    if kind != SourceKind::Postgres {
        let columns = pipe["destination"].clone();
        let mappings = pipe.as_object().and_then(|p| {
            p.get("fieldMappings")
                .and_then(Value::as_array)
                .map(|a| ("fieldMappings".to_string(), Value::Array(a.clone())))
        });
        let mappings: Map<String, Value> = mappings.into_iter().collect();
        cover_columns(&columns, validate::array(&mappings, "fieldMappings", "")?)?;
    }
    if edits_mappings && state != PAUSED && state != STOPPED {
        return Err(ApiError::new(
            400,
            "BAD_REQUEST",
            "Postgres ClickPipe must be paused to edit",
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
        let body = validate::object(body, &prefix)?;
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
                "settings" => {
                    let settings = validate::object(value, &path)?;
                    for (setting, v) in settings {
                        if !POSTGRES_PATCH_SETTINGS.contains(&setting.as_str()) {
                            return Err(replace_only(&validate::join(&path, setting)).into());
                        }
                        let n = validate::number(settings, setting, &path)?;
                        if n.is_some_and(|n| n < 1.0 || n.fract() != 0.0) {
                            return Err(ApiError::body(
                                validate::join(&path, setting),
                                "must be an integer of at least 1",
                            ));
                        }
                        into["settings"][setting.as_str()] = v.clone();
                    }
                }
                "tableMappingsToRemove" => {
                    edits_mappings = true;
                    let remove = validate::array(body, member, &prefix)?.cloned();
                    let mappings = into["tableMappings"]
                        .as_array()
                        .cloned()
                        .unwrap_or_default();
                    let kept: Vec<Value> = mappings
                        .into_iter()
                        .filter(|m| {
                            !remove.iter().flatten().any(|r| {
                                r["sourceSchemaName"] == m["sourceSchemaName"]
                                    && r["sourceTable"] == m["sourceTable"]
                            })
                        })
                        .collect();
                    into["tableMappings"] = Value::Array(kept);
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

/// `PATCH .../pipes/{id}/state`: `stop` from any state, `start` only from stopped or failed,
/// `resync` only for database pipes.
fn patch_state(ctx: &mut Ctx<'_>, call: &Call<'_>) -> Result<Reply, ApiError> {
    let index = service_index(ctx, call)?;
    let pipe_index = find_pipe(ctx.world, call.service, call.id)?;
    let map = validate::object(call.body, "")?;
    let command = validate::enumerated(map, "command", "", &["start", "stop", "resync"])?
        .ok_or_else(|| ApiError::body("command", "is required"))?;
    let record = &ctx.world.pipes[pipe_index];
    let state = record.pipe.state.clone().unwrap_or_default();
    let postgres = record
        .pipe
        .source
        .as_ref()
        .and_then(|s| s.kind())
        .is_some_and(|k| k == SourceKind::Postgres);
    let fails = ctx.quirks.contains(&Quirk::PipesFail);
    let (now, then): (&str, &[&str]) = match command.as_str() {
        "stop" if state == STOPPED || state == PAUSED => (state.as_str(), &[]),
        "stop" if postgres => (PAUSING, &[PAUSED]),
        "stop" => (STOPPING, &[STOPPED]),
        "start" if state == RUNNING => {
            return Err(ApiError::new(
                400,
                "BAD_REQUEST",
                "ClickPipe is already running",
            ));
        }
        "start" if [STOPPED, PAUSED, FAILED].contains(&state.as_str()) => {
            (PROVISIONING, if fails { &[FAILED] } else { &[RUNNING] })
        }
        "start" => {
            return Err(ApiError::new(
                400,
                "BAD_REQUEST",
                format!(
                    "ClickPipe can only be started when Stopped or Failed. Current state: {state}"
                ),
            ));
        }
        _ if !postgres => {
            return Err(ApiError::new(
                400,
                "BAD_REQUEST",
                "Resync is only supported for database ClickPipes",
            ));
        }
        _ => (RESYNC, &[RUNNING]),
    };
    require_running(ctx.world, index)?;
    let now = now.to_string();
    let clock = (ctx.wall_ms, ctx.delay_ms);
    let record = &mut ctx.world.pipes[pipe_index];
    record.pipe.updated_at = Some(iso(ctx.now));
    advance(record, clock, &now, then);
    let answer = answer_in(record, &now, ctx.quirks)?;
    if command == "stop" && ctx.quirks.contains(&Quirk::IdleAfterPipeStop) {
        ctx.world.services[index].service.state = Some("idle".into());
    }
    Ok(Reply::Ok(answer))
}

fn get_settings(ctx: &mut Ctx<'_>, call: &Call<'_>) -> Result<Reply, ApiError> {
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
fn put_settings(ctx: &mut Ctx<'_>, call: &Call<'_>) -> Result<Reply, ApiError> {
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

fn get_cdc_scaling(ctx: &mut Ctx<'_>, call: &Call<'_>) -> Result<Reply, ApiError> {
    service_index(ctx, call)?;
    let scaling = ctx
        .world
        .cdc_scaling
        .get(call.service)
        .unwrap_or(&DEFAULT_CDC_SCALING);
    Ok(Reply::Ok(to_value(scaling)?))
}

/// `PATCH .../pipesCdcScaling`: CPU and memory of the service's database pipes, memory 4 GB
/// for each CPU core.
fn patch_cdc_scaling(ctx: &mut Ctx<'_>, call: &Call<'_>) -> Result<Reply, ApiError> {
    let index = service_index(ctx, call)?;
    let map = validate::object(call.body, "")?;
    let cpu = validate::ranged(map, &CDC_CPU_MILLICORES, "")?;
    if cpu.is_some_and(|cpu| cpu % CDC_CPU_STEP_MILLICORES != 0.0) {
        return validate::invalid(
            CDC_CPU_MILLICORES.field,
            format!("must be a multiple of {CDC_CPU_STEP_MILLICORES}"),
        )
        .map_err(ApiError::from);
    }
    let memory = validate::ranged(map, &CDC_MEMORY_GB, "")?;
    let current = ctx
        .world
        .cdc_scaling
        .get(call.service)
        .unwrap_or(&DEFAULT_CDC_SCALING);
    let next = PipeScaling {
        replica_cpu_millicores: cpu.map(|v| v as i64).or(current.replica_cpu_millicores),
        replica_memory_gb: memory.or(current.replica_memory_gb),
        ..PipeScaling::default()
    };
    let cores = next.replica_cpu_millicores.unwrap_or(0) as f64 / 1000.0;
    let gb = next.replica_memory_gb.unwrap_or(0.0);
    if (gb - cores * CDC_MEMORY_PER_CORE_GB).abs() > f64::EPSILON {
        return validate::invalid(
            "replicaMemoryGb",
            format!(
                "must be {} GB for each CPU core: {} for {cores} cores, got {gb}",
                CDC_MEMORY_PER_CORE_GB,
                cores * CDC_MEMORY_PER_CORE_GB
            ),
        )
        .map_err(ApiError::from);
    }
    require_running(ctx.world, index)?;
    let answer = to_value(&next)?;
    ctx.world.cdc_scaling.insert(call.service.to_string(), next);
    Ok(Reply::Ok(answer))
}

/// Shows `now` and schedules `then`, one scaling delay apart from the wall clock (`clock` is
/// the epoch ms and the delay); with no delay the last state shows at once.
fn advance(record: &mut PipeRecord, clock: (i64, i64), now: &str, then: &[&str]) {
    let (wall_ms, delay_ms) = clock;
    record.pending_states.clear();
    record.pipe.state = Some(now.to_string());
    if delay_ms <= 0 {
        if let Some(last) = then.last() {
            record.pipe.state = Some((*last).to_string());
        }
        return;
    }
    let mut at = wall_ms;
    for state in then {
        at = at.saturating_add(delay_ms);
        record.pending_states.push((at, (*state).to_string()));
    }
}

/// The answer to a write: the pipe as stored, in the state the write started it in.
fn answer_in(record: &PipeRecord, state: &str, quirks: &[Quirk]) -> Result<Value, ApiError> {
    let mut value = render_pipe_record(record, quirks)?;
    value["state"] = json!(state);
    Ok(value)
}

fn replace_only(path: &str) -> validate::Invalid {
    validate::Invalid {
        field: path.to_string(),
        message: "cannot be changed; delete the ClickPipe and create it again".into(),
    }
}

/// A finished one-shot pipe takes no edit.
fn refuse_finished(state: &str, what: &str) -> Result<(), ApiError> {
    if state == COMPLETED {
        return Err(ApiError::new(
            400,
            "BAD_REQUEST",
            format!("A Completed ClickPipe cannot be {what}; delete it and create it again"),
        ));
    }
    Ok(())
}

/// The one source kind of a create, checked for the members its kind requires; returned
/// without its credentials.
fn post_source(map: &Map<String, Value>) -> Check<(SourceKind, Value)> {
    let source = validate::object(map.get("source").unwrap_or(&Value::Null), "source")?;
    let named: Vec<&String> = source.keys().filter(|k| *k != "validateSamples").collect();
    let [key] = named.as_slice() else {
        return invalid(
            "source",
            "must hold exactly one of kafka, objectStorage, kinesis, postgres",
        );
    };
    let prefix = validate::join("source", key);
    let Some(kind) = SourceKind::from_key(key) else {
        return invalid(prefix, "is not a source kind this server creates");
    };
    let body = validate::object(&source[key.as_str()], &prefix)?;
    let p = prefix.as_str();
    match kind {
        SourceKind::Kafka => {
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
        }
        SourceKind::ObjectStorage => {
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
        }
        SourceKind::Kinesis => {
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
        }
        SourceKind::Postgres => {
            validate::required_string(body, "host", p, 1024)?;
            validate::required_string(body, "database", p, 1024)?;
            present(body, "credentials", p)?;
            let settings_path = validate::join(p, "settings");
            let settings =
                validate::object(body.get("settings").unwrap_or(&Value::Null), &settings_path)?;
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
        }
    }
    Ok((kind, without_credentials(&Value::Object(body.clone()))))
}

/// The destination of a create: a database always; a table and its columns for every kind
/// but database pipes.
fn post_destination(map: &Map<String, Value>, kind: SourceKind) -> Check<Value> {
    let value = map.get("destination").unwrap_or(&Value::Null);
    let destination = validate::object(value, "destination")?;
    validate::required_string(destination, "database", "destination", 255)?;
    if kind != SourceKind::Postgres {
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
fn columns_of<'a>(value: &'a Value, path: &str) -> Check<Vec<&'a str>> {
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
fn cover_columns(destination: &Value, mappings: Option<&Vec<Value>>) -> Check<()> {
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
fn checked_settings(
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

fn required_enum(
    map: &Map<String, Value>,
    key: &str,
    prefix: &str,
    allowed: &[&str],
) -> Check<String> {
    validate::enumerated(map, key, prefix, allowed)?
        .map_or_else(|| invalid(validate::join(prefix, key), "is required"), Ok)
}

fn present(map: &Map<String, Value>, key: &str, prefix: &str) -> Check<()> {
    match map.get(key) {
        None | Some(Value::Null) => invalid(validate::join(prefix, key), "is required"),
        Some(_) => Ok(()),
    }
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
