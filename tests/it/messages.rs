//! Issue 27, items 3 and 4, through the real binary: a secret echoed by a server inside a name
//! that needs escaping is masked in every form the renderers give it, and each message says
//! what is true (a create whose answer lacks the object, an unreadable answer, a number out of
//! range, the server's own error words on a 200, an HTTP-date `Retry-After`, a FIFO for a
//! config, a file name that would read as a workflow command).

use converge::api::wire::Secret;
use converge::sandbox::{DEMO_KEY_ID, KeyPair, SandboxHandle, SandboxOptions};
use serde_json::json;

use crate::common::{self, ANALYTICS, Client, Converge, Workspace, assert_clean, quickstart};

// Item 3: secrets in escaped forms.

/// Key secrets that each need escaping somewhere: invisible spaces (revealed as `\u{..}` in
/// text), a quote and a backslash (escaped in JSON and Markdown), Markdown and HTML
/// punctuation, and the characters GitHub annotations escape.
const ESCAPED_CANARIES: [&str; 4] = [
    "CANARYks\u{a0}nb\u{200b}zw7f",
    "CANARY\"q\\b-zw7f",
    "CANARY<m>&*_|`zw7f",
    "CANARY%25:a,b\u{feff}zw7f",
];

/// A demo sandbox whose key secret is `secret`.
fn sandbox_with_secret(secret: &str) -> SandboxHandle {
    common::sandbox(SandboxOptions {
        keys: vec![KeyPair {
            id: DEMO_KEY_ID.into(),
            secret: Secret(secret.into()),
        }],
        rate_limit: false,
        ..SandboxOptions::default()
    })
}

/// What no output may hold: the canary's head and its tail, in any form.
fn assert_masked(what: &str, text: &str) {
    assert_clean(what, text, &["CANARY", "zw7f"]);
}

#[test]
fn a_secret_echoed_inside_a_name_that_needs_escaping_is_masked_in_every_output() {
    for canary in ESCAPED_CANARIES {
        let sandbox = sandbox_with_secret(canary);
        let client = Client::new(&sandbox);
        let auth = common::basic(DEMO_KEY_ID, canary);
        // A live dashboard owned by converge whose name is the secret (a hostile or careless
        // server), and a config whose alert message holds the secret written out.
        let created = client.raw(
            "POST",
            &format!(
                "/v1/organizations/{}/services/{ANALYTICS}/stack/dashboards",
                converge::sandbox::DEMO_ORG
            ),
            Some(&auth),
            Some(json!({"name": canary, "tiles": [], "tags": ["converge:prod"]})),
        );
        assert_eq!(created.status, 200, "{}", created.text);
        let quoted = serde_json::to_string(&format!("Errors are up {canary}")).unwrap();
        let config = quickstart()
            .replace("message: Errors are up", &format!("message: {quoted}"))
            .replace("prune: false", "prune: true");
        let dir = Workspace::new();
        let path = dir.write("config.yaml", &config);
        let converge = Converge::new(&sandbox)
            .fast()
            .cwd(&dir)
            .env("CONVERGE_KEY_SECRET", canary);
        let path = path.as_str();
        for format in ["text", "json", "markdown"] {
            let saved = format!("saved-{format}.json");
            let out = converge.run(["-vv", "plan", path, "--format", format, "--out", &saved]);
            out.assert_exit(0);
            assert_masked(&format!("{canary:?} plan {format}"), &out.stdout);
            assert_masked(&format!("{canary:?} plan {format} stderr"), &out.stderr);
            assert!(out.stdout.contains("***"), "{canary:?}:\n{}", out.stdout);
            assert_masked(&format!("{canary:?} saved plan"), &dir.read(&saved));
            let shown = converge.run(["show", &saved, "--format", format]);
            shown.assert_exit(0);
            assert_masked(&format!("{canary:?} show {format}"), &shown.stdout);
        }
        for format in ["text", "json", "markdown"] {
            let out = converge.run(["-vv", "drift", path, "--format", format]);
            out.assert_exit(2);
            assert_masked(&format!("{canary:?} drift {format}"), &out.stdout);
            assert_masked(&format!("{canary:?} drift {format} stderr"), &out.stderr);
        }
        let out = converge.run([
            "-vv",
            "apply",
            path,
            "--yes",
            "--allow-destroy",
            "--format",
            "json",
        ]);
        out.assert_exit(0);
        assert_masked(&format!("{canary:?} apply report"), &out.stdout);
        assert_masked(&format!("{canary:?} apply stderr"), &out.stderr);
        dir.write("report.json", &out.stdout);
        for format in ["text", "json", "markdown"] {
            let shown = converge.run(["show", "report.json", "--format", format]);
            shown.assert_exit(0);
            assert_masked(&format!("{canary:?} report {format}"), &shown.stdout);
        }
    }
}
