//! `converge preview` and `plan --check-queries` through the real binary against the sandbox.
//! Firings are checked against a computation by hand over points the test fetches from the
//! sandbox itself (its series are deterministic: the same request gives the same bytes).

use converge::sandbox::{Quirk, SandboxHandle, SandboxOptions};
use serde_json::{Value, json};

use crate::common::{self, Client, Converge, Workspace};

/// The end of every preview window: fixed, so runs are reproducible.
const END: &str = "2026-11-21T06:00:00Z";
const END_MS: i64 = 1_795_240_800_000;
const DAY_MS: i64 = 86_400_000;

const CONFIG: &str = r#"version: 1
organization: ${env:CONVERGE_ORG_ID}
observability:
  url: ${env:CONVERGE_OBSERVABILITY_URL}
  token: ${env:CONVERGE_OBS_TOKEN}
stacks:
  obs:
    api: observability
    dashboards:
      api-health:
        name: API health
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
          - name: Error ratio
            x: 6
            y: 0
            w: 6
            h: 4
            asRatio: true
            series:
              - type: time
                source: Logs
                aggFn: count
                where: "level:error"
              - type: time
                source: Logs
                aggFn: count
    alerts:
      busy:
        name: Busy
        dashboard: api-health
        tile: Requests
        threshold: 400
        thresholdType: above
        interval: 5m
        channel: { type: webhook, webhookId: 65f5e4a3b9e77c001a789012 }
      quiet:
        name: Too quiet
        dashboard: api-health
        tile: Requests
        threshold: 800
        thresholdType: below
        interval: 15m
        channel: { type: webhook, webhookId: 65f5e4a3b9e77c001a789012 }
"#;

/// Two more tiles for `--check-queries`: one the server rejects (no `aggFn`), one with five
/// series (the most a tile may have, and a request may carry).
const EXTRA_TILES: &str = r#"          - name: Broken
            x: 0
            y: 4
            w: 6
            h: 4
            series:
              - type: time   # broken-series
                source: Logs
                where: "oops"
          - name: Wide
            x: 6
            y: 4
            w: 6
            h: 4
            series:
              - { type: time, source: Logs, aggFn: count }
              - { type: time, source: Logs, aggFn: sum, field: bytes }
              - { type: time, source: Logs, aggFn: avg, field: duration }
              - { type: time, source: Logs, aggFn: max, field: duration }
              - { type: time, source: Logs, aggFn: min, field: duration }
"#;

/// The binary against `sandbox`, given `CONFIG` (with `EXTRA_TILES` when `extra`) as
/// `obs.yaml` in a directory of its own.
fn obs(sandbox: &SandboxHandle, extra: bool) -> Converge<'_> {
    let text = if extra {
        CONFIG.replace("    alerts:\n", &format!("{EXTRA_TILES}    alerts:\n"))
    } else {
        CONFIG.to_string()
    };
    Converge::new(sandbox).config_as("obs.yaml", &text)
}

/// `converge preview ADDRESS --end END --format json EXTRA`, parsed (asserting success).
fn preview_json(converge: &Converge, address: &str, extra: &[&str]) -> Value {
    let out = converge.run(
        ["preview", address, "--end", END, "--format", "json"]
            .iter()
            .chain(extra),
    );
    out.assert_exit(0);
    out.json()
}

/// The id of a source of the observability stack, as the sandbox lists it.
fn source_id(client: &Client, name: &str) -> String {
    let sources = client.obs("GET", "/sources", None).data();
    sources
        .as_array()
        .and_then(|list| list.iter().find(|s| s["name"] == name))
        .and_then(|s| s["id"].as_str())
        .expect("the source exists")
        .to_string()
}

/// Points of a charts/series request sent by the test itself.
fn raw_points(client: &Client, series: Value, granularity: &str) -> Vec<Value> {
    let body = json!({
        "series": series,
        "startTime": END_MS - DAY_MS,
        "endTime": END_MS,
        "granularity": granularity,
    });
    client
        .obs("POST", "/charts/series", Some(body))
        .data()
        .as_array()
        .cloned()
        .expect("an array of points")
}

