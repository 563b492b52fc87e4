//! Services as teams run them (issue 34), through the binary against the sandbox: scaling
//! through `replicaScaling` with its modes, and the deprecated totals' path.

mod conformance;
mod scaling;
mod settings;
mod state;

use converge::sandbox::{SandboxHandle, SandboxOptions};
use serde_json::Value;

use crate::common::Converge;

/// The demo `reporting` service (not the first of its warehouse, development tier: not paid).
pub(crate) const REPORTING: &str = "2e4f6a8b-3c5d-4e7f-8a9b-0c1d2e3f4a5b";

/// A config of the demo world's two services: `analytics` with `analytics` written under it
/// (lines indented by four spaces), `reporting` with `reporting`.
pub(crate) fn services(analytics: &str, reporting: &str) -> String {
    format!(
        "version: 1\norganization: ${{env:CONVERGE_ORG_ID}}\ncloud:\n  url: ${{env:CONVERGE_CLOUD_URL}}\n  keyId: ${{env:CONVERGE_KEY_ID}}\n  keySecret: ${{env:CONVERGE_KEY_SECRET}}\nservices:\n  analytics:\n    id: 1c7d8c62-0b0f-4f0e-9b2e-6a3c8a3b7e11\n{analytics}  reporting:\n    id: {REPORTING}\n{reporting}"
    )
}

/// A sandbox without rate limits that logs request bodies.
pub(crate) fn logged() -> SandboxHandle {
    crate::common::sandbox(SandboxOptions {
        rate_limit: false,
        log_bodies: true,
        ..SandboxOptions::default()
    })
}

/// The writes of the sandbox's log, in order, as `(METHOD route, body)`.
pub(crate) fn written(sandbox: &SandboxHandle) -> Vec<(String, Value)> {
    sandbox
        .request_log()
        .into_iter()
        .filter(|e| e.method != "GET")
        .map(|e| {
            let body = e
                .request_body
                .as_deref()
                .and_then(|b| serde_json::from_str(b).ok())
                .unwrap_or(Value::Null);
            let route = e
                .route
                .trim_start_matches("/v1/organizations/{organizationId}")
                .to_string();
            (format!("{} {route}", e.method), body)
        })
        .collect()
}

/// Applies `config` and asserts the plan after it is empty; returns the writes it made.
pub(crate) fn apply_then_empty(sandbox: &SandboxHandle, config: &str) -> Vec<(String, Value)> {
    sandbox.reset_log();
    let converge = Converge::new(sandbox).fast().config(config);
    let applied = converge.run(["apply", "--yes"]);
    assert_eq!(applied.code, 0, "{applied:?}");
    let writes = written(sandbox);
    converge.run(["plan", "--detailed-exitcode"]).assert_exit(0);
    writes
}

/// `validate` offline with the connection variables set, so only the config's own problems
/// show.
pub(crate) fn validate(config: &str) -> crate::common::Outcome {
    Converge::offline()
        .env("CONVERGE_ORG_ID", "7d3f6a2e-0c1b-4e5f-9a8b-1c2d3e4f5a6b")
        .env("CONVERGE_CLOUD_URL", "http://127.0.0.1:9")
        .env("CONVERGE_KEY_ID", "key")
        .env("CONVERGE_KEY_SECRET", "secret")
        .config(config)
        .run(["validate"])
}
