//! What every command that talks to the APIs does first: load the config with its secrets,
//! start the in-process sandbox when `--sandbox` is given, connect, and read the live state.
//! Problems at any stage are rendered as diagnostics at their config line and end the command.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use crate::api::clients::{Clients, RateLimits};
use crate::api::transport::Transport;
use crate::commands::connect;
use crate::commands::saved_plan::SavedPlanError;
use crate::config::model::{
    CloudSettings, Config, Located, ObservabilitySettings, SecretValue, Sources,
};
use crate::config::render;
use crate::config::{self, LoadMode};
use crate::diagnostic::{Code, Diagnostic, Severity};
use crate::error::{Error, Result};
use crate::format::Format;
use crate::live::LiveState;
use crate::output::Printer;
use crate::plan::pipeline::{self, Stopped};
use crate::plan::{Plan, PlanOptions};
use crate::sandbox::{self, SandboxHandle};
use crate::settings::ApiSettings;

/// A loaded config connected to its APIs, with the live state it manages.
pub(crate) struct Session {
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
    pub(crate) fn report(&self, diagnostics: &[Diagnostic], printer: &Printer) -> Result<()> {
        report(diagnostics, &self.sources, printer)
    }

    /// The plan of the config against the live state as `options` ask for it, through the one
    /// planning pipeline ([`pipeline::plan`]), its diagnostics and warnings reported on the way.
    /// A glob of `--only` that matches no address the config or the live state knows is an
    /// error: a typo would otherwise read as "no changes".
    pub(crate) fn plan(&self, options: &pipeline::Options, printer: &Printer) -> Result<Plan> {
        let planned = pipeline::plan(
            &self.config,
            &self.sources,
            &self.live,
            options,
            Some(jiff::Timestamp::now()),
            |plan| self.unmanaged_addresses(plan),
        );
        let planned = match planned {
            Ok(planned) => planned,
            Err(Stopped::Invalid(diagnostics)) => {
                self.report(&diagnostics, printer)?;
                return Err(Error::Config { count: 0 });
            }
            Err(Stopped::Unmatched { diagnostics, globs }) => {
                self.report(&diagnostics, printer)?;
                return Err(Error::NoMatch {
                    flag: "--only".to_string(),
                    globs,
                });
            }
        };
        self.report(&planned.diagnostics, printer)?;
        self.report(&planned.only_diagnostics, printer)?;
        for warning in &planned.idle {
            printer.warn(warning);
        }
        Ok(planned.plan)
    }

    /// Waits (at most [`COPIES_WAIT`], reading the live state again each [`COPIES_POLL`])
    /// while the only errors of the plan are names the stack holds more than once: another run
    /// that created the same object at the same time removes its younger copy right after its
    /// create, so a copy seen now may be gone in a moment. Whether copies stayed after the
    /// wait: then they are no run's transient copy, and [`Session::copies_stayed`] says so.
    pub(crate) fn wait_for_other_runs_copies(
        &mut self,
        api: &ApiSettings,
        only: &[String],
        printer: &Printer,
    ) -> Result<bool> {
        let deadline = std::time::Instant::now() + COPIES_WAIT;
        let mut said = false;
        while only_copies(&self.config, &self.live) && std::time::Instant::now() < deadline {
            if !said {
                printer.err(&format!(
                    "the stack holds a name more than once, perhaps another run's copy that it \
                     is about to remove: waiting up to {}s for it to go",
                    COPIES_WAIT.as_secs()
                ));
                said = true;
            }
            std::thread::sleep(COPIES_POLL);
            let scope = crate::plan::address::read_scope(&self.config, only);
            let read = connect::connect_and_read_blocking_scoped(
                &self.config,
                api.parallelism,
                api.rate_limits()?,
                printer,
                &scope,
            );
            // A read that fails now leaves the first one to report from.
            if let Ok((runtime, clients, live)) = read {
                self.runtime = runtime;
                self.clients = clients;
                self.live = live;
            }
        }
        Ok(said && only_copies(&self.config, &self.live))
    }

