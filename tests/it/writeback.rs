//! `converge drift --write` and `--diff` through the real binary against the sandbox: live edits
//! made through the API (a threshold, a tile's `where`, a tile moved, the replica count) are
//! written back into a config full of comments and anchors by changing exactly those values,
//! after which a plan is empty; values behind anchors, `${env:...}` and templates are listed to
//! edit by hand (exit 5) and left alone; a config directory is edited in the files that hold
//! the values; a file changed on disk while the run reads the live state is not overwritten.
//! The sandbox answers as today's servers (tiles read back as `config`), so live `config`
//! fields are written into tiles the config writes as the `series` shorthand or as `config`;
//! one test per behaviour runs on the contract's generation (tiles read back as `series`).

use serde_json::{Value, json};

use converge::sandbox::SandboxHandle;

use crate::common::{self, ANALYTICS, Client, Converge, Workspace, converge_snapshot};

/// The demo service and its managed stack as a team keeps them: comments, quoting styles, an
/// anchored scalar and an anchored mapping.
const CONFIG: &str = "# On-call config of the analytics service.
# Keep the comments: `drift --write` must leave them alone.
version: 1
organization: ${env:CONVERGE_ORG_ID}
cloud:
  url: ${env:CONVERGE_CLOUD_URL}
  keyId: ${env:CONVERGE_KEY_ID}
  keySecret: ${env:CONVERGE_KEY_SECRET}

services:
  analytics:
    id: 1c7d8c62-0b0f-4f0e-9b2e-6a3c8a3b7e11
    scaling:
      numReplicas: 2        # two outside business hours
      idleScaling: false
      idleTimeoutMinutes: 10

stacks:
  analytics:
    service: analytics
    dashboards:
      on-call-overview:
        name: 'On-call overview'
        tags: [on-call]
        tiles:
          # Errors first: people look top left.
          - name: Errors
            x: 0
            y: 0
            w: 12
            h: 4
            series:
              - type: time
                dataSource: events
                source: Logs
                aggFn: count
                where: \"level:error\"   # what pages us
                whereLanguage: lucene
    alerts:
      error-burst:
        name: Error burst
        dashboard: on-call-overview
        tile: Errors
        threshold: 50   # raised after the March incident

        thresholdType: above
        interval: &window 5m
        channel: &hook
          type: webhook
          webhookId: 65f5e4a3b9e77c001a789012
        message: Error burst crossed its threshold
";

/// A workspace holding `files` and a runner in it (paths in output stay relative).
fn setup<'s>(sandbox: &'s SandboxHandle, files: &[(&str, &str)]) -> (Workspace, Converge<'s>) {
    let workspace = Workspace::new();
    for (name, text) in files {
        if let Some(dir) = std::path::Path::new(&workspace.file(name)).parent() {
            std::fs::create_dir_all(dir).expect("the directory is made");
        }
        workspace.write(name, text);
    }
    let converge = Converge::new(sandbox).cwd(workspace.path());
    (workspace, converge)
}

/// The demo's "On-call overview" dashboard.
fn on_call(client: &Client) -> Value {
    let list = client
        .cloud(
            "GET",
            &format!("/services/{ANALYTICS}/stack/dashboards"),
            None,
        )
        .result();
    list.as_array()
        .expect("a list")
        .iter()
        .find(|d| d["name"] == "On-call overview")
        .cloned()
        .expect("the demo dashboard")
}

fn put_dashboard(client: &Client, dashboard: &Value) {
    let id = dashboard["id"].as_str().expect("an id");
    let body =
        json!({"name": dashboard["name"], "tiles": dashboard["tiles"], "tags": dashboard["tags"]});
    client
        .cloud(
            "PUT",
            &format!("/services/{ANALYTICS}/stack/dashboards/{id}"),
            Some(body),
        )
        .result();
}

/// Changes the demo alert live: `edit` gets the alert as read and returns what to change.
fn edit_alert(sandbox: &SandboxHandle, changes: Value) {
    let alert = common::alerts(sandbox)
        .into_iter()
        .find(|a| a["name"] == "Error burst")
        .expect("the demo alert");
    let id = alert["id"].as_str().expect("an alert id").to_string();
    let mut body = alert.clone();
    if body.get("dashboardId").is_none() {
        body["dashboardId"] = alert["dashboard"].clone();
    }
    if let Some(map) = body.as_object_mut() {
        for key in [
            "id",
            "createdAt",
            "updatedAt",
            "state",
            "teamId",
            "dashboard",
        ] {
            map.remove(key);
        }
        for (key, value) in changes.as_object().expect("changes").clone() {
            map.insert(key, value);
        }
    }
    Client::new(sandbox)
        .cloud(
            "PUT",
            &format!("/services/{ANALYTICS}/stack/alerts/{id}"),
            Some(body),
        )
        .result();
}

