//! A server that stores names differently from how they were sent (white space collapsed):
//! converge matches them as the server stores them, so the next apply creates nothing, and says
//! how the name is stored.

use converge::sandbox::{Quirk, SandboxOptions};

use super::*;
use crate::common;

#[test]
fn a_name_the_server_stores_with_spaces_collapsed_is_created_once_and_the_user_is_told() {
    let sandbox = common::sandbox(SandboxOptions {
        rate_limit: false,
        quirks: vec![Quirk::CollapseSpaces],
        ..SandboxOptions::default()
    });
    let workspace = Workspace::new();
    let converge = binary(&sandbox, &workspace);
    let config = quickstart()
        .replace("name: API health", "name: \"API  health\"")
        .replace("name: API errors", "name: \"API   errors \"");
    let config = workspace.write("converge.yaml", &config);
    let path = config.as_str();

    let first = converge.run(["apply", path, "--yes"]);
    first.assert_exit(0);
    assert!(
        first
            .stderr
            .contains("the server stored its name as \"API health\" (sent \"API  health\")"),
        "{}",
        first.stderr
    );

    sandbox.reset_log();
    let second = converge.run(["apply", path, "--yes"]);
    second.assert_exit(0);
    assert!(
        second.stderr.contains("nothing to apply"),
        "{}",
        second.stderr
    );
    assert_eq!(writes(&sandbox), Vec::<String>::new());
    // Told at the config line, for the dashboard and the alert.
    for (line, stored) in [(45, "API health"), (75, "API errors")] {
        let at = format!("converge.yaml:{line}:");
        assert!(second.stderr.contains(&at), "{at}: {}", second.stderr);
        let told = format!("the server stores this name as \"{stored}\"");
        assert!(second.stderr.contains(&told), "{told}: {}", second.stderr);
    }
    assert_eq!(
        names(&dashboards(&sandbox)),
        ["API health", "On-call overview"]
    );
    assert_eq!(names(&alerts(&sandbox)), ["API errors", "Error burst"]);
}
