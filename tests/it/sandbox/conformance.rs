//! Conformance of the sandbox itself: each of its routes, called directly (successes and the
//! error bodies the documents describe), checked by the suite's one [`Checker`]
//! (`tests/it/conformance`) against the public documents, request and response alike.
//!
//! The managed stack's dashboards and alerts are checked against the cloud document's
//! `ClickStack*` schemas, stack sources against `ClickStackSource`. The observability 401 is
//! plain text as `api-facts.md` says; the document gives that answer no body to check.

use converge::sandbox::SandboxOptions;
use serde_json::json;

use super::{ANALYTICS, ENDPOINT, EVENTS, ORDERS, alert, dashboard};
use crate::common::{self, Client};
use crate::conformance::Checker;

#[test]
fn responses_validate_against_the_reference_documents() {
    let Some(checker) = Checker::load() else {
        return;
    };
    let sandbox = common::sandbox(SandboxOptions {
        rate_limit: false,
        log_bodies: true,
        ..SandboxOptions::default()
    });
    let client = Client::new(&sandbox);
    let ok = |answer: &common::Answer| assert_eq!(answer.status, 200, "{}", answer.text);
    let service = format!("/services/{ANALYTICS}");

    // The cloud API's own resources.
    ok(&client.cloud("GET", "/services", None));
    ok(&client.cloud("GET", &service, None));
    ok(&client.cloud(
        "PATCH",
        &format!("{service}/scaling"),
        Some(json!({"numReplicas": 3, "idleScaling": true, "idleTimeoutMinutes": 15})),
    ));
    ok(&client.cloud(
        "POST",
        &format!("{service}/privateEndpoint"),
        Some(json!({"id": ENDPOINT, "description": "app VPC"})),
    ));
    ok(&client.cloud(
        "PATCH",
        &service,
        Some(json!({"privateEndpointIds": {"remove": [ENDPOINT]}})),
    ));
    ok(&client.cloud(
        "PATCH",
        &format!("{service}/state"),
        Some(json!({"command": "start"})),
    ));
    let backups = client.cloud("GET", &format!("{service}/backups"), None);
    ok(&backups);
    let backup = backups.result()[0]["id"].as_str().unwrap().to_string();
    ok(&client.cloud("GET", &format!("{service}/backups/{backup}"), None));
    ok(&client.cloud("GET", &format!("{service}/pipes"), None));
    ok(&client.cloud("GET", &format!("{service}/pipes/{ORDERS}"), None));
    ok(&client.cloud(
        "PATCH",
        &format!("{service}/pipes/{EVENTS}/scaling"),
        Some(json!({"concurrency": 8})),
    ));
    ok(&client.cloud("DELETE", &format!("{service}/pipes/{EVENTS}"), None));
    // The pipe lifecycle: create, change, state, settings, database-pipe compute.
    // The document's kafka `credentials` is a `oneOf` of schemas that all match any object,
    // so no credentials can pass it: this pipe authenticates by IAM role instead.
    let mut body = super::pipe_lifecycle::kafka_body("conformance");
    body["source"]["kafka"] = json!({"type": "msk", "format": "JSONEachRow",
        "brokers": "b-1.example.com:9092", "topics": "events", "authentication": "IAM_ROLE",
        "iamRole": "arn:aws:iam::123456789012:role/pipes"});
    let created = client.cloud("POST", &format!("{service}/pipes"), Some(body));
    ok(&created);
    let pipe = format!(
        "{service}/pipes/{}",
        created.result()["id"].as_str().unwrap()
    );
    ok(&client.cloud("PATCH", &pipe, Some(json!({"name": "conformance 2"}))));
    ok(&client.cloud(
        "PATCH",
        &format!("{pipe}/state"),
        Some(json!({"command": "stop"})),
    ));
    ok(&client.cloud(
        "PUT",
        &format!("{pipe}/settings"),
        Some(json!({"streaming_max_insert_wait_ms": 1000})),
    ));
    ok(&client.cloud("GET", &format!("{pipe}/settings"), None));
    ok(&client.cloud("GET", &format!("{service}/pipesCdcScaling"), None));
    ok(&client.cloud(
        "PATCH",
        &format!("{service}/pipesCdcScaling"),
        Some(json!({"replicaCpuMillicores": 1000, "replicaMemoryGb": 4})),
    ));

    // Error bodies, where the documents describe them.
    let rejected = client.cloud(
        "PATCH",
        &format!("{service}/scaling"),
        Some(json!({"numReplicas": 99})),
    );
    assert_eq!(rejected.status, 400);
    let missing = client.obs("GET", "/dashboards/000000000000000000000000", None);
    assert_eq!(missing.status, 404);
    let bad_series = client.obs("POST", "/charts/series", Some(json!({"series": []})));
    assert_eq!(bad_series.status, 400);
    let unauthorized = client.raw("GET", "/api/v2/dashboards", Some("Bearer wrong"), None);
    assert_eq!(unauthorized.status, 401);
    // Answers the documents do not list, which `api-facts.md` describes (allow-list entries).
    let no_pipe = client.cloud(
        "GET",
        &format!("{service}/pipes/00000000-0000-4000-8000-000000000000"),
        None,
    );
    assert_eq!(no_pipe.status, 404);
    let nameless = client.obs("POST", "/dashboards", Some(json!({"tiles": []})));
    assert_eq!(nameless.status, 400);
    assert_eq!(nameless.json(), json!({"message": "name: is required"}));

    // The managed stack: every operation, with the cloud envelope.
    let made = client.cloud(
        "POST",
        &format!("{service}/stack/dashboards"),
        Some(dashboard("API health", &["Requests", "Errors"])),
    );
    let made = made.result();
    let id = made["id"].as_str().unwrap().to_string();
    ok(&client.cloud("GET", &format!("{service}/stack/dashboards"), None));
    ok(&client.cloud("GET", &format!("{service}/stack/dashboards/{id}"), None));
    let updated = client
        .cloud(
            "PUT",
            &format!("{service}/stack/dashboards/{id}"),
            Some(dashboard("API health", &["Requests"])),
        )
        .result();
    let tile = updated["tiles"][0]["id"].as_str().unwrap().to_string();
    let managed_alert = client
        .cloud(
            "POST",
            &format!("{service}/stack/alerts"),
            Some(alert("API errors", &id, &tile)),
        )
        .result();
    let alert_id = managed_alert["id"].as_str().unwrap().to_string();
    ok(&client.cloud("GET", &format!("{service}/stack/alerts"), None));
    ok(&client.cloud("GET", &format!("{service}/stack/alerts/{alert_id}"), None));
    ok(&client.cloud(
        "PUT",
        &format!("{service}/stack/alerts/{alert_id}"),
        Some(alert("API errors", &id, &tile)),
    ));
    ok(&client.cloud(
        "DELETE",
        &format!("{service}/stack/alerts/{alert_id}"),
        None,
    ));
    ok(&client.cloud("DELETE", &format!("{service}/stack/dashboards/{id}"), None));
    ok(&client.cloud("GET", &format!("{service}/stack/sources"), None));

    // The observability API.
    let created = client.obs(
        "POST",
        "/dashboards",
        Some(dashboard("API health", &["Requests", "Errors"])),
    );
    let created = created.data();
    let id = created["id"].as_str().unwrap().to_string();
    ok(&client.obs("GET", "/dashboards", None));
    ok(&client.obs("GET", &format!("/dashboards/{id}"), None));
    let updated = client.obs(
        "PUT",
        &format!("/dashboards/{id}"),
        Some(dashboard("API health", &["Requests"])),
    );
    let tile = updated.data()["tiles"][0]["id"]
        .as_str()
        .unwrap()
        .to_string();
    let made_alert = client.obs("POST", "/alerts", Some(alert("API errors", &id, &tile)));
    let alert_id = made_alert.data()["id"].as_str().unwrap().to_string();
    ok(&client.obs("GET", "/alerts", None));
    ok(&client.obs("GET", &format!("/alerts/{alert_id}"), None));
    ok(&client.obs(
        "PUT",
        &format!("/alerts/{alert_id}"),
        Some(alert("API errors", &id, &tile)),
    ));
    ok(&client.obs("DELETE", &format!("/alerts/{alert_id}"), None));
    ok(&client.obs("DELETE", &format!("/dashboards/{id}"), None));
    ok(&client.obs(
        "POST",
        "/charts/series",
        Some(json!({
            "series": [{"sourceId": "s", "aggFn": "count", "where": "", "groupBy": ["service"]},
                       {"sourceId": "s", "aggFn": "avg", "field": "duration", "where": "", "groupBy": ["service"]}],
            "startTime": 1_700_000_000_000_i64,
            "endTime": 1_700_003_600_000_i64,
            "granularity": "1m"
        })),
    ));

    // The requests answered 400 were wrong on purpose: only their answers are checked.
    let mut log = sandbox.request_log();
    for entry in &mut log {
        if entry.status == 400 {
            entry.request_body = None;
        }
    }
    let report = checker.check_log(&log);
    println!(
        "sandbox conformance: {} exchanges, {} request bodies and {} response bodies validated",
        report.exchanges, report.requests, report.responses
    );
    report.assert_clean("the sandbox's routes");
    assert_eq!(report.allowed.values().sum::<usize>(), 2, "{report:?}");
    assert_eq!(report.exchanges, log.len());
    assert!(report.responses >= 35, "{report:?}");
    assert!(report.requests >= 12, "{report:?}");
}
