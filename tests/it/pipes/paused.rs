//! Never left paused by converge (issue 41, part 4), through the binary against the sandbox: a
//! run applying a table-mapping change to a pipe without `state:` is killed (SIGKILL) after
//! each of its writes in turn — the mark on the service, the stop, the edit — and one more
//! apply leaves the pipe running with the change, the plan after it empty.

use std::process::Stdio;
use std::time::Duration;

use converge::sandbox::SandboxHandle;

use crate::apply::concurrent::wait_for_requests;
use crate::common::{Converge, Workspace};
use crate::pipes::CANARIES;
use crate::pipes::state::{created, live, remapped};

/// The writes of a pause for a change, in the order a run sends them.
const WRITES: [(&str, &str); 3] = [
    (
        "PATCH",
        "/v1/organizations/{organizationId}/services/{serviceId}",
    ),
    (
        "PATCH",
        "/v1/organizations/{organizationId}/services/{serviceId}/pipes/{pipeId}/state",
    ),
    (
        "PATCH",
        "/v1/organizations/{organizationId}/services/{serviceId}/pipes/{pipeId}",
    ),
];

fn killed_after(sandbox: &SandboxHandle, converge: &Converge<'_>, path: &str, write: usize) {
    sandbox.reset_log();
    let mut child = converge
        .command(["apply", path, "--yes"])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let (method, route) = WRITES[write];
    wait_for_requests(sandbox, method, route, 1);
    child.kill().unwrap();
    child.wait().unwrap();
}

#[test]
fn a_pause_for_a_change_killed_at_any_write_is_running_after_one_more_apply() {
    for write in 0..WRITES.len() {
        // States step every 300 ms: the run is waiting for the pause when it is killed.
        let (sandbox, config) = created(Duration::from_millis(300), Vec::new());
        let workspace = Workspace::new();
        let path = workspace.write("converge.yaml", &remapped(&config));
        let converge = Converge::new(&sandbox)
            .fast()
            .envs(CANARIES)
            .cwd(&workspace);
        killed_after(&sandbox, &converge, &path, write);
        let applied = converge.run(["apply", &path, "--yes"]);
        assert_eq!(applied.code, 0, "killed after write {write}: {applied:?}");
        std::thread::sleep(Duration::from_millis(900));
        let pipe = live(&sandbox, "orders from postgres");
        assert_eq!(
            pipe["state"], "Running",
            "killed after write {write}: {applied:?}"
        );
        let plan = converge.run(["plan", &path, "--detailed-exitcode"]);
        assert_eq!(plan.code, 0, "killed after write {write}: {plan:?}");
    }
}
