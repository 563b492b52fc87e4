//! What the tests of each newer pipe kind (`mysql.rs`, `mongodb.rs`, `gcp.rs`) share: the routes
//! they count, the writes of the sandbox's log with their bodies, a pipe created from its
//! declaration, and the check that no credential value was printed.

use std::time::Duration;

use converge::sandbox::{SandboxHandle, SandboxOptions};
use serde_json::Value;

use crate::common::{Converge, Outcome};
use crate::pipes::analytics_with;

/// A pipe's create.
pub(crate) const CREATE: &str =
    "POST /v1/organizations/{organizationId}/services/{serviceId}/pipes";
/// A pipe's edit.
pub(crate) const EDIT: &str =
    "PATCH /v1/organizations/{organizationId}/services/{serviceId}/pipes/{pipeId}";
/// A pipe's start or stop.
pub(crate) const STATE: &str =
    "PATCH /v1/organizations/{organizationId}/services/{serviceId}/pipes/{pipeId}/state";

/// Credential variables and the values no output may ever hold.
pub(crate) type Secrets = [(&'static str, &'static str); 2];

/// Fails when `outcome` printed one of the `secrets`' values.
pub(crate) fn assert_no_secret(outcome: &Outcome, secrets: &[(&str, &str)]) {
    for (_, secret) in secrets {
        assert!(
            !outcome.stdout.contains(secret) && !outcome.stderr.contains(secret),
            "a credential value was printed: {outcome:?}"
        );
    }
}

/// The writes the log holds, in order, as (`METHOD route`, body).
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
            (format!("{} {}", e.method, e.route), body)
        })
        .collect()
}

/// [`written`] without the service's own `PATCH`es (its tags, where converge keeps its marks).
pub(crate) fn pipe_writes(sandbox: &SandboxHandle) -> Vec<(String, Value)> {
    written(sandbox)
        .into_iter()
        .filter(|(write, _)| !write.ends_with("{serviceId}"))
        .collect()
}

/// The pipe `declared` (an entry of `pipes:`) created with `secrets` on a sandbox whose states
/// step every 300 ms; returns the sandbox and the config.
pub(crate) fn created<const N: usize>(
    declared: &str,
    secrets: [(&'static str, &'static str); N],
) -> (SandboxHandle, String) {
    let sandbox = crate::common::sandbox(SandboxOptions {
        rate_limit: false,
        log_bodies: true,
        scaling_delay: Duration::from_millis(300),
        ..SandboxOptions::default()
    });
    let config = analytics_with(declared);
    let applied = Converge::new(&sandbox)
        .fast()
        .envs(secrets)
        .config(&config)
        .run(["apply", "--yes"]);
    assert_no_secret(&applied, &secrets);
    assert_eq!(applied.code, 0, "{applied:?}");
    std::thread::sleep(Duration::from_millis(600));
    (sandbox, config)
}
