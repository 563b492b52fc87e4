//! One stack written in two files (issue 40, part 3) on both servers: a team keeps a file per
//! area of its stack; the dashboards and alerts of both files are one stack's, applied once,
//! planned empty after, and neither file's objects are another stack's.

use crate::common::Workspace;

use super::{HEAD, Target, apply_then_empty, on_both};

/// A dashboard `key` named `name` with one tile, written under a stack's `dashboards:`.
fn dashboard(key: &str, name: &str) -> String {
    format!(
        "      {key}:\n        name: {name}\n        tiles:\n          - name: Requests\n            x: 0\n            y: 0\n            w: 12\n            h: 4\n            series:\n              - type: time\n                source: Logs\n                aggFn: count\n"
    )
}

/// An alert `key` on dashboard `on`'s `Requests` tile.
fn alert(key: &str, name: &str, on: &str) -> String {
    format!(
        "      {key}:\n        name: {name}\n        dashboard: {on}\n        tile: Requests\n        threshold: 10\n        thresholdType: above\n        interval: 5m\n        channel: {{ type: webhook, webhookId: 65f5e4a3b9e77c001a789012 }}\n        message: {name} of platform\n"
    )
}

/// The stack `platform` in two files: the settings and the API's dashboard and alert in the
/// first, the web's in the second (the web alert on the API's dashboard across the files).
fn a_stack_split_across_two_files(target: &Target) {
    let workspace = Workspace::new();
    workspace.write(
        "10-api.yaml",
        &format!(
            "{HEAD}stacks:\n  platform:\n    api: observability\n    prune: true\n    dashboards:\n{}    alerts:\n{}",
            dashboard("api", "Platform API"),
            alert("api-errors", "API errors", "api")
        ),
    );
    workspace.write(
        "20-web.yaml",
        &format!(
            "stacks:\n  platform:\n    dashboards:\n{}    alerts:\n{}{}",
            dashboard("web", "Platform web"),
            alert("web-errors", "Web errors", "web"),
            alert("web-on-api", "Web on API", "api")
        ),
    );
    let dir = workspace.path().to_string_lossy().into_owned();
    let converge = target.converge().cwd(&workspace);
    apply_then_empty(target, &converge, &dir);
    let mut names: Vec<String> = target
        .dashboards()
        .iter()
        .filter_map(|d| d["name"].as_str().map(str::to_string))
        .collect();
    names.sort();
    assert_eq!(names, ["Platform API", "Platform web"], "{}", target.name());
    assert_eq!(target.alerts().len(), 3, "{}", target.name());
}
on_both!(a_stack_split_across_two_files);
