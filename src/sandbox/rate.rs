//! Rate limits per credential, as fixed windows (the real services answer 429 once a key has
//! used its window, with `X-RateLimit-Reset` saying how many seconds are left).

use std::collections::HashMap;
use std::time::{Duration, Instant};

/// Windows per credential.
#[derive(Debug, Default)]
pub(crate) struct RateLimiter {
    windows: HashMap<String, (Instant, u32)>,
}

impl RateLimiter {
    /// Counts one request of `key`; `Err(seconds until the window resets)` when over the limit.
    pub(crate) fn admit(
        &mut self,
        key: &str,
        limit: u32,
        window: Duration,
        now: Instant,
    ) -> Result<(), u64> {
        let entry = self.windows.entry(key.to_string()).or_insert((now, 0));
        if now.duration_since(entry.0) >= window {
            *entry = (now, 0);
        }
        if entry.1 >= limit {
            let left = window.saturating_sub(now.duration_since(entry.0));
            // Rounded up so a client that waits exactly this long finds a fresh window.
            let secs = left.as_secs() + u64::from(left.subsec_nanos() > 0);
            return Err(secs.max(1));
        }
        entry.1 += 1;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn eleventh_request_in_a_window_is_refused_until_it_resets() {
        let mut limiter = RateLimiter::default();
        let start = Instant::now();
        let window = Duration::from_secs(10);
        for _ in 0..10 {
            assert!(limiter.admit("k", 10, window, start).is_ok());
        }
        assert_eq!(
            limiter.admit("k", 10, window, start + Duration::from_millis(2500)),
            Err(8)
        );
        assert!(limiter.admit("other", 10, window, start).is_ok());
        assert!(
            limiter
                .admit("k", 10, window, start + Duration::from_secs(10))
                .is_ok()
        );
    }
}
