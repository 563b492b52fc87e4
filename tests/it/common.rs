//! The harness every area's tests share: start a sandbox, point the real `converge` binary at
//! it, talk to it over real HTTP, and count its request log by route.
//!
//! ```ignore
//! let sandbox = common::sandbox(SandboxOptions { rate_limit: false, ..Default::default() });
//! let output = common::converge(&sandbox).args(["plan", "examples/quickstart.yaml"]).output();
//! assert_eq!(common::count(&sandbox, "GET", "/v1/organizations/{organizationId}/services"), 1);
//! ```
#![allow(dead_code)]

use std::collections::BTreeMap;

use converge::sandbox::{
    DEMO_KEY_ID, DEMO_KEY_SECRET, DEMO_ORG, DEMO_TOKEN, SandboxHandle, SandboxOptions,
};
use serde_json::Value;

/// Starts a sandbox on `127.0.0.1:0`; it stops when the handle is dropped.
pub fn sandbox(options: SandboxOptions) -> SandboxHandle {
    SandboxHandle::spawn(options).expect("the sandbox starts")
}

/// A sandbox with the demo seed and no rate limits, for tests that send many requests.
pub fn fast_sandbox() -> SandboxHandle {
    sandbox(SandboxOptions {
        rate_limit: false,
        ..SandboxOptions::default()
    })
}

/// The real binary with its environment pointing at `sandbox` (demo credentials, no color).
pub fn converge(sandbox: &SandboxHandle) -> assert_cmd::Command {
    let mut command = assert_cmd::Command::cargo_bin("converge").expect("the binary is built");
    command.envs(sandbox.environment()).env("NO_COLOR", "1");
    command
}

/// Requests served so far, counted by `"METHOD route-template"`.
pub fn counts(sandbox: &SandboxHandle) -> BTreeMap<String, usize> {
    let mut counts = BTreeMap::new();
    for entry in sandbox.request_log() {
        *counts
            .entry(format!("{} {}", entry.method, entry.route))
            .or_insert(0) += 1;
    }
    counts
}

/// How many requests of one method and route template were served.
pub fn count(sandbox: &SandboxHandle, method: &str, route: &str) -> usize {
    counts(sandbox)
        .get(&format!("{method} {route}"))
        .copied()
        .unwrap_or(0)
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

/// A small blocking HTTP client over reqwest, with the demo credentials.
pub struct Client {
    runtime: tokio::runtime::Runtime,
    http: reqwest::Client,
    base: String,
}

impl Client {
    pub fn new(sandbox: &SandboxHandle) -> Client {
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
            base: sandbox.url(),
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
        use base64::Engine;
        let raw = format!("{DEMO_KEY_ID}:{DEMO_KEY_SECRET}");
        format!(
            "Basic {}",
            base64::engine::general_purpose::STANDARD.encode(raw)
        )
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
