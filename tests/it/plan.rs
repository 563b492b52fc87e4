//! `converge plan` through the real binary against the real sandbox: every kind and action,
//! each output format, filters and exit codes, the saved plan, secrets, errors and the number of
//! requests a plan costs.

mod actions;
mod errors;
mod formats;
mod large;
mod review;
mod secrets;

use converge::sandbox::SandboxHandle;

use crate::common::Converge;

/// `converge plan --format json <config>`, parsed.
pub fn plan_json(sandbox: &SandboxHandle, config: &str) -> serde_json::Value {
    let out = Converge::new(sandbox)
        .fast()
        .config(config)
        .run(["plan", "--format", "json"]);
    out.assert_exit(0);
    out.json()
}

/// The change at `address` in a JSON plan.
pub fn change<'a>(plan: &'a serde_json::Value, address: &str) -> &'a serde_json::Value {
    plan["changes"]
        .as_array()
        .and_then(|changes| changes.iter().find(|c| c["address"] == address))
        .unwrap_or_else(|| panic!("no change at {address}: {plan:#}"))
}

/// The snapshot settings of this area: [`crate::common::snapshots`], named without the module.
pub fn snapshots() -> insta::Settings {
    let mut settings = crate::common::snapshots();
    settings.set_snapshot_path("snapshots");
    settings.set_prepend_module_to_snapshot(false);
    settings
}

// --- Until every area runs the binary through `common::Converge`. ---

use std::path::{Path, PathBuf};

pub use crate::common::quickstart;

/// Rate limits high enough that tests never wait for the client's token bucket.
pub const FAST_LIMITS: [(&str, &str); 3] = [
    ("CONVERGE_CLOUD_RATE_LIMIT", "100000/1s"),
    ("CONVERGE_OBSERVABILITY_RATE_LIMIT", "100000/1s"),
    ("CONVERGE_TEST_NO_RETRY_DELAY", "1"),
];

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

/// Runs `converge <args>` against `sandbox` (demo credentials, fast limits) in `cwd`.
pub fn run(sandbox: &SandboxHandle, cwd: &Path, args: &[&str]) -> Run {
    run_with(sandbox, cwd, args, &[])
}

/// As [`run`], with extra environment variables.
pub fn run_with(sandbox: &SandboxHandle, cwd: &Path, args: &[&str], env: &[(&str, &str)]) -> Run {
    let out = Converge::new(sandbox)
        .fast()
        .envs(env.iter().copied())
        .cwd(cwd)
        .run(args);
    Run {
        code: out.code,
        stdout: out.stdout,
        stderr: out.stderr,
    }
}
