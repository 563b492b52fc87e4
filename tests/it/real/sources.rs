//! Sources as objects of a stack (issue 36, part 3), on the sandbox and hdx-server: created
//! with the dashboard whose tile names it in one apply (the source's step first, the tile
//! sending its new id), changed member by member, renamed (`renamedFrom`), deleted with
//! `absent: true`; the live sources the config does not declare never touched; an export that
//! plans empty; one config promoted between two servers whose source ids differ.

use serde_json::Value;

use crate::common::{Converge, Workspace};

use super::{Target, apply_then_empty, config, on_both};

/// The members a case writes on its source `audit`.
struct Audit<'a> {
    name: &'a str,
    renamed_from: Option<&'a str>,
    extra: &'a str,
    absent: bool,
    tile: bool,
}

const AUDIT: Audit<'static> = Audit {
    name: "Audit",
    renamed_from: None,
    extra: "",
    absent: false,
    tile: true,
};

/// A stack with source `audit` (a log source), session source `sessions` naming the live
/// `Traces` by name, and, when `audit.tile`, a dashboard whose tile names `audit` by key.
fn with_audit(audit: &Audit<'_>) -> String {
    let mut source = format!("sources:\n  audit:\n    name: {}\n", audit.name);
    if let Some(old) = audit.renamed_from {
        source.push_str(&format!("    renamedFrom: [{old}]\n"));
    }
    if audit.absent {
        source.push_str("    absent: true\n");
    } else {
        source.push_str(&format!(
            "    kind: log\n    connection: Local ClickHouse\n    from: {{ databaseName: default, tableName: audit }}\n    \
             defaultTableSelectExpression: Timestamp, Body\n    timestampValueExpression: Timestamp\n{}",
            audit.extra
        ));
    }
    source.push_str(
        "  sessions:\n    name: Sessions\n    kind: session\n    connection: Local ClickHouse\n    \
         from: { databaseName: default, tableName: hyperdx_sessions }\n    \
         timestampValueExpression: TimestampTime\n    traceSource: Traces\n",
    );
    let tile_source = if audit.tile { "audit" } else { "Logs" };
    config(&format!(
        "{source}dashboards:\n  api:\n    name: API\n    tiles:\n      - name: Requests\n        \
         x: 0\n        y: 0\n        w: 12\n        h: 4\n        series:\n          - type: time\n            \
         source: {tile_source}\n            aggFn: count\n"
    ))
}

/// The team's source named `name`, as its list answers it (read with the UI's key).
fn listed(target: &Target, name: &str) -> Option<Value> {
    let list = target.ui("GET", "/sources", None).data();
    list.as_array()?.iter().find(|s| s["name"] == name).cloned()
}

/// The source id the dashboard's one tile names.
fn tile_source(target: &Target) -> Value {
    let dashboards = target.dashboards();
    let tile = &dashboards[0]["tiles"][0];
    let config = &tile["config"];
    config
        .get("sourceId")
        .or_else(|| tile["series"][0].get("sourceId"))
        .cloned()
        .unwrap_or(Value::Null)
}

/// The source writes the server answered.
fn source_writes(target: &Target) -> Vec<String> {
    target
        .writes()
        .into_iter()
        .filter(|w| w.contains("/sources"))
        .collect()
}

/// Plans `path` (exit 0) showing each line; applies it and checks the next plan is empty.
#[track_caller]
fn planned_and_applied(target: &Target, converge: &Converge<'_>, path: &str, shown: &[&str]) {
    let plan = converge.run(["plan", path]);
    plan.assert_exit(0);
    for line in shown {
        assert!(
            plan.stdout.contains(line),
            "{}: the plan does not show {line:?}:\n{}",
            target.name(),
            plan.stdout
        );
    }
    apply_then_empty(target, converge, path);
}

