//! The clients a config needs, built from its `cloud:` and `observability:` settings: one
//! [`Transport`] shared by both, one rate bucket per key.

use super::cloud::CloudClient;
use super::observability::ObservabilityClient;
use super::stack::StackApi;
use super::transport::{Api, Auth, RateLimit, Transport};
use super::wire::Secret;
use crate::config::code::Code;
use crate::config::diagnostic::Diagnostic;
use crate::config::model::{Config, Span, StackConfig, StackTarget};

/// Environment variable that overrides the cloud API's rate limit, e.g. `20/10s`.
pub const CLOUD_RATE_LIMIT_ENV: &str = "CONVERGE_CLOUD_RATE_LIMIT";
/// Environment variable that overrides the observability API's rate limit, e.g. `200/1m`.
pub const OBSERVABILITY_RATE_LIMIT_ENV: &str = "CONVERGE_OBSERVABILITY_RATE_LIMIT";

/// What messages call the cloud API.
pub const CLOUD_API: &str = "the cloud API";
/// What messages call the standalone observability API.
pub const OBSERVABILITY_API: &str = "the observability API";

/// The rate limit of each API's key.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RateLimits {
    /// Cloud API (and managed stacks): 10 per 10 s unless set.
    pub cloud: RateLimit,
    /// Observability API: 100 per minute unless set.
    pub observability: RateLimit,
}

impl Default for RateLimits {
    fn default() -> Self {
        RateLimits {
            cloud: RateLimit::CLOUD,
            observability: RateLimit::OBSERVABILITY,
        }
    }
}

impl RateLimits {
    /// No pacing on either API (the in-process sandbox enforces none unless asked to).
    pub const UNLIMITED: RateLimits = RateLimits {
        cloud: RateLimit::UNLIMITED,
        observability: RateLimit::UNLIMITED,
    };

    /// The real limits, overridden by `CONVERGE_CLOUD_RATE_LIMIT` and
    /// `CONVERGE_OBSERVABILITY_RATE_LIMIT` when set.
    pub fn from_env() -> Result<RateLimits, String> {
        Self::from_lookup(|name| std::env::var(name).ok())
    }

    /// As [`RateLimits::from_env`], reading variables through `lookup`.
    pub fn from_lookup(lookup: impl Fn(&str) -> Option<String>) -> Result<RateLimits, String> {
        let mut limits = RateLimits::default();
        let read = |name: &str| -> Result<Option<RateLimit>, String> {
            match lookup(name) {
                Some(text) if !text.trim().is_empty() => RateLimit::parse(&text)
                    .map(Some)
                    .map_err(|problem| format!("{name}: {problem}")),
                _ => Ok(None),
            }
        };
        if let Some(limit) = read(CLOUD_RATE_LIMIT_ENV)? {
            limits.cloud = limit;
        }
        if let Some(limit) = read(OBSERVABILITY_RATE_LIMIT_ENV)? {
            limits.observability = limit;
        }
        Ok(limits)
    }
}

