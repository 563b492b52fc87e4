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
            assert_masked(&format!("{canary:?} show {format} stderr"), &shown.stderr);
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

#[test]
fn a_saved_plan_whose_live_names_hold_a_secret_passes_its_own_digest_and_applies() {
    for canary in ESCAPED_CANARIES {
        let sandbox = sandbox_with_secret(canary);
        let client = Client::new(&sandbox);
        let auth = common::basic(DEMO_KEY_ID, canary);
        // An owned live dashboard whose name holds the secret: the plan deletes it (prune), so
        // the saved file (masked) shows the mask where the name was.
        let created = client.raw(
            "POST",
            &format!(
                "/v1/organizations/{}/services/{ANALYTICS}/stack/dashboards",
                converge::sandbox::DEMO_ORG
            ),
            Some(&auth),
            Some(json!({"name": format!("old {canary} board"), "tiles": [], "tags": ["converge:prod"]})),
        );
        assert_eq!(created.status, 200, "{}", created.text);
        let config = quickstart().replace("prune: false", "prune: true");
        let dir = Workspace::new();
        let path = dir.write("config.yaml", &config);
        let converge = Converge::new(&sandbox)
            .fast()
            .cwd(&dir)
            .env("CONVERGE_KEY_SECRET", canary);
        let planned = converge.run(["plan", path.as_str(), "--out", "saved.json"]);
        planned.assert_exit(0);
        assert_masked(&format!("{canary:?} saved plan"), &dir.read("saved.json"));
        let digest_line = |stderr: &str| {
            stderr
                .lines()
                .find(|l| l.starts_with("the plan's text has digest "))
                .map(str::to_string)
        };
        let shown = converge.run(["show", "saved.json"]);
        shown.assert_exit(0);
        // What `show` prints is the text `plan` printed, byte for byte.
        assert_eq!(shown.stdout, planned.stdout, "{canary:?}");
        let applied = converge.run(["apply", "--plan", "saved.json", "--yes", "--allow-destroy"]);
        applied.assert_exit(0);
        assert_masked(&format!("{canary:?} apply --plan"), &applied.stdout);
        assert_masked(&format!("{canary:?} apply --plan stderr"), &applied.stderr);
        assert!(digest_line(&shown.stderr).is_some(), "{}", shown.stderr);
        assert_eq!(
            digest_line(&shown.stderr),
            digest_line(&applied.stderr),
            "{canary:?}: show and apply print one digest"
        );
        // The plan's steps ran: nothing is left to do.
        converge
            .run(["plan", path.as_str(), "--detailed-exitcode"])
            .assert_exit(0);
        // A tampered step is still refused: the digest is of the masked text, not of nothing.
        let text = dir.read("saved.json");
        let tampered = text.replacen("\"threshold\": 100", "\"threshold\": 150", 1);
        assert_ne!(
            tampered, text,
            "the saved plan has an alert threshold to tamper with"
        );
        dir.write("tampered.json", &tampered);
        let refused = converge.run(["show", "tampered.json"]);
        assert_ne!(refused.code, 0, "{canary:?}: {}", refused.stderr);
        assert_masked(&format!("{canary:?} refused show"), &refused.stderr);
    }
}

// Item 4: each message says what is true.

/// What the proxy does with one request.
enum Rule {
    /// Forward it and pass the sandbox's answer on.
    Forward,
    /// Forward it (the sandbox acts on it), then answer this instead.
    ActThenAnswer(Canned),
    /// Answer this without forwarding.
    Answer(Canned),
}

