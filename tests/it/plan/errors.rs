//! Failures through the binary: refused credentials, unknown ids, 5xx bursts, bodies that are
//! not JSON, dropped connections and a server that is not listening. Every one exits 1 with a
//! message that says what failed and where, prints no plan, and never panics. Each failure's
//! whole output is a snapshot (`snapshots/error_*.snap`), read as the user reads it; `contains`
//! is left for what must not be said (a secret, raw HTML, a write that cannot have happened).

use std::net::TcpListener;

use converge::sandbox::SandboxHandle;

use super::snapshots;
use crate::common::{
    self, Converge, Outcome, RawServer, converge_snapshot, faulty_sandbox, quickstart,
};

/// `converge plan` of the quickstart against `sandbox`, with `env` added.
fn plan_quickstart(sandbox: &SandboxHandle, env: &[(&str, &str)]) -> Outcome {
    Converge::new(sandbox)
        .fast()
        .envs(env.iter().copied())
        .config(&quickstart())
        .run(["plan"])
}

/// Exit 1 and no plan; what stderr says is each test's snapshot.
fn assert_failed(out: &Outcome) {
    assert_eq!(
        out.code, 1,
        "stdout:\n{}\nstderr:\n{}",
        out.stdout, out.stderr
    );
    assert!(out.stdout.is_empty(), "no plan on failure: {}", out.stdout);
}

#[test]
fn wrong_key_secret_names_the_key_id_line() {
    let sandbox = common::fast_sandbox();
    let out = plan_quickstart(&sandbox, &[("CONVERGE_KEY_SECRET", "not-the-secret")]);
    assert_failed(&out);
    // The 401 with its request id, underlined at `cloud.keyId` (config.yaml:8).
    converge_snapshot!(snapshots(), "error_wrong_key_secret", out);
    common::assert_clean("a refused plan", &out.stderr, &["not-the-secret"]);
}

#[test]
fn wrong_token_names_the_observability_stack() {
    let sandbox = common::fast_sandbox();
    let config = format!(
        "{}\n  global:\n    api: observability\n    dashboards: {{}}\n",
        quickstart().trim_end()
    );
    let out = Converge::new(&sandbox)
        .fast()
        .env("CONVERGE_OBS_TOKEN", "not-the-token")
        .config(&config)
        .run(["plan"]);
    assert_failed(&out);
    // A 401 at `stack.global`.
    converge_snapshot!(snapshots(), "error_wrong_token", out);
    // The cloud reads were fine; only the observability stack is reported.
    assert!(!out.stderr.contains("stack.prod"), "{}", out.stderr);
    common::assert_clean("a refused plan", &out.stderr, &["not-the-token"]);
}

#[test]
fn unknown_service_id_points_at_its_id_line() {
    let sandbox = common::fast_sandbox();
    let config = quickstart().replace(
        "id: 1c7d8c62-0b0f-4f0e-9b2e-6a3c8a3b7e11",
        "id: 1c7d8c62-0b0f-4f0e-9b2e-6a3c8a3b7e12",
    );
    let out = Converge::new(&sandbox).fast().config(&config).run(["plan"]);
    assert_failed(&out);
    // No service with that id, underlined at config.yaml:16:9.
    converge_snapshot!(snapshots(), "error_unknown_service_id", out);
}

/// Messages wrap between words only: an id (a service UUID) is never cut at its hyphens, at any
/// width, so a reader can copy it whole from a narrow terminal.
#[test]
fn ids_in_messages_are_never_cut_at_their_hyphens() {
    let sandbox = common::fast_sandbox();
    let config = quickstart().replace(
        "id: 1c7d8c62-0b0f-4f0e-9b2e-6a3c8a3b7e11",
        "id: 1c7d8c62-0b0f-4f0e-9b2e-6a3c8a3b7e12",
    );
    let ids = [
        "1c7d8c62-0b0f-4f0e-9b2e-6a3c8a3b7e12",
        "1c7d8c62-0b0f-4f0e-9b2e-6a3c8a3b7e11",
        "2e4f6a8b-3c5d-4e7f-8a9b-0c1d2e3f4a5b",
    ];
    for columns in ["60", "72", "100"] {
        let out = Converge::new(&sandbox)
            .fast()
            .env("COLUMNS", columns)
            .config(&config)
            .run(["plan"]);
        assert_failed(&out);
        for id in ids {
            // The message and the help (the organization's services) each name it whole; the
            // quoted config line (`16 |     id: ...`) does not count.
            assert!(
                out.stderr
                    .lines()
                    .filter(|line| !line.trim_start().starts_with(|c: char| c.is_ascii_digit()))
                    .any(|line| line.contains(id)),
                "at {columns} columns, {id} is not whole on one line:\n{}",
                out.stderr
            );
        }
    }
}

