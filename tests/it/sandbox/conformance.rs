//! Conformance: the sandbox's response bodies validate against the reference OpenAPI documents
//! in `../shared/reference/` for the shapes the contract shares with them.
//!
//! - `cloud-api.openapi.json` (3.1): the whole 200 response of each cloud operation, envelope
//!   included: services (list, get, PATCH, scaling, state), private endpoint creation, backups
//!   (list, get), pipes (list, get, scaling, delete). Its dashboard and alert schemas are of a
//!   newer generation than the contract (tiles carry `config`); the contract's shapes win, so the
//!   managed stack's `result` is checked against the observability document's `Dashboard` and
//!   `Alert` instead. Stack sources are not checked (the newer document's source schemas are not
//!   the contract's).
//! - `observability-api.openapi.json` (3.0): the 200 responses of dashboards (list, create, get,
//!   update, delete), alerts (list, create, get, update, delete) and charts/series.
//!
//! Error bodies are checked where the documents describe them (cloud 400, observability 404,
//! charts/series 400); the observability 401 is plain text as `api-facts.md` says, not the
//! document's JSON. Formats (`uuid`, `date-time`) are asserted. Without `../shared` the test prints why it
//! skipped.

use std::path::PathBuf;

use serde_json::{Value, json};

use super::{ANALYTICS, ENDPOINT, EVENTS, ORDERS, alert, dashboard};
use crate::common::{self, Answer, Client};

fn reference_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../shared/reference")
}

fn load(name: &str) -> Option<Value> {
    let text = std::fs::read_to_string(reference_dir().join(name)).ok()?;
    Some(serde_json::from_str(&text).expect("the reference document is JSON"))
}

/// Validates `instance` against `schema` with the document's components embedded, so
/// `#/components/schemas/...` references resolve.
fn check(document: &Value, schema: &Value, instance: &Value, what: &str) {
    let errors = errors(document, schema, instance, what);
    assert!(errors.is_empty(), "{what}: {errors:#?}\n{instance:#}");
}

fn errors(document: &Value, schema: &Value, instance: &Value, what: &str) -> Vec<String> {
    let mut root = schema.clone();
    if let Some(object) = root.as_object_mut() {
        object.insert("components".into(), document["components"].clone());
    }
    let validator = jsonschema::options()
        .should_validate_formats(true)
        .build(&root)
        .unwrap_or_else(|e| panic!("{what}: the schema does not compile: {e}"));
    validator
        .iter_errors(instance)
        .map(|e| format!("{} at {}", e, e.instance_path()))
        .collect()
}

/// The 200 response schema of an operation.
fn response_schema(document: &Value, path: &str, method: &str) -> Value {
    status_schema(document, path, method, 200)
}

/// The JSON response schema of an operation for one status.
fn status_schema(document: &Value, path: &str, method: &str, status: u16) -> Value {
    let schema = &document["paths"][path][method]["responses"][status.to_string()]["content"]["application/json"]
        ["schema"];
    assert!(schema.is_object(), "no {status} schema for {method} {path}");
    schema.clone()
}

fn component(name: &str) -> Value {
    json!({"$ref": format!("#/components/schemas/{name}")})
}