/// Created with the dashboard naming it in one apply, changed member by member, renamed in
/// place and deleted after the tile moved off it; `Logs`, `Traces` and `Metrics`, which the
/// config does not declare, are there throughout.
fn created_changed_renamed_deleted(target: &Target) {
    let workspace = Workspace::new();
    let converge = target.converge().cwd(&workspace);
    let path = workspace.write("c.yaml", &with_audit(&AUDIT));
    planned_and_applied(
        target,
        &converge,
        &path,
        &[
            "+ source.platform.audit",
            "+ source.platform.sessions",
            "sourceId: \"(the source \\\"Audit\\\" this plan creates)\"",
            "3. dashboard.platform.api (after 1)",
            "\" (Traces)",
        ],
    );
    let audit = listed(target, "Audit").expect("the source is created");
    assert_eq!(tile_source(target), audit["id"], "{}", target.name());
    let traces = listed(target, "Traces").unwrap();
    let sessions = listed(target, "Sessions").unwrap();
    assert_eq!(sessions["traceSourceId"], traces["id"], "{}", target.name());
    let changed = Audit {
        extra: "    serviceNameExpression: ServiceName\n    disabled: true\n",
        ..AUDIT
    };
    let path = workspace.write("c.yaml", &with_audit(&changed));
    planned_and_applied(
        target,
        &converge,
        &path,
        &[
            "+ serviceNameExpression: \"ServiceName\"",
            "~ disabled: false -> true",
        ],
    );
    let renamed = Audit {
        name: "Audit log",
        renamed_from: Some("Audit"),
        ..changed
    };
    let path = workspace.write("c.yaml", &with_audit(&renamed));
    planned_and_applied(
        target,
        &converge,
        &path,
        &["renamed \"Audit\" -> \"Audit log\""],
    );
    assert_eq!(listed(target, "Audit log").unwrap()["id"], audit["id"]);
    let gone = Audit {
        name: "Audit log",
        absent: true,
        tile: false,
        ..AUDIT
    };
    let path = workspace.write("c.yaml", &with_audit(&gone));
    planned_and_applied(target, &converge, &path, &["- source.platform.audit"]);
    assert!(listed(target, "Audit log").is_none(), "{}", target.name());
    for name in ["Logs", "Traces", "Metrics", "Sessions"] {
        assert!(listed(target, name).is_some(), "{}: {name}", target.name());
    }
    assert_eq!(
        source_writes(target),
        [
            "POST /api/v2/sources 200",
            "POST /api/v2/sources 200",
            "PUT /api/v2/sources/{id} 200",
            "PUT /api/v2/sources/{id} 200",
            "DELETE /api/v2/sources/{id} 200",
        ],
        "{}",
        target.name()
    );
}
on_both!(created_changed_renamed_deleted);

/// A saved plan applies as made (the source first, the tile its id filled in); one edited to
/// send other members is refused by the trust check; `--only` keeps the sources alone.
fn saved_plans_and_only(target: &Target) {
    let workspace = Workspace::new();
    let converge = target.converge().cwd(&workspace);
    let path = workspace.write("c.yaml", &with_audit(&AUDIT));
    let only = converge.run(["plan", "--only", "source.*", &path]);
    only.assert_exit(0);
    assert!(
        only.stdout.contains("Plan: 2 to create, 0 to update")
            && !only.stdout.contains("dashboard.platform.api"),
        "{}:\n{}",
        target.name(),
        only.stdout
    );
    let saved = workspace.file("p.json");
    converge
        .run(["plan", "--out", &saved, &path])
        .assert_exit(0);
    let text = workspace.read("p.json");
    let edited = text.replacen(
        "\"timestampValueExpression\": \"Timestamp\"",
        "\"timestampValueExpression\": \"Other\"",
        1,
    );
    assert_ne!(text, edited, "the saved plan holds the source's members");
    let tampered = workspace.write("t.json", &edited);
    let refused = converge.run(["apply", "--plan", &tampered, "--yes", &path]);
    assert_ne!(refused.code, 0, "{}: {}", target.name(), refused.stdout);
    assert!(source_writes(target).is_empty(), "{}", target.name());
    let applied = converge.run(["apply", "--plan", &saved, "--yes", &path]);
    applied.assert_exit(0);
    let audit = listed(target, "Audit").expect("the saved plan creates it");
    assert_eq!(tile_source(target), audit["id"], "{}", target.name());
    converge
        .run(["plan", "--detailed-exitcode", &path])
        .assert_exit(0);
}
on_both!(saved_plans_and_only);

/// A source changed in the UI shows as drift member by member; an export writes the stack's
/// sources (connection and trace source by name) and plans empty.
fn drift_and_export(target: &Target) {
    let workspace = Workspace::new();
    let converge = target.converge().cwd(&workspace);
    let path = workspace.write("c.yaml", &with_audit(&AUDIT));
    apply_then_empty(target, &converge, &path);
    let exported = workspace.file("exported.yaml");
    let export = target.converge().cwd(&workspace);
    export
        .run(["export", "--observability", "--out", &exported])
        .assert_exit(0);
    let text = workspace.read("exported.yaml");
    for line in [
        "connection: Local ClickHouse",
        "traceSource: Traces",
        "defaultTableSelectExpression: \"Timestamp, Body\"",
        "source: Audit",
    ] {
        assert!(
            text.contains(line),
            "{}: no {line:?} in\n{text}",
            target.name()
        );
    }
    export
        .run(["plan", "--detailed-exitcode", &exported])
        .assert_exit(0);
    let mut edited = listed(target, "Audit").unwrap();
    let id = edited["id"].as_str().unwrap_or_default().to_string();
    if let Some(map) = edited.as_object_mut() {
        map.remove("id");
        map.insert("bodyExpression".into(), Value::from("Body"));
    }
    let answer = target.ui("PUT", &format!("/sources/{id}"), Some(edited));
    assert_eq!(answer.status, 200, "{}: {}", target.name(), answer.text);
    let drift = converge.run(["drift", &path]);
    assert_eq!(drift.code, 2, "{}: {}", target.name(), drift.stdout);
    assert!(
        drift.stdout.contains("~ source.platform.audit"),
        "{}:\n{}",
        target.name(),
        drift.stdout
    );
}
on_both!(drift_and_export);

