//! `converge apply` through the real binary against the sandbox: execution, refusals, stale
//! saved plans, failures and idle services, `--wait`, faults, interruption and convergence as a
//! property.

mod ambiguous;
mod basics;
pub(crate) mod concurrent;
mod dedupe;
mod dedupe_exact;
mod faults;
mod floor;
mod interrupt;
mod names;
mod pacing;
mod property;
mod race;
mod saved_shown;
mod saved_tamper;
mod saved_trust;
mod scoped;
mod terminal;
mod windows;

use converge::sandbox::SandboxHandle;

pub use crate::common::{
    ANALYTICS, Converge, Outcome, Workspace, alerts, analytics, dashboards, names, quickstart,
    standalone_dashboards, writes,
};

/// The binary against `sandbox`, run in `workspace`. The sandboxes here enforce no rate limit;
/// the client need not pace itself to the real one.
pub fn binary<'s>(sandbox: &'s SandboxHandle, workspace: &Workspace) -> Converge<'s> {
    Converge::new(sandbox).rate_limit("1000/1s").cwd(workspace)
}

/// `plan CONFIG --out plan.json` in `workspace` (asserting success): the saved plan's path.
pub fn save_plan(converge: &Converge, workspace: &Workspace, config: &str) -> String {
    let saved = workspace.file("plan.json");
    converge
        .run(["plan", config, "--out", &saved])
        .assert_exit(0);
    saved
}

/// `plan --detailed-exitcode` on `config`: whether it plans any change (panics on an error).
pub fn plans_changes(sandbox: &SandboxHandle, workspace: &Workspace, config: &str) -> bool {
    let run = binary(sandbox, workspace).run(["plan", config, "--detailed-exitcode"]);
    match run.code {
        0 => false,
        2 => true,
        _ => panic!("plan failed: {run:?}"),
    }
}
