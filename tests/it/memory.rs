//! The memory bounds of a 25 MB config (issue 26): the `large` seed 32 times over, served by the
//! sandbox so the plan is a no-op, measured by `/usr/bin/time` around the real binary. Before
//! the work both `validate` and `plan` peaked at 826 MiB (32 bytes per byte of YAML); in the
//! debug build they now peak at about 204 MiB (`validate`) and 231 MiB (`plan`): the plan no
//! longer holds its no-op changes' values, a tile's series keep no spare room, the build frees
//! each built tile and alert from the YAML tree, the live state is read into the same heap
//! the tree was freed from, the schema check validates a stack's dashboards and alerts one at a
//! time, the tree's keys and strings are inline up to 23 bytes, a span is 24 bytes, and the live
//! tiles' `config` and pipes' free-form members are held as compact JSON text, not trees, and
//! the typed config boxes the optional fields most configs leave out and holds its keys, names
//! and fields inline up to 23 bytes too. The bounds keep that with about 5% room. The issue's
//! target, a plan in under 256 MiB, is met (BENCHMARKS.md, "Memory of a large config").
//! Ignored by default (it writes a 25 MB config and a 55 MB sandbox state); CI runs it in its
//! ignored step.

use std::path::Path;

use converge::sandbox::{SandboxOptions, Seed, write_large_estate};

use crate::common::{self, Converge, Workspace};

/// `validate` of the 25 MB config stays under this (826 MiB before, 377 MiB after the schema
/// check was split, about 330 MiB before the build freed built tiles and alerts from the tree,
/// about 308 MiB before a stack's entries were cut apart, its strings held inline and its
/// spans shrunk, about 227 MiB before the typed config shrunk, about 204 MiB now).
const VALIDATE_BOUND_KIB: u64 = 215 * 1024;
/// A no-op `plan` of it stays under this (826 MiB before; 730 MiB against today's generation
/// before its no-op values were dropped and its reads moved to the awaiting thread; about
/// 334 MiB before the load's strings and spans shrunk, about 320 MiB before the live tiles'
/// `config` trees became compact text, about 254 MiB before the typed config shrunk, about
/// 231 MiB now: the typed config beside the live state and the plan). Issue 26's target is
/// 256 MiB.
const PLAN_BOUND_KIB: u64 = 243 * 1024;
/// The same plan as JSON (82 MB of it) stays under this: it streams (issue 38, part 5), so it
/// holds the plan with every object's values (a JSON plan keeps unchanged values) but never the
/// document; about 547 MiB in the debug build (the release build: 625 MiB before, 527 MiB now).
const JSON_PLAN_BOUND_KIB: u64 = 575 * 1024;
/// How many times the `large` seed the estate is: 32 times is just over 25 MB of YAML.
const SCALE: usize = 32;

/// The peak resident memory (KiB) and the outcome of `converge COMMAND CONFIG`, measured by
/// `/usr/bin/time -f %M` (GNU time; the CI image has it).
fn peak_of(converge: &Converge, workspace: &Workspace, command: &[&str]) -> (u64, common::Outcome) {
    let report = workspace.file(&format!("{}.peak", command.join("-")));
    let time = Path::new("/usr/bin/time");
    assert!(
        time.exists(),
        "the memory bound needs GNU time at /usr/bin/time"
    );
    let outcome = converge
        .clone()
        .under(&[time.to_str().unwrap_or_default(), "-f", "%M", "-o", &report])
        .run(command.iter().copied());
    let text = std::fs::read_to_string(&report).expect("/usr/bin/time wrote its report");
    let kib = text
        .lines()
        .rev()
        .find_map(|line| line.trim().parse().ok())
        .expect("the report ends with the peak in KiB");
    (kib, outcome)
}

