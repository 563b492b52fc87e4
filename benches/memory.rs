//! Peak resident memory and CPU time of `converge validate`, a no-op `converge plan` and the
//! same plan as JSON (`--format json`, which streams; issue 38, part 5) (the release binary) on the `large` seed 1, 4, 16 and 32 times over (issue 26): the sandbox
//! serves the same estate ([`write_large_estate`]), without rate limits, so the plan reads it
//! all and finds nothing to change. Each figure is `/usr/bin/time`'s (`%M`: peak resident KiB;
//! `%U + %S`: CPU seconds) for the one process.
//!
//! Run with `cargo bench --bench memory` (or `cargo bench --bench memory -- 16 32` for some
//! scales). A plain harness: each scale runs each command once; 32x takes about a minute.
//! `CONVERGE_BENCH_KEEP=DIR` keeps each scale's config and sandbox state in `DIR/<scale>x`;
//! `CONVERGE_BENCH_BINARY=PATH` measures that binary instead of this build's.

use std::path::Path;
use std::process::Command;

use converge::sandbox::{SandboxHandle, SandboxOptions, Seed, write_large_estate};

const TIME: &str = "/usr/bin/time";

/// Where one scale's estate is written: a temp dir, or a kept one.
enum Kept {
    Temp(tempfile::TempDir),
    Dir(std::path::PathBuf),
}

impl Kept {
    fn path(&self) -> &Path {
        match self {
            Kept::Temp(dir) => dir.path(),
            Kept::Dir(path) => path,
        }
    }
}

/// Peak resident memory (MiB) and CPU seconds of `converge COMMAND CONFIG`.
fn measure(
    binary: &str,
    command: &[&str],
    config: &Path,
    sandbox: &SandboxHandle,
    report: &Path,
) -> (f64, f64) {
    let output = Command::new(TIME)
        .args(["-f", "%M %U %S", "-o"])
        .arg(report)
        .arg(binary)
        .args(command)
        .arg(config)
        .envs(sandbox.environment())
        .env("CONVERGE_CLOUD_RATE_LIMIT", "100000/1s")
        .env("CONVERGE_OBSERVABILITY_RATE_LIMIT", "100000/1s")
        .env("NO_COLOR", "1")
        .output()
        .expect("the binary runs under /usr/bin/time");
    assert_eq!(
        output.status.code(),
        Some(0),
        "{command:?}: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    if command == ["plan"] {
        let stdout = String::from_utf8_lossy(&output.stdout);
        assert!(stdout.contains("No changes"), "a no-op plan: {stdout}");
    } else if command.contains(&"json") {
        assert!(
            output
                .stdout
                .starts_with(b"{\n  \"format\": \"converge-plan/1\"")
        );
        assert!(output.stdout.ends_with(b"}\n"));
    }
    let text = std::fs::read_to_string(report).expect("/usr/bin/time wrote its report");
    let fields: Vec<f64> = text
        .lines()
        .last()
        .unwrap_or_default()
        .split_whitespace()
        .filter_map(|f| f.parse().ok())
        .collect();
    assert_eq!(fields.len(), 3, "the report: {text}");
    (fields[0] / 1024.0, fields[1] + fields[2])
}

fn main() {
    assert!(
        Path::new(TIME).exists(),
        "the memory bench needs GNU time at {TIME}"
    );
    let scales: Vec<usize> = std::env::args()
        .skip(1)
        .filter_map(|arg| arg.parse().ok())
        .collect();
    let scales = if scales.is_empty() {
        vec![1, 4, 16, 32]
    } else {
        scales
    };
    // `CONVERGE_BENCH_BINARY` measures another build (an earlier commit's, for a before/after).
    let binary = std::env::var("CONVERGE_BENCH_BINARY")
        .unwrap_or_else(|_| env!("CARGO_BIN_EXE_converge").to_string());
    let binary = binary.as_str();
    println!(
        "{:>5} {:>12} {:>14} {:>11} {:>14} {:>11} {:>14} {:>14} {:>11}",
        "scale",
        "YAML bytes",
        "validate MiB",
        "CPU s",
        "plan MiB",
        "CPU s",
        "bytes per byte",
        "JSON plan MiB",
        "CPU s"
    );
    let mut previous: Option<(f64, f64)> = None;
    for scale in scales {
        // `CONVERGE_BENCH_KEEP=DIR` keeps the estate (config and sandbox state) for profiling.
        let dir = match std::env::var_os("CONVERGE_BENCH_KEEP") {
            Some(keep) => {
                let kept = Path::new(&keep).join(format!("{scale}x"));
                std::fs::create_dir_all(&kept).expect("the kept estate's directory");
                Kept::Dir(kept)
            }
            None => Kept::Temp(tempfile::tempdir().expect("a temp dir")),
        };
        let state = dir.path().join("world.json");
        let config = write_large_estate(scale, &state).expect("the estate is written");
        let path = dir.path().join("large.yaml");
        std::fs::write(&path, &config).expect("the config is written");
        let sandbox = SandboxHandle::spawn(SandboxOptions {
            seed: Seed::Large,
            state_file: Some(state),
            rate_limit: false,
            ..SandboxOptions::default()
        })
        .expect("the sandbox starts");
        let report = dir.path().join("time.txt");
        let (validate, validate_cpu) = measure(binary, &["validate"], &path, &sandbox, &report);
        let (plan, plan_cpu) = measure(binary, &["plan"], &path, &sandbox, &report);
        let json = ["plan", "--format", "json"];
        let (json, json_cpu) = measure(binary, &json, &path, &sandbox, &report);
        println!(
            "{scale:>4}x {:>12} {validate:>14.1} {validate_cpu:>11.2} {plan:>14.1} {plan_cpu:>11.2} {:>14.1} {json:>14.1} {json_cpu:>11.2}",
            config.len(),
            plan * 1024.0 * 1024.0 / config.len() as f64
        );
        if let Some((validate_before, plan_before)) = previous {
            println!(
                "       CPU per step: validate {:.2}x, plan {:.2}x",
                validate_cpu / validate_before,
                plan_cpu / plan_before
            );
        }
        previous = Some((validate_cpu, plan_cpu));
    }
}
