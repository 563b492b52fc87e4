//! Every route of both APIs, with the envelopes, error bodies and request log of the real ones.

use converge::sandbox::DEMO_ORG;
use serde_json::{Value, json};

use super::{ANALYTICS, CLICKS, CUSTOMERS, ENDPOINT, EVENTS, ORDERS, alert, dashboard};
use crate::common::{self, Client};

fn ids(list: &Value) -> Vec<String> {
    list.as_array()
        .expect("a list")
        .iter()
        .map(|o| o["id"].as_str().expect("an id").to_string())
        .collect()
}

#[test]
fn services_are_listed_read_and_scaled() {
    let sandbox = common::fast_sandbox();
    let client = Client::new(&sandbox);

    let services = client.cloud("GET", "/services", None).result();
    let names: Vec<&str> = services
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["analytics", "reporting"]);

    let analytics = client
        .cloud("GET", &format!("/services/{ANALYTICS}"), None)
        .result();
    assert_eq!(analytics["state"], "running");
    assert_eq!(analytics["isPrimary"], true);
    assert_eq!(analytics["numReplicas"], 2.0);
    assert_eq!(analytics["idleScaling"], false);
    assert_eq!(analytics["idleTimeoutMinutes"], 10.0);
    assert_eq!(analytics["privateEndpointIds"], json!([]));

    let scaled = client
        .cloud(
            "PATCH",
            &format!("/services/{ANALYTICS}/scaling"),
            Some(json!({"numReplicas": 3, "idleScaling": true, "idleTimeoutMinutes": 15})),
        )
        .result();
    assert_eq!(scaled["numReplicas"], 3);
    let read = client
        .cloud("GET", &format!("/services/{ANALYTICS}"), None)
        .result();
    assert_eq!(
        (
            &read["numReplicas"],
            &read["idleScaling"],
            &read["idleTimeoutMinutes"]
        ),
        // Whole numbers are written as integers, as the real services write them.
        (&json!(3), &json!(true), &json!(15))
    );

    let missing = client.cloud(
        "GET",
        "/services/00000000-0000-4000-8000-000000000000",
        None,
    );
    assert_eq!(missing.status, 404);
    assert!(
        missing.error().starts_with("NOT_FOUND: "),
        "{}",
        missing.text
    );
}

#[test]
fn private_endpoints_are_registered_attached_and_detached() {
    let sandbox = common::fast_sandbox();
    let client = Client::new(&sandbox);
    let path = format!("/services/{ANALYTICS}");

    // Attaching an endpoint the organization does not know is refused, naming the member.
    let unknown = client.cloud(
        "PATCH",
        &path,
        Some(json!({"privateEndpointIds": {"add": [ENDPOINT]}})),
    );
    assert_eq!(unknown.status, 400);
    assert!(
        unknown
            .error()
            .starts_with("BAD_REQUEST: request body.privateEndpointIds.add[0]: "),
        "{}",
        unknown.text
    );

    let created = client
        .cloud(
            "POST",
            &format!("{path}/privateEndpoint"),
            Some(json!({"id": ENDPOINT, "description": "app VPC"})),
        )
        .result();
    assert_eq!(created["id"], ENDPOINT);
    assert_eq!(created["description"], "app VPC");
    let read = client.cloud("GET", &path, None).result();
    assert_eq!(read["privateEndpointIds"], json!([ENDPOINT]));

    let detached = client
        .cloud(
            "PATCH",
            &path,
            Some(json!({"privateEndpointIds": {"remove": [ENDPOINT]}})),
        )
        .result();
    assert_eq!(detached["privateEndpointIds"], json!([]));
    // Remove runs before add: both in one request leave it attached.
    let both = client
        .cloud(
            "PATCH",
            &path,
            Some(json!({"privateEndpointIds": {"add": [ENDPOINT], "remove": [ENDPOINT]}})),
        )
        .result();
    assert_eq!(both["privateEndpointIds"], json!([ENDPOINT]));
}