    /// Reports copies that stayed through [`Session::wait_for_other_runs_copies`]: each name
    /// at its config line, with the repair its help offers, and that nothing was written. The
    /// config is not at fault (the live stack is, since the plan was read), so this is not a
    /// config error: the caller exits as for a stale object.
    pub(crate) fn copies_stayed(&self, printer: &Printer) {
        let (_, diagnostics) = crate::plan::plan(&self.config, &self.live, &PlanOptions::default());
        render::render(&diagnostics, &self.sources, Format::Text, printer);
        printer.err(&format!(
            "error: the stack still holds a name more than once after {}s, so it is not another \
             run's copy about to go; nothing was written: keep one copy of each name as the help \
             above says (`converge apply --dedupe --allow-destroy` does it), then apply again",
            COPIES_WAIT.as_secs()
        ));
    }

    /// Loads config texts as this session loaded its own (the same variables, the sandbox's
    /// URLs): a config edited by `drift --write` is checked as the next run will read it.
    /// The errors, one per line with their place, when it does not load.
    pub(crate) fn reload(
        &self,
        files: &[(PathBuf, String)],
    ) -> std::result::Result<Config, String> {
        let lookup = env_with_sandbox(self._sandbox.as_ref());
        let loaded = config::load_texts(files, LoadMode::Live, &lookup);
        match loaded.config {
            Some(mut config) => {
                if let Some(handle) = &self._sandbox {
                    point_at_sandbox(&mut config, handle);
                }
                Ok(config)
            }
            None => Err(loaded
                .diagnostics
                .iter()
                .filter(|d| d.severity == Severity::Error)
                .map(|d| match render::place(d, &loaded.sources) {
                    Some(place) => format!("{place}: {}", d.message),
                    None => d.message.clone(),
                })
                .collect::<Vec<_>>()
                .join("; ")),
        }
    }

    /// Every address the config and the live state know, given the whole plan: its changes
    /// (in sync ones too), owned objects the config no longer lists, checks, and live objects
    /// nothing manages; with `fields`, also each `address.field` path of the objects.
    pub(crate) fn addresses(&self, plan: &Plan, fields: bool) -> Vec<String> {
        let mut known: BTreeSet<String> = pipeline::addresses(plan).into_iter().collect();
        known.extend(self.unmanaged_addresses(plan));
        if fields {
            for change in &plan.changes {
                for value in [&change.before, &change.after].into_iter().flatten() {
                    known.extend(
                        crate::plan::diff::created(value)
                            .into_iter()
                            .map(|field| format!("{}.{}", change.address, field.path)),
                    );
                }
            }
        }
        known.into_iter().collect()
    }

    /// The addresses of the drift report's unmanaged objects given the whole plan: owned
    /// objects the config no longer lists, and live objects nothing manages.
    fn unmanaged_addresses(&self, plan: &Plan) -> Vec<String> {
        let report = crate::drift::report(&self.config, &self.live, plan, &[]);
        report.unmanaged.into_iter().map(|u| u.address).collect()
    }
}

/// How long [`Session::wait_for_other_runs_copies`] waits for another run's copies to go.
const COPIES_WAIT: std::time::Duration = std::time::Duration::from_secs(20);

/// How often it reads the live state again meanwhile.
const COPIES_POLL: std::time::Duration = std::time::Duration::from_secs(1);

/// Whether the plan of `config` against `live` has errors, all of them names a stack holds more
/// than once.
fn only_copies(config: &Config, live: &LiveState) -> bool {
    let (_, diagnostics) = crate::plan::plan(config, live, &PlanOptions::default());
    let mut errors = diagnostics
        .iter()
        .filter(|d| d.severity == Severity::Error)
        .peekable();
    errors.peek().is_some()
        && errors.all(|d| {
            matches!(
                d.code,
                Code::PlanDuplicateDashboard | Code::PlanDuplicateAlert
            )
        })
}

