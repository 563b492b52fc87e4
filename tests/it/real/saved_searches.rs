//! Saved searches as objects of a stack (issue 36, part 2), on the sandbox and hdx-server:
//! created with their source named by name, changed member by member, renamed in place
//! (`renamedFrom`, its id kept), deleted with `absent: true` and `--allow-destroy`; compared in
//! the form the server stores (an applied config plans empty), through saved plans, `--only`
//! and drift; and the config errors at their lines.

use serde_json::Value;

use crate::common::Workspace;

use super::{Target, apply_then_empty, config, on_both};

/// The members a case writes on saved search `errors` (each `None` left out).
#[derive(Clone, Copy)]
struct Search<'a> {
    name: &'a str,
    renamed_from: Option<&'a str>,
    source: &'a str,
    members: &'a str,
    absent: bool,
}

const SEARCH: Search<'static> = Search {
    name: "Production errors",
    renamed_from: None,
    source: "Logs",
    members: "",
    absent: false,
};

/// A stack with saved search `errors`.
fn with_search(search: &Search<'_>) -> String {
    let mut text = format!(
        "savedSearches:\n  errors:\n    name: {}\n    source: {}\n",
        search.name, search.source
    );
    if let Some(old) = search.renamed_from {
        text.push_str(&format!("    renamedFrom: [{old}]\n"));
    }
    if search.absent {
        text.push_str("    absent: true\n");
    }
    for line in search.members.lines() {
        text.push_str(&format!("    {line}\n"));
    }
    config(&text)
}

/// The team's saved searches, as listed.
fn listed(target: &Target) -> Vec<Value> {
    let list = target.ui("GET", "/saved-searches", None).data();
    list.as_array().cloned().unwrap_or_default()
}

/// The source id of `name` on the target (read with the UI's key: its own rate-limit window
/// on hdx-server).
fn source_id(target: &Target, name: &str) -> Value {
    let sources = target.ui("GET", "/sources", None).data();
    sources
        .as_array()
        .and_then(|all| all.iter().find(|s| s["name"] == name))
        .map(|s| s["id"].clone())
        .unwrap_or_default()
}

/// Plans `text` showing each of `shown`, applies it, and checks the next plan is empty.
#[track_caller]
fn planned_and_applied(target: &Target, workspace: &Workspace, text: &str, shown: &[&str]) {
    let converge = target.converge().cwd(workspace);
    let path = workspace.write("c.yaml", text);
    let plan = converge.run(["plan", &path]);
    plan.assert_exit(0);
    for line in shown {
        assert!(
            plan.stdout.contains(line),
            "{}: the plan does not show {line:?}:\n{}",
            target.name(),
            plan.stdout
        );
    }
    apply_then_empty(target, &converge, &path);
}

