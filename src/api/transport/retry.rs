//! The retry policy: which failed attempts are tried again, the jittered exponential backoff
//! between them, and the waits a server asks for (`Retry-After`, `X-RateLimit-Reset`).

use std::time::Duration;

use backon::ExponentialBuilder;
use reqwest::header::HeaderMap;

use super::call::{Call, Resend};
use super::settings::TransportSettings;
use crate::api::error::{ApiError, FailureKind};

/// The longest wait a server may ask for (`Retry-After`, `X-RateLimit-Reset`): a server that
/// asks for more is not waited for; the request fails and says so.
pub(crate) const MAX_SERVER_DELAY: Duration = Duration::from_secs(120);

/// The wait before the next attempt: what the server asked for when it said, else the backoff;
/// `None` when the backoff is exhausted.
pub(crate) fn next_delay(
    error: &ApiError,
    backoff: Option<Duration>,
    retry_delays: bool,
) -> Option<Duration> {
    let backoff = backoff?;
    if !retry_delays {
        return Some(Duration::ZERO);
    }
    Some(match error.retry_after {
        Some(asked) => asked.min(MAX_SERVER_DELAY),
        None => backoff,
    })
}

/// How long the server asks us to wait: `Retry-After` (seconds or an HTTP date) or
/// `X-RateLimit-Reset` (seconds to wait, or a Unix time in seconds).
pub fn server_delay(headers: &HeaderMap) -> Option<Duration> {
    server_delay_with_source(headers).map(|(delay, _)| delay)
}

/// As [`server_delay`], with the header it came from as sent (`Retry-After: 3600`).
pub(crate) fn server_delay_with_source(headers: &HeaderMap) -> Option<(Duration, String)> {
    let text = |name: &str| {
        headers
            .get(name)
            .and_then(|value| value.to_str().ok())
            .map(str::trim)
    };
    let source = |name: &str, value: &str| {
        let shown: String = value.chars().take(40).collect();
        format!("{name}: {shown}")
    };
    let now_unix = || jiff::Timestamp::now().as_second();
    if let Some(value) = text("retry-after") {
        if let Ok(seconds) = value.parse::<f64>()
            && seconds.is_finite()
            && seconds >= 0.0
        {
            return Some((
                Duration::from_secs_f64(seconds.min(1e6)),
                source("Retry-After", value),
            ));
        }
        if let Some(date) = http_date(value) {
            let wait = date.as_second() - now_unix();
            return Some((
                Duration::from_secs(wait.max(0) as u64),
                source("Retry-After", value),
            ));
        }
    }
    if let Some(value) = text("x-ratelimit-reset")
        && let Ok(seconds) = value.parse::<f64>()
        && seconds.is_finite()
        && seconds >= 0.0
    {
        // Large values are a Unix time, not a delay.
        let wait = if seconds > 1_000_000_000.0 {
            (seconds - now_unix() as f64).max(0.0)
        } else {
            seconds
        };
        return Some((
            Duration::from_secs_f64(wait.min(1e6)),
            source("X-RateLimit-Reset", value),
        ));
    }
    None
}

/// An HTTP date in any of the three forms RFC 9110 has recipients accept: IMF-fixdate
/// (`Sun, 06 Nov 1994 08:49:37 GMT`), the obsolete RFC 850 form (`Sunday, 06-Nov-94 08:49:37
/// GMT`) and asctime's (`Sun Nov  6 08:49:37 1994`), all in UTC.
fn http_date(value: &str) -> Option<jiff::Timestamp> {
    if let Ok(date) = jiff::fmt::rfc2822::parse(value) {
        return Some(date.timestamp());
    }
    let utc = |format: &str, text: &str| {
        jiff::civil::DateTime::strptime(format, text)
            .ok()?
            .to_zoned(jiff::tz::TimeZone::UTC)
            .ok()
            .map(|zoned| zoned.timestamp())
    };
    // asctime pads a one-digit day with a space; the words joined again read as `%d`.
    let asctime = value.split_whitespace().collect::<Vec<_>>().join(" ");
    utc("%A, %d-%b-%y %H:%M:%S GMT", value).or_else(|| utc("%a %b %d %H:%M:%S %Y", &asctime))
}

/// The backoff between attempts the settings ask for.
pub(crate) fn backoff(settings: &TransportSettings) -> ExponentialBuilder {
    ExponentialBuilder::default()
        .with_min_delay(settings.min_delay)
        .with_max_delay(settings.max_delay)
        .with_factor(2.0)
        .with_max_times(settings.max_attempts.saturating_sub(1))
        .with_jitter()
}