/// Fails when a glob of `flag` matches none of the `known` addresses, naming the closest ones.
pub(crate) fn check_globs(
    flag: &str,
    globs: &[String],
    known: impl FnOnce() -> Vec<String>,
) -> Result<()> {
    // Knowing every address costs a drift report; a run without globs needs none.
    if globs.is_empty() {
        return Ok(());
    }
    let unmatched = pipeline::unmatched(globs, &known());
    if unmatched.is_empty() {
        return Ok(());
    }
    Err(Error::NoMatch {
        flag: flag.to_string(),
        globs: unmatched,
    })
}

/// Loads the config at `paths`, connects and reads the live state.
pub(crate) fn open(paths: &[PathBuf], api: &ApiSettings, printer: &Printer) -> Result<Session> {
    open_with_read_rounds(paths, api, printer, 1)
}

/// As [`open`], but a live read that fails only on API errors (each already retried by the
/// transport) is made again, up to `rounds` reads in all: `apply` would rather read twice than
/// stop a run before it starts on a flaky network. Reads are safe to repeat.
pub(crate) fn open_with_read_rounds(
    paths: &[PathBuf],
    api: &ApiSettings,
    printer: &Printer,
    rounds: usize,
) -> Result<Session> {
    open_scoped(paths, api, printer, rounds, &[])
}

/// As [`open_with_read_rounds`], reading only the lists the addresses matching `only` need
/// ([`crate::plan::address::read_scope`]); no patterns: everything.
pub(crate) fn open_scoped(
    paths: &[PathBuf],
    api: &ApiSettings,
    printer: &Printer,
    rounds: usize,
    only: &[String],
) -> Result<Session> {
    let sandbox = start_sandbox(api, printer)?;
    let lookup = env_with_sandbox(sandbox.as_ref());
    let loaded = config::load_with_env(paths, LoadMode::Live, &lookup);
    report(&loaded.diagnostics, &loaded.sources, printer)?;
    let sources = loaded.sources;
    let mut config = loaded.config.ok_or(Error::Config { count: 0 })?;
    if let Some(handle) = &sandbox {
        point_at_sandbox(&mut config, handle);
    }
    mask_secrets(&config, printer);
    let parallelism = api.parallelism;
    let limits = api.rate_limits()?;
    let scope = crate::plan::address::read_scope(&config, only);
    let mut round = 1;
    let read = loop {
        match connect::connect_and_read_blocking_scoped(
            &config,
            parallelism,
            limits,
            printer,
            &scope,
        ) {
            Err(diagnostics)
                if round < rounds && diagnostics.iter().all(|d| d.code == Code::LiveApi) =>
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
            Err(Error::LiveRead { errors })
        }
    }
}

/// Masks the config's secret values (key secret, token, pipe credentials) in all later output,
/// whether or not the run sends them.
pub(crate) fn mask_secrets(config: &Config, printer: &Printer) {
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
    // A pipe's credentials too, each of whose values a server may echo (in an error, a
    // pipe's name, a read) once it was sent.
    let pipes = config.services.values().flat_map(|s| s.pipes.values());
    for credential in pipes
        .filter_map(|p| p.source.as_ref())
        .flat_map(|s| s.credentials.iter())
    {
        if let Some(value) = credential.secret.value.as_deref() {
            printer.add_secret(value);
        }
    }
    // A webhook's destination, body and entries: a server may echo them (a refused Slack URL).
    for webhook in config.stacks.values().flat_map(|s| s.webhooks.values()) {
        let entries = [&webhook.headers, &webhook.query_params]
            .into_iter()
            .flatten()
            .flatten()
            .map(|(_, v)| v);
        for value in [&webhook.url, &webhook.body]
            .into_iter()
            .flatten()
            .chain(entries)
            .filter_map(|s| s.value.as_deref())
        {
            printer.add_secret(value);
        }
    }
    if let Some((key_id, secret)) =
        cloud.and_then(|c| Some((c.key_id.as_ref()?, c.key_secret.as_ref()?.value.as_deref()?)))
    {
        printer.add_basic_credentials(key_id, secret);
    }
}

