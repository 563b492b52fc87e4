//! The behaviours of the real services that trip reconcilers (`api-facts.md`), plus
//! persistence and charts/series.

use std::time::{Duration, Instant};

use converge::api::wire::Pipe;
use converge::sandbox::{KeyPair, Quirk, SandboxOptions, Seed};
use serde_json::{Value, json};

use super::{ANALYTICS, EVENTS, ORDERS, alert, dashboard};
use crate::common::{self, Client};

fn tile_ids(dashboard: &Value) -> Vec<String> {
    dashboard["tiles"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["id"].as_str().unwrap().to_string())
        .collect()
}

#[test]
fn tile_ids_are_assigned_by_the_server() {
    let sandbox = common::fast_sandbox();
    let client = Client::new(&sandbox);
    let mut body = dashboard("ids", &["a", "b"]);
    body["tiles"][0]["id"] = json!("client-chosen-id");
    let created = client.obs("POST", "/dashboards", Some(body)).data();
    let ids = tile_ids(&created);
    assert!(
        !ids.contains(&"client-chosen-id".to_string()),
        "ignored on create"
    );
    assert!(ids.iter().all(|id| id.len() == 24));

    // On update a tile keeps its id only if it exists on the dashboard.
    let mut update = dashboard("ids", &["a", "b", "c"]);
    update["tiles"][0]["id"] = json!(ids[0]);
    update["tiles"][1]["id"] = json!("made-up");
    let updated = client
        .obs(
            "PUT",
            &format!("/dashboards/{}", created["id"].as_str().unwrap()),
            Some(update),
        )
        .data();
    let new_ids = tile_ids(&updated);
    assert_eq!(new_ids[0], ids[0]);
    assert_ne!(new_ids[1], "made-up");
    assert!(!ids.contains(&new_ids[1]) && !ids.contains(&new_ids[2]));
}

#[test]
fn put_replaces_the_whole_dashboard() {
    let sandbox = common::fast_sandbox();
    let client = Client::new(&sandbox);
    let created = client
        .obs("POST", "/dashboards", Some(dashboard("whole", &["a"])))
        .data();
    assert_eq!(created["tags"], json!(["team-api"]));
    let id = created["id"].as_str().unwrap();
    let updated = client
        .obs(
            "PUT",
            &format!("/dashboards/{id}"),
            Some(json!({"name": "whole"})),
        )
        .data();
    assert_eq!(updated["tags"], json!([]));
    assert_eq!(updated["tiles"], json!([]));
}

/// An alert a dashboard update deleted with its tile: the contract's generation answers its
/// DELETE with `{}`, today's servers with 404.
#[test]
fn deleting_an_alert_that_went_with_its_tile_answers_404_on_todays_servers() {
    for newer in [false, true] {
        let sandbox = common::sandbox(SandboxOptions {
            rate_limit: false,
            quirks: if newer {
                vec![Quirk::NewerGeneration]
            } else {
                Vec::new()
            },
            ..SandboxOptions::default()
        });
        let client = Client::new(&sandbox);
        let created = client
            .obs(
                "POST",
                "/dashboards",
                Some(dashboard("d", &["keep", "drop"])),
            )
            .data();
        let id = created["id"].as_str().unwrap().to_string();
        let tiles = tile_ids(&created);
        let dropped = client
            .obs("POST", "/alerts", Some(alert("dropped", &id, &tiles[1])))
            .data();
        let mut update = dashboard("d", &["keep"]);
        update["tiles"][0]["id"] = json!(tiles[0]);
        client.obs("PUT", &format!("/dashboards/{id}"), Some(update));
        let alert_id = dropped["id"].as_str().unwrap();
        let answer = client.obs("DELETE", &format!("/alerts/{alert_id}"), None);
        assert_eq!(
            answer.status,
            if newer { 404 } else { 200 },
            "{}",
            answer.text
        );
    }
}

