//! Reverse private endpoints as objects of a service (issue 35, part 2), through the binary
//! against the sandbox: an endpoint created and waited for until `Ready` before the kafka pipe
//! that names it by key, in one apply; a key no endpoint has refused at its line; a member
//! the cloud cannot change refused at its line; `absent: true` deleted only with
//! `--allow-destroy`; a create whose answer was lost found by its description, not sent twice;
//! a tampered saved step refused; drift of an endpoint deleted or added out of band; the export
//! naming endpoints by key, validating and planning empty.

use std::time::Duration;

use converge::sandbox::{SandboxHandle, SandboxOptions};
use serde_json::{Value, json};

use crate::common::{ANALYTICS, Client, Converge, Workspace, converge_snapshot};
use crate::pipes::{CANARIES, assert_no_canary};

/// The endpoint the pipe names.
const ENDPOINT: &str = "      kafka-vpc:
        description: kafka in the vpc
        type: VPC_ENDPOINT_SERVICE
        vpcEndpointServiceName: com.amazonaws.vpce.us-east-1.vpce-svc-0123456789abcdef0
";

/// A kafka pipe reaching its brokers through `kafka-vpc`.
const PIPE: &str = "      events:
        name: events over the vpc
        source:
          kafka:
            type: confluent
            brokers: broker-1.example.com:9092
            topics: vpc-events
            format: JSONEachRow
            authentication: PLAIN
            credentials:
              username: ${env:PIPE_EVENTS_USERNAME}
              password: ${env:PIPE_EVENTS_PASSWORD}
            reversePrivateEndpoints: [kafka-vpc]
        destination:
          database: default
          table: vpc_events
          managedTable: true
          tableDefinition:
            engine: { type: MergeTree }
            sortingKey: [at]
          columns:
            - { name: at, type: DateTime }
        fieldMappings:
          - { sourceField: timestamp, destinationField: at }
";

/// The endpoints' route.
const ENDPOINTS: &str = "/services/{serviceId}/pipesReversePrivateEndpoints";

/// The demo `analytics` with `endpoints` and `pipes` declared.
fn config(endpoints: &str, pipes: &str) -> String {
    format!(
        "version: 1\norganization: ${{env:CONVERGE_ORG_ID}}\ncloud:\n  url: ${{env:CONVERGE_CLOUD_URL}}\n  keyId: ${{env:CONVERGE_KEY_ID}}\n  keySecret: ${{env:CONVERGE_KEY_SECRET}}\nservices:\n  analytics:\n    id: {ANALYTICS}\n    reversePrivateEndpoints:\n{endpoints}    pipes:\n{pipes}"
    )
}

/// A sandbox whose endpoints (and pipes) take 300 ms to become ready.
fn slow_sandbox() -> SandboxHandle {
    slow_sandbox_with(Vec::new())
}

/// [`slow_sandbox`] with `quirks`.
fn slow_sandbox_with(quirks: Vec<converge::sandbox::Quirk>) -> SandboxHandle {
    crate::common::sandbox(SandboxOptions {
        rate_limit: false,
        log_bodies: true,
        scaling_delay: Duration::from_millis(300),
        quirks,
        ..SandboxOptions::default()
    })
}

/// A [`slow_sandbox`] where the endpoint and the pipe naming it are applied.
fn applied_sandbox() -> SandboxHandle {
    let sandbox = slow_sandbox();
    Converge::new(&sandbox)
        .fast()
        .envs(CANARIES)
        .config(&config(ENDPOINT, PIPE))
        .run(["apply", "--yes"])
        .assert_exit(0);
    sandbox
}

/// The service's endpoints as the sandbox lists them.
fn listed(sandbox: &SandboxHandle) -> Vec<Value> {
    let path = format!("/services/{ANALYTICS}/pipesReversePrivateEndpoints");
    let answer = Client::new(sandbox).cloud("GET", &path, None).result();
    answer.as_array().cloned().unwrap_or_default()
}

