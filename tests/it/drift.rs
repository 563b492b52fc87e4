//! `converge drift` through the real binary against the sandbox: a config exported from the
//! sandbox is in sync (exit 0); each kind of outside change is then reported under its address
//! (exit 2), `--ignore` and `ignore:` silence exactly what they name, and backup checks pass
//! and fail on the seeded backups (placed relative to the sandbox's clock, here the real one,
//! so the newest finished backup is about 6 hours old when drift measures it).

use converge::sandbox::SandboxHandle;
use serde_json::{Value, json};

use crate::common::{self, ANALYTICS, Client, Converge, quickstart};

/// A config in sync with the sandbox: the export of the demo service and its stack.
fn baseline(sandbox: &SandboxHandle) -> String {
    let out = Converge::new(sandbox).run(["export", "--service", ANALYTICS, "--stack", ANALYTICS]);
    out.assert_exit(0);
    out.stdout
}

/// Runs drift on a config text with extra flags: (exit code, stdout).
fn drift(sandbox: &SandboxHandle, yaml: &str, flags: &[&str]) -> (i32, String) {
    let out = Converge::new(sandbox)
        .config_as("converge.yaml", yaml)
        .run(["drift"].iter().chain(flags));
    assert_ne!(out.code, 1, "{}", out.stderr);
    (out.code, out.stdout)
}

fn drift_json(sandbox: &SandboxHandle, yaml: &str, flags: &[&str]) -> (i32, Value) {
    let mut all = vec!["--format", "json"];
    all.extend_from_slice(flags);
    let (code, stdout) = drift(sandbox, yaml, &all);
    (code, serde_json::from_str(&stdout).expect("JSON"))
}

fn addresses(report: &Value, part: &str) -> Vec<String> {
    report[part]
        .as_array()
        .expect("a list")
        .iter()
        .map(|c| c["address"].as_str().unwrap_or_default().to_string())
        .collect()
}

