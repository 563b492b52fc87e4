//! One plan for each kind and action, read from `--format json` of the real binary.

use serde_json::{Value, json};

use super::{change, plan_json};
use crate::common::{self, ANALYTICS, Client, Converge, quickstart, quickstart_path};

/// The quickstart against the demo seed: every update and create it promises, the backup check,
/// and exactly one request per list.
#[test]
fn quickstart_updates_scaling_and_creates_the_endpoint_dashboard_and_alert() {
    let sandbox = common::fast_sandbox();
    let plan = plan_json(&sandbox, &quickstart());
    assert_eq!(plan["format"], "converge-plan/1");
    assert_eq!(
        plan["summary"],
        json!({"create": 3, "update": 4, "delete": 0, "unchanged": 0})
    );

    let service = change(&plan, "service.analytics.scaling");
    assert_eq!(service["action"], "update");
    assert_eq!(
        service["fields"],
        json!([
            {"path": "idleScaling", "before": false, "after": true},
            {"path": "idleTimeoutMinutes", "before": 10, "after": 15},
            {"path": "numReplicas", "before": 2, "after": 3},
        ])
    );
    assert!(service["fingerprint"].is_string());

    let endpoint = change(
        &plan,
        "service.analytics.private_endpoint[vpce-0a1b2c3d4e5f67890]",
    );
    assert_eq!(endpoint["action"], "create");

    let orders = change(&plan, "pipe.analytics.orders.scaling");
    assert_eq!(orders["action"], "update");
    assert_eq!(orders["before"]["replicas"], 2);
    assert_eq!(orders["after"]["replicas"], 4);
    assert_eq!(
        change(&plan, "pipe.analytics.events.scaling")["fields"],
        json!([{"path": "concurrency", "before": 4, "after": 8}])
    );
    assert_eq!(
        change(&plan, "pipe.analytics.clicks.scaling")["after"],
        json!({"replicaCpuMillicores": 1000, "replicaMemoryGb": 4})
    );

    let dashboard = change(&plan, "dashboard.prod.api-health");
    assert_eq!(dashboard["action"], "create");
    assert_eq!(
        dashboard["after"]["tags"],
        json!(["converge:prod", "team-api"])
    );
    let alert = change(&plan, "alert.prod.api-errors");
    assert_eq!(alert["action"], "create");
    assert_eq!(alert["after"]["tile"], "Requests");

    // The alert waits for its dashboard.
    let steps = plan["steps"].as_array().expect("steps");
    let position = |address: &str| {
        steps
            .iter()
            .position(|s| s["address"] == address)
            .unwrap_or_else(|| panic!("no step {address}: {steps:#?}"))
    };
    assert!(position("dashboard.prod.api-health") < position("alert.prod.api-errors"));

    let checks = plan["checks"].as_array().expect("checks");
    assert_eq!(checks.len(), 1, "{checks:#?}");
    assert_eq!(checks[0]["address"], "check.analytics.backups");

    // Exactly one request per list: services, the service's pipes, its backups, and the stack's
    // dashboards, alerts and sources.
    let counts = common::counts(&sandbox);
    assert_eq!(counts.values().sum::<usize>(), 6, "{counts:#?}");
    for route in [
        "GET /v1/organizations/{organizationId}/services",
        "GET /v1/organizations/{organizationId}/services/{serviceId}/pipes",
        "GET /v1/organizations/{organizationId}/services/{serviceId}/backups",
        "GET /v1/organizations/{organizationId}/services/{serviceId}/stack/dashboards",
        "GET /v1/organizations/{organizationId}/services/{serviceId}/stack/alerts",
        "GET /v1/organizations/{organizationId}/services/{serviceId}/stack/sources",
    ] {
        assert_eq!(counts.get(route), Some(&1), "{route}: {counts:#?}");
    }
}