/// The requests of a run, `METHOD route`, in order, reads of endpoints and writes only.
fn endpoint_and_write_requests(sandbox: &SandboxHandle) -> Vec<String> {
    sandbox
        .request_log()
        .into_iter()
        .filter(|e| e.method != "GET" || short(&e.route).starts_with(ENDPOINTS))
        .filter(|e| !e.route.ends_with("{serviceId}"))
        .map(|e| format!("{} {}", e.method, short(&e.route)))
        .collect()
}

/// A route without its organization, as the cloud document's paths read after it.
fn short(route: &str) -> String {
    route.replace("/v1/organizations/{organizationId}", "")
}

/// A run's writes, `METHOD route` without the organization.
fn writes(outcome: &crate::common::Outcome) -> Vec<String> {
    outcome.writes().iter().map(|w| short(w)).collect()
}

/// One apply creates the endpoint, waits until it reads `Ready`, and only then creates the
/// kafka pipe, sending the endpoint's id; the plan before shows the endpoint by key and the
/// pipe naming it, and the plan after is empty and shows the id.
#[test]
fn an_endpoint_is_created_and_ready_before_the_kafka_pipe_that_names_it() {
    let sandbox = slow_sandbox();
    let config = config(ENDPOINT, PIPE);
    let converge = Converge::new(&sandbox)
        .fast()
        .envs(CANARIES)
        .config(&config);
    let planned = converge.run(["plan"]);
    assert_no_canary(&planned);
    converge_snapshot!("reverse_endpoint_plan_before", planned);
    sandbox.reset_log();
    let applied = converge.run(["apply", "--yes"]);
    assert_no_canary(&applied);
    assert_eq!(applied.code, 0, "{applied:?}");
    let requests = endpoint_and_write_requests(&sandbox);
    let create = requests
        .iter()
        .position(|r| r == &format!("POST {ENDPOINTS}"))
        .expect("the endpoint is created");
    let pipe = requests
        .iter()
        .position(|r| r == "POST /services/{serviceId}/pipes")
        .expect("the pipe is created");
    let read = format!("GET {ENDPOINTS}/{{reversePrivateEndpointId}}");
    assert!(
        requests[create..pipe].contains(&read),
        "the endpoint is read before the pipe: {requests:?}"
    );
    let endpoints = listed(&sandbox);
    assert_eq!(endpoints.len(), 1, "{endpoints:?}");
    let id = endpoints[0]["id"].clone();
    let sent: Vec<Value> = sandbox
        .request_log()
        .into_iter()
        .filter(|e| e.method == "POST" && short(&e.route) == "/services/{serviceId}/pipes")
        .filter_map(|e| serde_json::from_str(e.request_body.as_deref()?).ok())
        .collect();
    assert_eq!(
        sent[0]["source"]["kafka"]["reversePrivateEndpointIds"],
        json!([id])
    );
    assert!(
        sent[0]["source"]["kafka"]
            .get("reversePrivateEndpoints")
            .is_none()
    );
    // The endpoint's exchanges (the document's kafka `credentials` is a `oneOf` of schemas that
    // each match any object, so no kafka create with credentials passes it).
    if let Some(checker) = crate::conformance::Checker::load() {
        let log: Vec<_> = sandbox
            .request_log()
            .into_iter()
            .filter(|e| short(&e.route).starts_with(ENDPOINTS))
            .collect();
        let report = checker.check_log(&log);
        report.assert_clean("the endpoint's create and reads");
        assert!(report.responses >= 3, "{report:?}");
    }
    converge.run(["plan", "--detailed-exitcode"]).assert_exit(0);
    let shown = converge.run(["plan", "--format", "json"]);
    assert!(
        shown.stdout.contains(id.as_str().unwrap_or_default()),
        "{shown:?}"
    );
}

/// A pipe naming a key its service declares no endpoint under is refused at the key's line
/// (exit 1) by validate and plan, and nothing is read or written.
#[test]
fn a_pipe_naming_a_key_no_endpoint_has_is_refused_at_its_line() {
    let sandbox = crate::common::fast_sandbox();
    let config = config(
        ENDPOINT,
        &PIPE.replace("[kafka-vpc]", "[kafka-vpc, other-vpc]"),
    );
    let converge = Converge::new(&sandbox)
        .fast()
        .envs(CANARIES)
        .config(&config);
    converge_snapshot!("reverse_endpoint_unknown_key", converge.run(["validate"]));
    let planned = converge.run(["plan"]);
    assert_eq!(planned.code, 1, "{planned:?}");
    assert!(planned.writes().is_empty());
}