#[test]
fn alerts_follow_their_tiles_and_dashboards() {
    for managed in [false, true] {
        let sandbox = common::fast_sandbox();
        let client = Client::new(&sandbox);
        let call = |method: &str, path: &str, body: Option<Value>| {
            if managed {
                client
                    .cloud(method, &format!("/services/{ANALYTICS}/stack{path}"), body)
                    .result()
            } else {
                client.obs(method, path, body).data()
            }
        };
        let created = call(
            "POST",
            "/dashboards",
            Some(dashboard("d", &["keep", "drop"])),
        );
        let id = created["id"].as_str().unwrap().to_string();
        let tiles = tile_ids(&created);
        let kept = call("POST", "/alerts", Some(alert("kept", &id, &tiles[0])));
        let dropped = call("POST", "/alerts", Some(alert("dropped", &id, &tiles[1])));

        // The update carries the kept tile's id forward and leaves the other tile out.
        let mut update = dashboard("d", &["keep"]);
        update["tiles"][0]["id"] = json!(tiles[0]);
        call("PUT", &format!("/dashboards/{id}"), Some(update));
        let names: Vec<Value> = call("GET", "/alerts", None)
            .as_array()
            .unwrap()
            .iter()
            .map(|a| a["name"].clone())
            .collect();
        assert!(names.contains(&json!("kept")), "managed={managed}");
        assert!(!names.contains(&json!("dropped")), "managed={managed}");
        let _ = dropped;

        // Deleting the dashboard deletes its alerts.
        if managed {
            client.cloud(
                "DELETE",
                &format!("/services/{ANALYTICS}/stack/dashboards/{id}"),
                None,
            );
        } else {
            client.obs("DELETE", &format!("/dashboards/{id}"), None);
        }
        let remaining = call("GET", "/alerts", None);
        assert!(
            !remaining
                .as_array()
                .unwrap()
                .iter()
                .any(|a| a["id"] == kept["id"]),
            "managed={managed}"
        );
    }
}

#[test]
fn scaling_becomes_visible_after_the_delay() {
    // A delay no test outlives: the read still shows the old values.
    let slow = common::sandbox(SandboxOptions {
        rate_limit: false,
        scaling_delay: Duration::from_secs(3600),
        ..SandboxOptions::default()
    });
    let client = Client::new(&slow);
    let answer = client
        .cloud(
            "PATCH",
            &format!("/services/{ANALYTICS}/scaling"),
            Some(json!({"numReplicas": 5})),
        )
        .result();
    assert_eq!(
        answer["numReplicas"], 5.0,
        "the answer shows what was accepted"
    );
    let read = client
        .cloud("GET", &format!("/services/{ANALYTICS}"), None)
        .result();
    assert_eq!(read["numReplicas"], 2.0);
    client.cloud(
        "PATCH",
        &format!("/services/{ANALYTICS}/pipes/{EVENTS}/scaling"),
        Some(json!({"concurrency": 8})),
    );
    let pipe = client
        .cloud(
            "GET",
            &format!("/services/{ANALYTICS}/pipes/{EVENTS}"),
            None,
        )
        .result();
    assert_eq!(pipe["scaling"]["concurrency"], 4);

    // A short delay: the change shows up eventually.
    let quick = common::sandbox(SandboxOptions {
        rate_limit: false,
        scaling_delay: Duration::from_millis(200),
        ..SandboxOptions::default()
    });
    let client = Client::new(&quick);
    client.cloud(
        "PATCH",
        &format!("/services/{ANALYTICS}/scaling"),
        Some(json!({"numReplicas": 5})),
    );
    let give_up = Instant::now() + Duration::from_secs(30);
    loop {
        let read = client
            .cloud("GET", &format!("/services/{ANALYTICS}"), None)
            .result();
        if read["numReplicas"] == 5.0 {
            break;
        }
        assert!(Instant::now() < give_up, "scaling never became visible");
        std::thread::sleep(Duration::from_millis(50));
    }
}

#[test]
fn a_delay_too_long_to_ever_elapse_is_accepted_without_overflow() {
    // `--scaling-delay` takes any u64 of milliseconds: the due time must saturate, not overflow.
    let sandbox = common::sandbox(SandboxOptions {
        rate_limit: false,
        scaling_delay: Duration::MAX,
        ..SandboxOptions::default()
    });
    let client = Client::new(&sandbox);
    let writes = [
        (
            format!("/services/{ANALYTICS}/scaling"),
            json!({"numReplicas": 5}),
        ),
        (
            format!("/services/{ANALYTICS}/pipes/{EVENTS}/scaling"),
            json!({"concurrency": 8}),
        ),
        (
            format!("/services/{ANALYTICS}/state"),
            json!({"command": "stop"}),
        ),
    ];
    for (path, body) in writes {
        let answer = client.cloud("PATCH", &path, Some(body));
        assert_eq!(answer.status, 200, "{path}: {}", answer.text);
    }
    let read = client
        .cloud("GET", &format!("/services/{ANALYTICS}"), None)
        .result();
    assert_eq!(read["numReplicas"], 2.0, "still pending");
}

