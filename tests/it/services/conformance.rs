//! Conformance of what issue 34 adds (item 4): every request converge sends for a service's
//! scaling, settings and state, and every answer the sandbox gives to them (the 400 of a rule
//! broken included), checked by the suite's one [`Checker`] against the cloud document.

use serde_json::json;

use super::{REPORTING, apply_then_empty, logged, services};
use crate::common::{ANALYTICS, Client, Converge};
use crate::conformance::Checker;

#[test]
fn service_requests_and_answers_validate_against_the_cloud_document() {
    let Some(checker) = Checker::load() else {
        return;
    };
    let sandbox = logged();
    // Through the binary: every member created, changed, then the service stopped and started.
    let first = services(
        "    scaling:\n      numReplicas: 3\n      minReplicaMemoryGb: 16\n    ipAccessList:\n      \
         - source: 10.0.0.0/8\n        description: office\n      - source: 203.0.113.7\n    \
         tags:\n      team: data\n      pci:\n    releaseChannel: fast\n    endpoints:\n      \
         mysql: true\n",
        "",
    );
    let mut log = Vec::new();
    apply_then_empty(&sandbox, &first);
    log.extend(sandbox.request_log());
    let stopped = services(
        "    ipAccessList:\n      - source: 10.0.0.0/8\n        description: office VPN\n    \
         tags:\n      team: ml\n    releaseChannel: default\n    endpoints:\n      mysql: false\n    \
         state: stopped\n",
        "",
    );
    apply_then_empty(&sandbox, &stopped);
    log.extend(sandbox.request_log());
    apply_then_empty(&sandbox, &services("    state: running\n", ""));
    log.extend(sandbox.request_log());
    sandbox.reset_log();
    Converge::new(&sandbox)
        .rate_limit("1000/1s")
        .run(["export", "--service", ANALYTICS])
        .assert_exit(0);
    // The sandbox's refusals, called directly: their answers are checked, not their bodies.
    let client = Client::new(&sandbox);
    let refusals = [
        (
            ANALYTICS,
            json!({"ipAccessList": {"add": [{"source": "not-an-ip"}]}}),
        ),
        (REPORTING, json!({"releaseChannel": "fast"})),
        (ANALYTICS, json!({"endpoints": [{"protocol": "mysql"}]})),
    ];
    for (service, body) in refusals {
        let answer = client.cloud("PATCH", &format!("/services/{service}"), Some(body.clone()));
        assert_eq!(answer.status, 400, "{body}: {}", answer.text);
    }
    log.extend(sandbox.request_log());
    let refused = log.iter().filter(|e| e.status == 400).count();
    assert_eq!(refused, 3);
    for entry in &mut log {
        if entry.status == 400 {
            entry.request_body = None;
        }
    }
    let patched = log
        .iter()
        .filter(|e| e.method == "PATCH" && e.status == 200)
        .count();
    assert!(patched >= 10, "{patched} writes");
    let report = checker.check_log(&log);
    println!(
        "service conformance: {} exchanges, {} request bodies and {} response bodies validated",
        report.exchanges, report.requests, report.responses
    );
    report.assert_clean("the service's scaling, settings and state");
    assert_eq!(report.exchanges, log.len());
    assert!(report.requests >= patched, "{report:?}");
}
