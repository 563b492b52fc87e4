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
