//! A config file read, planned and applied against a sandbox from a bench, as the commands do
//! (the apply benches share it).
#![allow(dead_code)]

use std::path::Path;

use converge::api::clients::RateLimits;
use converge::apply::{self, Options, Progress};
use converge::commands::connect;
use converge::config::model::Config;
use converge::config::{self, LoadMode};
use converge::output::Printer;
use converge::plan::{self, PlanOptions};
use converge::sandbox::SandboxHandle;

/// The config at `path`, with `${env:...}` taken from the sandbox's environment.
fn load(sandbox: &SandboxHandle, path: &Path) -> Config {
    let environment = sandbox.environment();
    let lookup = |name: &str| {
        environment
            .iter()
            .find(|(key, _)| *key == name)
            .map(|(_, value)| value.clone())
    };
    let loaded = config::load_with_env(&[path.to_path_buf()], LoadMode::Live, &lookup);
    loaded.config.expect("the bench config is valid")
}

/// Reads the live state, plans and applies the config at `path` at parallelism 4, the client
/// pacing to `limits`.
pub fn apply_file(
    runtime: &tokio::runtime::Runtime,
    sandbox: &SandboxHandle,
    path: &Path,
    limits: RateLimits,
) -> apply::Report {
    let config = load(sandbox, path);
    let printer = Printer::plain();
    runtime.block_on(async {
        let (clients, live) = connect::connect_and_read_with(&config, 4, limits, &printer)
            .await
            .expect("the live state is read");
        let (plan, _) = plan::plan(&config, &live, &PlanOptions::default());
        let (_cancel_tx, cancel_rx) = tokio::sync::watch::channel(false);
        apply::execute(
            &plan,
            clients,
            &Options::default(),
            cancel_rx,
            &Progress::quiet(),
        )
        .await
    })
}

/// Reads the live state and plans the config at `path`, and nothing else.
pub fn plan_file(
    runtime: &tokio::runtime::Runtime,
    sandbox: &SandboxHandle,
    path: &Path,
    limits: RateLimits,
) -> plan::Plan {
    let config = load(sandbox, path);
    runtime.block_on(async {
        let (_, live) = connect::connect_and_read_with(&config, 4, limits, &Printer::plain())
            .await
            .expect("the live state is read");
        plan::plan(&config, &live, &PlanOptions::default()).0
    })
}