/// The cloud cannot change an endpoint (the document has no `PATCH`): a declared member that
/// differs from the live endpoint is refused at its line, and nothing is written.
#[test]
fn a_changed_endpoint_member_is_refused_at_its_line() {
    let sandbox = applied_sandbox();
    let changed = ENDPOINT.replace("0123456789abcdef0", "fedcba9876543210f");
    let converge = Converge::new(&sandbox)
        .fast()
        .envs(CANARIES)
        .config(&config(&changed, PIPE));
    sandbox.reset_log();
    let planned = converge.run(["plan"]);
    converge_snapshot!("reverse_endpoint_changed_member", planned);
    let applied = converge.run(["apply", "--yes", "--allow-destroy"]);
    assert_eq!(applied.code, 1, "{applied:?}");
    assert!(applied.writes().is_empty(), "{applied:?}");
}

/// `absent: true` deletes the endpoint only with `--allow-destroy` (exit 4 without, nothing
/// sent), then plans as already gone.
#[test]
fn an_absent_endpoint_is_deleted_only_with_allow_destroy() {
    let sandbox = slow_sandbox();
    let first = config(ENDPOINT, "");
    let first = first.replace("    pipes:\n", "");
    let converge = Converge::new(&sandbox).fast().config(&first);
    converge.run(["apply", "--yes"]).assert_exit(0);
    assert_eq!(listed(&sandbox).len(), 1);
    let absent = format!("{ENDPOINT}        absent: true\n");
    let converge = Converge::new(&sandbox)
        .fast()
        .config(&config(&absent, "").replace("    pipes:\n", ""));
    sandbox.reset_log();
    let refused = converge.run(["apply", "--yes"]);
    converge_snapshot!("reverse_endpoint_delete_refused", refused);
    assert!(refused.writes().is_empty());
    assert_eq!(listed(&sandbox).len(), 1);
    let deleted = converge.run(["apply", "--yes", "--allow-destroy"]);
    assert_eq!(deleted.code, 0, "{deleted:?}");
    assert_eq!(
        writes(&deleted),
        vec![format!("DELETE {ENDPOINTS}/{{reversePrivateEndpointId}}")]
    );
    assert!(listed(&sandbox).is_empty());
    converge.run(["plan", "--detailed-exitcode"]).assert_exit(0);
}

/// A create whose answer was lost (the first answer of each `POST`) is found by its
/// description on the re-read, never sent twice; the pipe after it still names its id.
#[test]
fn an_endpoint_create_whose_answer_was_lost_is_not_sent_twice() {
    let sandbox = crate::common::sandbox(SandboxOptions {
        rate_limit: false,
        log_bodies: true,
        faults: "lost@POST=1".parse().unwrap(),
        ..SandboxOptions::default()
    });
    let converge = Converge::new(&sandbox)
        .fast()
        .envs(CANARIES)
        .config(&config(ENDPOINT, PIPE));
    let applied = converge.run(["apply", "--yes"]);
    assert_eq!(applied.code, 0, "{applied:?}");
    let creates = writes(&applied)
        .iter()
        .filter(|w| *w == &format!("POST {ENDPOINTS}"))
        .count();
    assert_eq!(creates, 1, "{applied:?}");
    assert_eq!(listed(&sandbox).len(), 1);
    converge.run(["plan", "--detailed-exitcode"]).assert_exit(0);
}

