//! The request bodies of a pipe's steps built from a change's fields (scaling, settings, the
//! shared compute, a lifecycle's PATCH): the planner builds each, and the saved-plan check
//! builds it again from the saved change and compares.

use serde_json::Value;

use crate::api::wire::PipeScalingPatch;

use super::class::{Class, class_of};
use super::database::{complete, mapping_deltas};
use super::patch::patch_body;

/// The scaling body that writes each `(field, desired value)`: the planner builds it from a
/// change's fields, the saved-plan check builds it again from the saved change and compares.
pub(crate) fn scaling_body<'a>(
    fields: impl IntoIterator<Item = (&'a str, Option<&'a Value>)>,
) -> PipeScalingPatch {
    let mut body = PipeScalingPatch::default();
    for (path, after) in fields {
        match path {
            "replicas" => body.replicas = after.and_then(Value::as_i64),
            "concurrency" => body.concurrency = after.and_then(Value::as_i64),
            "replicaCpuMillicores" => body.replica_cpu_millicores = after.and_then(Value::as_i64),
            "replicaMemoryGb" => body.replica_memory_gb = after.and_then(Value::as_f64),
            _ => {}
        }
    }
    body
}

/// The settings map a `PUT .../settings` sends: the live settings (unset ones, read back as
/// null, left out) with the declared ones written over them, since the server replaces the
/// whole map and a setting the config does not name is left as it is.
pub(crate) fn settings_body(live: Option<&Value>, declared: &Value) -> Value {
    let mut body: serde_json::Map<String, Value> = live
        .and_then(Value::as_object)
        .into_iter()
        .flatten()
        .filter(|(_, value)| !value.is_null())
        .map(|(key, value)| (key.clone(), value.clone()))
        .collect();
    for (key, value) in declared.as_object().into_iter().flatten() {
        body.insert(key.clone(), value.clone());
    }
    Value::Object(body)
}

/// The members of `services.<key>.pipeCompute` (wire names).
pub(crate) const COMPUTE_FIELDS: &[&str] = &["replicaCpuMillicores", "replicaMemoryGb"];

/// The `PATCH .../pipesCdcScaling` body that writes each `(field, desired value)` of a change:
/// the planner builds it, the saved-plan check builds it again and compares.
pub(crate) fn compute_body<'a>(
    fields: impl IntoIterator<Item = (&'a str, Option<&'a Value>)>,
) -> PipeScalingPatch {
    let mut body = PipeScalingPatch::default();
    for (path, after) in fields {
        match path {
            "replicaCpuMillicores" => body.replica_cpu_millicores = after.and_then(Value::as_i64),
            "replicaMemoryGb" => body.replica_memory_gb = after.and_then(Value::as_f64),
            _ => {}
        }
    }
    body
}

/// The `PATCH` body of a `PipeOp::Lifecycle` from its change: the in-place fields as
/// [`patch_body`] writes them, and the postgres table mappings as the deltas the document's
/// PATCH takes (an existing mapping cannot be edited: a changed one is removed and added
/// again). Empty when only the state changes. The planner builds it, the saved-plan check
/// builds it again.
pub(crate) fn lifecycle_body<'a>(
    before: &Value,
    after: &Value,
    paths: impl IntoIterator<Item = &'a str>,
) -> Value {
    let mut in_place = Vec::new();
    let mut mappings = false;
    for path in paths {
        match class_of(path).0 {
            Class::NeedsPause => mappings = true,
            Class::InPlace if path != "state" => in_place.push(path),
            Class::InPlace | Class::Replace => {}
        }
    }
    let mut body = patch_body(after, in_place);
    if !mappings {
        return body;
    }
    mapping_deltas(&mut body, before, after);
    complete(&mut body, after);
    body
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_lifecycle_body_sends_only_the_mapping_deltas() {
        let before = serde_json::json!({"source": {"postgres": {"tableMappings": [
            {"sourceSchemaName": "public", "sourceTable": "orders", "targetTable": "o", "tableEngine": "ReplacingMergeTree"},
            {"sourceSchemaName": "public", "sourceTable": "users", "targetTable": "u"}]}},
            "state": "running"});
        let after = serde_json::json!({"source": {"postgres": {"tableMappings": [
            {"sourceSchemaName": "public", "sourceTable": "users", "targetTable": "u"},
            {"sourceSchemaName": "public", "sourceTable": "items", "targetTable": "i"}]}},
            "state": "stopped"});
        let body = lifecycle_body(&before, &after, ["source.postgres.tableMappings", "state"]);
        assert_eq!(
            body,
            serde_json::json!({"source": {"postgres": {
                "tableMappingsToRemove": [{"sourceSchemaName": "public", "sourceTable": "orders", "targetTable": "o"}],
                "tableMappingsToAdd": [{"sourceSchemaName": "public", "sourceTable": "items", "targetTable": "i"}]}}})
        );
        assert_eq!(
            lifecycle_body(&before, &after, ["state"]),
            serde_json::json!({})
        );
    }

    #[test]
    fn a_settings_body_keeps_the_live_settings_the_config_does_not_name() {
        let live = serde_json::json!({"db_max_threads": 8, "object_storage_concurrency": 4,
            "db_max_insert_threads": null});
        let body = settings_body(Some(&live), &serde_json::json!({"db_max_threads": 16}));
        assert_eq!(
            body,
            serde_json::json!({"db_max_threads": 16, "object_storage_concurrency": 4})
        );
        assert_eq!(settings_body(None, &Value::Null), serde_json::json!({}));
    }

    #[test]
    fn a_compute_body_writes_only_the_fields_it_is_given() {
        let cpu = Value::from(4000);
        let body = compute_body([("replicaCpuMillicores", Some(&cpu))]);
        assert_eq!(body.replica_cpu_millicores, Some(4000));
        assert_eq!(body.replica_memory_gb, None);
    }

    #[test]
    fn a_patch_body_writes_whole_members() {
        let after = serde_json::json!({"source": {"kafka": {"iamRole": "r", "brokers": "b"}},
            "destination": {"columns": [{"name": "a", "type": "String"}]},
            "settings": {"db_max_threads": 4}});
        let body = patch_body(
            &after,
            [
                "source.kafka.iamRole",
                // A column's member, as the diff names it: the whole array is sent.
                "destination.columns[a].type",
                "settings.db_max_threads",
            ],
        );
        assert_eq!(
            body,
            serde_json::json!({"source": {"kafka": {"iamRole": "r"}},
                "destination": {"columns": [{"name": "a", "type": "String"}]},
                "settings": {"db_max_threads": 4}})
        );
    }
}