/// The incident-night edits: threshold, a tile's `where`, the tile moved, the replica count.
fn edit_live(sandbox: &SandboxHandle) {
    let client = Client::new(sandbox);
    let mut dashboard = on_call(&client);
    first_query(&mut dashboard["tiles"][0])["where"] = json!("level:error OR level:fatal");
    dashboard["tiles"][0]["x"] = json!(6);
    dashboard["tiles"][0]["y"] = json!(2);
    put_dashboard(&client, &dashboard);
    edit_alert(sandbox, json!({"threshold": 80}));
    client
        .cloud(
            "PATCH",
            &format!("/services/{ANALYTICS}/scaling"),
            Some(json!({"numReplicas": 3})),
        )
        .result();
}

/// A live tile's first query: `config.select[0]` as today's servers answer, `series[0]` in the
/// contract's generation.
fn first_query(tile: &mut Value) -> &mut Value {
    if tile.get("config").is_some_and(|c| !c.is_null()) {
        &mut tile["config"]["select"][0]
    } else {
        &mut tile["series"][0]
    }
}

/// Applies `config` so the stack carries the ownership tag and a later plan can be empty.
fn in_sync(converge: &Converge, config: &str) {
    converge.run(["apply", "--yes", config]).assert_exit(0);
    converge
        .run(["plan", "--detailed-exitcode", config])
        .assert_exit(0);
}

#[test]
fn live_edits_are_written_back_changing_only_their_values() {
    let sandbox = common::fast_sandbox();
    let (workspace, converge) = setup(&sandbox, &[("converge.yaml", CONFIG)]);
    in_sync(&converge, "converge.yaml");
    edit_live(&sandbox);

    let diff = converge.run(["drift", "--diff", "converge.yaml"]);
    converge_snapshot!("writeback_diff", diff);
    assert_eq!(
        workspace.read("converge.yaml"),
        CONFIG,
        "--diff writes nothing"
    );

    let write = converge.run(["drift", "--write", "converge.yaml"]);
    write.assert_exit(2);
    let expected = CONFIG
        .replace("numReplicas: 2 ", "numReplicas: 3 ")
        .replace(
            "            x: 0\n            y: 0",
            "            x: 6\n            y: 2",
        )
        .replace("\"level:error\"", "\"level:error OR level:fatal\"")
        .replace("threshold: 50", "threshold: 80");
    assert_eq!(workspace.read("converge.yaml"), expected);
    converge
        .run(["plan", "--detailed-exitcode", "converge.yaml"])
        .assert_exit(0);
    converge.run(["drift", "converge.yaml"]).assert_exit(0);
}

#[test]
fn values_behind_anchors_env_and_templates_are_reported_not_edited() {
    let sandbox = common::fast_sandbox();
    let config = CONFIG.replace(
        "message: Error burst crossed its threshold",
        "message: ${env:BURST_MESSAGE}",
    );
    let (workspace, converge) = setup(&sandbox, &[("converge.yaml", &config)]);
    let converge = converge.env("BURST_MESSAGE", "Error burst crossed its threshold");
    in_sync(&converge, "converge.yaml");
    edit_alert(
        &sandbox,
        json!({"interval": "15m", "message": "Burst: see the runbook"}),
    );
    let out = converge.run(["drift", "--write", "converge.yaml"]);
    converge_snapshot!("writeback_manual", out);
    assert_eq!(workspace.read("converge.yaml"), config);
}

#[test]
fn template_values_are_reported_not_edited() {
    let sandbox = common::fast_sandbox();
    let alert_start = CONFIG.find("      error-burst:").expect("the alert");
    let config = format!(
        "{}      error-burst:\n        template: burst\n        forEach:\n          - {{ key: api, name: Error burst }}\ntemplates:\n  burst:\n    parameters:\n      name: string\n    alert:\n      name: ${{name}}\n      dashboard: on-call-overview\n      tile: Errors\n      threshold: 50\n      thresholdType: above\n      interval: 5m\n      channel: {{ type: webhook, webhookId: 65f5e4a3b9e77c001a789012 }}\n      message: Error burst crossed its threshold\n",
        &CONFIG[..alert_start]
    );
    let (workspace, converge) = setup(&sandbox, &[("converge.yaml", &config)]);
    in_sync(&converge, "converge.yaml");
    edit_alert(&sandbox, json!({"threshold": 80}));
    let out = converge.run(["drift", "--write", "converge.yaml"]);
    converge_snapshot!("writeback_template", out);
    assert_eq!(workspace.read("converge.yaml"), config);
    // The place to edit is the instance's `forEach` entry, not the template's line that
    // serves every instance.
    let entry = config
        .lines()
        .position(|line| line.contains("{ key: api, name: Error burst }"))
        .expect("the entry")
        + 1;
    assert!(
        out.stderr
            .contains(&format!("edit by hand at converge.yaml:{entry}: ")),
        "{}",
        out.stderr
    );
}

