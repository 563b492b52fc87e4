//! Parsers of the flags that take a duration or a point in time, each with the range its command
//! can use. They run when the command line is read, so a value such as
//! `--timeout 18446744073709551615s` is a clear usage error (exit 1) before anything happens,
//! and no later arithmetic on the clock can overflow.

use std::time::Duration;

use crate::diagnostic::Code;
use crate::duration::{self, HOURS, MINUTES, Problem, SECONDS};
use crate::error::CommandError;
use crate::preview::model::DurationError;

/// Shortest and longest `apply --timeout`.
pub(crate) const TIMEOUT_RANGE: (Duration, Duration) =
    (Duration::from_secs(1), Duration::from_secs(86_400));

/// Longest `preview --window`, in milliseconds (366 days).
pub(crate) const MAX_WINDOW_MS: i64 = 366 * 86_400_000;

/// Longest `sandbox serve --latency`, in milliseconds.
pub(crate) const MAX_LATENCY_MS: u64 = 60_000;

/// Longest `sandbox serve --scaling-delay`, in milliseconds.
pub(crate) const MAX_SCALING_DELAY_MS: u64 = 3_600_000;

/// Why clap refuses the value of a duration or time flag; clap prints it after the flag and
/// the value. Each text is the value as given.
#[derive(Debug, thiserror::Error)]
pub(crate) enum FlagValueError {
    /// `--timeout` with no unit where one is needed, or one other than `s`, `m`, `h`.
    #[error("`{text}`: the unit must be `s`, `m` or `h`")]
    TimeoutUnit {
        /// The value.
        text: String,
    },
    /// `--timeout` that is not a number and a unit.
    #[error("`{text}` is not a duration such as `90s`, `10m` or `1h`")]
    NotATimeout {
        /// The value.
        text: String,
    },
    /// `--timeout` below 1 second or above 24 hours.
    #[error("`{text}` is out of range: the timeout is from 1s to 24h")]
    TimeoutOutOfRange {
        /// The value.
        text: String,
    },
    /// `--window` that is not a duration.
    #[error(transparent)]
    Window(#[from] DurationError),
    /// `--window` longer than 366 days.
    #[error("`{text}` is out of range: the window is at most 366d")]
    WindowOutOfRange {
        /// The value.
        text: String,
    },
    /// A time that is not RFC 3339 with a zone, or past what dates can hold.
    #[error(
        "`{text}` is not a time from 1970 to 9999: {cause}; use RFC 3339 with a zone, e.g. \
         `2026-11-21T06:00:00Z`"
    )]
    NotATime {
        /// The value.
        text: String,
        /// What the time parser said: part of the message, not a `source`, so that it is said
        /// once.
        cause: jiff::Error,
    },
    /// A time before the epoch the APIs count from.
    #[error("`{text}` is out of range: times start at 1970-01-01T00:00:00Z")]
    BeforeEpoch {
        /// The value.
        text: String,
    },
}

/// `apply --timeout`: `90`, `90s`, `10m`, `1h`, from 1 second to 24 hours.
pub(crate) fn timeout(text: &str) -> Result<Duration, FlagValueError> {
    let out_of_range = || FlagValueError::TimeoutOutOfRange {
        text: text.to_string(),
    };
    let duration =
        duration::parse(text, &[SECONDS, MINUTES, HOURS], Some(SECONDS)).map_err(|problem| {
            match problem {
                Problem::NoUnit | Problem::UnknownUnit => FlagValueError::TimeoutUnit {
                    text: text.to_string(),
                },
                Problem::TooLarge => out_of_range(),
                Problem::Empty | Problem::Malformed => FlagValueError::NotATimeout {
                    text: text.to_string(),
                },
            }
        })?;
    if duration < TIMEOUT_RANGE.0 || duration > TIMEOUT_RANGE.1 {
        return Err(out_of_range());
    }
    Ok(duration)
}

/// `preview --window`: `15m`, `24h`, `7d`, `2w`, at most 366 days. The text is kept as written
/// (messages quote it); [`crate::preview::parse_duration`] reads it again.
pub(crate) fn window(text: &str) -> Result<String, FlagValueError> {
    let out_of_range = || FlagValueError::WindowOutOfRange {
        text: text.to_string(),
    };
    let ms = crate::preview::parse_duration(text).map_err(|problem| {
        // A number too large to count in milliseconds is a range error, not a malformed one.
        let digits = text
            .trim()
            .trim_end_matches(|c: char| c.is_ascii_alphabetic());
        let large = digits.len() > 1
            && digits.bytes().all(|b| b.is_ascii_digit())
            && digits.trim_start_matches('0').len() > 3;
        if large {
            out_of_range()
        } else {
            FlagValueError::Window(problem)
        }
    })?;
    if ms > MAX_WINDOW_MS {
        return Err(out_of_range());
    }
    Ok(text.to_string())
}

/// A point in time in RFC 3339 with a zone, from 1970 on (the APIs count epoch milliseconds)
/// to the end of what dates can hold (year 9999).
pub(crate) fn time(text: &str) -> Result<jiff::Timestamp, FlagValueError> {
    let at: jiff::Timestamp = text
        .trim()
        .parse()
        .map_err(|cause| FlagValueError::NotATime {
            text: text.to_string(),
            cause,
        })?;
    if at < jiff::Timestamp::UNIX_EPOCH {
        return Err(FlagValueError::BeforeEpoch {
            text: text.to_string(),
        });
    }
    Ok(at)
}

