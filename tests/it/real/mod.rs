//! The observability half judged by two servers: the sandbox and HyperDX's own external API v2
//! server code (`../shared/hdx-server`, [`HdxServer`]). Each case is written once against a
//! [`Target`] and run on both by [`on_both!`], with the same assertions: where the two
//! disagree, the real server is right and the sandbox changes.
//!
//! The configs are of a stack on the standalone observability API (`api: observability`), the
//! one hdx-server serves; `observability:` points converge at the target with
//! `${env:CONVERGE_OBSERVABILITY_URL}` and `${env:CONVERGE_OBS_TOKEN}`. hdx-server keeps its
//! real rate limiter (100 requests per minute per key, fixed windows): every case starts its
//! own server, so it has fresh windows and a fresh team.

#![allow(dead_code)]

mod cases;
mod dedupe;
mod differential;
mod examples;
mod references;
mod saved_searches;
pub mod server;
mod sources;
mod split_stack;
mod teams;
mod webhook_gaps;
mod webhooks;

use converge::sandbox::{DEMO_TOKEN, SandboxHandle};
use serde_json::Value;

use crate::common::{self, Answer, Client, Converge};
pub use server::HdxServer;

/// The server a case runs against.
pub enum Target {
    Sandbox(SandboxHandle),
    Hdx(HdxServer),
}

impl Target {
    /// A sandbox of today's generation, without rate limits.
    pub fn sandbox() -> Target {
        Target::Sandbox(common::fast_sandbox())
    }

    /// A fresh hdx-server; `None` (a message printed) when it is absent and not required.
    pub fn hdx(test: &str) -> Option<Target> {
        HdxServer::start(test).map(Target::Hdx)
    }

    /// `sandbox` or `hdx-server`, for messages.
    pub fn name(&self) -> &'static str {
        match self {
            Target::Sandbox(_) => "sandbox",
            Target::Hdx(_) => "hdx-server",
        }
    }

    /// The observability API's base URL.
    pub fn url(&self) -> String {
        match self {
            Target::Sandbox(sandbox) => sandbox.url(),
            Target::Hdx(hdx) => hdx.url.clone(),
        }
    }

    /// converge pointed at the target. Against the sandbox (no rate limit) it runs unpaced;
    /// against hdx-server at its own default pacing, as a user's would.
    pub fn converge(&self) -> Converge<'_> {
        match self {
            Target::Sandbox(sandbox) => Converge::new(sandbox).fast(),
            Target::Hdx(hdx) => Converge::offline().envs([
                ("CONVERGE_OBSERVABILITY_URL", hdx.url.clone()),
                ("CONVERGE_OBS_TOKEN", hdx.key().to_string()),
                // The configs name no cloud object: nothing is sent there.
                ("CONVERGE_CLOUD_URL", "http://127.0.0.1:9".to_string()),
                ("CONVERGE_ORG_ID", converge::sandbox::DEMO_ORG.to_string()),
                ("CONVERGE_KEY_ID", "unused".to_string()),
                ("CONVERGE_KEY_SECRET", "unused-secret".to_string()),
            ]),
        }
    }

    pub fn key(&self) -> String {
        match self {
            Target::Sandbox(_) => DEMO_TOKEN.to_string(),
            Target::Hdx(hdx) => hdx.key().to_string(),
        }
    }

    /// The key a person in the UI edits with: hdx-server's second user of the team (its own
    /// rate-limit window); the sandbox has one token.
    fn ui_key(&self) -> String {
        match self {
            Target::Sandbox(_) => DEMO_TOKEN.to_string(),
            Target::Hdx(hdx) => hdx.ui_key(),
        }
    }

    /// A request of the observability API (`path` after `/api/v2`) with converge's key.
    pub fn obs(&self, method: &str, path: &str, body: Option<Value>) -> Answer {
        let auth = format!("Bearer {}", self.key());
        Client::at(&self.url()).raw(method, &format!("/api/v2{path}"), Some(&auth), body)
    }

    /// The same request made "in the UI" (hdx-server's second key of the team).
    pub fn ui(&self, method: &str, path: &str, body: Option<Value>) -> Answer {
        let auth = format!("Bearer {}", self.ui_key());
        Client::at(&self.url()).raw(method, &format!("/api/v2{path}"), Some(&auth), body)
    }

    /// The team's dashboards as the server answers them.
    pub fn dashboards(&self) -> Vec<Value> {
        list(&self.obs("GET", "/dashboards", None))
    }

    /// The team's alerts as the server answers them.
    pub fn alerts(&self) -> Vec<Value> {
        list(&self.obs("GET", "/alerts", None))
    }

    /// The writes (anything but GET) the server answered, as `METHOD /path STATUS`, ids of the
    /// path replaced by `{id}`, oldest first.
    pub fn writes(&self) -> Vec<String> {
        match self {
            Target::Sandbox(sandbox) => sandbox
                .request_log()
                .iter()
                .filter(|e| e.method != "GET" && e.route.starts_with("/api/v2"))
                .map(|e| format!("{} {} {}", e.method, templated(&e.path), e.status))
                .collect(),
            Target::Hdx(hdx) => hdx
                .requests()
                .iter()
                .filter(|r| r["method"] != "GET")
                .map(|r| {
                    let url = r["url"].as_str().unwrap_or_default();
                    let path = url.split('?').next().unwrap_or_default();
                    format!(
                        "{} {} {}",
                        r["method"].as_str().unwrap_or_default(),
                        templated(path),
                        r["status"]
                    )
                })
                .collect(),
        }
    }
}