/// Starts the in-process sandbox when `--sandbox` is given (state in `.converge/sandbox.json`),
/// rate limited only with `--sandbox-rate-limit`.
pub(crate) fn start_sandbox(api: &ApiSettings, printer: &Printer) -> Result<Option<SandboxHandle>> {
    if !api.sandbox {
        return Ok(None);
    }
    let handle = sandbox::in_process_waiting(
        Path::new(sandbox::IN_PROCESS_STATE),
        api.sandbox_rate_limit,
        api.sandbox_generation,
        || {
            // Always said: without it the run would look stuck.
            printer.err(&format!(
                "sandbox: waiting for another converge run using {} in this directory to finish",
                sandbox::IN_PROCESS_STATE
            ));
        },
    )?;
    printer.info(&format!(
        "sandbox: serving {} with state in {}{}{}",
        handle.url(),
        sandbox::IN_PROCESS_STATE,
        if api.sandbox_rate_limit {
            ", with the real rate limits"
        } else {
            ", without rate limits"
        },
        match api.sandbox_generation {
            sandbox::Generation::Current => "",
            sandbox::Generation::Contract => ", answering as the contract's generation",
        }
    ));
    Ok(Some(handle))
}

/// The environment as `${env:...}` sees it. Under `--sandbox`, variables the user did not set
/// come from the sandbox, so `${env:CONVERGE_KEY_SECRET}` resolves without an account.
pub(crate) fn env_with_sandbox(
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
pub(crate) fn report(
    diagnostics: &[Diagnostic],
    sources: &Sources,
    printer: &Printer,
) -> Result<()> {
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

/// A saved plan (`apply --plan FILE`) connected to the APIs of the applying run.
pub(crate) struct SavedSession {
    /// The plan file as read, its steps the ones its changes call for
    /// ([`crate::plan::trust::steps`]).
    pub saved: crate::plan::saved::SavedPlan,
    /// The runtime the clients run on.
    pub runtime: tokio::runtime::Runtime,
    /// The API clients, built from the applying run's config or environment, never the file.
    pub clients: Clients,
    /// The steps whose pipes the applying run's config finds by name, held to the live state
    /// before any write (none without a config).
    pub bound: Vec<crate::plan::trust::Bound>,
    /// Keeps the in-process sandbox serving while the session lives.
    _sandbox: Option<SandboxHandle>,
}

/// Reads a saved plan and connects to the APIs of the applying run. A saved plan crosses a
/// trust boundary (made in one job, applied in another), so nothing in it says where to
/// connect or with what: the organization, URLs and credentials come from the config at
/// `config_paths` when given (its `${env:...}` resolved now), otherwise from the `CONVERGE_*`
/// environment variables (under `--sandbox`, the sandbox's). The plan must be for the same
/// organization. The URLs and `${env:...}` references the file records are never used.
pub(crate) fn open_saved(
    path: &Path,
    config_paths: &[PathBuf],
    api: &ApiSettings,
    printer: &Printer,
) -> Result<SavedSession> {
    use crate::plan::saved::SavedPlan;

    let text = std::fs::read_to_string(path).map_err(|cause| Error::Io {
        action: "cannot read the saved plan",
        path: crate::output::path_text(path),
        cause,
    })?;
    let saved = SavedPlan::from_json(&text).map_err(|cause| SavedPlanError::Unreadable {
        path: path.to_path_buf(),
        cause,
    })?;
    let sandbox = start_sandbox(api, printer)?;
    let limits = api.rate_limits()?;
    let transport = connect::transport(api.parallelism, printer)?;
    let mut bound = Vec::new();
    let (organization, clients, source) = match &sandbox {
        Some(handle) => {
            // Under `--sandbox`, everything points at the sandbox.
            let environment = handle.environment();
            let lookup = |name: &str| {
                environment
                    .iter()
                    .find(|(key, _)| *key == name)
                    .map(|(_, value)| value.clone())
            };
            let (organization, clients) =
                connect::from_env(&lookup, apis_needed(&saved), &transport, &limits)?;
            (organization, clients, "the sandbox".to_string())
        }
        None if !config_paths.is_empty() => {
            let (connected, found) =
                connect_with_config(path, config_paths, &saved, &transport, &limits, printer)?;
            bound = found;
            connected
        }
        None => {
            let lookup = |name: &str| std::env::var(name).ok();
            let (organization, clients) =
                connect::from_env(&lookup, apis_needed(&saved), &transport, &limits)?;
            (organization, clients, format!("`{}`", connect::ORG_ENV))
        }
    };
    if organization != saved.organization || organization != saved.plan.organization {
        return Err(SavedPlanError::OtherOrganization {
            path: path.to_path_buf(),
            planned: saved.organization,
            connected: organization,
            origin: source,
        }
        .into());
    }
    needs(&saved, &clients, path)?;
    let runtime = connect::runtime()?;
    Ok(SavedSession {
        saved,
        runtime,
        clients,
        bound,
        _sandbox: sandbox,
    })
}

/// The organization and clients of a saved plan's run from the config at `config_paths`,
/// which must hold every object the plan writes, and where they came from; and the steps whose
/// pipes the config finds by name.
fn connect_with_config(
    path: &Path,
    config_paths: &[PathBuf],
    saved: &crate::plan::saved::SavedPlan,
    transport: &Transport,
    limits: &RateLimits,
    printer: &Printer,
) -> Result<((String, Clients, String), Vec<crate::plan::trust::Bound>)> {
    let lookup = |name: &str| std::env::var(name).ok();
    let loaded = config::load_with_env(config_paths, LoadMode::Live, &lookup);
    report(&loaded.diagnostics, &loaded.sources, printer)?;
    let config = loaded.config.ok_or(Error::Config { count: 0 })?;
    mask_secrets(&config, printer);
    let checked = crate::plan::trust::against_config(&saved.plan, &config, &|text| {
        printer.redact(text).into_owned()
    });
    if !checked.problems.is_empty() {
        return Err(SavedPlanError::OtherObjects {
            path: path.to_path_buf(),
            problems: checked.problems,
        }
        .into());
    }
    let clients = Clients::from_config(&config, transport, limits).map_err(|problems| {
        render::render(&problems, &loaded.sources, Format::Text, printer);
        SavedPlanError::CannotConnect {
            errors: problems.len(),
        }
    })?;
    let shown: Vec<String> = config_paths
        .iter()
        .map(|p| crate::output::path_text(p))
        .collect();
    Ok((
        (
            config.organization.value.clone(),
            clients,
            format!("the config ({})", shown.join(", ")),
        ),
        checked.bound,
    ))
}

/// Which APIs the steps of a saved plan write to: (cloud, observability).
fn apis_needed(saved: &crate::plan::saved::SavedPlan) -> (bool, bool) {
    use crate::plan::StackTarget;
    let mut cloud = false;
    let mut observability = false;
    for step in &saved.plan.steps {
        match step.operation.target().stack().map(|stack| &stack.target) {
            Some(StackTarget::Observability) => observability = true,
            Some(StackTarget::Managed { .. }) | None => cloud = true,
        }
    }
    (cloud, observability)
}

/// Refuses, before anything is read, a plan whose steps need an API the run cannot reach.
fn needs(saved: &crate::plan::saved::SavedPlan, clients: &Clients, path: &Path) -> Result<()> {
    let (cloud, observability) = apis_needed(saved);
    let missing = if cloud && clients.cloud.is_none() {
        Some("the cloud API")
    } else if observability && clients.observability.is_none() {
        Some("the observability API")
    } else {
        None
    };
    match missing {
        Some(api) => Err(SavedPlanError::ApiNotSetUp {
            path: path.to_path_buf(),
            api,
        }
        .into()),
        None => Ok(()),
    }
}