fn number(value: &Value) -> Option<f64> {
    match value {
        Value::Number(n) => n.as_f64(),
        Value::String(s) => s.parse().ok(),
        _ => None,
    }
}

/// Every bucket of the chart's window with its value as the server's alert check reads it: the
/// point's value, or 0 where the window has no point (`checkAlerts` compares an empty bucket as 0).
fn buckets_by_hand(
    chart: &Value,
    points: &[Value],
    step: i64,
) -> std::collections::BTreeMap<i64, f64> {
    let mut buckets: std::collections::BTreeMap<i64, f64> = points
        .iter()
        .map(|point| {
            let ts = point["ts_bucket"].as_i64().expect("ts_bucket");
            (ts, number(&point["series_0.data"]).expect("a value"))
        })
        .collect();
    let start = chart["startTime"].as_i64().expect("startTime");
    let end = chart["endTime"].as_i64().expect("endTime");
    let mut ts = start.div_euclid(step) * step;
    while ts < end {
        buckets.entry(ts).or_insert(0.0);
        ts += step;
    }
    buckets
}

/// Starts and bucket counts of firing runs, by hand, as the server's alert check counts them
/// (`doesExceedThreshold`): `above` fires at the threshold or past it, `below` strictly under
/// it; a bucket of the chart's window with no point is compared as 0; consecutive firing
/// buckets are one firing.
fn runs_by_hand(
    chart: &Value,
    points: &[Value],
    threshold: f64,
    above: bool,
    step: i64,
) -> Vec<(i64, usize)> {
    let buckets = buckets_by_hand(chart, points, step);
    let mut runs: Vec<(i64, usize)> = Vec::new();
    let mut last_firing: Option<i64> = None;
    for (ts, value) in buckets {
        let fires = if above {
            value >= threshold
        } else {
            value < threshold
        };
        if !fires {
            last_firing = None;
            continue;
        }
        match (last_firing, runs.last_mut()) {
            (Some(previous), Some(run)) if previous + step == ts => run.1 += 1,
            _ => runs.push((ts, 1)),
        }
        last_firing = Some(ts);
    }
    runs
}

fn requests_series(client: &Client) -> Value {
    json!([{
        "type": "time", "sourceId": source_id(client, "Logs"), "aggFn": "count",
        "where": "service:api", "whereLanguage": "lucene", "groupBy": [],
    }])
}

fn chart_runs(chart: &Value) -> Vec<(i64, usize)> {
    chart["lines"][0]["runs"]
        .as_array()
        .expect("runs")
        .iter()
        .map(|r| {
            (
                r["start"].as_i64().expect("start"),
                r["buckets"].as_u64().expect("buckets") as usize,
            )
        })
        .collect()
}

#[test]
fn an_above_alert_fires_where_a_hand_computation_says() {
    let sandbox = common::fast_sandbox();
    let document = preview_json(&obs(&sandbox, false), "alert.obs.busy", &[]);
    let chart = &document["charts"][0];
    assert_eq!(chart["granularity"], "5m", "the alert's interval");
    assert_eq!(chart["threshold"], json!({"value": 400, "type": "above"}));

    let client = Client::new(&sandbox);
    let points = raw_points(&client, requests_series(&client), "5m");
    let expected = runs_by_hand(chart, &points, 400.0, true, 300_000);
    assert!(expected.len() >= 2, "the data must cross the threshold");
    assert_eq!(chart_runs(chart), expected);
    assert_eq!(chart["fired"], expected.len());
    // Every bucket the server sent is drawn, with its value.
    assert_eq!(
        chart["lines"][0]["points"].as_array().map(Vec::len),
        Some(points.len())
    );
    let firing: usize = expected.iter().map(|r| r.1).sum();
    assert_eq!(
        chart["lines"][0]["firingBuckets"].as_array().map(Vec::len),
        Some(firing)
    );
    let longest = expected.iter().map(|r| r.1).max().unwrap_or(0);
    assert_eq!(chart["longestRun"]["buckets"], longest);
}

