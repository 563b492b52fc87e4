//! Others acting while an apply runs: an edit made during the run is caught as stale and kept;
//! two applies of one config at once leave no duplicate; two `--sandbox` runs in one directory
//! keep both runs' writes.

use std::time::{Duration, Instant};

use converge::sandbox::{SandboxHandle, SandboxOptions};
use serde_json::{Value, json};

use super::*;
use crate::common::{self, words};

const DASHBOARDS: &str = "/v1/organizations/{organizationId}/services/{serviceId}/stack/dashboards";
const DASHBOARD: &str =
    "/v1/organizations/{organizationId}/services/{serviceId}/stack/dashboards/{dashboardId}";

/// A config of the demo's `analytics` stack with `count` dashboards (`Board 000`, ...), each
/// with one tile and the tag `tag`.
pub fn boards(count: usize, tag: &str) -> String {
    let mut text = String::from(
        "version: 1\norganization: ${env:CONVERGE_ORG_ID}\ncloud:\n  url: ${env:CONVERGE_CLOUD_URL}\n  \
         keyId: ${env:CONVERGE_KEY_ID}\n  keySecret: ${env:CONVERGE_KEY_SECRET}\nservices:\n  \
         analytics:\n    id: 1c7d8c62-0b0f-4f0e-9b2e-6a3c8a3b7e11\nstacks:\n  prod:\n    \
         service: analytics\n    dashboards:\n",
    );
    for i in 0..count {
        text.push_str(&format!(
            "      d{i:03}:\n        name: Board {i:03}\n        tags: [{tag}]\n        tiles:\n          \
             - name: Requests\n            x: 0\n            y: 0\n            w: 6\n            h: 4\n            \
             series:\n              - type: time\n                source: Logs\n                aggFn: count\n"
        ));
    }
    text
}

/// Waits (bounded) until the sandbox has served `count` requests of `method route`.
pub fn wait_for_requests(sandbox: &SandboxHandle, method: &str, route: &str, count: usize) {
    let deadline = Instant::now() + Duration::from_secs(120);
    while common::count(sandbox, method, route) < count {
        assert!(
            Instant::now() < deadline,
            "{method} {route} was not served {count} times: {:?}",
            common::counts(sandbox)
        );
        std::thread::sleep(Duration::from_millis(2));
    }
}

fn slow_sandbox(latency_ms: u64) -> SandboxHandle {
    common::sandbox(SandboxOptions {
        rate_limit: false,
        latency: Duration::from_millis(latency_ms),
        ..SandboxOptions::default()
    })
}

fn board(sandbox: &SandboxHandle, name: &str) -> Value {
    dashboards(sandbox)
        .into_iter()
        .find(|d| d["name"] == name)
        .unwrap_or_else(|| panic!("{name} exists"))
}