/// An answer the proxy makes up.
#[derive(Clone)]
struct Canned {
    status: u16,
    headers: Vec<(&'static str, String)>,
    body: String,
}

fn canned(status: u16, body: &str) -> Canned {
    Canned {
        status,
        headers: vec![("content-type", "application/json".into())],
        body: body.into(),
    }
}

type Rules = dyn Fn(&str, &str, usize) -> Rule + Send + Sync;

/// A proxy on 127.0.0.1:0 in front of a sandbox: each request goes through `rules(method,
/// path, nth)` (`nth` counts the requests of that method and path from 1), so one answer can
/// be replaced while the rest of the run talks to the real sandbox. It stops with its runtime.
struct Proxy {
    url: String,
    _runtime: tokio::runtime::Runtime,
}

impl Proxy {
    fn start(
        sandbox: &SandboxHandle,
        rules: impl Fn(&str, &str, usize) -> Rule + Send + Sync + 'static,
    ) -> Proxy {
        use std::collections::HashMap;
        use std::sync::{Arc, Mutex};
        // reqwest is built without a default TLS provider; the proxy speaks plain HTTP, but the
        // client still wants one.
        let _ = rustls::crypto::ring::default_provider().install_default();
        let runtime = tokio::runtime::Runtime::new().expect("a runtime");
        let upstream = sandbox.url();
        let rules: Arc<Rules> = Arc::new(rules);
        let counts: Arc<Mutex<HashMap<String, usize>>> = Arc::default();
        let url = runtime.block_on(async move {
            let client = reqwest::Client::new();
            let handler = move |request: axum::extract::Request| {
                let (client, upstream, rules, counts) = (
                    client.clone(),
                    upstream.clone(),
                    rules.clone(),
                    counts.clone(),
                );
                async move {
                    let method = request.method().clone();
                    let path = request.uri().path().to_string();
                    let target = request
                        .uri()
                        .path_and_query()
                        .map_or(path.clone(), |p| p.to_string());
                    let nth = {
                        let mut counts = counts.lock().unwrap();
                        let count = counts.entry(format!("{method} {path}")).or_insert(0);
                        *count += 1;
                        *count
                    };
                    let rule = rules(method.as_str(), &path, nth);
                    let headers = request.headers().clone();
                    let body = axum::body::to_bytes(request.into_body(), usize::MAX)
                        .await
                        .unwrap_or_default();
                    let forward = async {
                        let mut sent =
                            client.request(method.clone(), format!("{upstream}{target}"));
                        for name in ["authorization", "content-type"] {
                            if let Some(value) = headers.get(name) {
                                sent = sent.header(name, value.clone());
                            }
                        }
                        let answer = sent.body(body.to_vec()).send().await.expect("the sandbox");
                        let status = answer.status().as_u16();
                        let text = answer.text().await.unwrap_or_default();
                        canned(status, &text)
                    };
                    let canned = match rule {
                        Rule::Forward => forward.await,
                        Rule::ActThenAnswer(canned) => {
                            forward.await;
                            canned
                        }
                        Rule::Answer(canned) => canned,
                    };
                    let mut response =
                        axum::response::Response::new(axum::body::Body::from(canned.body));
                    *response.status_mut() =
                        axum::http::StatusCode::from_u16(canned.status).unwrap();
                    for (name, value) in canned.headers {
                        response
                            .headers_mut()
                            .insert(name, axum::http::HeaderValue::from_str(&value).unwrap());
                    }
                    response
                }
            };
            let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
            let address = listener.local_addr().unwrap();
            let app = axum::Router::new().fallback(handler);
            tokio::spawn(async move {
                let _ = axum::serve(listener, app).await;
            });
            format!("http://{address}")
        });
        Proxy {
            url,
            _runtime: runtime,
        }
    }

    /// The binary pointed at the sandbox through this proxy, in `dir`.
    fn converge<'s>(&self, sandbox: &'s SandboxHandle, dir: &Workspace) -> Converge<'s> {
        Converge::new(sandbox)
            .fast()
            .cwd(dir)
            .env("CONVERGE_CLOUD_URL", &self.url)
            .env("CONVERGE_OBSERVABILITY_URL", &self.url)
    }
}

/// Whether a request is the create of the quickstart's dashboard.
fn dashboard_create(method: &str, path: &str) -> bool {
    method == "POST" && path.ends_with("/stack/dashboards")
}

/// miette wraps long messages; the checks read them as one line.
fn joined(stderr: &str) -> String {
    common::words(stderr)
}

/// `apply` of the quickstart with the dashboard's create answered `answer` after the sandbox
/// made it: what the run said, and how many dashboards of the name the sandbox then holds.
fn apply_with_create_answered(answer: Canned) -> (crate::common::Outcome, usize) {
    let sandbox = common::fast_sandbox();
    let proxy = Proxy::start(&sandbox, move |method, path, _| {
        if dashboard_create(method, path) {
            Rule::ActThenAnswer(answer.clone())
        } else {
            Rule::Forward
        }
    });
    let dir = Workspace::new();
    let path = dir.write("config.yaml", &quickstart());
    let out = proxy
        .converge(&sandbox, &dir)
        .run(["apply", path.as_str(), "--yes"]);
    let made = common::dashboards(&sandbox)
        .iter()
        .filter(|d| d["name"] == "API health")
        .count();
    (out, made)
}

