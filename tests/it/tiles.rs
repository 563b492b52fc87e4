//! Dashboard tiles in both generations, through the binary against the sandbox: the contract's
//! (`--generation contract`: tiles read back with `series`) and today's (the default: tiles read back
//! with `config`). Every display type is created, changed field by field, renamed and deleted,
//! with an empty plan after each apply and the tile ids and the alert kept.

use converge::sandbox::{Generation, SandboxHandle, SandboxOptions};
use serde_json::Value;

use crate::common::{self, Client, Converge, Outcome};

fn sandbox(generation: Generation) -> SandboxHandle {
    common::sandbox(SandboxOptions {
        rate_limit: false,
        generation,
        ..SandboxOptions::default()
    })
}

/// A config with one managed stack whose one dashboard has `tiles` (YAML list items, indented
/// for their place) and an alert on the tile `Requests`.
fn config(stack_extra: &str, tiles: &str) -> String {
    format!(
        r#"version: 1
organization: ${{env:CONVERGE_ORG_ID}}
cloud:
  url: ${{env:CONVERGE_CLOUD_URL}}
  keyId: ${{env:CONVERGE_KEY_ID}}
  keySecret: ${{env:CONVERGE_KEY_SECRET}}
services:
  analytics:
    id: {analytics}
stacks:
  prod:
    service: analytics
{stack_extra}    dashboards:
      board:
        name: Board
        tiles:
{tiles}    alerts:
      errors:
        name: Errors
        dashboard: board
        tile: Requests
        threshold: 100
        thresholdType: above
        interval: 5m
        channel: {{ type: webhook, webhookId: 65f5e4a3b9e77c001a789012 }}
"#,
        analytics = common::ANALYTICS
    )
}

/// The `Requests` tile as the contract's `series` shorthand.
const REQUESTS_SERIES: &str = r#"          - name: Requests
            x: 0
            y: 0
            w: 6
            h: 4
            series:
              - type: time
                source: Logs
                aggFn: count
                where: "service:api"
                groupBy: [service, host]
"#;

/// A tile of every builder display type of today's document, and a raw-SQL tile.
const EVERY_DISPLAY_TYPE: &str = r##"          - name: Requests
            x: 0
            y: 0
            w: 6
            h: 4
            config:
              displayType: line
              source: Logs
              select:
                - aggFn: count
                  where: "service:api"
              groupBy: service
          - name: Stacked
            x: 6
            y: 0
            w: 6
            h: 4
            config: { displayType: stacked_bar, source: Logs, select: [{ aggFn: sum, valueExpression: bytes }], fillNulls: false }
          - name: Table
            x: 12
            y: 0
            w: 6
            h: 4
            config: { displayType: table, source: Logs, select: [{ aggFn: max, valueExpression: duration }, { aggFn: min, valueExpression: duration }], asRatio: true, groupBy: host }
          - name: Number
            x: 18
            y: 0
            w: 6
            h: 4
            config: { displayType: number, source: Logs, select: [{ aggFn: quantile, valueExpression: duration, level: 0.95 }], numberFormat: { output: number } }
          - name: Pie
            x: 0
            y: 4
            w: 6
            h: 4
            config: { displayType: pie, source: Logs, select: [{ aggFn: count }], groupBy: service }
          - name: Bar
            x: 6
            y: 4
            w: 6
            h: 4
            config: { displayType: bar, source: Logs, select: [{ aggFn: count_distinct, valueExpression: user }], groupBy: region }
          - name: Heatmap
            x: 12
            y: 4
            w: 6
            h: 4
            config: { displayType: heatmap, source: Logs, select: [{ valueExpression: duration }] }
          - name: Search
            x: 18
            y: 4
            w: 6
            h: 4
            config: { displayType: search, source: Logs, select: "timestamp, level, message", where: "level:error" }
          - name: Notes
            x: 0
            y: 8
            w: 6
            h: 4
            config: { displayType: markdown, markdown: "# On call" }
          - name: Patterns
            x: 6
            y: 8
            w: 6
            h: 4
            config: { displayType: event_patterns, source: Logs, select: message }
          - name: Raw
            x: 12
            y: 8
            w: 6
            h: 4
            config: { displayType: line, configType: sql, connectionId: 65f5e4a3b9e77c001a567890, sqlTemplate: "SELECT 1" }
"##;