/// A value a template takes from a parameter is edited where the instance sets the parameter.
#[test]
fn a_template_parameter_is_pointed_at_in_its_instance_entry() {
    let sandbox = common::fast_sandbox();
    let alert_start = CONFIG.find("      error-burst:").expect("the alert");
    let config = format!(
        "{}      error-burst:\n        template: burst\n        forEach:\n          - key: api\n            name: Error burst\n            limit: 50\ntemplates:\n  burst:\n    parameters:\n      name: string\n      limit: number\n    alert:\n      name: ${{name}}\n      dashboard: on-call-overview\n      tile: Errors\n      threshold: ${{limit}}\n      thresholdType: above\n      interval: 5m\n      channel: {{ type: webhook, webhookId: 65f5e4a3b9e77c001a789012 }}\n      message: Error burst crossed its threshold\n",
        &CONFIG[..alert_start]
    );
    let (workspace, converge) = setup(&sandbox, &[("converge.yaml", &config)]);
    in_sync(&converge, "converge.yaml");
    edit_alert(&sandbox, json!({"threshold": 80}));
    let out = converge.run(["drift", "--write", "converge.yaml"]);
    out.assert_exit(5);
    let line = config
        .lines()
        .position(|line| line.contains("limit: 50"))
        .expect("the parameter")
        + 1;
    assert!(
        out.stderr.contains(&format!(
            "edit by hand at converge.yaml:{line}: alert.analytics.error-burst[api] threshold is \
             80 live (the template `burst` takes it from parameter `limit` of instance \
             `error-burst[api]`: set it there)"
        )),
        "{}",
        out.stderr
    );
    assert_eq!(workspace.read("converge.yaml"), config);
}

#[test]
fn a_config_directory_is_edited_in_the_files_that_hold_the_values() {
    let sandbox = common::fast_sandbox();
    let stacks_at = CONFIG.find("stacks:").expect("stacks");
    let (services, stacks) = CONFIG.split_at(stacks_at);
    let (workspace, converge) = setup(
        &sandbox,
        &[
            ("config/10-services.yaml", services),
            ("config/20-stacks.yaml", stacks),
        ],
    );
    in_sync(&converge, "config");
    edit_live(&sandbox);
    let write = converge.run(["drift", "--write", "config"]);
    write.assert_exit(2);
    assert_eq!(
        workspace.read("config/10-services.yaml"),
        services.replace("numReplicas: 2 ", "numReplicas: 3 ")
    );
    assert_eq!(
        workspace.read("config/20-stacks.yaml"),
        stacks
            .replace(
                "            x: 0\n            y: 0",
                "            x: 6\n            y: 2"
            )
            .replace("\"level:error\"", "\"level:error OR level:fatal\"")
            .replace("threshold: 50", "threshold: 80")
    );
    converge
        .run(["plan", "--detailed-exitcode", "config"])
        .assert_exit(0);
}

#[test]
fn a_file_changed_on_disk_during_the_run_is_not_overwritten() {
    let sandbox = common::fast_sandbox();
    let (workspace, converge) = setup(&sandbox, &[("converge.yaml", CONFIG)]);
    in_sync(&converge, "converge.yaml");
    edit_alert(&sandbox, json!({"threshold": 80}));
    // The run reads its config before its first request; the file is saved by someone else
    // while that request's answer is held back, so the edit lands between read and write.
    let theirs = CONFIG.replace(
        "# Keep the comments",
        "# Saved meanwhile. Keep the comments",
    );
    let path = workspace.file("converge.yaml");
    let saved = std::sync::Once::new();
    let text = theirs.clone();
    sandbox.observe(move |_| {
        saved.call_once(|| std::fs::write(&path, &text).expect("the file is saved"));
    });
    let out = converge.run(["drift", "--write", "--only", "alert.*", "converge.yaml"]);
    converge_snapshot!("writeback_changed_on_disk", out);
    assert_eq!(workspace.read("converge.yaml"), theirs);
}

