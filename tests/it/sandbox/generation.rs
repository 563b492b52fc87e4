//! The two generations the sandbox answers as: today's servers by default (tiles in `config`,
//! the newer alert shape, Express's plain-text 404, ObjectId checks, the rejections of their
//! body validation) and the contract's with `--generation contract`.

use converge::sandbox::{Generation, Quirk, SandboxHandle, SandboxOptions};
use serde_json::{Value, json};

use super::{ANALYTICS, alert, dashboard};
use crate::common::{self, Answer, Client};

fn sandbox(generation: Generation) -> SandboxHandle {
    common::sandbox(SandboxOptions {
        rate_limit: false,
        generation,
        ..SandboxOptions::default()
    })
}

/// A well-formed ObjectId no object has.
const NOBODY: &str = "65f5e4a3ffffffffffffffff";

/// Status, content type and body of an answer, for one whole comparison.
fn whole(answer: &Answer) -> (u16, String, String) {
    let kind = answer
        .headers
        .get("content-type")
        .and_then(|v| v.to_str().ok())
        .unwrap_or("")
        .to_string();
    (answer.status, kind, answer.text.clone())
}

fn json_error(status: u16, message: &str) -> (u16, String, String) {
    (
        status,
        "application/json; charset=utf-8".to_string(),
        json!({ "message": message }).to_string(),
    )
}

/// Creates a dashboard with two tiles and an alert on the first through the observability API.
fn dashboard_and_alert(client: &Client) -> (Value, Value) {
    let created = client
        .obs("POST", "/dashboards", Some(dashboard("d", &["a", "b"])))
        .data();
    let id = created["id"].as_str().unwrap_or_default();
    let tile = created["tiles"][0]["id"].as_str().unwrap_or_default();
    let made = client
        .obs("POST", "/alerts", Some(alert("watch", id, tile)))
        .data();
    (created, made)
}

#[test]
fn by_default_tiles_read_back_as_config_and_alerts_in_the_newer_shape() {
    for (options, today) in [
        (SandboxOptions::default(), true),
        (
            SandboxOptions {
                generation: Generation::Contract,
                quirks: vec![Quirk::NewerGeneration],
                ..SandboxOptions::default()
            },
            true,
        ),
        (
            SandboxOptions {
                generation: Generation::Contract,
                ..SandboxOptions::default()
            },
            false,
        ),
    ] {
        let sandbox = common::sandbox(SandboxOptions {
            rate_limit: false,
            ..options
        });
        let client = Client::new(&sandbox);
        let (created, made) = dashboard_and_alert(&client);
        let id = created["id"].as_str().unwrap_or_default();
        let read = client.obs("GET", &format!("/dashboards/{id}"), None).data();
        let managed = client
            .cloud(
                "GET",
                &format!("/services/{ANALYTICS}/stack/dashboards"),
                None,
            )
            .result();
        for tile in [
            &created["tiles"][0],
            &read["tiles"][1],
            &managed[0]["tiles"][0],
        ] {
            assert_eq!(tile["config"].is_object(), today, "{tile}");
            assert_eq!(tile.get("series").is_some(), !today, "{tile}");
        }
        let config = json!({
            "displayType": "line", "sourceId": "65f5e4a30000000100000001",
            "asRatio": false, "fillNulls": true,
            "select": [{"valueExpression": "", "aggFn": "count", "where": "service:api",
                        "whereLanguage": "lucene"}]
        });
        assert_eq!(
            read["tiles"][0]["config"],
            if today { config } else { Value::Null }
        );
        let alerts = client.obs("GET", "/alerts", None).data();
        let listed = &alerts[0];
        let (dashboard_key, team_key, state) = if today {
            ("dashboardId", "teamId", "OK")
        } else {
            ("dashboard", "team", "inactive")
        };
        for alert in [&made, listed] {
            let channels = if today {
                json!([alert["channel"]])
            } else {
                Value::Null
            };
            assert_eq!(alert["channels"], channels, "{alert}");
            assert_eq!(alert[dashboard_key], created["id"], "{alert}");
            assert!(alert[team_key].is_string(), "{alert}");
            assert_eq!(alert["state"], state, "{alert}");
        }
    }
}

#[test]
fn a_missing_dashboard_is_plain_text_not_found_on_todays_observability_api() {
    let today = sandbox(Generation::Current);
    let client = Client::new(&today);
    let path = format!("/dashboards/{NOBODY}");
    let not_found = (
        404,
        "text/plain; charset=utf-8".to_string(),
        "Not Found".to_string(),
    );
    assert_eq!(whole(&client.obs("GET", &path, None)), not_found);
    let body = dashboard("d", &["a"]);
    assert_eq!(whole(&client.obs("PUT", &path, Some(body))), not_found);
    // DELETE answers `{}` whether or not the dashboard exists; a missing alert is JSON.
    assert_eq!(client.obs("DELETE", &path, None).text, "{}");
    assert_eq!(
        whole(&client.obs("GET", &format!("/alerts/{NOBODY}"), None)),
        json_error(404, &format!("Alert {NOBODY} not found"))
    );

    let contract = sandbox(Generation::Contract);
    assert_eq!(
        whole(&Client::new(&contract).obs("GET", &path, None)),
        json_error(404, &format!("Dashboard {NOBODY} not found"))
    );
}

