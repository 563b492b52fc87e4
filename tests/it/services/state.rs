//! A service's `state:` through `PATCH .../state` (issue 34, item 3): a stop says it idles
//! ingestion of the service's pipes and goes after the scaling change of the same service, a
//! start goes back; an idle service counts as running; saved plans of settings and state pass
//! their trust checks and apply.

use serde_json::{Value, json};

use super::{apply_then_empty, logged, services};
use crate::common::{ANALYTICS, Client, Converge, Workspace, converge_snapshot};

const STATE: &str = "PATCH /services/{serviceId}/state";
const REPLICA: &str = "PATCH /services/{serviceId}/replicaScaling";

#[test]
fn a_stop_idles_ingestion_and_comes_after_the_scaling_change() {
    let sandbox = logged();
    let stopped = services(
        "    scaling:\n      numReplicas: 3\n    state: stopped\n",
        "",
    );
    let converge = Converge::new(&sandbox).fast().config(&stopped);
    converge_snapshot!("stop_plan", converge.run(["plan"]));
    let json = converge.run(["plan", "--format", "json"]).json();
    let steps = json["steps"].as_array().unwrap();
    let at = |address: &str| {
        steps
            .iter()
            .position(|s| s["address"] == address)
            .unwrap_or_else(|| panic!("no step at {address}: {steps:?}"))
    };
    let (scaling, state) = (
        at("service.analytics.scaling"),
        at("service.analytics.state"),
    );
    assert!(
        steps[state]["dependsOn"]
            .as_array()
            .is_some_and(|d| d.contains(&steps[scaling]["id"])),
        "{steps:?}"
    );
    let writes = apply_then_empty(&sandbox, &stopped);
    assert_eq!(
        writes,
        [
            (REPLICA.to_string(), json!({"numReplicas": 3})),
            (STATE.to_string(), json!({"command": "stop"})),
        ]
    );
    let live = Client::new(&sandbox)
        .cloud("GET", &format!("/services/{ANALYTICS}"), None)
        .result();
    assert_eq!(live["state"], "stopped");
    // Back to running.
    let running = services("    state: running\n", "");
    let writes = apply_then_empty(&sandbox, &running);
    assert_eq!(writes, [(STATE.to_string(), json!({"command": "start"}))]);
}

#[test]
fn an_idle_service_is_running_for_state() {
    let sandbox = logged();
    // The demo's `reporting` is idle: `state: running` plans nothing (`--wake` wakes it).
    let config = services("", "    state: running\n");
    let writes = apply_then_empty(&sandbox, &config);
    assert!(writes.is_empty(), "{writes:?}");
}

#[test]
fn saved_plans_of_settings_and_state_apply_after_their_checks() {
    let sandbox = logged();
    let workspace = Workspace::new();
    let config = workspace.write(
        "converge.yaml",
        &services(
            "    ipAccessList:\n      - source: 10.0.0.0/8\n        description: office\n    \
             tags:\n      team: data\n    releaseChannel: fast\n    endpoints:\n      mysql: true\n    \
             state: stopped\n",
            "",
        ),
    );
    let saved = workspace.file("plan.json");
    let converge = Converge::new(&sandbox).fast().cwd(&workspace);
    converge
        .run(["plan", &config, "--out", &saved])
        .assert_exit(0);
    sandbox.reset_log();
    converge
        .run(["apply", "--plan", &saved, "--yes"])
        .assert_exit(0);
    let routes: Vec<String> = super::written(&sandbox).into_iter().map(|w| w.0).collect();
    assert_eq!(
        routes,
        [
            "PATCH /services/{serviceId}",
            "PATCH /services/{serviceId}",
            "PATCH /services/{serviceId}",
            "PATCH /services/{serviceId}",
            STATE,
        ]
    );
    converge
        .run(["plan", &config, "--detailed-exitcode"])
        .assert_exit(0);
    // A saved step that sends more than its change shows is refused.
    converge
        .run(["plan", &config, "--out", &saved])
        .assert_exit(0);
    let edited = workspace.write(
        "converge.yaml",
        &services(
            "    ipAccessList:\n      - source: 10.0.0.0/8\n        description: office\n      \
             - source: 192.0.2.0/24\n        description: lab\n",
            "",
        ),
    );
    converge
        .run(["plan", &edited, "--out", &saved])
        .assert_exit(0);
    let mut plan: Value = serde_json::from_str(&workspace.read("plan.json")).unwrap();
    let step = &mut plan["plan"]["steps"][0];
    assert_eq!(step["address"], "service.analytics.ipAccessList");
    step["operation"]["body"]["ipAccessList"]["add"][0]["source"] = json!("0.0.0.0/0");
    workspace.write("plan.json", &plan.to_string());
    sandbox.reset_log();
    let refused = converge.run(["apply", "--plan", &saved, "--yes"]);
    refused.assert_exit(1);
    let stderr = crate::common::words(&refused.stderr);
    assert!(
        stderr.contains(&crate::common::words(
            "service.analytics.ipAccessList: the step writes"
        )),
        "{}",
        refused.stderr
    );
    assert!(super::written(&sandbox).is_empty());
}

#[test]
fn a_start_comes_before_the_pipe_writes_of_its_service() {
    let sandbox = logged();
    let client = Client::new(&sandbox);
    let stop = client.cloud(
        "PATCH",
        &format!("/services/{ANALYTICS}/state"),
        Some(json!({"command": "stop"})),
    );
    assert_eq!(stop.status, 200, "{}", stop.text);
    let orders = crate::sandbox::ORDERS;
    let config = services(
        &format!(
            "    state: running\n    pipes:\n      orders:\n        id: {orders}\n        \
             scaling: {{ replicas: 3 }}\n"
        ),
        "",
    );
    let converge = Converge::new(&sandbox).fast().config(&config);
    let planned = converge.run(["plan"]);
    assert!(!planned.stderr.contains("424"), "{}", planned.stderr);
    assert!(
        planned
            .stdout
            .contains("2. pipe.analytics.orders.scaling (after 1)"),
        "{}",
        planned.stdout
    );
    let writes = apply_then_empty(&sandbox, &config);
    let routes: Vec<&str> = writes.iter().map(|w| w.0.as_str()).collect();
    assert_eq!(
        routes,
        [STATE, "PATCH /services/{serviceId}/pipes/{pipeId}/scaling"]
    );
    // Stopped again with the pipes read: the plan names how many pipes stop ingesting.
    let stopping = config.replace("state: running", "state: stopped");
    let planned = Converge::new(&sandbox)
        .fast()
        .config(&stopping)
        .run(["plan"]);
    assert!(
        planned
            .stdout
            .contains("stopping the service idles ingestion of its 4 pipes"),
        "{}",
        planned.stdout
    );
}