#[test]
fn a_create_answered_with_an_empty_object_says_it_may_have_been_applied() {
    for body in ["{}", r#"{"status":200,"requestId":"r3","result":{}}"#] {
        let (out, made) = apply_with_create_answered(canned(200, body));
        assert_eq!(made, 1, "{body}: the sandbox made it");
        let text = joined(&out.stderr);
        assert!(
            !text.contains("\"\""),
            "{body}: no advice to write a name as \"\": {text}"
        );
        assert!(
            text.contains("answered 200, but the server's answer lacked the object")
                && text.contains("it may have been applied; run `converge plan` to see"),
            "{body}: {text}"
        );
        assert_eq!(out.code, 1, "{body}: {text}");
    }
}

#[test]
fn a_create_answered_with_an_unreadable_body_says_it_may_have_been_applied() {
    let (out, made) = apply_with_create_answered(Canned {
        status: 200,
        headers: vec![("content-type", "text/html".into())],
        body: "<html><body>Welcome</body></html>".into(),
    });
    assert_eq!(made, 1, "the sandbox made it");
    let text = joined(&out.stderr);
    assert!(
        text.contains("it may have been applied; run `converge plan` to see"),
        "{text}"
    );
    assert_eq!(out.code, 1, "{text}");
}

/// `plan` of the quickstart with the services list answered `answer`.
fn plan_with_services_answered(answer: Canned) -> crate::common::Outcome {
    let sandbox = common::fast_sandbox();
    let proxy = Proxy::start(&sandbox, move |method, path, _| {
        if method == "GET" && path.ends_with("/services") {
            Rule::Answer(answer.clone())
        } else {
            Rule::Forward
        }
    });
    let dir = Workspace::new();
    let path = dir.write("config.yaml", &quickstart());
    proxy.converge(&sandbox, &dir).run(["plan", path.as_str()])
}

#[test]
fn a_number_out_of_range_is_named_at_its_path_not_called_not_json() {
    let out = plan_with_services_answered(canned(
        200,
        &format!(
            r#"{{"status":200,"requestId":"r1","result":[{{"id":"{ANALYTICS}","name":"analytics","numReplicas":1e400}}]}}"#
        ),
    ));
    out.assert_exit(1);
    let text = joined(&out.stderr);
    assert!(!text.contains("not JSON"), "{text}");
    assert!(
        text.contains("a number out of range") && text.contains("result[0].numReplicas"),
        "{text}"
    );
}

