//! The harness every area's tests share: the real `converge` binary, described by one builder
//! ([`Converge`]) and run against the real sandbox, and what a run did ([`Outcome`]): its exit
//! code, stdout, stderr and the requests the sandbox logged meanwhile, snapshotted whole by
//! [`converge_snapshot!`]. Plus what several areas read or start: the demo's ids and the
//! quickstart, sandboxes, a [`Workspace`] for files, a [`Client`] of the sandbox's HTTP API, a
//! [`RawServer`] no sandbox could be, and insta settings that mask ports, temporary paths,
//! measured durations and request ids ([`snapshots`]).
//!
//! One config, given once and passed last to every run:
//!
//! ```ignore
//! let sandbox = common::fast_sandbox();
//! let converge = Converge::new(&sandbox).fast().config(&common::quickstart());
//! let out = converge.run(["plan", "--format", "json"]);
//! out.assert_exit(0);
//! assert_eq!(out.count("GET", "/v1/organizations/{organizationId}/services"), 1);
//! common::converge_snapshot!("quickstart_plan_json", out);
//! ```
//!
//! Several files, each named where it goes (`apply --plan`, a second config):
//!
//! ```ignore
//! let workspace = Workspace::new();
//! let config = workspace.write("converge.yaml", &common::quickstart());
//! let saved = workspace.file("plan.json");
//! let converge = Converge::new(&sandbox).cwd(&workspace);
//! converge.run(["plan", &config, "--out", &saved]).assert_exit(0);
//! converge.run(["apply", "--plan", &saved, "--yes"]).assert_exit(0);
//! ```
#![allow(dead_code)]

use std::collections::BTreeMap;
use std::ffi::OsString;
use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use converge::sandbox::{
    DEMO_KEY_ID, DEMO_KEY_SECRET, DEMO_ORG, DEMO_TOKEN, FaultSpec, LogEntry, SandboxError,
    SandboxHandle, SandboxOptions,
};
use serde_json::Value;

/// The demo seed's `analytics` service (the quickstart's service).
pub const ANALYTICS: &str = "1c7d8c62-0b0f-4f0e-9b2e-6a3c8a3b7e11";

/// The repository root (where `examples/`, `docs/` and `README.md` are).
pub fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// The variable with which `.ci/run` says that the tests needing the project's shared folder
/// beside the checkout (`../shared`: the reference documents, hdx-server) and the tools it
/// installs must run. A user's clone has no `../shared`, and GitHub Actions sets `CI` there
/// too, so `CI` cannot say it.
pub const REQUIRE_SHARED: &str = "CONVERGE_REQUIRE_SHARED";

/// Whether `.ci/run` asked for every test that needs `../shared` or an installed tool to run
/// (`CONVERGE_REQUIRE_SHARED=1`); elsewhere such a test skips with a message.
pub fn shared_required() -> bool {
    std::env::var_os(REQUIRE_SHARED).is_some_and(|value| value != "0" && !value.is_empty())
}

/// The quickstart's text.
pub fn quickstart() -> String {
    std::fs::read_to_string(root().join("examples/quickstart.yaml"))
        .expect("the quickstart is readable")
}

/// The quickstart's path in the repository, as text.
pub fn quickstart_path() -> String {
    format!("{}/examples/quickstart.yaml", env!("CARGO_MANIFEST_DIR"))
}

/// Starts a sandbox on `127.0.0.1:0`; it stops when the handle is dropped.
///
/// A state file a sandbox of this test just served may still read as locked for a moment: the
/// lock belongs to the open file, and a child process another test forks at that instant holds
/// a copy of it until it execs. So a state file "in use" is waited for (up to ten seconds).
pub fn sandbox(options: SandboxOptions) -> SandboxHandle {
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
    loop {
        match SandboxHandle::spawn(options.clone()) {
            Ok(handle) => return handle,
            Err(SandboxError::StateInUse { .. }) if std::time::Instant::now() < deadline => {
                std::thread::sleep(std::time::Duration::from_millis(20));
            }
            Err(error) => panic!("the sandbox starts: {error:?}"),
        }
    }
}

/// A sandbox with the demo seed and no rate limits, for tests that send many requests.
pub fn fast_sandbox() -> SandboxHandle {
    sandbox(SandboxOptions {
        rate_limit: false,
        ..SandboxOptions::default()
    })
}

/// [`fast_sandbox`] answering in the contract's generation (`--generation contract`: tiles in
/// `series`), for tests whose point is not the wire shape of today's servers.
pub fn contract_sandbox() -> SandboxHandle {
    sandbox(SandboxOptions {
        rate_limit: false,
        generation: converge::sandbox::Generation::Contract,
        ..SandboxOptions::default()
    })
}