/// Created with the server's defaults, then each member changed in place, one at a time; a
/// rename keeps its id; `absent: true` deletes it with `--allow-destroy` only.
fn changed_member_by_member(target: &Target) {
    let workspace = Workspace::new();
    planned_and_applied(
        target,
        &workspace,
        &with_search(&SEARCH),
        &[
            "+ saved_search.platform.errors",
            "+ whereLanguage: \"lucene\"",
            "(Logs)",
        ],
    );
    let stored = listed(target);
    assert_eq!(stored.len(), 1, "{}: {stored:?}", target.name());
    let id = stored[0]["id"].clone();
    assert_eq!(
        stored[0]["sourceId"],
        source_id(target, "Logs"),
        "{}",
        target.name()
    );
    assert_eq!(stored[0]["whereLanguage"], "lucene", "{}", target.name());
    assert_eq!(stored[0]["select"], "", "{}", target.name());
    let steps: [(&str, &str, &str); 6] = [
        (
            "Logs",
            "select: Timestamp, Body",
            "~ select: \"\" -> \"Timestamp, Body\"",
        ),
        (
            "Logs",
            "select: Timestamp, Body\nwhere: \"SeverityText = 'error'\"\nwhereLanguage: sql",
            "~ whereLanguage: \"lucene\" -> \"sql\"",
        ),
        (
            "Logs",
            "select: Timestamp, Body\nwhere: \"SeverityText = 'error'\"\nwhereLanguage: sql\norderBy: Timestamp DESC",
            "~ orderBy: \"\" -> \"Timestamp DESC\"",
        ),
        (
            "Logs",
            "orderBy: Timestamp DESC\ntags: [production, errors]",
            "~ tags: [] -> [production, errors]",
        ),
        (
            "Logs",
            "orderBy: Timestamp DESC\ntags: [production, errors]\nfilters: [\"ServiceName IN ('checkout', 'payments')\"]",
            "~ filters: [] -> [\"ServiceName IN ('checkout', 'payments')\"]",
        ),
        ("Traces", "orderBy: Timestamp DESC", "(Traces)"),
    ];
    for (source, members, shown) in steps {
        let search = Search {
            source,
            members,
            ..SEARCH
        };
        planned_and_applied(target, &workspace, &with_search(&search), &[shown]);
    }
    let stored = listed(target);
    assert_eq!(stored[0]["id"], id, "{}", target.name());
    assert_eq!(
        stored[0]["sourceId"],
        source_id(target, "Traces"),
        "{}",
        target.name()
    );
    assert_eq!(
        stored[0]["tags"],
        serde_json::json!([]),
        "{}",
        target.name()
    );

    let renamed = Search {
        name: "Prod errors",
        renamed_from: Some("Production errors"),
        source: "Traces",
        members: "orderBy: Timestamp DESC",
        ..SEARCH
    };
    planned_and_applied(
        target,
        &workspace,
        &with_search(&renamed),
        &["renamed \"Production errors\" -> \"Prod errors\""],
    );
    let stored = listed(target);
    assert_eq!(
        (stored.len(), &stored[0]["id"], &stored[0]["name"]),
        (1, &id, &Value::from("Prod errors")),
        "{}",
        target.name()
    );

    let gone = Search {
        absent: true,
        ..renamed
    };
    let path = workspace.write("c.yaml", &with_search(&gone));
    let converge = target.converge().cwd(&workspace);
    let refused = converge.run(["apply", "--yes", &path]);
    assert_ne!(
        refused.code,
        0,
        "{}: a delete without --allow-destroy",
        target.name()
    );
    planned_and_applied(
        target,
        &workspace,
        &with_search(&gone),
        &["- saved_search.platform.errors"],
    );
    assert!(listed(target).is_empty(), "{}", target.name());
    let writes: Vec<String> = target
        .writes()
        .into_iter()
        .filter(|w| w.contains("/saved-searches"))
        .collect();
    let mut expected = vec!["POST /api/v2/saved-searches 200".to_string()];
    expected.extend(std::iter::repeat_n(
        "PUT /api/v2/saved-searches/{id} 200".to_string(),
        7,
    ));
    expected.push("DELETE /api/v2/saved-searches/{id} 200".to_string());
    assert_eq!(writes, expected, "{}", target.name());
}
on_both!(changed_member_by_member);

/// A saved plan applies as reviewed; `--only` keeps the saved search's change alone; a change
/// made in the UI shows in drift, field by field.
fn saved_plans_only_and_drift(target: &Target) {
    let workspace = Workspace::new();
    let converge = target.converge().cwd(&workspace);
    let text = with_search(&Search {
        members: "where: level:error",
        ..SEARCH
    })
    .replace(
        "savedSearches:",
        "dashboards:\n      api:\n        name: API\n        tiles: []\n    savedSearches:",
    );
    let path = workspace.write("c.yaml", &text);
    let only = converge.run(["plan", "--only", "saved_search.platform.errors", &path]);
    only.assert_exit(0);
    assert!(
        only.stdout.contains("+ saved_search.platform.errors")
            && !only.stdout.contains("dashboard.platform.api"),
        "{}:\n{}",
        target.name(),
        only.stdout
    );
    let saved = workspace.file("p.json");
    converge
        .run(["plan", "--out", &saved, &path])
        .assert_exit(0);
    converge
        .run(["apply", "--plan", &saved, "--yes", &path])
        .assert_exit(0);
    converge
        .run(["plan", "--detailed-exitcode", &path])
        .assert_exit(0);
    converge.run(["drift", &path]).assert_exit(0);

    let stored = listed(target);
    let id = stored[0]["id"].as_str().unwrap_or_default().to_string();
    let mut edit = stored[0].clone();
    edit["where"] = Value::from("level:warn");
    for member in ["id", "teamId", "createdAt", "updatedAt"] {
        if let Some(map) = edit.as_object_mut() {
            map.remove(member);
        }
    }
    let answer = target.ui("PUT", &format!("/saved-searches/{id}"), Some(edit));
    assert_eq!(answer.status, 200, "{}: {}", target.name(), answer.text);
    let drift = converge.run(["drift", &path]);
    assert_eq!(drift.code, 2, "{}: {}", target.name(), drift.stdout);
    assert!(
        drift.stdout.contains("saved_search.platform.errors")
            && drift.stdout.contains("level:warn"),
        "{}:\n{}",
        target.name(),
        drift.stdout
    );
}
on_both!(saved_plans_only_and_drift);