#[test]
fn a_below_alert_fires_where_a_hand_computation_says_and_text_says_so() {
    let sandbox = common::fast_sandbox();
    let converge = obs(&sandbox, false);
    let document = preview_json(&converge, "alert.obs.quiet", &[]);
    let chart = &document["charts"][0];
    assert_eq!(chart["granularity"], "15m");

    let client = Client::new(&sandbox);
    let points = raw_points(&client, requests_series(&client), "15m");
    let expected = runs_by_hand(chart, &points, 800.0, false, 900_000);
    assert!(expected.len() >= 2, "the data must cross the threshold");
    assert_eq!(chart_runs(chart), expected);

    // The text report says the same, and draws a chart at the width COLUMNS gives.
    let out =
        converge
            .clone()
            .env("COLUMNS", "72")
            .run(["preview", "alert.obs.quiet", "--end", END]);
    let text = &out.stdout;
    out.assert_exit(0);
    common::converge_snapshot!("below_alert_text", out);
    assert!(
        text.contains(&format!("would have fired {} times", expected.len())),
        "{text}"
    );
    assert!(text.contains("below 800") && text.contains('▲'), "{text}");
    let mut chart_rows = text.lines().filter(|l| l.contains(['│', '┼', '└']));
    assert!(chart_rows.clone().count() >= 11, "{text}");
    assert!(chart_rows.all(|l| l.chars().count() <= 72), "{text}");
}

#[test]
fn a_ratio_tile_is_series_zero_over_series_one_and_string_values_read_the_same() {
    let sandbox = common::fast_sandbox();
    let address = "dashboard.obs.api-health.tile[Error ratio]";
    let document = preview_json(&obs(&sandbox, false), address, &["--granularity", "1h"]);
    let chart = &document["charts"][0];
    assert_eq!(chart["threshold"], Value::Null, "a tile has no threshold");
    let lines = chart["lines"].as_array().expect("lines");
    assert_eq!(lines.len(), 1, "one ratio line");

    let client = Client::new(&sandbox);
    let logs = source_id(&client, "Logs");
    let series = json!([
        {"type": "time", "sourceId": logs, "aggFn": "count", "where": "level:error", "groupBy": []},
        {"type": "time", "sourceId": logs, "aggFn": "count", "groupBy": []},
    ]);
    let expected: Vec<(i64, f64)> = raw_points(&client, series, "1h")
        .iter()
        .filter_map(|p| {
            let a = number(&p["series_0.data"])?;
            let b = number(&p["series_1.data"])?;
            (b != 0.0).then(|| (p["ts_bucket"].as_i64().unwrap_or_default(), a / b))
        })
        .collect();
    let drawn: Vec<(i64, f64)> = lines[0]["points"]
        .as_array()
        .expect("points")
        .iter()
        .map(|p| {
            (
                p["ts"].as_i64().unwrap_or_default(),
                p["value"].as_f64().unwrap_or_default(),
            )
        })
        .collect();
    assert!(drawn.len() >= 20, "{drawn:?}");
    assert_eq!(drawn, expected);

    // A server that sends values as numeric strings gives the same chart.
    let strings = common::sandbox(SandboxOptions {
        rate_limit: false,
        quirks: vec![Quirk::NumberStrings],
        ..SandboxOptions::default()
    });
    let again = preview_json(&obs(&strings, false), address, &["--granularity", "1h"]);
    assert_eq!(again["charts"][0]["lines"], chart["lines"]);
}

