//! The secret canary: distinctive key secret and token values, and pipe sources whose
//! certificates and connection strings the sandbox fills in, must appear in no stdout, stderr
//! or saved plan, in any format, at any log level, on success or failure.

use base64::Engine;
use converge::api::wire::Secret;
use converge::sandbox::{FaultSpec, KeyPair, SandboxHandle, SandboxOptions};

use crate::common::{self, ANALYTICS, Converge, Outcome, Workspace, quickstart};

const KEY_ID: &str = "canary-key-id";
const KEY_SECRET: &str = "CANARY-KEY-SECRET-d41f9a";
const TOKEN: &str = "CANARY-TOKEN-8c2e77";
/// A secret the server does not accept, for the failing runs.
const WRONG_SECRET: &str = "CANARY-WRONG-SECRET-3b0c";

fn canaries() -> Vec<String> {
    let encode = |raw: String| base64::engine::general_purpose::STANDARD.encode(raw);
    vec![
        KEY_SECRET.into(),
        TOKEN.into(),
        WRONG_SECRET.into(),
        encode(format!("{KEY_ID}:{KEY_SECRET}")),
        encode(format!("{KEY_ID}:{WRONG_SECRET}")),
        // What the sandbox puts in its pipes' sources (Kafka CA certificates, an Azure
        // connection string with its account key).
        "BEGIN CERTIFICATE".into(),
        "MIIDsandbox".into(),
        "AccountKey".into(),
        "c2FuZGJveC1zZWNyZXQt".into(),
    ]
}

fn canary_sandbox(faults: &str) -> SandboxHandle {
    common::sandbox(SandboxOptions {
        keys: vec![KeyPair {
            id: KEY_ID.into(),
            secret: Secret(KEY_SECRET.into()),
        }],
        tokens: vec![Secret(TOKEN.into())],
        rate_limit: false,
        faults: faults.parse::<FaultSpec>().expect("a fault spec"),
        fault_seed: 11,
        ..SandboxOptions::default()
    })
}

fn assert_clean(what: &str, text: &str) {
    common::assert_clean(what, text, &canaries());
}

fn check(label: &str, out: &Outcome) {
    assert_clean(&format!("{label}: stdout"), &out.stdout);
    assert_clean(&format!("{label}: stderr"), &out.stderr);
}

#[test]
fn no_secret_in_any_output_log_or_saved_plan() {
    // The quickstart plus a stack behind the observability API, so the token is used too.
    let config = format!(
        "{}\n  global:\n    api: observability\n    dashboards: {{}}\n",
        quickstart().trim_end()
    );
    let dir = Workspace::new();
    let path = dir.write("config.yaml", &config);
    let good = [
        ("CONVERGE_KEY_ID", KEY_ID),
        ("CONVERGE_KEY_SECRET", KEY_SECRET),
        ("CONVERGE_OBS_TOKEN", TOKEN),
    ];
    let sandbox = canary_sandbox("");
    let mut runs = 0;
    for format in ["text", "json", "markdown"] {
        for verbosity in [None, Some("-v"), Some("-vv")] {
            let saved = dir.file(&format!("plan-{format}.json"));
            let mut args: Vec<&str> = verbosity.into_iter().collect();
            args.extend([
                "plan",
                path.as_str(),
                "--format",
                format,
                "--out",
                saved.as_str(),
            ]);
            let out = Converge::new(&sandbox)
                .fast()
                .envs(good)
                .cwd(&dir)
                .run(args);
            out.assert_exit(0);
            let label = format!("{format} {verbosity:?}");
            check(&label, &out);
            let text = std::fs::read_to_string(&saved).expect("the saved plan");
            assert_clean(&format!("{label}: saved plan"), &text);
            runs += 1;
        }
    }
    assert_eq!(runs, 9);
    // The pipes read do carry the secrets the canary looks for: the check has teeth.
    let pipes = common::Client::new(&sandbox).raw(
        "GET",
        &format!(
            "/v1/organizations/{}/services/{}/pipes",
            converge::sandbox::DEMO_ORG,
            ANALYTICS
        ),
        Some(&common::basic(KEY_ID, KEY_SECRET)),
        None,
    );
    assert!(pipes.text.contains("BEGIN CERTIFICATE"), "{}", pipes.text);
    assert!(pipes.text.contains("AccountKey"), "{}", pipes.text);

    // Failing runs: refused credentials (cloud and observability), persistent 5xx.
    for (label, env) in [
        (
            "wrong key secret",
            [
                ("CONVERGE_KEY_ID", KEY_ID),
                ("CONVERGE_KEY_SECRET", WRONG_SECRET),
                ("CONVERGE_OBS_TOKEN", TOKEN),
            ],
        ),
        (
            "wrong token",
            [
                ("CONVERGE_KEY_ID", KEY_ID),
                ("CONVERGE_KEY_SECRET", KEY_SECRET),
                ("CONVERGE_OBS_TOKEN", WRONG_SECRET),
            ],
        ),
    ] {
        for verbosity in ["-v", "-vv"] {
            let out = Converge::new(&sandbox).fast().envs(env).cwd(&dir).run([
                verbosity,
                "plan",
                path.as_str(),
                "--format",
                "json",
            ]);
            assert_eq!(out.code, 1, "{label}: {}", out.stderr);
            check(&format!("{label} {verbosity}"), &out);
        }
    }
    let broken = canary_sandbox("500=1");
    let out =
        Converge::new(&broken)
            .fast()
            .envs(good)
            .cwd(&dir)
            .run(["-vv", "plan", path.as_str()]);
    out.assert_exit(1);
    check("persistent 500", &out);
    let flaky = canary_sandbox("500=0.2,reset=0.2");
    let out = Converge::new(&flaky)
        .fast()
        .envs(good)
        .cwd(&dir)
        .run(["-vv", "plan", path.as_str()]);
    check("flaky", &out);
}
