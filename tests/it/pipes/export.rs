//! Export writes every pipe whole (issue 22 item 8): each source kind created from YAML is
//! exported with its name, state, source, destination, field mappings, settings and scaling,
//! its credentials as `${env:...}` placeholders with a comment naming the variable; the export
//! validates and plans empty against the same live state, with no credential set.

use crate::common::{ANALYTICS, Converge, Outcome, converge_snapshot};
use crate::pipes::{CANARIES, assert_no_canary, declared_whole};

/// The demo `analytics` config with only the pipe `key` of `examples/pipes.yaml`.
pub(crate) fn only(key: &str) -> String {
    let whole = declared_whole();
    let start = whole.find("    pipes:\n").unwrap() + "    pipes:\n".len();
    let mut kept = whole[..start].to_string();
    let mut keeping = false;
    for line in whole[start..].lines() {
        if line.starts_with("      ") && !line.starts_with("       ") {
            keeping = line == format!("      {key}:");
        }
        if keeping {
            kept.push_str(line);
            kept.push('\n');
        }
    }
    kept
}

/// Creates pipe `key` on a demo world whose own pipes are marked absent and deleted (so the
/// export shows the one created from YAML), exports the service, and checks that the export
/// validates and plans empty; returns the export's run.
fn exported(key: &str) -> Outcome {
    let sandbox = crate::common::fast_sandbox();
    let demo_gone = demo_pipes_gone();
    Converge::new(&sandbox)
        .fast()
        .envs(CANARIES)
        .config(&format!("{}{demo_gone}", only(key)))
        .run(["apply", "--yes", "--allow-destroy"])
        .assert_exit(0);
    let export = Converge::new(&sandbox)
        .fast()
        .run(["export", "--service", ANALYTICS]);
    export.assert_exit(0);
    assert_no_canary(&export);
    let yaml = export.stdout.clone();
    // Offline, the placeholders' variables are only warned about.
    let validated = Converge::offline()
        .config_as("exported.yaml", &yaml)
        .run(["validate", "--format", "json"]);
    validated.assert_exit(0);
    let codes: Vec<String> = validated
        .json()
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d["code"].as_str().unwrap().to_string())
        .filter(|code| code != "config::env-unset")
        .collect();
    assert_eq!(codes, Vec::<String>::new(), "{validated:?}");
    // A plan that sends no credential needs none set.
    let planned = Converge::new(&sandbox)
        .fast()
        .config_as("exported.yaml", &yaml)
        .run(["plan", "--detailed-exitcode"]);
    assert_eq!(planned.code, 0, "{planned:?}\n{yaml}");
    assert!(planned.writes().is_empty());
    export
}

#[test]
fn a_kafka_pipe_is_exported_whole_with_its_credentials_as_placeholders() {
    converge_snapshot!("pipe_export_kafka", exported("events"));
}

#[test]
fn an_object_storage_pipe_is_exported_whole_with_its_access_key_as_placeholders() {
    converge_snapshot!("pipe_export_object_storage", exported("files"));
}

#[test]
fn a_kinesis_pipe_is_exported_whole() {
    converge_snapshot!("pipe_export_kinesis", exported("stream"));
}

#[test]
fn a_postgres_pipe_is_exported_whole_with_its_credentials_as_placeholders() {
    converge_snapshot!("pipe_export_postgres", exported("replica"));
}

/// The demo seed's pipes are whole: their export validates with nothing but the placeholders'
/// variables unset, and names one placeholder per credential their kinds take.
#[test]
fn the_demo_pipes_export_whole_and_validate() {
    let sandbox = crate::common::fast_sandbox();
    let export = Converge::new(&sandbox)
        .fast()
        .run(["export", "--service", ANALYTICS]);
    export.assert_exit(0);
    let validated = Converge::offline()
        .config_as("exported.yaml", &export.stdout)
        .run(["validate", "--format", "json"]);
    validated.assert_exit(0);
    let unset: Vec<String> = validated
        .json()
        .as_array()
        .unwrap()
        .iter()
        .map(|d| {
            assert_eq!(d["code"], "config::env-unset", "{d}");
            d["message"].as_str().unwrap().to_string()
        })
        .filter(|message| message.contains("PIPE_"))
        .collect();
    assert_eq!(
        unset,
        [
            "environment variable `PIPE_ANALYTICS_CUSTOMERS_CREDENTIALS_PASSWORD` is not set",
            "environment variable `PIPE_ANALYTICS_CUSTOMERS_CREDENTIALS_USERNAME` is not set",
            "environment variable `PIPE_ANALYTICS_EVENTS_CONNECTION_STRING` is not set",
            "environment variable `PIPE_ANALYTICS_ORDERS_CREDENTIALS_PASSWORD` is not set",
            "environment variable `PIPE_ANALYTICS_ORDERS_CREDENTIALS_USERNAME` is not set",
        ]
    );
}

/// Two services whose names share a slug are exported under distinct keys, and their pipes'
/// placeholders name distinct variables, built from those keys; a kafka pipe whose schema
/// registry authenticates (`PLAIN`) gets placeholders for the registry's credentials too.
#[test]
fn services_of_one_slug_get_distinct_credential_variables() {
    let dir = tempfile::tempdir().unwrap();
    let state = dir.path().join("state.json");
    let options = || converge::sandbox::SandboxOptions {
        rate_limit: false,
        state_file: Some(state.clone()),
        ..converge::sandbox::SandboxOptions::default()
    };
    drop(crate::common::sandbox(options()));
    let mut world: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&state).unwrap()).unwrap();
    let reporting = "2e4f6a8b-3c5d-4e7f-8a9b-0c1d2e3f4a5b";
    for service in world["services"].as_array_mut().unwrap() {
        if service["service"]["id"] == reporting {
            service["service"]["name"] = "Analytics".into();
        }
    }
    let pipes = world["pipes"].as_array_mut().unwrap();
    pipes.retain(|p| p["pipe"]["name"] == "orders");
    let orders = &mut pipes[0]["pipe"];
    orders["source"]["kafka"]["authentication"] = "PLAIN".into();
    orders["source"]["kafka"]["schemaRegistry"]["authentication"] = "PLAIN".into();
    let mut copy = pipes[0].clone();
    copy["pipe"]["id"] = "7d1c2b3a-4e5f-4a6b-8c7d-9e0f1a2b3c4d".into();
    copy["pipe"]["serviceId"] = reporting.into();
    pipes.push(copy);
    std::fs::write(&state, world.to_string()).unwrap();
    let sandbox = crate::common::sandbox(options());
    let export = Converge::new(&sandbox).fast().run([
        "export",
        "--service",
        ANALYTICS,
        "--service",
        reporting,
    ]);
    converge_snapshot!("pipe_export_services_of_one_slug", export);
}

/// Entries of `pipes:` marking the demo world's four pipes of `analytics` `absent`: applied
/// (with `--allow-destroy`), the service holds only what the test's config makes.
pub(crate) fn demo_pipes_gone() -> String {
    [
        ("orders", "0f9d3b1e-6a52-4c0b-8f7e-2d5a9c1b4e77"),
        ("events", "5b2e8c4a-1d3f-4a6b-9c7e-8f0a1b2c3d4e"),
        ("clicks", "9a8b7c6d-5e4f-4a3b-8c2d-1e0f9a8b7c6d"),
        ("customers", "3c4d5e6f-7a8b-4c9d-8e0f-1a2b3c4d5e6f"),
    ]
    .iter()
    .map(|(name, id)| format!("      demo-{name}:\n        id: {id}\n        absent: true\n"))
    .collect()
}