#[test]
fn the_svg_is_xml_with_the_series_the_threshold_and_one_mark_per_firing() {
    let sandbox = common::fast_sandbox();
    let converge = obs(&sandbox, false);
    let svg_path = converge.dir().join("busy.svg");
    let svg_arg = svg_path.to_string_lossy().to_string();
    let document = preview_json(&converge, "alert.obs.busy", &["--svg", &svg_arg]);
    let chart = &document["charts"][0];
    let client = Client::new(&sandbox);
    let points = raw_points(&client, requests_series(&client), "5m");
    let expected = runs_by_hand(chart, &points, 400.0, true, 300_000);

    let text = std::fs::read_to_string(&svg_path).expect("the SVG was written");
    let svg = roxmltree::Document::parse(&text).expect("the SVG is well-formed XML");
    let root = svg.root_element();
    assert_eq!(root.tag_name().name(), "svg");
    assert_eq!(
        root.tag_name().namespace(),
        Some("http://www.w3.org/2000/svg")
    );
    assert!(
        !text.contains("href"),
        "standalone: no links or external resources"
    );
    let with_class = |class: &str| -> Vec<roxmltree::Node> {
        svg.descendants()
            .filter(|n| n.attribute("class") == Some(class))
            .collect()
    };
    let series = with_class("series");
    assert_eq!(series.len(), 1);
    let d = series[0].attribute("d").unwrap_or_default();
    let vertices = d.matches('M').count() + d.matches('L').count();
    assert_eq!(vertices, points.len(), "one vertex per bucket");

    let threshold = with_class("threshold");
    assert_eq!(threshold.len(), 1);
    assert_eq!(threshold[0].tag_name().name(), "line");
    assert_eq!(threshold[0].attribute("data-value"), Some("400"));

    let firing = with_class("firing");
    assert_eq!(firing.len(), expected.len());
    let starts: Vec<i64> = firing
        .iter()
        .filter_map(|n| n.attribute("data-start")?.parse().ok())
        .collect();
    assert_eq!(starts, expected.iter().map(|r| r.0).collect::<Vec<_>>());
    assert_eq!(chart["fired"], expected.len());
    // Time axis labels and value labels are there.
    assert!(with_class("x-label").len() >= 4);
    assert!(with_class("y-tick").len() >= 3);
}

#[test]
fn check_queries_reports_a_rejected_query_at_its_line_with_one_to_five_series_a_request() {
    let sandbox = common::fast_sandbox();
    let converge = obs(&sandbox, true);
    let text = std::fs::read_to_string(converge.config_path()).expect("config");
    let line = text
        .lines()
        .position(|l| l.contains("# broken-series"))
        .expect("marker")
        + 1;
    let out = converge.run(["plan", "--check-queries"]);
    out.assert_exit(1);
    let stderr = &out.stderr;
    assert!(
        stderr.contains("dashboard.obs.api-health.tile[Broken]"),
        "{stderr}"
    );
    // The server's words (the renderer may wrap them).
    assert!(
        stderr.contains("series[0].aggFn:") && stderr.contains("is required"),
        "{stderr}"
    );
    assert!(stderr.contains(&format!("obs.yaml:{line}:")), "{stderr}");
    assert!(
        !stderr.contains("tile[Wide]"),
        "the wide tile runs: {stderr}"
    );
    // The plan itself is still printed on stdout.
    assert!(out.stdout.contains("dashboard.obs.api-health"));

    let mut sizes: Vec<usize> = sandbox
        .request_log()
        .iter()
        .filter(|e| e.route == "/api/v2/charts/series")
        .map(|e| e.series.expect("the log counts series"))
        .collect();
    sizes.sort_unstable();
    // Requests 1, Error ratio 2, Broken 1, Wide 5: one request per tile.
    assert_eq!(sizes, vec![1, 1, 2, 5]);
    assert!(sizes.iter().all(|n| (1..=5).contains(n)));
}

#[test]
fn check_queries_passes_when_every_query_runs_within_the_rate_limit() {
    // The real services' rate limits are on: the transport must pace the queries.
    let sandbox = common::sandbox(SandboxOptions::default());
    let out = obs(&sandbox, false).run(["plan", "--check-queries"]);
    out.assert_exit(0);
    let stderr = &out.stderr;
    assert!(stderr.contains("2 tile(s) ran in 2 request(s)"), "{stderr}");
    assert_eq!(common::count(&sandbox, "POST", "/api/v2/charts/series"), 2);
    let log = sandbox.request_log();
    assert!(log.iter().all(|e| e.status != 429), "{log:?}");
}

