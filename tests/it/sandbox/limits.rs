//! Every limit of the contract's Limits table (and the sizes of `api-facts.md`): one accepted
//! and one rejected value at each bound, with the 400 naming the member.

use serde_json::{Value, json};

use super::{ANALYTICS, CLICKS, EVENTS, ORDERS, dashboard};
use crate::common::{self, Client};

const REPORTING: &str = "2e4f6a8b-3c5d-4e7f-8a9b-0c1d2e3f4a5b";

/// Sends one cloud PATCH per body; each must be accepted or rejected naming `member`.
fn cloud_cases(client: &Client, path: &str, cases: &[(Value, Option<&str>)]) {
    for (body, rejected_member) in cases {
        let answer = client.cloud("PATCH", path, Some(body.clone()));
        match rejected_member {
            None => assert_eq!(answer.status, 200, "{body} should pass: {}", answer.text),
            Some(member) => {
                assert_eq!(answer.status, 400, "{body} should fail: {}", answer.text);
                let prefix = format!("BAD_REQUEST: request body.{member}: ");
                assert!(
                    answer.error().starts_with(&prefix),
                    "{body}: {}",
                    answer.text
                );
            }
        }
    }
}

#[test]
fn service_scaling_limits() {
    let sandbox = common::fast_sandbox();
    let client = Client::new(&sandbox);
    let analytics = format!("/services/{ANALYTICS}/scaling");
    cloud_cases(
        &client,
        &analytics,
        &[
            // numReplicas 1 to 20, at least 2 for the first service of a warehouse, whole.
            (json!({"numReplicas": 2}), None),
            (json!({"numReplicas": 1}), Some("numReplicas")),
            (json!({"numReplicas": 20}), None),
            (json!({"numReplicas": 21}), Some("numReplicas")),
            (json!({"numReplicas": 2.5}), Some("numReplicas")),
            (json!({"numReplicas": "3"}), Some("numReplicas")),
            // idleTimeoutMinutes at least 5.
            (json!({"idleTimeoutMinutes": 5}), None),
            (json!({"idleTimeoutMinutes": 4}), Some("idleTimeoutMinutes")),
            (json!({"idleScaling": true}), None),
            (json!({"idleScaling": "yes"}), Some("idleScaling")),
            // Memory 24 to 1068 in multiples of 12 (paid service).
            (
                json!({"minTotalMemoryGb": 24, "maxTotalMemoryGb": 48}),
                None,
            ),
            (json!({"minTotalMemoryGb": 12}), Some("minTotalMemoryGb")),
            (json!({"minTotalMemoryGb": 30}), Some("minTotalMemoryGb")),
            (json!({"maxTotalMemoryGb": 1068}), None),
            (json!({"maxTotalMemoryGb": 1080}), Some("maxTotalMemoryGb")),
            (
                json!({"minTotalMemoryGb": 1068, "maxTotalMemoryGb": 1068}),
                None,
            ),
            (
                json!({"minTotalMemoryGb": 96, "maxTotalMemoryGb": 48}),
                Some("minTotalMemoryGb"),
            ),
        ],
    );
    let reporting = format!("/services/{REPORTING}/scaling");
    cloud_cases(
        &client,
        &reporting,
        &[
            // Not the first service of its warehouse: 1 is fine, 0 is not.
            (json!({"numReplicas": 1}), None),
            (json!({"numReplicas": 0}), Some("numReplicas")),
            // Not paid: at most 360.
            (json!({"maxTotalMemoryGb": 360}), None),
            (json!({"maxTotalMemoryGb": 372}), Some("maxTotalMemoryGb")),
        ],
    );
    let not_object = client.cloud("PATCH", &analytics, Some(json!([1])));
    assert_eq!(not_object.status, 400);
    assert!(
        not_object
            .error()
            .starts_with("BAD_REQUEST: request body: ")
    );
}

