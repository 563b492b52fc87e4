//! The observability half's cases, each run against the sandbox and hdx-server ([`on_both!`]).

use serde_json::json;

use crate::common::Workspace;

use super::{Target, apply_then_empty, config, on_both};

/// A dashboard of two tiles (a line and a number tile) and an alert on the first.
pub(super) const CREATE: &str = r#"dashboards:
  api:
    name: API
    tags: [team-api]
    tiles:
      - name: Requests
        x: 0
        y: 0
        w: 12
        h: 4
        series:
          - type: time
            source: Logs
            aggFn: count
            where: "service:api"
      - name: Total
        x: 12
        y: 0
        w: 6
        h: 4
        series:
          - type: number
            source: Logs
            aggFn: count
alerts:
  errors:
    name: API errors
    dashboard: api
    tile: Requests
    threshold: 100
    thresholdType: above
    interval: 5m
    channel: { type: webhook, webhookId: 65f5e4a3b9e77c001a789012 }
    message: Errors are up
"#;

/// Created in one apply (the alert after its dashboard), then an empty plan; read back with
/// the tiles, tags and alert the config gave.
fn creates_then_plans_empty(target: &Target) {
    let workspace = Workspace::new();
    let converge = target.converge().cwd(&workspace);
    let config = workspace.write("c.yaml", &config(CREATE));
    apply_then_empty(target, &converge, &config);
    let dashboards = target.dashboards();
    assert_eq!(dashboards.len(), 1, "{}: {dashboards:#?}", target.name());
    let dashboard = &dashboards[0];
    // Besides the ownership tag, an apply marks what it wrote with its run (`converge-run:`).
    let mut tags: Vec<&str> = dashboard["tags"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|t| t.as_str())
        .filter(|t| !t.starts_with("converge-run:"))
        .collect();
    tags.sort_unstable();
    assert_eq!(
        json!(tags),
        json!(["converge:platform", "team-api"]),
        "{}",
        target.name()
    );
    let tiles: Vec<_> = dashboard["tiles"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|t| (t["name"].clone(), t["config"]["displayType"].clone()))
        .collect();
    assert_eq!(
        tiles,
        [
            (json!("Requests"), json!("line")),
            (json!("Total"), json!("number"))
        ],
        "{}",
        target.name()
    );
    let alerts = target.alerts();
    assert_eq!(alerts.len(), 1, "{}: {alerts:#?}", target.name());
    assert_eq!(
        alerts[0]["dashboardId"],
        dashboard["id"],
        "{}",
        target.name()
    );
    assert_eq!(
        alerts[0]["tileId"],
        dashboard["tiles"][0]["id"],
        "{}",
        target.name()
    );
    assert_eq!(
        target.writes(),
        ["POST /api/v2/dashboards 200", "POST /api/v2/alerts 200"],
        "{}",
        target.name()
    );
}
on_both!(creates_then_plans_empty);

/// [`CREATE`] changed in every field a config writes: threshold, type, interval, message, the
/// channel, a tile's place and query, the tags.
const CHANGED: &str = r#"dashboards:
  api:
    name: API
    tags: [team-api, prod]
    tiles:
      - name: Requests
        x: 0
        y: 2
        w: 24
        h: 4
        series:
          - type: time
            source: Logs
            aggFn: count
            where: "service:api AND level:error"
            whereLanguage: lucene
      - name: Total
        x: 12
        y: 0
        w: 6
        h: 4
        series:
          - type: number
            source: Traces
            aggFn: sum
            field: Duration
alerts:
  errors:
    name: API errors
    dashboard: api
    tile: Requests
    threshold: 250.5
    thresholdType: below_or_equal
    interval: 15m
    channel: { type: webhook, webhookId: 65f5e4a3b9e77c001a789013 }
    message: Errors are way up
"#;

