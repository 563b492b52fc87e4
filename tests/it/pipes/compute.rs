//! `services.<key>.pipeCompute` (issue 22 item 5) through the real binary: the compute shared by
//! a service's database pipes is read once per service that declares it (never for the others),
//! planned at `service.<key>.pipe_compute`, patched with only the members that differ, and
//! checked at validate time as the cloud document says.

use serde_json::{Value, json};

use crate::common::{Converge, converge_snapshot};

const REPORTING: &str = "2e4f6a8b-3c5d-4e7f-8a9b-0c1d2e3f4a5b";

/// The demo world's two services: `analytics` with the given `pipeCompute` members, `reporting`
/// without any (its scaling as the demo's, so it plans unchanged).
fn with_compute(members: &str) -> String {
    format!(
        "version: 1\norganization: ${{env:CONVERGE_ORG_ID}}\ncloud:\n  url: ${{env:CONVERGE_CLOUD_URL}}\n  keyId: ${{env:CONVERGE_KEY_ID}}\n  keySecret: ${{env:CONVERGE_KEY_SECRET}}\nservices:\n  analytics:\n    id: 1c7d8c62-0b0f-4f0e-9b2e-6a3c8a3b7e11\n    pipeCompute:\n{members}  reporting:\n    id: {REPORTING}\n    scaling: {{ numReplicas: 1 }}\n"
    )
}

/// The `pipesCdcScaling` requests of the sandbox's log, as `METHOD path`.
fn compute_requests(sandbox: &converge::sandbox::SandboxHandle) -> Vec<String> {
    sandbox
        .request_log()
        .iter()
        .filter(|e| e.route.ends_with("/pipesCdcScaling"))
        .map(|e| {
            format!(
                "{} {}",
                e.method,
                e.path.replace(crate::common::ANALYTICS, "A")
            )
        })
        .collect()
}

#[test]
fn pipe_compute_is_read_once_where_declared_and_patched_only_where_it_differs() {
    let sandbox = crate::common::sandbox(converge::sandbox::SandboxOptions {
        rate_limit: false,
        log_bodies: true,
        ..converge::sandbox::SandboxOptions::default()
    });
    // The demo world's compute is 2000 millicores and 8 GB: only the CPU and memory both change.
    let config = with_compute("      replicaCpuMillicores: 4000\n      replicaMemoryGb: 16\n");
    let converge = Converge::new(&sandbox).fast().config(&config);
    let planned = converge.run(["plan"]);
    converge_snapshot!("pipe_compute_plan", planned);
    assert_eq!(
        compute_requests(&sandbox),
        ["GET /v1/organizations/7d3f6a2e-0c1b-4e5f-9a8b-1c2d3e4f5a6b/services/A/pipesCdcScaling"],
        "read once, for the one service that declares it"
    );
    sandbox.reset_log();
    let applied = converge.run(["apply", "--yes"]);
    assert_eq!(applied.code, 0, "{applied:?}");
    assert_eq!(
        applied.writes(),
        ["PATCH /v1/organizations/{organizationId}/services/{serviceId}/pipesCdcScaling"]
    );
    let patch: Vec<Value> = sandbox
        .request_log()
        .iter()
        .filter(|e| e.method == "PATCH")
        .filter_map(|e| serde_json::from_str(e.request_body.as_deref()?).ok())
        .collect();
    assert_eq!(
        patch,
        [json!({"replicaCpuMillicores": 4000, "replicaMemoryGb": 16})]
    );
    sandbox.reset_log();
    converge.run(["plan", "--detailed-exitcode"]).assert_exit(0);
    assert_eq!(
        compute_requests(&sandbox),
        ["GET /v1/organizations/7d3f6a2e-0c1b-4e5f-9a8b-1c2d3e4f5a6b/services/A/pipesCdcScaling"],
        "a no-op plan reads it once"
    );
    // Back to the demo's compute: `drift` reports the difference at the same address.
    let back = with_compute("      replicaCpuMillicores: 2000\n      replicaMemoryGb: 8\n");
    let drift = Converge::new(&sandbox).fast().config(&back).run(["drift"]);
    converge_snapshot!("pipe_compute_drift", drift);
}