/// Whether a failed attempt of `call` is tried again, as its [`Resend`] rule allows.
pub(crate) fn worth_retrying(call: &Call, error: &ApiError) -> bool {
    // A server asking for more than converge waits is not asked again.
    let too_long = error
        .retry_after
        .is_some_and(|asked| asked > MAX_SERVER_DELAY);
    // Nor is a port nobody listens on: it does not start listening within a backoff.
    let refused = error.kind == FailureKind::Refused;
    !too_long
        && !refused
        && match call.resend {
            Resend::Idempotent => error.is_retryable(),
            Resend::OnlyIfNotReceived => error.is_safe_to_resend(),
        }
}

/// The error a send ends with after `made` attempts: the last one, unless a stop kept the
/// retry of an attempt the server may have acted on (`acted`) from going out; that attempt is
/// then the outcome.
pub(crate) fn final_error(error: ApiError, acted: Option<ApiError>, made: u32) -> ApiError {
    match acted {
        // The stopped attempt was not made.
        Some(mut earlier) if error.is_stopped() => {
            earlier.attempts = made.saturating_sub(1).max(1);
            earlier
        }
        _ => {
            let mut error = error;
            error.attempts = made;
            error
        }
    }
}

/// `2m`, `1h`, `45s`, `3600s` waits as people read them.
pub(crate) fn human_wait(wait: Duration) -> String {
    let seconds = wait.as_secs_f64().ceil() as u64;
    match seconds {
        s if s >= 3600 && s.is_multiple_of(3600) => format!("{}h", s / 3600),
        s if s >= 60 && s.is_multiple_of(60) => format!("{}m", s / 60),
        s => format!("{s}s"),
    }
}

#[cfg(test)]
mod tests {
    use reqwest::header::HeaderValue;

    use super::*;
    use crate::api::error::ApiErrorDetails;

    fn error_with(retry_after: Option<Duration>) -> ApiError {
        ApiError::from(ApiErrorDetails {
            operation: "list services".into(),
            method: "GET".into(),
            path: "/v1/organizations/o/services".into(),
            kind: FailureKind::Status(429),
            message: "TOO_MANY_REQUESTS".into(),
            request_id: None,
            retry_after,
            attempts: 1,
        })
    }

    #[test]
    fn server_delay_wins_over_backoff_and_can_be_switched_off() {
        let backoff = Some(Duration::from_millis(700));
        let asked = error_with(Some(Duration::from_secs(3)));
        assert_eq!(
            next_delay(&asked, backoff, true),
            Some(Duration::from_secs(3))
        );
        assert_eq!(next_delay(&error_with(None), backoff, true), backoff);
        assert_eq!(next_delay(&asked, backoff, false), Some(Duration::ZERO));
        assert_eq!(next_delay(&asked, None, true), None);
    }

    #[test]
    fn server_delay_headers() {
        let mut headers = HeaderMap::new();
        headers.insert("retry-after", HeaderValue::from_static("7"));
        assert_eq!(server_delay(&headers), Some(Duration::from_secs(7)));
        let mut headers = HeaderMap::new();
        headers.insert("x-ratelimit-reset", HeaderValue::from_static("3"));
        assert_eq!(server_delay(&headers), Some(Duration::from_secs(3)));
        let future = jiff::Timestamp::now().as_second() + 30;
        let mut headers = HeaderMap::new();
        headers.insert(
            "x-ratelimit-reset",
            HeaderValue::from_str(&future.to_string()).unwrap(),
        );
        let wait = server_delay(&headers).unwrap();
        assert!(wait <= Duration::from_secs(30) && wait >= Duration::from_secs(28));
        let mut headers = HeaderMap::new();
        headers.insert(
            "retry-after",
            HeaderValue::from_static("Wed, 21 Oct 2015 07:28:00 GMT"),
        );
        assert_eq!(server_delay(&headers), Some(Duration::ZERO));
        assert_eq!(server_delay(&HeaderMap::new()), None);
        let expected = jiff::Timestamp::from_second(784111777).ok();
        for form in [
            "Sun, 06 Nov 1994 08:49:37 GMT",
            "Sunday, 06-Nov-94 08:49:37 GMT",
            "Sun Nov  6 08:49:37 1994",
        ] {
            assert_eq!(http_date(form), expected, "{form}");
        }
        assert_eq!(http_date("tomorrow"), None);
    }
}