#[test]
fn state_changes_take_the_delay_and_writes_meanwhile_conflict() {
    let sandbox = common::sandbox(SandboxOptions {
        rate_limit: false,
        scaling_delay: Duration::from_secs(3600),
        ..SandboxOptions::default()
    });
    let client = Client::new(&sandbox);
    let stopping = client
        .cloud(
            "PATCH",
            &format!("/services/{ANALYTICS}/state"),
            Some(json!({"command": "stop"})),
        )
        .result();
    assert_eq!(stopping["state"], "stopping");
    let conflict = client.cloud(
        "PATCH",
        &format!("/services/{ANALYTICS}/scaling"),
        Some(json!({"numReplicas": 3})),
    );
    assert_eq!(conflict.status, 409);
    assert!(
        conflict.error().starts_with("CONFLICT: "),
        "{}",
        conflict.text
    );
}

#[test]
fn pipe_writes_fail_with_424_unless_the_service_runs() {
    let sandbox = common::sandbox(SandboxOptions {
        rate_limit: false,
        seed: Seed::Large,
        ..SandboxOptions::default()
    });
    let client = Client::new(&sandbox);
    let services = client.cloud("GET", "/services", None).result();
    let idle = services
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["state"] == "idle")
        .expect("the large seed has idle services");
    let service = idle["id"].as_str().unwrap();
    let pipes = client
        .cloud("GET", &format!("/services/{service}/pipes"), None)
        .result();
    let kafka = pipes
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["source"]["kafka"].is_object())
        .or_else(|| pipes.as_array().unwrap().first())
        .unwrap();
    let pipe = kafka["id"].as_str().unwrap();
    let body = if kafka["source"]["kafka"].is_object() {
        json!({"replicas": 3})
    } else {
        json!({})
    };
    let refused = client.cloud(
        "PATCH",
        &format!("/services/{service}/pipes/{pipe}/scaling"),
        Some(body.clone()),
    );
    assert_eq!(refused.status, 424);
    assert!(refused.error().starts_with("FAILED_DEPENDENCY: "));
    assert!(
        refused.error().ends_with("Current state: idle"),
        "{}",
        refused.text
    );
    let delete = client.cloud("DELETE", &format!("/services/{service}/pipes/{pipe}"), None);
    assert_eq!(delete.status, 424);

    client.cloud(
        "PATCH",
        &format!("/services/{service}/state"),
        Some(json!({"command": "awake"})),
    );
    let accepted = client.cloud(
        "PATCH",
        &format!("/services/{service}/pipes/{pipe}/scaling"),
        Some(body),
    );
    assert_eq!(accepted.status, 200, "{}", accepted.text);
}

#[test]
fn quantity_string_quirk_sends_cpu_and_memory_as_quantities() {
    let sandbox = common::sandbox(SandboxOptions {
        rate_limit: false,
        quirks: vec![Quirk::QuantityStrings],
        ..SandboxOptions::default()
    });
    let client = Client::new(&sandbox);
    let orders = client
        .cloud(
            "GET",
            &format!("/services/{ANALYTICS}/pipes/{ORDERS}"),
            None,
        )
        .result();
    assert_eq!(orders["scaling"]["replicaCpuMillicores"], "250m");
    assert_eq!(orders["scaling"]["replicaMemoryGb"], "1Gi");
    assert_eq!(orders["scaling"]["replicas"], 2);
    // The client's tolerant reader understands them.
    let pipe: Pipe = serde_json::from_value(orders).unwrap();
    let scaling = pipe.scaling.unwrap();
    assert_eq!(scaling.replica_cpu_millicores, Some(250));
    assert_eq!(scaling.replica_memory_gb, Some(1.0));
}

#[test]
fn scaling_gaps_quirk_reads_in_flight_members_as_null() {
    let sandbox = common::sandbox(SandboxOptions {
        rate_limit: false,
        scaling_delay: Duration::from_secs(3600),
        quirks: vec![Quirk::ScalingGaps],
        ..SandboxOptions::default()
    });
    let client = Client::new(&sandbox);
    let orders = format!("/services/{ANALYTICS}/pipes/{ORDERS}");
    client.cloud(
        "PATCH",
        &format!("{orders}/scaling"),
        Some(json!({"replicas": 4})),
    );
    let read = client.cloud("GET", &orders, None).result();
    assert_eq!(read["scaling"]["replicas"], Value::Null);
    assert_eq!(
        read["scaling"]["replicaCpuMillicores"], 250,
        "untouched members stay"
    );
}