/// A sandbox without rate limits that injects the faults of `spec` (`500=0.2,reset=0.1`),
/// drawn from `seed`.
pub fn faulty_sandbox(spec: &str, seed: u64) -> SandboxHandle {
    sandbox(SandboxOptions {
        rate_limit: false,
        faults: spec.parse::<FaultSpec>().expect("a fault spec"),
        fault_seed: seed,
        ..SandboxOptions::default()
    })
}

/// Requests served so far, counted by `"METHOD route-template"`.
pub fn counts(sandbox: &SandboxHandle) -> BTreeMap<String, usize> {
    count_entries(&sandbox.request_log())
}

/// How many requests of one method and route template were served.
pub fn count(sandbox: &SandboxHandle, method: &str, route: &str) -> usize {
    counts(sandbox)
        .get(&format!("{method} {route}"))
        .copied()
        .unwrap_or(0)
}

/// The requests served so far that write (anything but GET), as `"METHOD route-template"`.
pub fn writes(sandbox: &SandboxHandle) -> Vec<String> {
    write_entries(&sandbox.request_log())
}

fn count_entries(entries: &[LogEntry]) -> BTreeMap<String, usize> {
    let mut counts = BTreeMap::new();
    for entry in entries {
        *counts
            .entry(format!("{} {}", entry.method, entry.route))
            .or_insert(0) += 1;
    }
    counts
}

fn write_entries(entries: &[LogEntry]) -> Vec<String> {
    entries
        .iter()
        .filter(|entry| entry.method != "GET")
        .map(|entry| format!("{} {}", entry.method, entry.route))
        .collect()
}

/// A temporary directory for configs, saved plans and reports; it is removed when dropped.
#[derive(Debug)]
pub struct Workspace {
    dir: tempfile::TempDir,
}

impl Workspace {
    pub fn new() -> Workspace {
        Workspace {
            dir: tempfile::tempdir().expect("a temporary directory"),
        }
    }

    /// The directory.
    pub fn path(&self) -> &Path {
        self.dir.path()
    }

    /// The absolute path of `name` in the directory (written or not), as text.
    pub fn file(&self, name: &str) -> String {
        self.dir
            .path()
            .join(name)
            .to_str()
            .expect("a UTF-8 path")
            .to_string()
    }

    /// Writes `text` to `name` and returns its absolute path, as text.
    pub fn write(&self, name: &str, text: &str) -> String {
        let path = self.file(name);
        std::fs::write(&path, text).expect("the file is written");
        path
    }

    /// The text of `name`.
    pub fn read(&self, name: &str) -> String {
        std::fs::read_to_string(self.dir.path().join(name))
            .unwrap_or_else(|e| panic!("{name} is readable: {e}"))
    }
}

impl AsRef<Path> for Workspace {
    fn as_ref(&self) -> &Path {
        self.path()
    }
}

/// One way to run the real binary: its environment, directory, config and input, and the
/// sandbox it talks to. Runs never touch the builder, so one builder serves many runs (and
/// runs on several threads at once); `clone()` it to vary one run.
///
/// The environment starts from the test's own without any `CONVERGE_*` or `GITHUB_ACTIONS`
/// variable (so a developer's shell or CI cannot change a run), with `NO_COLOR=1`.
#[derive(Clone)]
pub struct Converge<'s> {
    sandbox: Option<&'s SandboxHandle>,
    /// Set (`Some`) or removed (`None`), in order.
    env: Vec<(OsString, Option<OsString>)>,
    clear_env: bool,
    cwd: Option<PathBuf>,
    workspace: Option<Arc<Workspace>>,
    config: Option<String>,
    stdin: Option<Vec<u8>>,
    ulimit: Option<String>,
    /// A program (and its arguments) the binary runs under, e.g. `/usr/bin/time -f %M -o F`.
    under: Vec<String>,
    timeout: Option<Duration>,
}

impl<'s> Converge<'s> {
    /// The binary pointed at `sandbox`: its URLs, the demo organization and credentials.
    pub fn new(sandbox: &'s SandboxHandle) -> Converge<'s> {
        let converge = Converge {
            sandbox: Some(sandbox),
            ..Converge::offline()
        };
        converge.envs(sandbox.environment())
    }

    /// The binary with no API settings at all (validate, schema, help, `--sandbox`).
    pub fn offline() -> Converge<'static> {
        Converge {
            sandbox: None,
            env: vec![("NO_COLOR".into(), Some("1".into()))],
            clear_env: false,
            cwd: None,
            workspace: None,
            config: None,
            stdin: None,
            ulimit: None,
            under: Vec::new(),
            timeout: None,
        }
    }