/// A saved plan's endpoint create edited to send another service name is refused before
/// anything is written; the reviewed plan then applies.
#[test]
fn a_tampered_saved_endpoint_step_is_refused() {
    let sandbox = slow_sandbox();
    let workspace = Workspace::new();
    let path = workspace.write("converge.yaml", &config(ENDPOINT, PIPE));
    let saved = workspace.file("plan.json");
    let converge = Converge::new(&sandbox)
        .fast()
        .envs(CANARIES)
        .cwd(&workspace);
    converge
        .run(["plan", &path, "--out", &saved])
        .assert_exit(0);
    let text = std::fs::read_to_string(&saved).unwrap();
    let tampered = workspace.write(
        "tampered.json",
        &text.replace("vpce-svc-0123456789abcdef0", "vpce-svc-attacker00000000"),
    );
    sandbox.reset_log();
    let refused = converge.run(["apply", "--plan", &tampered, &path, "--yes"]);
    assert_ne!(refused.code, 0, "{refused:?}");
    assert!(refused.writes().is_empty(), "{refused:?}");
    let applied = converge.run(["apply", "--plan", &saved, &path, "--yes"]);
    assert_eq!(applied.code, 0, "{applied:?}");
    assert_eq!(listed(&sandbox).len(), 1);
}

/// Drift: an endpoint deleted out of band is a change (the plan creates it again), one added
/// out of band is reported unmanaged.
#[test]
fn endpoint_drift_is_reported() {
    let sandbox = applied_sandbox();
    let converge = Converge::new(&sandbox)
        .fast()
        .envs(CANARIES)
        .config(&config(ENDPOINT, PIPE));
    let client = Client::new(&sandbox);
    let path = format!("/services/{ANALYTICS}/pipesReversePrivateEndpoints");
    let id = listed(&sandbox)[0]["id"].as_str().unwrap().to_string();
    let added = client.cloud(
        "POST",
        &path,
        Some(
            json!({"type": "GCP_PSC_SERVICE_ATTACHMENT", "description": "made by hand",
            "gcpServiceAttachment": "projects/p/regions/us-central1/serviceAttachments/s"}),
        ),
    );
    assert_eq!(added.status, 200, "{}", added.text);
    let unmanaged = converge.run(["drift"]);
    assert_no_canary(&unmanaged);
    assert!(
        unmanaged
            .stdout
            .contains("service.analytics.reverse_endpoint[\"made by hand\"]"),
        "{unmanaged:?}"
    );
    let deleted = client.cloud("DELETE", &format!("{path}/{id}"), None);
    assert_eq!(deleted.status, 200, "{}", deleted.text);
    let drift = converge.run(["drift", "--format", "json"]);
    let report: Value = serde_json::from_str(&drift.stdout).unwrap();
    let text = report.to_string();
    assert!(
        text.contains("service.analytics.reverse_endpoint.kafka-vpc"),
        "{text}"
    );
}

/// The export writes the service's endpoints and the kafka pipe naming them by key; it
/// validates and plans empty against the organization it came from.
#[test]
fn the_export_names_endpoints_by_key_and_plans_empty() {
    let sandbox = slow_sandbox();
    // The demo world's pipes go first: the export is then of what this config made.
    let demo_gone = crate::pipes::export::demo_pipes_gone();
    let converge = Converge::new(&sandbox)
        .fast()
        .envs(CANARIES)
        .config(&config(ENDPOINT, &format!("{PIPE}{demo_gone}")));
    converge
        .run(["apply", "--yes", "--allow-destroy"])
        .assert_exit(0);
    let exported = Converge::new(&sandbox)
        .fast()
        .run(["export", "--service", ANALYTICS]);
    assert_eq!(exported.code, 0, "{exported:?}");
    let yaml = &exported.stdout;
    assert!(
        yaml.contains("    reversePrivateEndpoints:\n      kafka-in-the-vpc:\n"),
        "{yaml}"
    );
    assert!(
        yaml.contains("reversePrivateEndpoints:\n              - kafka-in-the-vpc\n")
            || yaml.contains("reversePrivateEndpoints: [kafka-in-the-vpc]"),
        "{yaml}"
    );
    assert!(!yaml.contains("reversePrivateEndpointIds"), "{yaml}");
    let again = Converge::new(&sandbox).fast().envs(CANARIES).config(yaml);
    again.run(["validate"]).assert_exit(0);
    let planned = again.run(["plan", "--detailed-exitcode"]);
    assert_eq!(planned.code, 0, "{planned:?}");
}

