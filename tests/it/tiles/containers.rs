//! Tile containers and tabs (today's servers: a dashboard's `containers`, a tile's
//! `containerId` and `tabId`), through the binary against the sandbox: applied, changed, moved
//! out of them, with an empty plan after each apply and the tile ids and the alert kept;
//! exported back; each reference the dashboard does not define refused at its line; an error at
//! the line on a stack of the contract's generation; the bodies checked against the documents.

use converge::sandbox::{Generation, SandboxOptions};
use serde_json::{Value, json};

use super::{Stack, config, sandbox};
use crate::common::{self, Converge, converge_snapshot};
use crate::conformance::Checker;

/// Two containers, the first with two tabs, and the lines that open the dashboard's tiles
/// (`config` writes `tiles:` after this).
const CONTAINERS: &str = r#"        containers:
          - id: health
            title: Service health
            tabs:
              - { id: errors, title: Errors }
              - { id: latency, title: Latency }
          - { id: notes, title: Notes, collapsed: true, bordered: false }
"#;

/// Tiles in the containers: `Requests` (the alert's) on the tab `errors`, `Notes` in `notes`,
/// `Free` in the ungrouped area.
const TILES: &str = r##"          - name: Requests
            x: 0
            y: 0
            w: 6
            h: 4
            containerId: health
            tabId: errors
            config: { displayType: line, source: Logs, select: [{ aggFn: count, where: "service:api" }] }
          - name: Notes
            x: 6
            y: 0
            w: 6
            h: 4
            containerId: notes
            config: { displayType: markdown, markdown: "# On call" }
          - name: Free
            x: 12
            y: 0
            w: 6
            h: 4
            config: { displayType: number, source: Logs, select: [{ aggFn: count }] }
"##;

/// The config with `containers` (the dashboard-level lines) and `tiles`.
fn with(containers: &str, tiles: &str) -> String {
    config("", tiles).replacen(
        "        tiles:\n",
        &format!("{containers}        tiles:\n"),
        1,
    )
}

/// The live tile `name`'s container and tab.
fn placed(board: &Value, name: &str) -> (Value, Value) {
    let tile = board["tiles"]
        .as_array()
        .into_iter()
        .flatten()
        .find(|t| t["name"] == name)
        .cloned()
        .unwrap_or(Value::Null);
    (tile["containerId"].clone(), tile["tabId"].clone())
}

#[test]
fn containers_and_tabs_converge_on_todays_servers() {
    let sandbox = common::sandbox(SandboxOptions {
        rate_limit: false,
        log_bodies: true,
        generation: Generation::Current,
        ..SandboxOptions::default()
    });
    let stack = Stack::new(&sandbox);
    let yaml = with(CONTAINERS, TILES);
    stack.converge(&yaml);
    let board = stack.board();
    assert_eq!(
        board["containers"],
        json!([
            {"id": "health", "title": "Service health", "collapsed": false,
             "tabs": [{"id": "errors", "title": "Errors"}, {"id": "latency", "title": "Latency"}]},
            {"id": "notes", "title": "Notes", "collapsed": true, "bordered": false}
        ])
    );
    assert_eq!(
        placed(&board, "Requests"),
        (json!("health"), json!("errors"))
    );
    assert_eq!(placed(&board, "Notes"), (json!("notes"), Value::Null));
    assert_eq!(placed(&board, "Free"), (Value::Null, Value::Null));
    let ids: Vec<String> = ["Requests", "Notes", "Free"]
        .iter()
        .map(|n| stack.tile_id(n))
        .collect();
    assert_eq!(stack.alert_tile(), ids[0]);

    // A tile moved to another tab, and a container retitled: one update, then nothing.
    let moved = yaml
        .replace("tabId: errors", "tabId: latency")
        .replace("title: Service health", "title: Health");
    let out = stack.run(&moved, &["plan", "--detailed-exitcode"]);
    converge_snapshot!("tile_containers_moved_plan", out);
    stack.converge(&moved);
    assert_eq!(
        placed(&stack.board(), "Requests"),
        (json!("health"), json!("latency"))
    );

    // Out of every container: the containers go with the tiles' references.
    let unboxed = with(
        "",
        &TILES
            .replace(
                "            containerId: health\n            tabId: errors\n",
                "",
            )
            .replace("            containerId: notes\n", ""),
    );
    stack.changes(&unboxed);
    stack.converge(&unboxed);
    let board = stack.board();
    assert_eq!(board.get("containers"), None, "{board}");
    assert_eq!(placed(&board, "Requests"), (Value::Null, Value::Null));
    let now: Vec<String> = ["Requests", "Notes", "Free"]
        .iter()
        .map(|n| stack.tile_id(n))
        .collect();
    assert_eq!(now, ids);
    assert_eq!(stack.alert_tile(), ids[0]);

    // Every exchange against today's documents (the cloud document's `ClickStack*` schemas).
    if let Some(checker) = Checker::load_for(Generation::Current) {
        checker
            .check_log(&sandbox.request_log())
            .assert_clean("containers and tabs");
    }
}