#[test]
fn the_managed_stack_has_no_series_and_says_so() {
    let sandbox = common::fast_sandbox();
    let dir = Workspace::new();
    let quickstart = common::quickstart_path();
    let converge = Converge::new(&sandbox).cwd(&dir);

    let out = converge.run(["preview", "alert.prod.api-errors", &quickstart]);
    out.assert_exit(1);
    let stderr = &out.stderr;
    assert!(stderr.contains("managed stack"), "{stderr}");
    assert!(stderr.contains("charts/series"), "{stderr}");
    assert!(out.stdout.is_empty());

    let out = converge.run(["plan", "--check-queries", &quickstart]);
    out.assert_exit(0);
    let stderr = &out.stderr;
    assert!(
        stderr.contains("stack.prod: not checked") && stderr.contains("no charts/series"),
        "{stderr}"
    );
    assert_eq!(
        common::count(&sandbox, "POST", "/api/v2/charts/series"),
        0,
        "nothing was sent"
    );
}

#[test]
fn an_unknown_address_lists_the_known_ones() {
    let sandbox = common::fast_sandbox();
    let out = obs(&sandbox, false).run(["preview", "alert.obs.nope"]);
    out.assert_exit(1);
    let stderr = &out.stderr;
    assert!(
        stderr.contains("alert.obs.busy") && stderr.contains("dashboard.obs.api-health"),
        "{stderr}"
    );
}

#[test]
fn an_unknown_tile_lists_the_tiles_of_its_dashboard() {
    let sandbox = common::fast_sandbox();
    let out = obs(&sandbox, false).run(["preview", "dashboard.obs.api-health.tile[Requets]"]);
    out.assert_exit(1);
    let stderr = &out.stderr;
    // The renderer wraps long lines: compare with whitespace runs as one space.
    let flat = stderr.split_whitespace().collect::<Vec<_>>().join(" ");
    assert!(
        flat.contains("tiles of dashboard.obs.api-health: tile[Requests], tile[Error ratio]"),
        "{stderr}"
    );
}

#[test]
fn a_dashboard_previews_every_tile_without_a_threshold() {
    let sandbox = common::fast_sandbox();
    let converge = obs(&sandbox, false);
    let svg_path = converge.dir().join("board.svg");
    let svg_arg = svg_path.to_string_lossy().to_string();
    let document = preview_json(
        &converge,
        "dashboard.obs.api-health",
        &["--window", "6h", "--svg", &svg_arg],
    );
    let charts = document["charts"].as_array().expect("charts");
    let addresses: Vec<&str> = charts
        .iter()
        .filter_map(|c| c["address"].as_str())
        .collect();
    assert_eq!(
        addresses,
        vec![
            "dashboard.obs.api-health.tile[Requests]",
            "dashboard.obs.api-health.tile[Error ratio]"
        ]
    );
    assert!(
        charts
            .iter()
            .all(|c| c["threshold"].is_null() && c["fired"].is_null())
    );
    assert!(charts.iter().all(|c| c["granularity"] == "auto"));
    assert_eq!(charts[0]["endTime"].as_i64(), Some(END_MS));
    assert_eq!(
        charts[0]["startTime"].as_i64(),
        Some(END_MS - 6 * 3_600_000)
    );

    let text = std::fs::read_to_string(&svg_path).expect("the SVG was written");
    let svg = roxmltree::Document::parse(&text).expect("well-formed XML");
    let panels = svg
        .descendants()
        .filter(|n| n.attribute("class") == Some("panel"))
        .count();
    assert_eq!(panels, 2);
    assert!(
        !svg.descendants()
            .any(|n| matches!(n.attribute("class"), Some("threshold" | "firing")))
    );
}

#[test]
fn a_window_reaching_before_1970_is_refused_before_any_query() {
    let sandbox = common::fast_sandbox();
    let out = obs(&sandbox, false).run([
        "preview",
        "alert.obs.busy",
        "--window",
        "366d",
        "--end",
        "1970-06-01T00:00:00Z",
    ]);
    out.assert_exit(1);
    let stderr = &out.stderr;
    assert!(stderr.contains("--window `366d`"), "{stderr}");
    assert!(stderr.contains("1970"), "{stderr}");
    assert_eq!(common::count(&sandbox, "POST", "/api/v2/charts/series"), 0);
}