    /// The client's own rate limits opened up and its retry delays skipped: for sandboxes
    /// that enforce no rate limit, so a run never waits.
    pub fn fast(self) -> Self {
        self.rate_limit("100000/1s")
            .env("CONVERGE_TEST_NO_RETRY_DELAY", "1")
    }

    /// The client's rate limit for both APIs (`1000/1s`).
    pub fn rate_limit(self, limit: &str) -> Self {
        self.env("CONVERGE_CLOUD_RATE_LIMIT", limit)
            .env("CONVERGE_OBSERVABILITY_RATE_LIMIT", limit)
    }

    /// Retries without waiting between attempts.
    pub fn no_retry_delay(self) -> Self {
        self.env("CONVERGE_TEST_NO_RETRY_DELAY", "1")
    }

    /// Sets an environment variable.
    pub fn env(mut self, name: impl Into<OsString>, value: impl Into<OsString>) -> Self {
        self.env.push((name.into(), Some(value.into())));
        self
    }

    /// Runs as a GitHub Actions job does (`GITHUB_ACTIONS=true`): annotations are printed.
    pub fn github_actions(self) -> Self {
        self.env("GITHUB_ACTIONS", "true")
    }

    /// Sets environment variables.
    pub fn envs<K: Into<OsString>, V: Into<OsString>>(
        mut self,
        vars: impl IntoIterator<Item = (K, V)>,
    ) -> Self {
        for (name, value) in vars {
            self = self.env(name, value);
        }
        self
    }

    /// Removes an environment variable.
    pub fn env_remove(mut self, name: impl Into<OsString>) -> Self {
        self.env.push((name.into(), None));
        self
    }

    /// Starts from an empty environment (no PATH, no HOME) instead of the test's own.
    pub fn env_clear(mut self) -> Self {
        self.clear_env = true;
        self
    }

    /// Runs in `dir`.
    pub fn cwd(mut self, dir: impl AsRef<Path>) -> Self {
        self.cwd = Some(dir.as_ref().to_path_buf());
        self
    }

    /// Runs in the repository root, so paths like `examples/quickstart.yaml` resolve.
    pub fn in_repo(self) -> Self {
        self.cwd(root())
    }

    /// The config every run is given: written to `config.yaml` in the builder's workspace
    /// (which becomes the directory runs happen in, unless [`Converge::cwd`] says another) and
    /// passed as the last argument.
    pub fn config(self, text: &str) -> Self {
        self.config_as("config.yaml", text)
    }

    /// As [`Converge::config`], in a file named `name`.
    pub fn config_as(mut self, name: &str, text: &str) -> Self {
        let path = self.file(name, text);
        self.config = Some(path);
        self
    }

    /// Writes `text` to `name` in the builder's workspace (made on first use, shared by
    /// clones; runs happen in it unless [`Converge::cwd`] says another directory) and returns
    /// its absolute path.
    fn file(&mut self, name: &str, text: &str) -> String {
        self.workspace
            .get_or_insert_with(|| Arc::new(Workspace::new()))
            .write(name, text)
    }

    /// The builder's workspace, where [`Converge::config`] wrote the config.
    pub fn dir(&self) -> &Path {
        self.workspace
            .as_ref()
            .expect("the builder has a workspace (`config` or `file` made it)")
            .path()
    }

    /// The path of the config [`Converge::config`] wrote.
    pub fn config_path(&self) -> &str {
        self.config.as_deref().expect("a config was given")
    }

    /// Text typed on stdin.
    pub fn stdin(mut self, text: impl Into<Vec<u8>>) -> Self {
        self.stdin = Some(text.into());
        self
    }

    /// Runs under `sh`'s `ulimit LIMITS` (`-t 40`: CPU seconds), so a regression is stopped by
    /// the limit instead of taking the machine.
    pub fn ulimit(mut self, limits: &str) -> Self {
        self.ulimit = Some(limits.to_string());
        self
    }

    /// Runs the binary as the last argument of `program` (`/usr/bin/time -f %M -o FILE`),
    /// which then passes the binary's arguments on: a measurement from outside the process.
    pub fn under(mut self, program: &[&str]) -> Self {
        self.under = program.iter().map(|arg| arg.to_string()).collect();
        self
    }

    /// Kills a run that takes longer than `limit` (a `sandbox serve` that should have refused).
    pub fn timeout(mut self, limit: Duration) -> Self {
        self.timeout = Some(limit);
        self
    }