/// The text plan shows the backup check line with the newest backup's age.
#[test]
fn text_plan_lists_backup_checks() {
    let sandbox = common::fast_sandbox();
    let out = Converge::new(&sandbox)
        .fast()
        .config(&quickstart())
        .run(["plan"]);
    out.assert_exit(0);
    let line = out
        .stdout
        .lines()
        .find(|l| l.contains("check.analytics.backups"))
        .unwrap_or_else(|| panic!("{}", out.stdout));
    assert!(line.trim_start().starts_with("ok"), "{line}");
    assert!(
        out.stdout.contains("is 6.0h old (at most 26h)"),
        "{}",
        out.stdout
    );

    // A stricter age limit fails the check, and the plan says so.
    let strict = quickstart().replace("maxAgeHours: 26", "maxAgeHours: 2");
    let out = Converge::new(&sandbox).fast().config(&strict).run(["plan"]);
    let line = out
        .stdout
        .lines()
        .find(|l| l.contains("check.analytics.backups"))
        .unwrap_or_else(|| panic!("{}", out.stdout));
    assert!(
        !line.trim_start().starts_with("ok"),
        "{line}\n{}",
        out.stdout
    );
}

/// A config equal to live: every address is a no-op, the plan says nothing changes, and
/// `--detailed-exitcode` exits 0.
#[test]
fn matching_config_is_a_no_op() {
    let sandbox = common::fast_sandbox();
    let config = r#"version: 1
organization: ${env:CONVERGE_ORG_ID}
cloud:
  url: ${env:CONVERGE_CLOUD_URL}
  keyId: ${env:CONVERGE_KEY_ID}
  keySecret: ${env:CONVERGE_KEY_SECRET}
services:
  analytics:
    id: 1c7d8c62-0b0f-4f0e-9b2e-6a3c8a3b7e11
    scaling: { numReplicas: 2, idleScaling: false, idleTimeoutMinutes: 10 }
    privateEndpoints: []
    pipes:
      orders:
        id: 0f9d3b1e-6a52-4c0b-8f7e-2d5a9c1b4e77
        scaling: { replicas: 2, replicaCpuMillicores: 250, replicaMemoryGb: 1 }
      events:
        id: 5b2e8c4a-1d3f-4a6b-9c7e-8f0a1b2c3d4e
        scaling: { concurrency: 4 }
      gone:
        id: 00000000-0000-4000-8000-000000000000
        absent: true
"#;
    let plan = plan_json(&sandbox, config);
    assert_eq!(
        plan["summary"],
        json!({"create": 0, "update": 0, "delete": 0, "unchanged": 4}),
        "{plan:#}"
    );
    assert_eq!(change(&plan, "pipe.analytics.gone")["action"], "no-op");
    assert_eq!(plan["steps"], json!([]));

    let out = Converge::new(&sandbox)
        .fast()
        .config(config)
        .run(["plan", "--detailed-exitcode"]);
    out.assert_exit(0);
    assert!(
        out.stdout
            .contains("0 to create, 0 to update, 0 to delete, 4 unchanged")
    );
}

/// A pipe marked `absent: true` that exists is deleted; an endpoint attached on the server but
/// not in the config is detached.
#[test]
fn absent_pipe_is_deleted_and_unlisted_endpoint_detached() {
    let sandbox = common::fast_sandbox();
    let client = Client::new(&sandbox);
    let answer = client.cloud(
        "POST",
        &format!("/services/{ANALYTICS}/privateEndpoint"),
        Some(json!({"id": "vpce-0fffffffffffffff1", "description": "old VPC"})),
    );
    assert_eq!(answer.status, 200, "{}", answer.text);
    let config = quickstart().replace(
        "      customers:                    # postgres: not scaled per pipe\n        id: 3c4d5e6f-7a8b-4c9d-8e0f-1a2b3c4d5e6f\n",
        "      customers:\n        id: 3c4d5e6f-7a8b-4c9d-8e0f-1a2b3c4d5e6f\n        absent: true\n",
    );
    assert!(config.contains("absent: true"));
    let plan = plan_json(&sandbox, &config);

    let pipe = change(&plan, "pipe.analytics.customers");
    assert_eq!(pipe["action"], "delete");
    assert_eq!(pipe["before"]["sourceKind"], "postgres");
    assert_eq!(pipe["after"], Value::Null);
    assert!(pipe["fingerprint"].is_string());

    let endpoint = change(
        &plan,
        "service.analytics.private_endpoint[vpce-0fffffffffffffff1]",
    );
    assert_eq!(endpoint["action"], "delete");
    assert_eq!(endpoint["before"], json!({"id": "vpce-0fffffffffffffff1"}));
    assert_eq!(plan["summary"]["delete"], 2);

    // Destroys come first in the text plan.
    let out = Converge::new(&sandbox).fast().config(&config).run(["plan"]);
    let first = out
        .stdout
        .lines()
        .find(|l| l.trim_start().starts_with(['+', '-', '~']))
        .unwrap_or_default();
    assert!(first.trim_start().starts_with('-'), "{}", out.stdout);
}