/// `data` of a list answer.
fn list(answer: &Answer) -> Vec<Value> {
    answer.data().as_array().cloned().unwrap_or_default()
}

/// A path with its 24-hex ids as `{id}`.
fn templated(path: &str) -> String {
    path.split('/')
        .map(|segment| {
            if segment.len() == 24 && segment.chars().all(|c| c.is_ascii_hexdigit()) {
                "{id}"
            } else {
                segment
            }
        })
        .collect::<Vec<_>>()
        .join("/")
}

/// Runs a case (`fn(&Target)`) as two tests of a module named after it: `sandbox` and
/// `hdx_server` (which skips, saying so, when hdx-server is absent and not required).
macro_rules! on_both {
    ($name:ident) => {
        mod $name {
            #[test]
            fn sandbox() {
                super::$name(&crate::real::Target::sandbox());
            }

            #[test]
            fn hdx_server() {
                if let Some(target) = crate::real::Target::hdx(module_path!()) {
                    super::$name(&target);
                }
            }
        }
    };
}
pub(crate) use on_both;

/// The head every case's config starts with: where the APIs are, all from `${env:...}`.
pub const HEAD: &str = "\
version: 1
organization: ${env:CONVERGE_ORG_ID}
cloud:
  url: ${env:CONVERGE_CLOUD_URL}
  keyId: ${env:CONVERGE_KEY_ID}
  keySecret: ${env:CONVERGE_KEY_SECRET}
observability:
  url: ${env:CONVERGE_OBSERVABILITY_URL}
  token: ${env:CONVERGE_OBS_TOKEN}
";

/// A whole config: [`HEAD`] and one stack `platform` on the observability API with `body`
/// (its `dashboards:` and `alerts:`, written from the left margin).
pub fn config(body: &str) -> String {
    let mut text = format!("{HEAD}stacks:\n  platform:\n    api: observability\n    prune: true\n");
    for line in body.lines() {
        text.push_str("    ");
        text.push_str(line);
        text.push('\n');
    }
    text
}

/// Applies `config` (exit 0) and checks that the next plan is empty; returns the apply.
#[track_caller]
pub fn apply_then_empty(target: &Target, converge: &Converge<'_>, config: &str) -> common::Outcome {
    let refused_before = refused_writes(target).len();
    let applied = converge.run(["apply", "--yes", "--allow-destroy", config]);
    assert_eq!(
        applied.code,
        0,
        "{}: apply failed:\n{}\n{}",
        target.name(),
        applied.stdout,
        applied.stderr
    );
    // converge never sends what the server refuses (a retried or resolved write still counts).
    let refused = refused_writes(target);
    assert_eq!(
        refused.len(),
        refused_before,
        "{}: the apply sent writes the server refused: {:?}",
        target.name(),
        &refused[refused_before..]
    );
    let plan = converge.run(["plan", "--detailed-exitcode", config]);
    assert_eq!(
        plan.code,
        0,
        "{}: the plan after the apply is not empty:\n{}\n{}",
        target.name(),
        plan.stdout,
        plan.stderr
    );
    applied
}

/// The writes the server answered with a 4xx or 5xx, oldest first.
fn refused_writes(target: &Target) -> Vec<String> {
    target
        .writes()
        .into_iter()
        .filter(|w| {
            w.rsplit(' ')
                .next()
                .and_then(|status| status.parse::<u16>().ok())
                .is_some_and(|status| status >= 400)
        })
        .collect()
}
