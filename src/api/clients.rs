//! The clients of one run and what they are built from: a URL, credentials and each key's rate
//! limit (one [`Transport`] shared by both clients, one rate bucket per key). Where those come
//! from (a config, the environment) is decided above, in `commands::connect`.

use super::cloud::CloudClient;
use super::observability::ObservabilityClient;
use super::transport::{Api, ApiSetupError, Auth, RateLimit, RateLimitError, Transport};

/// Environment variable that overrides the cloud API's rate limit, e.g. `20/10s`.
pub(crate) const CLOUD_RATE_LIMIT_ENV: &str = "CONVERGE_CLOUD_RATE_LIMIT";
/// Environment variable that overrides the observability API's rate limit, e.g. `200/1m`.
pub(crate) const OBSERVABILITY_RATE_LIMIT_ENV: &str = "CONVERGE_OBSERVABILITY_RATE_LIMIT";

/// What messages call the cloud API.
pub(crate) const CLOUD_API: &str = "the cloud API";
/// What messages call the standalone observability API.
pub(crate) const OBSERVABILITY_API: &str = "the observability API";

/// A `CONVERGE_*_RATE_LIMIT` variable whose value is not a rate limit.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{variable}: {problem}")]
pub(crate) struct RateLimitEnvError {
    /// The variable.
    pub variable: &'static str,
    /// Why its value is not a rate limit: part of the message, not a `source`, so that it is
    /// said once.
    pub problem: RateLimitError,
}

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
    /// `CONVERGE_OBSERVABILITY_RATE_LIMIT` when `lookup` finds them (`settings` passes the
    /// environment).
    pub(crate) fn from_lookup(
        lookup: impl Fn(&str) -> Option<String>,
    ) -> Result<RateLimits, RateLimitEnvError> {
        let mut limits = RateLimits::default();
        let read = |variable: &'static str| -> Result<Option<RateLimit>, RateLimitEnvError> {
            match lookup(variable) {
                Some(text) if !text.trim().is_empty() => RateLimit::parse(&text)
                    .map(Some)
                    .map_err(|problem| RateLimitEnvError { variable, problem }),
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
    /// What the requests of these clients are waiting for (they share one transport).
    pub(crate) fn activity(&self) -> Option<std::sync::Arc<super::activity::Activity>> {
        let cloud = self.cloud.as_ref().map(|c| c.api());
        let observability = self.observability.as_ref().map(|o| o.api());
        cloud
            .or(observability)
            .map(|api| api.transport().activity().clone())
    }
}

/// A client of the cloud API for `organization` at `url`, paced by `limit`; `Err` says why the
/// URL cannot be used.
pub(crate) fn cloud(
    transport: &Transport,
    url: &str,
    auth: &Auth,
    limit: RateLimit,
    organization: &str,
) -> Result<CloudClient, ApiSetupError> {
    let api = Api::new(transport, url, auth, limit)?.named(CLOUD_API);
    Ok(CloudClient::new(api, organization))
}

/// A client of the standalone observability API at `url`, paced by `limit`; `Err` says why the
/// URL cannot be used.
pub(crate) fn observability(
    transport: &Transport,
    url: &str,
    auth: &Auth,
    limit: RateLimit,
) -> Result<ObservabilityClient, ApiSetupError> {
    let api = Api::new(transport, url, auth, limit)?.named(OBSERVABILITY_API);
    Ok(ObservabilityClient::new(api))
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
        assert!(
            error.to_string().starts_with(CLOUD_RATE_LIMIT_ENV),
            "{error}"
        );
        assert_eq!(
            error.to_string(),
            "CONVERGE_CLOUD_RATE_LIMIT: `fast` is not a rate limit; write it as `10/10s` or \
             `100/1m`"
        );
    }
}