struct Stack<'s> {
    sandbox: &'s SandboxHandle,
    dir: common::Workspace,
}

impl<'s> Stack<'s> {
    fn new(sandbox: &'s SandboxHandle) -> Self {
        Stack {
            sandbox,
            dir: common::Workspace::new(),
        }
    }

    fn run(&self, yaml: &str, args: &[&str]) -> Outcome {
        let path = self.dir.write("converge.yaml", yaml);
        let mut all: Vec<&str> = args.to_vec();
        all.push(&path);
        Converge::new(self.sandbox).fast().run(all)
    }

    /// Applies `yaml`, then checks that a plan of it is empty.
    fn converge(&self, yaml: &str) {
        let out = self.run(yaml, &["apply", "--yes"]);
        assert_eq!(out.code, 0, "{}\n{}", out.stdout, out.stderr);
        self.assert_empty(yaml);
    }

    fn assert_empty(&self, yaml: &str) {
        let out = self.run(yaml, &["plan", "--detailed-exitcode"]);
        assert_eq!(out.code, 0, "not empty:\n{}\n{}", out.stdout, out.stderr);
    }

    /// A plan of `yaml` that has changes: its stdout.
    fn changes(&self, yaml: &str) -> String {
        let out = self.run(yaml, &["plan", "--detailed-exitcode"]);
        assert_eq!(out.code, 2, "{}\n{}", out.stdout, out.stderr);
        out.stdout
    }

    /// The live dashboard `Board`.
    fn board(&self) -> Value {
        let path = format!("/services/{}/stack/dashboards", common::ANALYTICS);
        let all = Client::new(self.sandbox).cloud("GET", &path, None).result();
        all.as_array()
            .into_iter()
            .flatten()
            .find(|d| d["name"] == "Board")
            .cloned()
            .unwrap_or(Value::Null)
    }

    /// Tile id by tile name.
    fn tile_id(&self, name: &str) -> String {
        let board = self.board();
        board["tiles"]
            .as_array()
            .into_iter()
            .flatten()
            .find(|t| t["name"] == name)
            .and_then(|t| t["id"].as_str())
            .unwrap_or_default()
            .to_string()
    }

    /// The tile id of the alert `Errors`.
    fn alert_tile(&self) -> String {
        let path = format!("/services/{}/stack/alerts", common::ANALYTICS);
        let all = Client::new(self.sandbox).cloud("GET", &path, None).result();
        all.as_array()
            .into_iter()
            .flatten()
            .find(|a| a["name"] == "Errors")
            .and_then(|a| a["tileId"].as_str())
            .unwrap_or_default()
            .to_string()
    }
}

/// Edits of one field each, in the order they are applied (each `from` is in the config once).
const EDITS: &[(&str, &str)] = &[
    ("where: \"service:api\"", "where: \"service:web\""),
    ("groupBy: service\n", "groupBy: \"service,host\"\n"),
    ("fillNulls: false", "fillNulls: true"),
    ("asRatio: true", "asRatio: false"),
    ("level: 0.95", "level: 0.99"),
    (
        "numberFormat: { output: number }",
        "numberFormat: { output: percent }",
    ),
    ("groupBy: region", "groupBy: zone"),
    (
        "select: [{ valueExpression: duration }]",
        "select: [{ valueExpression: latency }]",
    ),
    (
        "where: \"level:error\"",
        "where: \"level:error\", whereLanguage: sql",
    ),
    ("\"# On call\"", "\"# On call, week 2\""),
    ("select: message }", "select: body }"),
    ("\"SELECT 1\"", "\"SELECT 2\""),
];