/// Live dashboards and alerts that the config changes, and owned ones it no longer lists.
struct Stack {
    sandbox: converge::sandbox::SandboxHandle,
}

fn stack_with_owned_objects() -> Stack {
    let sandbox = common::fast_sandbox();
    let client = Client::new(&sandbox);
    let base = format!("/services/{ANALYTICS}/stack");
    let sources = client
        .cloud("GET", &format!("{base}/sources"), None)
        .result();
    let logs = sources
        .as_array()
        .and_then(|s| s.iter().find(|s| s["name"] == "Logs"))
        .and_then(|s| s["id"].as_str())
        .expect("a Logs source")
        .to_string();
    let series = |where_: &str| {
        json!([{"type": "time", "sourceId": logs, "aggFn": "count", "where": where_,
            "whereLanguage": "lucene", "groupBy": []}])
    };
    let create_dashboard = |name: &str, tags: Value, tiles: Value| {
        let answer = client.cloud(
            "POST",
            &format!("{base}/dashboards"),
            Some(json!({"name": name, "tags": tags, "tiles": tiles})),
        );
        answer.result()
    };
    // "API health" exists with one tile whose query differs from the config's.
    let health = create_dashboard(
        "API health",
        json!(["converge:prod", "team-api"]),
        json!([
            {"name": "Requests", "x": 0, "y": 0, "w": 6, "h": 4, "series": series("service:web")},
            {"name": "Latency p95", "x": 6, "y": 0, "w": 6, "h": 4, "series": [
                {"type": "time", "sourceId": logs, "aggFn": "quantile", "level": 0.95,
                 "field": "duration", "where": "service:api", "whereLanguage": "lucene",
                 "groupBy": []}]}
        ]),
    );
    // An owned dashboard the config no longer lists, with an alert on it.
    let old = create_dashboard(
        "Old board",
        json!(["converge:prod"]),
        json!([{"name": "Errors", "x": 0, "y": 0, "w": 12, "h": 4, "series": series("level:error")}]),
    );
    let tile_id = |dashboard: &Value, name: &str| {
        dashboard["tiles"]
            .as_array()
            .and_then(|t| t.iter().find(|t| t["name"] == name))
            .and_then(|t| t["id"].as_str())
            .expect("a tile id")
            .to_string()
    };
    for (name, dashboard, tile, threshold) in [
        ("API errors", &health, "Requests", 50),
        ("Old alert", &old, "Errors", 5),
    ] {
        let answer = client.cloud(
            "POST",
            &format!("{base}/alerts"),
            Some(json!({
                "name": name, "message": "Errors are up", "threshold": threshold,
                "thresholdType": "above", "interval": "5m", "source": "tile",
                "dashboardId": dashboard["id"], "tileId": tile_id(dashboard, tile),
                "channel": {"type": "webhook", "webhookId": "65f5e4a3b9e77c001a789012"}
            })),
        );
        assert_eq!(answer.status, 200, "{}", answer.text);
    }
    sandbox.reset_log();
    Stack { sandbox }
}

