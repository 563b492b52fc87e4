//! The real binary against small hostile servers on 127.0.0.1:0 (plain threads, raw HTTP/1.1):
//! alert pages that never end, a body that never ends, a server asking to wait an hour, a
//! redirect to another host, and an observability URL nobody listens on. Each run must end, say
//! what happened and where, and make no more requests than the bound it names.

use std::io::Write;
use std::net::{TcpListener, TcpStream};
use std::sync::{Arc, Mutex};

use converge::sandbox::DEMO_ORG;

use crate::common::{ANALYTICS, Converge, Outcome, RawServer, Reply};

/// A config that reads only the services list (plus the pipes of a service it finds).
fn cloud_config() -> String {
    format!(
        "version: 1\norganization: {DEMO_ORG}\ncloud:\n  url: ${{env:CONVERGE_CLOUD_URL}}\n  \
         keyId: sandbox-key\n  keySecret: ${{env:CONVERGE_KEY_SECRET}}\nservices:\n  analytics:\n    \
         id: {ANALYTICS}\n    scaling:\n      numReplicas: 3\n"
    )
}

/// A config with one stack on the standalone observability API.
fn observability_config() -> String {
    format!(
        "version: 1\norganization: {DEMO_ORG}\nobservability:\n  url: ${{env:CONVERGE_OBSERVABILITY_URL}}\n  \
         token: ${{env:CONVERGE_OBS_TOKEN}}\nstacks:\n  obs:\n    api: observability\n    \
         dashboards: {{}}\n"
    )
}

/// `converge plan CONFIG ARGS` with the cloud and observability URLs at `url`.
fn plan(config: &str, url: &str, args: &[&str], env: &[(&str, &str)]) -> Outcome {
    Converge::offline()
        .env("CONVERGE_CLOUD_URL", url)
        .env("CONVERGE_OBSERVABILITY_URL", url)
        .env("CONVERGE_KEY_SECRET", "sandbox-secret")
        .env("CONVERGE_OBS_TOKEN", "sandbox-token")
        .envs(env.iter().copied())
        .config(config)
        .run(["plan"].iter().chain(args))
}

/// miette wraps long messages; the checks read them as one line.
fn joined(stderr: &str) -> String {
    stderr
        .lines()
        .map(|line| line.trim_start_matches([' ', '|', 'x']).trim())
        .collect::<Vec<_>>()
        .join(" ")
}