/// The API clients of one run. Either may be absent when the config does not need it.
#[derive(Debug, Clone, Default)]
pub struct Clients {
    /// The cloud API (services, pipes, backups, managed stacks).
    pub cloud: Option<CloudClient>,
    /// The standalone observability API.
    pub observability: Option<ObservabilityClient>,
}

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
        let org_span = config.organization.span;
        if needs_cloud(config) {
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
            if let (Some(url), Some(key_id), Some(key_secret)) = (url, key_id, secret_value) {
                let auth = Auth::Basic {
                    key_id: key_id.value.clone(),
                    key_secret: Secret(key_secret),
                };
                match Api::new(transport, &url.value, &auth, limits.cloud) {
                    Ok(api) => {
                        let api = api.named(CLOUD_API);
                        clients.cloud = Some(CloudClient::new(api, &config.organization.value))
                    }
                    Err(problem) => problems.push(url_problem("cloud.url", problem, url.span)),
                }
            }
        }
        if needs_observability(config) {
            let settings = config.observability.clone().unwrap_or_default();
            let first_stack = config
                .stacks
                .values()
                .find(|stack| stack.target == StackTarget::Observability)
                .map_or(org_span, |stack| stack.key.span);
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
                    match Api::new(transport, &url.value, &auth, limits.observability) {
                        Ok(api) => {
                            let api = api.named(OBSERVABILITY_API);
                            clients.observability = Some(ObservabilityClient::new(api))
                        }
                        Err(problem) => {
                            problems.push(url_problem("observability.url", problem, url.span))
                        }
                    }
                }
            }
        }
        if problems.is_empty() {
            Ok(clients)
        } else {
            Err(problems)
        }
    }

    /// What the requests of these clients are waiting for (they share one transport).
    pub fn activity(&self) -> Option<std::sync::Arc<super::activity::Activity>> {
        let cloud = self.cloud.as_ref().map(|c| c.api());
        let observability = self.observability.as_ref().map(|o| o.api());
        cloud
            .or(observability)
            .map(|api| api.transport().activity().clone())
    }

    /// The API of a stack of `config`, or why there is none (pointing at the stack's line).
    pub fn stack(&self, config: &Config, stack: &StackConfig) -> Result<StackApi, Box<Diagnostic>> {
        match &stack.target {
            StackTarget::Managed { service } => {
                let Some(service_config) = config.services.get(&service.value) else {
                    return Err(Box::new(Diagnostic::error(
                        Code::LiveUnknownService,
                        format!(
                            "stack.{}: no service `{}` in the config",
                            stack.key.value, service.value
                        ),
                        Some(service.span),
                    )));
                };
                let Some(cloud) = &self.cloud else {
                    return Err(Box::new(no_client(stack, "the cloud API", "cloud")));
                };
                Ok(StackApi::Managed {
                    cloud: cloud.clone(),
                    service_id: service_config.id.value.clone(),
                })
            }
            StackTarget::Observability => match &self.observability {
                Some(client) => Ok(StackApi::Standalone(client.clone())),
                None => Err(Box::new(no_client(
                    stack,
                    "the observability API",
                    "observability",
                ))),
            },
        }
    }
}

fn no_client(stack: &StackConfig, api: &str, section: &str) -> Diagnostic {
    Diagnostic::error(
        Code::LiveMissingSetting,
        format!(
            "stack.{} lives behind {api}, which the config does not set up",
            stack.key.value
        ),
        Some(stack.key.span),
    )
    .with_help(format!("add the `{section}:` section"))
}

fn url_problem(field: &str, problem: String, span: Span) -> Diagnostic {
    Diagnostic::error(
        Code::LiveUrl,
        format!("`{field}` cannot be used: {problem}"),
        Some(span),
    )
    .with_label("this URL")
}

/// Whether anything in the config is read through the cloud API.
pub fn needs_cloud(config: &Config) -> bool {
    !config.services.is_empty()
        || config
            .stacks
            .values()
            .any(|stack| matches!(stack.target, StackTarget::Managed { .. }))
}

/// Whether any stack uses the standalone observability API.
pub fn needs_observability(config: &Config) -> bool {
    config
        .stacks
        .values()
        .any(|stack| stack.target == StackTarget::Observability)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rate_limits_come_from_the_environment_when_set() {
        let limits = RateLimits::from_lookup(|name| {
            (name == CLOUD_RATE_LIMIT_ENV).then(|| "20/10s".to_string())
        })
        .unwrap();
        assert_eq!(limits.cloud.requests, 20);
        assert_eq!(limits.observability, RateLimit::OBSERVABILITY);
        let error = RateLimits::from_lookup(|_| Some("fast".into())).unwrap_err();
        assert!(error.starts_with(CLOUD_RATE_LIMIT_ENV), "{error}");
    }
}