    /// Applies the environment and directory to any command (`script`, `bash`, the binary).
    pub fn configure(&self, command: &mut Command) {
        if self.clear_env {
            command.env_clear();
        } else {
            for (name, _) in std::env::vars_os() {
                let text = name.to_string_lossy();
                // COLUMNS sets the width messages wrap at: a test sets it when it means to.
                if text.starts_with("CONVERGE_") || text == "GITHUB_ACTIONS" || text == "COLUMNS" {
                    command.env_remove(&name);
                }
            }
        }
        for (name, value) in &self.env {
            match value {
                Some(value) => command.env(name, value),
                None => command.env_remove(name),
            };
        }
        let cwd = self
            .cwd
            .as_deref()
            .or(self.workspace.as_deref().map(Workspace::path));
        if let Some(dir) = cwd {
            command.current_dir(dir);
        }
    }

    /// The binary with `args` (and the config last), configured, for tests that drive the
    /// process themselves (signals, a terminal, reading stderr as it comes).
    pub fn command<I, S>(&self, args: I) -> Command
    where
        I: IntoIterator<Item = S>,
        S: AsRef<std::ffi::OsStr>,
    {
        let binary = binary_path();
        let mut command = match (&self.ulimit, self.under.split_first()) {
            (None, Some((program, arguments))) => {
                let mut under = Command::new(program);
                under.args(arguments).arg(binary);
                under
            }
            (Some(_), Some(_)) => panic!("`ulimit` and `under` do not combine"),
            (Some(limits), None) => {
                let mut sh = Command::new("sh");
                sh.arg("-c")
                    .arg(format!("ulimit {limits} && exec \"$0\" \"$@\""))
                    .arg(binary);
                sh
            }
            (None, None) => Command::new(binary),
        };
        command.args(args);
        if let Some(config) = &self.config {
            command.arg(config);
        }
        self.configure(&mut command);
        command
    }

    /// `bash -c LINE` with the built binary first on `PATH`, configured: for command lines
    /// as a user types them (README examples, redirections).
    pub fn shell(&self, line: &str) -> Command {
        let bin_dir = binary_path()
            .parent()
            .expect("the binary's directory")
            .to_path_buf();
        let path = std::env::var_os("PATH").unwrap_or_default();
        let mut paths = vec![bin_dir];
        paths.extend(std::env::split_paths(&path));
        let mut bash = Command::new("bash");
        bash.arg("-c").arg(line);
        self.configure(&mut bash);
        bash.env("PATH", std::env::join_paths(paths).expect("a PATH"));
        bash
    }

    /// `converge LINE` (as a shell reads it: `apply x.yaml > plan.txt`) on a pseudo-terminal
    /// that `script` (util-linux/bsdutils) makes, with `TERM=xterm` and color allowed; `None`
    /// when `script` is not installed.
    pub fn on_a_terminal(&self, line: &str) -> Option<Command> {
        self.on_a_terminal_of(line, None)
    }

    /// As [`Converge::on_a_terminal`], on a terminal of `columns` by `rows` (`stty` sets the
    /// pseudo-terminal's size before the binary starts).
    pub fn on_a_terminal_sized(&self, line: &str, columns: u16, rows: u16) -> Option<Command> {
        self.on_a_terminal_of(line, Some((columns, rows)))
    }

    fn on_a_terminal_of(&self, line: &str, size: Option<(u16, u16)>) -> Option<Command> {
        if Command::new("script").arg("--version").output().is_err() {
            eprintln!("skipped: `script` is not installed, so no pseudo-terminal can be made");
            return None;
        }
        let mut line = format!("{} {line}", binary_path().display());
        if let Some((columns, rows)) = size {
            line = format!("stty cols {columns} rows {rows} && exec {line}");
        }
        let mut script = Command::new("script");
        script.args(["-qec", &line, "/dev/null"]);
        self.clone()
            .env("TERM", "xterm")
            .env_remove("NO_COLOR")
            .configure(&mut script);
        Some(script)
    }

