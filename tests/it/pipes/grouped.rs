//! Pipes grouped by service (issue 38, part 3): an apply of 100 pipe changes of every kind
//! (in place, paused for the change, replaced, stopped, started, created) on four services
//! checks each service's steps against one read of its pipes list per rate window, and its
//! steps' polls (a state showing, an old pipe gone), state looks and copy checks share those
//! reads instead of reading the list each. Counted from the sandbox's log, under the cloud
//! key's limit scaled to a second.

use converge::sandbox::{SandboxOptions, Seed};

use crate::common::{self, Client, Converge};
use crate::pipes::CANARIES;

/// Services of the `large` seed the pipes go on: its first four, all running.
const SERVICES: usize = 4;

/// The ids of the first [`SERVICES`] running services of the sandbox, by name.
fn services(sandbox: &converge::sandbox::SandboxHandle) -> Vec<String> {
    let listed = Client::new(sandbox)
        .cloud("GET", "/services", None)
        .result();
    let mut running: Vec<(String, String)> = listed
        .as_array()
        .expect("a services list")
        .iter()
        .filter(|s| s["state"] == "running")
        .map(|s| {
            let field = |name: &str| s[name].as_str().unwrap_or_default().to_string();
            (field("name"), field("id"))
        })
        .collect();
    running.sort();
    running
        .into_iter()
        .take(SERVICES)
        .map(|(_, id)| id)
        .collect()
}

/// What a pipe of the fleet is made to do by the changed config.
#[derive(Clone, Copy, PartialEq)]
enum Change {
    /// A setting changed in place (one `PATCH`).
    InPlace,
    /// A table mapping changed, which the pipe is stopped for.
    Paused,
    /// A field fixed at creation changed: deleted and created again.
    Replaced,
    /// `state: stopped`.
    Stopped,
    /// Created `state: stopped`, then `state: running`.
    Started,
    /// Not there before.
    Created,
}

/// The change of pipe `p` of a service (25 each): 13 in place, 3 paused and 3 replaced, 2
/// stopped, 2 started and 2 created.
fn change_of(p: usize) -> Change {
    match p {
        0..13 => Change::InPlace,
        13..16 => Change::Paused,
        16..19 => Change::Replaced,
        19..21 => Change::Stopped,
        21..23 => Change::Started,
        _ => Change::Created,
    }
}

/// One pipe, `changed` or as first created.
fn pipe(s: usize, p: usize, changed: bool) -> String {
    let key = format!("      p{p:02}:\n        name: s{s} pipe {p:02}\n");
    let change = change_of(p);
    if change == Change::Paused {
        let table = if changed { "orders_v2" } else { "orders" };
        return format!(
            "{key}        source:\n          postgres:\n            host: db{s}.example.com\n            port: 5432\n            database: shop\n            credentials:\n              username: ${{env:PIPE_REPLICA_USERNAME}}\n              password: ${{env:PIPE_REPLICA_PASSWORD}}\n            settings: {{ replicationMode: cdc, syncIntervalSeconds: 60 }}\n            tableMappings:\n              - {{ sourceSchemaName: public, sourceTable: orders{p}, targetTable: {table} }}\n        destination:\n          database: shop{p}\n"
        );
    }
    let state = match (change, changed) {
        (Change::Stopped, true) | (Change::Started, false) => "        state: stopped\n",
        (Change::Started, true) => "        state: running\n",
        _ => "",
    };
    let folder = if changed && change == Change::Replaced {
        "v2"
    } else {
        "v1"
    };
    let threads = if changed && change == Change::InPlace {
        16
    } else {
        8
    };
    format!(
        "{key}{state}        source:\n          objectStorage: {{ type: s3, url: 'https://bucket.s3.amazonaws.com/{folder}/s{s}p{p}/*.json', format: JSONEachRow, isContinuous: true, authentication: IAM_ROLE, iamRole: 'arn:aws:iam::1:role/r' }}\n        destination:\n          database: default\n          table: s{s}p{p}\n          managedTable: false\n          columns: [{{ name: line, type: String }}]\n        fieldMappings: [{{ sourceField: line, destinationField: line }}]\n        settings: {{ db_max_threads: {threads} }}\n"
    )
}