#[test]
fn an_edit_made_during_the_apply_is_reported_stale_and_survives() {
    const COUNT: usize = 30;
    let sandbox = slow_sandbox(20);
    let workspace = Workspace::new();
    let created = workspace.write("a.yaml", &boards(COUNT, "team-a"));
    let first = binary(&sandbox, &workspace).run(["apply", created.as_str(), "--yes"]);
    first.assert_exit(0);

    // Every board changes its tag; while the updates run, someone adds a tile (with an alert on
    // it) to the last board, whose step starts long after the run read the list.
    let retagged = workspace.write("b.yaml", &boards(COUNT, "team-b"));
    sandbox.reset_log();
    let last = format!("Board {:03}", COUNT - 1);
    // Paced to 10 requests a second: a write is checked against a read at most one window
    // old (`apply::fresh`), and the last board's comes about three windows after the edit.
    let paced = binary(&sandbox, &workspace).rate_limit("10/1s");
    let applied = std::thread::scope(|scope| {
        let apply = scope.spawn(|| paced.run(["apply", retagged.as_str(), "--yes"]));
        wait_for_requests(&sandbox, "PUT", DASHBOARD, 3);
        let client = common::Client::new(&sandbox);
        let mut edited = board(&sandbox, &last);
        let id = edited["id"].as_str().unwrap().to_string();
        let mut tiles = edited["tiles"].as_array().unwrap().clone();
        let mut extra = tiles[0].clone();
        extra.as_object_mut().unwrap().remove("id");
        extra["name"] = json!("Extra");
        extra["x"] = json!(6);
        tiles.push(extra);
        edited["tiles"] = Value::Array(tiles);
        edited.as_object_mut().unwrap().remove("id");
        let answer = client
            .cloud(
                "PUT",
                &format!("/services/{ANALYTICS}/stack/dashboards/{id}"),
                Some(edited),
            )
            .result();
        let tile = answer["tiles"]
            .as_array()
            .unwrap()
            .iter()
            .find(|t| t["name"] == "Extra")
            .unwrap()["id"]
            .clone();
        client
            .cloud(
                "POST",
                &format!("/services/{ANALYTICS}/stack/alerts"),
                Some(json!({
                    "dashboardId": id,
                    "tileId": tile,
                    "threshold": 5,
                    "interval": "5m",
                    "source": "tile",
                    "thresholdType": "above",
                    "channel": {"type": "webhook", "webhookId": "65f5e4a3b9e77c001a789012"},
                    "name": "Made by hand",
                })),
            )
            .result();
        apply.join().unwrap()
    });
    // Each step read the list after it started, sharing reads: never more than one per step
    // (besides the plan's read and the test's own).
    let reads = common::count(&sandbox, "GET", DASHBOARDS);
    assert!(reads <= COUNT + 2, "{reads} list reads for {COUNT} steps");
    applied.assert_exit(3);
    let stale = format!(
        "dashboard.prod.d{:03} changed since the plan was made",
        COUNT - 1
    );
    assert!(applied.stderr.contains(&stale), "{}", applied.stderr);
    assert!(
        applied
            .stderr
            .contains(&format!("apply: {} done, 0 failed, 1 stale", COUNT - 1)),
        "{}",
        applied.stderr
    );
    let kept = board(&sandbox, &last);
    let tiles: Vec<&str> = kept["tiles"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["name"].as_str().unwrap())
        .collect();
    assert_eq!(tiles, ["Requests", "Extra"]);
    assert!(names(&alerts(&sandbox)).contains(&"Made by hand".to_string()));
}

/// The names that appear more than once among `objects`.
fn doubled(objects: &[Value]) -> Vec<String> {
    let mut seen = names(objects);
    let all = seen.clone();
    seen.dedup();
    let mut doubled: Vec<String> = seen
        .into_iter()
        .filter(|name| all.iter().filter(|n| *n == name).count() > 1)
        .collect();
    doubled.sort();
    doubled
}

#[test]
fn two_applies_of_one_config_at_once_leave_no_duplicate() {
    let workspace = Workspace::new();
    let config = workspace.write("converge.yaml", &quickstart());
    let path = config.as_str();
    let mut cleaned = 0;
    for round in 0..5 {
        // Latency keeps both runs' checks before either create lands, so they both create.
        let sandbox = slow_sandbox(50);
        let (a, b) = std::thread::scope(|scope| {
            let a = scope.spawn(|| binary(&sandbox, &workspace).run(["apply", path, "--yes"]));
            let b = scope.spawn(|| binary(&sandbox, &workspace).run(["apply", path, "--yes"]));
            (a.join().unwrap(), b.join().unwrap())
        });
        let context = format!("round {round}:\n{}\n{}", a.stderr, b.stderr);
        assert_eq!(
            doubled(&dashboards(&sandbox)),
            Vec::<String>::new(),
            "{context}"
        );
        assert_eq!(
            doubled(&alerts(&sandbox)),
            Vec::<String>::new(),
            "{context}"
        );
        assert!(!plans_changes(&sandbox, &workspace, &config), "{context}");
        // Each run either applied, or found objects the other run changed first (stale).
        for run in [&a, &b] {
            assert!(matches!(run.code, 0 | 3), "{context}");
        }
        cleaned += [&a, &b]
            .iter()
            .filter(|run| run.stderr.contains("another run created this"))
            .count();
    }
    // The rounds exercise what the test is about: both runs created, one removed its copy.
    assert!(cleaned > 0, "no round had both runs create the same object");
}