#[test]
fn state_commands_move_the_service() {
    let sandbox = common::fast_sandbox();
    let client = Client::new(&sandbox);
    let path = format!("/services/{ANALYTICS}/state");
    let stopped = client
        .cloud("PATCH", &path, Some(json!({"command": "stop"})))
        .result();
    assert_eq!(stopped["state"], "stopped");
    let awake = client
        .cloud("PATCH", &path, Some(json!({"command": "awake"})))
        .result();
    assert_eq!(awake["state"], "running");
    let bad = client.cloud("PATCH", &path, Some(json!({"command": "explode"})));
    assert_eq!(bad.status, 400);
    assert!(
        bad.error()
            .starts_with("BAD_REQUEST: request body.command: must be one of start, stop, awake"),
        "{}",
        bad.text
    );
}

#[test]
fn backups_are_listed_newest_first_and_read_one_by_one() {
    let sandbox = common::sandbox(converge::sandbox::SandboxOptions {
        clock: Some("2026-03-01T12:00:00Z".parse().unwrap()),
        ..Default::default()
    });
    let client = Client::new(&sandbox);
    let backups = client
        .cloud("GET", &format!("/services/{ANALYTICS}/backups"), None)
        .result();
    let list = backups.as_array().unwrap();
    let started: Vec<&str> = list
        .iter()
        .map(|b| b["startedAt"].as_str().unwrap())
        .collect();
    let mut sorted = started.clone();
    sorted.sort_by(|a, b| b.cmp(a));
    assert_eq!(started, sorted, "newest first");
    let statuses: Vec<&str> = list.iter().map(|b| b["status"].as_str().unwrap()).collect();
    assert_eq!(&statuses[..3], ["in_progress", "done", "error"]);
    // The clock fixes the ages: the newest finished backup is 6 hours old.
    assert_eq!(list[1]["finishedAt"], "2026-03-01T06:00:00Z");

    let id = list[1]["id"].as_str().unwrap();
    let one = client
        .cloud("GET", &format!("/services/{ANALYTICS}/backups/{id}"), None)
        .result();
    assert_eq!(one, list[1]);
    let missing = client.cloud(
        "GET",
        &format!("/services/{ANALYTICS}/backups/00000000-0000-4000-8000-000000000000"),
        None,
    );
    assert_eq!(missing.status, 404);
}

#[test]
fn pipes_are_listed_read_scaled_and_deleted() {
    let sandbox = common::fast_sandbox();
    let client = Client::new(&sandbox);
    let pipes = client
        .cloud("GET", &format!("/services/{ANALYTICS}/pipes"), None)
        .result();
    assert_eq!(ids(&pipes), [ORDERS, EVENTS, CLICKS, CUSTOMERS]);
    let kinds: Vec<String> = pipes
        .as_array()
        .unwrap()
        .iter()
        .map(|p| {
            p["source"]
                .as_object()
                .unwrap()
                .keys()
                .next()
                .unwrap()
                .clone()
        })
        .collect();
    assert_eq!(kinds, ["kafka", "objectStorage", "kinesis", "postgres"]);
    // Scaling differs from the quickstart's, so the first plan has work to do.
    assert_eq!(pipes[0]["scaling"]["replicas"], 2);
    assert_eq!(pipes[1]["scaling"]["concurrency"], 4);

    let orders = format!("/services/{ANALYTICS}/pipes/{ORDERS}");
    assert_eq!(client.cloud("GET", &orders, None).result(), pipes[0]);
    let scaled = client
        .cloud(
            "PATCH",
            &format!("{orders}/scaling"),
            Some(json!({"replicas": 4, "replicaCpuMillicores": 500, "replicaMemoryGb": 2})),
        )
        .result();
    assert_eq!(scaled["scaling"]["replicas"], 4);
    let read = client.cloud("GET", &orders, None).result();
    assert_eq!(read["scaling"]["replicaCpuMillicores"], 500);
    assert_eq!(read["scaling"]["replicaMemoryGb"], 2.0);

    let deleted = client.cloud("DELETE", &orders, None);
    assert_eq!(deleted.status, 200);
    let body = deleted.json();
    assert_eq!(body["status"], 200);
    assert!(body.get("result").is_none(), "DELETE has no result");
    assert_eq!(client.cloud("GET", &orders, None).status, 404);
}