/// Every field changed, shown field by field, applied as updates (ids kept), then an empty plan.
fn updates_field_by_field(target: &Target) {
    let workspace = Workspace::new();
    let converge = target.converge().cwd(&workspace);
    let first = workspace.write("c.yaml", &config(CREATE));
    apply_then_empty(target, &converge, &first);
    let before = (target.dashboards(), target.alerts());
    let changed = workspace.write("c.yaml", &config(CHANGED));
    let plan = converge.run(["plan", "--format", "json", &changed]);
    plan.assert_exit(0);
    let mut fields: Vec<String> = plan.json()["changes"]
        .as_array()
        .into_iter()
        .flatten()
        .flat_map(|c| c["fields"].as_array().cloned().unwrap_or_default())
        .filter_map(|f| f["path"].as_str().map(str::to_string))
        .collect();
    fields.sort();
    assert_eq!(
        fields,
        [
            "channel.webhookId",
            "interval",
            "message",
            "tags",
            "threshold",
            "thresholdType",
            "tiles[Requests].config.select[0].where",
            "tiles[Requests].w",
            "tiles[Requests].y",
            "tiles[Total].config.select[0].aggFn",
            "tiles[Total].config.select[0].valueExpression",
            "tiles[Total].config.sourceId",
        ],
        "{}",
        target.name()
    );
    apply_then_empty(target, &converge, &changed);
    let after = (target.dashboards(), target.alerts());
    assert_eq!(after.0[0]["id"], before.0[0]["id"], "{}", target.name());
    assert_eq!(after.1[0]["id"], before.1[0]["id"], "{}", target.name());
    assert_eq!(
        after.1[0]["thresholdType"],
        "below_or_equal",
        "{}",
        target.name()
    );
    assert_eq!(after.1[0]["threshold"], json!(250.5), "{}", target.name());
}
on_both!(updates_field_by_field);

/// Renamed dashboard, tile and alert (`renamedFrom`): updated in place, ids and the alert kept.
fn renames_keep_ids(target: &Target) {
    let workspace = Workspace::new();
    let converge = target.converge().cwd(&workspace);
    let first = workspace.write("c.yaml", &config(CREATE));
    apply_then_empty(target, &converge, &first);
    let before = (target.dashboards(), target.alerts());
    let renamed = CREATE
        .replace(
            "    name: API\n",
            "    name: API v2\n    renamedFrom: [API]\n",
        )
        .replace(
            "      - name: Requests\n",
            "      - name: Request rate\n        renamedFrom: [Requests]\n",
        )
        .replace("    tile: Requests\n", "    tile: Request rate\n")
        .replace(
            "    name: API errors\n",
            "    name: API error burst\n    renamedFrom: [API errors]\n",
        );
    let renamed = workspace.write("c.yaml", &config(&renamed));
    apply_then_empty(target, &converge, &renamed);
    let after = (target.dashboards(), target.alerts());
    assert_eq!(after.0.len(), 1, "{}", target.name());
    assert_eq!(after.0[0]["id"], before.0[0]["id"], "{}", target.name());
    assert_eq!(after.0[0]["name"], "API v2", "{}", target.name());
    assert_eq!(after.1.len(), 1, "{}", target.name());
    assert_eq!(after.1[0]["id"], before.1[0]["id"], "{}", target.name());
    assert_eq!(after.1[0]["name"], "API error burst", "{}", target.name());
    assert_eq!(
        after.1[0]["tileId"],
        before.1[0]["tileId"],
        "{}",
        target.name()
    );
}
on_both!(renames_keep_ids);