#[test]
fn pipe_scaling_limits() {
    let sandbox = common::fast_sandbox();
    let client = Client::new(&sandbox);
    let pipe = |id: &str| format!("/services/{ANALYTICS}/pipes/{id}/scaling");
    cloud_cases(
        &client,
        &pipe(ORDERS),
        &[
            (json!({"replicas": 1}), None),
            (json!({"replicas": 0}), Some("replicas")),
            (json!({"replicas": 10}), None),
            (json!({"replicas": 11}), Some("replicas")),
            (json!({"replicas": 1.5}), Some("replicas")),
            (json!({"replicas": null}), None),
        ],
    );
    cloud_cases(
        &client,
        &pipe(EVENTS),
        &[
            (json!({"concurrency": 0}), None),
            (json!({"concurrency": -1}), Some("concurrency")),
            (json!({"concurrency": 34}), None),
            (json!({"concurrency": 35}), Some("concurrency")),
            // Scaling fields apply by source kind.
            (json!({"replicas": 2}), Some("replicas")),
        ],
    );
    cloud_cases(
        &client,
        &pipe(CLICKS),
        &[
            (json!({"replicaCpuMillicores": 125}), None),
            (
                json!({"replicaCpuMillicores": 124}),
                Some("replicaCpuMillicores"),
            ),
            (json!({"replicaCpuMillicores": 2000}), None),
            (
                json!({"replicaCpuMillicores": 2001}),
                Some("replicaCpuMillicores"),
            ),
            (
                json!({"replicaCpuMillicores": 500.5}),
                Some("replicaCpuMillicores"),
            ),
            (json!({"replicaMemoryGb": 0.5}), None),
            (json!({"replicaMemoryGb": 0.4}), Some("replicaMemoryGb")),
            (json!({"replicaMemoryGb": 8}), None),
            (json!({"replicaMemoryGb": 8.5}), Some("replicaMemoryGb")),
            (json!({"replicaMemoryGb": 2.5}), None),
        ],
    );
}

fn series_body(series: usize, extra: Value) -> Value {
    let one = json!({"sourceId": "s", "aggFn": "count", "where": "", "groupBy": []});
    let mut body = json!({
        "series": vec![one; series],
        "startTime": 1_700_000_000_000_i64,
        "endTime": 1_700_003_600_000_i64,
    });
    for (key, value) in extra.as_object().unwrap() {
        body[key] = value.clone();
    }
    body
}

#[test]
fn chart_series_limits() {
    let sandbox = common::fast_sandbox();
    let client = Client::new(&sandbox);
    let cases = [
        (series_body(1, json!({})), None),
        (series_body(0, json!({})), Some("series")),
        (series_body(5, json!({})), None),
        (series_body(6, json!({})), Some("series")),
        (series_body(1, json!({"granularity": "1h"})), None),
        (series_body(1, json!({"granularity": "30s"})), None),
        (
            series_body(1, json!({"granularity": "3h"})),
            Some("granularity"),
        ),
        (series_body(2, json!({"seriesReturnType": "ratio"})), None),
        (series_body(1, json!({"seriesReturnType": "column"})), None),
        (
            series_body(1, json!({"seriesReturnType": "row"})),
            Some("seriesReturnType"),
        ),
        (
            series_body(1, json!({"series": [{"sourceId": "s", "aggFn": "median"}]})),
            Some("series[0].aggFn"),
        ),
        // Epoch milliseconds up to the end of year 9999; later times are refused, not
        // stepped through until the bucket arithmetic overflows.
        (
            series_body(
                1,
                json!({"startTime": 253_402_300_000_000_i64, "endTime": 253_402_300_799_999_i64}),
            ),
            None,
        ),
        (
            series_body(
                1,
                json!({"startTime": 9_223_362_036_854_775_807_i64, "endTime": 1e19, "granularity": "30d"}),
            ),
            Some("startTime"),
        ),
        (
            series_body(1, json!({"startTime": 0, "endTime": 1e19})),
            Some("endTime"),
        ),
    ];
    for (body, rejected) in cases {
        let answer = client.obs("POST", "/charts/series", Some(body.clone()));
        match rejected {
            None => assert_eq!(answer.status, 200, "{body}: {}", answer.text),
            Some(member) => {
                assert_eq!(answer.status, 400, "{body}: {}", answer.text);
                // charts/series answers {error}, not {message}.
                let error = answer.json()["error"].as_str().unwrap().to_string();
                assert!(error.starts_with(&format!("{member}: ")), "{error}");
            }
        }
    }
}