#[test]
fn managed_stack_dashboards_alerts_and_sources() {
    let sandbox = common::contract_sandbox();
    let client = Client::new(&sandbox);
    let stack = format!("/services/{ANALYTICS}/stack");

    let sources = client
        .cloud("GET", &format!("{stack}/sources"), None)
        .result();
    let names: Vec<&str> = sources
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["Logs", "Traces", "Metrics"]);

    let before = client
        .cloud("GET", &format!("{stack}/dashboards"), None)
        .result();
    assert!(
        !before
            .as_array()
            .unwrap()
            .iter()
            .any(|d| d["name"] == "API health"),
        "the first plan creates the quickstart's dashboards"
    );

    let created = client
        .cloud(
            "POST",
            &format!("{stack}/dashboards"),
            Some(dashboard("API health", &["Requests", "Latency p95"])),
        )
        .result();
    let id = created["id"].as_str().unwrap().to_string();
    assert_eq!(id.len(), 24);
    let read = client
        .cloud("GET", &format!("{stack}/dashboards/{id}"), None)
        .result();
    assert_eq!(read, created);
    let tile = created["tiles"][0]["id"].as_str().unwrap().to_string();

    let alert_created = client
        .cloud(
            "POST",
            &format!("{stack}/alerts"),
            Some(alert("API errors", &id, &tile)),
        )
        .result();
    let alert_id = alert_created["id"].as_str().unwrap().to_string();
    assert_eq!(alert_created["dashboard"], id.as_str());
    assert_eq!(alert_created["tileId"], tile.as_str());
    let listed = client
        .cloud("GET", &format!("{stack}/alerts"), None)
        .result();
    assert!(ids(&listed).contains(&alert_id));
    let mut changed = alert("API errors", &id, &tile);
    changed["threshold"] = json!(250);
    let updated = client
        .cloud("PUT", &format!("{stack}/alerts/{alert_id}"), Some(changed))
        .result();
    assert_eq!(updated["threshold"], 250.0);
    assert_eq!(updated["createdAt"], alert_created["createdAt"]);
    assert_eq!(
        client
            .cloud("GET", &format!("{stack}/alerts/{alert_id}"), None)
            .result(),
        updated
    );
    let deleted = client.cloud("DELETE", &format!("{stack}/alerts/{alert_id}"), None);
    assert_eq!(deleted.status, 200);
    assert_eq!(
        client
            .cloud("GET", &format!("{stack}/alerts/{alert_id}"), None)
            .status,
        404
    );

    let renamed = client
        .cloud(
            "PUT",
            &format!("{stack}/dashboards/{id}"),
            Some(dashboard("API health v2", &["Requests"])),
        )
        .result();
    assert_eq!(renamed["name"], "API health v2");
    assert_eq!(
        client
            .cloud("DELETE", &format!("{stack}/dashboards/{id}"), None)
            .status,
        200
    );
    assert_eq!(
        client
            .cloud("GET", &format!("{stack}/dashboards/{id}"), None)
            .status,
        404
    );

    // A service without a managed stack.
    let reporting = client.cloud(
        "GET",
        "/services/2e4f6a8b-3c5d-4e7f-8a9b-0c1d2e3f4a5b/stack/dashboards",
        None,
    );
    assert_eq!(reporting.status, 404);
}

