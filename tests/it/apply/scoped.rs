//! Applying one change of a large estate reads only the lists that change needs: `--only`
//! reads its addresses' lists, `apply --plan` the lists its steps live in. Counted from the
//! sandbox's request log, under the real rate limits where the issue asks for them.

use converge::sandbox::{SandboxOptions, Seed, large_config_changing_alert};

use super::*;
use crate::common;

/// `(method route, status)` of every request, in order.
fn requests(sandbox: &SandboxHandle) -> Vec<(String, u16)> {
    sandbox
        .request_log()
        .into_iter()
        .map(|entry| (format!("{} {}", entry.method, entry.route), entry.status))
        .collect()
}

#[test]
fn apply_only_one_alert_of_the_large_seed_makes_five_requests_under_the_real_limits() {
    // One alert of each stack: the managed stack's go through the cloud key (10 per 10 s),
    // the standalone one's through the observability token.
    for (n, prefix, id) in [
        (
            0,
            "/v1/organizations/{organizationId}/services/{serviceId}/stack",
            "{alertId}",
        ),
        (999, "/api/v2", "{id}"),
    ] {
        let sandbox = common::sandbox(SandboxOptions {
            seed: Seed::Large,
            rate_limit: true,
            ..SandboxOptions::default()
        });
        let workspace = Workspace::new();
        let (text, address) = large_config_changing_alert(n);
        let config = workspace.write("large.yaml", &text);
        // The client paces itself to the real limits too (no `CONVERGE_*_RATE_LIMIT`).
        let out = Converge::new(&sandbox).cwd(&workspace).run([
            "apply",
            config.as_str(),
            "--yes",
            "--format",
            "json",
            "--only",
            &address,
        ]);
        out.assert_exit(0);
        let stderr = &out.stderr;
        let lists = |name: &str| (format!("GET {prefix}/{name}"), 200);
        let mut reads = requests(&sandbox);
        let write = reads.pop();
        assert_eq!(
            write,
            Some((format!("PUT {prefix}/alerts/{id}"), 200)),
            "{reads:?}"
        );
        // Its stack's three lists (in any order), then the alerts again right before the write.
        let again = reads.pop();
        assert_eq!(again, Some(lists("alerts")), "{reads:?}");
        reads.sort();
        assert_eq!(
            reads,
            [lists("alerts"), lists("dashboards"), lists("sources")],
            "{address}"
        );
        let report = out.json();
        assert_eq!(report["only"], serde_json::json!([address]));
        assert_eq!(report["summary"]["done"], 1);
        assert!(
            stderr.contains("reading the live state of 1 stack"),
            "{stderr}"
        );
    }
}

#[test]
fn apply_plan_checks_only_the_lists_its_changes_live_in() {
    let sandbox = common::sandbox(SandboxOptions {
        seed: Seed::Large,
        rate_limit: false,
        ..SandboxOptions::default()
    });
    let workspace = Workspace::new();
    let converge = binary(&sandbox, &workspace);
    let (text, address) = large_config_changing_alert(0);
    let config = workspace.write("large.yaml", &text);
    let saved = workspace.file("plan.json");
    // A whole plan of the estate with one change in it.
    let plan = converge.run(["plan", config.as_str(), "--out", saved.as_str()]);
    plan.assert_exit(0);
    assert!(
        plan.stdout.starts_with("Plan: 0 to create, 1 to update"),
        "{}",
        plan.stdout
    );
    sandbox.reset_log();
    let applied = converge.run(["apply", "--plan", saved.as_str(), "--yes"]);
    applied.assert_exit(0);
    assert!(
        applied.stderr.contains(&format!("done     {address}")),
        "{}",
        applied.stderr
    );
    let mut log = requests(&sandbox);
    let stack = "/v1/organizations/{organizationId}/services/{serviceId}/stack";
    assert_eq!(
        log.pop(),
        Some((format!("PUT {stack}/alerts/{{alertId}}"), 200))
    );
    // Before the write: the check's reads of the alerts list and of the dashboards list (the
    // alert's dashboard and tile names it shows are checked against them), the dashboards list
    // the alert's target is found in by those names when the step runs (a saved plan's ids are
    // not trusted), and the step's own re-read; nothing of the 20 services, 100 pipes or the
    // other stack.
    assert!(log.len() <= 4, "{log:?}");
    log.sort();
    assert_eq!(
        log,
        [
            (format!("GET {stack}/alerts"), 200),
            (format!("GET {stack}/alerts"), 200),
            (format!("GET {stack}/dashboards"), 200),
            (format!("GET {stack}/dashboards"), 200),
        ]
    );
}