/// A source name that resolves to no source is an error at its line, and nothing is written.
fn an_unknown_source_is_an_error_at_its_line(target: &Target) {
    let workspace = Workspace::new();
    let text = with_search(&Search {
        source: "Logz",
        ..SEARCH
    });
    let path = workspace.write("c.yaml", &text);
    let plan = target.converge().cwd(&workspace).run(["plan", &path]);
    plan.assert_exit(1);
    let line = text
        .lines()
        .position(|l| l.trim() == "source: Logz")
        .map_or(0, |at| at + 1);
    assert!(
        plan.stderr.contains("Logz") && plan.stderr.contains(&format!("c.yaml:{line}:")),
        "{}:\n{}",
        target.name(),
        plan.stderr
    );
    assert!(target.writes().is_empty(), "{}", target.name());
}
on_both!(an_unknown_source_is_an_error_at_its_line);

/// What converge cannot write, or the server would refuse, is an error at its line before
/// anything is read.
#[test]
fn saved_search_config_errors_are_at_their_lines() {
    let target = Target::sandbox();
    let workspace = Workspace::new();
    let bad = config(
        "savedSearches:\n  a:\n    name: Errors\n    source: Logs\n    sourceId: 65f5e4a3b9e77c001a567890\n  \
         b:\n    name: Errors\n    source: Logs\n    renamedFrom: [Errors]\n  c:\n    name: Nothing\n  \
         d:\n    name: Bad\n    source: Logs\n    whereLanguage: kql\n",
    );
    let path = workspace.write("c.yaml", &bad);
    let wide = target.converge().cwd(&workspace).env("COLUMNS", "300");
    let out = wide.run(["validate", &path]);
    out.assert_exit(1);
    for expected in [
        "semantic::source-conflict",
        "a saved search names its source once",
        "c.yaml:17:17",
        "two saved searches of stack `platform` are named `Errors`",
        "c.yaml:20:15",
        "c.yaml:22:23",
        "semantic::rename-conflict",
        "saved search `c` names no source",
        "c.yaml:23:7",
        "whereLanguage",
        "c.yaml:28:24",
    ] {
        assert!(
            out.stderr.contains(expected),
            "no {expected:?} in\n{}",
            out.stderr
        );
    }
    let managed = config("savedSearches:\n  a:\n    name: Errors\n    source: Logs\n")
        .replace("api: observability", "service: api")
        .replace(
            "stacks:",
            "services:\n  api:\n    id: 00000000-0000-0000-0000-000000000001\nstacks:",
        );
    let path = workspace.write("m.yaml", &managed);
    let out = wide.run(["validate", &path]);
    out.assert_exit(1);
    assert!(
        out.stderr.contains("semantic::saved-search")
            && out
                .stderr
                .contains("converge cannot create saved search `a` there"),
        "{}",
        out.stderr
    );
    assert!(target.writes().is_empty());
}

/// One config with its saved search applied to two servers (the sandbox and hdx-server;
/// without hdx-server, two sandboxes): each creates its own, with that server's source id, and
/// both plan empty after.
#[test]
fn a_config_with_its_saved_search_is_promoted() {
    let staging = Target::sandbox();
    let production =
        Target::hdx("a_config_with_its_saved_search_is_promoted").unwrap_or_else(Target::sandbox);
    let text = with_search(&Search {
        members: "where: level:error\ntags: [b, a]",
        ..SEARCH
    });
    let mut ids = Vec::new();
    for target in [&staging, &production] {
        let workspace = Workspace::new();
        let path = workspace.write("c.yaml", &text);
        apply_then_empty(target, &target.converge().cwd(&workspace), &path);
        let stored = listed(target);
        assert_eq!(stored.len(), 1, "{}: {stored:?}", target.name());
        assert_eq!(
            stored[0]["sourceId"],
            source_id(target, "Logs"),
            "{}",
            target.name()
        );
        assert_eq!(
            stored[0]["tags"],
            serde_json::json!(["b", "a"]),
            "{}",
            target.name()
        );
        ids.push(stored[0]["id"].clone());
    }
    if matches!(production, Target::Hdx(_)) {
        assert_ne!(ids[0], ids[1], "the two servers' saved search ids differ");
    }
}