/// A saved plan's compute step is checked against the config and applied as saved.
#[test]
fn a_saved_pipe_compute_step_applies() {
    let sandbox = crate::common::fast_sandbox();
    let workspace = crate::common::Workspace::new();
    let path = workspace.write(
        "converge.yaml",
        &with_compute("      replicaCpuMillicores: 8000\n      replicaMemoryGb: 32\n"),
    );
    let saved = workspace.file("plan.json");
    let converge = Converge::new(&sandbox).fast().cwd(&workspace);
    converge
        .run(["plan", &path, "--out", &saved])
        .assert_exit(0);
    let applied = converge.run(["apply", "--plan", &saved, &path, "--yes"]);
    assert_eq!(applied.code, 0, "{applied:?}");
    assert_eq!(
        applied.writes(),
        ["PATCH /v1/organizations/{organizationId}/services/{serviceId}/pipesCdcScaling"]
    );
    converge
        .run(["plan", &path, "--detailed-exitcode"])
        .assert_exit(0);
}

/// `export` writes `pipeCompute:` only where it is not the server's default (issue 38): a
/// service scaled up exports its compute and plans empty; at the default it has none.
#[test]
fn export_writes_pipe_compute_only_where_it_is_not_the_default() {
    let sandbox = crate::common::fast_sandbox();
    let converge = Converge::new(&sandbox).fast();
    let exported = converge.run(["export", "--service", crate::common::ANALYTICS]);
    exported.assert_exit(0);
    assert!(
        !exported.stdout.contains("pipeCompute"),
        "{}",
        exported.stdout
    );
    converge
        .clone()
        .config(&with_compute(
            "      replicaCpuMillicores: 8000\n      replicaMemoryGb: 32\n",
        ))
        .run(["apply", "--yes"])
        .assert_exit(0);
    let exported = converge.run(["export", "--service", crate::common::ANALYTICS]);
    exported.assert_exit(0);
    assert!(
        exported.stdout.contains(
            "    pipeCompute:\n      replicaCpuMillicores: 8000\n      replicaMemoryGb: 32\n"
        ),
        "{}",
        exported.stdout
    );
    converge
        .config(&exported.stdout)
        .run(["plan", "--detailed-exitcode"])
        .assert_exit(0);
}

#[test]
fn a_config_without_pipe_compute_never_reads_it() {
    let sandbox = crate::common::fast_sandbox();
    let config = with_compute("      replicaCpuMillicores: 2000\n      replicaMemoryGb: 8\n");
    let start = config.find("    pipeCompute:").unwrap();
    let end = config.find("  reporting:").unwrap();
    let without = format!("{}{}", &config[..start], &config[end..]);
    Converge::new(&sandbox)
        .fast()
        .config(&without)
        .run(["plan", "--detailed-exitcode"])
        .assert_exit(0);
    assert!(compute_requests(&sandbox).is_empty());
}

/// The document's rules, each at its line: whole cores, memory 4 GB for each core, both
/// members; and a postgres pipe's per-pipe `scaling` is refused naming `pipeCompute`.
/// `validate` with the connection variables set, so only the config's own problems show.
fn validate(config: &str) -> crate::common::Outcome {
    Converge::offline()
        .env("CONVERGE_ORG_ID", "7d3f6a2e-0c1b-4e5f-9a8b-1c2d3e4f5a6b")
        .env("CONVERGE_CLOUD_URL", "http://127.0.0.1:9")
        .env("CONVERGE_KEY_ID", "key")
        .env("CONVERGE_KEY_SECRET", "secret")
        .env("PG_USER", "user")
        .env("PG_PASSWORD", "password")
        .config(config)
        .run(["validate"])
}

#[test]
fn pipe_compute_and_database_pipe_scaling_are_checked_at_their_lines() {
    let ratio = with_compute("      replicaCpuMillicores: 2000\n      replicaMemoryGb: 12\n");
    let outcome = validate(&ratio);
    converge_snapshot!("pipe_compute_ratio", outcome);
    let step = with_compute("      replicaCpuMillicores: 1500\n      replicaMemoryGb: 6\n");
    let outcome = validate(&step);
    converge_snapshot!("pipe_compute_whole_cores", outcome);
    let half = with_compute("      replicaCpuMillicores: 2000\n");
    let outcome = validate(&half);
    converge_snapshot!("pipe_compute_one_member", outcome);
    let scaled = std::fs::read_to_string(
        crate::common::root().join("tests/fixtures/invalid/74-pipe-postgres-scaling.yaml"),
    )
    .unwrap();
    let outcome = validate(&scaled);
    converge_snapshot!("pipe_compute_postgres_scaling", outcome);
}
