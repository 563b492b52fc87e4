//! Fault soak: apply and re-plan the `large` seed while the sandbox injects 429s, 500s, 503s,
//! reset connections and lost answers (a lost answer means the write happened), for several
//! fault seeds, with rate limits and retry delays off so it stays about a minute in debug.
//!
//! Before each run the world is put out of line with the config through the API: some
//! dashboards of each stack are deleted (their alerts go with them), a private endpoint is
//! detached from some services; the config (`large_config(CHANGE_EVERY)`) also changes scaling,
//! tags and thresholds. So the apply creates, attaches and updates; creates and attaches are the
//! writes a faulty network can duplicate. After the apply, a sandbox without faults serves the
//! same world: every dashboard, alert and endpoint exists exactly once (no duplicate, nothing
//! lost) and the next plan is empty (every change landed).

use std::collections::BTreeMap;
use std::path::Path;

use converge::sandbox::{SandboxHandle, SandboxOptions, Seed, large_config};
use serde_json::{Value, json};

use crate::common;

const FAULTS: &str = "429=0.05,500=0.04,503=0.04,reset=0.03,lost=0.04";
const FAULT_SEEDS: [u64; 3] = [11, 23, 37];
const CHANGE_EVERY: usize = 4;
/// Dashboards deleted from each stack before the apply (every `DELETE_EVERY`-th one).
const DELETE_EVERY: usize = 15;
/// Services that get one private endpoint detached before the apply (every `DETACH_EVERY`-th).
const DETACH_EVERY: usize = 5;

/// The stack paths: the managed stack of the first service (cloud key) and the standalone one.
struct Stacks {
    managed_service: String,
}

impl Stacks {
    fn list(&self, client: &common::Client, kind: &str) -> Vec<Value> {
        // Alerts are paged (100 by default); one page of 1,000 holds a stack's 500.
        let query = if kind == "alerts" { "?limit=1000" } else { "" };
        let managed = client
            .cloud(
                "GET",
                &format!("/services/{}/stack/{kind}{query}", self.managed_service),
                None,
            )
            .result();
        let standalone = client.obs("GET", &format!("/{kind}{query}"), None).data();
        let mut all = Vec::new();
        for (stack, list) in [("managed", managed), ("global", standalone)] {
            for object in list.as_array().cloned().unwrap_or_default() {
                all.push(json!({"stack": stack, "object": object}));
            }
        }
        all
    }
}

/// `stack/name` of each object, counted.
fn by_name(objects: &[Value]) -> BTreeMap<String, usize> {
    let mut counts = BTreeMap::new();
    for entry in objects {
        let name = format!(
            "{}/{}",
            entry["stack"].as_str().unwrap_or_default(),
            entry["object"]["name"].as_str().unwrap_or_default()
        );
        *counts.entry(name).or_insert(0) += 1;
    }
    counts
}

/// Each service's id with its attached private endpoint ids (sorted, duplicates kept).
fn endpoints(client: &common::Client) -> BTreeMap<String, Vec<String>> {
    let services = client.cloud("GET", "/services", None).result();
    services
        .as_array()
        .cloned()
        .unwrap_or_default()
        .iter()
        .map(|service| {
            let mut ids: Vec<String> = service["privateEndpointIds"]
                .as_array()
                .cloned()
                .unwrap_or_default()
                .iter()
                .filter_map(|id| id.as_str().map(str::to_string))
                .collect();
            ids.sort();
            (service["id"].as_str().unwrap_or_default().to_string(), ids)
        })
        .collect()
}

/// The whole seed as it should be after a good apply, read before anything is changed.
struct Expected {
    dashboards: BTreeMap<String, usize>,
    alerts: BTreeMap<String, usize>,
    endpoints: BTreeMap<String, Vec<String>>,
}

fn calm(state: &Path) -> SandboxHandle {
    common::sandbox(SandboxOptions {
        seed: Seed::Large,
        rate_limit: false,
        state_file: Some(state.to_path_buf()),
        ..SandboxOptions::default()
    })
}