/// A markdown tile (text, no query) on the dashboard of `CONFIG`.
const NOTES_TILE: &str = r#"          - name: Notes
            x: 0
            y: 4
            w: 6
            h: 4
            series:
              - type: markdown
                content: "On call: see the runbook"
"#;

#[test]
fn a_markdown_tile_has_no_query_to_check_or_draw() {
    let sandbox = common::fast_sandbox();
    let converge = Converge::new(&sandbox).config_as(
        "obs.yaml",
        &CONFIG.replace("    alerts:\n", &format!("{NOTES_TILE}    alerts:\n")),
    );

    let out = converge.run(["plan", "--check-queries"]);
    out.assert_exit(0);
    let stderr = &out.stderr;
    assert!(
        stderr.contains("2 tile(s) ran in 2 request(s)") && stderr.contains("1 markdown tile(s)"),
        "{stderr}"
    );

    // The dashboard draws its two charts and says the notes were left out.
    let out = converge.run([
        "preview",
        "dashboard.obs.api-health",
        "--end",
        END,
        "--format",
        "json",
    ]);
    out.assert_exit(0);
    let stderr = &out.stderr;
    let report = out.json();
    assert_eq!(report["charts"].as_array().map(Vec::len), Some(2));
    assert!(
        stderr.contains("tile[Notes]") && stderr.contains("markdown"),
        "{stderr}"
    );

    // The tile alone: said plainly, exit 1, nothing sent.
    let before = common::count(&sandbox, "POST", "/api/v2/charts/series");
    let out = converge.run(["preview", "dashboard.obs.api-health.tile[Notes]"]);
    out.assert_exit(1);
    let stderr = &out.stderr;
    assert!(stderr.contains("markdown tile"), "{stderr}");
    assert_eq!(
        common::count(&sandbox, "POST", "/api/v2/charts/series"),
        before
    );
}

/// `converge preview ADDRESS --granularity G` in text and in JSON on `config`: (stdout of the
/// text run, stderr of the text run, the JSON chart).
fn preview_at(
    sandbox: &SandboxHandle,
    config: &str,
    address: &str,
    granularity: &str,
) -> (String, String, Value) {
    let converge = Converge::new(sandbox).config_as("obs.yaml", config);
    let run = |format: &str| {
        converge.run([
            "preview",
            address,
            "--end",
            END,
            "--granularity",
            granularity,
            "--format",
            format,
        ])
    };
    let text = run("text");
    text.assert_exit(0);
    let json = run("json");
    json.assert_exit(0);
    (text.stdout, text.stderr, json.json()["charts"][0].clone())
}

#[test]
fn hourly_buckets_of_a_five_minute_count_alert_scale_its_threshold_and_say_so() {
    let sandbox = common::fast_sandbox();
    let (text, stderr, chart) = preview_at(&sandbox, CONFIG, "alert.obs.busy", "1h");
    assert!(
        stderr.contains(
            "warning: alert.obs.busy evaluates every 5m, but these buckets are 1h: its threshold \
             400 (a count per 5m) is scaled ×12 to 4800 per 1h bucket, as if the rate were even"
        ),
        "{stderr}"
    );
    assert!(
        stderr.contains("`--granularity 5m` shows the alert's own windows"),
        "{stderr}"
    );
    assert!(
        text.contains("threshold 4800 per 1h bucket: the alert's 400 per 5m, scaled ×12"),
        "{text}"
    );
    assert_eq!(
        chart["threshold"],
        json!({"value": 4800, "type": "above", "alertValue": 400, "alertInterval": "5m", "scaledBy": 12})
    );
    // The firings are those of the scaled threshold over the hourly buckets.
    let client = Client::new(&sandbox);
    let points = raw_points(&client, requests_series(&client), "1h");
    assert_eq!(
        chart_runs(&chart),
        runs_by_hand(&chart, &points, 4800.0, true, 3_600_000)
    );

    // At the alert's own interval nothing is scaled and nothing is said.
    let (_, stderr, chart) = preview_at(&sandbox, CONFIG, "alert.obs.busy", "5m");
    assert!(!stderr.contains("warning"), "{stderr}");
    assert_eq!(chart["threshold"], json!({"value": 400, "type": "above"}));
}

