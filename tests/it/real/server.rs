//! [`HdxServer`]: HyperDX's own external API v2 server (`../shared/hdx-server/serve.sh`) on a
//! free port of 127.0.0.1, a fresh team each start, stopped (its whole process group) when
//! dropped.

use std::io::{BufRead, BufReader};
use std::os::unix::process::CommandExt;
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use serde_json::Value;

use crate::common;

/// The access key of the seed's user; `KEY-ui` is a second user of the same team.
pub const KEY: &str = "converge-test-key";

/// Names another folder holding hdx-server than `../shared/hdx-server` beside the checkout (a
/// git worktree's `..` is not the checkout's).
pub const HOME_ENV: &str = "CONVERGE_HDX_SERVER";

/// Where hdx-server lives: `../shared/hdx-server` beside the checkout, or [`HOME_ENV`].
pub fn home() -> PathBuf {
    std::env::var_os(HOME_ENV)
        .map(PathBuf::from)
        .unwrap_or_else(|| common::root().join("../shared/hdx-server"))
}

/// Starts are one at a time: the first unpacks the bundle and builds the Python environment in
/// the shared `HDX_WORK`, which the next ones reuse.
static STARTING: Mutex<()> = Mutex::new(());

/// One running hdx-server.
pub struct HdxServer {
    child: Child,
    /// `http://127.0.0.1:PORT`.
    pub url: String,
    /// What the first line on stdout said: the seeded ids.
    pub seed: Value,
    log: PathBuf,
    _dir: tempfile::TempDir,
}

impl HdxServer {
    /// A fresh server, or `None` (with a printed message) when `../shared/hdx-server` is absent
    /// and `.ci/run` did not ask for it; under `CONVERGE_REQUIRE_SHARED=1` absence or a failed
    /// start fails the test.
    pub fn start(test: &str) -> Option<HdxServer> {
        let serve = home().join("serve.sh");
        if !serve.exists() {
            assert!(
                !common::shared_required(),
                "{test}: {} is missing, and {} asks for it",
                serve.display(),
                common::REQUIRE_SHARED
            );
            eprintln!(
                "skipped {test}: {} is absent (the observability API's real server code)",
                serve.display()
            );
            return None;
        }
        let mut last = String::new();
        for _ in 0..3 {
            match HdxServer::try_start(&serve) {
                Ok(server) => return Some(server),
                Err(problem) => last = problem,
            }
        }
        panic!("{test}: hdx-server did not start: {last}");
    }

    fn try_start(serve: &std::path::Path) -> Result<HdxServer, String> {
        let _one = STARTING.lock().unwrap_or_else(|e| e.into_inner());
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .and_then(|l| l.local_addr())
            .map_err(|e| e.to_string())?
            .port();
        let dir = tempfile::tempdir().map_err(|e| e.to_string())?;
        let log = dir.path().join("requests.log");
        let stderr = std::fs::File::create(dir.path().join("stderr")).map_err(|e| e.to_string())?;
        // The unpacked bundle and the venv outlive the run: the next `cargo test` reuses them.
        let work = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("hdx-server");
        let mut child = Command::new("bash")
            .arg(serve)
            .arg(port.to_string())
            .arg(KEY)
            .env("HDX_WORK", &work)
            .env("HDX_REQUEST_LOG", &log)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(stderr)
            .process_group(0)
            .spawn()
            .map_err(|e| format!("bash {}: {e}", serve.display()))?;
        let stdout = child.stdout.take().ok_or("no stdout")?;
        let (tx, rx) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            let mut lines = BufReader::new(stdout).lines();
            let _ = tx.send(lines.next());
            // Keep reading so the server never blocks on a full pipe.
            for _ in lines {}
        });
        // The first start builds the Python environment (offline wheels): give it time.
        let deadline = Instant::now() + Duration::from_secs(240);
        let line = rx.recv_timeout(deadline.saturating_duration_since(Instant::now()));
        let mut server = HdxServer {
            child,
            url: format!("http://127.0.0.1:{port}"),
            seed: Value::Null,
            log,
            _dir: dir,
        };
        let stderr_text =
            || std::fs::read_to_string(server._dir.path().join("stderr")).unwrap_or_default();
        match line {
            Ok(Some(Ok(line))) => match serde_json::from_str::<Value>(&line) {
                Ok(seed) if seed["ready"] == true => {
                    server.seed = seed;
                    Ok(server)
                }
                _ => Err(format!(
                    "first line is not the ready line: {line}\n{}",
                    stderr_text()
                )),
            },
            _ => Err(format!("no ready line\n{}", stderr_text())),
        }
    }

    /// The bearer key of the seed's user.
    pub fn key(&self) -> &'static str {
        KEY
    }

    /// The key of the second user of the team (edits "made in the UI", its own rate windows).
    pub fn ui_key(&self) -> String {
        format!("{KEY}-ui")
    }

    /// A seeded source's id by name (`Logs`, `Traces`, `Metrics`).
    pub fn source(&self, name: &str) -> String {
        self.seed["sources"][name]
            .as_str()
            .unwrap_or_else(|| panic!("the seed has no source {name}: {}", self.seed))
            .to_string()
    }

    /// The seeded webhooks' ids.
    pub fn webhooks(&self) -> Vec<String> {
        self.seed["webhooks"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|w| w.as_str().map(str::to_string))
            .collect()
    }

    /// Every request served so far (`method`, `url`, `key`, `status`, and the bodies of a 4xx/5xx).
    pub fn requests(&self) -> Vec<Value> {
        std::fs::read_to_string(&self.log)
            .unwrap_or_default()
            .lines()
            .filter_map(|line| serde_json::from_str(line).ok())
            .collect()
    }
}

impl Drop for HdxServer {
    fn drop(&mut self) {
        // The whole group: bash, node and the MongoDB stand-in.
        let group = format!("-{}", self.child.id());
        let _ = Command::new("kill").args(["-TERM", "--", &group]).status();
        let _ = self.child.wait();
    }
}