#[test]
fn cloud_rate_limit_is_ten_per_ten_seconds_per_key() {
    let sandbox = common::sandbox(SandboxOptions {
        keys: vec![
            KeyPair {
                id: "sandbox-key".into(),
                secret: converge::api::wire::Secret("sandbox-secret".into()),
            },
            KeyPair {
                id: "other".into(),
                secret: converge::api::wire::Secret("other-secret".into()),
            },
        ],
        ..SandboxOptions::default()
    });
    let client = Client::new(&sandbox);
    for n in 0..10 {
        assert_eq!(
            client.cloud("GET", "/services", None).status,
            200,
            "request {n}"
        );
    }
    let limited = client.cloud("GET", "/services", None);
    assert_eq!(limited.status, 429);
    assert_eq!(limited.json(), json!({"error": "TOO_MANY_REQUESTS"}));
    let reset: u64 = limited.headers["x-ratelimit-reset"]
        .to_str()
        .unwrap()
        .parse()
        .unwrap();
    assert!((1..=10).contains(&reset), "{reset}");
    // Another key has its own window, and control routes are never limited.
    let other = format!(
        "Basic {}",
        base64::Engine::encode(
            &base64::engine::general_purpose::STANDARD,
            "other:other-secret"
        )
    );
    let path = format!("/v1/organizations/{}/services", converge::sandbox::DEMO_ORG);
    assert_eq!(client.raw("GET", &path, Some(&other), None).status, 200);
    assert_eq!(
        client.raw("GET", "/_sandbox/requests", None, None).status,
        200
    );
}

#[test]
fn observability_rate_limit_is_a_hundred_per_minute() {
    let sandbox = common::sandbox(SandboxOptions::default());
    let client = Client::new(&sandbox);
    for n in 0..100 {
        assert_eq!(
            client.obs("GET", "/dashboards", None).status,
            200,
            "request {n}"
        );
    }
    let limited = client.obs("GET", "/dashboards", None);
    assert_eq!(limited.status, 429);
    let reset: u64 = limited.headers["x-ratelimit-reset"]
        .to_str()
        .unwrap()
        .parse()
        .unwrap();
    assert!((1..=60).contains(&reset), "{reset}");
    // The cloud API's budget is separate.
    assert_eq!(client.cloud("GET", "/services", None).status, 200);
}

#[test]
fn state_file_survives_a_restart_without_secrets() {
    let dir = tempfile::tempdir().unwrap();
    let state = dir.path().join("nested").join("sandbox.json");
    {
        let sandbox = converge::sandbox::in_process(&state).unwrap();
        assert!(state.exists(), "created from the demo seed");
        let client = Client::new(&sandbox);
        client.cloud(
            "PATCH",
            &format!("/services/{ANALYTICS}/pipes/{ORDERS}/scaling"),
            Some(json!({"replicas": 7})),
        );
        let created = client
            .obs("POST", "/dashboards", Some(dashboard("persisted", &["a"])))
            .data();
        assert_eq!(created["name"], "persisted");
    }
    let text = std::fs::read_to_string(&state).unwrap();
    assert!(
        !text.contains("AccountKey"),
        "no connection strings on disk"
    );
    assert!(
        !text.contains("BEGIN CERTIFICATE"),
        "no certificates on disk"
    );
    assert!(!dir.path().join("nested").join("sandbox.json.tmp").exists());

    let sandbox = converge::sandbox::in_process(&state).unwrap();
    let client = Client::new(&sandbox);
    let orders = client
        .cloud(
            "GET",
            &format!("/services/{ANALYTICS}/pipes/{ORDERS}"),
            None,
        )
        .result();
    assert_eq!(orders["scaling"]["replicas"], 7);
    // Secrets come back, derived again, so leak tests still have something to catch.
    assert!(
        orders["source"]["kafka"]["caCertificate"]
            .as_str()
            .unwrap()
            .contains("BEGIN CERTIFICATE")
    );
    let events = client
        .cloud(
            "GET",
            &format!("/services/{ANALYTICS}/pipes/{EVENTS}"),
            None,
        )
        .result();
    assert!(
        events["source"]["objectStorage"]["connectionString"]
            .as_str()
            .unwrap()
            .contains("AccountKey=")
    );
    let dashboards = client.obs("GET", "/dashboards", None).data();
    assert_eq!(dashboards[0]["name"], "persisted");
}

fn series_request(extra: Value) -> Value {
    let mut body = json!({
        "series": [
            {"sourceId": "logs", "aggFn": "count", "where": "level:error", "groupBy": []},
            {"sourceId": "logs", "aggFn": "quantile", "field": "duration", "where": "", "groupBy": []}
        ],
        "startTime": 1_700_000_123_456_i64,
        "endTime": 1_700_021_723_456_i64,
        "granularity": "5m"
    });
    for (key, value) in extra.as_object().unwrap() {
        body[key] = value.clone();
    }
    body
}

