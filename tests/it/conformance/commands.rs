//! Every command through the real binary, with every request and answer checked against the
//! public documents; and the checker's teeth, shown on bodies made wrong on purpose.
//!
//! The run fails when a series loses `groupBy` (both documents require it on every series),
//! when an integer field is written as `3.0` (`numReplicas`, tile `x`), or when the sandbox
//! drops a field the document marks required (a source's `timestampValueExpression`, a service's
//! `currentScaling`): the three `*_is_a_violation` tests below feed such bodies to the same
//! checker and expect the violation.

use converge::sandbox::{Generation, SandboxHandle, SandboxOptions};

use super::{Checker, Exchange, Report};
use crate::common::{self, ANALYTICS, Converge, Workspace};

/// A sandbox of `generation` that keeps bodies in its log, with no rate limit (the client's
/// own pacing is raised to match, so the run takes seconds).
fn recording_sandbox(generation: Generation) -> SandboxHandle {
    common::sandbox(SandboxOptions {
        rate_limit: false,
        log_bodies: true,
        generation,
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

/// Runs plan, apply, plan, drift, export, preview and `plan --check-queries` (before and after
/// apply, so dashboards are validated) over the
/// quickstart and an observability stack against a sandbox of `generation`; returns the
/// checked log.
fn every_command(checker: &Checker, generation: Generation) -> Report {
    let sandbox = recording_sandbox(generation);
    // From the repository root, the client unpaced.
    let converge = Converge::new(&sandbox).rate_limit("100000/1s").in_repo();
    let dir = Workspace::new();
    let obs = dir.write("obs.yaml", OBSERVABILITY_STACK);
    let obs = obs.as_str();
    let quickstart = "examples/quickstart.yaml";
    run(&converge, &["plan", quickstart]);
    // Every dashboard is created: each is sent to the managed stack's validation.
    run(&converge, &["plan", "--check-queries", quickstart]);
    run(&converge, &["apply", quickstart, "--yes"]);
    assert_eq!(
        run(&converge, &["plan", "--detailed-exitcode", quickstart]),
        0
    );
    run(&converge, &["drift", quickstart]);
    run(&converge, &["plan", obs]);
    run(&converge, &["plan", "--check-queries", obs]);
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

/// The contract's generation (`--generation contract`) against `observability-api.openapi.json`.
#[test]
fn every_command_speaks_the_public_documents() {
    speaks_the_documents_of(Generation::Contract);
}

/// Today's generation (the default) against `observability-api.current.openapi.json`.
#[test]
fn every_command_speaks_todays_public_documents() {
    speaks_the_documents_of(Generation::Current);
}

fn speaks_the_documents_of(generation: Generation) {
    let Some(checker) = Checker::load_for(generation) else {
        return;
    };
    let report = every_command(&checker, generation);
    println!(
        "conformance ({generation:?}): {} exchanges, {} request bodies and {} response bodies validated, {} allowed differences",
        report.exchanges,
        report.requests,
        report.responses,
        report.allowed.values().sum::<usize>()
    );
    report.assert_clean(&format!("every command ({generation:?})"));
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
    let sandbox = recording_sandbox(Generation::Contract);
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

/// The sandbox's dashboard validation, on both APIs of today's generation, for a valid body
/// and one the server refuses: requests and answers as the documents describe them (200 with
/// `{valid, errors, normalized}`, bare on the observability API, in `result` on the cloud).
#[test]
fn the_sandboxs_dashboard_validation_speaks_the_documents() {
    let Some(checker) = Checker::load_for(Generation::Current) else {
        return;
    };
    let sandbox = recording_sandbox(Generation::Current);
    let client = common::Client::new(&sandbox);
    let stored = (
        common::dashboards(&sandbox),
        common::standalone_dashboards(&sandbox),
    );
    sandbox.reset_log();
    let body = |source: &str| {
        serde_json::json!({
            "name": "D",
            "tags": [],
            "tiles": [{
                "name": "T", "x": 0, "y": 0, "w": 6, "h": 4,
                "config": {
                    "displayType": "line",
                    "sourceId": source,
                    "select": [{"aggFn": "count", "where": "", "whereLanguage": "lucene"}],
                },
            }],
        })
    };
    let mut answers = Vec::new();
    for source in ["65f5e4a30000000200000001", "logs-1"] {
        let obs = client.obs("POST", "/dashboards/validate", Some(body(source)));
        answers.push(obs.json());
        let cloud = client.cloud(
            "POST",
            &format!("/services/{ANALYTICS}/stack/dashboards/validate"),
            Some(body(source)),
        );
        answers.push(cloud.result());
    }
    let verdicts: Vec<Option<bool>> = answers.iter().map(|a| a["valid"].as_bool()).collect();
    assert_eq!(verdicts, [Some(true), Some(true), Some(false), Some(false)]);
    assert_eq!(
        answers[2]["errors"],
        serde_json::json!([{"path": "tiles.0.config.sourceId", "message": "Invalid ObjectId"}])
    );
    assert_eq!(answers[2]["normalized"], serde_json::Value::Null);
    assert_eq!(answers[0]["normalized"]["name"], "D");
    let log = sandbox.request_log();
    assert_eq!(
        (
            common::dashboards(&sandbox),
            common::standalone_dashboards(&sandbox)
        ),
        stored,
        "nothing is stored"
    );
    assert_eq!(log.len(), 4, "{log:?}");
    let report = checker.check_log(&log);
    report.assert_clean("dashboard validation");
    assert_eq!(report.responses, 4, "{report:?}");
}