#[test]
#[ignore = "writes a 25 MB config and plans it; CI runs it in the ignored step"]
fn a_25_mb_config_validates_and_plans_within_its_memory_bounds() {
    let workspace = Workspace::new();
    let state = workspace.path().join("world.json");
    let config = write_large_estate(SCALE, &state).expect("the estate is written");
    assert!(config.len() >= 25_000_000, "{} bytes", config.len());
    let sandbox = common::sandbox(SandboxOptions {
        seed: Seed::Large,
        state_file: Some(state),
        rate_limit: false,
        ..SandboxOptions::default()
    });
    let converge = Converge::new(&sandbox).fast().config(&config);
    let (validate, outcome) = peak_of(&converge, &workspace, &["validate"]);
    outcome.assert_exit(0);
    let (json, json_outcome) = peak_of(&converge, &workspace, &["plan", "--format", "json"]);
    json_outcome.assert_exit(0);
    assert!(
        json_outcome
            .stdout
            .starts_with("{\n  \"format\": \"converge-plan/1\"")
    );
    assert!(json_outcome.stdout.ends_with("}\n"));
    let (plan, outcome) = peak_of(&converge, &workspace, &["plan"]);
    outcome.assert_exit(0);
    eprintln!(
        "{} bytes of YAML: validate {} KiB, plan {} KiB, JSON plan {} KiB ({} bytes)",
        config.len(),
        validate,
        plan,
        json,
        json_outcome.stdout.len()
    );
    common::converge_snapshot!("memory_plan_of_a_25_mb_config", outcome);
    assert!(plan < PLAN_BOUND_KIB, "plan peaked at {plan} KiB");
    assert!(
        json < JSON_PLAN_BOUND_KIB,
        "the JSON plan peaked at {json} KiB"
    );
    assert!(
        validate < VALIDATE_BOUND_KIB,
        "validate peaked at {validate} KiB"
    );
}

/// A no-op text `plan` of the config `export` writes for the same estate (today's export
/// shape: 30.9 MB at 32 times the seed, its tiles written as `config:` maps) stays under this:
/// about 335 MiB in the debug build (issue 38 measured 321 MiB in a release build). Issue 38's
/// target, 256 MiB, is not met (BENCHMARKS.md, "The text plan of an exported estate"); the
/// bound keeps today's figure with about 5% room.
const EXPORT_PLAN_BOUND_KIB: u64 = 352 * 1024;

#[test]
#[ignore = "exports a 31 MB config and plans it; CI runs it in the ignored step"]
fn the_text_plan_of_an_exported_estate_stays_within_its_memory_bound() {
    let workspace = Workspace::new();
    let state = workspace.path().join("world.json");
    write_large_estate(SCALE, &state).expect("the estate is written");
    let sandbox = common::sandbox(SandboxOptions {
        seed: Seed::Large,
        state_file: Some(state),
        rate_limit: false,
        ..SandboxOptions::default()
    });
    let ids = common::service_ids(&sandbox);
    let mut args = vec!["export".to_string()];
    for id in &ids {
        args.extend(["--service".to_string(), id.clone()]);
    }
    // The seed's managed stack lives on its first service.
    args.extend([
        "--stack".to_string(),
        ids[0].clone(),
        "--observability".into(),
    ]);
    let exported = Converge::new(&sandbox).fast().run(&args);
    exported.assert_exit(0);
    assert!(
        exported.stdout.len() >= 30_000_000,
        "{} bytes",
        exported.stdout.len()
    );
    let converge = Converge::new(&sandbox)
        .fast()
        .config_as("exported.yaml", &exported.stdout);
    let (plan, outcome) = peak_of(&converge, &workspace, &["plan", "--detailed-exitcode"]);
    outcome.assert_exit(0);
    eprintln!(
        "{} bytes of exported YAML: plan {plan} KiB",
        exported.stdout.len()
    );
    assert!(
        plan < EXPORT_PLAN_BOUND_KIB,
        "the plan of the export peaked at {plan} KiB"
    );
}