/// An endpoint that ends `Failed` (`--quirks reverse-endpoints-fail`) fails its create step,
/// naming its status, and the kafka pipe that names it is not created.
#[test]
fn a_failed_endpoint_stops_the_pipe_that_names_it() {
    let sandbox = slow_sandbox_with(vec![converge::sandbox::Quirk::ReverseEndpointsFail]);
    let converge = Converge::new(&sandbox)
        .fast()
        .envs(CANARIES)
        .config(&config(ENDPOINT, PIPE));
    let applied = converge.run(["apply", "--yes"]);
    assert_no_canary(&applied);
    assert_eq!(applied.code, 1, "{applied:?}");
    assert!(
        !writes(&applied).contains(&"POST /services/{serviceId}/pipes".to_string()),
        "{applied:?}"
    );
    let id = listed(&sandbox)[0]["id"].as_str().unwrap().to_string();
    let stderr = applied.stderr.replace(&id, "{endpointId}");
    let lines: Vec<&str> = stderr
        .lines()
        .filter(|l| !l.starts_with("waiting for"))
        .collect();
    insta::assert_snapshot!("reverse_endpoint_failed", lines.join("\n"));
}

/// `--only` takes an endpoint's address: the plan keeps its create alone (and warns that the
/// pipe waiting for it is left out when only the pipe is kept).
#[test]
fn only_takes_an_endpoints_address() {
    let sandbox = crate::common::fast_sandbox();
    let converge = Converge::new(&sandbox)
        .fast()
        .envs(CANARIES)
        .config(&config(ENDPOINT, PIPE));
    let endpoint = converge.run([
        "plan",
        "--only",
        "service.analytics.reverse_endpoint.kafka-vpc",
    ]);
    converge_snapshot!("reverse_endpoint_only", endpoint);
    let pipe = converge.run(["plan", "--only", "pipe.analytics.events"]);
    assert_no_canary(&pipe);
    assert_eq!(pipe.code, 0, "{pipe:?}");
    assert!(
        !pipe
            .stdout
            .contains("service.analytics.reverse_endpoint.kafka-vpc  ("),
        "{pipe:?}"
    );
}

/// A kafka pipe pointed at an endpoint the same apply creates: the endpoint is created (and
/// ready) first, then the pipe is patched in place with its id; the next plan is empty.
#[test]
fn a_pipe_pointed_at_a_new_endpoint_is_patched_in_place_after_its_create() {
    let sandbox = applied_sandbox();
    let second = "      kafka-vpc-2:
        description: kafka in the second vpc
        type: VPC_ENDPOINT_SERVICE
        vpcEndpointServiceName: com.amazonaws.vpce.us-east-1.vpce-svc-0aaaaaaaaaaaaaaaa
";
    let moved = config(
        &format!("{ENDPOINT}{second}"),
        &PIPE.replace("[kafka-vpc]", "[kafka-vpc-2]"),
    );
    let converge = Converge::new(&sandbox).fast().envs(CANARIES).config(&moved);
    sandbox.reset_log();
    let applied = converge.run(["apply", "--yes"]);
    assert_no_canary(&applied);
    assert_eq!(applied.code, 0, "{applied:?}");
    assert_eq!(
        endpoint_and_write_requests(&sandbox)
            .into_iter()
            .filter(|r| !r.starts_with("GET"))
            .collect::<Vec<_>>(),
        vec![
            format!("POST {ENDPOINTS}"),
            "PATCH /services/{serviceId}/pipes/{pipeId}".to_string(),
        ]
    );
    let new_id = listed(&sandbox)
        .into_iter()
        .find(|e| e["description"] == "kafka in the second vpc")
        .map(|e| e["id"].clone())
        .unwrap();
    let patched: Vec<Value> = sandbox
        .request_log()
        .into_iter()
        .filter(|e| e.method == "PATCH")
        .filter_map(|e| serde_json::from_str(e.request_body.as_deref()?).ok())
        .collect();
    assert_eq!(
        patched[0]["source"]["kafka"]["reversePrivateEndpointIds"],
        json!([new_id]),
        "{patched:?}"
    );
    converge.run(["plan", "--detailed-exitcode"]).assert_exit(0);
}
