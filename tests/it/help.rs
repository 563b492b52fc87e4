//! Each command takes, and its `--help` shows, only the flags it uses: a flag given to a
//! command that does not use it is a usage error (exit 1), not silently accepted.

use std::time::Duration;

fn converge() -> assert_cmd::Command {
    let mut command = assert_cmd::Command::cargo_bin("converge").expect("the binary is built");
    command
        .env("NO_COLOR", "1")
        .current_dir(env!("CARGO_MANIFEST_DIR"));
    // `sandbox serve` that accepted a stray flag would serve forever: the timeout ends it.
    command.timeout(Duration::from_secs(20));
    command
}

#[test]
fn a_flag_the_command_does_not_use_is_rejected_with_exit_1() {
    let cases: &[&[&str]] = &[
        &["validate", "--sandbox", "examples/quickstart.yaml"],
        &["validate", "examples/quickstart.yaml", "--parallelism", "2"],
        &["sandbox", "serve", "--port", "0", "--sandbox"],
        &["schema", "--sandbox"],
        &["completions", "bash", "--parallelism", "2"],
        // The API flags belong to the command, not before it.
        &["--sandbox", "plan", "examples/quickstart.yaml"],
    ];
    for args in cases {
        let output = converge().args(*args).output().expect("converge runs");
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_eq!(
            output.status.code(),
            Some(1),
            "converge {}: {stderr}",
            args.join(" ")
        );
        assert!(
            stderr.contains("unexpected argument"),
            "converge {}: {stderr}",
            args.join(" ")
        );
    }
}

#[test]
fn the_api_flags_and_the_global_flags_work_where_they_apply() {
    let output = converge()
        .args([
            "validate",
            "examples/quickstart.yaml",
            "--color",
            "never",
            "-v",
        ])
        .output()
        .expect("converge runs");
    assert_eq!(output.status.code(), Some(0), "{output:?}");
    let output = converge()
        .args(["--color", "never", "schema"])
        .output()
        .expect("converge runs");
    assert_eq!(output.status.code(), Some(0), "{output:?}");
}
