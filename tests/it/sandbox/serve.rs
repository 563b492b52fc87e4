//! `converge sandbox serve` through the real binary.

use std::io::{BufRead, BufReader, Read};
use std::process::{Child, ChildStderr, Command, Stdio};

use crate::common::{Client, Converge, Outcome, Workspace};

/// Starts `converge sandbox serve ARGS` and returns the child, its URL, the lines up to the
/// `hint:` line (as printed, each with its newline) and the rest of its stderr.
fn serve(args: &[&str]) -> (Child, String, Vec<String>, BufReader<ChildStderr>) {
    let mut child = Converge::offline()
        .command(["sandbox", "serve", "--port", "0"])
        .args(args)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the binary starts");
    let stderr = child.stderr.take().unwrap();
    let mut reader = BufReader::new(stderr);
    let mut lines = Vec::new();
    let mut url = None;
    for _ in 0..10 {
        let mut line = String::new();
        if reader.read_line(&mut line).unwrap() == 0 {
            break;
        }
        if let Some(rest) = line.strip_prefix("sandbox listening on ") {
            url = Some(rest.split_whitespace().next().unwrap().to_string());
        }
        let done = line.starts_with("hint:");
        lines.push(line);
        if done {
            break;
        }
    }
    (child, url.expect("the URL is printed"), lines, reader)
}

fn get(url: &str, auth: &str) -> u16 {
    send("GET", url, auth, None).0
}