#[test]
fn unknown_pipe_id_points_at_its_id_line() {
    let sandbox = common::fast_sandbox();
    let config = quickstart().replace(
        "id: 0f9d3b1e-6a52-4c0b-8f7e-2d5a9c1b4e77",
        "id: 0f9d3b1e-6a52-4c0b-8f7e-2d5a9c1b4e70",
    );
    let out = Converge::new(&sandbox).fast().config(&config).run(["plan"]);
    out.assert_exit(1);
    assert!(out.stdout.is_empty(), "{}", out.stdout);
    // The unknown id, underlined at config.yaml:26.
    converge_snapshot!(snapshots(), "error_unknown_pipe_id", out);
}

#[test]
fn bursts_of_5xx_are_retried_and_the_plan_is_the_same() {
    let clean = common::fast_sandbox();
    let expected = plan_quickstart(&clean, &[]);
    expected.assert_exit(0);

    let sandbox = faulty_sandbox("500=0.2,503=0.1", 3);
    let out = plan_quickstart(&sandbox, &[]);
    out.assert_exit(0);
    assert_eq!(out.stdout, expected.stdout);
    let log = sandbox.request_log();
    let failed = log.iter().filter(|e| e.status >= 500).count();
    assert!(failed > 0, "the seed gives some 5xx: {log:#?}");
    assert_eq!(log.len(), 6 + failed, "one retry per 5xx: {log:#?}");
}

#[test]
fn persistent_5xx_is_a_clear_error_after_retries() {
    let sandbox = faulty_sandbox("500=1", 1);
    let out = plan_quickstart(&sandbox, &[]);
    assert_failed(&out);
    // `list services failed` with the 500, after its attempts.
    converge_snapshot!(snapshots(), "error_persistent_5xx", out);
    // Retried, not given up at once.
    assert!(
        common::count(
            &sandbox,
            "GET",
            "/v1/organizations/{organizationId}/services"
        ) > 1,
        "{:#?}",
        common::counts(&sandbox)
    );
}

#[test]
fn dropped_connections_are_retried_then_reported() {
    let sandbox = faulty_sandbox("reset=0.25", 5);
    let out = plan_quickstart(&sandbox, &[]);
    assert_eq!(out.code, 0, "a few resets are retried: {}", out.stderr);
    assert!(
        sandbox.request_log().iter().any(|e| e.status == 0),
        "the seed drops some connections"
    );

    let sandbox = faulty_sandbox("reset=1", 1);
    let out = plan_quickstart(&sandbox, &[]);
    assert_failed(&out);
    // `list services failed`, with help to check the API url and the network.
    converge_snapshot!(snapshots(), "error_dropped_connections", out);
    // A plan only reads: telling the user that a write may have happened would send them
    // looking for a change that cannot exist.
    assert!(
        !out.stderr.contains("a write may have happened"),
        "{}",
        out.stderr
    );
}

/// A real HTTP server on 127.0.0.1 that answers every request with `status` and an HTML body.
fn html_server(status: &str) -> RawServer {
    RawServer::fixed(
        status,
        "text/html",
        "<html><head><title>Bad Gateway</title></head><body><h1>upstream unavailable</h1>\
         </body></html>",
    )
}

#[test]
fn html_bodies_are_reported_not_parsed() {
    let sandbox = common::fast_sandbox();
    for status in ["200 OK", "502 Bad Gateway"] {
        let server = html_server(status);
        let url = server.url.as_str();
        let out = plan_quickstart(
            &sandbox,
            &[
                ("CONVERGE_CLOUD_URL", url),
                ("CONVERGE_OBSERVABILITY_URL", url),
            ],
        );
        assert_failed(&out);
        // `list services failed`: a 200 "got a body that is not JSON", a 502 says its status.
        let name = format!("error_html_body_{}", &status[..3]);
        converge_snapshot!(snapshots(), name, out);
        assert!(
            !out.stderr.contains("<html>"),
            "{status}: raw HTML: {}",
            out.stderr
        );
    }
}

