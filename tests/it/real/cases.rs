//! The observability half's cases, each run against the sandbox and hdx-server ([`on_both!`]).

use serde_json::json;

use crate::common::Workspace;

use super::{Target, apply_then_empty, config, on_both};

/// A dashboard of two tiles (a line and a number tile) and an alert on the first.
const CREATE: &str = r#"dashboards:
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
