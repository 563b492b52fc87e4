//! The one place the API clients are wired. Their URLs, credentials and rate limits come from
//! a config's `cloud:` and `observability:` settings (a missing or unusable one is a diagnostic
//! at the config line that should carry it) or, for a saved plan, from the `CONVERGE_*`
//! variables; `api::clients` builds clients from those plain values, knowing nothing of where
//! they came from. The transport and the runtime the clients run on are made here too, so
//! `live/` receives ready clients.

use crate::api;
use crate::api::clients::{Clients, RateLimits};
use crate::api::cloud::CloudClient;
use crate::api::observability::ObservabilityClient;
use crate::api::transport::{ApiSetupError, Auth, HttpClientError, Transport, TransportSettings};
use crate::api::wire::Secret;
use crate::commands::saved_plan::SavedPlanError;
use crate::config::model::{Config, StackTarget};
use crate::diagnostic::{Code, Diagnostic, Span};
use crate::error::{Error, Result};
use crate::live::reader;
use crate::live::{LiveState, ReadScope};
use crate::output::Printer;

/// The variables `apply --plan FILE` connects with when no config is given.
pub(crate) const ORG_ENV: &str = "CONVERGE_ORG_ID";
const CLOUD_URL_ENV: &str = "CONVERGE_CLOUD_URL";
const KEY_ID_ENV: &str = "CONVERGE_KEY_ID";
const KEY_SECRET_ENV: &str = "CONVERGE_KEY_SECRET";
const OBSERVABILITY_URL_ENV: &str = "CONVERGE_OBSERVABILITY_URL";
const OBS_TOKEN_ENV: &str = "CONVERGE_OBS_TOKEN";

// An inherent method kept here rather than in `api/`, which knows nothing of the config.
impl Clients {
    /// Builds the clients the config needs. Missing or unusable settings (no URL, plain http to
    /// a remote host, an unset secret) are diagnostics at the config line that should carry them.
    pub fn from_config(
        config: &Config,
        transport: &Transport,
        limits: &RateLimits,
    ) -> Result<Clients, Vec<Diagnostic>> {
        let mut problems = Vec::new();
        let mut clients = Clients::default();
        if needs_cloud(config) {
            clients.cloud = cloud_client(config, transport, limits, &mut problems);
        }
        if needs_observability(config) {
            clients.observability = observability_client(config, transport, limits, &mut problems);
        }
        if problems.is_empty() {
            Ok(clients)
        } else {
            Err(problems)
        }
    }
}

/// The cloud client of `cloud:`, or `None` with the problems of its URL, key id and secret.
fn cloud_client(
    config: &Config,
    transport: &Transport,
    limits: &RateLimits,
    problems: &mut Vec<Diagnostic>,
) -> Option<CloudClient> {
    let org_span = config.organization.span;
    let settings = config.cloud.clone().unwrap_or_default();
    let url = settings.url.as_ref();
    let key_id = settings.key_id.as_ref();
    let secret = settings.key_secret.as_ref();
    if url.is_none() {
        problems.push(
            Diagnostic::error(
                Code::LiveMissingSetting,
                "the config manages services or a managed stack but sets no `cloud.url`",
                Some(org_span),
            )
            .with_help("add `cloud: { url: ..., keyId: ..., keySecret: ${env:...} }`"),
        );
    }
    if key_id.is_none_or(|id| id.value.trim().is_empty()) {
        problems.push(
            Diagnostic::error(
                Code::LiveMissingSetting,
                "the cloud API needs a key id (`cloud.keyId`)",
                Some(key_id.map_or(org_span, |id| id.span)),
            )
            .with_help("set `cloud.keyId`, e.g. `${env:CONVERGE_KEY_ID}`"),
        );
    }
    let secret_value = secret.and_then(|s| s.value.clone());
    if secret_value.is_none() {
        let (span, help) = match secret {
            Some(s) => (
                s.span,
                format!("set the variable that `{}` names", s.reference),
            ),
            None => (
                org_span,
                "set `cloud.keySecret: ${env:CONVERGE_KEY_SECRET}` and export the variable"
                    .to_string(),
            ),
        };
        problems.push(
            Diagnostic::error(
                Code::LiveMissingSetting,
                "the cloud API needs a key secret and none is set",
                Some(span),
            )
            .with_help(help),
        );
    }
    let (Some(url), Some(key_id), Some(key_secret)) = (url, key_id, secret_value) else {
        return None;
    };
    let auth = Auth::Basic {
        key_id: key_id.value.clone(),
        key_secret: Secret(key_secret),
    };
    let organization = &config.organization.value;
    match api::clients::cloud(transport, &url.value, &auth, limits.cloud, organization) {
        Ok(client) => Some(client),
        Err(problem) => {
            problems.push(url_problem("cloud.url", problem, url.span));
            None
        }
    }
}