    /// Runs `converge ARGS` (and the config last) to the end.
    pub fn run<I, S>(&self, args: I) -> Outcome
    where
        I: IntoIterator<Item = S>,
        S: AsRef<std::ffi::OsStr>,
    {
        let args: Vec<OsString> = args
            .into_iter()
            .map(|arg| arg.as_ref().to_os_string())
            .collect();
        let logged_before = self.sandbox.map_or(0, |s| s.request_log().len());
        let mut command = assert_cmd::Command::from_std(self.command(&args));
        if let Some(stdin) = &self.stdin {
            command.write_stdin(stdin.clone());
        }
        if let Some(limit) = self.timeout {
            command.timeout(limit);
        }
        let output = command.output().expect("the binary runs");
        let requests = self.sandbox.map_or_else(Vec::new, |s| {
            let mut log = s.request_log();
            log.drain(..logged_before.min(log.len()));
            log
        });
        let outcome = Outcome {
            args: args
                .iter()
                .map(|a| a.to_string_lossy().into_owned())
                .collect(),
            code: output.status.code().unwrap_or(-1),
            stdout: String::from_utf8_lossy(&output.stdout).into_owned(),
            stderr: String::from_utf8_lossy(&output.stderr).into_owned(),
            requests,
        };
        assert!(
            !outcome.stderr.contains("panicked"),
            "the binary panicked: {outcome:?}"
        );
        outcome
    }
}

/// The built binary.
pub fn binary_path() -> PathBuf {
    PathBuf::from(env!("CARGO_BIN_EXE_converge"))
}

/// What one run of the binary did.
pub struct Outcome {
    /// The arguments it was given (without the config's path).
    pub args: Vec<String>,
    /// The exit code (-1 when a signal ended it).
    pub code: i32,
    pub stdout: String,
    pub stderr: String,
    /// The requests the sandbox logged while the run ran (a run at the same time shows too).
    pub requests: Vec<LogEntry>,
}

impl std::fmt::Debug for Outcome {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Outcome")
            .field("args", &self.args)
            .field("code", &self.code)
            .field("stdout", &self.stdout)
            .field("stderr", &self.stderr)
            .field("requests", &self.counts())
            .finish()
    }
}

impl Outcome {
    /// Asserts the exit code, showing the whole run when it differs.
    #[track_caller]
    pub fn assert_exit(&self, code: i32) -> &Self {
        assert_eq!(
            self.code,
            code,
            "converge {}\n--- stdout:\n{}\n--- stderr:\n{}",
            self.args.join(" "),
            self.stdout,
            self.stderr
        );
        self
    }

    /// stdout as JSON (panics with the run when it is not).
    #[track_caller]
    pub fn json(&self) -> Value {
        serde_json::from_str(&self.stdout)
            .unwrap_or_else(|e| panic!("stdout is not JSON ({e}): {self:?}"))
    }

    /// The run's requests, counted by `"METHOD route-template"`.
    pub fn counts(&self) -> BTreeMap<String, usize> {
        count_entries(&self.requests)
    }

    /// How many of the run's requests had this method and route template.
    pub fn count(&self, method: &str, route: &str) -> usize {
        self.counts()
            .get(&format!("{method} {route}"))
            .copied()
            .unwrap_or(0)
    }

    /// The run's requests that write (anything but GET), as `"METHOD route-template"`.
    pub fn writes(&self) -> Vec<String> {
        write_entries(&self.requests)
    }

    /// All a user sees of the run, as one text to snapshot ([`converge_snapshot!`]): the exit
    /// code, then stdout, then stderr, each stream under its own rule. A stream that does not
    /// end in a newline says so, since the rule after it would otherwise hide the difference.
    pub fn transcript(&self) -> String {
        let mut text = format!("exit: {}\n", self.code);
        for (name, stream) in [("stdout", &self.stdout), ("stderr", &self.stderr)] {
            text.push_str(&format!("----- {name} -----\n"));
            text.push_str(stream);
            if !stream.is_empty() && !stream.ends_with('\n') {
                text.push_str(&format!("\n[no newline at the end of {name}]\n"));
            }
        }
        text
    }
}

/// Asserts a run's whole output ([`Outcome::transcript`]: exit code, stdout and stderr) against
/// the insta snapshot `name`, with the [`snapshots`] filters or with the settings given first.
/// A macro, so that insta names the snapshot after the calling test's module, as it does for
/// `assert_snapshot!`.
///
/// ```ignore
/// let out = converge.run(["plan"]);
/// common::converge_snapshot!("plan_text", out);
/// common::converge_snapshot!(area_settings(), "plan_text", out);
/// ```
macro_rules! converge_snapshot {
    ($name:expr, $outcome:expr $(,)?) => {
        $crate::common::converge_snapshot!($crate::common::snapshots(), $name, $outcome)
    };
    ($settings:expr, $name:expr, $outcome:expr $(,)?) => {{
        let transcript = $crate::common::Outcome::transcript(&$outcome);
        $settings.bind(|| {
            insta::assert_snapshot!(
                $name,
                transcript,
                concat!(stringify!($outcome), ".transcript()")
            )
        });
    }};
}
pub(crate) use converge_snapshot;

