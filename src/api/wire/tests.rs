//! Reading and writing the wire types as the servers do.

use serde_json::Value;

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