/// The demo's "On-call overview" dashboard of the managed stack.
pub(crate) fn on_call(client: &Client) -> Value {
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

pub(crate) fn put_dashboard(client: &Client, dashboard: &Value) {
    let id = dashboard["id"].as_str().expect("an id");
    let body = json!({
        "name": dashboard["name"],
        "tiles": dashboard["tiles"],
        "tags": dashboard["tags"],
    });
    client
        .cloud(
            "PUT",
            &format!("/services/{ANALYTICS}/stack/dashboards/{id}"),
            Some(body),
        )
        .result();
}

#[test]
fn an_exported_config_is_in_sync() {
    let sandbox = common::fast_sandbox();
    let yaml = baseline(&sandbox);
    let (code, stdout) = drift(&sandbox, &yaml, &[]);
    assert_eq!(code, 0, "{stdout}");
    assert!(
        stdout.starts_with("In sync: 0 changed, 0 unmanaged, 0 failed checks"),
        "{stdout}"
    );
}

#[test]
fn scaling_edited_outside_shows_config_and_live_values() {
    let sandbox = common::fast_sandbox();
    let yaml = baseline(&sandbox);
    Client::new(&sandbox)
        .cloud(
            "PATCH",
            &format!("/services/{ANALYTICS}/scaling"),
            Some(json!({"numReplicas": 5})),
        )
        .result();
    let (code, report) = drift_json(&sandbox, &yaml, &[]);
    assert_eq!(code, 2);
    assert_eq!(report["format"], "converge-drift/1");
    assert_eq!(report["inSync"], false);
    assert_eq!(addresses(&report, "changed"), ["service.analytics.scaling"]);
    let field = &report["changed"][0]["fields"][0];
    assert_eq!(field["path"], "numReplicas");
    assert_eq!(field["config"], 2);
    assert_eq!(field["live"], 5);
    let (_, text) = drift(&sandbox, &yaml, &[]);
    assert!(text.contains("numReplicas: config 2, live 5"), "{text}");
}

#[test]
fn a_dashboard_edited_in_place_is_reported_by_field() {
    let sandbox = common::contract_sandbox();
    let yaml = baseline(&sandbox);
    let client = Client::new(&sandbox);
    let mut dashboard = on_call(&client);
    dashboard["tiles"][0]["series"][0]["where"] = json!("level:warn");
    put_dashboard(&client, &dashboard);
    let (code, report) = drift_json(&sandbox, &yaml, &[]);
    assert_eq!(code, 2);
    assert_eq!(
        addresses(&report, "changed"),
        ["dashboard.analytics.on-call-overview"]
    );
    let field = &report["changed"][0]["fields"][0];
    assert_eq!(field["path"], "tiles[Errors].series[0].where");
    assert_eq!(field["config"], "level:error");
    assert_eq!(field["live"], "level:warn");
}

#[test]
fn a_tile_removed_outside_is_reported() {
    let sandbox = common::fast_sandbox();
    let client = Client::new(&sandbox);
    // A second tile first, so the baseline has one to lose.
    let mut dashboard = on_call(&client);
    let mut extra = dashboard["tiles"][0].clone();
    extra.as_object_mut().expect("a tile").remove("id");
    extra["name"] = json!("Warnings");
    extra["x"] = json!(12);
    dashboard["tiles"]
        .as_array_mut()
        .expect("tiles")
        .push(extra);
    put_dashboard(&client, &dashboard);
    let yaml = baseline(&sandbox);
    assert!(yaml.contains("name: Warnings"), "{yaml}");
    assert_eq!(drift(&sandbox, &yaml, &[]).0, 0);

    let mut dashboard = on_call(&client);
    dashboard["tiles"]
        .as_array_mut()
        .expect("tiles")
        .retain(|t| t["name"] != "Warnings");
    put_dashboard(&client, &dashboard);
    let (code, report) = drift_json(&sandbox, &yaml, &[]);
    assert_eq!(code, 2);
    assert_eq!(
        addresses(&report, "changed"),
        ["dashboard.analytics.on-call-overview"]
    );
    // The lost tile, field by field: each in the config, none live; nothing else.
    let fields = report["changed"][0]["fields"].as_array().expect("fields");
    assert!(!fields.is_empty());
    for field in fields {
        let path = field["path"].as_str().unwrap_or_default();
        assert!(path.starts_with("tiles[Warnings]."), "{field}");
        assert!(field["live"].is_null(), "{field}");
    }
    let name = fields
        .iter()
        .find(|f| f["path"] == "tiles[Warnings].name")
        .expect("the tile's name");
    assert_eq!(name["config"], "Warnings");
}

#[test]
fn an_alert_deleted_outside_is_reported() {
    let sandbox = common::fast_sandbox();
    let yaml = baseline(&sandbox);
    let client = Client::new(&sandbox);
    let alerts = client
        .cloud("GET", &format!("/services/{ANALYTICS}/stack/alerts"), None)
        .result();
    let id = alerts[0]["id"].as_str().expect("an alert id").to_string();
    client.raw(
        "DELETE",
        &format!(
            "/v1/organizations/{}/services/{ANALYTICS}/stack/alerts/{id}",
            converge::sandbox::DEMO_ORG
        ),
        Some(&Client::basic()),
        None,
    );
    let (code, report) = drift_json(&sandbox, &yaml, &[]);
    assert_eq!(code, 2);
    assert_eq!(
        addresses(&report, "changed"),
        ["alert.analytics.error-burst"]
    );
    assert_eq!(report["changed"][0]["action"], "create");
}

#[test]
fn an_endpoint_registered_outside_is_unmanaged() {
    let sandbox = common::fast_sandbox();
    let yaml = baseline(&sandbox);
    Client::new(&sandbox)
        .cloud(
            "POST",
            &format!("/services/{ANALYTICS}/privateEndpoint"),
            Some(json!({"id": "vpce-0123456789abcdef0", "description": "someone's VPC"})),
        )
        .result();
    let (code, report) = drift_json(&sandbox, &yaml, &[]);
    assert_eq!(code, 0, "listed, not counted: {report}");
    assert_eq!(
        addresses(&report, "unmanaged"),
        ["service.analytics.private_endpoint[vpce-0123456789abcdef0]"]
    );
    let (code, _) = drift_json(&sandbox, &yaml, &["--fail-on-unmanaged"]);
    assert_eq!(code, 2);
    // With `privateEndpoints:` in the config, the same endpoint is a change (apply detaches it).
    let listed = yaml.replace(
        &format!("    id: {ANALYTICS}\n"),
        &format!(
            "    id: {ANALYTICS}\n    privateEndpoints:\n      - id: vpce-0a1b2c3d4e5f67890\n"
        ),
    );
    assert_ne!(listed, yaml);
    let (code, report) = drift_json(&sandbox, &listed, &[]);
    assert_eq!(code, 2);
    let changed = addresses(&report, "changed");
    assert!(
        changed.contains(&"service.analytics.private_endpoint[vpce-0123456789abcdef0]".to_string()),
        "{changed:?}"
    );
}

#[test]
fn an_unmanaged_dashboard_and_pipe_are_reported() {
    let sandbox = common::fast_sandbox();
    let yaml = baseline(&sandbox);
    Client::new(&sandbox)
        .cloud(
            "POST",
            &format!("/services/{ANALYTICS}/stack/dashboards"),
            Some(json!({"name": "Scratch", "tiles": [], "tags": ["tmp"]})),
        )
        .result();
    // Dropping a pipe from the config leaves it live and unnamed.
    let start = yaml.find("      customers:\n").expect("the customers pipe");
    let end = start
        + yaml[start..]
            .find("      events:\n")
            .expect("the next pipe");
    let mut fewer = yaml.clone();
    fewer.replace_range(start..end, "");
    let (code, report) = drift_json(&sandbox, &fewer, &["--fail-on-unmanaged"]);
    assert_eq!(code, 2);
    assert_eq!(
        addresses(&report, "unmanaged"),
        [
            "dashboard.analytics[\"Scratch\"]",
            "pipe.analytics[\"customers\"]"
        ]
    );
    // A service without `pipes:` does not manage pipes: none is read or reported.
    let start = yaml.find("    pipes:\n").expect("the pipes section");
    let end = yaml.find("stacks:\n").expect("the stacks section");
    let mut no_pipes = yaml.clone();
    no_pipes.replace_range(start..end, "");
    let (_, report) = drift_json(&sandbox, &no_pipes, &[]);
    assert_eq!(
        addresses(&report, "unmanaged"),
        ["dashboard.analytics[\"Scratch\"]"]
    );
    let (_, markdown) = drift(&sandbox, &fewer, &["--format", "markdown"]);
    assert!(
        markdown.starts_with("<!-- converge-drift -->\n"),
        "{markdown}"
    );
    assert!(
        markdown.contains("dashboard.analytics\\[\"Scratch\"\\]"),
        "{markdown}"
    );
}

#[test]
fn ignore_silences_exactly_what_it_names() {
    let sandbox = common::fast_sandbox();
    let yaml = baseline(&sandbox);
    let client = Client::new(&sandbox);
    client
        .cloud(
            "PATCH",
            &format!("/services/{ANALYTICS}/scaling"),
            Some(json!({"numReplicas": 5, "idleTimeoutMinutes": 30})),
        )
        .result();
    client
        .cloud(
            "POST",
            &format!("/services/{ANALYTICS}/stack/dashboards"),
            Some(json!({"name": "Scratch", "tiles": [], "tags": []})),
        )
        .result();

    // One field of the scaling change: the other field still shows.
    let (code, report) = drift_json(
        &sandbox,
        &yaml,
        &["--ignore", "service.analytics.scaling.numReplicas"],
    );
    assert_eq!(code, 2);
    assert_eq!(addresses(&report, "changed"), ["service.analytics.scaling"]);
    let paths: Vec<&str> = report["changed"][0]["fields"]
        .as_array()
        .expect("fields")
        .iter()
        .filter_map(|f| f["path"].as_str())
        .collect();
    assert_eq!(paths, ["idleTimeoutMinutes"]);
    assert_eq!(
        addresses(&report, "unmanaged"),
        ["dashboard.analytics[\"Scratch\"]"]
    );
    assert_eq!(
        report["ignored"],
        json!(["service.analytics.scaling.numReplicas"])
    );

    // Everything named, partly from the config's `ignore:` list: in sync.
    let accepted = format!("{yaml}ignore:\n  - service.analytics.scaling.*\n");
    let (code, report) = drift_json(&sandbox, &accepted, &["--ignore", "dashboard.analytics[*"]);
    assert_eq!(code, 0, "{report}");
    assert_eq!(report["inSync"], true);
    assert_eq!(
        report["ignored"],
        json!([
            "dashboard.analytics[\"Scratch\"]",
            "service.analytics.scaling.idleTimeoutMinutes",
            "service.analytics.scaling.numReplicas"
        ])
    );
}

/// The baseline with backup checks on the demo service.
fn with_backups(yaml: &str, checks: &str) -> String {
    let checked = yaml.replace(
        &format!("    id: {ANALYTICS}\n"),
        &format!("    id: {ANALYTICS}\n    backups:\n{checks}"),
    );
    assert_ne!(checked, yaml);
    checked
}

fn backup_id(client: &Client, status: &str) -> String {
    let backups = client
        .cloud("GET", &format!("/services/{ANALYTICS}/backups"), None)
        .result();
    backups
        .as_array()
        .expect("a list")
        .iter()
        .find(|b| b["status"] == status)
        .and_then(|b| b["id"].as_str())
        .expect("a seeded backup")
        .to_string()
}

#[test]
fn backup_checks_pass_on_fresh_backups() {
    let sandbox = common::fast_sandbox();
    let client = Client::new(&sandbox);
    let done = backup_id(&client, "done");
    let yaml = with_backups(
        &baseline(&sandbox),
        &format!("      maxAgeHours: 26\n      keep: [{done}]\n"),
    );
    let (code, stdout) = drift(&sandbox, &yaml, &[]);
    assert_eq!(code, 0, "{stdout}");
    assert!(
        stdout.contains("ok      check.analytics.backups"),
        "{stdout}"
    );
    // The newest finished backup's age (6h after seeding), size and duration.
    assert!(
        stdout.contains("h old (at most 26h), 5.0 GiB, took 30m"),
        "{stdout}"
    );
    assert!(
        stdout.contains(&format!(
            "backup {done} is kept and done, 5.0 GiB, took 30m"
        )),
        "{stdout}"
    );
    // The same facts as fields for programs.
    let (_, report) = drift_json(&sandbox, &yaml, &[]);
    let facts = &report["checks"][0]["backups"];
    let kept = facts
        .as_array()
        .and_then(|f| f.iter().find(|b| b["role"] == "kept"))
        .unwrap_or_else(|| panic!("a kept backup in {report}"));
    assert_eq!(kept["id"], done.as_str());
    assert_eq!(kept["status"], "done");
    assert_eq!(kept["sizeBytes"], 5_u64 * 1_073_741_824);
    assert_eq!(kept["durationSeconds"], 1800);
    let newest = facts
        .as_array()
        .and_then(|f| f.iter().find(|b| b["role"] == "newestDone"))
        .unwrap_or_else(|| panic!("the newest done backup in {report}"));
    // Seeded 6 hours before the sandbox started.
    assert_eq!(newest["ageMinutes"], 360, "{newest}");
}

#[test]
fn backup_checks_fail_on_old_failed_or_missing_backups() {
    let sandbox = common::fast_sandbox();
    let client = Client::new(&sandbox);
    let failed = backup_id(&client, "error");
    let yaml = with_backups(
        &baseline(&sandbox),
        &format!(
            "      maxAgeHours: 2\n      keep: [{failed}, 00000000-0000-4000-8000-000000000000]\n"
        ),
    );
    let (code, report) = drift_json(&sandbox, &yaml, &[]);
    assert_eq!(code, 2);
    assert_eq!(report["summary"]["failedChecks"], 1);
    let check = &report["checks"][0];
    assert_eq!(check["address"], "check.analytics.backups");
    assert_eq!(check["passed"], false);
    let details: Vec<&str> = check["details"]
        .as_array()
        .expect("details")
        .iter()
        .filter_map(Value::as_str)
        .collect();
    assert!(details[0].ends_with(": too old"), "{details:?}");
    assert_eq!(
        details[1],
        format!("backup {failed} has status `error`, not `done`")
    );
    assert_eq!(
        details[2],
        "backup 00000000-0000-4000-8000-000000000000 does not exist"
    );
    // The same check, ignored, is accepted drift.
    let (code, _) = drift(&sandbox, &yaml, &["--ignore", "check.*"]);
    assert_eq!(code, 0);
}

#[test]
fn backup_ages_follow_the_sandbox_clock() {
    // A sandbox whose clock is 30 hours behind seeds its newest finished backup 36 hours
    // before the real time drift measures from: too old for 26 hours, fine for 48.
    let behind = jiff::Timestamp::now()
        .checked_sub(jiff::SignedDuration::from_hours(30))
        .expect("a time");
    let sandbox = common::sandbox(converge::sandbox::SandboxOptions {
        rate_limit: false,
        clock: Some(behind),
        ..converge::sandbox::SandboxOptions::default()
    });
    let yaml = baseline(&sandbox);
    let (code, report) = drift_json(
        &sandbox,
        &with_backups(&yaml, "      maxAgeHours: 26\n"),
        &[],
    );
    assert_eq!(code, 2);
    let detail = report["checks"][0]["details"][0]
        .as_str()
        .unwrap_or_default();
    assert!(
        detail.contains("h old (at most 26h)") && detail.ends_with(": too old"),
        "{detail}"
    );
    let hours: f64 = detail
        .split(" is ")
        .nth(1)
        .and_then(|rest| rest.split('h').next())
        .and_then(|n| n.parse().ok())
        .expect("an age");
    assert!((36.0..37.0).contains(&hours), "{detail}");
    let (code, _) = drift(
        &sandbox,
        &with_backups(&yaml, "      maxAgeHours: 48\n"),
        &[],
    );
    assert_eq!(code, 0);
}

#[test]
fn the_quickstart_drift_report_reads_as_recorded_and_only_reads() {
    let sandbox = common::contract_sandbox();
    let out = Converge::new(&sandbox).run(["drift", &common::quickstart_path()]);
    out.assert_exit(2);
    // The demo seed differs from the quickstart in scaling, lacks its dashboard and alert, and
    // has a dashboard and alert of its own; its newest finished backup is 6 hours old.
    // The age is measured from the real clock: about 6.0h, masked so a slow run cannot flake.
    let mut settings = common::snapshots();
    common::mask_ages(&mut settings);
    common::converge_snapshot!(settings, "quickstart_drift", out);
    let log = sandbox.request_log();
    assert!(!log.is_empty());
    assert!(
        log.iter().all(|entry| entry.method == "GET"),
        "drift only reads: {log:?}"
    );
    // One read per list: services, the declared pipes, backups, and the stack's three lists.
    assert_eq!(
        out.count("GET", "/v1/organizations/{organizationId}/services"),
        1
    );
    assert_eq!(
        out.count(
            "GET",
            "/v1/organizations/{organizationId}/services/{serviceId}/pipes"
        ),
        1
    );
    // The same report for programs and for an issue or comment body.
    for format in ["json", "markdown"] {
        let out =
            Converge::new(&sandbox).run(["drift", &common::quickstart_path(), "--format", format]);
        out.assert_exit(2);
        common::converge_snapshot!(settings, format!("quickstart_drift_{format}"), out);
    }
}

#[test]
fn a_config_error_exits_1() {
    let sandbox = common::fast_sandbox();
    let out = Converge::new(&sandbox)
        .config_as("bad.yaml", "version: 1\norganization: nope\nservices: 3\n")
        .run(["drift"]);
    out.assert_exit(1);
    assert!(out.stdout.is_empty());
}

#[test]
fn a_newest_backup_in_error_fails_the_check_even_when_a_done_one_is_fresh() {
    // The sandbox API cannot create backups, so the test edits the sandbox's state file between
    // two runs: the newest backup of `analytics` becomes one that ended in `error` an hour ago,
    // while the newest `done` one stays well within the age limit.
    let dir = tempfile::tempdir().expect("temp dir");
    let state = dir.path().join("state.json");
    let options = || converge::sandbox::SandboxOptions {
        rate_limit: false,
        state_file: Some(state.clone()),
        ..converge::sandbox::SandboxOptions::default()
    };
    let yaml = {
        let first = common::sandbox(options());
        with_backups(&baseline(&first), "      maxAgeHours: 26\n")
    };
    let (code, report) = {
        let sandbox = common::sandbox(options());
        drift_json(&sandbox, &yaml, &[])
    };
    assert_eq!(code, 0, "the demo's backups pass: {report}");

    let mut world: Value =
        serde_json::from_str(&std::fs::read_to_string(&state).expect("state")).expect("JSON");
    let hour_ago = jiff::Timestamp::now() - jiff::SignedDuration::from_hours(1);
    let failed = "6f1e2d3c-4b5a-4987-8654-3210fedcba98";
    let backups = world["backups"].as_array_mut().expect("backups");
    backups.insert(
        0,
        json!({
            "id": failed,
            "status": "error",
            "serviceId": ANALYTICS,
            "startedAt": (hour_ago - jiff::SignedDuration::from_mins(20)).to_string(),
            "finishedAt": hour_ago.to_string(),
            "sizeInBytes": 0,
            "durationInSeconds": 1200,
            "type": "full",
        }),
    );
    std::fs::write(&state, world.to_string()).expect("write state");

    let sandbox = common::sandbox(options());
    let (code, report) = drift_json(&sandbox, &yaml, &[]);
    assert_eq!(code, 2, "{report}");
    let check = &report["checks"][0];
    assert_eq!(check["address"], "check.analytics.backups");
    assert_eq!(check["passed"], false);
    let details: Vec<&str> = check["details"]
        .as_array()
        .expect("details")
        .iter()
        .filter_map(Value::as_str)
        .collect();
    assert!(
        details
            .iter()
            .any(|d| !d.ends_with("too old") && d.starts_with("newest done backup")),
        "the done backup itself is fresh: {details:?}"
    );
    assert!(
        details.contains(&format!("newest backup {failed} ended in `error`").as_str()),
        "{details:?}"
    );
}

/// After a clean apply of the quickstart the stack still holds the demo's own dashboard and
/// alert, which nobody manages: drift lists them but exits 0, unless the team asks for them to
/// count (`--fail-on-unmanaged`, or `drift.failOnUnmanaged: true` in the config).
#[test]
fn unmanaged_objects_are_listed_and_count_as_drift_only_when_asked() {
    let sandbox = common::fast_sandbox();
    let quickstart = quickstart();
    // The sandbox enforces no limit, so the client need not pace its fifteen requests to the
    // real one (ten per ten seconds).
    Converge::new(&sandbox)
        .rate_limit("1000/1s")
        .config_as("converge.yaml", &quickstart)
        .run(["apply", "--yes"])
        .assert_exit(0);

    let (code, report) = drift_json(&sandbox, &quickstart, &[]);
    assert_eq!(code, 0, "{report}");
    assert_eq!(report["inSync"], true);
    assert_eq!(report["failOnUnmanaged"], false);
    assert_eq!(
        addresses(&report, "unmanaged"),
        [
            "alert.prod[\"Error burst\"]",
            "dashboard.prod[\"On-call overview\"]"
        ]
    );
    let (code, text) = drift(&sandbox, &quickstart, &[]);
    assert_eq!(code, 0);
    assert!(
        text.starts_with("In sync: 0 changed, 2 unmanaged"),
        "{text}"
    );
    assert!(
        text.contains("dashboard.prod[\"On-call overview\"]"),
        "{text}"
    );

    let (code, report) = drift_json(&sandbox, &quickstart, &["--fail-on-unmanaged"]);
    assert_eq!(code, 2);
    assert_eq!(report["inSync"], false);
    assert_eq!(report["failOnUnmanaged"], true);

    let strict = format!("{quickstart}\ndrift:\n  failOnUnmanaged: true\n");
    let (code, text) = drift(&sandbox, &strict, &[]);
    assert_eq!(code, 2, "{text}");
    assert!(
        text.starts_with("Drift found: 0 changed, 2 unmanaged"),
        "{text}"
    );
    let lenient = format!("{quickstart}\ndrift:\n  failOnUnmanaged: false\n");
    assert_eq!(drift(&sandbox, &lenient, &[]).0, 0);
}

#[test]
fn drift_only_reads_and_reports_the_addresses_it_selects() {
    let sandbox = common::fast_sandbox();
    let quickstart = quickstart();
    // The stack's objects, reported ones included: its three lists and nothing else.
    let only = ["--only", "dashboard.prod*", "--only", "alert.prod*"];
    let (code, report) = drift_json(&sandbox, &quickstart, &only);
    assert_eq!(code, 2);
    assert_eq!(report["only"], json!(["dashboard.prod*", "alert.prod*"]));
    assert_eq!(
        addresses(&report, "changed"),
        ["dashboard.prod.api-health", "alert.prod.api-errors"]
    );
    assert_eq!(
        addresses(&report, "unmanaged"),
        [
            "alert.prod[\"Error burst\"]",
            "dashboard.prod[\"On-call overview\"]"
        ]
    );
    assert_eq!(addresses(&report, "checks"), Vec::<String>::new());
    let mut reads: Vec<String> = sandbox
        .request_log()
        .into_iter()
        .map(|entry| format!("{} {}", entry.method, entry.route))
        .collect();
    reads.sort();
    let stack = "GET /v1/organizations/{organizationId}/services/{serviceId}/stack";
    assert_eq!(
        reads,
        [
            format!("{stack}/alerts"),
            format!("{stack}/dashboards"),
            format!("{stack}/sources")
        ]
    );
    // The backup check alone: the services list and the backups, in sync, said to be partial.
    sandbox.reset_log();
    let (code, text) = drift(&sandbox, &quickstart, &["--only", "check.*"]);
    assert_eq!(code, 0, "{text}");
    assert!(
        text.starts_with(
            "In sync: 0 changed, 0 unmanaged, 0 failed checks\npartial: only addresses \
             matching `check.*` (`--only`)"
        ),
        "{text}"
    );
    assert_eq!(
        sandbox.request_log().len(),
        2,
        "{:?}",
        common::counts(&sandbox)
    );
}