#[test]
fn alert_pages_that_never_end_stop_at_the_bound_with_a_clear_error() {
    let server = RawServer::start(|path| {
        if path.starts_with("/api/v2/alerts") {
            // 1,000 new alerts for every offset, forever.
            let offset: usize = path
                .split("offset=")
                .nth(1)
                .and_then(|n| n.parse().ok())
                .unwrap_or(0);
            let alerts: Vec<String> = (offset..offset + 1000)
                .map(|i| format!(r#"{{"id":"a{i}","name":"alert {i}"}}"#))
                .collect();
            Reply::json("200 OK", &format!(r#"{{"data":[{}]}}"#, alerts.join(",")))
        } else {
            Reply::json("200 OK", r#"{"data":[]}"#)
        }
    });
    let out = plan(
        &observability_config(),
        &server.url,
        &[],
        &[("CONVERGE_OBSERVABILITY_RATE_LIMIT", "100000/1s")],
    );
    out.assert_exit(1);
    let text = joined(&out.stderr);
    assert!(
        text.contains("list alerts failed: GET /api/v2/alerts?"),
        "{text}"
    );
    assert!(
        text.contains(
            "offset=99000 answered 200, but after 100 full pages (100000 alerts) it still had \
             more: converge reads at most 100000 alerts per stack"
        ),
        "{text}"
    );
    assert_eq!(
        server.counts()["/api/v2/alerts"],
        100,
        "one request per page"
    );
}

#[test]
fn a_body_that_never_ends_is_cut_at_the_limit_and_named() {
    let server = RawServer::start(|_| {
        Reply::Stream(Box::new(|stream: &mut TcpStream| {
            let head = "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n\
                        Transfer-Encoding: chunked\r\n\r\n";
            if stream.write_all(head.as_bytes()).is_err() {
                return;
            }
            let piece = format!(r#"{{"id":"{ANALYTICS}","name":"analytics"}},"#).repeat(1000);
            let chunk = format!("{:x}\r\n{piece}\r\n", piece.len());
            let start = r#"{"status":200,"result":["#;
            let _ = write!(stream, "{:x}\r\n{start}\r\n", start.len());
            // Until converge hangs up.
            while stream.write_all(chunk.as_bytes()).is_ok() {}
        }))
    });
    let out = plan(&cloud_config(), &server.url, &[], &[]);
    out.assert_exit(1);
    let text = joined(&out.stderr);
    assert!(text.contains("list services failed: GET /v1/"), "{text}");
    assert!(
        text.contains(
            "/services answered 200, but its body is larger than 64 MiB, the most converge reads \
             from one answer"
        ),
        "{text}"
    );
    assert_eq!(server.hits(), 1, "a body too large is not asked for again");
}

#[test]
fn a_server_asking_to_wait_longer_than_the_cap_fails_at_once_and_says_so() {
    for (header, value, shown) in [
        ("Retry-After", "3600", "1h"),
        ("X-RateLimit-Reset", "7200", "2h"),
    ] {
        let server = RawServer::start(move |_| {
            Reply::with(
                "429 Too Many Requests",
                "application/json",
                &[(header, value)],
                r#"{"status":429,"error":"TOO_MANY_REQUESTS"}"#,
            )
        });
        let out = plan(&cloud_config(), &server.url, &[], &[]);
        out.assert_exit(1);
        let text = joined(&out.stderr);
        assert!(
            text.contains(&format!(
                "answered 429 Too Many Requests: TOO_MANY_REQUESTS; it asked to wait {shown} \
                 before trying again (`{header}: {value}`), longer than the 2m converge waits \
                 for a server"
            )),
            "{header}: {}",
            out.stderr
        );
        assert_eq!(server.hits(), 1, "{header}: not asked again");
    }
}

#[test]
fn a_wait_the_server_asks_for_is_said_on_stderr() {
    let calls = Arc::new(Mutex::new(0usize));
    let counter = calls.clone();
    let server = RawServer::start(move |path| {
        let mut calls = counter.lock().unwrap();
        *calls += 1;
        if *calls == 1 {
            return Reply::with(
                "429 Too Many Requests",
                "application/json",
                &[("Retry-After", "1")],
                r#"{"status":429,"error":"TOO_MANY_REQUESTS"}"#,
            );
        }
        if path.ends_with("/services") {
            Reply::json(
                "200 OK",
                &format!(
                    r#"{{"status":200,"requestId":"r","result":[{{"id":"{ANALYTICS}","name":"analytics","numReplicas":3}}]}}"#
                ),
            )
        } else {
            Reply::json("200 OK", r#"{"status":200,"requestId":"r","result":[]}"#)
        }
    });
    let out = plan(&cloud_config(), &server.url, &[], &[]);
    out.assert_exit(0);
    assert!(
        out.stderr.contains(&format!(
            "waiting 1s: the cloud API asked to wait (it answered 429 to GET /v1/organizations/{DEMO_ORG}/services)"
        )),
        "{}",
        out.stderr
    );
    assert_eq!(server.hits(), 2, "asked once more after the wait");
}

#[test]
fn a_redirect_to_another_host_is_not_followed_and_is_named() {
    let elsewhere =
        RawServer::start(|_| Reply::json("401 Unauthorized", r#"{"error":"UNAUTHORIZED"}"#));
    // Same port, another host name: reqwest would follow it without the credentials.
    let target = elsewhere.url.replace("127.0.0.1", "localhost");
    let location = format!("{target}/v1/organizations/{DEMO_ORG}/services?token=hidden");
    let server = RawServer::start(move |_| {
        Reply::Full(format!(
            "HTTP/1.1 307 Temporary Redirect\r\nLocation: {location}\r\nContent-Length: 0\r\n\
             Connection: close\r\n\r\n"
        ))
    });
    let out = plan(&cloud_config(), &server.url, &[], &[]);
    out.assert_exit(1);
    let text = joined(&out.stderr);
    assert!(
        text.contains(&format!(
            "the cloud API at {} answered with a redirect: the server redirected to \
             {target}/v1/organizations/{DEMO_ORG}/services, another host",
            server.url
        )),
        "{}",
        out.stderr
    );
    assert!(!text.contains("hidden"), "the query is not shown: {text}");
    assert!(!text.contains("refused the credentials"), "{text}");
    assert!(
        !text.contains("check `cloud.keyId`"),
        "the key is not blamed: {text}"
    );
    assert!(text.contains("set `cloud.url`"), "{text}");
    assert!(
        out.stderr.contains("config.yaml:4:"),
        "at `cloud.url`: {}",
        out.stderr
    );
    assert_eq!(server.hits(), 1, "a redirect is not retried");
    assert_eq!(elsewhere.hits(), 0, "the other host got nothing");
}

#[test]
fn an_observability_url_nobody_listens_on_is_underlined_there() {
    let url = {
        let listener = TcpListener::bind("127.0.0.1:0").expect("a port");
        format!("http://{}", listener.local_addr().expect("an address"))
    };
    let out = plan(&observability_config(), &url, &["-v"], &[]);
    out.assert_exit(1);
    let text = joined(&out.stderr);
    assert!(
        text.contains(&format!(
            "cannot reach the observability API at {url}: connection refused"
        )),
        "{}",
        out.stderr
    );
    assert!(out.stderr.contains("config.yaml:4:"), "{}", out.stderr);
    assert!(text.contains("check that `observability.url`"), "{text}");
    let attempts = out
        .stderr
        .lines()
        .filter(|line| line.contains("failed after") && line.ends_with("connection refused"))
        .count();
    assert_eq!(
        attempts, 3,
        "one per list (dashboards, alerts, sources): {}",
        out.stderr
    );
}