/// The CI kit's nightly job writes drift back and turns changed files into one pull request:
/// the drift step (the only one with secrets) runs `drift --write`, a step without secrets
/// pushes the branch, and the pull request step runs only when files changed.
#[test]
fn the_nightly_job_writes_drift_back_and_opens_a_pull_request() {
    let path = common::root().join("examples/ci/github/workflows/converge-drift.yml");
    let text = std::fs::read_to_string(path).expect("readable");
    let doc: Value = serde_saphyr::from_str(&text).expect("YAML");
    let steps = doc["jobs"]["drift"]["steps"].as_array().expect("steps");
    let step = |name: &str| {
        steps
            .iter()
            .find(|s| s["name"] == name)
            .unwrap_or_else(|| panic!("a step named {name}"))
    };
    let drift = step("Drift");
    let run = drift["run"].as_str().expect("a script");
    let line = run
        .lines()
        .find(|l| l.trim_start().starts_with("converge drift"))
        .expect("the drift line");
    assert_eq!(
        line.trim(),
        "converge drift config/ --format markdown --write > drift.md 2> drift.err"
    );
    let push = step("Push the edited config");
    assert_eq!(
        push["env"],
        Value::Null,
        "no secret where the branch is pushed"
    );
    assert_eq!(
        push["if"],
        "steps.drift.outputs.exitcode == '2' || steps.drift.outputs.exitcode == '5'"
    );
    let pull = step("Open or update the drift pull request");
    assert_eq!(pull["if"], "steps.edits.outputs.changed == 'true'");
    assert_eq!(pull["uses"], "actions/github-script@v8");
    assert_eq!(doc["permissions"]["pull-requests"], "write");
}

/// The config with a second tile, `Warnings`, after `Errors`.
fn with_warnings() -> String {
    CONFIG.replace(
        "                whereLanguage: lucene\n    alerts:",
        "                whereLanguage: lucene
          # Warnings: watched by nobody yet.
          - name: Warnings
            x: 12
            y: 0
            w: 12
            h: 4
            series:
              - type: time
                dataSource: events
                source: Logs
                aggFn: count
                where: level:warn
                whereLanguage: lucene
    alerts:",
    )
}

/// A tile added in the UI and the alert deleted.
fn add_tile_delete_alert(sandbox: &SandboxHandle) {
    add_tile(sandbox);
    delete_alert(sandbox);
}

/// A tile added in the UI.
fn add_tile(sandbox: &SandboxHandle) {
    let client = Client::new(sandbox);
    let mut dashboard = on_call(&client);
    let tiles = dashboard["tiles"].as_array_mut().expect("tiles");
    let mut latency = tiles[0].clone();
    latency.as_object_mut().expect("a tile").remove("id");
    latency["name"] = json!("Latency p99");
    latency["y"] = json!(4);
    let today = latency.get("config").is_some_and(|c| !c.is_null());
    let query = first_query(&mut latency);
    query["aggFn"] = json!("max");
    query[if today { "valueExpression" } else { "field" }] = json!("duration");
    query["where"] = json!("");
    tiles.push(latency);
    put_dashboard(&client, &dashboard);
}

/// The alert deleted in the UI.
fn delete_alert(sandbox: &SandboxHandle) {
    let client = Client::new(sandbox);
    let alert = common::alerts(sandbox)
        .into_iter()
        .find(|a| a["name"] == "Error burst")
        .expect("the demo alert");
    let id = alert["id"].as_str().expect("an alert id");
    client.raw(
        "DELETE",
        &format!(
            "/v1/organizations/{}/services/{ANALYTICS}/stack/alerts/{id}",
            converge::sandbox::DEMO_ORG
        ),
        Some(&Client::basic()),
        None,
    );
}

/// The `Warnings` tile deleted in the UI.
fn delete_warnings(sandbox: &SandboxHandle) {
    let client = Client::new(sandbox);
    let mut dashboard = on_call(&client);
    let tiles = dashboard["tiles"].as_array_mut().expect("tiles");
    tiles.retain(|t| t["name"] != "Warnings");
    put_dashboard(&client, &dashboard);
}

#[test]
fn tiles_added_then_deleted_live_change_the_config_structure_an_alert_missing_live_stays() {
    structure_changes(&common::fast_sandbox(), "");
}

/// The contract's generation: the tile added live is read back, and written, as `series`.
#[test]
fn structure_changes_on_the_contract_generation() {
    structure_changes(&common::contract_sandbox(), "_contract");
}