#[test]
fn a_200_carrying_the_server_s_error_object_shows_the_server_s_words() {
    let out = plan_with_services_answered(canned(
        200,
        r#"{"status":403,"error":"FORBIDDEN: the key lacks org:read","requestId":"r2"}"#,
    ));
    out.assert_exit(1);
    let text = joined(&out.stderr);
    assert!(!text.contains("another version of the API"), "{text}");
    assert!(text.contains("FORBIDDEN: the key lacks org:read"), "{text}");

    // The observability API's error object, `{"message": ...}`.
    let sandbox = common::fast_sandbox();
    let proxy = Proxy::start(&sandbox, |method, path, _| {
        if method == "GET" && path == "/api/v2/dashboards" {
            Rule::Answer(canned(200, r#"{"message":"token expired at 10:00"}"#))
        } else {
            Rule::Forward
        }
    });
    let dir = Workspace::new();
    let path = dir.write(
        "config.yaml",
        &format!(
            "version: 1\norganization: {}\nobservability:\n  url: ${{env:CONVERGE_OBSERVABILITY_URL}}\n  \
             token: ${{env:CONVERGE_OBS_TOKEN}}\nstacks:\n  obs:\n    api: observability\n    \
             dashboards: {{}}\n",
            converge::sandbox::DEMO_ORG
        ),
    );
    let out = proxy.converge(&sandbox, &dir).run(["plan", path.as_str()]);
    out.assert_exit(1);
    let text = joined(&out.stderr);
    assert!(!text.contains("another version of the API"), "{text}");
    assert!(text.contains("token expired at 10:00"), "{text}");
}

/// `Retry-After` as an HTTP date `seconds` from now, in one of the three forms RFC 9110 has
/// recipients read: IMF-fixdate, the obsolete RFC 850 form and asctime's.
fn http_date(seconds: i64, form: &str) -> String {
    let at = jiff::Timestamp::now() + jiff::SignedDuration::from_secs(seconds);
    at.strftime(form).to_string()
}

const IMF_FIXDATE: &str = "%a, %d %b %Y %H:%M:%S GMT";
const RFC_850: &str = "%A, %d-%b-%y %H:%M:%S GMT";
const ASCTIME: &str = "%a %b %e %H:%M:%S %Y";

#[test]
fn an_http_date_retry_after_is_honoured_and_bounded() {
    // An hour away: more than converge waits, so it fails at once and says so.
    for form in [IMF_FIXDATE, RFC_850, ASCTIME] {
        let date = http_date(3600, form);
        let out = plan_with_services_answered(Canned {
            status: 429,
            headers: vec![
                ("content-type", "application/json".into()),
                ("retry-after", date.clone()),
            ],
            body: r#"{"status":429,"error":"TOO_MANY_REQUESTS"}"#.into(),
        });
        out.assert_exit(1);
        // miette may wrap the date at a space or a hyphen: compared without white space.
        let squeezed = |text: &str| text.split_whitespace().collect::<String>();
        assert!(
            squeezed(&joined(&out.stderr)).contains(&squeezed(&format!(
                "(`Retry-After: {date}`), longer than the 2m"
            ))),
            "{date}: {}",
            out.stderr
        );
    }

    // A few seconds away: waited for, and said.
    let sandbox = common::fast_sandbox();
    let proxy = Proxy::start(&sandbox, |method, path, nth| {
        if method == "GET" && path.ends_with("/services") && nth == 1 {
            Rule::Answer(Canned {
                status: 429,
                headers: vec![
                    ("content-type", "application/json".into()),
                    ("retry-after", http_date(3, IMF_FIXDATE)),
                ],
                body: r#"{"status":429,"error":"TOO_MANY_REQUESTS"}"#.into(),
            })
        } else {
            Rule::Forward
        }
    });
    let dir = Workspace::new();
    let path = dir.write("config.yaml", &quickstart());
    let started = std::time::Instant::now();
    let out = proxy
        .converge(&sandbox, &dir)
        .env_remove("CONVERGE_TEST_NO_RETRY_DELAY")
        .run(["plan", path.as_str()]);
    out.assert_exit(0);
    assert!(
        out.stderr.contains("the cloud API asked to wait"),
        "{}",
        out.stderr
    );
    assert!(
        started.elapsed() >= std::time::Duration::from_secs(1),
        "it waited"
    );
}

/// Back-to-back 429s in one phase: the first wait is said in full, the others are counted and
/// said in one line when the phase ends, not a line each.
#[test]
fn repeated_asked_for_waits_are_one_line_and_a_summary() {
    let sandbox = common::fast_sandbox();
    let proxy = Proxy::start(&sandbox, |method, path, nth| {
        if method == "GET" && path.ends_with("/services") && nth <= 3 {
            Rule::Answer(Canned {
                status: 429,
                headers: vec![
                    ("content-type", "application/json".into()),
                    ("retry-after", "1".into()),
                ],
                body: r#"{"status":429,"error":"TOO_MANY_REQUESTS"}"#.into(),
            })
        } else {
            Rule::Forward
        }
    });
    let dir = Workspace::new();
    let path = dir.write("config.yaml", &quickstart());
    let out = proxy
        .converge(&sandbox, &dir)
        .env_remove("CONVERGE_TEST_NO_RETRY_DELAY")
        .run(["plan", path.as_str()]);
    out.assert_exit(0);
    let asked: Vec<&str> = out
        .stderr
        .lines()
        .filter(|line| line.contains("asked to wait"))
        .collect();
    assert_eq!(
        asked,
        [
            "waiting 1s: the cloud API asked to wait (it answered 429 to GET \
             /v1/organizations/7d3f6a2e-0c1b-4e5f-9a8b-1c2d3e4f5a6b/services)",
            "the cloud API asked to wait 2 more times (2s in all)",
        ],
        "{}",
        out.stderr
    );
}

/// Makes a named pipe at `path`.
fn mkfifo(path: &std::path::Path) {
    let made = std::process::Command::new("mkfifo")
        .arg(path)
        .status()
        .expect("mkfifo runs");
    assert!(made.success(), "mkfifo {}", path.display());
}

#[test]
fn a_fifo_named_as_the_config_is_refused_and_one_in_a_directory_is_said_skipped() {
    let dir = Workspace::new();
    mkfifo(&dir.path().join("config.yaml"));
    let out = Converge::offline()
        .cwd(&dir)
        .timeout(std::time::Duration::from_secs(20))
        .run(["validate", "config.yaml"]);
    out.assert_exit(1);
    let text = joined(&out.stderr);
    assert!(
        text.contains("cannot read `config.yaml`: it is a named pipe (FIFO), not a regular file"),
        "{text}"
    );

    let dir = Workspace::new();
    std::fs::create_dir(dir.path().join("configs")).expect("a directory");
    dir.write("configs/main.yaml", &quickstart());
    mkfifo(&dir.path().join("configs/pipe.yaml"));
    std::fs::create_dir(dir.path().join("configs/nested.yml")).expect("a directory");
    let out = Converge::offline()
        .cwd(&dir)
        .timeout(std::time::Duration::from_secs(20))
        .run(["validate", "configs"]);
    out.assert_exit(0);
    let text = joined(&out.stderr);
    for (entry, what) in [
        ("configs/nested.yml", "a directory"),
        ("configs/pipe.yaml", "a named pipe (FIFO)"),
    ] {
        assert!(
            text.contains(&format!(
                "skipped `{entry}`: it is {what}, not a regular file"
            )),
            "{entry}: {text}"
        );
    }
}

/// Whether a line of `output` is one GitHub Actions would run as a workflow command it was not
/// meant to (the runner trims leading white space before looking for `::`).
fn injected_commands(output: &str) -> Vec<&str> {
    output
        .lines()
        .filter(|line| line.trim_start().starts_with("::warning title=Approved"))
        .collect()
}

#[test]
fn a_file_name_with_a_line_break_never_starts_a_workflow_command() {
    let dir = Workspace::new();
    let name = "bad\n::warning title=Approved::looks fine\r.yaml";
    let broken = quickstart().replace("numReplicas: 3", "numReplicas: [3");
    std::fs::create_dir(dir.path().join("configs")).expect("a directory");
    std::fs::write(dir.path().join("configs").join(name), &broken).expect("written");
    let converge = Converge::offline().cwd(&dir);
    // In GitHub Actions the diagnostics are also written as annotations.
    let in_ci = converge.clone().env("GITHUB_ACTIONS", "true");
    for (args, ci) in [
        (vec!["validate", "configs"], false),
        (vec!["validate", "configs"], true),
        (vec!["validate", "configs", "--format", "json"], true),
        (vec!["plan", "configs"], true),
    ] {
        let out = if ci { &in_ci } else { &converge }.run(&args);
        out.assert_exit(1);
        for (stream, text) in [("stdout", &out.stdout), ("stderr", &out.stderr)] {
            assert!(
                injected_commands(text).is_empty(),
                "{args:?} {stream}:\n{text}"
            );
        }
        assert!(
            format!("{}{}", out.stdout, out.stderr).contains("bad"),
            "{args:?} names the file: {out:?}"
        );
    }
    let out = converge.run(["validate", "configs"]);
    assert!(
        out.stderr
            .contains("bad\\u{a}::warning title=Approved::looks fine\\u{d}.yaml"),
        "{}",
        out.stderr
    );
}

#[test]
fn a_live_name_with_a_line_break_never_starts_a_workflow_command() {
    let sandbox = common::fast_sandbox();
    let client = Client::new(&sandbox);
    let name = "ok\n::warning title=Approved::looks fine\r\n  ::warning title=Approved::indented";
    let created = client.cloud(
        "POST",
        &format!("/services/{ANALYTICS}/stack/dashboards"),
        Some(json!({"name": name, "tiles": [], "tags": ["converge:prod"]})),
    );
    assert_eq!(created.status, 200, "{}", created.text);
    let config = quickstart().replace("prune: false", "prune: true").replace(
        "message: Errors are up",
        "message: \"Errors are up\\n::warning title=Approved::from the config\"",
    );
    let dir = Workspace::new();
    let path = dir.write("config.yaml", &config);
    let path = path.as_str();
    let converge = Converge::new(&sandbox)
        .fast()
        .cwd(&dir)
        .env("GITHUB_ACTIONS", "true");
    let mut runs = Vec::new();
    for format in ["text", "markdown"] {
        runs.push(converge.run([
            "-vv",
            "plan",
            path,
            "--format",
            format,
            "--out",
            "saved.json",
        ]));
        runs.push(converge.run(["show", "saved.json", "--format", format]));
        runs.push(converge.run(["-vv", "drift", path, "--format", format]));
    }
    runs.push(converge.run(["-vv", "apply", path, "--yes", "--allow-destroy"]));
    assert!(
        runs[0]
            .stdout
            .contains("ok\\n::warning title=Approved::looks fine\\r\\n"),
        "the name is shown escaped:\n{}",
        runs[0].stdout
    );
    for out in &runs {
        assert!(out.code == 0 || out.code == 2, "{out:?}");
        for (stream, text) in [("stdout", &out.stdout), ("stderr", &out.stderr)] {
            assert!(
                injected_commands(text).is_empty(),
                "{:?} {stream}:\n{text}",
                out.args
            );
        }
    }
}