#[test]
fn observability_dashboards_alerts_sources_and_paging() {
    let sandbox = common::contract_sandbox();
    let client = Client::new(&sandbox);

    let sources = client.obs("GET", "/sources", None).data();
    assert_eq!(sources.as_array().unwrap().len(), 3);
    assert_eq!(client.obs("GET", "/dashboards", None).data(), json!([]));

    let created = client
        .obs(
            "POST",
            "/dashboards",
            Some(dashboard("API health", &["Requests", "Errors"])),
        )
        .data();
    let id = created["id"].as_str().unwrap().to_string();
    assert_eq!(
        client.obs("GET", &format!("/dashboards/{id}"), None).data(),
        created
    );
    assert_eq!(
        ids(&client.obs("GET", "/dashboards", None).data()),
        std::slice::from_ref(&id)
    );
    let tile = created["tiles"][0]["id"].as_str().unwrap().to_string();

    let mut alert_ids = Vec::new();
    for n in 0..5 {
        let made = client
            .obs(
                "POST",
                "/alerts",
                Some(alert(&format!("alert {n}"), &id, &tile)),
            )
            .data();
        assert!(made["createdAt"].as_str().unwrap().ends_with('Z'));
        alert_ids.push(made["id"].as_str().unwrap().to_string());
    }
    let page = client.obs("GET", "/alerts?limit=2&offset=1", None).data();
    assert_eq!(ids(&page), alert_ids[1..3]);
    assert_eq!(ids(&client.obs("GET", "/alerts", None).data()), alert_ids);
    let too_many = client.obs("GET", "/alerts?limit=1001", None);
    assert_eq!(too_many.status, 400);
    assert!(
        too_many.json()["message"]
            .as_str()
            .unwrap()
            .contains("limit")
    );

    let one = client
        .obs("GET", &format!("/alerts/{}", alert_ids[0]), None)
        .data();
    assert_eq!(one["name"], "alert 0");
    let mut body = alert("alert 0 renamed", &id, &tile);
    body.as_object_mut().unwrap().remove("message");
    let updated = client
        .obs("PUT", &format!("/alerts/{}", alert_ids[0]), Some(body))
        .data();
    assert_eq!(updated["name"], "alert 0 renamed");
    assert!(
        updated.get("message").is_none(),
        "PUT replaces the whole alert"
    );

    let deleted = client.obs("DELETE", &format!("/alerts/{}", alert_ids[0]), None);
    assert_eq!((deleted.status, deleted.json()), (200, json!({})));
    // Deleting what does not exist also answers {}.
    let again = client.obs("DELETE", &format!("/alerts/{}", alert_ids[0]), None);
    assert_eq!((again.status, again.json()), (200, json!({})));
    assert_eq!(
        client
            .obs("GET", &format!("/alerts/{}", alert_ids[0]), None)
            .status,
        404
    );

    let updated = client
        .obs(
            "PUT",
            &format!("/dashboards/{id}"),
            Some(dashboard("API health", &["Requests", "Errors", "Latency"])),
        )
        .data();
    assert_eq!(updated["tiles"].as_array().unwrap().len(), 3);
    let deleted = client.obs("DELETE", &format!("/dashboards/{id}"), None);
    assert_eq!((deleted.status, deleted.json()), (200, json!({})));
    assert_eq!(
        client.obs("GET", &format!("/dashboards/{id}"), None).status,
        404
    );
}

#[test]
fn cloud_envelopes_carry_a_new_v4_request_id_each_time() {
    let sandbox = common::fast_sandbox();
    let client = Client::new(&sandbox);
    let a = client.cloud("GET", "/services", None).json();
    let b = client.cloud("GET", "/services", None).json();
    for body in [&a, &b] {
        let id = uuid::Uuid::parse_str(body["requestId"].as_str().unwrap()).unwrap();
        assert_eq!(id.get_version_num(), 4);
        assert_eq!(body["status"], 200);
    }
    assert_ne!(a["requestId"], b["requestId"]);
    let error = client
        .cloud(
            "GET",
            "/services/00000000-0000-4000-8000-000000000000",
            None,
        )
        .json();
    assert_eq!(error["status"], 404);
    assert!(error["requestId"].is_string());
}