/// A tile added and the alert deleted live, then a tile deleted live, each written back; the
/// alert missing live stays in the file for apply, which creates it again. The snapshots are
/// named with `suffix`.
fn structure_changes(sandbox: &SandboxHandle, suffix: &str) {
    let config = with_warnings();
    let (workspace, converge) = setup(sandbox, &[("converge.yaml", &config)]);
    in_sync(&converge, "converge.yaml");
    add_tile_delete_alert(sandbox);
    let diff = converge.run(["drift", "--diff", "converge.yaml"]);
    converge_snapshot!(format!("writeback_structure_added{suffix}"), diff);
    assert_eq!(workspace.read("converge.yaml"), config);
    converge
        .run(["drift", "--write", "converge.yaml"])
        .assert_exit(2);
    let alert_at = config.find("    alerts:").expect("the alerts");
    assert!(
        workspace
            .read("converge.yaml")
            .ends_with(&config[alert_at..]),
        "the alert missing live keeps its lines"
    );
    let plan = converge.run(["plan", "--detailed-exitcode", "converge.yaml"]);
    plan.assert_exit(2);
    assert!(
        plan.stdout.contains("alert.analytics.error-burst"),
        "{}",
        plan.stdout
    );
    in_sync(&converge, "converge.yaml");

    delete_warnings(sandbox);
    let diff = converge.run(["drift", "--diff", "converge.yaml"]);
    converge_snapshot!(format!("writeback_structure_deleted{suffix}"), diff);
    converge
        .run(["drift", "--write", "converge.yaml"])
        .assert_exit(2);
    converge
        .run(["plan", "--detailed-exitcode", "converge.yaml"])
        .assert_exit(0);
}

#[test]
fn keep_deleted_keeps_what_was_deleted_live_and_lists_it() {
    let sandbox = common::fast_sandbox();
    let config = with_warnings();
    let (workspace, converge) = setup(&sandbox, &[("converge.yaml", &config)]);
    in_sync(&converge, "converge.yaml");
    delete_warnings(&sandbox);
    delete_alert(&sandbox);
    let out = converge.run(["drift", "--write", "--keep-deleted", "converge.yaml"]);
    converge_snapshot!("writeback_keep_deleted", out);
    assert_eq!(workspace.read("converge.yaml"), config);
}

/// `CONFIG` ahead of live: a dashboard and an alert on the managed dashboard added to the file,
/// not applied yet.
fn ahead_of_live() -> String {
    let alerts_at = CONFIG.find("    alerts:").expect("the alerts");
    format!(
        "{}{NEW_DASHBOARD}{}{NEW_ALERT}",
        &CONFIG[..alerts_at],
        &CONFIG[alerts_at..]
    )
}

const NEW_DASHBOARD: &str = "      # Added today, applied tomorrow.
      latency:
        name: Latency
        tiles:
          - name: p99
            x: 0
            y: 0
            w: 12
            h: 4
            series:
              - type: time
                dataSource: events
                source: Logs
                aggFn: max
                field: duration
                whereLanguage: lucene
";

const NEW_ALERT: &str = "      # Pages on the first burst; not applied yet.
      anew:
        name: Error burst (fast)
        dashboard: on-call-overview
        tile: Errors
        threshold: 5
        thresholdType: above
        interval: 1m
        channel:
          type: webhook
          webhookId: 65f5e4a3b9e77c001a789012
        message: Errors are bursting
";

/// The config's objects missing live are the config ahead of live, for apply: `drift --write`
/// writes the drifted value of the alert that exists live and leaves the new alert and the new
/// dashboard byte for byte, then apply creates them and nothing is left to plan.
#[test]
fn a_config_ahead_of_live_keeps_what_apply_has_not_created_yet() {
    let sandbox = common::fast_sandbox();
    let (workspace, converge) = setup(&sandbox, &[("converge.yaml", CONFIG)]);
    in_sync(&converge, "converge.yaml");
    let config = ahead_of_live();
    workspace.write("converge.yaml", &config);
    edit_alert(&sandbox, json!({"threshold": 80}));

    let diff = converge.run(["drift", "--diff", "converge.yaml"]);
    converge_snapshot!("writeback_ahead_diff", diff);
    assert_eq!(workspace.read("converge.yaml"), config);
    let write = converge.run(["drift", "--write", "converge.yaml"]);
    converge_snapshot!("writeback_ahead_write", write);
    let expected = config.replace("threshold: 50", "threshold: 80");
    assert_eq!(workspace.read("converge.yaml"), expected);
    assert!(expected.contains(NEW_DASHBOARD) && expected.contains(NEW_ALERT));

    let plan = converge.run(["plan", "--detailed-exitcode", "converge.yaml"]);
    plan.assert_exit(2);
    for address in ["dashboard.analytics.latency", "alert.analytics.anew"] {
        assert!(plan.stdout.contains(address), "{}", plan.stdout);
    }
    in_sync(&converge, "converge.yaml");
}