#[test]
fn two_sandbox_applies_in_one_directory_keep_both_runs_writes() {
    let quickstart = common::quickstart_path();
    let quickstart = quickstart.as_str();
    // A round whose first run ends before the second starts has nothing to wait for: rounds go
    // on until one overlaps (on a loaded machine that may take more than one).
    let mut overlapped = 0;
    for _ in 0..5 {
        let dir = Workspace::new();
        let board = dir.write("board.yaml", &boards(1, "team-b"));
        let board = board.as_str();
        // No `CONVERGE_*` variable: `--sandbox` runs need none.
        let bare = Converge::offline().cwd(&dir);
        // Two configs, two runs side by side in one directory, so one `.converge/sandbox.json`.
        let (a, b) = std::thread::scope(|scope| {
            let a = scope.spawn(|| bare.run(["apply", "--sandbox", quickstart, "--yes"]));
            let b = scope.spawn(|| bare.run(["apply", "--sandbox", board, "--yes"]));
            (a.join().unwrap(), b.join().unwrap())
        });
        assert_eq!((a.code, b.code), (0, 0), "{a:?}\n{b:?}");
        // Nothing was lost: both runs' writes are in the state file.
        for config in [quickstart, board] {
            let next = bare.run(["plan", "--sandbox", config, "--detailed-exitcode"]);
            assert_eq!(next.code, 0, "{config}: {next:?}\n{a:?}\n{b:?}");
        }
        // At most one run waited for the other.
        let waited = [&a, &b]
            .into_iter()
            .filter(|run| run.stderr.contains("waiting for another converge run"))
            .count();
        assert!(waited <= 1, "{a:?}\n{b:?}");
        overlapped += waited;
        if overlapped > 0 {
            break;
        }
    }
    assert!(overlapped > 0, "no round had one run wait for the other");
}