/// insta settings that mask what changes from run to run and nothing else: ports of
/// `127.0.0.1`, temporary directories, measured durations (a request's or a step's time, a
/// wait) and the request ids the sandbox draws. A backup's age is masked only by
/// [`mask_ages`]: to the tenth of an hour it holds still, and the plan snapshots record it.
pub fn snapshots() -> insta::Settings {
    let mut settings = insta::Settings::clone_current();
    settings.add_filter(r"127\.0\.0\.1:\d+", "127.0.0.1:[PORT]");
    let temp = std::env::temp_dir();
    let temp = temp.to_string_lossy();
    settings.add_filter(
        &format!(
            r"{}/\.tmp[A-Za-z0-9]+",
            regex_escape(temp.trim_end_matches('/'))
        ),
        "[TMP]",
    );
    settings.add_filter(r"/tmp/\.tmp[A-Za-z0-9]+", "[TMP]");
    // `GET /path 200 12ms`, `failed after 3 ms`, `waited 40 ms`.
    settings.add_filter(r"\b\d+( ?)ms\b", "[N]${1}ms");
    // A step's elapsed time: `[1.2s]`.
    settings.add_filter(r"\[\d+(\.\d+)?s\]", "[N.Ns]");
    // The sandbox draws a request id per request (`requestId 5b0c…`). An error's text is
    // wrapped, after a space or a hyphen, onto lines that start with a `|` gutter: the id's
    // digits are masked where they stand, so the lines keep their shape.
    let hex = |n: usize| format!(r"(\n *\| )?[0-9a-f]{{{n}}}");
    settings.add_filter(
        &format!(
            r"requestId( |\n *\| )[0-9a-f]{{8}}-{}-{}-{}-{}",
            hex(4),
            hex(4),
            hex(4),
            hex(12)
        ),
        "requestId${1}xxxxxxxx-${2}xxxx-${3}xxxx-${4}xxxx-${5}xxxxxxxxxxxx",
    );
    settings
}