#[test]
fn chart_series_is_deterministic_aligned_and_shaped() {
    let sandbox = common::fast_sandbox();
    let client = Client::new(&sandbox);
    let first = client.obs("POST", "/charts/series", Some(series_request(json!({}))));
    let second = client.obs("POST", "/charts/series", Some(series_request(json!({}))));
    assert_eq!(first.text, second.text, "same request, same bytes");
    let points = first.data();
    let points = points.as_array().unwrap();
    // 6 hours in 5-minute buckets: 72 or 73 buckets, a few left out as empty.
    assert!((60..=73).contains(&points.len()), "{}", points.len());
    for point in points {
        let ts = point["ts_bucket"].as_i64().unwrap();
        assert_eq!(ts % 300_000, 0, "aligned to the granularity");
        assert!((1_700_000_100_000..1_700_021_723_456).contains(&ts));
        let count = point["series_0.data"].as_f64().unwrap();
        assert_eq!(count.fract(), 0.0, "counts are whole numbers");
        assert!(point["series_1.data"].is_number());
    }

    let auto = client
        .obs(
            "POST",
            "/charts/series",
            Some(series_request(json!({"granularity": "auto"}))),
        )
        .data();
    let n = auto.as_array().unwrap().len();
    assert!((40..=75).contains(&n), "auto aims at about 60 buckets: {n}");

    let ratio = client
        .obs(
            "POST",
            "/charts/series",
            Some(series_request(json!({"seriesReturnType": "ratio"}))),
        )
        .data();
    assert!(ratio[0].get("series_1.data").is_none());
    assert!(ratio[0]["series_0.data"].is_number());

    let mut grouped = series_request(json!({}));
    grouped["series"][0]["groupBy"] = json!(["service"]);
    grouped["series"][1]["groupBy"] = json!(["service"]);
    let grouped = client.obs("POST", "/charts/series", Some(grouped)).data();
    assert!(grouped[0]["group"].is_array());

    let strings = common::sandbox(SandboxOptions {
        rate_limit: false,
        quirks: vec![Quirk::NumberStrings],
        ..SandboxOptions::default()
    });
    let quirky = Client::new(&strings)
        .obs("POST", "/charts/series", Some(series_request(json!({}))))
        .data();
    assert!(quirky[0]["series_0.data"].is_string());
}

/// Today's observability API reads `channels` the way the server's own check does: 1 to 10,
/// no duplicates, `channel` beside them only as their first; it answers both. The contract's
/// generation strips the unknown member.
#[test]
fn alert_channels_are_checked_and_mirrored_on_todays_servers() {
    let webhook = |id: &str| json!({"type": "webhook", "webhookId": id});
    for newer in [false, true] {
        let sandbox = common::sandbox(SandboxOptions {
            rate_limit: false,
            quirks: if newer {
                vec![Quirk::NewerGeneration]
            } else {
                Vec::new()
            },
            ..SandboxOptions::default()
        });
        let client = Client::new(&sandbox);
        let created = client
            .obs("POST", "/dashboards", Some(dashboard("d", &["t"])))
            .data();
        let id = created["id"].as_str().unwrap().to_string();
        let tile = tile_ids(&created).remove(0);
        let with = |channels: Value, channel: Option<Value>| {
            let mut body = alert("a", &id, &tile);
            body["channels"] = channels;
            match channel {
                Some(one) => body["channel"] = one,
                None => {
                    body.as_object_mut().unwrap().remove("channel");
                }
            }
            client.obs("POST", "/alerts", Some(body))
        };
        let two = json!([webhook("w1"), webhook("w2")]);
        let answer = with(two.clone(), None);
        if !newer {
            // Stripped: no channel left.
            assert_eq!(answer.status, 400, "{}", answer.text);
            continue;
        }
        assert_eq!(answer.status, 200, "{}", answer.text);
        let made = answer.data();
        assert_eq!(made["channels"], two);
        assert_eq!(made["channel"], webhook("w1"));
        let echoed = with(two.clone(), Some(webhook("w1")));
        assert_eq!(echoed.status, 200, "{}", echoed.text);
        for (channels, channel) in [
            (two.clone(), Some(webhook("w2"))),
            (json!([webhook("w1"), webhook("w1")]), None),
            (json!([]), None),
            (
                Value::Array((0..11).map(|i| webhook(&format!("w{i}"))).collect()),
                None,
            ),
        ] {
            let answer = with(channels.clone(), channel);
            assert_eq!(answer.status, 400, "{channels}: {}", answer.text);
        }
    }
}