/// With `prune: true`: the dashboard and alert are updated field by field, the owned ones the
/// config dropped are deleted, alert deletes before their dashboard's delete.
#[test]
fn dashboards_and_alerts_update_and_prune() {
    let stack = stack_with_owned_objects();
    let config = quickstart().replace("prune: false", "prune: true");
    let plan = plan_json(&stack.sandbox, &config);

    let dashboard = change(&plan, "dashboard.prod.api-health");
    assert_eq!(dashboard["action"], "update", "{dashboard:#}");
    assert_eq!(
        dashboard["fields"],
        json!([{"path": "tiles[Requests].series[0].where", "before": "service:web",
            "after": "service:api"}])
    );
    let alert = change(&plan, "alert.prod.api-errors");
    assert_eq!(alert["action"], "update");
    assert_eq!(
        alert["fields"],
        json!([{"path": "threshold", "before": 50, "after": 100}])
    );

    let old_alert = change(&plan, "alert.prod[\"Old alert\"]");
    assert_eq!(old_alert["action"], "delete");
    let old_board = change(&plan, "dashboard.prod[\"Old board\"]");
    assert_eq!(old_board["action"], "delete");
    assert_eq!(old_board["reason"], "not in the config; prune is on");
    // The unowned demo dashboard ("On-call overview") is never touched; with prune on, the
    // plan says it is left as is.
    let unowned = "dashboard.prod[\"On-call overview\"]";
    assert!(
        !plan["changes"].to_string().contains("On-call overview"),
        "{plan:#}"
    );
    assert!(
        !plan["steps"].to_string().contains("On-call overview"),
        "{plan:#}"
    );
    assert!(
        plan["unmanaged"]
            .as_array()
            .is_some_and(|u| u.iter().any(|u| u["address"] == unowned
                && u["reason"]
                    .as_str()
                    .is_some_and(|r| r.starts_with("not owned by converge")))),
        "{plan:#}"
    );
    let steps = plan["steps"].as_array().expect("steps");
    let position = |address: &str| steps.iter().position(|s| s["address"] == address);
    assert!(
        position("alert.prod[\"Old alert\"]") < position("dashboard.prod[\"Old board\"]"),
        "{steps:#?}"
    );
    assert_eq!(
        plan["summary"],
        json!({"create": 1, "update": 6, "delete": 2, "unchanged": 0}),
        "{plan:#}"
    );
}

/// With `prune: false` the same owned objects are only reported, in every format.
#[test]
fn owned_objects_outside_the_config_are_reported_without_prune() {
    let stack = stack_with_owned_objects();
    let plan = plan_json(&stack.sandbox, &quickstart());
    assert_eq!(plan["summary"]["delete"], 0);
    let unmanaged: Vec<&str> = plan["unmanaged"]
        .as_array()
        .expect("unmanaged")
        .iter()
        .filter_map(|u| u["address"].as_str())
        .collect();
    assert_eq!(
        unmanaged,
        ["alert.prod[\"Old alert\"]", "dashboard.prod[\"Old board\"]"]
    );
    let out = Converge::new(&stack.sandbox)
        .fast()
        .config(&quickstart())
        .run(["plan"]);
    assert!(
        out.stdout.contains("dashboard.prod[\"Old board\"]"),
        "{}",
        out.stdout
    );
    assert!(out.stdout.contains("prune is off"), "{}", out.stdout);
}

/// Rules that need live facts point at the config line through the binary.
#[test]
fn live_rules_point_at_the_config_line() {
    let sandbox = common::fast_sandbox();
    // `replicas` on an object-storage pipe (line 30).
    let config = quickstart().replace("scaling: { concurrency: 8 }", "scaling: { replicas: 8 }");
    let out = Converge::new(&sandbox).fast().config(&config).run(["plan"]);
    out.assert_exit(1);
    assert!(out.stdout.is_empty(), "no plan on stdout: {}", out.stdout);
    assert!(out.stderr.contains("config.yaml:30:"), "{}", out.stderr);
    assert!(out.stderr.contains("objectStorage"), "{}", out.stderr);

    // numReplicas 1 on the first (primary) service of its warehouse (line 18).
    let config = quickstart().replace("numReplicas: 3", "numReplicas: 1");
    let out = Converge::new(&sandbox).fast().config(&config).run(["plan"]);
    out.assert_exit(1);
    assert!(out.stderr.contains("config.yaml:18:"), "{}", out.stderr);
    assert!(out.stderr.contains("numReplicas"), "{}", out.stderr);
}

/// The README's first command: `plan --sandbox examples/quickstart.yaml` with no environment,
/// the in-process sandbox keeping its state in `.converge/` of the working directory.
#[test]
fn quickstart_plans_against_the_built_in_sandbox() {
    let dir = common::Workspace::new();
    let out = Converge::offline().cwd(&dir).run([
        "plan",
        "--sandbox",
        &quickstart_path(),
        "--detailed-exitcode",
    ]);
    out.assert_exit(2);
    let stdout = &out.stdout;
    assert!(
        stdout.starts_with("Plan: 3 to create, 4 to update, 0 to delete, 0 unchanged"),
        "{stdout}"
    );
    // The plan is the only thing on stdout.
    assert!(!stdout.contains("sandbox:"), "{stdout}");
    let state = std::fs::read_to_string(dir.path().join(".converge/sandbox.json"))
        .expect("the sandbox state file");
    assert!(
        !state.contains("AccountKey"),
        "pipe secrets are never saved"
    );
}