/// The observability client of `observability:`, or `None` with the problem of its URL or
/// token.
fn observability_client(
    config: &Config,
    transport: &Transport,
    limits: &RateLimits,
    problems: &mut Vec<Diagnostic>,
) -> Option<ObservabilityClient> {
    let settings = config.observability.clone().unwrap_or_default();
    let first_stack = config
        .stacks
        .values()
        .find(|stack| stack.target == StackTarget::Observability)
        .map_or(config.organization.span, |stack| stack.key.span);
    match (&settings.url, settings.token.as_ref()) {
        (None, _) => problems.push(
            Diagnostic::error(
                Code::LiveMissingSetting,
                "a stack uses the observability API but the config sets no `observability.url`",
                Some(first_stack),
            )
            .with_help("add `observability: { url: ..., token: ${env:...} }`"),
        ),
        (Some(_), None) => problems.push(
            Diagnostic::error(
                Code::LiveMissingSetting,
                "the observability API needs a token (`observability.token`)",
                Some(first_stack),
            )
            .with_help("set `observability.token: ${env:CONVERGE_OBS_TOKEN}`"),
        ),
        (Some(_), Some(token)) if token.value.is_none() => problems.push(
            Diagnostic::error(
                Code::LiveMissingSetting,
                "the observability API needs a token and none is set",
                Some(token.span),
            )
            .with_help(format!("set the variable that `{}` names", token.reference)),
        ),
        (Some(url), Some(token)) => {
            let auth = Auth::Bearer(Secret(token.value.clone().unwrap_or_default()));
            let limit = limits.observability;
            match api::clients::observability(transport, &url.value, &auth, limit) {
                Ok(client) => return Some(client),
                Err(problem) => problems.push(url_problem("observability.url", problem, url.span)),
            }
        }
    }
    None
}

fn url_problem(field: &str, problem: ApiSetupError, span: Span) -> Diagnostic {
    Diagnostic::error(
        Code::LiveUrl,
        format!("`{field}` cannot be used: {problem}"),
        Some(span),
    )
    .with_label("this URL")
}

/// Whether anything in the config is read through the cloud API.
fn needs_cloud(config: &Config) -> bool {
    !config.services.is_empty()
        || config
            .stacks
            .values()
            .any(|stack| matches!(stack.target, StackTarget::Managed { .. }))
}

/// Whether any stack uses the standalone observability API.
fn needs_observability(config: &Config) -> bool {
    config
        .stacks
        .values()
        .any(|stack| stack.target == StackTarget::Observability)
}

