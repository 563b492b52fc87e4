//! How requests are sent: the settings both APIs share, and the environment switch that turns
//! retry delays off for tests.

use std::time::Duration;

use super::body::MAX_BODY_BYTES;

/// Environment variable that turns retry delays (not the retries) off, for tests.
pub(crate) const NO_RETRY_DELAY_ENV: &str = "CONVERGE_TEST_NO_RETRY_DELAY";

/// How requests are sent: the settings shared by both APIs.
#[derive(Debug, Clone)]
pub struct TransportSettings {
    /// Requests in flight at once, over both APIs (`--parallelism`).
    pub parallelism: usize,
    /// Time limit of one attempt, from sending to the end of the body.
    pub timeout: Duration,
    /// Attempts per request, the first included.
    pub max_attempts: usize,
    /// First backoff delay.
    pub min_delay: Duration,
    /// Largest backoff delay.
    pub max_delay: Duration,
    /// Whether retries wait at all (`CONVERGE_TEST_NO_RETRY_DELAY=1` turns waiting off).
    pub retry_delays: bool,
    /// The largest success body read from one answer.
    pub max_body_bytes: usize,
}

impl TransportSettings {
    /// Defaults for `parallelism`, with retry delays as the environment says.
    pub fn new(parallelism: usize) -> Self {
        TransportSettings {
            parallelism: parallelism.max(1),
            timeout: Duration::from_secs(30),
            max_attempts: 5,
            min_delay: Duration::from_millis(500),
            max_delay: Duration::from_secs(20),
            retry_delays: retry_delays_enabled(std::env::var(NO_RETRY_DELAY_ENV).ok().as_deref()),
            max_body_bytes: MAX_BODY_BYTES,
        }
    }
}

/// Whether retries wait, given the value of `CONVERGE_TEST_NO_RETRY_DELAY`.
pub(crate) fn retry_delays_enabled(value: Option<&str>) -> bool {
    !matches!(value.map(str::trim), Some("1" | "true" | "yes"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn retry_delay_switch() {
        assert!(retry_delays_enabled(None));
        assert!(retry_delays_enabled(Some("0")));
        assert!(!retry_delays_enabled(Some("1")));
    }
}
