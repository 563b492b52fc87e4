//! Fault injection: the configured shares are seen by a real HTTP client, the same seed gives
//! the same faults, and `reset`/`lost` drop the connection (after the write, for `lost`).

use serde_json::json;

use converge::sandbox::SandboxOptions;

use super::{ANALYTICS, ORDERS};
use crate::common::{self, Client, faulty_sandbox};

/// What a client saw for `n` GETs: the status, or 0 when the connection failed.
fn outcomes(spec: &str, seed: u64, n: usize) -> Vec<u16> {
    let sandbox = faulty_sandbox(spec, seed);
    let client = Client::new(&sandbox);
    let path = format!(
        "/v1/organizations/{}/services/{ANALYTICS}/pipes",
        converge::sandbox::DEMO_ORG
    );
    (0..n)
        .map(|_| {
            client
                .try_send("GET", &path, Some(&Client::basic()), None)
                .map_or(0, |answer| answer.status)
        })
        .collect()
}

#[test]
fn configured_shares_are_seen_and_reproducible() {
    let spec = "429=0.05,500=0.05,503=0.02,reset=0.02,lost=0.02";
    let first = outcomes(spec, 7, 600);
    let count = |status: u16| first.iter().filter(|s| **s == status).count();
    // Expected 30, 30, 12, 24 and 444 of 600; the bounds are about three standard deviations.
    assert!((14..=46).contains(&count(429)), "429: {}", count(429));
    assert!((14..=46).contains(&count(500)), "500: {}", count(500));
    assert!((3..=22).contains(&count(503)), "503: {}", count(503));
    assert!((10..=40).contains(&count(0)), "dropped: {}", count(0));
    assert_eq!(
        count(200) + count(429) + count(500) + count(503) + count(0),
        600
    );
    assert_eq!(outcomes(spec, 7, 600), first, "same seed, same faults");
    assert_ne!(outcomes(spec, 8, 600), first, "another seed, other faults");
}

#[test]
fn fault_bodies_look_like_the_real_ones_and_are_logged() {
    let sandbox = faulty_sandbox("500=1", 1);
    let client = Client::new(&sandbox);
    let answer = client.cloud("GET", "/services", None);
    assert_eq!(answer.status, 500);
    assert!(answer.error().starts_with("INTERNAL_SERVER_ERROR: "));
    let log = sandbox.request_log();
    assert_eq!(log.len(), 1);
    assert_eq!((log[0].status, log[0].fault.as_deref()), (500, Some("500")));
}

#[test]
fn reset_drops_the_connection_without_an_answer() {
    let sandbox = faulty_sandbox("reset=1", 1);
    let client = Client::new(&sandbox);
    let path = format!("/v1/organizations/{}/services", converge::sandbox::DEMO_ORG);
    let result = client.try_send("GET", &path, Some(&Client::basic()), None);
    assert!(result.is_err(), "a real client sees an error: {result:?}");
    let log = sandbox.request_log();
    assert_eq!((log[0].status, log[0].fault.as_deref()), (0, Some("reset")));
}

#[test]
fn lost_performs_the_write_then_drops_the_answer() {
    let dir = tempfile::tempdir().unwrap();
    let state = dir.path().join("state.json");
    {
        let sandbox = common::sandbox(SandboxOptions {
            rate_limit: false,
            faults: "lost=1".parse().unwrap(),
            state_file: Some(state.clone()),
            ..SandboxOptions::default()
        });
        let client = Client::new(&sandbox);
        let path = format!(
            "/v1/organizations/{}/services/{ANALYTICS}/pipes/{ORDERS}/scaling",
            converge::sandbox::DEMO_ORG
        );
        let result = client.try_send(
            "PATCH",
            &path,
            Some(&Client::basic()),
            Some(json!({"replicas": 9}).to_string().into_bytes()),
        );
        assert!(result.is_err(), "the answer never arrives: {result:?}");
        let log = sandbox.request_log();
        assert_eq!(
            (log[0].status, log[0].fault.as_deref()),
            (200, Some("lost"))
        );
    }
    // The same world without faults shows that the write happened.
    let sandbox = common::sandbox(SandboxOptions {
        rate_limit: false,
        state_file: Some(state),
        ..SandboxOptions::default()
    });
    let pipe = Client::new(&sandbox)
        .cloud(
            "GET",
            &format!("/services/{ANALYTICS}/pipes/{ORDERS}"),
            None,
        )
        .result();
    assert_eq!(pipe["scaling"]["replicas"], 9);
}
