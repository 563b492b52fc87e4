//! `plan --check-queries` sends each dashboard the plan creates or updates to the server's
//! `POST .../dashboards/validate` (both APIs of today's generation), exactly once, and none
//! without the flag or for an unchanged dashboard; a dashboard the server finds invalid is an
//! error at its line with the server's words; a server of the contract's generation, which has
//! no such endpoint, is said once and the run goes on. And the in-process `--sandbox` answering
//! as either generation (`--sandbox-generation`, `CONVERGE_SANDBOX_GENERATION`).

use serde_json::Value;

use crate::common::{self, Converge, Workspace, converge_snapshot};

const OBS_VALIDATE: &str = "/api/v2/dashboards/validate";
const MANAGED_VALIDATE: &str =
    "/v1/organizations/{organizationId}/services/{serviceId}/stack/dashboards/validate";

/// Two dashboards on the observability API; `WHERE` is the first one's tile filter.
const TWO_BOARDS: &str = r#"version: 1
organization: ${env:CONVERGE_ORG_ID}
observability:
  url: ${env:CONVERGE_OBSERVABILITY_URL}
  token: ${env:CONVERGE_OBS_TOKEN}
stacks:
  obs:
    api: observability
    dashboards:
      api-health:
        name: API health
        tiles:
          - name: Requests
            x: 0
            y: 0
            w: 6
            h: 4
            series:
              - type: time
                source: Logs
                aggFn: count
                where: "WHERE"
      billing:
        name: Billing
        tiles:
          - name: Invoices
            x: 0
            y: 0
            w: 6
            h: 4
            series:
              - type: number
                source: Logs
                aggFn: count
                where: "service:billing"
"#;

fn boards(filter: &str) -> String {
    TWO_BOARDS.replace("WHERE", filter)
}

/// The names of the dashboards the validate requests of `sandbox`'s log carried.
fn validated(sandbox: &converge::sandbox::SandboxHandle) -> Vec<String> {
    sandbox
        .request_log()
        .iter()
        .filter(|e| e.route == OBS_VALIDATE || e.route == MANAGED_VALIDATE)
        .map(|e| {
            let body: Value = serde_json::from_str(e.request_body.as_deref().unwrap_or("null"))
                .expect("the log keeps the body");
            body["name"].as_str().unwrap_or_default().to_string()
        })
        .collect()
}

fn recording_sandbox() -> converge::sandbox::SandboxHandle {
    common::sandbox(converge::sandbox::SandboxOptions {
        rate_limit: false,
        log_bodies: true,
        ..converge::sandbox::SandboxOptions::default()
    })
}

/// One validate request per created or updated dashboard, none for an unchanged one, none
/// without the flag.
#[test]
fn check_queries_validates_each_changed_dashboard_once() {
    let sandbox = recording_sandbox();
    let converge = Converge::new(&sandbox).fast();
    let first = converge.clone().config(&boards("service:api"));

    first.run(["plan"]).assert_exit(0);
    assert_eq!(
        validated(&sandbox),
        Vec::<String>::new(),
        "no flag, no request"
    );

    let out = first.run(["plan", "--check-queries"]);
    out.assert_exit(0);
    let mut names = validated(&sandbox);
    names.sort();
    assert_eq!(names, ["API health", "Billing"]);
    first.run(["apply", "--yes"]).assert_exit(0);

    sandbox.reset_log();
    let out = first.run(["plan", "--check-queries"]);
    out.assert_exit(0);
    assert_eq!(validated(&sandbox), Vec::<String>::new(), "nothing changed");

    // Only the dashboard whose tile changed is validated, with the body apply would send.
    let changed = converge.config(&boards("service:web"));
    let out = changed.run(["plan", "--check-queries"]);
    converge_snapshot!("validate_one_changed_dashboard", out);
    assert_eq!(validated(&sandbox), ["API health"]);
    let log = sandbox.request_log();
    let sent = log
        .iter()
        .find(|e| e.route == OBS_VALIDATE)
        .and_then(|e| e.request_body.as_deref())
        .expect("a body");
    let sent: Value = serde_json::from_str(sent).expect("JSON");
    let live = common::standalone_dashboards(&sandbox);
    let live = live
        .iter()
        .find(|d| d["name"] == "API health")
        .expect("applied");
    assert_eq!(
        sent["tiles"][0]["id"], live["tiles"][0]["id"],
        "the update's body keeps the tile's id"
    );
    assert_eq!(
        sent["tiles"][0]["config"]["select"][0]["where"],
        "service:web"
    );
}