#[test]
fn dashboard_and_alert_sizes() {
    let sandbox = common::fast_sandbox();
    let client = Client::new(&sandbox);
    let with = |edit: &dyn Fn(&mut Value)| {
        let mut body = dashboard("sizes", &["a"]);
        edit(&mut body);
        body
    };
    let cases: Vec<(Value, Option<&str>)> = vec![
        (with(&|b| b["tiles"][0]["x"] = json!(23)), None),
        (
            with(&|b| b["tiles"][0]["x"] = json!(24)),
            Some("tiles[0].x"),
        ),
        (with(&|b| b["tiles"][0]["w"] = json!(24)), None),
        (with(&|b| b["tiles"][0]["w"] = json!(0)), Some("tiles[0].w")),
        (with(&|b| b["tags"] = json!(vec!["t"; 50])), None),
        (with(&|b| b["tags"] = json!(vec!["t"; 51])), Some("tags")),
        (with(&|b| b["tags"] = json!(["x".repeat(32)])), None),
        (
            with(&|b| b["tags"] = json!(["x".repeat(33)])),
            Some("tags[0]"),
        ),
        (with(&|b| b["name"] = json!("n".repeat(1024))), None),
        (with(&|b| b["name"] = json!("n".repeat(1025))), Some("name")),
        (
            with(&|b| b["tiles"][0]["series"][0]["type"] = json!("pie")),
            Some("tiles[0].series[0].type"),
        ),
        (
            with(&|b| {
                let tile = b["tiles"][0].clone();
                b["tiles"] = json!(vec![tile; 500]);
            }),
            None,
        ),
        (
            with(&|b| {
                let tile = b["tiles"][0].clone();
                b["tiles"] = json!(vec![tile; 501]);
            }),
            Some("tiles"),
        ),
    ];
    for (i, (mut body, rejected)) in cases.into_iter().enumerate() {
        // One name per dashboard: the server keeps one dashboard of a name.
        if body["name"] == "sizes" {
            body["name"] = json!(format!("sizes {i}"));
        }
        let answer = client.obs("POST", "/dashboards", Some(body));
        match rejected {
            None => assert_eq!(answer.status, 200, "{}", answer.text),
            Some(member) => {
                assert_eq!(answer.status, 400, "{member}: {}", answer.text);
                let message = answer.json()["message"].as_str().unwrap().to_string();
                // Today's zod refusals carry the server's prefix.
                let named = message.trim_start_matches("Body validation failed: ");
                assert!(named.starts_with(&format!("{member}: ")), "{message}");
            }
        }
    }

    let made = client
        .obs("POST", "/dashboards", Some(dashboard("alerts", &["a"])))
        .data();
    let (d, t) = (
        made["id"].as_str().unwrap().to_string(),
        made["tiles"][0]["id"].as_str().unwrap().to_string(),
    );
    let alert_with = |key: &str, value: Value| {
        let mut body = super::alert("a", &d, &t);
        body[key] = value;
        body
    };
    let cases = [
        (alert_with("name", json!("n".repeat(512))), None),
        (alert_with("name", json!("n".repeat(513))), Some("name")),
        (alert_with("message", json!("m".repeat(4096))), None),
        (
            alert_with("message", json!("m".repeat(4097))),
            Some("message"),
        ),
        (alert_with("interval", json!("1d")), None),
        (alert_with("interval", json!("2m")), Some("interval")),
        (alert_with("thresholdType", json!("below")), None),
        (
            alert_with("thresholdType", json!("exactly")),
            Some("thresholdType"),
        ),
        (
            alert_with("channel", json!({"type": "email"})),
            Some("channel.type"),
        ),
        (
            alert_with("tileId", json!("000000000000000000000000")),
            Some("tileId"),
        ),
    ];
    for (body, rejected) in cases {
        let answer = client.obs("POST", "/alerts", Some(body));
        match rejected {
            None => assert_eq!(answer.status, 200, "{}", answer.text),
            Some(member) => {
                assert_eq!(answer.status, 400, "{member}: {}", answer.text);
                let message = answer.json()["message"].as_str().unwrap().to_string();
                // Today's zod refusals carry the server's prefix.
                let named = message.trim_start_matches("Body validation failed: ");
                assert!(named.starts_with(&format!("{member}: ")), "{message}");
            }
        }
    }
}

#[test]
fn a_series_without_group_by_is_refused_in_each_api_s_own_error_shape() {
    let sandbox = common::fast_sandbox();
    let client = Client::new(&sandbox);
    let mut body = dashboard("No grouping", &["Requests"]);
    body["tiles"][0]["series"][0]
        .as_object_mut()
        .unwrap()
        .remove("groupBy");

    // The managed stack: the cloud API's `{status, error: "CODE: field: message", requestId}`.
    let managed = client.cloud(
        "POST",
        &format!("/services/{ANALYTICS}/stack/dashboards"),
        Some(body.clone()),
    );
    assert_eq!(managed.status, 400, "{}", managed.text);
    assert_eq!(
        managed.error(),
        "BAD_REQUEST: request body.tiles[0].series[0].groupBy: is required"
    );
    assert!(managed.json()["requestId"].is_string());

    // The observability API: `{message}` for dashboards, `{error}` for charts/series.
    let standalone = client.obs("POST", "/dashboards", Some(body));
    assert_eq!(standalone.status, 400);
    assert_eq!(
        standalone.json(),
        json!({"message": "tiles[0].series[0].groupBy: is required"})
    );
    let mut query = series_body(2, json!({}));
    query["series"][1]
        .as_object_mut()
        .unwrap()
        .remove("groupBy");
    let chart = client.obs("POST", "/charts/series", Some(query));
    assert_eq!(chart.status, 400);
    assert_eq!(
        chart.json(),
        json!({"error": "series[1].groupBy: is required"})
    );
    // `[]` is "no grouping", and accepted.
    assert_eq!(
        client
            .obs("POST", "/charts/series", Some(series_body(2, json!({}))))
            .status,
        200
    );
}
