//! Writes whose outcome converge cannot know: the server may have acted though no answer (or
//! an error) came back. The report says so, "may have been applied", rather than "failed" or
//! "not written", and points at `converge plan`.

use converge::sandbox::SandboxOptions;

use super::concurrent::boards;
use super::*;
use crate::common::{self, words};

#[test]
fn a_create_whose_answer_was_lost_and_whose_re_read_failed_may_have_been_applied() {
    let sandbox = common::sandbox(SandboxOptions {
        rate_limit: false,
        faults: "lost@POST=1".parse().unwrap(),
        ..SandboxOptions::default()
    });
    // From the moment the create's answer is lost, every read fails.
    let switch = sandbox.fault_switch();
    sandbox.observe(move |entry| {
        if entry.method == "POST" && entry.fault.as_deref() == Some("lost") {
            switch.set("500@GET=1".parse().unwrap());
        }
    });
    let workspace = Workspace::new();
    let config = workspace.write("converge.yaml", &boards(1, "team-a"));
    let applied =
        binary(&sandbox, &workspace)
            .no_retry_delay()
            .run(["apply", config.as_str(), "--yes"]);
    applied.assert_exit(1);
    let stderr = words(&applied.stderr);
    assert!(
        stderr.contains("failed dashboard.prod.d000 (create dashboard): ")
            && stderr.contains("may have been applied; run `converge plan` to see"),
        "{}",
        applied.stderr
    );
    assert!(!stderr.contains("not created"), "{}", applied.stderr);
    // It had landed.
    sandbox.fault_switch().set(Default::default());
    assert_eq!(
        names(&dashboards(&sandbox)),
        ["Board 000", "On-call overview"]
    );
}

#[test]
fn a_504_on_an_update_that_landed_may_have_been_applied() {
    let sandbox = common::sandbox(SandboxOptions {
        rate_limit: false,
        faults: "504@PATCH=1".parse().unwrap(),
        ..SandboxOptions::default()
    });
    let workspace = Workspace::new();
    let config = workspace.write("converge.yaml", &quickstart());
    let applied =
        binary(&sandbox, &workspace)
            .no_retry_delay()
            .run(["apply", config.as_str(), "--yes"]);
    applied.assert_exit(1);
    let stderr = words(&applied.stderr);
    assert!(
        stderr.contains("failed service.analytics.scaling (update service scaling): ")
            && stderr.contains("answered 504")
            && stderr.contains("may have been applied; run `converge plan` to see"),
        "{}",
        applied.stderr
    );
    // It had landed.
    assert_eq!(analytics(&sandbox)["numReplicas"].as_f64(), Some(3.0));
}
