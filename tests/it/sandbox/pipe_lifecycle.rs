//! The pipe lifecycle of the sandbox over HTTP: create, change, the state machine, settings,
//! the shared compute of database pipes, slow deletes, and credentials never answered.

use std::time::Duration;

use converge::sandbox::{Quirk, SandboxOptions, Seed};
use serde_json::{Value, json};

use super::{ANALYTICS, ORDERS};
use crate::common::{self, Client};

/// A kafka pipe's create body, with a canary password.
pub fn kafka_body(name: &str) -> Value {
    json!({
        "name": name,
        "source": {"kafka": {
            "type": "confluent", "format": "JSONEachRow",
            "brokers": "b-1.example.com:9092", "topics": "events",
            "authentication": "PLAIN",
            "credentials": {"username": "u", "password": "CANARY-kafka-password"}
        }},
        "destination": {"database": "default", "table": "events", "managedTable": true,
            "columns": [{"name": "at", "type": "DateTime"}]},
        "fieldMappings": [{"sourceField": "ts", "destinationField": "at"}],
        "settings": {"streaming_max_insert_wait_ms": 5000},
        "scaling": {"replicas": 2}
    })
}

/// A postgres pipe's create body.
fn postgres_body(name: &str) -> Value {
    json!({
        "name": name,
        "source": {"postgres": {
            "host": "db.example.com", "port": 5432, "database": "shop",
            "credentials": {"username": "u", "password": "CANARY-pg-password"},
            "settings": {"replicationMode": "cdc", "syncIntervalSeconds": 60},
            "tableMappings": [{"sourceSchemaName": "public", "sourceTable": "orders",
                "targetTable": "public_orders"}]
        }},
        "destination": {"database": "shop"}
    })
}

fn pipes(service: &str) -> String {
    format!("/services/{service}/pipes")
}

fn delayed(delay: Duration) -> SandboxOptions {
    SandboxOptions {
        rate_limit: false,
        scaling_delay: delay,
        ..SandboxOptions::default()
    }
}

#[test]
fn a_created_pipe_provisions_then_runs_and_never_answers_its_credentials() {
    let sandbox = common::sandbox(delayed(Duration::from_millis(300)));
    let client = Client::new(&sandbox);
    let created = client.cloud("POST", &pipes(ANALYTICS), Some(kafka_body("events in")));
    let pipe = created.result();
    assert_eq!(pipe["state"], "Provisioning");
    assert_eq!(pipe["source"]["kafka"]["brokers"], "b-1.example.com:9092");
    assert_eq!(pipe["source"]["kafka"]["format"], "JSONEachRow");
    assert_eq!(pipe["scaling"]["replicas"], 2);
    assert!(pipe["source"]["kafka"].get("credentials").is_none());
    let id = pipe["id"].as_str().unwrap().to_string();
    assert!(uuid::Uuid::parse_str(&id).is_ok(), "{id}");
    std::thread::sleep(Duration::from_millis(400));
    let read = client.cloud("GET", &format!("{}/{id}", pipes(ANALYTICS)), None);
    assert_eq!(read.result()["state"], "Running");
    let listed = client.cloud("GET", &pipes(ANALYTICS), None);
    assert!(!listed.text.contains("CANARY"), "{}", listed.text);
    assert!(!read.text.contains("CANARY"), "{}", read.text);
    assert!(!created.text.contains("CANARY"), "{}", created.text);
}

