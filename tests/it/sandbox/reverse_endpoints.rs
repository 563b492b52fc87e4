//! The sandbox's reverse private endpoints (issue 35, part 2, the routes the kind uses),
//! as the cloud document serves them: created per type with the members the type requires,
//! listed and read per service, `Provisioning` then `Ready`, deleted; refused where the
//! document refuses; every exchange checked against the document.

use std::time::Duration;

use converge::sandbox::SandboxOptions;
use serde_json::json;

use crate::common::{ANALYTICS, Client};

#[test]
fn reverse_private_endpoints_are_created_read_ready_and_deleted_as_the_document_says() {
    let sandbox = crate::common::sandbox(SandboxOptions {
        rate_limit: false,
        log_bodies: true,
        scaling_delay: Duration::from_millis(300),
        ..SandboxOptions::default()
    });
    let client = Client::new(&sandbox);
    let path = format!("/services/{ANALYTICS}/pipesReversePrivateEndpoints");
    let made = client.cloud(
        "POST",
        &path,
        Some(
            json!({"type": "VPC_ENDPOINT_SERVICE", "description": "kafka in the vpc",
            "vpcEndpointServiceName": "com.amazonaws.vpce.us-east-1.vpce-svc-0123456789abcdef0",
            "customPrivateDnsMappings": [{"privateDnsName": "kafka.internal.example.com"}]}),
        ),
    );
    assert_eq!(made.status, 200, "{}", made.text);
    let endpoint = made.result();
    assert_eq!(endpoint["status"], "Provisioning");
    assert_eq!(endpoint["serviceId"], ANALYTICS);
    assert_eq!(
        endpoint["privateDnsNames"],
        json!(["kafka.internal.example.com"])
    );
    let id = endpoint["id"].as_str().unwrap().to_string();
    std::thread::sleep(Duration::from_millis(400));
    let read = client.cloud("GET", &format!("{path}/{id}"), None).result();
    assert_eq!(read["status"], "Ready");
    let listed = client.cloud("GET", &path, None).result();
    assert_eq!(listed.as_array().map(Vec::len), Some(1), "{listed}");
    let deleted = client.cloud("DELETE", &format!("{path}/{id}"), None);
    assert_eq!(deleted.status, 200, "{}", deleted.text);
    // Checked before the refusals below, whose requests break the document on purpose.
    if let Some(checker) = crate::conformance::Checker::load() {
        let report = checker.check_log(&sandbox.request_log());
        report.assert_clean("reverse private endpoints");
        assert!(report.responses >= 4, "{report:?}");
    }
    for (body, field) in [
        (json!({"description": "no type"}), "type"),
        (
            json!({"type": "VPC_RESOURCE", "vpcResourceConfigurationId": "rcfg-1"}),
            "vpcResourceShareArn",
        ),
        (
            json!({"type": "MSK_MULTI_VPC", "mskClusterArn": "arn:aws:kafka:us-east-1:1:cluster/c",
            "mskAuthentication": "PLAIN"}),
            "mskAuthentication",
        ),
        (
            json!({"type": "MSK_MULTI_VPC", "mskClusterArn": "arn:aws:kafka:us-east-1:1:cluster/c",
            "mskAuthentication": "SASL_IAM",
            "customPrivateDnsMappings": [{"privateDnsName": "a.example.com"}]}),
            "customPrivateDnsMappings",
        ),
        (
            json!({"type": "GCP_PSC_SERVICE_ATTACHMENT"}),
            "gcpServiceAttachment",
        ),
    ] {
        let answer = client.cloud("POST", &path, Some(body.clone()));
        assert_eq!(answer.status, 400, "{body}: {}", answer.text);
        assert!(answer.text.contains(field), "{body}: {}", answer.text);
    }
    let gone = client.cloud("GET", &format!("{path}/{id}"), None);
    assert_eq!(gone.status, 404, "{}", gone.text);
}
