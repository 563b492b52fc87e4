//! `converge plan` through the real binary against the real sandbox: every kind and action,
//! each output format, filters and exit codes, the saved plan, secrets, errors and the number of
//! requests a plan costs.

mod actions;
mod errors;
mod formats;
mod large;
mod review;
mod secrets;

use std::path::{Path, PathBuf};

use converge::sandbox::SandboxHandle;

use crate::common;

/// Rate limits high enough that tests never wait for the client's token bucket.
pub const FAST_LIMITS: [(&str, &str); 3] = [
    ("CONVERGE_CLOUD_RATE_LIMIT", "100000/1s"),
    ("CONVERGE_OBSERVABILITY_RATE_LIMIT", "100000/1s"),
    ("CONVERGE_TEST_NO_RETRY_DELAY", "1"),
];

/// What one run printed.
#[derive(Debug)]
pub struct Run {
    pub code: i32,
    pub stdout: String,
    pub stderr: String,
}

/// A temporary directory holding `config.yaml` with `text`.
pub fn config_dir(text: &str) -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().expect("a temp dir");
    let path = dir.path().join("config.yaml");
    std::fs::write(&path, text).expect("config written");
    (dir, path)
}

/// The quickstart's text.
pub fn quickstart() -> String {
    std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/quickstart.yaml"))
        .expect("the quickstart is readable")
}

/// Runs `converge <args>` against `sandbox` (demo credentials, fast limits) in `cwd`.
pub fn run(sandbox: &SandboxHandle, cwd: &Path, args: &[&str]) -> Run {
    run_with(sandbox, cwd, args, &[])
}

/// As [`run`], with extra environment variables.
pub fn run_with(sandbox: &SandboxHandle, cwd: &Path, args: &[&str], env: &[(&str, &str)]) -> Run {
    let output = common::converge(sandbox)
        .current_dir(cwd)
        .envs(FAST_LIMITS)
        .envs(env.iter().copied())
        .args(args)
        .output()
        .expect("the binary runs");
    let run = Run {
        code: output.status.code().unwrap_or(-1),
        stdout: String::from_utf8_lossy(&output.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&output.stderr).into_owned(),
    };
    assert!(
        !run.stderr.contains("panicked"),
        "the binary panicked: {}",
        run.stderr
    );
    run
}

/// `converge plan --format json <config>`, parsed.
pub fn plan_json(sandbox: &SandboxHandle, config: &str) -> serde_json::Value {
    let (dir, path) = config_dir(config);
    let out = run(
        sandbox,
        dir.path(),
        &[
            "plan",
            "--format",
            "json",
            path.to_str().expect("utf-8 path"),
        ],
    );
    assert_eq!(out.code, 0, "{}", out.stderr);
    serde_json::from_str(&out.stdout).unwrap_or_else(|e| panic!("{e}: {}", out.stdout))
}

/// The change at `address` in a JSON plan.
pub fn change<'a>(plan: &'a serde_json::Value, address: &str) -> &'a serde_json::Value {
    plan["changes"]
        .as_array()
        .and_then(|changes| changes.iter().find(|c| c["address"] == address))
        .unwrap_or_else(|| panic!("no change at {address}: {plan:#}"))
}