#[test]
fn a_create_is_checked_at_the_member_that_is_wrong() {
    let sandbox = common::sandbox(delayed(Duration::ZERO));
    let client = Client::new(&sandbox);
    let cases: Vec<(Value, &str)> = vec![
        (
            {
                let mut body = kafka_body("x");
                body["source"]["kafka"]
                    .as_object_mut()
                    .unwrap()
                    .remove("topics");
                body
            },
            "BAD_REQUEST: request body.source.kafka.topics: is required",
        ),
        (
            {
                let mut body = kafka_body("x");
                body["source"]["kinesis"] = json!({"streamName": "s"});
                body
            },
            "BAD_REQUEST: request body.source: must hold exactly one of kafka, objectStorage, kinesis, pubsub, postgres, mysql, bigquery, mongodb",
        ),
        (
            {
                let mut body = kafka_body("x");
                body["settings"] = json!({"object_storage_concurrency": 4});
                body
            },
            "BAD_REQUEST: request body.settings.object_storage_concurrency: does not apply to kafka ClickPipes",
        ),
        (
            {
                let mut body = kafka_body("x");
                body["settings"] = json!({"streaming_max_insert_wait_ms": 10});
                body
            },
            "BAD_REQUEST: request body.settings.streaming_max_insert_wait_ms: must be an integer from 500 to 60000, got 10",
        ),
        (
            {
                let mut body = kafka_body("x");
                body["fieldMappings"] = json!([]);
                body
            },
            "BAD_REQUEST: request body.fieldMappings: must map every destination column; `at` is not mapped",
        ),
        (
            {
                let mut body = postgres_body("x");
                body["scaling"] = json!({"replicas": 2});
                body
            },
            "BAD_REQUEST: request body.replicas: does not apply to postgres pipes",
        ),
    ];
    let mut errors = Vec::new();
    for (body, _) in &cases {
        let answer = client.cloud("POST", &pipes(ANALYTICS), Some(body.clone()));
        assert_eq!(answer.status, 400, "{}", answer.text);
        errors.push(answer.error());
    }
    let expected: Vec<&str> = cases.iter().map(|(_, e)| *e).collect();
    assert_eq!(errors, expected);
    let listed = client.cloud("GET", &pipes(ANALYTICS), None).result();
    assert!(
        !listed.as_array().unwrap().iter().any(|p| p["name"] == "x"),
        "nothing was created"
    );
}

#[test]
fn a_patch_takes_only_what_the_document_lets_change() {
    let sandbox = common::sandbox(delayed(Duration::ZERO));
    let client = Client::new(&sandbox);
    let id = client
        .cloud("POST", &pipes(ANALYTICS), Some(kafka_body("k")))
        .result()["id"]
        .as_str()
        .unwrap()
        .to_string();
    let path = format!("{}/{id}", pipes(ANALYTICS));
    let renamed = client.cloud(
        "PATCH",
        &path,
        Some(json!({"name": "k2", "source": {"kafka": {"credentials":
            {"username": "u", "password": "CANARY-rotated"}}}})),
    );
    let pipe = renamed.result();
    assert_eq!(pipe["name"], "k2");
    assert_eq!(pipe["state"], "Modifying");
    assert!(!renamed.text.contains("CANARY"));
    let brokers = client.cloud(
        "PATCH",
        &path,
        Some(json!({"source": {"kafka": {"brokers": "other:9092"}}})),
    );
    assert_eq!(
        (brokers.status, brokers.error()),
        (
            400,
            "BAD_REQUEST: request body.source.kafka.brokers: cannot be changed; delete the ClickPipe and create it again".to_string()
        )
    );
    let kind = client.cloud(
        "PATCH",
        &path,
        Some(json!({"source": {"kinesis": {"iamRole": "r"}}})),
    );
    assert_eq!(kind.status, 400, "{}", kind.text);
    let table = client.cloud(
        "PATCH",
        &path,
        Some(json!({"destination": {"table": "other"}})),
    );
    assert_eq!(
        table.error(),
        "BAD_REQUEST: request body.destination.table: cannot be changed; delete the ClickPipe and create it again"
    );
}

#[test]
fn table_mappings_need_a_paused_pipe_and_the_server_resumes_it() {
    let sandbox = common::sandbox(delayed(Duration::ZERO));
    let client = Client::new(&sandbox);
    let id = client
        .cloud("POST", &pipes(ANALYTICS), Some(postgres_body("pg")))
        .result()["id"]
        .as_str()
        .unwrap()
        .to_string();
    let path = format!("{}/{id}", pipes(ANALYTICS));
    let add = json!({"source": {"postgres": {"tableMappingsToAdd": [{"sourceSchemaName": "public",
        "sourceTable": "items", "targetTable": "public_items"}]}}});
    let running = client.cloud("PATCH", &path, Some(add.clone()));
    assert_eq!(
        (running.status, running.error()),
        (
            400,
            "BAD_REQUEST: Postgres ClickPipe must be paused to edit".to_string()
        )
    );
    let stopped = client.cloud(
        "PATCH",
        &format!("{path}/state"),
        Some(json!({"command": "stop"})),
    );
    assert_eq!(stopped.result()["state"], "Pausing");
    assert_eq!(
        client.cloud("GET", &path, None).result()["state"],
        "Paused",
        "no delay: paused at once"
    );
    client.cloud("PATCH", &path, Some(add)).result();
    let read = client.cloud("GET", &path, None).result();
    assert_eq!(read["state"], "Running", "the server resumes it");
    assert_eq!(
        read["source"]["postgres"]["tableMappings"]
            .as_array()
            .unwrap()
            .len(),
        2
    );
}

