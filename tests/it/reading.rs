//! Reading what the documents allow, through the real binary: nullable members, unknown
//! values and members, a server of a newer generation, a server without a sources list; and
//! answers that really cannot be read, named precisely.

use converge::sandbox::{Quirk, SandboxHandle, SandboxOptions};
use serde_json::Value;

use crate::common::{self, Converge, Outcome, RawServer, Workspace};

/// The binary against `sandbox` from the repository root, its client unpaced.
fn from_root(sandbox: &SandboxHandle) -> Converge<'_> {
    Converge::new(sandbox).rate_limit("100000/1s").in_repo()
}

/// Text without whitespace or the diagnostics' `|` gutter, so a message wrapped at the
/// report's width still matches.
fn squash(text: &str) -> String {
    text.chars()
        .filter(|c| !c.is_whitespace() && *c != '|')
        .collect()
}

/// Whether `haystack` says `needle`, however the report wrapped it.
fn says(haystack: &str, needle: &str) -> bool {
    squash(haystack).contains(&squash(needle))
}

fn fast(quirks: Vec<Quirk>) -> SandboxHandle {
    common::sandbox(SandboxOptions {
        rate_limit: false,
        quirks,
        ..SandboxOptions::default()
    })
}

#[test]
fn a_nameless_alert_an_unknown_state_and_unknown_source_members_read_fine() {
    // The demo world in a state file, then changed the way the documents allow: an alert with
    // no name (the managed stack answers `name: null`), states and source members converge has
    // never heard of.
    let dir = tempfile::tempdir().expect("a temp dir");
    let state = dir.path().join("sandbox.json");
    drop(common::sandbox(SandboxOptions {
        state_file: Some(state.clone()),
        ..SandboxOptions::default()
    }));
    let mut world: Value = serde_json::from_str(&std::fs::read_to_string(&state).unwrap()).unwrap();
    for stack in world["stacks"].as_array_mut().unwrap() {
        for alert in stack["alerts"].as_array_mut().unwrap() {
            alert["name"] = Value::from("");
            alert["state"] = Value::from("SNOOZED_UNTIL_MONDAY");
        }
        for source in stack["sources"].as_array_mut().unwrap() {
            source["materializedViews"] =
                serde_json::json!([{"table": "mv", "minGranularity": "1m"}]);
            source["querySettings"] = serde_json::json!([{"setting": "max_threads", "value": "4"}]);
        }
    }
    std::fs::write(&state, world.to_string()).unwrap();
    let sandbox = common::sandbox(SandboxOptions {
        state_file: Some(state),
        rate_limit: false,
        ..SandboxOptions::default()
    });
    // The server does answer a null name.
    let alerts = common::Client::new(&sandbox)
        .cloud(
            "GET",
            "/services/1c7d8c62-0b0f-4f0e-9b2e-6a3c8a3b7e11/stack/alerts",
            None,
        )
        .result();
    assert_eq!(alerts[0]["name"], Value::Null, "{alerts}");

    let Outcome {
        code,
        stdout,
        stderr,
        ..
    } = from_root(&sandbox).run(["plan", "examples/quickstart.yaml"]);
    assert_eq!(code, 0, "{stderr}");
    assert!(stdout.contains("dashboard.prod.api-health"), "{stdout}");
    let Outcome { code, stderr, .. } =
        from_root(&sandbox).run(["drift", "examples/quickstart.yaml"]);
    assert_ne!(code, 1, "{stderr}");
}

#[test]
fn tiles_of_the_newer_format_are_compared_and_changed_in_that_format() {
    let sandbox = fast(vec![Quirk::NewerGeneration]);
    let Outcome { code, stderr, .. } =
        from_root(&sandbox).run(["apply", "examples/quickstart.yaml", "--yes"]);
    assert_eq!(code, 0, "{stderr}");
    // The server now shows the dashboard's tiles with `config`, its alert with `dashboardId`.
    let client = common::Client::new(&sandbox);
    let stack = "/services/1c7d8c62-0b0f-4f0e-9b2e-6a3c8a3b7e11/stack";
    let dashboards = client
        .cloud("GET", &format!("{stack}/dashboards"), None)
        .result();
    let health = dashboards
        .as_array()
        .unwrap()
        .iter()
        .find(|d| d["name"] == "API health")
        .expect("created");
    assert!(health["tiles"][0]["config"].is_object(), "{health}");
    assert!(health["tiles"][0].get("series").is_none(), "{health}");
    let alerts = client
        .cloud("GET", &format!("{stack}/alerts"), None)
        .result();
    assert!(alerts[0]["dashboardId"].is_string(), "{alerts}");

    // Two plans in a row: nothing to change, and nothing to warn about.
    for round in 0..2 {
        let out =
            from_root(&sandbox).run(["plan", "--detailed-exitcode", "examples/quickstart.yaml"]);
        assert_eq!(out.code, 0, "round {round}: {}\n{}", out.stdout, out.stderr);
        assert!(
            !says(&out.stderr, "plan::"),
            "round {round}: {}",
            out.stderr
        );
    }

    // A change of a tile's `where` is a change, sent in the server's format; then no changes.
    let yaml = common::quickstart().replace("where: \"service:api\"\n                whereLanguage: lucene\n                groupBy: []", "where: \"service:web\"\n                whereLanguage: lucene\n                groupBy: []");
    let dir = Workspace::new();
    let config = dir.write("converge.yaml", &yaml);
    let config = config.as_str();
    let out = from_root(&sandbox).run(["plan", "--detailed-exitcode", config]);
    common::converge_snapshot!("newer_generation_where_changed", out);
    let Outcome { code, stderr, .. } = from_root(&sandbox).run(["apply", config, "--yes"]);
    assert_eq!(code, 0, "{stderr}");
    let health = client
        .cloud("GET", &format!("{stack}/dashboards"), None)
        .result();
    let requests = health
        .as_array()
        .into_iter()
        .flatten()
        .filter(|d| d["name"] == "API health")
        .flat_map(|d| d["tiles"].as_array().cloned().unwrap_or_default())
        .find(|t| t["name"] == "Requests")
        .unwrap_or_default();
    assert_eq!(
        requests["config"]["select"][0]["where"], "service:web",
        "{requests}"
    );
    let Outcome { code, stdout, .. } =
        from_root(&sandbox).run(["plan", "--detailed-exitcode", config]);
    assert_eq!(code, 0, "{stdout}");
}