/// The config of the fleet on `services`: as first created, or with every pipe changed (and
/// the created ones added).
fn fleet(services: &[String], changed: bool) -> String {
    let mut text = String::from(
        "version: 1\norganization: ${env:CONVERGE_ORG_ID}\ncloud:\n  url: ${env:CONVERGE_CLOUD_URL}\n  keyId: ${env:CONVERGE_KEY_ID}\n  keySecret: ${env:CONVERGE_KEY_SECRET}\nservices:\n",
    );
    for (s, id) in services.iter().enumerate() {
        text.push_str(&format!("  s{s}:\n    id: {id}\n    pipes:\n"));
        for p in 0..25 {
            if changed || change_of(p) != Change::Created {
                text.push_str(&pipe(s, p, changed));
            }
        }
    }
    text
}

#[test]
fn a_hundred_mixed_pipe_changes_share_their_services_reads() {
    let sandbox = common::sandbox(SandboxOptions {
        seed: Seed::Large,
        rate_limit: false,
        rate_window_divisor: 10,
        ..SandboxOptions::default()
    });
    let services = services(&sandbox);
    let converge = |config: &str| {
        Converge::new(&sandbox)
            .env("CONVERGE_CLOUD_RATE_LIMIT", "10/1s")
            .env("CONVERGE_OBSERVABILITY_RATE_LIMIT", "100/1s")
            .envs(CANARIES)
            .config(config)
    };
    converge(&fleet(&services, false))
        .run(["apply", "--yes"])
        .assert_exit(0);
    sandbox.set_rate_limit(true);
    std::thread::sleep(std::time::Duration::from_millis(1100));
    let changed = converge(&fleet(&services, true));
    let before = sandbox.request_log().len();
    let planned = changed.run(["plan", "--detailed-exitcode"]);
    assert_eq!(planned.code, 2, "{planned:?}");
    assert!(
        planned
            .stdout
            .starts_with("Plan: 20 to create, 80 to update, 12 to delete,"),
        "{}",
        planned.stdout.lines().next().unwrap_or_default()
    );
    let plan_requests = sandbox.request_log().len() - before;
    std::thread::sleep(std::time::Duration::from_millis(1100));
    let before = sandbox.request_log().len();
    let applied = changed.run(["apply", "--yes", "--allow-destroy"]);
    assert_eq!(applied.code, 0, "{applied:?}");
    let log = sandbox.request_log();
    let run = &log[before + plan_requests..];
    let writes = run.iter().filter(|e| e.method != "GET").count();
    let mut routes = std::collections::BTreeMap::<String, usize>::new();
    for e in run {
        *routes
            .entry(format!("{} {}", e.method, e.route))
            .or_default() += 1;
    }
    assert!(run.iter().all(|e| e.status != 429), "{routes:#?}");
    // The writes the 100 changes need: 52 in place, 4 for each pause (the mark, the stop, the
    // edit, the mark's removal), 2 for each replacement, 1 for each stop, start and create.
    assert_eq!(writes, 52 + 12 * 4 + 12 * 2 + 8 + 8 + 8, "{routes:#?}");
    // One read per window checks a service's writes, and the polls for states and for old
    // pipes to go share it: 187 requests on a quiet machine (73 reads when every poll, copy
    // check and state look read the list of its own), bounded with room for a loaded one.
    assert!(
        run.len() * 10 <= writes * 13,
        "{} requests for {writes} writes: {routes:#?}",
        run.len()
    );
    changed.run(["plan", "--detailed-exitcode"]).assert_exit(0);
}