#[test]
fn auth_failures_answer_like_each_api() {
    let sandbox = common::fast_sandbox();
    let client = Client::new(&sandbox);
    let org = converge::sandbox::DEMO_ORG;
    let wrong = format!(
        "Basic {}",
        base64::Engine::encode(
            &base64::engine::general_purpose::STANDARD,
            "sandbox-key:wrong"
        )
    );
    let cloud = client.raw(
        "GET",
        &format!("/v1/organizations/{org}/services"),
        Some(&wrong),
        None,
    );
    assert_eq!(cloud.status, 401);
    assert_eq!(cloud.error(), "UNAUTHORIZED: Key is not found");
    // A bearer token is not a cloud credential, and a key is not an observability one.
    let bearer = client.raw(
        "GET",
        &format!("/v1/organizations/{org}/services"),
        Some(&Client::bearer()),
        None,
    );
    assert_eq!(bearer.status, 401);
    let obs = client.raw("GET", "/api/v2/dashboards", Some(&Client::basic()), None);
    assert_eq!((obs.status, obs.text.as_str()), (401, "Unauthorized"));
    let none = client.raw("GET", "/api/v2/dashboards", None, None);
    assert_eq!(none.status, 401);
    // Another organization is not served.
    let other = client.raw(
        "GET",
        "/v1/organizations/00000000-0000-4000-8000-000000000000/services",
        Some(&Client::basic()),
        None,
    );
    assert_eq!(other.status, 404);
}

#[test]
fn unknown_paths_malformed_and_oversized_bodies() {
    let sandbox = common::fast_sandbox();
    let client = Client::new(&sandbox);
    let unknown = client.raw("GET", "/v1/nothing/here", Some(&Client::basic()), None);
    assert_eq!(unknown.status, 404);
    assert!(unknown.text.contains("Cannot GET /v1/nothing/here"));
    assert!(
        serde_json::from_str::<Value>(&unknown.text).is_err(),
        "not JSON"
    );
    let wrong_method = client.cloud("POST", "/services", Some(json!({})));
    assert_eq!(wrong_method.status, 404);
    assert!(wrong_method.text.contains("Cannot POST"));

    let org = converge::sandbox::DEMO_ORG;
    let path = format!("/v1/organizations/{org}/services/{ANALYTICS}/scaling");
    let malformed = client
        .try_send(
            "PATCH",
            &path,
            Some(&Client::basic()),
            Some(b"{\"numReplicas\":".to_vec()),
        )
        .unwrap();
    assert_eq!(malformed.status, 400);
    assert!(
        malformed
            .error()
            .starts_with("BAD_REQUEST: request body: invalid JSON")
    );
    let obs_malformed = client
        .try_send(
            "POST",
            "/api/v2/dashboards",
            Some(&Client::bearer()),
            Some(b"[".to_vec()),
        )
        .unwrap();
    assert_eq!(obs_malformed.status, 400);
    assert!(obs_malformed.json()["message"].is_string());

    // The server answers 413 as soon as the body passes the limit and closes the connection; on
    // a loaded machine the client may still be writing then and see a broken pipe instead of
    // the answer. Such a send is tried again (up to twenty times: a loaded machine lost five
    // in a row once): the answer, once one arrives, is 413.
    let big = format!("{{\"name\":\"{}\"}}", "x".repeat(3 * 1024 * 1024));
    let oversized = (0..20)
        .find_map(|_| {
            client
                .try_send(
                    "POST",
                    "/api/v2/dashboards",
                    Some(&Client::bearer()),
                    Some(big.clone().into_bytes()),
                )
                .ok()
        })
        .expect("an answer to the oversized body in twenty tries");
    assert_eq!(oversized.status, 413);

    let not_uuid = client.cloud("GET", "/services/not-a-uuid", None);
    assert_eq!(not_uuid.status, 400);
    assert!(not_uuid.error().contains("serviceId"));
}