#[test]
fn a_path_id_that_is_not_an_object_id_answers_400_on_todays_observability_api() {
    let today = sandbox(Generation::Current);
    let client = Client::new(&today);
    let invalid = json_error(400, "Params validation failed: id: Invalid ObjectId");
    for (method, path, body) in [
        ("GET", "/dashboards/board-1", None),
        ("PUT", "/dashboards/board-1", Some(dashboard("d", &["a"]))),
        ("DELETE", "/dashboards/board-1", None),
        ("GET", "/alerts/65f5e4a3b9e77c001a78901", None),
        ("DELETE", "/alerts/65F5E4A3B9E77C001A78901G", None),
    ] {
        assert_eq!(
            whole(&client.obs(method, path, body)),
            invalid,
            "{method} {path}"
        );
    }
    let contract = sandbox(Generation::Contract);
    let answer = Client::new(&contract).obs("DELETE", "/dashboards/board-1", None);
    assert_eq!((answer.status, answer.text.as_str()), (200, "{}"));
}

/// What today's servers refuse and the contract's generation takes: each answer whole.
#[test]
fn todays_servers_refuse_what_their_body_validation_refuses() {
    let today = sandbox(Generation::Current);
    let contract = sandbox(Generation::Contract);
    let cases: Vec<(&str, &str, Value, &str)> = {
        let with_tiles = |edit: &dyn Fn(&mut Value)| {
            let mut body = dashboard("d", &["a"]);
            edit(&mut body);
            body
        };
        vec![
            (
                "/dashboards",
                "tags null",
                with_tiles(&|b| b["tags"] = Value::Null),
                "Body validation failed: tags: Expected array, received null",
            ),
            (
                "/dashboards",
                "no tiles",
                json!({"name": "d", "tags": []}),
                "Body validation failed: tiles: Required",
            ),
            (
                "/dashboards",
                "a tile with neither series nor config",
                with_tiles(&|b| {
                    if let Some(tile) = b["tiles"][0].as_object_mut() {
                        tile.remove("series");
                    }
                }),
                "Body validation failed: tiles.0: Tile must have either series or config",
            ),
            (
                "/dashboards",
                "a source id that is not an ObjectId",
                with_tiles(&|b| b["tiles"][0]["series"][0]["sourceId"] = json!("logs")),
                "Body validation failed: tiles.0.series.0.sourceId: Invalid ObjectId",
            ),
            (
                "/charts/series",
                "seriesReturnType null",
                json!({
                    "startTime": 1_700_000_000_000_i64, "endTime": 1_700_000_600_000_i64,
                    "granularity": "1m", "seriesReturnType": null,
                    "series": [{"sourceId": "65f5e4a30000000100000001", "aggFn": "count",
                                "where": "", "groupBy": []}]
                }),
                "Body validation failed: seriesReturnType: Expected 'ratio' | 'column', received null",
            ),
        ]
    };
    for (path, what, body, message) in cases {
        let answer = Client::new(&today).obs("POST", path, Some(body.clone()));
        // The charts route words its errors `{error}`, the others `{message}`.
        let member = if path == "/charts/series" {
            "error"
        } else {
            "message"
        };
        let expected = (
            400,
            "application/json; charset=utf-8".to_string(),
            json!({ member: message }).to_string(),
        );
        assert_eq!(whole(&answer), expected, "{what}");
        let answer = Client::new(&contract).obs("POST", path, Some(body));
        assert_eq!(answer.status, 200, "{what}: {}", answer.text);
    }
}

/// Alert ids in the body: today's servers check the dashboard's and the webhook's are
/// ObjectIds (after the body's schema).
#[test]
fn alert_ids_that_are_not_object_ids_are_refused_by_todays_servers() {
    for generation in [Generation::Current, Generation::Contract] {
        let sandbox = sandbox(generation);
        let client = Client::new(&sandbox);
        let (created, _) = dashboard_and_alert(&client);
        let id = created["id"].as_str().unwrap_or_default();
        let tile = created["tiles"][0]["id"].as_str().unwrap_or_default();
        let mut hook = alert("hook", id, tile);
        hook["channel"]["webhookId"] = json!("hook-1");
        let answer = client.obs("POST", "/alerts", Some(hook));
        let board = client.obs("POST", "/alerts", Some(alert("board", "board-1", tile)));
        if generation == Generation::Current {
            assert_eq!(whole(&answer), json_error(400, "Invalid webhook ID"));
            assert_eq!(whole(&board), json_error(400, "Invalid dashboard ID"));
        } else {
            // The contract's ids are strings: `hook-1` is taken, `board-1` is not found.
            assert_eq!(answer.status, 200, "{}", answer.text);
            assert_eq!(
                board.json()["message"],
                "dashboardId: dashboard board-1 not found"
            );
        }
    }
}
