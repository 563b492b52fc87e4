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