#[test]
fn request_log_records_route_templates_and_resets_over_http() {
    let sandbox = common::fast_sandbox();
    let client = Client::new(&sandbox);
    client.cloud("GET", &format!("/services/{ANALYTICS}/pipes"), None);
    client.cloud(
        "GET",
        &format!("/services/{ANALYTICS}/pipes/{ORDERS}"),
        None,
    );
    client.obs("GET", "/dashboards", None);
    let log = client.raw("GET", "/_sandbox/requests", None, None).json();
    assert_eq!(
        log,
        json!([
            {"method": "GET", "route": "/v1/organizations/{organizationId}/services/{serviceId}/pipes",
             "path": format!("/v1/organizations/{DEMO_ORG}/services/{ANALYTICS}/pipes"), "status": 200},
            {"method": "GET", "route": "/v1/organizations/{organizationId}/services/{serviceId}/pipes/{pipeId}",
             "path": format!("/v1/organizations/{DEMO_ORG}/services/{ANALYTICS}/pipes/{ORDERS}"), "status": 200},
            {"method": "GET", "route": "/api/v2/dashboards", "path": "/api/v2/dashboards", "status": 200}
        ])
    );
    assert_eq!(
        common::count(
            &sandbox,
            "GET",
            "/v1/organizations/{organizationId}/services/{serviceId}/pipes"
        ),
        1
    );
    assert_eq!(
        client.raw("POST", "/_sandbox/reset", None, None).status,
        200
    );
    assert_eq!(
        client.raw("GET", "/_sandbox/requests", None, None).json(),
        json!([])
    );
    assert!(sandbox.request_log().is_empty());
}

#[test]
fn empty_seed_has_nothing_but_still_answers() {
    let sandbox = common::sandbox(converge::sandbox::SandboxOptions {
        seed: converge::sandbox::Seed::Empty,
        rate_limit: false,
        ..Default::default()
    });
    let client = Client::new(&sandbox);
    assert_eq!(client.cloud("GET", "/services", None).result(), json!([]));
    assert_eq!(client.obs("GET", "/dashboards", None).data(), json!([]));
    assert_eq!(client.obs("GET", "/alerts", None).data(), json!([]));
}

#[test]
fn large_seed_over_http() {
    let sandbox = common::sandbox(converge::sandbox::SandboxOptions {
        seed: converge::sandbox::Seed::Large,
        rate_limit: false,
        ..Default::default()
    });
    let client = Client::new(&sandbox);
    let services = client.cloud("GET", "/services", None).result();
    let services = services.as_array().unwrap();
    assert_eq!(services.len(), 20);
    let mut pipes = 0;
    let mut endpoints = 0;
    for service in services {
        let id = service["id"].as_str().unwrap();
        pipes += client
            .cloud("GET", &format!("/services/{id}/pipes"), None)
            .result()
            .as_array()
            .unwrap()
            .len();
        endpoints += service["privateEndpointIds"].as_array().unwrap().len()
            + service["availablePrivateEndpointIds"]
                .as_array()
                .unwrap()
                .len();
    }
    assert_eq!((pipes, endpoints), (100, 40));

    let managed = services[0]["id"].as_str().unwrap();
    let managed_dashboards = client
        .cloud(
            "GET",
            &format!("/services/{managed}/stack/dashboards"),
            None,
        )
        .result();
    let managed_alerts = client
        .cloud("GET", &format!("/services/{managed}/stack/alerts"), None)
        .result();
    let obs_dashboards = client.obs("GET", "/dashboards", None).data();
    let first_page = client.obs("GET", "/alerts?limit=1000", None).data();
    let second_page = client
        .obs("GET", "/alerts?limit=1000&offset=1000", None)
        .data();
    assert_eq!(
        managed_dashboards.as_array().unwrap().len() + obs_dashboards.as_array().unwrap().len(),
        300
    );
    assert_eq!(
        managed_alerts.as_array().unwrap().len() + first_page.as_array().unwrap().len(),
        1000
    );
    assert_eq!(second_page, json!([]));
}