#[test]
fn the_state_machine_starts_only_from_stopped_or_failed_and_resyncs_only_databases() {
    let sandbox = common::sandbox(delayed(Duration::ZERO));
    let client = Client::new(&sandbox);
    let kafka = client
        .cloud("POST", &pipes(ANALYTICS), Some(kafka_body("k")))
        .result()["id"]
        .as_str()
        .unwrap()
        .to_string();
    let state = format!("{}/{kafka}/state", pipes(ANALYTICS));
    let command = |c: &str| client.cloud("PATCH", &state, Some(json!({"command": c})));
    assert_eq!(
        command("start").error(),
        "BAD_REQUEST: ClickPipe is already running"
    );
    assert_eq!(
        command("resync").error(),
        "BAD_REQUEST: Resync is only supported for database ClickPipes"
    );
    assert_eq!(command("stop").result()["state"], "Stopping");
    let read = client.cloud("GET", &format!("{}/{kafka}", pipes(ANALYTICS)), None);
    assert_eq!(read.result()["state"], "Stopped");
    assert_eq!(command("start").result()["state"], "Provisioning");
    let pg = client
        .cloud("POST", &pipes(ANALYTICS), Some(postgres_body("pg")))
        .result()["id"]
        .as_str()
        .unwrap()
        .to_string();
    let resync = client.cloud(
        "PATCH",
        &format!("{}/{pg}/state", pipes(ANALYTICS)),
        Some(json!({"command": "resync"})),
    );
    assert_eq!(resync.result()["state"], "Resync");
}

#[test]
fn a_one_shot_object_storage_pipe_completes_and_then_takes_no_edit() {
    let sandbox = common::sandbox(delayed(Duration::ZERO));
    let client = Client::new(&sandbox);
    let body = json!({
        "name": "once",
        "source": {"objectStorage": {"type": "s3", "format": "CSV",
            "url": "https://b.s3.amazonaws.com/a.csv", "isContinuous": false,
            "authentication": "IAM_USER",
            "accessKey": {"accessKeyId": "id", "secretKey": "CANARY-secret-key"}}},
        "destination": {"database": "default", "table": "t", "managedTable": false,
            "columns": [{"name": "c", "type": "String"}]},
        "fieldMappings": [{"sourceField": "c", "destinationField": "c"}]
    });
    let created = client.cloud("POST", &pipes(ANALYTICS), Some(body));
    assert!(!created.text.contains("CANARY"));
    let id = created.result()["id"].as_str().unwrap().to_string();
    let path = format!("{}/{id}", pipes(ANALYTICS));
    assert_eq!(
        client.cloud("GET", &path, None).result()["state"],
        "Completed"
    );
    let edit = client.cloud("PATCH", &path, Some(json!({"name": "again"})));
    assert_eq!(
        edit.error(),
        "BAD_REQUEST: A Completed ClickPipe cannot be edited; delete it and create it again"
    );
}

#[test]
fn the_failure_quirk_leaves_created_pipes_failed_and_they_start_again() {
    let sandbox = common::sandbox(SandboxOptions {
        quirks: vec![Quirk::PipesFail],
        ..delayed(Duration::ZERO)
    });
    let client = Client::new(&sandbox);
    let id = client
        .cloud("POST", &pipes(ANALYTICS), Some(kafka_body("k")))
        .result()["id"]
        .as_str()
        .unwrap()
        .to_string();
    let path = format!("{}/{id}", pipes(ANALYTICS));
    assert_eq!(client.cloud("GET", &path, None).result()["state"], "Failed");
    let start = client.cloud(
        "PATCH",
        &format!("{path}/state"),
        Some(json!({"command": "start"})),
    );
    assert_eq!(start.result()["state"], "Provisioning");
}

