//! `--only` (plan, apply) and drift's `--ignore`: a glob that matches no address the config or
//! the live state knows is a typo, reported with the closest addresses and exit 1, so CI never
//! reads "no changes" from a filter that filtered everything out.

use crate::common::{self, Converge, Workspace, quickstart, writes};

#[test]
fn an_only_glob_that_matches_nothing_fails_plan_and_lists_the_closest_addresses() {
    let sandbox = common::fast_sandbox();
    let dir = Workspace::new();
    let path = dir.write("config.yaml", &quickstart());
    let converge = Converge::new(&sandbox).fast().cwd(&dir);
    let path = path.as_str();
    for extra in [&[][..], &["--detailed-exitcode"][..]] {
        let mut args = vec!["plan", path, "--only", "pipe.analytic.*"];
        args.extend_from_slice(extra);
        let out = converge.run(&args);
        assert_eq!(out.code, 1, "{args:?}: {out:?}");
        assert!(out.stdout.is_empty(), "no plan is printed: {}", out.stdout);
        // The glob, that it matches no address, and the closest: the three pipes' scaling.
        common::converge_snapshot!("only_matches_nothing", out);
    }
    // A glob that matches something and one that does not: still an error, naming the bad one.
    let out = converge.run([
        "plan",
        path,
        "--only",
        "pipe.*",
        "--only",
        "dashbaord.prod.*",
    ]);
    out.assert_exit(1);
    // Only the bad glob is named, with the closest address, `dashboard.prod.api-health`.
    common::converge_snapshot!("only_one_glob_matches_nothing", out);
}

#[test]
fn a_glob_matching_only_objects_in_sync_or_unmanaged_is_fine() {
    let sandbox = common::fast_sandbox();
    let dir = Workspace::new();
    let path = dir.write("config.yaml", &quickstart());
    let converge = Converge::new(&sandbox).fast().cwd(&dir);
    let path = path.as_str();
    let applied = converge.run(["apply", path, "--yes"]);
    applied.assert_exit(0);
    // Everything is in sync now; the demo's untagged dashboard is known to the live state.
    for glob in [
        "service.analytics.scaling",
        "dashboard.prod.*",
        "dashboard.prod[\"On-call*",
        "check.*",
    ] {
        let out = converge.run(["plan", path, "--only", glob, "--detailed-exitcode"]);
        assert_eq!(out.code, 0, "{glob}: {out:?}");
    }
}

#[test]
fn apply_with_an_only_glob_that_matches_nothing_writes_nothing_and_exits_1() {
    let sandbox = common::fast_sandbox();
    let dir = Workspace::new();
    let path = dir.write("config.yaml", &quickstart());
    let converge = Converge::new(&sandbox).fast().cwd(&dir);
    let path = path.as_str();
    let out = converge.run(["apply", path, "--yes", "--only", "pipe.analytic.*"]);
    out.assert_exit(1);
    assert!(
        out.stderr.contains("pipe.analytics.orders.scaling"),
        "{}",
        out.stderr
    );
    assert!(writes(&sandbox).is_empty(), "{:?}", writes(&sandbox));

    // The same with a saved plan: its addresses are what the glob must match.
    let saved = dir.path().join("plan.json");
    let planned = converge.run(["plan", path, "--out", saved.to_str().unwrap()]);
    planned.assert_exit(0);
    let out = converge.run([
        "apply",
        "--plan",
        saved.to_str().unwrap(),
        "--yes",
        "--only",
        "alert.prod.api-erors",
    ]);
    out.assert_exit(1);
    assert!(
        out.stderr.contains("alert.prod.api-errors"),
        "{}",
        out.stderr
    );
    assert!(writes(&sandbox).is_empty(), "{:?}", writes(&sandbox));
}

#[test]
fn a_drift_ignore_pattern_that_matches_nothing_fails_but_a_field_in_sync_is_fine() {
    let sandbox = common::fast_sandbox();
    let dir = Workspace::new();
    let path = dir.write("config.yaml", &quickstart());
    let converge = Converge::new(&sandbox).fast().cwd(&dir);
    let path = path.as_str();
    let out = converge.run([
        "drift",
        path,
        "--ignore",
        "service.analytics.scaling.numReplica",
    ]);
    out.assert_exit(1);
    assert!(
        out.stderr.contains("service.analytics.scaling.numReplicas"),
        "{}",
        out.stderr
    );
    // A field the config sets is a valid pattern even where nothing differs.
    let out = converge.run([
        "drift",
        path,
        "--ignore",
        "dashboard.prod.api-health.tiles[Requests].w",
    ]);
    assert_eq!(out.code, 2, "drift found, no error: {out:?}");
}

/// The addresses a text plan prints: each change's heading and each step.
fn printed_addresses(plan: &str) -> Vec<String> {
    let mut addresses = Vec::new();
    for line in plan.lines() {
        let heading = line
            .strip_prefix("  ")
            .and_then(|rest| rest.split_once(' '))
            .filter(|(sign, _)| !sign.is_empty() && sign.chars().all(|c| "+-~/!?".contains(c)))
            .map(|(_, rest)| rest);
        let step = line
            .trim_start()
            .split_once(". ")
            .filter(|(n, _)| !n.is_empty() && n.chars().all(|c| c.is_ascii_digit()))
            .map(|(_, rest)| rest);
        if let Some(rest) = heading.or(step) {
            let address = rest.split("  ").next().unwrap_or(rest);
            let address = address.split(" (after").next().unwrap_or(address).trim();
            if address.contains('.') && !addresses.iter().any(|a| a == address) {
                addresses.push(address.to_string());
            }
        }
    }
    addresses
}

#[test]
fn every_address_the_plan_prints_is_taken_by_only() {
    let sandbox = common::fast_sandbox();
    let dir = Workspace::new();
    let pipes = std::fs::read_to_string(common::root().join("examples/pipes.yaml"))
        .expect("examples/pipes.yaml")
        .replace("http://127.0.0.1:8080", "${env:CONVERGE_CLOUD_URL}");
    let mut converge = Converge::new(&sandbox).fast().cwd(&dir);
    let references = pipes.split("${env:").skip(1);
    for name in references.filter_map(|s| s.split('}').next().filter(|n| n.starts_with("PIPE_"))) {
        converge = converge.env(name, "a-test-value");
    }
    for (file, text) in [
        ("pipes.yaml", pipes.clone()),
        ("quickstart.yaml", quickstart()),
    ] {
        let path = dir.write(file, &text);
        let plan = converge.run(["plan", path.as_str()]);
        plan.assert_exit(0);
        let addresses = printed_addresses(&plan.stdout);
        assert!(
            addresses.iter().any(|a| a == "pipe.analytics.stream")
                || addresses.iter().any(|a| a == "alert.prod.api-errors"),
            "{addresses:?}\n{}",
            plan.stdout
        );
        for address in &addresses {
            let only = converge.run(["plan", path.as_str(), "--only", address.as_str()]);
            assert_eq!(only.code, 0, "--only {address}: {only:?}");
            assert!(
                only.stdout.contains(&format!(" {address}  ")),
                "--only {address} keeps its change:\n{}",
                only.stdout
            );
        }
    }
}