/// A config named through a relative symlink to a link is written through both: the final
/// target gets the live value (its temporary beside it, then renamed), and each link stays a
/// link pointing where it did.
#[cfg(unix)]
#[test]
fn drift_write_through_a_symlink_keeps_the_link_and_updates_its_target() {
    use std::os::unix::fs::symlink;
    use std::path::Path;

    let sandbox = common::fast_sandbox();
    let (workspace, converge) = setup(&sandbox, &[("conf/real.yaml", CONFIG)]);
    let root = workspace.path();
    symlink("conf/real.yaml", root.join("converge.yaml")).expect("the link is made");
    symlink("converge.yaml", root.join("current.yaml")).expect("the link to the link is made");
    in_sync(&converge, "current.yaml");
    edit_alert(&sandbox, json!({"threshold": 80}));

    let write = converge.run(["drift", "--write", "current.yaml"]);
    converge_snapshot!("writeback_symlink", write);
    assert_eq!(
        workspace.read("conf/real.yaml"),
        CONFIG.replace("threshold: 50", "threshold: 80")
    );
    let link = |name: &str| {
        let path = root.join(name);
        let kind = std::fs::symlink_metadata(&path)
            .expect("the link")
            .file_type();
        assert!(kind.is_symlink(), "{name} is still a link");
        std::fs::read_link(&path).expect("the link's text")
    };
    assert_eq!(link("current.yaml"), Path::new("converge.yaml"));
    assert_eq!(link("converge.yaml"), Path::new("conf/real.yaml"));
    let names = |dir: &Path| -> Vec<String> {
        let mut names: Vec<String> = std::fs::read_dir(dir)
            .expect("the directory")
            .map(|e| {
                e.expect("an entry")
                    .file_name()
                    .to_string_lossy()
                    .into_owned()
            })
            .collect();
        names.sort();
        names
    };
    assert_eq!(
        names(&root.join("conf")),
        ["real.yaml"],
        "no temporary left"
    );
    assert_eq!(names(root), ["conf", "converge.yaml", "current.yaml"]);
    converge
        .run(["plan", "--detailed-exitcode", "current.yaml"])
        .assert_exit(0);
}

#[test]
fn adopt_appends_an_unmanaged_dashboard_as_export_writes_it() {
    let sandbox = common::fast_sandbox();
    let (workspace, converge) = adopt_scratch(&sandbox);
    let address = "dashboard.analytics[\"Scratch\"]";
    let diff = converge.run(["drift", "--diff", "--adopt", address, "converge.yaml"]);
    converge_snapshot!("writeback_adopt", diff);
    assert_eq!(workspace.read("converge.yaml"), CONFIG);
    converge
        .run(["drift", "--write", "--adopt", address, "converge.yaml"])
        .assert_exit(0);
    converge.run(["drift", "converge.yaml"]).assert_exit(0);

    let unknown = converge.run([
        "drift",
        "--diff",
        "--adopt",
        "dashboard.analytics[\"Nope\"]",
        "converge.yaml",
    ]);
    converge_snapshot!("writeback_adopt_unknown", unknown);
}

/// The contract's generation: the adopted dashboard's tiles are read, and written, as `series`.
#[test]
fn adopt_on_the_contract_generation_writes_series() {
    let sandbox = common::contract_sandbox();
    let (_workspace, converge) = adopt_scratch(&sandbox);
    let address = "dashboard.analytics[\"Scratch\"]";
    let diff = converge.run(["drift", "--diff", "--adopt", address, "converge.yaml"]);
    converge_snapshot!("writeback_adopt_contract", diff);
    converge
        .run(["drift", "--write", "--adopt", address, "converge.yaml"])
        .assert_exit(0);
    converge.run(["drift", "converge.yaml"]).assert_exit(0);
}

/// A workspace with [`CONFIG`] applied and a dashboard `Scratch` made by hand beside it.
fn adopt_scratch(sandbox: &SandboxHandle) -> (Workspace, Converge<'_>) {
    let (workspace, converge) = setup(sandbox, &[("converge.yaml", CONFIG)]);
    in_sync(&converge, "converge.yaml");
    let client = Client::new(sandbox);
    let mut tiles = on_call(&client)["tiles"].clone();
    for tile in tiles.as_array_mut().expect("tiles") {
        tile.as_object_mut().expect("a tile").remove("id");
    }
    client
        .cloud(
            "POST",
            &format!("/services/{ANALYTICS}/stack/dashboards"),
            Some(json!({"name": "Scratch", "tiles": tiles, "tags": ["by-hand"]})),
        )
        .result();
    (workspace, converge)
}