/// `preview --end`: as [`time`], the text kept as written.
pub(crate) fn end(text: &str) -> Result<String, FlagValueError> {
    time(text).map(|_| text.to_string())
}

/// A command-line value clap accepted that the command cannot use.
#[derive(Debug, thiserror::Error, miette::Diagnostic)]
pub(crate) enum FlagError {
    /// `preview --window` is not a duration.
    #[error("--window {problem}")]
    #[diagnostic(help("for example `--window 24h`"))]
    Window {
        /// Why: part of the message, not a `source`, so that it is said once.
        problem: DurationError,
    },
    /// `preview --end` is not a time.
    #[error("--end `{text}` is not a time: {cause}")]
    #[diagnostic(help("use RFC 3339 with a zone, e.g. `2026-11-21T06:00:00Z`"))]
    End {
        /// The value as given.
        text: String,
        /// What the time parser said.
        cause: jiff::Error,
    },
    /// `preview --window` reaches back before the epoch the API counts from.
    #[error("--window `{window}` ending at {end} would start before 1970-01-01")]
    #[diagnostic(help("use a shorter --window or a later --end"))]
    BeforeEpoch {
        /// The window as given.
        window: String,
        /// The end of the window, as an ISO time.
        end: String,
    },
    /// `sandbox serve` was given key ids and key secrets that do not pair up.
    #[error("{key_ids} `--key-id` but {key_secrets} `--key-secret`")]
    #[diagnostic(help("give one `--key-secret` after each `--key-id`"))]
    KeyPairs {
        /// How many `--key-id`.
        key_ids: usize,
        /// How many `--key-secret`.
        key_secrets: usize,
    },
}

impl CommandError for FlagError {
    fn code(&self) -> Code {
        match self {
            FlagError::Window { .. } => Code::FlagWindow,
            FlagError::End { .. } => Code::FlagEnd,
            FlagError::BeforeEpoch { .. } => Code::FlagBeforeEpoch,
            FlagError::KeyPairs { .. } => Code::FlagKeyPairs,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn timeouts_take_seconds_minutes_and_hours_within_a_day() {
        assert_eq!(timeout("90").ok(), Some(Duration::from_secs(90)));
        assert_eq!(timeout("90s").ok(), Some(Duration::from_secs(90)));
        assert_eq!(timeout("10m").ok(), Some(Duration::from_secs(600)));
        assert_eq!(timeout("24h").ok(), Some(Duration::from_secs(86_400)));
        for bad in [
            "0s",
            "25h",
            "18446744073709551615s",
            "99999999999999999999999h",
            "1d",
            "soon",
            "",
        ] {
            assert!(timeout(bad).is_err(), "{bad}");
        }
        assert!(
            timeout("18446744073709551615s")
                .unwrap_err()
                .to_string()
                .contains("out of range")
        );
    }

    #[test]
    fn each_refusal_says_what_is_wrong_with_the_value_as_given() {
        fn said<T: std::fmt::Debug>(parsed: Result<T, FlagValueError>) -> String {
            parsed.unwrap_err().to_string()
        }
        assert_eq!(
            said(timeout("1d")),
            "`1d`: the unit must be `s`, `m` or `h`"
        );
        assert_eq!(
            said(timeout("soon")),
            "`soon` is not a duration such as `90s`, `10m` or `1h`"
        );
        assert_eq!(
            said(timeout("0s")),
            "`0s` is out of range: the timeout is from 1s to 24h"
        );
        assert_eq!(
            said(window(" 5x ")),
            "`5x`: the unit must be s, m, h, d or w"
        );
        assert_eq!(
            said(window("soon")),
            "`soon` is not a duration such as 15m, 24h or 7d"
        );
        // A sign is no part of a duration: `-5m` and `+5m` read as malformed.
        assert_eq!(
            said(window("-5m")),
            "`-5m` is not a duration such as 15m, 24h or 7d"
        );
        assert_eq!(said(window("0m")), "`0m` must be a positive duration");
        assert_eq!(
            said(window("367d")),
            "`367d` is out of range: the window is at most 366d"
        );
        assert_eq!(
            said(time("1900-01-01T00:00:00Z")),
            "`1900-01-01T00:00:00Z` is out of range: times start at 1970-01-01T00:00:00Z"
        );
        let not_a_time = said(time("tomorrow"));
        assert!(
            not_a_time.starts_with("`tomorrow` is not a time from 1970 to 9999: ")
                && not_a_time.ends_with("; use RFC 3339 with a zone, e.g. `2026-11-21T06:00:00Z`"),
            "{not_a_time}"
        );
    }

    #[test]
    fn windows_and_times_have_ranges() {
        assert_eq!(window("7d").ok().as_deref(), Some("7d"));
        assert!(window("366d").is_ok());
        assert!(window("367d").is_err());
        assert!(
            window("9223372036854775807w")
                .unwrap_err()
                .to_string()
                .contains("out of range")
        );
        assert!(window("0d").unwrap_err().to_string().contains("positive"));
        assert!(time("2026-11-21T06:00:00Z").is_ok());
        assert!(time("1969-12-31T23:59:59Z").is_err());
        assert!(time("-009999-01-01T00:00:00Z").is_err());
        assert!(time("tomorrow").is_err());
    }
}