#[test]
fn a_server_that_is_not_listening_is_named_at_its_url_line_and_not_retried() {
    let sandbox = common::fast_sandbox();
    let address = {
        let listener = TcpListener::bind("127.0.0.1:0").expect("a port");
        listener.local_addr().expect("an address")
    };
    let url = format!("http://{address}");
    let converge = Converge::new(&sandbox)
        .fast()
        .env("CONVERGE_CLOUD_URL", &url)
        .env("CONVERGE_OBSERVABILITY_URL", &url)
        .config(&quickstart());
    let out = converge.run(["plan"]);
    assert_failed(&out);
    // Which API, at which address, and why; underlined at `cloud.url` (line 7 of the
    // quickstart), not at `organization:`.
    converge_snapshot!(snapshots(), "error_not_listening", out);
    // With -vv, one line per request: the four reads fail at once, in an order that varies.
    let out = converge.run(["plan", "-vv"]);
    assert_failed(&out);
    // The real address (the snapshot masks its port).
    assert!(
        out.stderr.contains(&format!(
            "cannot reach the cloud API at {url}: connection refused"
        )),
        "{}",
        out.stderr
    );
    // Said once, though four reads failed the same way.
    assert_eq!(
        out.stderr.matches("cannot reach").count(),
        1,
        "{}",
        out.stderr
    );
    // One attempt per read, none retried: a refused port fails at once.
    let services_attempts = out
        .stderr
        .lines()
        .filter(|line| line.contains("/services failed after") && !line.contains("/stack/"))
        .count();
    assert_eq!(services_attempts, 1, "{}", out.stderr);
    assert!(!out.stderr.contains("retrying"), "{}", out.stderr);
}

#[test]
fn injected_429s_are_waited_out_and_retried() {
    let clean = common::fast_sandbox();
    let expected = plan_quickstart(&clean, &[]);
    let sandbox = faulty_sandbox("429=0.25", 3);
    let out = plan_quickstart(&sandbox, &[]);
    out.assert_exit(0);
    assert_eq!(out.stdout, expected.stdout);
    let throttled = sandbox
        .request_log()
        .iter()
        .filter(|e| e.status == 429)
        .count();
    assert!(throttled > 0, "the seed throttles some requests");
    assert_eq!(sandbox.request_log().len(), 6 + throttled);
}

#[test]
fn an_out_file_that_cannot_be_written_leaves_nothing_behind() {
    let sandbox = common::contract_sandbox();
    let converge = Converge::new(&sandbox).fast().config(&quickstart());
    // A directory where the plan should go: the rename fails after the temporary was written.
    let target = converge.dir().join("plan.json");
    std::fs::create_dir(&target).unwrap();
    let out = converge.run(["plan", "--out", target.to_str().unwrap()]);
    out.assert_exit(1);
    // The plan, then the one reason it could not be saved.
    let mut settings = snapshots();
    common::mask_ages(&mut settings);
    converge_snapshot!(settings, "error_out_file_is_a_directory", out);
    assert!(
        !converge.dir().join("plan.json.tmp").exists(),
        "the temporary file is removed when the plan cannot be saved"
    );
    assert_eq!(
        out.stderr.matches("Is a directory").count(),
        1,
        "the cause is said once: {}",
        out.stderr
    );
}

#[test]
fn an_empty_secret_variable_is_a_config_error_before_any_request() {
    let sandbox = common::fast_sandbox();
    let out = plan_quickstart(&sandbox, &[("CONVERGE_KEY_SECRET", "")]);
    out.assert_exit(1);
    // `CONVERGE_KEY_SECRET` is set but empty.
    converge_snapshot!(snapshots(), "error_empty_secret_variable", out);
    assert!(
        sandbox.request_log().is_empty(),
        "nothing is sent with an empty secret: {:#?}",
        common::counts(&sandbox)
    );
}