#[test]
fn sandbox_serve_refuses_a_state_file_another_process_serves() {
    let dir = tempfile::tempdir().expect("a temp dir");
    let state = dir.path().join("world.json");
    let _serving = common::sandbox(SandboxOptions {
        state_file: Some(state.clone()),
        ..SandboxOptions::default()
    });
    let mut serve = Converge::offline()
        .command([
            "sandbox",
            "serve",
            "--port",
            "0",
            "--state",
            state.to_str().unwrap(),
        ])
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("the binary starts");
    // Refused at once; a server that started instead is stopped (bounded) and fails the test.
    let deadline = Instant::now() + Duration::from_secs(30);
    let status = loop {
        if let Some(status) = serve.try_wait().expect("a status") {
            break Some(status);
        }
        if Instant::now() > deadline {
            let _ = serve.kill();
            break None;
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    let mut stderr = String::new();
    std::io::Read::read_to_string(&mut serve.stderr.take().unwrap(), &mut stderr).unwrap();
    assert_eq!(status.and_then(|s| s.code()), Some(1), "{stderr}");
    assert!(
        stderr.contains("is in use by another converge process"),
        "{stderr}"
    );
}

/// One round of two applies of the quickstart at once against a sandbox whose creates lose
/// their answers (`faults`, drawn from `seed`) after the write: both runs' outcomes, and the
/// names left twice (dashboards, alerts).
pub fn racing_lost_answers(
    workspace: &Workspace,
    path: &str,
    faults: &str,
    seed: u64,
) -> (Outcome, Outcome, Vec<String>, Vec<String>) {
    let sandbox = common::sandbox(SandboxOptions {
        rate_limit: false,
        latency: Duration::from_millis(50),
        faults: faults.parse().expect("a fault spec"),
        fault_seed: seed,
        ..SandboxOptions::default()
    });
    let run = || {
        binary(&sandbox, workspace)
            .no_retry_delay()
            .run(["apply", path, "--yes"])
    };
    let (a, b) = std::thread::scope(|scope| {
        let a = scope.spawn(run);
        let b = scope.spawn(run);
        (a.join().unwrap(), b.join().unwrap())
    });
    let left = (doubled(&dashboards(&sandbox)), doubled(&alerts(&sandbox)));
    (a, b, left.0, left.1)
}

/// What a round of [`racing_lost_answers`] must show: no dashboard twice (a run finds its own
/// copy by its tag), and an alert left twice (a lost answer carries no id and an alert no tag)
/// is said by a run that fails, never left behind two runs that say done.
pub fn check_racing_round(
    round: u64,
    a: &Outcome,
    b: &Outcome,
    boards: &[String],
    alerts: &[String],
) {
    let context = format!("round {round}:\n{}\n{}", a.stderr, b.stderr);
    assert_eq!(boards, Vec::<String>::new(), "{context}");
    if !alerts.is_empty() {
        assert!(
            [a, b]
                .iter()
                .any(|run| run.code == 1 && words(&run.stderr).contains("exists more than once")),
            "{alerts:?} left twice, unreported: {context}"
        );
    }
    for run in [a, b] {
        assert!(matches!(run.code, 0 | 1 | 3), "{context}");
    }
}

#[test]
fn two_applies_at_once_whose_creates_lose_answers_leave_no_copy_unsaid() {
    let workspace = Workspace::new();
    let config = workspace.write("converge.yaml", &quickstart());
    let mut lost = 0;
    for round in 0..4 {
        let (a, b, boards, alerts) =
            racing_lost_answers(&workspace, config.as_str(), "504@POST=0.3", round);
        check_racing_round(round, &a, &b, &boards, &alerts);
        lost += [&a, &b]
            .iter()
            .filter(|run| words(&run.stderr).contains("the answer was lost"))
            .count();
    }
    assert!(lost > 0, "no create lost its answer");
}

#[test]
fn a_copy_another_run_is_about_to_remove_is_waited_for_not_reported_as_a_config_error() {
    let sandbox = common::sandbox(SandboxOptions {
        rate_limit: false,
        ..SandboxOptions::default()
    });
    let workspace = Workspace::new();
    let config = workspace.write("converge.yaml", &quickstart());
    binary(&sandbox, &workspace)
        .run(["apply", config.as_str(), "--yes"])
        .assert_exit(0);
    // Another run's copy of a managed dashboard, which that run removes a moment later.
    let client = common::Client::new(&sandbox);
    let mut copy = board(&sandbox, "API health");
    copy.as_object_mut().unwrap().remove("id");
    let path = format!("/services/{ANALYTICS}/stack/dashboards");
    let made = client.cloud("POST", &path, Some(copy)).result();
    let id = made["id"].as_str().unwrap().to_string();
    sandbox.reset_log();
    let applied = std::thread::scope(|scope| {
        let apply =
            scope.spawn(|| binary(&sandbox, &workspace).run(["apply", config.as_str(), "--yes"]));
        // The run read the copy; it goes a moment later.
        wait_for_requests(&sandbox, "GET", DASHBOARDS, 1);
        std::thread::sleep(Duration::from_millis(1500));
        client.cloud("DELETE", &format!("{path}/{id}"), None);
        apply.join().unwrap()
    });
    applied.assert_exit(0);
    let stderr = words(&applied.stderr);
    assert!(
        stderr.contains("perhaps another run's copy"),
        "{}",
        applied.stderr
    );
    assert!(!stderr.contains("all but one"), "{}", applied.stderr);
    assert_eq!(doubled(&dashboards(&sandbox)), Vec::<String>::new());
}

/// What is left after a round of [`racing_with_one_killed`].
pub struct KilledRound {
    /// The run that was not killed.
    pub survivor: Outcome,
    /// Dashboard names left twice.
    pub boards: Vec<String>,
    /// Alert names left twice.
    pub alerts: Vec<String>,
    /// A plan made afterwards.
    pub plan: Outcome,
    /// When a name was left twice: `apply --dedupe --allow-destroy` afterwards, and the names
    /// still twice after it (dashboards and alerts).
    pub repair: Option<(Outcome, Vec<String>)>,
    /// Whether a dashboard copy that is not the oldest of its name held alerts before the
    /// repair (the killed run's dashboard with its own alert copies).
    pub copy_held_alerts: bool,
    /// What the stack holds of the quickstart's objects at the end: each dashboard's name and
    /// id, and each alert's name and the id of its dashboard.
    pub end: (Pairs, Pairs),
    /// `plan --detailed-exitcode` at the end.
    pub end_plan: Outcome,
}

/// Objects' names, each with one member of the object (as text).
pub type Pairs = Vec<(String, String)>;

/// The id of an alert's dashboard, as either generation lists it.
fn dashboard_of(alert: &Value) -> &Value {
    match &alert["dashboard"] {
        Value::Null => &alert["dashboardId"],
        id => id,
    }
}

/// The quickstart's objects among `objects` (those named `name`): each one's name and the
/// text `member` picks, sorted.
fn name_and(objects: &[Value], name: &str, member: impl Fn(&Value) -> &Value) -> Pairs {
    let text = |v: &Value| v.as_str().unwrap_or_default().to_string();
    let mut pairs: Vec<(String, String)> = objects
        .iter()
        .filter(|o| o["name"] == name)
        .map(|o| (text(&o["name"]), text(member(o))))
        .collect();
    pairs.sort();
    pairs
}

/// Whether an alert points at a dashboard that is not the first (oldest) listed of its name.
fn copy_holds_alerts(boards: &[Value], alerts: &[Value]) -> bool {
    boards.iter().enumerate().any(|(i, board)| {
        let older = boards[..i].iter().any(|b| b["name"] == board["name"]);
        older && alerts.iter().any(|a| *dashboard_of(a) == board["id"])
    })
}

/// When a round of [`racing_with_one_killed`] kills its first run: once `count` creates of
/// the stack's `list` (`dashboards` or `alerts`) were served, or 5 s passed (the other run's
/// create may never come: its check found the first run's copy), then `delay` later.
#[derive(Clone, Copy, Debug)]
pub struct KillAt {
    /// `dashboards` or `alerts`.
    pub list: &'static str,
    /// How many creates of it to wait for.
    pub count: usize,
    /// How long after them.
    pub delay: Duration,
}

impl KillAt {
    /// The kill point of round `round`, in turn: at the first alert create; once both runs'
    /// dashboards were created (the run whose create landed last may be killed before its
    /// check); 40 ms and 120 ms after the first alert create.
    pub fn of_round(round: usize) -> KillAt {
        let at = |list, count, delay| KillAt {
            list,
            count,
            delay: Duration::from_millis(delay),
        };
        match round % 4 {
            0 => at("alerts", 1, 0),
            1 => at("dashboards", 2, 0),
            2 => at("alerts", 1, 40),
            _ => at("alerts", 1, 120),
        }
    }
}

/// One round of two applies of the quickstart at once, the first killed (SIGKILL) at `kill`:
/// the other run's outcome, the names left twice (dashboards, alerts), what a plan says
/// afterwards, the repair of what was left twice, and what is left at the end.
pub fn racing_with_one_killed(workspace: &Workspace, path: &str, kill: KillAt) -> KilledRound {
    let route = format!(
        "/v1/organizations/{{organizationId}}/services/{{serviceId}}/stack/{}",
        kill.list
    );
    let sandbox = slow_sandbox(50);
    let mut killed = binary(&sandbox, workspace)
        .command(["apply", path, "--yes"])
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .expect("the binary starts");
    let survivor = std::thread::scope(|scope| {
        let survivor = scope.spawn(|| binary(&sandbox, workspace).run(["apply", path, "--yes"]));
        let deadline = Instant::now() + Duration::from_secs(5);
        while common::count(&sandbox, "POST", &route) < kill.count && Instant::now() < deadline {
            std::thread::sleep(Duration::from_millis(2));
        }
        std::thread::sleep(kill.delay);
        // Already ended is fine: the round then races nothing.
        let _ = killed.kill();
        let _ = killed.wait();
        survivor.join().unwrap()
    });
    let copy_held_alerts = copy_holds_alerts(&dashboards(&sandbox), &alerts(&sandbox));
    let (boards, alerts_left) = (doubled(&dashboards(&sandbox)), doubled(&alerts(&sandbox)));
    let plan = binary(&sandbox, workspace).run(["plan", path]);
    let repair = (!boards.is_empty() || !alerts_left.is_empty()).then(|| {
        let repaired = binary(&sandbox, workspace).run([
            "apply",
            path,
            "--dedupe",
            "--yes",
            "--allow-destroy",
        ]);
        let mut still = doubled(&dashboards(&sandbox));
        still.extend(doubled(&alerts(&sandbox)));
        (repaired, still)
    });
    KilledRound {
        survivor,
        boards,
        alerts: alerts_left,
        plan,
        repair,
        copy_held_alerts,
        end: (
            name_and(&dashboards(&sandbox), "API health", |d| &d["id"]),
            name_and(&alerts(&sandbox), "API errors", dashboard_of),
        ),
        end_plan: binary(&sandbox, workspace).run(["plan", path, "--detailed-exitcode"]),
    }
}

/// What a round of [`racing_with_one_killed`] must show: a name left twice is said, by the run
/// that survived (it waited for the other run's copy, which never went) or by the next plan,
/// which names the copy to keep and offers the repair; `apply --dedupe` then leaves exactly
/// one of each, the alert on the dashboard that stays, and nothing to do.
pub fn check_killed_round(round: usize, left: &KilledRound) {
    let KilledRound { survivor, plan, .. } = left;
    let context = format!("round {round}:\n{}\n{}", survivor.stderr, plan.stderr);
    assert!(matches!(survivor.code, 0 | 1 | 3), "{context}");
    let twice: Vec<&String> = left.boards.iter().chain(&left.alerts).collect();
    if twice.is_empty() {
        return;
    }
    let (boards, alerts) = &left.end;
    let board_id = boards.first().map(|(_, id)| id.clone()).unwrap_or_default();
    assert_eq!(
        (boards.clone(), alerts.clone()),
        (
            vec![("API health".to_string(), board_id.clone())],
            vec![("API errors".to_string(), board_id)]
        ),
        "exactly one of each at the end: {context}"
    );
    assert_eq!(
        left.end_plan.code, 0,
        "nothing to do at the end: {context}\n{}",
        left.end_plan.stderr
    );
    let said = survivor.code == 1 && words(&survivor.stderr).contains("exists more than once");
    let planned = plan.code == 1 && words(&plan.stderr).contains("keep the");
    assert!(said || planned, "{twice:?} left twice, unsaid: {context}");
    assert!(planned, "the plan names the copy to keep: {context}");
    assert!(
        words(&plan.stderr).contains("converge apply --dedupe --allow-destroy"),
        "the plan offers the repair: {context}"
    );
    let Some((repaired, still)) = &left.repair else {
        panic!("a name left twice was not repaired: {context}");
    };
    assert_eq!(repaired.code, 0, "{context}\n{}", repaired.stderr);
    assert_eq!(
        still,
        &Vec::<String>::new(),
        "{context}\n{}",
        repaired.stderr
    );
}

#[test]
fn two_applies_at_once_one_killed_leave_no_copy_unsaid() {
    let workspace = Workspace::new();
    let config = workspace.write("converge.yaml", &quickstart());
    for round in 0..2 {
        let left = racing_with_one_killed(&workspace, config.as_str(), KillAt::of_round(round));
        check_killed_round(round, &left);
    }
}