#[test]
fn a_ratio_alert_at_another_granularity_keeps_its_threshold_and_warns() {
    let sandbox = common::fast_sandbox();
    let config = format!(
        "{CONFIG}      errors:\n        name: Errors\n        dashboard: api-health\n        \
         tile: Error ratio\n        threshold: 0.05\n        thresholdType: above\n        \
         interval: 5m\n        channel: {{ type: webhook, webhookId: 65f5e4a3b9e77c001a789012 }}\n"
    );
    let (_, stderr, chart) = preview_at(&sandbox, &config, "alert.obs.errors", "1h");
    assert!(
        stderr.contains(
            "warning: alert.obs.errors evaluates every 5m, but these buckets are 1h: each \
             bucket's ratio is compared with the threshold 0.05 as it is"
        ),
        "{stderr}"
    );
    assert_eq!(chart["threshold"], json!({"value": 0.05, "type": "above"}));
}

/// The binary against `sandbox` with `CONFIG`'s `busy` alert given `members` (YAML lines at the
/// alert's indentation) after its `interval:`.
fn busy_with<'s>(sandbox: &'s SandboxHandle, members: &str) -> Converge<'s> {
    let text = CONFIG.replacen(
        "        threshold: 400\n        thresholdType: above\n        interval: 5m\n",
        &format!(
            "        threshold: 400\n        thresholdType: above\n        interval: 5m\n{members}"
        ),
        1,
    );
    assert_ne!(text, CONFIG, "the busy alert is where the test expects it");
    Converge::new(sandbox).config_as("obs.yaml", &text)
}

#[test]
fn num_consecutive_windows_fires_only_runs_that_long() {
    let sandbox = common::fast_sandbox();
    let client = Client::new(&sandbox);
    let points = raw_points(&client, requests_series(&client), "5m");
    let converge = busy_with(&sandbox, "        numConsecutiveWindows: 3\n");
    let chart = preview_json(&converge, "alert.obs.busy", &[])["charts"][0].clone();
    let every = runs_by_hand(&chart, &points, 400.0, true, 300_000);
    let long: Vec<(i64, usize)> = every.iter().copied().filter(|r| r.1 >= 3).collect();
    assert!(long.len() < every.len() && !long.is_empty(), "{every:?}");
    assert_eq!(chart_runs(&chart), long);
    assert_eq!(chart["fired"], long.len());
    assert_eq!(chart["threshold"]["numConsecutiveWindows"], 3);
    assert_eq!(chart["threshold"]["shortRuns"], every.len() - long.len());
    let out =
        converge
            .clone()
            .env("COLUMNS", "80")
            .run(["preview", "alert.obs.busy", "--end", END]);
    out.assert_exit(0);
    assert!(
        out.stdout.contains(&format!(
            "would have fired {} times (numConsecutiveWindows 3: {} shorter runs past the \
             threshold did not fire):",
            long.len(),
            every.len() - long.len()
        )),
        "{}",
        out.stdout
    );
    common::converge_snapshot!("num_consecutive_windows_text", out);
}

