//! What the real server rejects with a 400 (or undoes at the next dashboard update) is an error
//! of `converge validate` at the config line: each case is the quickstart with one change,
//! through the binary, the whole output snapshotted.

use crate::common::{Converge, converge_snapshot, quickstart};

/// `validate` on the quickstart with `from` replaced by `to` (which must be there).
fn validate_changed(from: &str, to: &str) -> crate::common::Outcome {
    let text = quickstart();
    assert!(text.contains(from), "the quickstart has no {from:?}");
    Converge::offline()
        .env("CONVERGE_KEY_SECRET", "unused")
        .env("CONVERGE_OBS_TOKEN", "unused")
        .config(&text.replacen(from, to, 1))
        .run(["validate"])
}

const CHANNEL: &str = "channel: { type: webhook, webhookId: 65f5e4a3b9e77c001a789012 }";
const REQUESTS_SERIES: &str = "              - type: time\n                source: Logs\n                aggFn: count\n                where: \"service:api\"\n                whereLanguage: lucene\n                groupBy: []\n";
const LATENCY_TYPE: &str = "          - name: Latency p95\n            x: 6\n            y: 0\n            w: 6\n            h: 4\n            series:\n              - type: time\n";

#[test]
fn a_webhook_channel_without_its_id() {
    let run = validate_changed(CHANNEL, "channel: { type: webhook }");
    converge_snapshot!("server_rejects_webhook_without_id", run);
}

#[test]
fn an_empty_message() {
    let run = validate_changed("message: Errors are up", "message: \"\"");
    converge_snapshot!("server_rejects_empty_message", run);
}

#[test]
fn more_than_ten_group_by_fields() {
    let run = validate_changed("groupBy: []", "groupBy: [a, b, c, d, e, f, g, h, i, j, k]");
    converge_snapshot!("server_rejects_group_by_limit", run);
}

#[test]
fn series_of_different_types_on_one_tile() {
    let second = "              - type: number\n                source: Logs\n                aggFn: count\n";
    let run = validate_changed(REQUESTS_SERIES, &format!("{REQUESTS_SERIES}{second}"));
    converge_snapshot!("server_rejects_mixed_series_types", run);
}

#[test]
fn series_with_different_group_by_on_one_tile() {
    let second = "              - type: time\n                source: Logs\n                aggFn: count\n                groupBy: [host]\n";
    let run = validate_changed(REQUESTS_SERIES, &format!("{REQUESTS_SERIES}{second}"));
    converge_snapshot!("server_rejects_mixed_group_by", run);
}

#[test]
fn a_histogram_series() {
    let run = validate_changed(LATENCY_TYPE, &LATENCY_TYPE.replace("time", "histogram"));
    converge_snapshot!("server_rejects_histogram_series", run);
}

#[test]
fn fifty_tags_and_the_ownership_tag() {
    let tags: Vec<String> = (1..=50).map(|i| format!("t{i}")).collect();
    let run = validate_changed("tags: [team-api]", &format!("tags: [{}]", tags.join(", ")));
    converge_snapshot!("server_rejects_tag_limit", run);
}

#[test]
fn an_alert_on_a_table_tile() {
    let run = validate_changed(
        REQUESTS_SERIES,
        &REQUESTS_SERIES.replace("type: time", "type: table"),
    );
    converge_snapshot!("server_rejects_alert_on_a_table_tile", run);
}

/// Forty-nine tags leave room for the ownership tag: no error.
#[test]
fn forty_nine_tags_are_fine() {
    let tags: Vec<String> = (1..=49).map(|i| format!("t{i}")).collect();
    let run = validate_changed("tags: [team-api]", &format!("tags: [{}]", tags.join(", ")));
    run.assert_exit(0);
}

/// The quickstart's p95 without its level: a warning (exit 0), the server draws the median.
#[test]
fn a_quantile_without_its_level() {
    let run = validate_changed("                level: 0.95\n", "");
    converge_snapshot!("server_rejects_quantile_without_level", run);
}

/// The same in today's shape: a select item's `level`.
#[test]
fn a_quantile_select_item_without_its_level() {
    let series = "            series:\n              - type: time\n                source: Logs\n                aggFn: quantile\n                level: 0.95\n";
    let config = "            config:\n              displayType: line\n              source: Logs\n              select:\n                - aggFn: quantile\n";
    let text = quickstart();
    let start = text.find(series).expect("the quickstart's p95 series");
    let end = text[start..]
        .find("    alerts:")
        .map(|at| start + at)
        .expect("alerts follow");
    let changed = format!(
        "{}{config}                  valueExpression: duration\n{}",
        &text[..start],
        &text[end..]
    );
    let run = Converge::offline()
        .env("CONVERGE_KEY_SECRET", "unused")
        .env("CONVERGE_OBS_TOKEN", "unused")
        .config(&changed)
        .run(["validate"]);
    converge_snapshot!("server_rejects_quantile_item_without_level", run);
}

#[test]
fn a_markdown_series_without_content() {
    let run = validate_changed(LATENCY_TYPE, &LATENCY_TYPE.replace("time", "markdown"));
    converge_snapshot!("server_rejects_markdown_without_content", run);
}

#[test]
fn a_search_series_without_fields() {
    let run = validate_changed(LATENCY_TYPE, &LATENCY_TYPE.replace("time", "search"));
    converge_snapshot!("server_rejects_search_without_fields", run);
}