/// The audit's further edits, one field each, after [`EDITS`]: each field the model has of
/// each display type that `EDITS` leaves out (the current document's `*ChartConfig` schemas),
/// the place of a tile, and a raw-SQL tile's display type.
const MORE_EDITS: &[(&str, &str)] = &[
    // line: the tile's place, its select item, and every chart field.
    (
        "            h: 4\n            config:\n              displayType: line",
        "            h: 5\n            config:\n              displayType: line",
    ),
    (
        "                  where: \"service:web\"\n",
        "                  where: \"service:web\"\n                  alias: Requests\n",
    ),
    (
        "alias: Requests\n",
        "alias: Requests\n                  whereLanguage: sql\n",
    ),
    (
        "- aggFn: count\n                  where: \"service:web\"",
        "- aggFn: count_distinct\n                  valueExpression: user\n                  where: \"service:web\"",
    ),
    (
        "groupBy: \"service,host\"\n",
        "groupBy: \"service,host\"\n              granularity: 5 minute\n",
    ),
    (
        "granularity: 5 minute\n",
        "granularity: 5 minute\n              seriesLimit: 5\n",
    ),
    (
        "seriesLimit: 5\n",
        "seriesLimit: 5\n              alignDateRangeToGranularity: true\n",
    ),
    (
        "alignDateRangeToGranularity: true\n",
        "alignDateRangeToGranularity: true\n              fitYAxisToData: true\n",
    ),
    (
        "fitYAxisToData: true\n",
        "fitYAxisToData: true\n              compareToPreviousPeriod: true\n",
    ),
    (
        "compareToPreviousPeriod: true\n",
        "compareToPreviousPeriod: true\n              numberFormat: { output: number, mantissa: 2 }\n",
    ),
    // stacked bar
    (
        "fillNulls: true }",
        "fillNulls: true, numberFormat: { output: byte } }",
    ),
    (
        "{ aggFn: sum, valueExpression: bytes }",
        "{ aggFn: avg, valueExpression: bytes }",
    ),
    // table
    (
        "groupBy: host }",
        "groupBy: host, having: \"count() > 1\" }",
    ),
    (
        "having: \"count() > 1\" }",
        "having: \"count() > 1\", orderBy: host }",
    ),
    (
        "orderBy: host }",
        "orderBy: host, groupByColumnsOnLeft: true }",
    ),
    // number
    (
        "numberFormat: { output: percent } }",
        "numberFormat: { output: percent }, color: chart-red }",
    ),
    ("aggFn: quantile,", "aggFn: quantile, alias: p99,"),
    // pie
    ("groupBy: service }", "groupBy: service, limit: 5 }"),
    ("limit: 5 }", "limit: 5, orderBy: service }"),
    // bar
    ("groupBy: zone }", "groupBy: zone, limit: 3 }"),
    // heatmap
    (
        "{ valueExpression: latency }",
        "{ valueExpression: latency, countExpression: \"count()\" }",
    ),
    (
        "countExpression: \"count()\" }",
        "countExpression: \"count()\", heatmapScaleType: log }",
    ),
    (
        "heatmapScaleType: log }] }",
        "heatmapScaleType: log }], where: \"level:warn\" }",
    ),
    // search
    (
        "\"timestamp, level, message\"",
        "\"timestamp, level, body\"",
    ),
    ("whereLanguage: sql }", "whereLanguage: lucene }"),
    // event patterns
    ("select: body }", "select: body, where: \"level:info\" }"),
    // raw SQL
    (
        "sqlTemplate: \"SELECT 2\" }",
        "sqlTemplate: \"SELECT 2\", numberFormat: { output: number } }",
    ),
    (
        "displayType: line, configType: sql",
        "displayType: table, configType: sql",
    ),
];

/// What the server takes as its default, written out: no change (the plan compares in
/// normalized form), after [`EDITS`] and [`MORE_EDITS`].
const DEFAULTS_WRITTEN: &[(&str, &str)] = &[
    ("level: 0.99 }", "level: 0.99, where: \"\" }"),
    (
        "groupBy: zone, limit: 3 }",
        "groupBy: zone, limit: 3, where: \"\" }",
    ),
    (
        "select: body, where: \"level:info\" }",
        "select: body, where: \"level:info\", whereLanguage: lucene }",
    ),
    (
        "fillNulls: true, numberFormat",
        "fillNulls: true, asRatio: false, numberFormat",
    ),
    (
        "              granularity: 5 minute\n",
        "              granularity: 5 minute\n              fillNulls: true\n",
    ),
    (
        "aggFn: count }], groupBy",
        "aggFn: count, whereLanguage: lucene }], groupBy",
    ),
];