#[test]
fn between_and_not_between_fire_inside_and_outside_the_band() {
    let sandbox = common::fast_sandbox();
    let client = Client::new(&sandbox);
    let points = raw_points(&client, requests_series(&client), "5m");
    for (kind, inside) in [("between", true), ("not_between", false)] {
        let converge = busy_with(&sandbox, "        thresholdMax: 600\n")
            .config_as(
                "obs.yaml",
                &CONFIG.replacen(
                    "        thresholdType: above\n        interval: 5m\n",
                    &format!(
                        "        thresholdType: {kind}\n        thresholdMax: 600\n        interval: 5m\n"
                    ),
                    1,
                ),
            );
        let chart = preview_json(&converge, "alert.obs.busy", &[])["charts"][0].clone();
        assert_eq!(
            chart["threshold"],
            json!({"value": 400, "type": kind, "max": 600}),
            "{kind}"
        );
        // An empty bucket is a 0: outside the band, so it fires not_between.
        let expected: Vec<i64> = buckets_by_hand(&chart, &points, 300_000)
            .into_iter()
            .filter(|(_, v)| (400.0..=600.0).contains(v) == inside)
            .map(|(ts, _)| ts)
            .collect();
        assert!(!expected.is_empty(), "{kind}");
        let firing: Vec<i64> = chart["lines"][0]["firingBuckets"]
            .as_array()
            .expect("firing buckets")
            .iter()
            .filter_map(Value::as_i64)
            .collect();
        assert_eq!(firing, expected, "{kind}");
        let out = converge.run(["preview", "alert.obs.busy", "--end", END]);
        out.assert_exit(0);
        let word = kind.replace('_', " ");
        assert!(
            out.stdout
                .contains(&format!("longest run {word} 400 and 600:")),
            "{}",
            out.stdout
        );
    }
}

#[test]
fn a_schedule_offset_and_start_are_said_at_their_lines_as_not_evaluated() {
    let sandbox = common::fast_sandbox();
    let mut stderr = String::new();
    for (member, said) in [
        (
            "        scheduleOffsetMinutes: 2\n",
            "windows 2 minute(s) after the start of each 5m window",
        ),
        (
            "        scheduleStartAt: \"2026-11-20T12:00:00Z\"\n",
            "evaluates this alert from 2026-11-20T12:00:00Z on",
        ),
    ] {
        let out = busy_with(&sandbox, member).run([
            "preview",
            "alert.obs.busy",
            "--end",
            END,
            "--format",
            "json",
        ]);
        out.assert_exit(0);
        let warnings = out
            .stderr
            .lines()
            .filter(|l| l.contains("preview::not-evaluated"))
            .count();
        assert_eq!(warnings, 1, "{}", out.stderr);
        assert!(out.stderr.contains("obs.yaml:"), "{}", out.stderr);
        assert!(common::words(&out.stderr).contains(said), "{}", out.stderr);
        stderr.push_str(&out.stderr);
    }
    let settings = common::snapshots();
    settings.bind(|| insta::assert_snapshot!("schedule_not_evaluated", stderr));
}

#[test]
fn every_threshold_type_of_the_current_document_fires_as_the_server_compares() {
    let sandbox = common::fast_sandbox();
    let client = Client::new(&sandbox);
    let points = raw_points(&client, requests_series(&client), "5m");
    // A threshold some bucket sits at exactly, so `>=` and `>` (and `==`) differ.
    let at = points
        .iter()
        .find_map(|p| number(&p["series_0.data"]))
        .expect("a value");
    type Compare = fn(f64, f64) -> bool;
    let cases: [(&str, Compare); 6] = [
        ("above", |v, t| v >= t),
        ("above_exclusive", |v, t| v > t),
        ("below", |v, t| v < t),
        ("below_or_equal", |v, t| v <= t),
        ("equal", |v, t| v == t),
        ("not_equal", |v, t| v != t),
    ];
    for (kind, fires) in cases {
        let text = CONFIG.replacen(
            "        threshold: 400\n        thresholdType: above\n",
            &format!("        threshold: {at}\n        thresholdType: {kind}\n"),
            1,
        );
        assert_ne!(text, CONFIG, "the busy alert is where the test expects it");
        let converge = Converge::new(&sandbox).config_as("obs.yaml", &text);
        let chart = preview_json(&converge, "alert.obs.busy", &[])["charts"][0].clone();
        assert_eq!(chart["threshold"]["type"], kind);
        let expected: Vec<i64> = buckets_by_hand(&chart, &points, 300_000)
            .into_iter()
            .filter(|(_, v)| fires(*v, at))
            .map(|(ts, _)| ts)
            .collect();
        assert!(!expected.is_empty(), "{kind}");
        let firing: Vec<i64> = chart["lines"][0]["firingBuckets"]
            .as_array()
            .expect("firing buckets")
            .iter()
            .filter_map(Value::as_i64)
            .collect();
        assert_eq!(firing, expected, "{kind}");
    }
}