#[test]
fn adopt_appends_an_unmanaged_alert_on_a_managed_dashboard() {
    let sandbox = common::fast_sandbox();
    let (workspace, converge) = setup(&sandbox, &[("converge.yaml", CONFIG)]);
    in_sync(&converge, "converge.yaml");
    let alert = common::alerts(&sandbox)
        .into_iter()
        .find(|a| a["name"] == "Error burst")
        .expect("the demo alert");
    let mut body = alert.clone();
    if body.get("dashboardId").is_none() {
        body["dashboardId"] = alert["dashboard"].clone();
    }
    body["name"] = json!("Slow burst");
    body["threshold"] = json!(500);
    if let Some(map) = body.as_object_mut() {
        for key in [
            "id",
            "createdAt",
            "updatedAt",
            "state",
            "teamId",
            "dashboard",
        ] {
            map.remove(key);
        }
    }
    Client::new(&sandbox)
        .cloud(
            "POST",
            &format!("/services/{ANALYTICS}/stack/alerts"),
            Some(body),
        )
        .result();
    let address = "alert.analytics[\"Slow burst\"]";
    let diff = converge.run(["drift", "--diff", "--adopt", address, "converge.yaml"]);
    converge_snapshot!("writeback_adopt_alert", diff);
    converge
        .run(["drift", "--write", "--adopt", address, "converge.yaml"])
        .assert_exit(0);
    assert_ne!(workspace.read("converge.yaml"), CONFIG);
    converge
        .run(["plan", "--detailed-exitcode", "converge.yaml"])
        .assert_exit(0);
}

/// [`CONFIG`] with its tile written in today's `config` form instead of the `series` shorthand.
fn config_form() -> String {
    CONFIG.replace(
        "            series:
              - type: time
                dataSource: events
                source: Logs
                aggFn: count
                where: \"level:error\"   # what pages us
                whereLanguage: lucene
",
        "            config:
              displayType: line
              source: Logs
              select:
                - aggFn: count
                  where: \"level:error\"   # what pages us
                  whereLanguage: lucene
",
    )
}

#[test]
fn live_edits_are_written_back_into_tiles_written_as_config() {
    let sandbox = common::fast_sandbox();
    let config = config_form();
    let (workspace, converge) = setup(&sandbox, &[("converge.yaml", &config)]);
    in_sync(&converge, "converge.yaml");
    edit_live(&sandbox);
    add_tile(&sandbox);
    let diff = converge.run(["drift", "--diff", "converge.yaml"]);
    converge_snapshot!("writeback_config_form_diff", diff);
    assert_eq!(workspace.read("converge.yaml"), config);
    converge
        .run(["drift", "--write", "converge.yaml"])
        .assert_exit(2);
    converge
        .run(["plan", "--detailed-exitcode", "converge.yaml"])
        .assert_exit(0);
}

#[test]
fn live_edits_are_written_back_on_the_contract_generation() {
    let sandbox = common::contract_sandbox();
    let (workspace, converge) = setup(&sandbox, &[("converge.yaml", CONFIG)]);
    in_sync(&converge, "converge.yaml");
    edit_live(&sandbox);
    converge
        .run(["drift", "--write", "converge.yaml"])
        .assert_exit(2);
    let expected = CONFIG
        .replace("numReplicas: 2 ", "numReplicas: 3 ")
        .replace(
            "            x: 0\n            y: 0",
            "            x: 6\n            y: 2",
        )
        .replace("\"level:error\"", "\"level:error OR level:fatal\"")
        .replace("threshold: 50", "threshold: 80");
    assert_eq!(workspace.read("converge.yaml"), expected);
    converge
        .run(["plan", "--detailed-exitcode", "converge.yaml"])
        .assert_exit(0);
}

#[test]
fn a_live_change_the_series_shorthand_cannot_say_is_listed_to_edit_by_hand() {
    let sandbox = common::fast_sandbox();
    let (workspace, converge) = setup(&sandbox, &[("converge.yaml", CONFIG)]);
    in_sync(&converge, "converge.yaml");
    let client = Client::new(&sandbox);
    let mut dashboard = on_call(&client);
    dashboard["tiles"][0]["config"]["fillNulls"] = json!(false);
    first_query(&mut dashboard["tiles"][0])["where"] = json!("level:fatal");
    put_dashboard(&client, &dashboard);
    let out = converge.run(["drift", "--write", "converge.yaml"]);
    converge_snapshot!("writeback_shorthand_manual", out);
    assert_eq!(
        workspace.read("converge.yaml"),
        CONFIG.replace("\"level:error\"", "\"level:fatal\"")
    );
}

/// The same live edit through `plan`: the reason names `tags` there because apply would add
/// the ownership tag the PUT dropped, and the `tags` line is shown with it.
#[test]
fn plan_names_exactly_the_fields_it_shows_after_a_live_put() {
    let sandbox = common::fast_sandbox();
    let (_workspace, converge) = setup(&sandbox, &[("converge.yaml", CONFIG)]);
    in_sync(&converge, "converge.yaml");
    let client = Client::new(&sandbox);
    let mut dashboard = on_call(&client);
    dashboard["tiles"][0]["config"]["fillNulls"] = json!(false);
    first_query(&mut dashboard["tiles"][0])["where"] = json!("level:fatal");
    put_dashboard(&client, &dashboard);
    let out = converge.run(["plan", "converge.yaml"]);
    converge_snapshot!("writeback_shorthand_manual_plan", out);
}

