//! Every command through the real binary, with every request and answer checked against the
//! public documents; and the checker's teeth, shown on bodies made wrong on purpose.
//!
//! The run fails when a series loses `groupBy` (both documents require it on every series),
//! when an integer field is written as `3.0` (`numReplicas`, tile `x`), or when the sandbox
//! drops a field the document marks required (a source's `timestampValueExpression`, a service's
//! `currentScaling`): the three `*_is_a_violation` tests below feed such bodies to the same
//! checker and expect the violation.

use converge::sandbox::{SandboxHandle, SandboxOptions};

use super::{Checker, Exchange, Report};
use crate::common::{self, ANALYTICS, Converge, Workspace};

/// A sandbox that keeps bodies in its log, with no rate limit (the client's own pacing is
/// raised to match, so the run takes seconds).
fn recording_sandbox() -> SandboxHandle {
    common::sandbox(SandboxOptions {
        rate_limit: false,
        log_bodies: true,
        ..SandboxOptions::default()
    })
}

/// Runs the binary; returns its exit code, failing on an error exit (1) or a crash.
fn run(converge: &Converge, args: &[&str]) -> i32 {
    let out = converge.run(args);
    assert!(
        out.code == 0 || out.code == 2,
        "converge {} exited {}:\n{}",
        args.join(" "),
        out.code,
        out.stderr
    );
    out.code
}

/// An observability-API stack like `docs/preview.yaml`: a tile without `groupBy`, an alert.
const OBSERVABILITY_STACK: &str = r#"version: 1
organization: ${env:CONVERGE_ORG_ID}
observability:
  url: ${env:CONVERGE_OBSERVABILITY_URL}
  token: ${env:CONVERGE_OBS_TOKEN}
stacks:
  obs:
    api: observability
    prune: true
    dashboards:
      api-health:
        name: API health
        tags: [team-api]
        tiles:
          - name: Requests
            x: 0
            y: 0
            w: 6
            h: 4
            series:
              - type: time
                source: Logs
                aggFn: count
                where: "service:api"
                whereLanguage: lucene
          - name: Latency
            x: 6
            y: 0
            w: 6
            h: 4
            series:
              - type: time
                source: Logs
                aggFn: quantile
                level: 0.95
                field: duration
                where: "service:api"
                groupBy: [service]
          # No `where` (every event): still sent as `where: ""`, which the document requires.
          - name: All events
            x: 12
            y: 0
            w: 6
            h: 4
            series:
              - type: time
                source: Logs
                aggFn: count
    alerts:
      busy:
        name: API busy
        dashboard: api-health
        tile: Requests
        threshold: 400
        thresholdType: above
        interval: 5m
        channel: { type: webhook, webhookId: 65f5e4a3b9e77c001a789012 }
        message: Busy
"#;

/// Runs plan, apply, plan, drift, export, preview and `plan --check-queries` over the
/// quickstart and an observability stack; returns the checked log.
fn every_command(checker: &Checker) -> Report {
    let sandbox = recording_sandbox();
    // From the repository root, the client unpaced.
    let converge = Converge::new(&sandbox).rate_limit("100000/1s").in_repo();
    let dir = Workspace::new();
    let obs = dir.write("obs.yaml", OBSERVABILITY_STACK);
    let obs = obs.as_str();
    let quickstart = "examples/quickstart.yaml";
    run(&converge, &["plan", quickstart]);
    run(&converge, &["apply", quickstart, "--yes"]);
    assert_eq!(
        run(&converge, &["plan", "--detailed-exitcode", quickstart]),
        0
    );
    run(&converge, &["drift", quickstart]);
    run(&converge, &["plan", obs]);
    run(&converge, &["apply", obs, "--yes"]);
    run(&converge, &["plan", "--check-queries", obs]);
    run(
        &converge,
        &[
            "preview",
            "alert.obs.busy",
            obs,
            "--end",
            "2026-11-21T06:00:00Z",
        ],
    );
    run(
        &converge,
        &[
            "preview",
            "dashboard.obs.api-health.tile[Latency]",
            obs,
            "--end",
            "2026-11-21T06:00:00Z",
        ],
    );
    run(
        &converge,
        &[
            "export",
            "--service",
            ANALYTICS,
            "--stack",
            ANALYTICS,
            "--observability",
        ],
    );
    run(
        &converge,
        &[
            "preview",
            "alert.obs.busy",
            "docs/preview.yaml",
            "--end",
            "2026-11-21T06:00:00Z",
        ],
    );
    let log = sandbox.request_log();
    assert!(log.len() > 40, "the run made {} requests", log.len());
    checker.check_log(&log)
}

#[test]
fn every_command_speaks_the_public_documents() {
    let Some(checker) = Checker::load() else {
        return;
    };
    let report = every_command(&checker);
    println!(
        "conformance: {} exchanges, {} request bodies and {} response bodies validated, {} allowed differences",
        report.exchanges,
        report.requests,
        report.responses,
        report.allowed.values().sum::<usize>()
    );
    report.assert_clean("every command");
    assert!(report.requests >= 10, "{report:?}");
    assert!(report.responses >= 40, "{report:?}");
}