/// Masks a backup's age measured from the real clock (`is 6.0h old` reads `is Nh old`, JSON's
/// `"ageMinutes": 360` reads `"ageMinutes": N`), for a snapshot that a slow run must not flake.
pub fn mask_ages(settings: &mut insta::Settings) {
    settings.add_filter(r" is \d+(\.\d+)?h old", " is Nh old");
    settings.add_filter(r#""ageMinutes": \d+"#, r#""ageMinutes": N"#);
}

fn regex_escape(text: &str) -> String {
    let mut out = String::new();
    for c in text.chars() {
        if "\\.+*?()|[]{}^$#&-~".contains(c) {
            out.push('\\');
        }
        out.push(c);
    }
    out
}

/// Text without ANSI escape sequences (CSI: ESC [ parameters final-byte).
pub fn strip_ansi(text: &str) -> String {
    let mut out = String::new();
    let mut chars = text.chars();
    while let Some(c) = chars.next() {
        if c == '\u{1b}' {
            for c in chars.by_ref() {
                if c.is_ascii_alphabetic() {
                    break;
                }
            }
        } else {
            out.push(c);
        }
    }
    out
}

/// Error text is wrapped to the terminal's width, with `|` gutters: its words joined by single
/// spaces, without the gutters.
pub fn words(text: &str) -> String {
    text.split_whitespace()
        .filter(|word| *word != "|")
        .collect::<Vec<_>>()
        .join(" ")
}

/// An HTTP answer.
#[derive(Debug)]
pub struct Answer {
    pub status: u16,
    pub headers: reqwest::header::HeaderMap,
    pub text: String,
}

impl Answer {
    /// The body as JSON (panics with the body when it is not).
    pub fn json(&self) -> Value {
        serde_json::from_str(&self.text).unwrap_or_else(|e| panic!("not JSON ({e}): {}", self.text))
    }

    /// `result` of a cloud envelope, after checking the envelope.
    pub fn result(&self) -> Value {
        let body = self.json();
        assert_eq!(self.status, 200, "{}", self.text);
        assert_eq!(body["status"], 200, "{}", self.text);
        body["result"].clone()
    }

    /// `data` of an observability answer.
    pub fn data(&self) -> Value {
        assert_eq!(self.status, 200, "{}", self.text);
        self.json()["data"].clone()
    }

    /// The cloud error text (`CODE: message`).
    pub fn error(&self) -> String {
        self.json()["error"]
            .as_str()
            .unwrap_or_default()
            .to_string()
    }
}

/// The ids of every service the sandbox lists, in its order.
pub fn service_ids(sandbox: &SandboxHandle) -> Vec<String> {
    let services = Client::new(sandbox)
        .cloud("GET", "/services", None)
        .result();
    services
        .as_array()
        .expect("a services list")
        .iter()
        .filter_map(|s| s["id"].as_str().map(String::from))
        .collect()
}

/// A small blocking HTTP client over reqwest, with the demo credentials.
pub struct Client {
    runtime: tokio::runtime::Runtime,
    http: reqwest::Client,
    base: String,
}

impl Client {
    pub fn new(sandbox: &SandboxHandle) -> Client {
        Client::at(&sandbox.url())
    }

    /// A client of the server at `base` (`http://127.0.0.1:PORT`).
    pub fn at(base: &str) -> Client {
        // reqwest is built without a default TLS provider; the tests only speak plain HTTP.
        let _ = rustls::crypto::ring::default_provider().install_default();
        Client {
            runtime: tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()
                .expect("a runtime"),
            http: reqwest::Client::builder()
                .pool_max_idle_per_host(0)
                .build()
                .expect("a client"),
            base: base.to_string(),
        }
    }

    /// Sends a request; `Err` when the connection failed (no HTTP answer at all).
    pub fn try_send(
        &self,
        method: &str,
        path: &str,
        auth: Option<&str>,
        body: Option<Vec<u8>>,
    ) -> Result<Answer, reqwest::Error> {
        let method = reqwest::Method::from_bytes(method.as_bytes()).expect("a method");
        let mut request = self.http.request(method, format!("{}{path}", self.base));
        if let Some(auth) = auth {
            request = request.header("Authorization", auth);
        }
        if let Some(body) = body {
            request = request
                .header("Content-Type", "application/json")
                .body(body);
        }
        self.runtime.block_on(async {
            let response = request.send().await?;
            let status = response.status().as_u16();
            let headers = response.headers().clone();
            let text = response.text().await?;
            Ok(Answer {
                status,
                headers,
                text,
            })
        })
    }

    fn send(&self, method: &str, path: &str, auth: Option<&str>, body: Option<Value>) -> Answer {
        self.try_send(method, path, auth, body.map(|b| b.to_string().into_bytes()))
            .unwrap_or_else(|e| panic!("{method} {path}: {e}"))
    }

    /// Basic auth header of the demo key.
    pub fn basic() -> String {
        basic(DEMO_KEY_ID, DEMO_KEY_SECRET)
    }

    /// Bearer auth header of the demo token.
    pub fn bearer() -> String {
        format!("Bearer {DEMO_TOKEN}")
    }

    /// A cloud API request; `path` follows `/v1/organizations/{DEMO_ORG}`.
    pub fn cloud(&self, method: &str, path: &str, body: Option<Value>) -> Answer {
        self.send(
            method,
            &format!("/v1/organizations/{DEMO_ORG}{path}"),
            Some(&Self::basic()),
            body,
        )
    }

    /// An observability API request; `path` follows `/api/v2`.
    pub fn obs(&self, method: &str, path: &str, body: Option<Value>) -> Answer {
        self.send(
            method,
            &format!("/api/v2{path}"),
            Some(&Self::bearer()),
            body,
        )
    }

    /// A request with any path and auth header.
    pub fn raw(&self, method: &str, path: &str, auth: Option<&str>, body: Option<Value>) -> Answer {
        self.send(method, path, auth, body)
    }
}

/// A `Basic` auth header of a key id and secret.
pub fn basic(key_id: &str, secret: &str) -> String {
    use base64::Engine;
    let raw = format!("{key_id}:{secret}");
    format!(
        "Basic {}",
        base64::engine::general_purpose::STANDARD.encode(raw)
    )
}

/// Asserts that `text` (what `what` printed or wrote) holds none of `canaries`.
#[track_caller]
pub fn assert_clean(what: &str, text: &str, canaries: &[impl AsRef<str>]) {
    for canary in canaries {
        let canary = canary.as_ref();
        assert!(!text.contains(canary), "{what} shows `{canary}`:\n{text}");
    }
}

/// The managed stack's dashboards of `analytics`.
pub fn dashboards(sandbox: &SandboxHandle) -> Vec<Value> {
    let client = Client::new(sandbox);
    let answer = client.cloud(
        "GET",
        &format!("/services/{ANALYTICS}/stack/dashboards"),
        None,
    );
    answer.result().as_array().cloned().unwrap_or_default()
}

/// The managed stack's alerts of `analytics`.
pub fn alerts(sandbox: &SandboxHandle) -> Vec<Value> {
    let client = Client::new(sandbox);
    let answer = client.cloud("GET", &format!("/services/{ANALYTICS}/stack/alerts"), None);
    answer.result().as_array().cloned().unwrap_or_default()
}

/// The standalone observability API's dashboards.
pub fn standalone_dashboards(sandbox: &SandboxHandle) -> Vec<Value> {
    let client = Client::new(sandbox);
    client
        .obs("GET", "/dashboards", None)
        .data()
        .as_array()
        .cloned()
        .unwrap_or_default()
}

/// The `analytics` service as listed.
pub fn analytics(sandbox: &SandboxHandle) -> Value {
    let client = Client::new(sandbox);
    let services = client.cloud("GET", "/services", None).result();
    services
        .as_array()
        .and_then(|list| list.iter().find(|s| s["id"] == ANALYTICS).cloned())
        .expect("analytics is listed")
}

/// The names of objects, sorted (duplicates kept, so they show).
pub fn names(objects: &[Value]) -> Vec<String> {
    let mut names: Vec<String> = objects
        .iter()
        .map(|o| o["name"].as_str().unwrap_or_default().to_string())
        .collect();
    names.sort();
    names
}

/// What a [`RawServer`] answers: a whole response (status line onwards), or a writer that
/// streams until the client goes away.
pub enum Reply {
    Full(String),
    Stream(Box<dyn FnOnce(&mut TcpStream) + Send>),
}

impl Reply {
    /// A whole response with `status` (`200 OK`), a content type, extra headers and `body`.
    pub fn with(status: &str, content_type: &str, headers: &[(&str, &str)], body: &str) -> Reply {
        let mut head = format!(
            "HTTP/1.1 {status}\r\nContent-Type: {content_type}\r\nContent-Length: {}\r\nConnection: close\r\n",
            body.len()
        );
        for (name, value) in headers {
            head.push_str(&format!("{name}: {value}\r\n"));
        }
        Reply::Full(format!("{head}\r\n{body}"))
    }

    /// A JSON response.
    pub fn json(status: &str, body: &str) -> Reply {
        Reply::with(status, "application/json", &[], body)
    }
}

/// A server on 127.0.0.1:0 that no sandbox could be (plain threads, raw HTTP/1.1): it answers
/// each request with `answer(path)` and keeps the path of each request.
pub struct RawServer {
    pub url: String,
    seen: Arc<Mutex<Vec<String>>>,
}

impl RawServer {
    pub fn start(answer: impl Fn(&str) -> Reply + Send + Sync + 'static) -> RawServer {
        let listener = TcpListener::bind("127.0.0.1:0").expect("a port");
        let url = format!("http://{}", listener.local_addr().expect("an address"));
        let seen: Arc<Mutex<Vec<String>>> = Arc::default();
        let log = seen.clone();
        let answer = Arc::new(answer);
        std::thread::spawn(move || {
            for stream in listener.incoming() {
                let Ok(mut stream) = stream else { continue };
                let (log, answer) = (log.clone(), answer.clone());
                std::thread::spawn(move || {
                    let mut request = Vec::new();
                    let mut buffer = [0u8; 8192];
                    while !request.windows(4).any(|w| w == b"\r\n\r\n") {
                        match stream.read(&mut buffer) {
                            Ok(0) | Err(_) => return,
                            Ok(n) => request.extend_from_slice(&buffer[..n]),
                        }
                    }
                    let text = String::from_utf8_lossy(&request).into_owned();
                    let path = text.split_whitespace().nth(1).unwrap_or("").to_string();
                    log.lock().unwrap().push(path.clone());
                    match answer(&path) {
                        Reply::Full(response) => {
                            let _ = stream.write_all(response.as_bytes());
                        }
                        Reply::Stream(write) => write(&mut stream),
                    }
                });
            }
        });
        RawServer { url, seen }
    }

    /// A server giving every request the same whole answer.
    pub fn fixed(status: &str, content_type: &str, body: &str) -> RawServer {
        let (status, content_type, body) = (
            status.to_string(),
            content_type.to_string(),
            body.to_string(),
        );
        RawServer::start(move |_| Reply::with(&status, &content_type, &[], &body))
    }

    /// Requests served, by path without its query.
    pub fn counts(&self) -> BTreeMap<String, usize> {
        let mut counts = BTreeMap::new();
        for path in self.seen.lock().unwrap().iter() {
            let bare = path.split('?').next().unwrap_or("").to_string();
            *counts.entry(bare).or_insert(0) += 1;
        }
        counts
    }

    /// How many requests were served.
    pub fn hits(&self) -> usize {
        self.seen.lock().unwrap().len()
    }
}
