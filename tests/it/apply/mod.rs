//! `converge apply` through the real binary against the sandbox: execution, refusals, stale
//! saved plans, failures and idle services, `--wait`, faults, interruption and convergence as a
//! property.

mod ambiguous;
mod basics;
mod concurrent;
mod faults;
mod interrupt;
mod names;
mod pacing;
mod property;
mod saved_trust;
mod scoped;
mod terminal;

use std::path::{Path, PathBuf};

use converge::sandbox::SandboxHandle;
use serde_json::Value;

use crate::common;

/// The demo seed's `analytics` service.
pub const ANALYTICS: &str = "1c7d8c62-0b0f-4f0e-9b2e-6a3c8a3b7e11";

/// The quickstart config.
pub fn quickstart() -> String {
    std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/examples/quickstart.yaml"
    ))
    .expect("the quickstart exists")
}

/// A temporary directory holding configs and plan files; runs happen inside it.
pub struct Workspace {
    dir: tempfile::TempDir,
}

impl Workspace {
    pub fn new() -> Workspace {
        Workspace {
            dir: tempfile::tempdir().expect("a temporary directory"),
        }
    }

    pub fn path(&self) -> &Path {
        self.dir.path()
    }

    /// Writes `text` to `name` and returns its path.
    pub fn write(&self, name: &str, text: &str) -> PathBuf {
        let path = self.dir.path().join(name);
        std::fs::write(&path, text).expect("the file is written");
        path
    }
}

/// What a run of the binary did.
#[derive(Debug)]
pub struct Run {
    pub code: i32,
    pub stdout: String,
    pub stderr: String,
}

/// Runs the binary in `workspace` against `sandbox` with `args`.
pub fn run(sandbox: &SandboxHandle, workspace: &Workspace, args: &[&str]) -> Run {
    run_with(sandbox, workspace, args, &[])
}

/// As [`run`], with extra environment variables.
pub fn run_with(
    sandbox: &SandboxHandle,
    workspace: &Workspace,
    args: &[&str],
    env: &[(&str, &str)],
) -> Run {
    let mut command = common::converge(sandbox);
    // The sandboxes here enforce no rate limit; the client need not pace itself to the real one.
    command
        .current_dir(workspace.path())
        .args(args)
        .env("CONVERGE_CLOUD_RATE_LIMIT", "1000/1s")
        .env("CONVERGE_OBSERVABILITY_RATE_LIMIT", "1000/1s");
    for (key, value) in env {
        command.env(key, value);
    }
    let output = command.output().expect("the binary runs");
    Run {
        code: output.status.code().unwrap_or(-1),
        stdout: String::from_utf8_lossy(&output.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&output.stderr).into_owned(),
    }
}

/// `plan --detailed-exitcode` on `config`: whether it plans any change (panics on an error).
pub fn plans_changes(sandbox: &SandboxHandle, workspace: &Workspace, config: &Path) -> bool {
    let config = config.to_str().expect("a UTF-8 path");
    let run = run(sandbox, workspace, &["plan", config, "--detailed-exitcode"]);
    match run.code {
        0 => false,
        2 => true,
        _ => panic!("plan failed: {run:?}"),
    }
}

/// Requests that write (anything but GET) in the sandbox's log.
pub fn writes(sandbox: &SandboxHandle) -> Vec<String> {
    sandbox
        .request_log()
        .into_iter()
        .filter(|entry| entry.method != "GET")
        .map(|entry| format!("{} {}", entry.method, entry.route))
        .collect()
}

/// The managed stack's dashboards of `analytics`.
pub fn dashboards(sandbox: &SandboxHandle) -> Vec<Value> {
    let client = common::Client::new(sandbox);
    let answer = client.cloud(
        "GET",
        &format!("/services/{ANALYTICS}/stack/dashboards"),
        None,
    );
    answer.result().as_array().cloned().unwrap_or_default()
}

/// The managed stack's alerts of `analytics`.
pub fn alerts(sandbox: &SandboxHandle) -> Vec<Value> {
    let client = common::Client::new(sandbox);
    let answer = client.cloud("GET", &format!("/services/{ANALYTICS}/stack/alerts"), None);
    answer.result().as_array().cloned().unwrap_or_default()
}

/// The standalone observability API's dashboards.
pub fn standalone_dashboards(sandbox: &SandboxHandle) -> Vec<Value> {
    let client = common::Client::new(sandbox);
    client
        .obs("GET", "/dashboards", None)
        .data()
        .as_array()
        .cloned()
        .unwrap_or_default()
}

/// The `analytics` service as listed.
pub fn analytics(sandbox: &SandboxHandle) -> Value {
    let client = common::Client::new(sandbox);
    let services = client.cloud("GET", "/services", None).result();
    services
        .as_array()
        .and_then(|list| list.iter().find(|s| s["id"] == ANALYTICS).cloned())
        .expect("analytics is listed")
}

/// The names of objects, sorted (duplicates kept, so they show).
pub fn names(objects: &[Value]) -> Vec<String> {
    let mut names: Vec<String> = objects
        .iter()
        .map(|o| o["name"].as_str().unwrap_or_default().to_string())
        .collect();
    names.sort();
    names
}