#[test]
fn a_live_group_by_is_written_back_as_the_list_the_server_joined() {
    let sandbox = common::fast_sandbox();
    let config = CONFIG.replace(
        "                whereLanguage: lucene\n",
        "                whereLanguage: lucene\n                groupBy: [service]   # per service\n",
    );
    let (workspace, converge) = setup(&sandbox, &[("converge.yaml", &config)]);
    in_sync(&converge, "converge.yaml");
    let client = Client::new(&sandbox);
    let mut dashboard = on_call(&client);
    dashboard["tiles"][0]["config"]["groupBy"] = json!("service,host");
    put_dashboard(&client, &dashboard);
    converge
        .run(["drift", "--write", "converge.yaml"])
        .assert_exit(2);
    assert_eq!(
        workspace.read("converge.yaml"),
        config.replace("groupBy: [service]", "groupBy: [service, host]")
    );
    converge
        .run(["plan", "--detailed-exitcode", "converge.yaml"])
        .assert_exit(0);
}

/// `groupBy: []` lowers to no `groupBy`, but the config writes it: a live `groupBy` is written
/// into that list, not reported as "added live; the config does not write it".
#[test]
fn a_live_group_by_fills_the_empty_list_the_config_writes() {
    let sandbox = common::fast_sandbox();
    let config = CONFIG.replace(
        "                whereLanguage: lucene\n",
        "                whereLanguage: lucene\n                groupBy: []\n",
    );
    let (workspace, converge) = setup(&sandbox, &[("converge.yaml", &config)]);
    in_sync(&converge, "converge.yaml");
    let client = Client::new(&sandbox);
    let mut dashboard = on_call(&client);
    dashboard["tiles"][0]["config"]["groupBy"] = json!("service");
    put_dashboard(&client, &dashboard);
    let out = converge.run(["drift", "--write", "converge.yaml"]);
    out.assert_exit(2);
    assert!(!out.stderr.contains("does not write it"), "{}", out.stderr);
    assert_eq!(
        workspace.read("converge.yaml"),
        config.replace("groupBy: []", "groupBy: [service]")
    );
    converge
        .run(["plan", "--detailed-exitcode", "converge.yaml"])
        .assert_exit(0);
}

#[test]
fn a_tile_added_live_that_the_shorthand_cannot_say_goes_in_as_config() {
    let sandbox = common::fast_sandbox();
    let (_workspace, converge) = setup(&sandbox, &[("converge.yaml", CONFIG)]);
    in_sync(&converge, "converge.yaml");
    let client = Client::new(&sandbox);
    let mut dashboard = on_call(&client);
    let tiles = dashboard["tiles"].as_array_mut().expect("tiles");
    let mut gaps = tiles[0].clone();
    gaps.as_object_mut().expect("a tile").remove("id");
    gaps["name"] = json!("Gaps");
    gaps["y"] = json!(4);
    gaps["config"]["fillNulls"] = json!(false);
    tiles.push(gaps);
    put_dashboard(&client, &dashboard);
    let diff = converge.run(["drift", "--diff", "converge.yaml"]);
    converge_snapshot!("writeback_added_as_config", diff);
    converge
        .run(["drift", "--write", "converge.yaml"])
        .assert_exit(2);
    converge
        .run(["plan", "--detailed-exitcode", "converge.yaml"])
        .assert_exit(0);
}

/// An endpoint attached live that the config's `privateEndpoints: []` leaves out is said to
/// exist live only, never to be missing live.
#[test]
fn an_endpoint_attached_live_and_not_in_the_config_is_not_called_missing() {
    let sandbox = common::fast_sandbox();
    let dir = Workspace::new();
    let converge = Converge::new(&sandbox).fast().cwd(&dir);
    let applied = dir.write("applied.yaml", &common::quickstart());
    converge
        .run(["apply", applied.as_str(), "--yes"])
        .assert_exit(0);
    let without = common::quickstart().replacen(
        "    privateEndpoints:\n      - id: vpce-0a1b2c3d4e5f67890\n        description: app VPC\n",
        "    privateEndpoints: []\n",
        1,
    );
    assert_ne!(without, common::quickstart());
    let config = dir.write("converge.yaml", &without);
    let out = converge.run(["drift", config.as_str(), "--diff"]);
    out.assert_exit(5);
    assert!(
        out.stderr.contains(
            "edit by hand: service.analytics.private_endpoint[vpce-0a1b2c3d4e5f67890] exists \
             live only (live only: add it to the config, or apply to remove it)"
        ),
        "{}",
        out.stderr
    );
    assert!(!out.stderr.contains("is missing live"), "{}", out.stderr);
    converge_snapshot!("endpoint_live_only", out);
}