/// Every display type created, changed field by field, one renamed and one deleted, against a
/// server answering in `generation`: an empty plan after each apply, the tile ids and
/// the alert kept.
fn every_display_type(generation: Generation, stack_extra: &str) {
    let sandbox = sandbox(generation);
    let stack = Stack::new(&sandbox);
    let mut yaml = config(stack_extra, EVERY_DISPLAY_TYPE);
    stack.converge(&yaml);
    let board = stack.board();
    assert_eq!(board["tiles"].as_array().map(Vec::len), Some(11), "{board}");
    assert!(
        board["tiles"]
            .as_array()
            .into_iter()
            .flatten()
            .all(|t| t["config"].is_object()),
        "{board}"
    );
    let ids: Vec<String> = ["Requests", "Stacked", "Table", "Raw"]
        .iter()
        .map(|n| stack.tile_id(n))
        .collect();
    assert_eq!(stack.alert_tile(), ids[0]);
    for (from, to) in EDITS.iter().chain(MORE_EDITS) {
        assert_eq!(yaml.matches(from).count(), 1, "{from}");
        yaml = yaml.replace(from, to);
        let plan = stack.changes(&yaml);
        assert_eq!(
            plan.matches("~ dashboard.prod.board").count(),
            1,
            "{from}: {plan}"
        );
        stack.converge(&yaml);
        let now: Vec<String> = ["Requests", "Stacked", "Table", "Raw"]
            .iter()
            .map(|n| stack.tile_id(n))
            .collect();
        assert_eq!(now, ids, "{from}");
        assert_eq!(stack.alert_tile(), ids[0], "{from}");
    }
    for (from, to) in DEFAULTS_WRITTEN {
        assert_eq!(yaml.matches(from).count(), 1, "{from}");
        yaml = yaml.replace(from, to);
        stack.assert_empty(&yaml);
    }
    // Renamed where it stands: same id.
    yaml = yaml.replace("- name: Stacked\n", "- name: Bytes\n");
    stack.changes(&yaml);
    stack.converge(&yaml);
    assert_eq!(stack.tile_id("Bytes"), ids[1]);
    // Deleted: the others keep their ids, the alert stays.
    let at = yaml.find("          - name: Patterns").unwrap_or(0);
    let end = yaml.find("          - name: Raw").unwrap_or(0);
    yaml.replace_range(at..end, "");
    stack.changes(&yaml);
    stack.converge(&yaml);
    assert_eq!(stack.tile_id("Patterns"), "");
    assert_eq!(stack.tile_id("Raw"), ids[3]);
    assert_eq!(stack.alert_tile(), ids[0]);
    // Exported with every field edited in: it validates and plans empty.
    let out = Converge::new(&sandbox).fast().run([
        "export",
        "--service",
        common::ANALYTICS,
        "--stack",
        common::ANALYTICS,
    ]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    let checked = stack.run(&out.stdout, &["validate"]);
    assert_eq!(checked.code, 0, "{}\n{}", checked.stderr, out.stdout);
    stack.assert_empty(&out.stdout);
}

#[test]
fn every_display_type_converges_on_a_server_of_todays_generation() {
    every_display_type(Generation::Current, "");
}

/// `generation: config` overrides what the stack's GETs answer (the demo stack's tiles read
/// back with `series`); this sandbox keeps a `config` as sent.
#[test]
fn every_display_type_converges_where_the_config_says_generation_config() {
    every_display_type(Generation::Contract, "    generation: config\n");
}

/// The contract's `series` shorthand against both generations: applied, changed, applied, an
/// empty plan each time; against today's server it is written as the `config` it lowers to.
#[test]
fn the_series_shorthand_converges_in_both_generations() {
    for generation in [Generation::Contract, Generation::Current] {
        let newer = generation == Generation::Current;
        let sandbox = sandbox(generation);
        let stack = Stack::new(&sandbox);
        let yaml = config("", REQUESTS_SERIES);
        stack.converge(&yaml);
        let id = stack.tile_id("Requests");
        let edited = yaml.replace("service:api", "service:web");
        let plan = stack.changes(&edited);
        let path = if newer {
            "config.select[0].where"
        } else {
            "series[0].where"
        };
        assert_eq!(plan.matches(path).count(), 1, "{plan}");
        stack.converge(&edited);
        assert_eq!(stack.tile_id("Requests"), id);
        assert_eq!(stack.alert_tile(), id);
        let tile = &stack.board()["tiles"][0];
        if newer {
            assert_eq!(tile["config"]["groupBy"], "service,host", "{tile}");
            assert_eq!(
                tile["config"]["select"][0]["where"], "service:web",
                "{tile}"
            );
        } else {
            assert_eq!(tile["series"][0]["where"], "service:web", "{tile}");
        }
    }
}

/// A `config` tile on a stack whose tiles read back as `series`, or that says
/// `generation: series`, is an error at its line naming what the server needs.
#[test]
fn a_config_tile_on_a_contract_generation_stack_is_an_error_at_its_line() {
    let sandbox = sandbox(Generation::Contract);
    let stack = Stack::new(&sandbox);
    stack.converge(&config("", REQUESTS_SERIES));
    let more = format!(
        "{REQUESTS_SERIES}          - name: Notes\n            x: 6\n            y: 0\n            w: 6\n            h: 4\n            config: {{ displayType: markdown, markdown: hi }}\n"
    );
    let out = stack.run(&config("", &more), &["plan"]);
    common::converge_snapshot!("tiles_config_on_a_series_stack", out);
    let out = stack.run(
        &config("    generation: series\n", EVERY_DISPLAY_TYPE),
        &["validate"],
    );
    assert_eq!(out.code, 0, "{}", out.stderr);
}

/// A live tile of a display type converge does not model is sent back by id on every update,
/// and the plan says so once.
#[test]
fn a_tile_converge_does_not_model_is_carried_over_by_id() {
    let sandbox = sandbox(Generation::Current);
    let stack = Stack::new(&sandbox);
    let yaml = config("", REQUESTS_SERIES);
    stack.converge(&yaml);
    // Someone adds a tile of a newer kind in the UI.
    let mut board = stack.board();
    let id = board["id"].as_str().unwrap_or_default().to_string();
    let tiles = board["tiles"].as_array_mut().expect("tiles");
    tiles.push(serde_json::json!({
        "name": "Flame", "x": 6, "y": 0, "w": 6, "h": 4,
        "config": { "displayType": "flame_graph", "sourceId": "65f5e4a30000000100000001" }
    }));
    let body = serde_json::json!({ "name": "Board", "tiles": tiles, "tags": board["tags"] });
    let path = format!("/services/{}/stack/dashboards/{id}", common::ANALYTICS);
    Client::new(&sandbox)
        .cloud("PUT", &path, Some(body))
        .result();
    let flame = stack.tile_id("Flame");
    let out = stack.run(&yaml, &["plan", "--detailed-exitcode"]);
    common::converge_snapshot!("tiles_carried_over_plan", out);
    stack.converge(&yaml.replace("service:api", "service:web"));
    assert_eq!(stack.tile_id("Flame"), flame);
}

/// Export writes the generation the server speaks, and its output validates and plans empty:
/// every display type on today's server (`config`), the shorthand on the contract's (`series`).
#[test]
fn export_writes_the_servers_generation_and_round_trips() {
    for (generation, tiles) in [
        (Generation::Current, EVERY_DISPLAY_TYPE),
        (Generation::Current, REQUESTS_SERIES),
        (Generation::Contract, REQUESTS_SERIES),
    ] {
        let newer = generation == Generation::Current;
        let sandbox = sandbox(generation);
        let stack = Stack::new(&sandbox);
        stack.converge(&config("", tiles));
        let out = Converge::new(&sandbox).fast().run([
            "export",
            "--service",
            common::ANALYTICS,
            "--stack",
            common::ANALYTICS,
        ]);
        assert_eq!(out.code, 0, "{}", out.stderr);
        let yaml = out.stdout;
        let board = yaml.find("name: Board").unwrap_or(0);
        let written = &yaml[board..];
        assert_eq!(written.contains("series:"), !newer, "{yaml}");
        assert_eq!(written.contains("config:"), newer, "{yaml}");
        let checked = stack.run(&yaml, &["validate"]);
        assert_eq!(checked.code, 0, "{}\n{yaml}", checked.stderr);
        stack.assert_empty(&yaml);
    }
}

/// A tile added live shows as one block in drift, as in plan, in today's generation.
#[test]
fn a_tile_added_live_is_one_block_in_drift_and_plan() {
    let sandbox = sandbox(Generation::Current);
    let stack = Stack::new(&sandbox);
    let yaml = config("", REQUESTS_SERIES);
    stack.converge(&yaml);
    let mut board = stack.board();
    let id = board["id"].as_str().unwrap_or_default().to_string();
    let tiles = board["tiles"].as_array_mut().expect("tiles");
    tiles.push(serde_json::json!({
        "name": "Errors by host", "x": 6, "y": 0, "w": 6, "h": 4,
        "config": {
            "displayType": "table", "sourceId": "65f5e4a30000000100000001", "groupBy": "host",
            "select": [{ "aggFn": "count", "where": "level:error" }]
        }
    }));
    let body = serde_json::json!({ "name": "Board", "tiles": tiles, "tags": board["tags"] });
    let path = format!("/services/{}/stack/dashboards/{id}", common::ANALYTICS);
    Client::new(&sandbox)
        .cloud("PUT", &path, Some(body))
        .result();
    let drift = stack.run(&yaml, &["drift"]);
    common::converge_snapshot!("tiles_added_live_drift", drift);
    let plan = stack.run(&yaml, &["plan"]);
    common::converge_snapshot!("tiles_added_live_plan", plan);
}

/// `plan --check-queries` and `preview` build their chart-series requests from a `config`
/// tile's `select` items; a markdown tile has none and is left out.
#[test]
fn check_queries_and_preview_query_the_select_items_of_config_tiles() {
    let sandbox = common::fast_sandbox();
    let yaml = r#"version: 1
organization: ${env:CONVERGE_ORG_ID}
observability:
  url: ${env:CONVERGE_OBSERVABILITY_URL}
  token: ${env:CONVERGE_OBS_TOKEN}
stacks:
  obs:
    api: observability
    generation: config
    dashboards:
      board:
        name: Board
        tiles:
          - name: Sizes
            x: 0
            y: 0
            w: 6
            h: 4
            config:
              displayType: line
              source: Logs
              select:
                - { aggFn: count, where: "service:api" }
                - { aggFn: avg, valueExpression: bytes }
              groupBy: service
          - name: Notes
            x: 6
            y: 0
            w: 6
            h: 4
            config: { displayType: markdown, markdown: "Notes" }
"#;
    let out = Converge::new(&sandbox)
        .config_as("obs.yaml", yaml)
        .run(["plan", "--check-queries"]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    let sent: Vec<usize> = sandbox
        .request_log()
        .iter()
        .filter(|e| e.path == "/api/v2/charts/series")
        .filter_map(|e| e.series)
        .collect();
    assert_eq!(sent, vec![2]);
    let out = Converge::new(&sandbox).config_as("obs.yaml", yaml).run([
        "preview",
        "dashboard.obs.board.tile[Sizes]",
        "--end",
        "2026-11-21T06:00:00Z",
        "--format",
        "json",
    ]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    let drawn = out.json();
    let labels: Vec<&str> = drawn["charts"][0]["lines"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|l| l["label"].as_str())
        .collect();
    assert_eq!(
        labels,
        [
            "series 0: count · service-a",
            "series 0: count · service-b",
            "series 1: avg(bytes) · service-a",
            "series 1: avg(bytes) · service-b"
        ]
    );
}

/// A tile drawn twice (`series` and `config`), or with `asRatio` beside its `config`, is an
/// error at validate.
#[test]
fn a_tile_has_series_or_config_and_a_config_keeps_its_ratio() {
    let both = format!(
        "{REQUESTS_SERIES}            config: {{ displayType: number, source: Logs, select: [{{ aggFn: count }}] }}\n"
    );
    let ratio = EVERY_DISPLAY_TYPE.replacen(
        "            config:\n              displayType: line\n",
        "            asRatio: true\n            config:\n              displayType: line\n",
        1,
    );
    for (name, tiles) in [
        ("tiles_both_shapes", both),
        ("tiles_ratio_beside_config", ratio),
    ] {
        let out = Converge::offline()
            .env("CONVERGE_ORG_ID", "7d3f6a2e-0c1b-4e5f-9a8b-1c2d3e4f5a6b")
            .env("CONVERGE_CLOUD_URL", "http://127.0.0.1:9")
            .env("CONVERGE_KEY_ID", "key")
            .env("CONVERGE_KEY_SECRET", "secret")
            .config_as("converge.yaml", &config("", &tiles))
            .run(["validate"]);
        common::converge_snapshot!(name, out);
    }
}

mod containers;
mod unlisted;

/// A tile of every series type the contract's shorthand has (a histogram is refused), and a
/// ratio of two series.
const EVERY_SERIES_TYPE: &str = r##"          - name: Requests
            x: 0
            y: 0
            w: 6
            h: 4
            series:
              - type: time
                source: Logs
                aggFn: count
                where: "service:api"
                groupBy: [service, host]
          - name: Ratio
            x: 6
            y: 0
            w: 6
            h: 4
            asRatio: true
            series:
              - { type: time, source: Logs, aggFn: count, where: "level:error" }
              - { type: time, source: Logs, aggFn: count }
          - name: Table
            x: 12
            y: 0
            w: 6
            h: 4
            series: [{ type: table, source: Logs, aggFn: max, field: duration, groupBy: [host] }]
          - name: Number
            x: 18
            y: 0
            w: 6
            h: 4
            series: [{ type: number, source: Logs, aggFn: quantile, field: duration, level: 0.95 }]
          - name: Search
            x: 0
            y: 4
            w: 6
            h: 4
            series: [{ type: search, source: Logs, fields: [timestamp, message], where: "level:error" }]
          - name: Notes
            x: 6
            y: 4
            w: 6
            h: 4
            series: [{ type: markdown, content: "# On call" }]
"##;

/// Edits of one series field each, in order.
const SERIES_EDITS: &[(&str, &str)] = &[
    ("where: \"service:api\"", "where: \"service:web\""),
    (
        "where: \"service:web\"\n",
        "where: \"service:web\"\n                whereLanguage: sql\n",
    ),
    ("groupBy: [service, host]", "groupBy: [service]"),
    ("aggFn: max, field: duration", "aggFn: min, field: duration"),
    ("aggFn: min, field: duration", "aggFn: min, field: latency"),
    ("groupBy: [host]", "groupBy: [host, zone]"),
    ("level: 0.95", "level: 0.99"),
    ("fields: [timestamp, message]", "fields: [timestamp, body]"),
    ("\"# On call\"", "\"# On call, week 2\""),
    ("where: \"level:error\" }\n", "where: \"level:warn\" }\n"),
    ("asRatio: true", "asRatio: false"),
    (
        "            h: 4\n            series:\n              - type: time",
        "            h: 5\n            series:\n              - type: time",
    ),
];

/// The series shorthand of every series type, against a server answering in `generation`
/// (written as `series` to the contract's, lowered to `config` for today's): created, changed
/// field by field, one renamed and one deleted, an empty plan after each apply, the tile ids
/// and the alert kept; then exported, validated and planned empty.
fn every_series_type(generation: Generation) {
    let sandbox = sandbox(generation);
    let stack = Stack::new(&sandbox);
    let mut yaml = config("", EVERY_SERIES_TYPE);
    stack.converge(&yaml);
    let names = ["Requests", "Ratio", "Table", "Search"];
    let ids: Vec<String> = names.iter().map(|n| stack.tile_id(n)).collect();
    assert_eq!(stack.alert_tile(), ids[0]);
    for (from, to) in SERIES_EDITS {
        assert_eq!(yaml.matches(from).count(), 1, "{from}");
        yaml = yaml.replace(from, to);
        let plan = stack.changes(&yaml);
        assert_eq!(
            plan.matches("~ dashboard.prod.board").count(),
            1,
            "{from}: {plan}"
        );
        stack.converge(&yaml);
        let now: Vec<String> = names.iter().map(|n| stack.tile_id(n)).collect();
        assert_eq!(now, ids, "{from}");
        assert_eq!(stack.alert_tile(), ids[0], "{from}");
    }
    yaml = yaml.replace("- name: Ratio\n", "- name: Errors share\n");
    stack.changes(&yaml);
    stack.converge(&yaml);
    assert_eq!(stack.tile_id("Errors share"), ids[1]);
    let at = yaml.find("          - name: Number").unwrap_or(0);
    let end = yaml.find("          - name: Search").unwrap_or(0);
    yaml.replace_range(at..end, "");
    stack.changes(&yaml);
    stack.converge(&yaml);
    assert_eq!(stack.tile_id("Number"), "");
    assert_eq!(stack.tile_id("Search"), ids[3]);
    assert_eq!(stack.alert_tile(), ids[0]);

    let out = Converge::new(&sandbox).fast().run([
        "export",
        "--service",
        common::ANALYTICS,
        "--stack",
        common::ANALYTICS,
    ]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    let exported = out.stdout;
    let checked = stack.run(&exported, &["validate"]);
    assert_eq!(checked.code, 0, "{}\n{exported}", checked.stderr);
    stack.assert_empty(&exported);
}

#[test]
fn every_series_type_converges_on_a_server_of_the_contracts_generation() {
    every_series_type(Generation::Contract);
}

#[test]
fn every_series_type_converges_lowered_on_a_server_of_todays_generation() {
    every_series_type(Generation::Current);
}