#[test]
fn responses_validate_against_the_reference_documents() {
    let (Some(cloud), Some(obs)) = (
        load("cloud-api.openapi.json"),
        load("observability-api.openapi.json"),
    ) else {
        println!(
            "skipped: the reference OpenAPI documents are not at {} (a checkout without ../shared)",
            reference_dir().display()
        );
        return;
    };
    let sandbox = common::fast_sandbox();
    let client = Client::new(&sandbox);
    let org = "/v1/organizations/{organizationId}";
    let cloud_op = |template: &str, method: &str, answer: &Answer| {
        assert_eq!(answer.status, 200, "{template}: {}", answer.text);
        let schema = response_schema(&cloud, &format!("{org}{template}"), method);
        check(
            &cloud,
            &schema,
            &answer.json(),
            &format!("{method} {template}"),
        );
    };
    let service = format!("/services/{ANALYTICS}");

    // The check has teeth: a wrong type, a bad UUID and a bad date are caught.
    let mut broken = client.cloud("GET", &service, None).json();
    broken["requestId"] = json!("not-a-uuid");
    broken["result"]["numReplicas"] = json!("three");
    broken["result"]["createdAt"] = json!("yesterday");
    let schema = response_schema(&cloud, &format!("{org}/services/{{serviceId}}"), "get");
    assert_eq!(errors(&cloud, &schema, &broken, "broken").len(), 3);

    cloud_op("/services", "get", &client.cloud("GET", "/services", None));
    cloud_op(
        "/services/{serviceId}",
        "get",
        &client.cloud("GET", &service, None),
    );
    cloud_op(
        "/services/{serviceId}/scaling",
        "patch",
        &client.cloud(
            "PATCH",
            &format!("{service}/scaling"),
            Some(json!({"numReplicas": 3, "idleScaling": true, "idleTimeoutMinutes": 15})),
        ),
    );
    cloud_op(
        "/services/{serviceId}/privateEndpoint",
        "post",
        &client.cloud(
            "POST",
            &format!("{service}/privateEndpoint"),
            Some(json!({"id": ENDPOINT, "description": "app VPC"})),
        ),
    );
    cloud_op(
        "/services/{serviceId}",
        "patch",
        &client.cloud(
            "PATCH",
            &service,
            Some(json!({"privateEndpointIds": {"remove": [ENDPOINT]}})),
        ),
    );
    cloud_op(
        "/services/{serviceId}/state",
        "patch",
        &client.cloud(
            "PATCH",
            &format!("{service}/state"),
            Some(json!({"command": "start"})),
        ),
    );
    let backups = client.cloud("GET", &format!("{service}/backups"), None);
    cloud_op("/services/{serviceId}/backups", "get", &backups);
    let backup = backups.result()[0]["id"].as_str().unwrap().to_string();
    cloud_op(
        "/services/{serviceId}/backups/{backupId}",
        "get",
        &client.cloud("GET", &format!("{service}/backups/{backup}"), None),
    );
    cloud_op(
        "/services/{serviceId}/pipes",
        "get",
        &client.cloud("GET", &format!("{service}/pipes"), None),
    );
    cloud_op(
        "/services/{serviceId}/pipes/{pipeId}",
        "get",
        &client.cloud("GET", &format!("{service}/pipes/{ORDERS}"), None),
    );
    cloud_op(
        "/services/{serviceId}/pipes/{pipeId}/scaling",
        "patch",
        &client.cloud(
            "PATCH",
            &format!("{service}/pipes/{EVENTS}/scaling"),
            Some(json!({"concurrency": 8})),
        ),
    );
    cloud_op(
        "/services/{serviceId}/pipes/{pipeId}",
        "delete",
        &client.cloud("DELETE", &format!("{service}/pipes/{EVENTS}"), None),
    );

    // Error bodies, where the documents describe them.
    let rejected = client.cloud(
        "PATCH",
        &format!("{service}/scaling"),
        Some(json!({"numReplicas": 99})),
    );
    assert_eq!(rejected.status, 400);
    let schema = status_schema(
        &cloud,
        &format!("{org}/services/{{serviceId}}/scaling"),
        "patch",
        400,
    );
    check(&cloud, &schema, &rejected.json(), "400 PATCH scaling");
    let missing = client.obs("GET", "/dashboards/000000000000000000000000", None);
    assert_eq!(missing.status, 404);
    let schema = status_schema(&obs, "/api/v2/dashboards/{id}", "get", 404);
    check(&obs, &schema, &missing.json(), "404 GET dashboard");
    let bad_series = client.obs("POST", "/charts/series", Some(json!({"series": []})));
    assert_eq!(bad_series.status, 400);
    let schema = status_schema(&obs, "/api/v2/charts/series", "post", 400);
    check(&obs, &schema, &bad_series.json(), "400 charts/series");

    // The managed stack: the cloud envelope around the contract's shapes.
    let made = client.cloud(
        "POST",
        &format!("{service}/stack/dashboards"),
        Some(dashboard("API health", &["Requests"])),
    );
    let made = made.result();
    check(&obs, &component("Dashboard"), &made, "managed dashboard");
    let listed = client
        .cloud("GET", &format!("{service}/stack/dashboards"), None)
        .result();
    for item in listed.as_array().unwrap() {
        check(
            &obs,
            &component("Dashboard"),
            item,
            "managed dashboard list",
        );
    }
    let tile = made["tiles"][0]["id"].as_str().unwrap();
    let managed_alert = client
        .cloud(
            "POST",
            &format!("{service}/stack/alerts"),
            Some(alert("API errors", made["id"].as_str().unwrap(), tile)),
        )
        .result();
    check(&obs, &component("Alert"), &managed_alert, "managed alert");

    // The observability API.
    let obs_op = |path: &str, method: &str, answer: &Answer| {
        assert_eq!(answer.status, 200, "{path}: {}", answer.text);
        let schema = response_schema(&obs, path, method);
        check(&obs, &schema, &answer.json(), &format!("{method} {path}"));
    };
    let created = client.obs(
        "POST",
        "/dashboards",
        Some(dashboard("API health", &["Requests", "Errors"])),
    );
    obs_op("/api/v2/dashboards", "post", &created);
    let created = created.data();
    let id = created["id"].as_str().unwrap().to_string();
    obs_op(
        "/api/v2/dashboards",
        "get",
        &client.obs("GET", "/dashboards", None),
    );
    obs_op(
        "/api/v2/dashboards/{id}",
        "get",
        &client.obs("GET", &format!("/dashboards/{id}"), None),
    );
    let updated = client.obs(
        "PUT",
        &format!("/dashboards/{id}"),
        Some(dashboard("API health", &["Requests"])),
    );
    obs_op("/api/v2/dashboards/{id}", "put", &updated);
    let tile = updated.data()["tiles"][0]["id"]
        .as_str()
        .unwrap()
        .to_string();
    let made_alert = client.obs("POST", "/alerts", Some(alert("API errors", &id, &tile)));
    obs_op("/api/v2/alerts", "post", &made_alert);
    let alert_id = made_alert.data()["id"].as_str().unwrap().to_string();
    obs_op("/api/v2/alerts", "get", &client.obs("GET", "/alerts", None));
    obs_op(
        "/api/v2/alerts/{id}",
        "get",
        &client.obs("GET", &format!("/alerts/{alert_id}"), None),
    );
    obs_op(
        "/api/v2/alerts/{id}",
        "put",
        &client.obs(
            "PUT",
            &format!("/alerts/{alert_id}"),
            Some(alert("API errors", &id, &tile)),
        ),
    );
    obs_op(
        "/api/v2/alerts/{id}",
        "delete",
        &client.obs("DELETE", &format!("/alerts/{alert_id}"), None),
    );
    obs_op(
        "/api/v2/dashboards/{id}",
        "delete",
        &client.obs("DELETE", &format!("/dashboards/{id}"), None),
    );
    obs_op(
        "/api/v2/charts/series",
        "post",
        &client.obs(
            "POST",
            "/charts/series",
            Some(json!({
                "series": [{"sourceId": "s", "aggFn": "count", "where": "", "groupBy": ["service"]},
                           {"sourceId": "s", "aggFn": "avg", "field": "duration", "where": "", "groupBy": ["service"]}],
                "startTime": 1_700_000_000_000_i64,
                "endTime": 1_700_003_600_000_i64,
                "granularity": "1m"
            })),
        ),
    );
}
