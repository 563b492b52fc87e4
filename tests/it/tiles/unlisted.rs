//! Tiles the server does not list: today's observability API leaves PromQL tiles out of every
//! answer, and an update replaces a dashboard's tiles with those sent, deleting the others with
//! their alerts (hyperdx `packages/api/src/routers/external-api/v2`). The sandbox stands in for
//! a PromQL tile made in the UI with one whose `config` says `configType: promql`.

use converge::sandbox::Generation;
use serde_json::{Value, json};

use super::{REQUESTS_SERIES, Stack, config, sandbox};
use crate::common::{self, Client, converge_snapshot};

/// The live alerts of the stack, by name.
fn alert_names(client: &Client) -> Vec<String> {
    let path = format!("/services/{}/stack/alerts", common::ANALYTICS);
    let all = client.cloud("GET", &path, None).result();
    let mut names: Vec<String> = all
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|a| a["name"].as_str().map(str::to_string))
        .collect();
    names.sort();
    names
}

#[test]
fn an_update_that_would_delete_an_unlisted_tile_with_its_alert_is_warned_at_plan_time() {
    let sandbox = sandbox(Generation::Current);
    let stack = Stack::new(&sandbox);
    let yaml = config("", REQUESTS_SERIES);
    stack.converge(&yaml);
    let client = Client::new(&sandbox);
    let dashboards = format!("/services/{}/stack/dashboards", common::ANALYTICS);
    let put = |tiles: &[Value]| {
        let board = stack.board();
        let id = board["id"].as_str().unwrap_or_default();
        let body = json!({"name": "Board", "tiles": tiles, "tags": board["tags"]});
        let answer = client.cloud("PUT", &format!("{dashboards}/{id}"), Some(body));
        assert_eq!(answer.status, 200, "{}", answer.text);
        answer.result()
    };
    // Someone adds a tile in the UI, puts an alert on it, and makes it a PromQL tile.
    let requests = stack.board()["tiles"][0].clone();
    let up = json!({"name": "Up", "x": 6, "y": 0, "w": 6, "h": 4,
        "config": {"displayType": "line", "sourceId": "65f5e4a30000000100000001",
            "select": [{"aggFn": "count"}]}});
    let answer = put(&[requests.clone(), up]);
    let mut up = answer["tiles"][1].clone();
    let board_id = answer["id"].as_str().unwrap_or_default().to_string();
    let tile_id = up["id"].as_str().unwrap_or_default().to_string();
    let made = client.cloud(
        "POST",
        &format!("/services/{}/stack/alerts", common::ANALYTICS),
        Some(crate::sandbox::alert("Up is down", &board_id, &tile_id)),
    );
    assert_eq!(made.status, 200, "{}", made.text);
    up["config"] = json!({"configType": "promql", "displayType": "line", "query": "up"});
    let answer = put(&[requests, up]);
    // Not listed: the answer, like every GET, has only the tile converge made.
    assert_eq!(
        answer["tiles"].as_array().map(Vec::len),
        Some(1),
        "{answer}"
    );
    assert_eq!(
        alert_names(&client),
        ["Error burst", "Errors", "Up is down"]
    );

    // No update planned: nothing to warn about.
    stack.assert_empty(&yaml);
    let out = stack.run(&yaml, &["plan"]);
    assert!(!out.stderr.contains("unlisted"), "{}", out.stderr);
    // An update: warned once, naming the alert and its tile.
    let edited = yaml.replace("service:api", "service:web");
    let out = stack.run(&edited, &["plan"]);
    converge_snapshot!("tiles_unlisted_plan", out);
    // Applied, the server deletes the PromQL tile and its alert, as the real one does.
    stack.converge(&edited);
    assert_eq!(alert_names(&client), ["Error burst", "Errors"]);
}