fn org_path(rest: &str) -> String {
    format!("/v1/organizations/{}{rest}", converge::sandbox::DEMO_ORG)
}

/// The violations of one exchange, as `part at keyword` strings.
fn violations(checker: &Checker, exchange: Exchange<'_>) -> Vec<String> {
    checker
        .check(&exchange)
        .violations
        .iter()
        .map(|v| format!("{} {} {}", v.part, v.at, v.keyword))
        .collect()
}

#[test]
fn a_series_without_group_by_is_a_violation() {
    let Some(checker) = Checker::load() else {
        return;
    };
    let series = |group_by: &str| {
        format!(
            r#"{{"series":[{{"type":"time","sourceId":"s","aggFn":"count","where":""{group_by}}}],"startTime":1,"endTime":2}}"#
        )
    };
    let body = series("");
    let found = violations(
        &checker,
        Exchange {
            method: "POST",
            path: "/api/v2/charts/series",
            request_body: Some(&body),
            ..Exchange::default()
        },
    );
    assert_eq!(found, vec!["request /series/0 required"]);
    let fixed = series(r#","groupBy":[]"#);
    assert!(
        violations(
            &checker,
            Exchange {
                method: "POST",
                path: "/api/v2/charts/series",
                request_body: Some(&fixed),
                ..Exchange::default()
            },
        )
        .is_empty()
    );
    // A dashboard tile's series, on both APIs.
    let tile = r#"{"name":"D","tiles":[{"name":"T","x":0,"y":0,"w":6,"h":4,"series":[{"type":"time","sourceId":"s","aggFn":"count","where":"","whereLanguage":"lucene"}]}]}"#;
    let found = violations(
        &checker,
        Exchange {
            method: "POST",
            path: "/api/v2/dashboards",
            request_body: Some(tile),
            ..Exchange::default()
        },
    );
    assert_eq!(found, vec!["request /tiles/0/series/0 required"]);
    let path = org_path(&format!("/services/{ANALYTICS}/stack/dashboards"));
    let found = violations(
        &checker,
        Exchange {
            method: "POST",
            path: &path,
            request_body: Some(tile),
            ..Exchange::default()
        },
    );
    assert_eq!(found, vec!["request /tiles/0/series/0 oneOf"]);
}

#[test]
fn an_integer_written_as_a_float_is_a_violation() {
    let Some(checker) = Checker::load() else {
        return;
    };
    let path = org_path(&format!("/services/{ANALYTICS}/scaling"));
    let exchange = |body| Exchange {
        method: "PATCH",
        path: &path,
        request_body: Some(body),
        ..Exchange::default()
    };
    assert_eq!(
        violations(&checker, exchange(r#"{"numReplicas":3.0}"#)),
        vec!["request /numReplicas type"]
    );
    assert!(violations(&checker, exchange(r#"{"numReplicas":3}"#)).is_empty());
    // `idleTimeoutMinutes` is a number: `15.0` is fine there.
    assert!(violations(&checker, exchange(r#"{"idleTimeoutMinutes":15.0}"#)).is_empty());
    let tile = r#"{"name":"D","tiles":[{"name":"T","x":0.0,"y":0,"w":6,"h":4}]}"#;
    assert_eq!(
        violations(
            &checker,
            Exchange {
                method: "POST",
                path: "/api/v2/dashboards",
                request_body: Some(tile),
                ..Exchange::default()
            }
        ),
        vec!["request /tiles/0/x type"]
    );
}

#[test]
fn a_required_field_the_sandbox_drops_is_a_violation() {
    let Some(checker) = Checker::load() else {
        return;
    };
    let sandbox = recording_sandbox();
    let client = common::Client::new(&sandbox);
    client.cloud("GET", &format!("/services/{ANALYTICS}/stack/sources"), None);
    client.cloud("GET", &format!("/services/{ANALYTICS}"), None);
    let log = sandbox.request_log();
    checker.check_log(&log).assert_clean("the sandbox as it is");
    let answer = |index: usize| log[index].response_body.clone().expect("a body");
    let checked = |index: usize, body: &str| {
        violations(
            &checker,
            Exchange {
                response_body: Some(body),
                ..Exchange::of(&log[index])
            },
        )
    };
    let mut sources: serde_json::Value = serde_json::from_str(&answer(0)).unwrap();
    sources["result"][0]
        .as_object_mut()
        .unwrap()
        .remove("timestampValueExpression");
    assert_eq!(
        checked(0, &sources.to_string()),
        vec!["response /result/0 oneOf"]
    );
    let mut service: serde_json::Value = serde_json::from_str(&answer(1)).unwrap();
    service["result"]
        .as_object_mut()
        .unwrap()
        .remove("currentScaling");
    assert_eq!(
        checked(1, &service.to_string()),
        vec!["response /result required"]
    );
}