#[test]
fn a_deleted_pipe_reads_as_stopping_then_is_gone() {
    let sandbox = common::sandbox(delayed(Duration::from_millis(300)));
    let client = Client::new(&sandbox);
    let path = format!("{}/{ORDERS}", pipes(ANALYTICS));
    assert_eq!(client.cloud("DELETE", &path, None).status, 200);
    assert_eq!(
        client.cloud("GET", &path, None).result()["state"],
        "Stopping"
    );
    std::thread::sleep(Duration::from_millis(400));
    assert_eq!(client.cloud("GET", &path, None).status, 404);
}

#[test]
fn settings_are_put_whole_and_checked_per_kind() {
    let sandbox = common::sandbox(delayed(Duration::ZERO));
    let client = Client::new(&sandbox);
    let id = client
        .cloud("POST", &pipes(ANALYTICS), Some(kafka_body("k")))
        .result()["id"]
        .as_str()
        .unwrap()
        .to_string();
    let path = format!("{}/{id}/settings", pipes(ANALYTICS));
    let put = client.cloud("PUT", &path, Some(json!({"db_max_threads": 8})));
    assert_eq!(put.result(), json!({"db_max_threads": 8}));
    assert_eq!(
        client.cloud("GET", &path, None).result(),
        json!({"db_max_threads": 8}),
        "the whole map is replaced"
    );
    let wrong = client.cloud("PUT", &path, Some(json!({"db_max_threads": 65})));
    assert_eq!(
        wrong.error(),
        "BAD_REQUEST: request body.db_max_threads: must be an integer from 0 to 64, got 65"
    );
}

#[test]
fn database_pipe_compute_keeps_four_gigabytes_per_core() {
    let sandbox = common::sandbox(delayed(Duration::ZERO));
    let client = Client::new(&sandbox);
    let path = format!("/services/{ANALYTICS}/pipesCdcScaling");
    assert_eq!(
        client.cloud("GET", &path, None).result(),
        json!({"replicaCpuMillicores": 2000, "replicaMemoryGb": 8})
    );
    let bad = client.cloud("PATCH", &path, Some(json!({"replicaCpuMillicores": 4000})));
    assert_eq!(
        bad.error(),
        "BAD_REQUEST: request body.replicaMemoryGb: must be 4 GB for each CPU core: 16 for 4 cores, got 8"
    );
    let partial = client.cloud(
        "PATCH",
        &path,
        Some(json!({"replicaCpuMillicores": 1500, "replicaMemoryGb": 6})),
    );
    assert_eq!(
        partial.error(),
        "BAD_REQUEST: request body.replicaCpuMillicores: must be a multiple of 1000"
    );
    let good = client.cloud(
        "PATCH",
        &path,
        Some(json!({"replicaCpuMillicores": 4000, "replicaMemoryGb": 16})),
    );
    assert_eq!(
        good.result(),
        json!({"replicaCpuMillicores": 4000, "replicaMemoryGb": 16})
    );
}

#[test]
fn every_pipe_write_answers_424_on_an_idle_service() {
    let sandbox = common::sandbox(SandboxOptions {
        seed: Seed::Large,
        ..delayed(Duration::ZERO)
    });
    let client = Client::new(&sandbox);
    let services = client.cloud("GET", "/services", None).result();
    let idle = services
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["state"] == "idle")
        .unwrap()["id"]
        .as_str()
        .unwrap()
        .to_string();
    let created = client.cloud("POST", &pipes(&idle), Some(kafka_body("k")));
    assert_eq!(created.status, 424, "{}", created.text);
    let cdc = client.cloud(
        "PATCH",
        &format!("/services/{idle}/pipesCdcScaling"),
        Some(json!({"replicaCpuMillicores": 1000, "replicaMemoryGb": 4})),
    );
    assert_eq!(cdc.status, 424, "{}", cdc.text);
}