/// The alert's tile removed together with the alert (prune on) in one apply, then the whole
/// dashboard deleted: nothing left, and no request refused on the way.
fn deletes_a_tile_with_its_alert_then_the_dashboard(target: &Target) {
    let workspace = Workspace::new();
    let converge = target.converge().cwd(&workspace);
    let first = workspace.write("c.yaml", &config(CREATE));
    apply_then_empty(target, &converge, &first);
    let start = CREATE.find("      - name: Requests").expect("the tile");
    let end = CREATE.find("      - name: Total").expect("the next tile");
    let without = format!(
        "{}{}",
        &CREATE[..start],
        &CREATE[end..CREATE.find("alerts:").expect("alerts")]
    );
    let without = workspace.write("c.yaml", &config(&without));
    apply_then_empty(target, &converge, &without);
    assert_eq!(
        target.alerts(),
        Vec::<serde_json::Value>::new(),
        "{}",
        target.name()
    );
    let tiles = target.dashboards()[0]["tiles"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    assert_eq!(tiles.len(), 1, "{}", target.name());
    let empty = workspace.write("c.yaml", &config("dashboards: {}\n"));
    apply_then_empty(target, &converge, &empty);
    assert_eq!(
        target.dashboards(),
        Vec::<serde_json::Value>::new(),
        "{}",
        target.name()
    );
    let refused: Vec<String> = target
        .writes()
        .into_iter()
        .filter(|w| !w.ends_with(" 200") && !w.ends_with(" 404"))
        .collect();
    assert_eq!(refused, Vec::<String>::new(), "{}", target.name());
}
on_both!(deletes_a_tile_with_its_alert_then_the_dashboard);

/// Export of the standalone API written as a config plans empty against the same server.
fn export_round_trips(target: &Target) {
    let workspace = Workspace::new();
    let converge = target.converge().cwd(&workspace);
    let first = workspace.write("c.yaml", &config(CHANGED));
    apply_then_empty(target, &converge, &first);
    let exported = workspace.file("exported.yaml");
    converge
        .run(["export", "--observability", "--out", &exported])
        .assert_exit(0);
    let text = workspace.read("exported.yaml");
    assert!(
        text.contains("thresholdType: below_or_equal"),
        "{}:\n{text}",
        target.name()
    );
    converge
        .run(["plan", "--detailed-exitcode", &exported])
        .assert_exit(0);
}
on_both!(export_round_trips);

/// Edits made in the UI (hdx-server's second key of the team): drift finds them, apply puts the
/// config back, drift is clean after.
fn drift_of_ui_edits(target: &Target) {
    let workspace = Workspace::new();
    let converge = target.converge().cwd(&workspace);
    let first = workspace.write("c.yaml", &config(CREATE));
    apply_then_empty(target, &converge, &first);
    let alert = target.alerts()[0].clone();
    let mut edited = json!({
        "dashboardId": alert["dashboardId"],
        "tileId": alert["tileId"],
        "source": "tile",
        "name": alert["name"],
        "message": alert["message"],
        "threshold": 7,
        "thresholdType": "equal",
        "interval": "1h",
        "scheduleStartAt": "2026-06-01T00:00:00Z",
        "note": "Raised by hand",
        "channel": alert["channel"],
    });
    let id = alert["id"].as_str().expect("an id");
    let answer = target.ui("PUT", &format!("/alerts/{id}"), Some(edited.clone()));
    assert_eq!(answer.status, 200, "{}: {}", target.name(), answer.text);
    let drift = converge.run(["drift", &first]);
    assert_eq!(drift.code, 2, "{}: {drift:?}", target.name());
    for field in ["threshold", "thresholdType", "interval"] {
        assert!(
            drift.stdout.contains(field),
            "{}: {field}:\n{}",
            target.name(),
            drift.stdout
        );
    }
    // The config writes no start, note or offset: an update keeps the ones set in the UI.
    apply_then_empty(target, &converge, &first);
    converge.run(["drift", &first]).assert_exit(0);
    let after = target.alerts()[0].clone();
    assert_eq!(after["note"], "Raised by hand", "{}", target.name());
    assert_eq!(
        after["scheduleStartAt"],
        "2026-06-01T00:00:00.000Z",
        "{}",
        target.name()
    );
    assert_eq!(after["threshold"], 100, "{}", target.name());
    // A config offset beside the start set in the UI: the live start is not resent (the server
    // would refuse the pair), the plan says so, and the apply goes through.
    edited["threshold"] = json!(100);
    let offset = CREATE.replace(
        "    interval: 5m\n",
        "    interval: 5m\n    scheduleOffsetMinutes: 2\n",
    );
    let offset = workspace.write("c.yaml", &config(&offset));
    let plan = converge.run(["plan", &offset]);
    plan.assert_exit(0);
    assert!(
        plan.stdout
            .contains("the live scheduleStartAt 2026-06-01T00:00:00.000Z is not resent (the server refuses it beside scheduleOffsetMinutes 2)"),
        "{}:\n{}",
        target.name(),
        plan.stdout
    );
    apply_then_empty(target, &converge, &offset);
}
on_both!(drift_of_ui_edits);

/// The newer alert members in every form the schema allows, each applied and then an empty
/// plan: every threshold type, a start with and without milliseconds (read back with them),
/// an offset of 0 beside it, windows in a row, a note, several channels.
fn newer_members_in_every_form(target: &Target) {
    let workspace = Workspace::new();
    let converge = target.converge().cwd(&workspace);
    let forms = [
        "    thresholdType: above_exclusive\n    scheduleStartAt: \"2026-02-08T10:00:00Z\"\n",
        "    thresholdType: equal\n    scheduleStartAt: \"2026-02-08T10:00:00.000Z\"\n    scheduleOffsetMinutes: 0\n",
        "    thresholdType: not_equal\n    scheduleStartAt: \"2026-02-08T10:00:00.250Z\"\n",
        "    thresholdType: below\n    scheduleOffsetMinutes: 3\n    numConsecutiveWindows: 2\n",
        "    thresholdType: between\n    thresholdMax: 500\n    note: See the runbook\n",
        "    thresholdType: not_between\n    thresholdMax: 100\n    channels:\n      - { type: webhook, webhookId: 65f5e4a3b9e77c001a789012 }\n      - { type: webhook, webhookId: 65f5e4a3b9e77c001a789014 }\n",
        "    thresholdType: above\n",
    ];
    for form in forms {
        let text = CREATE.replace("    thresholdType: above\n", form);
        let path = workspace.write("c.yaml", &config(&text));
        apply_then_empty(target, &converge, &path);
    }
    let refused: Vec<String> = target
        .writes()
        .into_iter()
        .filter(|w| !w.ends_with(" 200"))
        .collect();
    assert_eq!(refused, Vec::<String>::new(), "{}", target.name());
}
on_both!(newer_members_in_every_form);

/// A tile of every display type converge models (`config:`), and metric series without
/// `field` (drawn from the metric's `Value` column), applied then an empty plan.
fn every_display_type(target: &Target) {
    let tile = |name: &str, y: usize, config: &str| {
        let mut text = format!(
            "      - name: {name}\n        x: 0\n        y: {y}\n        w: 12\n        h: 4\n        config:\n"
        );
        for line in config.lines() {
            text.push_str("          ");
            text.push_str(line);
            text.push('\n');
        }
        text
    };
    let select = "select:\n  - aggFn: count\n";
    let tiles = [
        tile(
            "Line",
            0,
            &format!("displayType: line\nsource: Logs\n{select}groupBy: ServiceName\n"),
        ),
        tile(
            "Bars",
            4,
            &format!("displayType: stacked_bar\nsource: Logs\n{select}"),
        ),
        tile(
            "Table",
            8,
            "displayType: table\nsource: Traces\nselect:\n  - aggFn: quantile\n    level: 0.99\n    valueExpression: Duration\n",
        ),
        tile(
            "Number",
            12,
            &format!("displayType: number\nsource: Logs\n{select}"),
        ),
        tile(
            "Pie",
            16,
            &format!("displayType: pie\nsource: Logs\n{select}groupBy: ServiceName\n"),
        ),
        tile(
            "Bar",
            20,
            &format!("displayType: bar\nsource: Logs\n{select}groupBy: ServiceName\n"),
        ),
        tile(
            "Heatmap",
            24,
            "displayType: heatmap\nsource: Traces\nselect:\n  - valueExpression: Duration\n    heatmapScaleType: log\n",
        ),
        tile(
            "Search",
            28,
            "displayType: search\nsource: Logs\nselect: Timestamp, Body\nwhereLanguage: lucene\n",
        ),
        tile(
            "Notes",
            32,
            "displayType: markdown\nmarkdown: \"# On call\"\n",
        ),
        tile(
            "Patterns",
            36,
            "displayType: event_patterns\nsource: Logs\nselect: Body\nwhereLanguage: lucene\n",
        ),
    ];
    let metric = "      - name: CPU\n        x: 12\n        y: 0\n        w: 12\n        h: 4\n        series:\n          - type: time\n            dataSource: metrics\n            source: Metrics\n            aggFn: avg\n            metricName: system.cpu.utilization\n            metricDataType: gauge\n            whereLanguage: sql\n            where: \"host LIKE 'web-%'\"\n            groupBy: [host]\n";
    let body = format!(
        "dashboards:\n  all:\n    name: Every display\n    tiles:\n{}{metric}",
        tiles.concat()
    );
    let workspace = Workspace::new();
    let converge = target.converge().cwd(&workspace);
    let path = workspace.write("c.yaml", &config(&body));
    apply_then_empty(target, &converge, &path);
    let dashboard = &target.dashboards()[0];
    let cpu = dashboard["tiles"]
        .as_array()
        .into_iter()
        .flatten()
        .find(|t| t["name"] == "CPU")
        .cloned()
        .unwrap_or_default();
    assert_eq!(
        cpu["config"]["select"][0]["valueExpression"],
        "Value",
        "{}",
        target.name()
    );
    let mut displays: Vec<String> = dashboard["tiles"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|t| t["config"]["displayType"].as_str().map(str::to_string))
        .collect();
    displays.sort();
    assert_eq!(displays.len(), 11, "{}: {displays:?}", target.name());
}
on_both!(every_display_type);

/// `plan --check-queries` on a search series tile and a search `config` tile: the series goes
/// to charts/series with the `aggFn` the current document requires (its rows counted), the
/// config tile to the dashboard validation with its `whereLanguage`; both pass. Sandbox only:
/// hdx-server has no ClickHouse, so its charts/series answers 500.
#[test]
fn check_queries_sends_a_search_tile_as_the_current_document_needs() {
    let sandbox = crate::common::sandbox(converge::sandbox::SandboxOptions {
        rate_limit: false,
        log_bodies: true,
        ..converge::sandbox::SandboxOptions::default()
    });
    let body = "dashboards:\n  logs:\n    name: Logs\n    tiles:\n      - name: Lines\n        x: 0\n        y: 0\n        w: 12\n        h: 4\n        series:\n          - type: search\n            source: Logs\n            fields: [Timestamp, Body]\n            where: \"level:error\"\n      - name: Found\n        x: 12\n        y: 0\n        w: 12\n        h: 4\n        config:\n          displayType: search\n          source: Logs\n          select: Timestamp, Body\n";
    let workspace = Workspace::new();
    let path = workspace.write("c.yaml", &config(body));
    let out = crate::common::Converge::new(&sandbox)
        .fast()
        .cwd(&workspace)
        .run(["plan", "--check-queries", &path]);
    out.assert_exit(0);
    let log = sandbox.request_log();
    let sent = |route: &str| -> serde_json::Value {
        let entry = log
            .iter()
            .find(|e| e.route == route && e.method == "POST")
            .unwrap_or_else(|| panic!("no POST {route}: {out:?}"));
        serde_json::from_str(entry.request_body.as_deref().unwrap_or("null")).expect("JSON")
    };
    let series = sent("/api/v2/charts/series");
    assert_eq!(series["series"][0]["aggFn"], "count", "{series}");
    assert_eq!(series["series"][0]["where"], "level:error", "{series}");
    let validated = sent("/api/v2/dashboards/validate");
    let found = validated["tiles"]
        .as_array()
        .into_iter()
        .flatten()
        .find(|t| t["name"] == "Found")
        .cloned()
        .unwrap_or_default();
    assert_eq!(found["config"]["whereLanguage"], "lucene", "{validated}");
}

/// A saved-search alert (`source: saved_search`) with a threshold type of the current document
/// (`not_equal`), made in the UI: plan, apply, drift and export read it and never break. On
/// hdx-server only: the sandbox has no saved searches.
#[test]
fn a_live_saved_search_alert_is_read_planned_and_exported() {
    let Some(target) = Target::hdx("a_live_saved_search_alert_is_read_planned_and_exported") else {
        return;
    };
    let search = target.ui(
        "POST",
        "/saved-searches",
        Some(json!({"name": "Errors", "select": "", "where": "level:error", "whereLanguage": "lucene", "sourceId": "65f5e4a3b9e77c001a567890", "tags": []})),
    );
    let search_id = search.data()["id"].clone();
    let alert = target.ui(
        "POST",
        "/alerts",
        Some(json!({"source": "saved_search", "savedSearchId": search_id, "threshold": 1, "thresholdType": "not_equal", "interval": "5m", "name": "Saved", "channel": {"type": "webhook", "webhookId": "65f5e4a3b9e77c001a789012"}})),
    );
    assert_eq!(alert.status, 200, "{}", alert.text);
    let workspace = Workspace::new();
    let converge = target.converge().cwd(&workspace);
    let path = workspace.write("c.yaml", &config(CREATE));
    apply_then_empty(&target, &converge, &path);
    assert_eq!(target.alerts().len(), 2, "the saved-search alert stays");
    let drift = converge.run(["drift", &path]);
    assert_eq!(drift.code, 0, "{drift:?}");
    let exported = workspace.file("exported.yaml");
    let export = converge.run(["export", "--observability", "--out", &exported]);
    export.assert_exit(0);
    assert!(
        crate::common::words(&export.stderr).contains("Saved"),
        "the export says what it left out: {export:?}"
    );
    converge
        .run(["plan", "--detailed-exitcode", &exported])
        .assert_exit(0);
}

/// The config clears members set in the UI by writing `null`: the plan shows each going, the
/// update sends `null` (leaves the message out, which clears it), the server has none of them
/// after, and the next plan is empty.
fn clears_members_with_null(target: &Target) {
    let workspace = Workspace::new();
    let converge = target.converge().cwd(&workspace);
    let first = workspace.write("c.yaml", &config(CREATE));
    apply_then_empty(target, &converge, &first);
    let alert = target.alerts()[0].clone();
    let edited = json!({
        "dashboardId": alert["dashboardId"],
        "tileId": alert["tileId"],
        "source": "tile",
        "name": alert["name"],
        "message": "Paged by hand",
        "threshold": 100,
        "thresholdType": "above",
        "interval": "5m",
        "scheduleStartAt": "2026-06-01T00:00:00Z",
        "numConsecutiveWindows": 4,
        "note": "Set by hand",
        "channel": alert["channel"],
    });
    let id = alert["id"].as_str().expect("an id");
    let answer = target.ui("PUT", &format!("/alerts/{id}"), Some(edited));
    assert_eq!(answer.status, 200, "{}: {}", target.name(), answer.text);
    let cleared = CREATE.replace(
        "    interval: 5m\n",
        "    interval: 5m\n    scheduleStartAt: null\n    note: null\n    numConsecutiveWindows: null\n    scheduleOffsetMinutes: 2\n",
    );
    let cleared = config(&cleared).replace("message: Errors are up", "message: null");
    let cleared = workspace.write("c.yaml", &cleared);
    converge.run(["validate", &cleared]).assert_exit(0);
    let plan = converge.run(["plan", "--format", "json", &cleared]);
    plan.assert_exit(0);
    let mut fields: Vec<String> = plan.json()["changes"]
        .as_array()
        .into_iter()
        .flatten()
        .filter(|c| c["address"] == "alert.platform.errors")
        .flat_map(|c| c["fields"].as_array().cloned().unwrap_or_default())
        .filter_map(|f| f["path"].as_str().map(str::to_string))
        .collect();
    fields.sort();
    assert_eq!(
        fields,
        [
            "message",
            "note",
            "numConsecutiveWindows",
            "scheduleOffsetMinutes",
            "scheduleStartAt"
        ],
        "{}: {}",
        target.name(),
        plan.stdout
    );
    assert!(
        !plan.stdout.contains("is not resent"),
        "{}: a cleared start is no conflict: {}",
        target.name(),
        plan.stdout
    );
    // Through a saved plan, as the CI kit's merge job applies it: the clears survive the file.
    let saved = workspace.file("p.json");
    converge
        .run(["plan", "--out", &saved, &cleared])
        .assert_exit(0);
    converge
        .run(["apply", "--plan", &saved, &cleared, "--yes"])
        .assert_exit(0);
    converge
        .run(["plan", "--detailed-exitcode", &cleared])
        .assert_exit(0);
    let after = target.alerts()[0].clone();
    for member in [
        "scheduleStartAt",
        "note",
        "numConsecutiveWindows",
        "message",
    ] {
        assert!(
            after[member].is_null(),
            "{}: {member}: {after}",
            target.name()
        );
    }
    assert_eq!(after["scheduleOffsetMinutes"], 2, "{}", target.name());
}
on_both!(clears_members_with_null);

/// A dashboard made in the UI whose metric tile has no value column (a series without `field`,
/// which the server stores with an empty `valueExpression`): its export validates and plans
/// empty, and a change of the tile applies (the server takes the value column the export wrote).
fn exports_a_ui_metric_tile_without_a_field(target: &Target) {
    let sources = target.obs("GET", "/sources", None);
    assert_eq!(sources.status, 200, "{}", sources.text);
    let sources: serde_json::Value = serde_json::from_str(&sources.text).expect("JSON");
    let metrics = sources["data"]
        .as_array()
        .into_iter()
        .flatten()
        .find(|s| s["name"] == "Metrics")
        .and_then(|s| s["id"].as_str())
        .unwrap_or_else(|| panic!("{}: no Metrics source: {sources}", target.name()))
        .to_string();
    let made = target.ui(
        "POST",
        "/dashboards",
        Some(json!({"name": "Made by hand", "tags": [], "tiles": [{
            "name": "CPU", "x": 0, "y": 0, "w": 12, "h": 4,
            "series": [{"type": "time", "sourceId": metrics, "aggFn": "avg",
                "metricName": "system.cpu.utilization", "metricDataType": "gauge",
                "where": "", "groupBy": []}]}]})),
    );
    assert_eq!(made.status, 200, "{}: {}", target.name(), made.text);
    let workspace = Workspace::new();
    let converge = target.converge().cwd(&workspace);
    let exported = workspace.file("exported.yaml");
    converge
        .run(["export", "--observability", "--out", &exported])
        .assert_exit(0);
    let text = workspace.read("exported.yaml");
    let validate = converge.run(["validate", &exported]);
    assert_eq!(validate.code, 0, "{}:\n{text}\n{validate:?}", target.name());
    converge
        .run(["plan", "--detailed-exitcode", &exported])
        .assert_exit(0);
    // A change of the tile resends it whole: the server takes what the export wrote.
    assert!(text.contains("            w: 12\n"), "{text}");
    let narrower = workspace.write(
        "exported.yaml",
        &text.replace("            w: 12\n", "            w: 6\n"),
    );
    apply_then_empty(target, &converge, &narrower);
}
on_both!(exports_a_ui_metric_tile_without_a_field);
