//! What every command that talks to the APIs does first: load the config with its secrets,
//! start the in-process sandbox when `--sandbox` is given, connect, and read the live state.
//! Problems at any stage are rendered as diagnostics at their config line and end the command.

use std::path::{Path, PathBuf};

use crate::api::clients::{CLOUD_API, Clients, OBSERVABILITY_API, RateLimits};
use crate::cli::ApiArgs;
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
pub fn open(paths: &[PathBuf], api_args: &ApiArgs, printer: &Printer) -> Result<Session> {
    open_with_read_rounds(paths, api_args, printer, 1)
}

/// As [`open`], but a live read that fails only on API errors (each already retried by the
/// transport) is made again, up to `rounds` reads in all: `apply` would rather read twice than
/// stop a run before it starts on a flaky network. Reads are safe to repeat.
pub fn open_with_read_rounds(
    paths: &[PathBuf],
    api_args: &ApiArgs,
    printer: &Printer,
    rounds: usize,
) -> Result<Session> {
    open_scoped(paths, api_args, printer, rounds, &[])
}

/// As [`open_with_read_rounds`], reading only the lists the addresses matching `only` need
/// ([`crate::plan::address::read_scope`]); no patterns: everything.
pub fn open_scoped(
    paths: &[PathBuf],
    api_args: &ApiArgs,
    printer: &Printer,
    rounds: usize,
    only: &[String],
) -> Result<Session> {
    let sandbox = start_sandbox(api_args, printer)?;
    let lookup = env_with_sandbox(sandbox.as_ref());
    let loaded = config::load_with_env(paths, LoadMode::Live, &lookup);
    report(&loaded.diagnostics, &loaded.sources, printer)?;
    let sources = loaded.sources;
    let mut config = loaded.config.ok_or(Error::Config { count: 0 })?;
    if let Some(handle) = &sandbox {
        point_at_sandbox(&mut config, handle);
    }
    mask_secrets(&config, printer);
    let parallelism = usize::from(api_args.parallelism);
    let limits = rate_limits(api_args)?;
    let scope = crate::plan::address::read_scope(&config, only);
    let mut round = 1;
    let read = loop {
        match reader::connect_and_read_blocking_scoped(
            &config,
            parallelism,
            limits,
            printer,
            &scope,
        ) {
            Err(diagnostics)
                if round < rounds && diagnostics.iter().all(|d| d.code == "live::api") =>
            {
                printer.info("reading the live state failed; reading it again");
                round += 1;
            }
            other => break other,
        }
    };
    match read {
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

/// Masks the config's secret values (key secret, token) in all later output, whether or not
/// the run sends them.
pub fn mask_secrets(config: &Config, printer: &Printer) {
    let cloud = config.cloud.as_ref();
    let secrets = [
        cloud.and_then(|c| c.key_secret.as_ref()),
        config.observability.as_ref().and_then(|o| o.token.as_ref()),
    ];
    for value in secrets
        .into_iter()
        .flatten()
        .filter_map(|s| s.value.as_deref())
    {
        printer.add_secret(value);
    }
    if let Some((key_id, secret)) =
        cloud.and_then(|c| Some((c.key_id.as_ref()?, c.key_secret.as_ref()?.value.as_deref()?)))
    {
        printer.add_basic_credentials(key_id, secret);
    }
}

/// Starts the in-process sandbox when `--sandbox` is given (state in `.converge/sandbox.json`),
/// rate limited only with `--sandbox-rate-limit`.
pub fn start_sandbox(api_args: &ApiArgs, printer: &Printer) -> Result<Option<SandboxHandle>> {
    if !api_args.sandbox {
        return Ok(None);
    }
    let handle = sandbox::in_process_with(
        Path::new(sandbox::IN_PROCESS_STATE),
        api_args.sandbox_rate_limit,
    )?;
    printer.info(&format!(
        "sandbox: serving {} with state in {}{}",
        handle.url(),
        sandbox::IN_PROCESS_STATE,
        if api_args.sandbox_rate_limit {
            ", with the real rate limits"
        } else {
            ", without rate limits"
        }
    ));
    Ok(Some(handle))
}

/// Each key's pacing: none against the in-process sandbox unless `--sandbox-rate-limit` asks
/// for the real limits; otherwise the real limits (or `CONVERGE_*_RATE_LIMIT`).
pub fn rate_limits(api_args: &ApiArgs) -> Result<RateLimits> {
    if api_args.sandbox && !api_args.sandbox_rate_limit {
        return Ok(RateLimits::UNLIMITED);
    }
    RateLimits::from_env().map_err(Error::msg)
}

/// The environment as `${env:...}` sees it. Under `--sandbox`, variables the user did not set
/// come from the sandbox, so `${env:CONVERGE_KEY_SECRET}` resolves without an account.
pub fn env_with_sandbox(
    sandbox: Option<&SandboxHandle>,
) -> impl Fn(&str) -> Option<String> + use<> {
    let sandbox_env = sandbox.map(SandboxHandle::environment).unwrap_or_default();
    move |name: &str| {
        std::env::var(name).ok().or_else(|| {
            sandbox_env
                .iter()
                .find(|(key, _)| *key == name)
                .map(|(_, value)| value.clone())
        })
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

/// A saved plan (`apply --plan FILE`) connected to the APIs it names.
pub struct SavedSession {
    /// The plan file as read.
    pub saved: crate::plan::saved::SavedPlan,
    /// The runtime the clients run on.
    pub runtime: tokio::runtime::Runtime,
    /// The API clients, built from the URLs, key id and `${env:...}` references in the file.
    pub clients: Clients,
    /// Keeps the in-process sandbox serving while the session lives.
    _sandbox: Option<SandboxHandle>,
}

/// Reads a saved plan and connects to the APIs it names. Secrets come from the variables its
/// `${env:...}` references name (under `--sandbox`, from the sandbox when unset).
pub fn open_saved(path: &Path, api_args: &ApiArgs, printer: &Printer) -> Result<SavedSession> {
    use crate::api::cloud::CloudClient;
    use crate::api::observability::ObservabilityClient;
    use crate::api::transport::{Api, Auth, Transport, TransportSettings};
    use crate::api::wire::Secret;
    use crate::plan::saved::SavedPlan;

    let text = std::fs::read_to_string(path).map_err(|cause| Error::Io {
        action: "cannot read the saved plan",
        path: path.display().to_string(),
        cause,
    })?;
    let mut saved = SavedPlan::from_json(&text).map_err(|problem| {
        Error::with_hint(
            format!("`{}`: {problem}", path.display()),
            "save a plan with `converge plan PATH... --out FILE`",
        )
    })?;
    let sandbox = start_sandbox(api_args, printer)?;
    let lookup = env_with_sandbox(sandbox.as_ref());
    // A reference such as `${env:CONVERGE_KEY_SECRET}` resolved now; the file never holds values.
    let resolve = |what: &str, reference: &str| -> Result<String> {
        let expanded = config::interpolate::expand(reference, &lookup).map_err(|problem| {
            Error::msg(format!(
                "`{}`: the {what} reference `{reference}` cannot be read: {problem}",
                path.display()
            ))
        })?;
        if let Some(name) = expanded.unset.first() {
            return Err(Error::with_hint(
                format!(
                    "`{}`: the {what} comes from `{reference}`, but `{name}` is not set",
                    path.display()
                ),
                format!("export {name} and run `converge apply --plan` again"),
            ));
        }
        Ok(expanded.text)
    };
    if let Some(handle) = &sandbox {
        saved.organization = sandbox::DEMO_ORG.to_string();
        saved.cloud.url = Some(handle.url());
        saved.cloud.key_id = Some(sandbox::DEMO_KEY_ID.to_string());
        if let Some(observability) = &mut saved.observability {
            observability.url = Some(handle.url());
        }
    }
    let settings = TransportSettings::new(usize::from(api_args.parallelism));
    let limits = rate_limits(api_args)?;
    let transport = Transport::new(settings, printer.clone()).map_err(Error::msg)?;
    let url_problem = |field: &str, problem: String| {
        Error::msg(format!(
            "`{}`: `{field}` cannot be used: {problem}",
            path.display()
        ))
    };
    let mut clients = Clients::default();
    if let (Some(url), Some(key_id), Some(reference)) = (
        &saved.cloud.url,
        &saved.cloud.key_id,
        &saved.cloud.key_secret,
    ) {
        let auth = Auth::Basic {
            key_id: key_id.clone(),
            key_secret: Secret(resolve("cloud key secret", reference)?),
        };
        let api = Api::new(&transport, url, &auth, limits.cloud)
            .map_err(|p| url_problem("cloud.url", p))?
            .named(CLOUD_API);
        clients.cloud = Some(CloudClient::new(api, &saved.organization));
    }
    if let Some(observability) = &saved.observability
        && let (Some(url), Some(reference)) = (&observability.url, &observability.token)
    {
        let auth = Auth::Bearer(Secret(resolve("observability token", reference)?));
        let api = Api::new(&transport, url, &auth, limits.observability)
            .map_err(|p| url_problem("observability.url", p))?
            .named(OBSERVABILITY_API);
        clients.observability = Some(ObservabilityClient::new(api));
    }
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .map_err(|error| Error::msg(format!("cannot start the network runtime: {error}")))?;
    Ok(SavedSession {
        saved,
        runtime,
        clients,
        _sandbox: sandbox,
    })
}