/// The managed stack has no charts/series, but it has dashboard validation.
#[test]
fn the_managed_stack_validates_its_dashboards() {
    let sandbox = recording_sandbox();
    let dir = Workspace::new();
    let quickstart = common::quickstart_path();
    let converge = Converge::new(&sandbox).fast().cwd(&dir);
    let out = converge.run(["plan", "--check-queries", &quickstart]);
    out.assert_exit(0);
    assert_eq!(common::count(&sandbox, "POST", MANAGED_VALIDATE), 1);
    assert_eq!(common::count(&sandbox, "POST", "/api/v2/charts/series"), 0);
    let words = common::words(&out.stderr);
    assert!(
        words.contains(
            "check-queries: 1 dashboard(s) passed the server's validation in 1 request(s)"
        ),
        "{words}"
    );
}

/// A source id today's servers refuse (not an ObjectId) on a stack with no dashboards yet, so
/// no tile tells converge the stack's generation before the write: the server's validation
/// says it, the dashboard is an error at its key with the server's words and the tile it
/// names; exit 1.
#[test]
fn a_dashboard_the_server_rejects_is_an_error_at_its_line() {
    let sandbox = recording_sandbox();
    let text = boards("service:api").replacen("source: Logs", "sourceId: logs-1", 1);
    let out = Converge::new(&sandbox)
        .fast()
        .config_as("obs.yaml", &text)
        .run(["plan", "--check-queries"]);
    converge_snapshot!("validate_rejected_dashboard", out);
    assert_eq!(validated(&sandbox).len(), 2);
}

/// Servers of the contract's generation have no validate endpoint: said once per stack, the
/// tiles' queries still run, exit 0.
#[test]
fn a_server_without_the_endpoint_is_said_once() {
    let sandbox = common::contract_sandbox();
    let out = Converge::new(&sandbox)
        .fast()
        .config_as("obs.yaml", &boards("service:api"))
        .run(["plan", "--check-queries"]);
    converge_snapshot!("validate_without_endpoint", out);
    assert_eq!(common::count(&sandbox, "POST", OBS_VALIDATE), 2);
}

/// `plan --sandbox` under the contract's generation sees `series` tiles (export writes them) and
/// plans empty after `apply --sandbox` in it; the flag and the environment variable agree.
#[test]
fn the_in_process_sandbox_answers_as_the_contract_generation_when_asked() {
    let dir = Workspace::new();
    let quickstart = common::quickstart_path();
    let contract = Converge::offline()
        .cwd(&dir)
        .env("CONVERGE_SANDBOX_GENERATION", "contract");
    contract
        .run(["apply", "--sandbox", "--yes", &quickstart])
        .assert_exit(0);
    contract
        .run(["plan", "--sandbox", "--detailed-exitcode", &quickstart])
        .assert_exit(0);
    let export = |converge: &Converge, extra: &[&str]| {
        let out = converge.run(
            ["export", "--sandbox", "--stack", common::ANALYTICS]
                .iter()
                .chain(extra),
        );
        out.assert_exit(0);
        out.stdout
    };
    let series = export(&contract, &[]);
    assert!(series.contains("series:"), "{series}");
    assert!(!series.contains("displayType"), "{series}");
    let flag = Converge::offline().cwd(&dir);
    assert_eq!(export(&flag, &["--sandbox-generation", "contract"]), series);
    // The same state, answered as today's servers do (the default): tiles as `config`.
    let today = export(&flag, &[]);
    assert!(today.contains("displayType"), "{today}");
    flag.run(["plan", "--sandbox", "--detailed-exitcode", &quickstart])
        .assert_exit(0);
}