/// Backup ids under `keep` cost one GET each; one that does not exist fails the check.
#[test]
fn kept_backups_are_read_one_by_one() {
    let sandbox = common::fast_sandbox();
    let newest = "87a6d651-666c-488e-83f7-360e09258b84";
    let missing = "00000000-0000-4000-8000-000000000001";
    let config = quickstart().replace(
        "      maxAgeHours: 26\n",
        &format!("      maxAgeHours: 26\n      keep: [{newest}, {missing}]\n"),
    );
    let out = Converge::new(&sandbox).fast().config(&config).run(["plan"]);
    out.assert_exit(0);
    assert_eq!(
        common::count(
            &sandbox,
            "GET",
            "/v1/organizations/{organizationId}/services/{serviceId}/backups/{backupId}"
        ),
        2
    );
    assert_eq!(sandbox.request_log().len(), 8);
    assert!(
        out.stdout
            .contains(&format!("backup {newest} is kept and done")),
        "{}",
        out.stdout
    );
    assert!(
        out.stdout
            .contains(&format!("backup {missing} does not exist")),
        "{}",
        out.stdout
    );
    assert!(
        out.stdout.contains("FAILED  check.analytics.backups"),
        "{}",
        out.stdout
    );
}

/// Two live dashboards with the config's name: an error at the dashboard's config line that
/// names both ids, and no plan.
#[test]
fn duplicate_live_dashboards_are_an_error() {
    let sandbox = common::fast_sandbox();
    let client = Client::new(&sandbox);
    let mut ids = Vec::new();
    for _ in 0..2 {
        let created = client
            .cloud(
                "POST",
                &format!("/services/{ANALYTICS}/stack/dashboards"),
                Some(json!({"name": "API health", "tags": [], "tiles": []})),
            )
            .result();
        ids.push(created["id"].as_str().expect("an id").to_string());
    }
    let out = Converge::new(&sandbox)
        .fast()
        .config(&quickstart())
        .run(["plan"]);
    out.assert_exit(1);
    assert!(out.stdout.is_empty(), "{}", out.stdout);
    assert!(
        out.stderr.contains("has 2 dashboards named \"API health\""),
        "{}",
        out.stderr
    );
    for id in &ids {
        assert!(out.stderr.contains(id.as_str()), "{id}: {}", out.stderr);
    }
    assert!(out.stderr.contains("config.yaml:45:"), "{}", out.stderr);
    assert!(out.stderr.contains("help:"), "{}", out.stderr);
}

/// Colors only decorate: without the escape codes, the colored plan is the plain one.
#[test]
fn colored_text_reads_the_same_without_color() {
    let sandbox = common::fast_sandbox();
    let converge = Converge::new(&sandbox).fast().config(&quickstart());
    let plain = converge.run(["plan"]);
    let colored = converge.run(["--color", "always", "plan"]);
    colored.assert_exit(0);
    assert!(
        colored.stdout.contains("\u{1b}["),
        "colored: {}",
        colored.stdout
    );
    assert!(!plain.stdout.contains('\u{1b}'), "plain: {}", plain.stdout);
    assert_eq!(common::strip_ansi(&colored.stdout), plain.stdout);
}

/// Quantity strings (`"500m"`, `"2Gi"`) and one request at a time give the same plan.
#[test]
fn quirks_and_parallelism_do_not_change_the_plan() {
    let expected = plan_json(&common::fast_sandbox(), &quickstart());
    let quirky = common::sandbox(converge::sandbox::SandboxOptions {
        rate_limit: false,
        quirks: vec![converge::sandbox::Quirk::QuantityStrings],
        ..converge::sandbox::SandboxOptions::default()
    });
    let answer = Client::new(&quirky).cloud("GET", &format!("/services/{ANALYTICS}/pipes"), None);
    assert!(
        answer.text.contains("\"500m\"") || answer.text.contains("\"250m\""),
        "{}",
        answer.text
    );
    assert_eq!(plan_json(&quirky, &quickstart()), expected);

    let sandbox = common::fast_sandbox();
    let out = Converge::new(&sandbox).fast().config(&quickstart()).run([
        "plan",
        "--parallelism",
        "1",
        "--format",
        "json",
    ]);
    out.assert_exit(0);
    assert_eq!(out.json(), expected);
}