#[test]
fn serve_prints_the_url_and_the_demo_credentials() {
    let (mut child, url, lines, mut reader) = serve(&["--seed", "large", "--rate-limit", "off"]);
    assert!(
        lines.iter().any(|l| l.contains("key id `sandbox-key`")),
        "{lines:?}"
    );
    // The hint is the whole set-up, both secrets included.
    let hint = lines.last().map(String::as_str).unwrap_or_default();
    for wanted in [
        format!("CONVERGE_CLOUD_URL={url} "),
        format!("CONVERGE_OBSERVABILITY_URL={url} "),
        "CONVERGE_KEY_ID=sandbox-key ".to_string(),
        "CONVERGE_KEY_SECRET=sandbox-secret ".to_string(),
        "CONVERGE_OBS_TOKEN=sandbox-token".to_string(),
    ] {
        assert!(hint.contains(&wanted), "{wanted} in {hint}");
    }
    let status = get(&format!("{url}/api/v2/dashboards"), "Bearer sandbox-token");
    // SIGTERM stops it cleanly.
    let term = Command::new("kill")
        .args(["-TERM", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(term.success());
    let exit = child.wait().unwrap();
    assert_eq!(status, 200);
    assert_eq!(exit.code(), Some(0));
    // The whole run: the banner (the URL, the demo credentials, the hint), then what it says
    // when SIGTERM stops it.
    let mut stderr = lines.concat();
    reader.read_to_string(&mut stderr).unwrap();
    let mut stdout = String::new();
    child
        .stdout
        .take()
        .unwrap()
        .read_to_string(&mut stdout)
        .unwrap();
    let run = Outcome {
        args: vec![
            "sandbox".into(),
            "serve".into(),
            "--port".into(),
            "0".into(),
        ],
        code: exit.code().unwrap_or(-1),
        stdout,
        stderr,
        requests: Vec::new(),
    };
    crate::common::converge_snapshot!("serve_banner", run);
}

#[test]
fn serve_uses_the_credentials_it_is_given() {
    let (mut child, url, lines, _) = serve(&[
        "--key-id",
        "ci-key",
        "--key-secret",
        "ci-secret",
        "--token",
        "ci-token",
        "--org",
        "11111111-2222-4333-8444-555555555555",
    ]);
    assert!(
        !lines.iter().any(|l| l.contains("demo credentials")),
        "{lines:?}"
    );
    // Given secrets are named, never echoed.
    assert!(
        !lines
            .iter()
            .any(|l| l.contains("ci-secret") || l.contains("ci-token")),
        "{lines:?}"
    );
    let basic = |raw: &str| {
        format!(
            "Basic {}",
            base64::Engine::encode(&base64::engine::general_purpose::STANDARD, raw)
        )
    };
    let services = format!("{url}/v1/organizations/11111111-2222-4333-8444-555555555555/services");
    let given = get(&services, &basic("ci-key:ci-secret"));
    let demo = get(&services, &basic("sandbox-key:sandbox-secret"));
    let token = get(&format!("{url}/api/v2/dashboards"), "Bearer ci-token");
    child.kill().unwrap();
    let _ = child.wait();
    assert_eq!((given, demo, token), (200, 401, 200));
}

fn stop(mut child: Child) {
    Command::new("kill")
        .args(["-TERM", &child.id().to_string()])
        .status()
        .unwrap();
    assert_eq!(child.wait().unwrap().code(), Some(0));
}

fn send(method: &str, url: &str, auth: &str, body: Option<&str>) -> (u16, String) {
    let answer = Client::at(url)
        .try_send(method, "", Some(auth), body.map(|b| b.as_bytes().to_vec()))
        .unwrap();
    (answer.status, answer.text)
}

#[test]
fn serve_state_file_survives_a_restart() {
    let dir = Workspace::new();
    let state = dir.file("world.json");
    let state_arg = state.as_str();
    let auth = "Bearer sandbox-token";

    let (child, url, _, _) = serve(&["--state", state_arg]);
    let (status, _) = send(
        "POST",
        &format!("{url}/api/v2/dashboards"),
        auth,
        Some(r#"{"name": "kept across restarts", "tiles": []}"#),
    );
    assert_eq!(status, 200);
    stop(child);

    let (child, url, _, _) = serve(&["--state", state_arg]);
    let (status, body) = send("GET", &format!("{url}/api/v2/dashboards"), auth, None);
    stop(child);
    assert_eq!(status, 200);
    assert!(body.contains("kept across restarts"), "{body}");
}

#[test]
fn serve_logs_requests_with_verbose() {
    let (mut child, url, _, mut reader) = serve(&["-v"]);
    let status = get(&format!("{url}/api/v2/dashboards"), "Bearer sandbox-token");
    Command::new("kill")
        .args(["-TERM", &child.id().to_string()])
        .status()
        .unwrap();
    let mut rest = String::new();
    std::io::Read::read_to_string(&mut reader, &mut rest).unwrap();
    child.wait().unwrap();
    assert_eq!(status, 200);
    assert!(rest.contains("GET /api/v2/dashboards -> 200"), "{rest}");
}

#[test]
fn serve_rejects_unpaired_keys_and_bad_fault_specs() {
    let unpaired = Converge::offline().run(["sandbox", "serve", "--port", "0", "--key-id", "a"]);
    unpaired.assert_exit(1);
    assert!(unpaired.stderr.contains("--key-secret"));
    let faults = Converge::offline().run(["sandbox", "serve", "--faults", "teapot=0.5"]);
    // A usage error is an error (1), never clap's 2, which DESIGN gives to "changes planned".
    faults.assert_exit(1);
    assert!(faults.stderr.contains("unknown fault"));
}

/// A sandbox that stops leaves its state file and nothing beside it: the `.lock` file it held
/// while serving is removed, for `sandbox serve --state` and for a `--sandbox` run alike.
#[test]
fn a_stopped_sandbox_leaves_no_lock_file() {
    let dir = Workspace::new();
    let state = dir.file("world.json");
    let (child, _, _, _) = serve(&["--state", state.as_str()]);
    assert!(
        dir.path().join("world.json.lock").exists(),
        "held while serving"
    );
    stop(child);
    let mut left: Vec<String> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    left.sort();
    assert_eq!(left, ["world.json"]);

    let quickstart = crate::common::quickstart_path();
    Converge::offline()
        .cwd(&dir)
        .run(["plan", "--sandbox", quickstart.as_str()])
        .assert_exit(0);
    let converge_dir: Vec<String> = std::fs::read_dir(dir.path().join(".converge"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert_eq!(converge_dir, ["sandbox.json"]);
}