#[test]
fn a_server_without_a_sources_list_says_to_name_sources_by_id() {
    let sandbox = fast(vec![Quirk::NoSources]);
    let Outcome { code, stderr, .. } = from_root(&sandbox).run(["plan", "docs/preview.yaml"]);
    assert_eq!(code, 1, "{stderr}");
    assert!(
        says(
            &stderr,
            "stack.obs: the observability API has no sources list (`GET /api/v2/sources` answered 404"
        ),
        "{stderr}"
    );
    assert!(
        says(&stderr, "the source name(s) `Logs` cannot be resolved"),
        "{stderr}"
    );
    assert!(
        says(&stderr, "`sourceId: <id>` instead of `source: Logs`"),
        "{stderr}"
    );
    assert!(!says(&stderr, "the stack has no sources"), "{stderr}");
}

/// `plan` of a config with one service against a server at `url`: (exit code, stderr).
fn plan_against(url: &str) -> (i32, String) {
    let out = Converge::offline()
        .env("URL", url)
        .env("SECRET", "hunter2")
        .no_retry_delay()
        .config_as(
            "converge.yaml",
            "version: 1\norganization: 7d3f6a2e-0c1b-4e5f-9a8b-1c2d3e4f5a6b\ncloud:\n  url: ${env:URL}\n  keyId: key\n  keySecret: ${env:SECRET}\nservices:\n  analytics:\n    id: 1c7d8c62-0b0f-4f0e-9b2e-6a3c8a3b7e11\n    scaling: { numReplicas: 3 }\n",
        )
        .run(["plan"]);
    (out.code, out.stderr)
}

#[test]
fn json_of_another_shape_names_the_operation_the_path_and_both_types() {
    let server = RawServer::fixed(
        "200 OK",
        "application/json",
        r#"{"status":200,"requestId":"r-42","result":[{"id":"1c7d8c62-0b0f-4f0e-9b2e-6a3c8a3b7e11","name":"analytics"},{"id":"x","name":"b"},{"id":"y","name":"c"},{"id":"z","name":{"first":"secret-ish"}}]}"#,
    );
    let (code, stderr) = plan_against(&server.url);
    assert_eq!(code, 1, "{stderr}");
    assert!(
        says(
            &stderr,
            "list services failed: GET /v1/organizations/7d3f6a2e-0c1b-4e5f-9a8b-1c2d3e4f5a6b/services answered 200 with JSON converge cannot read"
        ),
        "{stderr}"
    );
    assert!(
        says(
            &stderr,
            "at `result[3].name`: expected a string, got an object"
        ),
        "{stderr}"
    );
    assert!(says(&stderr, "requestId r-42"), "{stderr}");
    assert!(
        says(&stderr, "speaks another version of the API than converge"),
        "{stderr}"
    );
    assert!(!says(&stderr, "proxy or login page"), "{stderr}");
    assert!(!says(&stderr, "secret-ish"), "{stderr}");
}

#[test]
fn an_html_page_says_to_check_the_url() {
    let server = RawServer::fixed(
        "200 OK",
        "text/html",
        "<!DOCTYPE html><html><body>Please sign in</body></html>",
    );
    let (code, stderr) = plan_against(&server.url);
    assert_eq!(code, 1, "{stderr}");
    assert!(says(&stderr, "list services failed"), "{stderr}");
    assert!(says(&stderr, "a body that is not JSON"), "{stderr}");
    assert!(says(&stderr, "proxy or login page"), "{stderr}");
    assert!(!says(&stderr, "another version"), "{stderr}");
}
