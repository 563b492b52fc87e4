//! Many stacks on one server (issue 38): a template fanned out to a hundred environments reads
//! the server's lists once, not once per stack, in plan, apply and drift. Request counts come
//! from the sandbox's log.

use crate::common::{self, Converge};

/// The stack template of `examples/stack-templates.yaml`, fanned out to `count` environments.
fn fan_out(count: usize) -> String {
    let example = std::fs::read_to_string(common::root().join("examples/stack-templates.yaml"))
        .expect("the example");
    let start = example.find("    forEach:\n").expect("a forEach");
    let entries: String = (0..count)
        .map(|i| format!("      - {{ key: e{i:03}, env: e{i:03} }}\n"))
        .collect();
    format!("{}    forEach:\n{entries}", &example[..start])
}

/// The observability requests of the sandbox's log, as `METHOD route`.
fn observability_requests(sandbox: &converge::sandbox::SandboxHandle) -> Vec<String> {
    sandbox
        .request_log()
        .iter()
        .filter(|e| e.route.starts_with("/api/v2"))
        .map(|e| format!("{} {}", e.method, e.route))
        .collect()
}

#[test]
fn a_plan_of_a_hundred_stacks_on_one_server_reads_its_three_lists_once() {
    let sandbox = common::fast_sandbox();
    let converge = Converge::new(&sandbox).fast().config(&fan_out(100));
    let out = converge.run(["plan", "--detailed-exitcode"]);
    assert_eq!(out.code, 2, "{out:?}");
    assert!(
        out.stdout.starts_with("Plan: 300 to create,"),
        "{}",
        out.stdout.lines().next().unwrap_or_default()
    );
    let mut requests = observability_requests(&sandbox);
    requests.sort();
    assert_eq!(
        requests,
        [
            "GET /api/v2/alerts",
            "GET /api/v2/dashboards",
            "GET /api/v2/sources"
        ]
    );
    // drift reads the same way.
    converge.run(["drift"]);
    assert_eq!(observability_requests(&sandbox).len(), 6);
}

/// An apply of thirty stacks from one template (90 creates) on one server, under the
/// observability token's limit (scaled to a second): within one window's requests of the floor
/// (the creates and the plan's three reads), no 429. Each stack reading its own lists cost 257,
/// and each dashboard's check for copies reading the list on its own 155.
#[test]
fn an_apply_of_thirty_stacks_stays_within_a_window_of_the_floor() {
    let sandbox = common::sandbox(converge::sandbox::SandboxOptions {
        rate_limit: true,
        rate_window_divisor: 60,
        ..converge::sandbox::SandboxOptions::default()
    });
    let converge = Converge::new(&sandbox)
        .env("CONVERGE_CLOUD_RATE_LIMIT", "10/1s")
        .env("CONVERGE_OBSERVABILITY_RATE_LIMIT", "100/1s")
        .config(&fan_out(30));
    converge.run(["apply", "--yes"]).assert_exit(0);
    let requests = observability_requests(&sandbox);
    // Each stack's dashboard is waited for by its alert, so its create is checked for a copy
    // another run made before the alert goes: the creates running together share one read for
    // those checks (26 reads of the dashboards list when each read its own, 12 on a quiet
    // machine now: the plan's, the checks before the creates, one per batch after them).
    let dashboards = requests
        .iter()
        .filter(|r| *r == "GET /api/v2/dashboards")
        .count();
    assert!(
        dashboards <= 16,
        "{dashboards} reads of the dashboards: {requests:?}"
    );
    let writes = requests.iter().filter(|r| r.starts_with("POST ")).count();
    assert_eq!(writes, 90, "{requests:?}");
    let floor = writes + 3;
    assert!(
        requests.len() <= floor + 100,
        "{} requests for 90 creates (floor {floor}): {requests:?}",
        requests.len()
    );
    assert!(sandbox.request_log().iter().all(|e| e.status != 429));
    converge.run(["plan", "--detailed-exitcode"]).assert_exit(0);
}