/// Reads the seed's world, then deletes and detaches through the API; returns what a good
/// apply must restore and how many objects were taken away.
fn prepare(state: &Path) -> (Expected, Stacks, usize) {
    let sandbox = calm(state);
    let client = common::Client::new(&sandbox);
    let endpoints_before = endpoints(&client);
    // The managed stack belongs to the seed's first service, listed first.
    let services = client.cloud("GET", "/services", None).result();
    let managed_service = services[0]["id"]
        .as_str()
        .expect("the large seed has services")
        .to_string();
    let stacks = Stacks { managed_service };
    let dashboards = stacks.list(&client, "dashboards");
    let alerts = stacks.list(&client, "alerts");
    assert_eq!((dashboards.len(), alerts.len()), (300, 1000));
    let expected = Expected {
        dashboards: by_name(&dashboards),
        alerts: by_name(&alerts),
        endpoints: endpoints_before.clone(),
    };

    let mut removed = 0;
    for (i, entry) in dashboards.iter().enumerate() {
        if i % DELETE_EVERY != 0 {
            continue;
        }
        let id = entry["object"]["id"].as_str().expect("a dashboard id");
        let answer = if entry["stack"] == "managed" {
            client.cloud(
                "DELETE",
                &format!("/services/{}/stack/dashboards/{id}", stacks.managed_service),
                None,
            )
        } else {
            client.obs("DELETE", &format!("/dashboards/{id}"), None)
        };
        assert!(answer.status < 300, "{}", answer.text);
        removed += 1;
    }
    for (i, (service, ids)) in endpoints_before.iter().enumerate() {
        let Some(first) = ids.first().filter(|_| i % DETACH_EVERY == 0) else {
            continue;
        };
        let answer = client.cloud(
            "PATCH",
            &format!("/services/{service}"),
            Some(json!({"privateEndpointIds": {"remove": [first]}})),
        );
        assert_eq!(answer.status, 200, "{}", answer.text);
        removed += 1;
    }
    let left = stacks.list(&client, "dashboards").len();
    assert!(left < 300, "the preparation deleted nothing");
    (expected, stacks, removed)
}

/// Runs the binary against `sandbox` in `dir` with the client's own pacing and retry delays off.
fn converge(sandbox: &SandboxHandle, dir: &Path, args: &[&str]) -> std::process::Output {
    common::converge(sandbox)
        .current_dir(dir)
        .env("CONVERGE_CLOUD_RATE_LIMIT", "1000/1s")
        .env("CONVERGE_OBSERVABILITY_RATE_LIMIT", "1000/1s")
        .env("CONVERGE_TEST_NO_RETRY_DELAY", "1")
        .args(args)
        .output()
        .expect("the binary runs")
}

#[test]
fn the_large_seed_converges_under_faults_with_no_duplicate_and_nothing_lost() {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let config = dir.path().join("large.yaml");
    std::fs::write(&config, large_config(CHANGE_EVERY)).expect("the config is written");
    let config = config.to_str().expect("a UTF-8 path");
    let mut faults_seen: BTreeMap<String, usize> = BTreeMap::new();
    let mut ambiguous_writes = 0;
    for seed in FAULT_SEEDS {
        let state = dir.path().join(format!("world-{seed}.json"));
        let (expected, stacks, removed) = prepare(&state);
        assert!(removed > 0);

        let faulty = common::sandbox(SandboxOptions {
            seed: Seed::Large,
            rate_limit: false,
            faults: FAULTS.parse().expect("a fault spec"),
            fault_seed: seed,
            state_file: Some(state.clone()),
            ..SandboxOptions::default()
        });
        let applied = converge(&faulty, dir.path(), &["apply", config, "--yes"]);
        assert_eq!(
            applied.status.code(),
            Some(0),
            "seed {seed}: {}",
            String::from_utf8_lossy(&applied.stderr)
        );
        for entry in faulty.request_log() {
            if let Some(fault) = &entry.fault {
                *faults_seen.entry(fault.clone()).or_insert(0) += 1;
                if entry.method != "GET" && fault != "429" {
                    ambiguous_writes += 1;
                }
            }
        }
        drop(faulty);

        let calm = calm(&state);
        let client = common::Client::new(&calm);
        assert_eq!(
            by_name(&stacks.list(&client, "dashboards")),
            expected.dashboards,
            "seed {seed}: every dashboard exactly once"
        );
        assert_eq!(
            by_name(&stacks.list(&client, "alerts")),
            expected.alerts,
            "seed {seed}: every alert exactly once"
        );
        assert_eq!(
            endpoints(&client),
            expected.endpoints,
            "seed {seed}: every endpoint attached exactly once"
        );
        let replanned = converge(&calm, dir.path(), &["plan", config, "--detailed-exitcode"]);
        assert_eq!(
            replanned.status.code(),
            Some(0),
            "seed {seed}: the plan after the apply must be empty: {}",
            String::from_utf8_lossy(&replanned.stdout)
        );
    }
    // The soak exercised what it is about: every fault kind, and writes whose outcome the
    // client could not know.
    for fault in ["429", "500", "503", "reset", "lost"] {
        assert!(
            faults_seen.get(fault).copied().unwrap_or(0) > 0,
            "no {fault} was injected: {faults_seen:?}"
        );
    }
    assert!(ambiguous_writes > 0, "no write failed ambiguously");
}