/// One config with its sources applied to two servers: each creates its own, the tile names
/// that server's id, and both plan empty after. The two are the sandbox and hdx-server;
/// without hdx-server, two sandboxes.
#[test]
fn a_config_with_its_sources_is_promoted() {
    let staging = Target::sandbox();
    let production =
        Target::hdx("a_config_with_its_sources_is_promoted").unwrap_or_else(Target::sandbox);
    let mut ids = Vec::new();
    for target in [&staging, &production] {
        let workspace = Workspace::new();
        let converge = target.converge().cwd(&workspace);
        let path = workspace.write("c.yaml", &with_audit(&AUDIT));
        apply_then_empty(target, &converge, &path);
        let id = listed(target, "Audit").unwrap()["id"].clone();
        assert_eq!(tile_source(target), id, "{}", target.name());
        ids.push(id);
    }
    if matches!(production, Target::Hdx(_)) {
        assert_ne!(ids[0], ids[1], "the two servers' source ids differ");
    }
}

/// What the server would refuse, or converge cannot write, is an error at its line: a member
/// the kind does not take, a member it requires left out, sources on the managed stack; a
/// reference to a source nothing has, at plan time.
#[test]
fn source_config_errors_are_at_their_lines() {
    let target = Target::sandbox();
    let workspace = Workspace::new();
    let wide = target.converge().cwd(&workspace).env("COLUMNS", "300");
    let bad = with_audit(&Audit {
        extra: "    durationExpression: Duration\n",
        ..AUDIT
    })
    .replace("\n        timestampValueExpression: Timestamp\n", "\n");
    let path = workspace.write("c.yaml", &bad);
    let out = wide.run(["validate", &path]);
    out.assert_exit(1);
    for expected in ["durationExpression", "timestampValueExpression", "c.yaml:1"] {
        assert!(
            out.stderr.contains(expected),
            "no {expected:?} in\n{}",
            out.stderr
        );
    }
    let managed = with_audit(&AUDIT)
        .replace("api: observability", "service: api")
        .replace(
            "stacks:",
            "services:\n  api:\n    id: 00000000-0000-0000-0000-000000000001\nstacks:",
        );
    let path = workspace.write("m.yaml", &managed);
    let out = wide.run(["validate", &path]);
    out.assert_exit(1);
    assert!(
        out.stderr.contains("semantic::source") && out.stderr.contains("cannot create them there"),
        "{}",
        out.stderr
    );
    let unknown = with_audit(&AUDIT).replace("traceSource: Traces", "traceSource: Tracez");
    let path = workspace.write("u.yaml", &unknown);
    let out = wide.run(["plan", &path]);
    out.assert_exit(1);
    assert!(
        out.stderr
            .contains("no source named \"Tracez\" in the stack"),
        "{}",
        out.stderr
    );
    assert!(target.writes().is_empty());
}

/// What the server refuses of a source body, answered alike by both (the sandbox's rules are
/// hdx-server's): a kind it does not know, a required member left out, `null` for a member, a
/// connection that is not the team's, an unknown member dropped.
fn refused_bodies_read_alike(target: &Target) {
    let connection = target.ui("GET", "/connections", None).data()[0]["id"].clone();
    let log = |extra: Value| {
        let mut body = serde_json::json!({
            "name": "Probe", "kind": "log", "connection": connection,
            "from": {"databaseName": "default", "tableName": "probe"},
            "defaultTableSelectExpression": "Timestamp", "timestampValueExpression": "Timestamp",
        });
        if let (Some(map), Value::Object(more)) = (body.as_object_mut(), extra) {
            map.extend(more);
        }
        body
    };
    let cases = [
        (
            serde_json::json!({"name": "X", "kind": "wat"}),
            "Body validation failed: kind: Invalid discriminator value. Expected 'log' | 'trace' | 'session' | 'metric' | 'promql'",
        ),
        (
            log(serde_json::json!({"serviceNameExpression": null})),
            "Body validation failed: serviceNameExpression: Expected string, received null",
        ),
        (
            log(serde_json::json!({"connection": "65f5e4a3b9e77c001a567890"})),
            "connection must be an existing connection id",
        ),
    ];
    for (body, message) in cases {
        let answer = target.obs("POST", "/sources", Some(body));
        assert_eq!(answer.status, 400, "{}: {}", target.name(), answer.text);
        assert!(
            answer.text.contains(message),
            "{}: {message:?} not in {}",
            target.name(),
            answer.text
        );
    }
    let answer = target.obs(
        "POST",
        "/sources",
        Some(log(serde_json::json!({"bogus": 1}))),
    );
    assert_eq!(answer.status, 200, "{}: {}", target.name(), answer.text);
    let created = answer.data();
    assert!(
        created.get("bogus").is_none(),
        "{}: {created}",
        target.name()
    );
    assert_eq!(
        created["querySettings"],
        serde_json::json!([]),
        "{}",
        target.name()
    );
    assert_eq!(created["disabled"], false, "{}", target.name());
}
on_both!(refused_bodies_read_alike);