/// With them, both validate.
#[test]
fn markdown_content_and_search_fields_validate() {
    let run = validate_changed(
        LATENCY_TYPE,
        &LATENCY_TYPE.replace(
            "- type: time",
            "- type: search\n                fields: [Timestamp, Body]",
        ),
    );
    run.assert_exit(0);
    let markdown = "              - type: markdown\n                content: \"# On call\"\n";
    let text = quickstart();
    let start = text.find("              - type: time\n                source: Logs\n                aggFn: quantile").expect("the p95 series");
    let end = start + text[start..].find("    alerts:").expect("alerts follow");
    let run = Converge::offline()
        .env("CONVERGE_KEY_SECRET", "unused")
        .env("CONVERGE_OBS_TOKEN", "unused")
        .config(&format!("{}{markdown}{}", &text[..start], &text[end..]))
        .run(["validate"]);
    run.assert_exit(0);
}

/// The quickstart's p95 reaches a server of today's generation with its level (the select
/// item of its `config`), and the plan after the apply is empty.
#[test]
fn the_quickstart_p95_is_drawn_at_its_level() {
    use converge::sandbox::{Quirk, SandboxOptions};
    let sandbox = crate::common::sandbox(SandboxOptions {
        rate_limit: false,
        quirks: vec![Quirk::NewerGeneration],
        ..SandboxOptions::default()
    });
    let workspace = crate::common::Workspace::new();
    let config = workspace.write("converge.yaml", &quickstart());
    let converge = || {
        Converge::new(&sandbox)
            .rate_limit("1000/1s")
            .cwd(&workspace)
    };
    converge().run(["apply", &config, "--yes"]).assert_exit(0);
    converge()
        .run(["plan", &config, "--detailed-exitcode"])
        .assert_exit(0);
    let dashboards = crate::common::dashboards(&sandbox);
    let tile = dashboards
        .iter()
        .flat_map(|d| d["tiles"].as_array().cloned().unwrap_or_default())
        .find(|t| t["name"] == "Latency p95")
        .expect("the p95 tile");
    assert_eq!(tile["config"]["select"][0]["aggFn"], "quantile", "{tile}");
    assert_eq!(tile["config"]["select"][0]["level"], 0.95, "{tile}");
}

/// A non-count aggregation without the column it aggregates (`Value expression is required
/// for non-count aggregation functions`), at its `aggFn`.
#[test]
fn a_non_count_series_without_its_field() {
    let run = validate_changed("                field: duration\n", "");
    converge_snapshot!("server_rejects_series_without_field", run);
}

/// A count with a field (`Value expression cannot be used with count aggregation function`),
/// at the field; and a level on a count (`Level can only be used with quantile ...`).
#[test]
fn a_count_with_a_field_or_a_level() {
    let with_field = REQUESTS_SERIES.replace(
        "aggFn: count\n",
        "aggFn: count\n                field: duration\n",
    );
    let run = validate_changed(REQUESTS_SERIES, &with_field);
    converge_snapshot!("server_rejects_count_with_field", run);
    let with_level = REQUESTS_SERIES.replace(
        "aggFn: count\n",
        "aggFn: count\n                level: 0.5\n",
    );
    let run = validate_changed(REQUESTS_SERIES, &with_level);
    converge_snapshot!("server_rejects_count_with_level", run);
}

/// A metric series without `field` is drawn from the metric's `Value` column: valid.
#[test]
fn a_metric_series_without_its_field_is_valid() {
    let metric = REQUESTS_SERIES.replace(
        "aggFn: count\n",
        "aggFn: avg\n                dataSource: metrics\n                metricName: cpu\n                metricDataType: gauge\n",
    );
    validate_changed(REQUESTS_SERIES, &metric).assert_exit(0);
}

/// The schedule offset beside a start (`scheduleOffsetMinutes must be 0 when scheduleStartAt
/// is provided`), and a start with an offset other than `Z` (`Invalid datetime`).
#[test]
fn a_schedule_offset_beside_a_start() {
    let run = validate_changed(
        "        interval: 5m\n",
        "        interval: 5m\n        scheduleOffsetMinutes: 2\n        scheduleStartAt: \"2026-02-08T10:00:00Z\"\n",
    );
    converge_snapshot!("server_rejects_offset_beside_start", run);
    let run = validate_changed(
        "        interval: 5m\n",
        "        interval: 5m\n        scheduleStartAt: \"2026-02-08T10:00:00+01:00\"\n",
    );
    converge_snapshot!("server_rejects_start_with_an_offset", run);
}

/// A start outside the window the server takes around the moment it is sent: more than 365
/// days ahead (`scheduleStartAt must be within 1 year from now`) or 3,650 days back (`... within
/// 10 years in the past`). Far dates, so the snapshots hold whatever day the tests run.
#[test]
fn a_schedule_start_outside_the_server_s_window() {
    let run = validate_changed(
        "        interval: 5m\n",
        "        interval: 5m\n        scheduleStartAt: \"2099-01-01T00:00:00Z\"\n",
    );
    converge_snapshot!("server_rejects_start_a_year_ahead", run);
    let run = validate_changed(
        "        interval: 5m\n",
        "        interval: 5m\n        scheduleStartAt: \"2001-01-01T00:00:00Z\"\n",
    );
    converge_snapshot!("server_rejects_start_ten_years_back", run);
}