/// Export writes the containers and each tile's place; its output validates and plans empty.
#[test]
fn containers_are_exported_and_round_trip() {
    let sandbox = sandbox(Generation::Current);
    let stack = Stack::new(&sandbox);
    stack.converge(&with(CONTAINERS, TILES));
    let out = Converge::new(&sandbox).fast().run([
        "export",
        "--service",
        common::ANALYTICS,
        "--stack",
        common::ANALYTICS,
    ]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    let yaml = out.stdout;
    let board = &yaml[yaml.find("name: Board").unwrap_or(0)..];
    let written = &board[..board.find("      on-call-overview:").unwrap_or(board.len())];
    common::snapshots().bind(|| insta::assert_snapshot!("tile_containers_exported", written));
    let checked = stack.run(&yaml, &["validate"]);
    assert_eq!(checked.code, 0, "{}\n{yaml}", checked.stderr);
    stack.assert_empty(&yaml);
}

/// A reference the dashboard does not define, and an id used twice, each refused at its line
/// by `validate` (which reads no live state).
#[test]
fn a_container_or_tab_the_dashboard_does_not_define_is_refused_at_its_line() {
    let bad = with(CONTAINERS, TILES)
        .replace("tabId: errors", "tabId: warnings")
        .replace(
            "containerId: notes",
            "containerId: memo\n            tabId: first",
        )
        .replace(
            "          - { id: notes,",
            "          - { id: health, title: Twice }\n          - { id: notes,",
        )
        .replace("{ id: latency,", "{ id: errors,");
    let sandbox = sandbox(Generation::Current);
    let stack = Stack::new(&sandbox);
    let out = stack.run(&bad, &["validate"]);
    converge_snapshot!("tile_containers_undefined", out);
    let free = with(CONTAINERS, TILES).replace(
        "            config: { displayType: number",
        "            tabId: errors\n            config: { displayType: number",
    );
    let out = stack.run(&free, &["validate"]);
    converge_snapshot!("tile_containers_tab_without_container", out);
}

/// On a stack whose tiles read back as `series` (the contract's generation), containers are an
/// error at each line, naming the generation that has them; nothing is written.
#[test]
fn containers_on_a_contract_generation_stack_are_an_error_at_their_lines() {
    let sandbox = sandbox(Generation::Contract);
    let stack = Stack::new(&sandbox);
    stack.converge(&config("", super::REQUESTS_SERIES));
    let tiles = super::REQUESTS_SERIES.replace(
        "            series:\n",
        "            containerId: health\n            series:\n",
    );
    let yaml = with(
        "        containers: [{ id: health, title: Health }]\n",
        &tiles,
    );
    let out = stack.run(&yaml, &["plan"]);
    converge_snapshot!("tile_containers_contract_generation", out);
    let out = stack.run(&yaml, &["apply", "--yes"]);
    assert_eq!(out.code, 1, "{}", out.stderr);
    assert_eq!(stack.board().get("containers"), None);
}

/// The sandbox as today's servers are: containers kept, a PUT without `containers` keeping the
/// dashboard's own, each reference checked as their tile-reference check does (the message it
/// answers); the contract's generation has no containers and keeps none.
#[test]
fn the_sandbox_keeps_and_checks_containers_as_todays_servers_do() {
    let body = |containers: Option<Value>, container: &str, tab: Option<&str>| {
        let mut tile = json!({"name": "a", "x": 0, "y": 0, "w": 6, "h": 4,
            "containerId": container,
            "config": {"displayType": "markdown", "markdown": "hi"}});
        if let Some(tab) = tab {
            tile["tabId"] = json!(tab);
        }
        let mut body = json!({"name": "d", "tags": [], "tiles": [tile]});
        if let Some(containers) = containers {
            body["containers"] = containers;
        }
        body
    };
    let group = json!([{"id": "g", "title": "G", "collapsed": false,
        "tabs": [{"id": "t1", "title": "One"}, {"id": "t2", "title": "Two"}]}]);
    let today = common::sandbox(SandboxOptions {
        rate_limit: false,
        log_bodies: true,
        generation: Generation::Current,
        ..SandboxOptions::default()
    });
    let client = common::Client::new(&today);
    let made = client
        .obs(
            "POST",
            "/dashboards",
            Some(body(Some(group.clone()), "g", Some("t1"))),
        )
        .data();
    assert_eq!(made["containers"], group);
    assert_eq!(made["tiles"][0]["tabId"], "t1");
    let id = made["id"].as_str().unwrap_or_default();
    let path = format!("/dashboards/{id}");
    let kept = client
        .obs("PUT", &path, Some(body(None, "g", Some("t2"))))
        .data();
    assert_eq!(kept["containers"], group);
    assert_eq!(kept["tiles"][0]["tabId"], "t2");
    let refused = |body: Value| {
        let answer = client.obs("PUT", &path, Some(body));
        (answer.status, answer.json()["message"].clone())
    };
    assert_eq!(
        refused(body(None, "h", None)),
        (
            400,
            json!("tiles.0.containerId: Tile references unknown containerId \"h\"")
        )
    );
    assert_eq!(
        refused(body(None, "g", Some("t3"))),
        (
            400,
            json!("tiles.0.tabId: Tile references unknown tabId \"t3\" in container \"g\"")
        )
    );
    let twice = json!([{"id": "g", "title": "G", "collapsed": false},
        {"id": "g", "title": "H", "collapsed": false}]);
    assert_eq!(refused(body(Some(twice), "g", None)).0, 400);
    // `containers: []` removes them, and with them the tile's place.
    let cleared = client
        .obs(
            "PUT",
            &path,
            Some(json!({"name": "d", "tags": [], "containers": [],
            "tiles": [{"name": "a", "x": 0, "y": 0, "w": 6, "h": 4,
                "config": {"displayType": "markdown", "markdown": "hi"}}]})),
        )
        .data();
    assert_eq!(cleared.get("containers"), None, "{cleared}");
    // Every exchange, the refusals included, against today's observability document.
    if let Some(checker) = Checker::load_for(Generation::Current) {
        checker
            .check_log(&today.request_log())
            .assert_clean("the observability API's containers");
    }

    let contract = sandbox(Generation::Contract);
    let made = common::Client::new(&contract)
        .obs(
            "POST",
            "/dashboards",
            Some(body(Some(group), "g", Some("t1"))),
        )
        .data();
    assert_eq!(made.get("containers"), None, "{made}");
    assert_eq!(made["tiles"][0].get("containerId"), None, "{made}");
}

/// A tile moved to another tab and a container retitled in the UI are written back into the
/// config by `drift --write`, value by value, and the config then plans empty.
#[test]
fn drift_write_takes_a_tile_moved_live_and_a_container_retitled() {
    let sandbox = sandbox(Generation::Current);
    let stack = Stack::new(&sandbox);
    let yaml = with(CONTAINERS, TILES);
    stack.converge(&yaml);
    let mut board = stack.board();
    let id = board["id"].as_str().unwrap_or_default().to_string();
    board["containers"][0]["title"] = json!("Health");
    for tile in board["tiles"].as_array_mut().into_iter().flatten() {
        if tile["name"] == "Requests" {
            tile["tabId"] = json!("latency");
        }
    }
    let body = json!({"name": "Board", "tiles": board["tiles"], "tags": board["tags"],
        "containers": board["containers"]});
    let path = format!("/services/{}/stack/dashboards/{id}", common::ANALYTICS);
    let answer = common::Client::new(&sandbox).cloud("PUT", &path, Some(body));
    assert_eq!(answer.status, 200, "{}", answer.text);
    let out = stack.run(&yaml, &["drift", "--write"]);
    assert_eq!(out.code, 2, "{}\n{}", out.stdout, out.stderr);
    let expected = yaml
        .replace("tabId: errors", "tabId: latency")
        .replace("title: Service health", "title: Health");
    assert_eq!(stack.dir.read("converge.yaml"), expected);
    stack.assert_empty(&expected);
}

/// A tile converge does not model, in a container the config then drops, is sent back in the
/// ungrouped area: the server refuses a reference to a container the body does not define.
#[test]
fn a_carried_tile_in_a_dropped_container_is_sent_back_ungrouped() {
    let sandbox = sandbox(Generation::Current);
    let stack = Stack::new(&sandbox);
    let yaml = with(CONTAINERS, TILES);
    stack.converge(&yaml);
    let board = stack.board();
    let id = board["id"].as_str().unwrap_or_default().to_string();
    let mut tiles = board["tiles"].as_array().cloned().unwrap_or_default();
    tiles.push(json!({"name": "Flame", "x": 18, "y": 0, "w": 6, "h": 4,
        "containerId": "health", "tabId": "latency",
        "config": {"displayType": "flame_graph", "sourceId": "65f5e4a30000000100000001"}}));
    let body = json!({"name": "Board", "tiles": tiles, "tags": board["tags"]});
    let path = format!("/services/{}/stack/dashboards/{id}", common::ANALYTICS);
    let answer = common::Client::new(&sandbox).cloud("PUT", &path, Some(body));
    assert_eq!(answer.status, 200, "{}", answer.text);
    let flame = stack.tile_id("Flame");
    let unboxed = with(
        "",
        &TILES
            .replace(
                "            containerId: health\n            tabId: errors\n",
                "",
            )
            .replace("            containerId: notes\n", ""),
    );
    stack.converge(&unboxed);
    let board = stack.board();
    assert_eq!(stack.tile_id("Flame"), flame);
    assert_eq!(placed(&board, "Flame"), (Value::Null, Value::Null));
    assert_eq!(board.get("containers"), None, "{board}");
}