/// The organization and the clients of the APIs a saved plan writes to, `(cloud,
/// observability)`, from the `CONVERGE_*` variables `lookup` reads.
pub(crate) fn from_env(
    lookup: &dyn Fn(&str) -> Option<String>,
    (cloud, observability): (bool, bool),
    transport: &Transport,
    limits: &RateLimits,
) -> Result<(String, Clients)> {
    let required = |variable: &'static str| -> Result<String, SavedPlanError> {
        lookup(variable)
            .filter(|value| !value.trim().is_empty())
            .ok_or(SavedPlanError::MissingVariable { variable })
    };
    let url_problem = |variable: &'static str, problem: ApiSetupError| {
        SavedPlanError::UnusableVariable { variable, problem }
    };
    let organization = required(ORG_ENV)?;
    let mut clients = Clients::default();
    if cloud {
        let url = required(CLOUD_URL_ENV)?;
        let auth = Auth::Basic {
            key_id: required(KEY_ID_ENV)?,
            key_secret: Secret(required(KEY_SECRET_ENV)?),
        };
        let client = api::clients::cloud(transport, &url, &auth, limits.cloud, &organization)
            .map_err(|p| url_problem(CLOUD_URL_ENV, p))?;
        clients.cloud = Some(client);
    }
    if observability {
        let url = required(OBSERVABILITY_URL_ENV)?;
        let auth = Auth::Bearer(Secret(required(OBS_TOKEN_ENV)?));
        let client = api::clients::observability(transport, &url, &auth, limits.observability)
            .map_err(|p| url_problem(OBSERVABILITY_URL_ENV, p))?;
        clients.observability = Some(client);
    }
    Ok((organization, clients))
}

/// Everything `plan`, `drift` and `apply` need before planning: the HTTP client (bounded by
/// `parallelism`, retry delays as the environment says), the clients the config needs, paced
/// by `limits` (resolved once, with the flags, by `settings`), and the live state read through
/// them.
pub async fn connect_and_read_with(
    config: &Config,
    parallelism: usize,
    limits: RateLimits,
    printer: &Printer,
) -> Result<(Clients, LiveState), Vec<Diagnostic>> {
    connect_and_read_scoped(config, parallelism, limits, printer, &ReadScope::All).await
}

/// As [`connect_and_read_with`], reading only the lists `scope` names.
pub(crate) async fn connect_and_read_scoped(
    config: &Config,
    parallelism: usize,
    limits: RateLimits,
    printer: &Printer,
    scope: &ReadScope,
) -> Result<(Clients, LiveState), Vec<Diagnostic>> {
    let transport = transport(parallelism, printer).map_err(|problem| {
        vec![Diagnostic::error(
            Code::LiveTransport,
            problem.to_string(),
            None,
        )]
    })?;
    let clients = Clients::from_config(config, &transport, &limits)?;
    let live = reader::read_scoped(config, &clients, printer, scope).await?;
    Ok((clients, live))
}

/// [`connect_and_read_with`] for synchronous commands: runs it on a runtime of its own and
/// hands back the runtime too, so the caller can go on to apply with the same clients.
pub fn connect_and_read_blocking_with(
    config: &Config,
    parallelism: usize,
    limits: RateLimits,
    printer: &Printer,
) -> Result<(tokio::runtime::Runtime, Clients, LiveState), Vec<Diagnostic>> {
    connect_and_read_blocking_scoped(config, parallelism, limits, printer, &ReadScope::All)
}

/// As [`connect_and_read_blocking_with`], reading only the lists `scope` names.
pub(crate) fn connect_and_read_blocking_scoped(
    config: &Config,
    parallelism: usize,
    limits: RateLimits,
    printer: &Printer,
    scope: &ReadScope,
) -> Result<(tokio::runtime::Runtime, Clients, LiveState), Vec<Diagnostic>> {
    let runtime = runtime().map_err(|problem| {
        vec![Diagnostic::error(
            Code::LiveRuntime,
            problem.to_string(),
            None,
        )]
    })?;
    let (clients, live) = runtime.block_on(connect_and_read_scoped(
        config,
        parallelism,
        limits,
        printer,
        scope,
    ))?;
    Ok((runtime, clients, live))
}

/// The HTTP transport both clients share: at most `parallelism` requests in flight, retry
/// delays as the environment says, logs through `printer`.
pub(crate) fn transport(
    parallelism: usize,
    printer: &Printer,
) -> std::result::Result<Transport, HttpClientError> {
    Transport::new(TransportSettings::new(parallelism), printer.clone())
}

/// The runtime requests run on: synchronous commands block on it, and keep it for the writes
/// that follow the reads.
pub(crate) fn runtime() -> Result<tokio::runtime::Runtime> {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .map_err(|cause| Error::Runtime { cause })
}
