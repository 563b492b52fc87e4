//! Pacing as a user sees it without a terminal: `--sandbox` runs unpaced unless
//! `--sandbox-rate-limit` (or `CONVERGE_SANDBOX_RATE_LIMIT`) asks for the real limits, and in
//! CI each phase gets one plain line, with one more when it waits for a rate limit.

use super::*;
use crate::common;

/// `converge ARGS` in `dir` with no `CONVERGE_*` variable but `env`.
fn bare<'a>(dir: &Workspace, args: &[&str], env: &[(&'a str, &'a str)]) -> Outcome {
    Converge::offline()
        .cwd(dir)
        .envs(env.iter().copied())
        .run(args)
}

#[test]
fn the_quickstart_applies_against_the_sandbox_without_waiting_for_a_rate_limit() {
    let workspace = Workspace::new();
    let quickstart = common::quickstart_path();
    let out = bare(
        &workspace,
        &["apply", "--sandbox", "--yes", &quickstart, "-vv"],
        &[],
    );
    out.assert_exit(0);
    assert!(
        out.stderr.contains("apply: 7 done, 0 failed"),
        "{}",
        out.stderr
    );
    // The transport logs every wait for a token at -vv: there is none.
    assert!(!out.stderr.contains("for the rate limit"), "{}", out.stderr);
    assert!(!out.stderr.contains("rate limit ("), "{}", out.stderr);
    assert!(
        out.stderr.contains("without rate limits"),
        "-v says how the sandbox runs: {}",
        out.stderr
    );
}

#[test]
fn asked_for_the_sandbox_paces_and_says_so_once_per_phase() {
    let quickstart = common::quickstart_path();
    // The flag, and the variable that stands for it.
    type Asked<'a> = (&'a [&'a str], &'a [(&'a str, &'a str)]);
    let asked: [Asked; 2] = [
        (&["--sandbox-rate-limit"], &[]),
        (&[], &[("CONVERGE_SANDBOX_RATE_LIMIT", "1")]),
    ];
    for (flag, variable) in asked {
        let workspace = Workspace::new();
        let mut args = vec!["plan", "--sandbox", quickstart.as_str(), "-vv"];
        args.extend_from_slice(flag);
        // The real limits, made tighter so the seven reads wait without taking ten seconds.
        let mut env = vec![("CONVERGE_CLOUD_RATE_LIMIT", "3/1s")];
        env.extend_from_slice(variable);
        let out = bare(&workspace, &args, &env);
        assert_eq!(out.code, 0, "{flag:?} {variable:?}: {out:?}");
        assert!(
            out.stderr.contains("with the real rate limits"),
            "{}",
            out.stderr
        );
        assert!(
            out.stderr.contains("for the rate limit before GET"),
            "converge paced itself: {}",
            out.stderr
        );
        let said = "waiting for the cloud API's rate limit (3 requests per 1s); this phase \
                    takes longer";
        assert_eq!(
            out.stderr.matches(said).count(),
            1,
            "said once for the reading phase: {}",
            out.stderr
        );
    }
}

#[test]
fn without_a_terminal_each_phase_gets_one_plain_line() {
    let sandbox = common::fast_sandbox();
    let workspace = Workspace::new();
    let config = workspace.write("converge.yaml", &quickstart());
    let path = config.as_str();
    let out = binary(&sandbox, &workspace).run(["apply", path, "--yes"]);
    out.assert_exit(0);
    let lines: Vec<&str> = out.stderr.lines().collect();
    assert_eq!(
        lines.first().copied(),
        Some("reading the live state of 1 service and 1 stack…"),
        "{}",
        out.stderr
    );
    assert_eq!(
        lines.iter().filter(|l| l.starts_with("reading ")).count(),
        1,
        "{}",
        out.stderr
    );
    assert_eq!(
        lines.iter().filter(|l| **l == "applying 7 steps…").count(),
        1,
        "{}",
        out.stderr
    );
    // No spinner drawing codes in a log.
    assert!(!out.stderr.contains('\u{1b}'), "{}", out.stderr);
}
