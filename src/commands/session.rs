//! What every command that talks to the APIs does first: load the config with its secrets,
//! start the in-process sandbox when `--sandbox` is given, connect, and read the live state.
//! Problems at any stage are rendered as diagnostics at their config line and end the command.

use std::path::{Path, PathBuf};

use crate::api::clients::Clients;
use crate::cli::GlobalArgs;
use crate::config::diagnostic::{Diagnostic, Severity};
use crate::config::model::{
    CloudSettings, Config, Located, ObservabilitySettings, SecretValue, Sources,
};
use crate::config::render::{self, Format};
use crate::config::{self, LoadMode};
use crate::error::{Error, Result};
use crate::live::LiveState;
use crate::live::reader;
use crate::output::Printer;
use crate::sandbox::{self, SandboxHandle};

/// A loaded config connected to its APIs, with the live state it manages.
pub struct Session {
    /// The desired state.
    pub config: Config,
    /// The files it came from (for rendering later diagnostics).
    pub sources: Sources,
    /// The runtime the clients run on; later requests (apply) reuse it.
    pub runtime: tokio::runtime::Runtime,
    /// The API clients.
    pub clients: Clients,
    /// What was read.
    pub live: LiveState,
    /// Keeps the in-process sandbox serving while the session lives.
    _sandbox: Option<SandboxHandle>,
}

impl Session {
    /// Prints plan-time diagnostics; an error among them ends the command.
    pub fn report(&self, diagnostics: &[Diagnostic], printer: &Printer) -> Result<()> {
        report(diagnostics, &self.sources, printer)
    }
}

/// Loads the config at `paths`, connects and reads the live state.
pub fn open(paths: &[PathBuf], global: &GlobalArgs, printer: &Printer) -> Result<Session> {
    let sandbox = if global.sandbox {
        let handle = sandbox::in_process(Path::new(sandbox::IN_PROCESS_STATE))?;
        printer.info(&format!(
            "sandbox: serving {} with state in {}",
            handle.url(),
            sandbox::IN_PROCESS_STATE
        ));
        Some(handle)
    } else {
        None
    };
    let sandbox_env = sandbox
        .as_ref()
        .map(SandboxHandle::environment)
        .unwrap_or_default();
    // Under `--sandbox`, variables the config reads but the user did not set come from the
    // sandbox, so `${env:CONVERGE_KEY_SECRET}` resolves without an account.
    let lookup = |name: &str| {
        std::env::var(name).ok().or_else(|| {
            sandbox_env
                .iter()
                .find(|(key, _)| *key == name)
                .map(|(_, value)| value.clone())
        })
    };
    let loaded = config::load_with_env(paths, LoadMode::Live, &lookup);
    report(&loaded.diagnostics, &loaded.sources, printer)?;
    let sources = loaded.sources;
    let mut config = loaded.config.ok_or(Error::Config { count: 0 })?;
    if let Some(handle) = &sandbox {
        point_at_sandbox(&mut config, handle);
    }
    let parallelism = usize::from(global.parallelism);
    match reader::connect_and_read_blocking(&config, parallelism, printer) {
        Ok((runtime, clients, live)) => Ok(Session {
            config,
            sources,
            runtime,
            clients,
            live,
            _sandbox: sandbox,
        }),
        Err(diagnostics) => {
            // These are failures to read, not mistakes in the file: say so in the last line.
            render::render(&diagnostics, &sources, Format::Text, printer);
            let errors = diagnostics
                .iter()
                .filter(|d| d.severity == Severity::Error)
                .count()
                .max(1);
            Err(Error::msg(format!(
                "cannot read the live state ({errors} error(s) above); nothing was planned"
            )))
        }
    }
}

/// Renders diagnostics on stderr; `Err` when any is an error.
pub fn report(diagnostics: &[Diagnostic], sources: &Sources, printer: &Printer) -> Result<()> {
    if diagnostics.is_empty() {
        return Ok(());
    }
    render::render(diagnostics, sources, Format::Text, printer);
    let errors = diagnostics
        .iter()
        .filter(|d| d.severity == Severity::Error)
        .count();
    if errors > 0 {
        return Err(Error::Config { count: errors });
    }
    Ok(())
}

/// Replaces the config's URLs, organization and credentials with the sandbox's, keeping the
/// places they were written so diagnostics still point at the config.
fn point_at_sandbox(config: &mut Config, handle: &SandboxHandle) {
    let url = handle.url();
    config.organization.value = sandbox::DEMO_ORG.to_string();
    let cloud = config.cloud.get_or_insert_with(CloudSettings::default);
    let span = cloud
        .url
        .as_ref()
        .map(|u| u.span)
        .unwrap_or(config.organization.span);
    cloud.url = Some(Located::new(url.clone(), span));
    cloud.key_id = Some(Located::new(sandbox::DEMO_KEY_ID.to_string(), span));
    cloud.key_secret = Some(SecretValue {
        reference: "${env:CONVERGE_KEY_SECRET}".to_string(),
        value: Some(sandbox::DEMO_KEY_SECRET.to_string()),
        span,
    });
    let observability = config
        .observability
        .get_or_insert_with(ObservabilitySettings::default);
    let span = observability
        .url
        .as_ref()
        .map(|u| u.span)
        .unwrap_or(config.organization.span);
    observability.url = Some(Located::new(url, span));
    observability.token = Some(SecretValue {
        reference: "${env:CONVERGE_OBS_TOKEN}".to_string(),
        value: Some(sandbox::DEMO_TOKEN.to_string()),
        span,
    });
}
