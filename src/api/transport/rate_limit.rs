//! Pacing under each key's rate limit: the limit, the bucket that keeps sends under it, and
//! what a server's answer says about its own window (`X-RateLimit-Remaining`).

use std::sync::Mutex;
use std::time::Duration;

use reqwest::header::HeaderMap;
use tokio::time::Instant;

use super::retry::MAX_SERVER_DELAY;
use crate::api::limits;
use crate::duration::{self, HOURS, MILLISECONDS, MINUTES, SECONDS};

/// How many requests a key may send per window.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RateLimit {
    /// Requests allowed per window.
    pub requests: u32,
    /// The window.
    pub window: Duration,
}

impl RateLimit {
    /// The cloud API's limit: 10 requests per 10 seconds per key.
    pub(crate) const CLOUD: RateLimit = RateLimit {
        requests: limits::CLOUD_RATE_REQUESTS,
        window: Duration::from_secs(limits::CLOUD_RATE_WINDOW_SECS),
    };
    /// The observability API's limit: 100 requests per minute per key.
    pub(crate) const OBSERVABILITY: RateLimit = RateLimit {
        requests: limits::OBSERVABILITY_RATE_REQUESTS,
        window: Duration::from_secs(limits::OBSERVABILITY_RATE_WINDOW_SECS),
    };

    /// No pacing at all (the in-process sandbox, unless asked to limit).
    pub(crate) const UNLIMITED: RateLimit = RateLimit {
        requests: u32::MAX,
        window: Duration::from_secs(1),
    };

    /// `10 requests per 10s`, for messages.
    pub(crate) fn describe(&self) -> String {
        if *self == RateLimit::UNLIMITED {
            return "no limit".to_string();
        }
        let window = self.window;
        let window = if window.subsec_millis() != 0 || window.as_secs() == 0 {
            format!("{}ms", window.as_millis())
        } else if window.as_secs().is_multiple_of(60) {
            format!("{}m", window.as_secs() / 60)
        } else {
            format!("{}s", window.as_secs())
        };
        format!("{} requests per {window}", self.requests)
    }

    /// Reads `N/DURATION`, e.g. `10/10s`, `100/1m`, `5/500ms`.
    pub(crate) fn parse(text: &str) -> Result<RateLimit, RateLimitError> {
        let problem = || RateLimitError {
            text: text.to_string(),
        };
        let (count, window) = text.trim().split_once('/').ok_or_else(problem)?;
        let requests: u32 = count.trim().parse().map_err(|_| problem())?;
        let window = window.trim();
        // A window without a number is one unit: `10/s`, `10/m`, and `10/` a second.
        let window = if window.starts_with(|c: char| c.is_ascii_digit()) {
            window.to_string()
        } else {
            format!("1{window}")
        };
        let units = [MILLISECONDS, SECONDS, MINUTES, HOURS];
        let window = duration::parse(&window, &units, Some(SECONDS)).map_err(|_| problem())?;
        // A window longer than a day is a typo, and would overflow time arithmetic if huge.
        if requests == 0 || window.is_zero() || window > Duration::from_secs(86_400) {
            return Err(problem());
        }
        Ok(RateLimit { requests, window })
    }
}

/// A text that is not a rate limit: not `N/DURATION`, no request, or a window not above zero
/// and at most a day.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("`{text}` is not a rate limit; write it as `10/10s` or `100/1m`")]
pub(crate) struct RateLimitError {
    /// The text as given.
    pub text: String,
}

/// Paces one key as its server counts: in fixed windows of `window`, each opened by the first
/// request sent after the one before has closed, holding at most `requests` (the sandbox and the
/// observability server's limiter count so, and a window-per-key limit allows no more). A window
/// closes a `window` after its first request was *answered*, by which time the server had
/// certainly counted it and so opened its own window, plus the margin: a request sent after
/// that lands in the server's next window. Within a window requests go as soon as they are
/// offered; one sent in its last moments (or past its end while its first request is still
/// out) could arrive in either of the server's windows, so it is counted in both. So a run whose reads on one key end early fills what is left of their
/// window with its writes, instead of spreading the window over a minute from each answer.
/// A 429 (or a response saying the window is used up) holds every request of the key until the
/// time the server named.
///
/// Slots are taken at the moment of sending, never booked ahead: a request that then waits for
/// a concurrency permit cannot make the recorded times lie about when requests really left.
#[derive(Debug)]
pub struct RateBucket {
    limit: RateLimit,
    margin: Duration,
    /// How long before a window's end no request of it is sent any more.
    guard: Duration,
    state: Mutex<BucketState>,
    /// How many slots were taken so far: a step that checked its object right before its
    /// write lets the next step check only once its write has taken its slot
    /// (`apply::fresh`), so no other send can take that slot between the check and the write.
    taken: tokio::sync::watch::Sender<u64>,
}

#[derive(Debug, Default)]
struct BucketState {
    /// The window open now (or the last one).
    window: Option<Window>,
    /// No request leaves before this (set after a 429).
    hold_until: Option<Instant>,
}

/// One window as the client counts it.
#[derive(Debug, Clone, Copy)]
struct Window {
    /// The earliest the server's window can have opened: when its first request was sent (or
    /// the first request carried into it).
    opened: Instant,
    /// The request whose answer dates the window's end: the first one sent once the window
    /// before had surely closed.
    opener: Instant,
    /// When that request was answered (or failed).
    answered: Option<Instant>,
    /// Requests sent in it.
    sent: u32,
    /// Requests sent while it was unclear which of the server's windows they arrive in (near
    /// this window's end, or past it while its opener was still unanswered): each is counted
    /// in this window and in the next, which they may open.
    carried: Option<Carried>,
}

/// The requests a window carries into the next.
#[derive(Debug, Clone, Copy)]
struct Carried {
    /// When the first of them was sent: the earliest the server's next window can open.
    first: Instant,
    /// How many.
    count: u32,
}

impl Window {
    /// The window after `before` (none: the first), opened by a request sent at `at`: it holds
    /// what that one carried, and may have opened as early as the first of those.
    fn after(before: Option<&Window>, at: Instant) -> Window {
        let carried = before.and_then(|window| window.carried);
        Window {
            opened: carried.map_or(at, |carried| carried.first),
            opener: at,
            answered: None,
            sent: carried.map_or(0, |carried| carried.count) + 1,
            carried: None,
        }
    }
}

/// What the bucket allows at a moment.
enum Free {
    /// A request may go in the open window.
    InWindow,
    /// A request may go, counted in the open window and in the next.
    Carried,
    /// A request opens a new window.
    NewWindow,
    /// Nothing may go before this.
    At(Instant),
}

impl RateBucket {
    /// A bucket for one key.
    pub(crate) fn new(limit: RateLimit) -> Self {
        // The margin covers clocks that run at slightly different rates and servers that round
        // their timestamps: half a percent of the window. It has no floor of its own (20 ms
        // once cost 2% of a 1 s window) beyond the timer's millisecond.
        let margin = (limit.window / 200).max(Duration::from_millis(1));
        // A request sent this close to its window's end may arrive after the server's window
        // ended (a slower round trip than the window's first request had): it is counted in
        // both windows. 2% of the window, which a full window's requests, sent at its start,
        // never use.
        let guard = (limit.window / 50).max(margin);
        RateBucket {
            limit,
            margin,
            guard,
            state: Mutex::new(BucketState::default()),
            taken: tokio::sync::watch::Sender::new(0),
        }
    }

    /// The limit this bucket enforces.
    pub(crate) fn limit(&self) -> RateLimit {
        self.limit
    }

    /// Whether the bucket paces at all ([`RateLimit::UNLIMITED`] does not).
    pub(crate) fn is_limited(&self) -> bool {
        self.limit != RateLimit::UNLIMITED
    }

    /// How many slots were taken so far.
    pub(crate) fn taken(&self) -> u64 {
        *self.taken.borrow()
    }

    /// Returns once more than `count` slots were taken.
    pub(crate) async fn taken_beyond(&self, count: u64) {
        let mut taken = self.taken.subscribe();
        // The sender lives as long as the bucket, which outlives this borrow.
        let _ = taken.wait_for(|taken| *taken > count).await;
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, BucketState> {
        match self.state.lock() {
            Ok(guard) => guard,
            // The state stays consistent at every step; a panic elsewhere cannot break it.
            Err(poisoned) => poisoned.into_inner(),
        }
    }

    /// What the bucket in `state` allows at `now`.
    fn free(&self, state: &BucketState, now: Instant) -> Free {
        if let Some(hold) = state.hold_until.filter(|hold| *hold > now) {
            return Free::At(hold);
        }
        let Some(window) = state.window else {
            return Free::NewWindow;
        };
        let requests = self.limit.requests;
        let room = window.sent < requests;
        if room && now + self.guard < window.opened + self.limit.window {
            return Free::InWindow;
        }
        let closes = window
            .answered
            .map(|answered| answered + self.limit.window + self.margin);
        if closes.is_some_and(|closes| closes <= now) {
            return Free::NewWindow;
        }
        let carried = window.carried.map_or(0, |carried| carried.count);
        if room && carried < requests {
            return Free::Carried;
        }
        // Full: free once the window closes; with its opener still out, no earlier than a
        // window after it was sent, asked again then.
        Free::At(closes.unwrap_or_else(|| {
            (window.opener + self.limit.window + self.margin).max(now + self.margin)
        }))
    }

    /// Takes a send slot at `now` if one is free, returning the time it was stamped with (for
    /// [`RateBucket::answered_at`]); otherwise leaves the bucket untouched and returns the
    /// earliest time one may be.
    pub(crate) fn try_take_at(&self, now: Instant) -> Result<Instant, Instant> {
        let mut state = self.lock();
        if self.limit == RateLimit::UNLIMITED {
            if let Some(hold) = state.hold_until.filter(|hold| *hold > now) {
                return Err(hold);
            }
            drop(state);
            self.taken.send_modify(|taken| *taken += 1);
            return Ok(now);
        }
        // Keep the stamps ordered even if callers' clocks were read out of order.
        let at = state.window.map_or(now, |window| now.max(window.opener));
        match (self.free(&state, at), state.window.as_mut()) {
            (Free::At(free_at), _) => return Err(free_at),
            (Free::InWindow, Some(window)) => window.sent += 1,
            (Free::Carried, Some(window)) => {
                window.sent += 1;
                let carried = window.carried.get_or_insert(Carried {
                    first: at,
                    count: 0,
                });
                carried.count += 1;
            }
            (Free::InWindow | Free::Carried | Free::NewWindow, window) => {
                let next = Window::after(window.as_deref(), at);
                state.window = Some(next);
            }
        }
        drop(state);
        self.taken.send_modify(|taken| *taken += 1);
        Ok(at)
    }

    /// Records that the request stamped `sent` was answered (or failed) at `answered`. The
    /// answer to a window's first request dates the window's end: the server counted the
    /// request when it *arrived*, which is after it was sent (the first request of a run also
    /// opens its connection), and by the answer it certainly had; a window after that, its own
    /// window has closed. That costs one round trip per window, not a 429 and its wait.
    pub(crate) fn answered_at(&self, sent: Instant, answered: Instant) {
        if self.limit == RateLimit::UNLIMITED {
            return;
        }
        let mut state = self.lock();
        if let Some(window) = state.window.as_mut()
            && window.opener == sent
            && window.answered.is_none()
        {
            window.answered = Some(answered.max(sent));
        }
    }

    /// The earliest time a slot may be free, without taking one; `None` when one is free at
    /// `now`. Shared reads wait for it before they begin (`apply::fresh`), so that steps starting
    /// meanwhile can share them.
    pub(crate) fn free_at(&self, now: Instant) -> Option<Instant> {
        if self.limit == RateLimit::UNLIMITED {
            let state = self.lock();
            return state.hold_until.filter(|hold| *hold > now);
        }
        match self.free(&self.lock(), now) {
            Free::At(free_at) => Some(free_at),
            Free::InWindow | Free::Carried | Free::NewWindow => None,
        }
    }

    /// Whether a slot was free at `now` (and takes it).
    pub fn try_acquire_at(&self, now: Instant) -> bool {
        match self.try_take_at(now) {
            Ok(sent) => {
                // Taken for a request that is not sent (tests, benches): it is answered at once.
                self.answered_at(sent, now);
                true
            }
            Err(_) => false,
        }
    }

    /// Holds every send of this key until `until` (the server asked us to wait).
    pub(crate) fn hold_until(&self, until: Instant) {
        let mut state = self.lock();
        if state.hold_until.is_none_or(|hold| hold < until) {
            state.hold_until = Some(until);
        }
    }
}

/// How long to hold a key when a response says its window has no request left
/// (`X-RateLimit-Remaining: 0` with a reset time).
pub fn exhausted_until(headers: &HeaderMap, delay: Option<Duration>) -> Option<Duration> {
    let remaining = headers
        .get("x-ratelimit-remaining")
        .and_then(|value| value.to_str().ok())
        .and_then(|text| text.trim().parse::<f64>().ok())?;
    if remaining > 0.0 {
        return None;
    }
    delay.map(|delay| delay.min(MAX_SERVER_DELAY))
}

#[cfg(test)]
mod tests {
    use reqwest::header::HeaderValue;

    use super::*;
    use crate::api::transport::retry::server_delay;

    #[test]
    fn rate_limits_parse() {
        assert_eq!(RateLimit::parse("10/10s"), Ok(RateLimit::CLOUD));
        assert_eq!(RateLimit::parse("100/1m"), Ok(RateLimit::OBSERVABILITY));
        assert_eq!(
            RateLimit::parse("5/250ms").map(|l| l.window),
            Ok(Duration::from_millis(250))
        );
        assert!(RateLimit::parse("0/10s").is_err());
        assert!(RateLimit::parse("ten/10s").is_err());
        assert!(RateLimit::parse("10/10x").is_err());
        assert!(RateLimit::parse("10/99999999999999999h").is_err());
        assert!(RateLimit::parse("10/2d").is_err());
    }

    /// Sends `count` requests as the transport does: each at the first moment the bucket allows,
    /// offered one after another every `spacing` from `start`, each answered `round_trip` after
    /// it left.
    fn send_times(
        bucket: &RateBucket,
        start: Instant,
        count: u32,
        spacing: Duration,
        round_trip: Duration,
    ) -> Vec<Instant> {
        (0..count)
            .map(|i| {
                let mut at = start + spacing * i;
                loop {
                    match bucket.try_take_at(at) {
                        Ok(sent) => {
                            bucket.answered_at(sent, sent + round_trip);
                            return at;
                        }
                        Err(free_at) => {
                            assert!(free_at > at, "a refusal names a later time");
                            at = free_at;
                        }
                    }
                }
            })
            .collect()
    }

    #[test]
    fn bucket_lets_a_full_window_go_then_waits_for_the_next() {
        let bucket = RateBucket::new(RateLimit::CLOUD);
        let start = Instant::now();
        let immediate = (0..25).filter(|_| bucket.try_acquire_at(start)).count();
        assert_eq!(immediate, 10);
        // The 11th send waits for the window to close (plus the safety margin).
        let next = bucket.try_take_at(start).unwrap_err();
        assert_eq!(next, start + Duration::from_secs(10) + bucket.margin);
        // A refusal takes nothing: the slot is free at that time, and opens the next window.
        assert!(bucket.try_acquire_at(next));
        let ten = (0..25).filter(|_| bucket.try_acquire_at(next)).count();
        assert_eq!(ten, 9);
    }

    /// Counts `sends` in fixed windows as the sandbox's limiter does: a window opens with the
    /// first request that arrives after the last one closed.
    fn server_windows(sends: &[Instant], window: Duration, latency: Duration) -> Vec<usize> {
        let mut windows: Vec<(Instant, usize)> = Vec::new();
        for send in sends {
            let arrived = *send + latency;
            match windows.last_mut() {
                Some((opened, count)) if arrived < *opened + window => *count += 1,
                _ => windows.push((arrived, 1)),
            }
        }
        windows.into_iter().map(|(_, count)| count).collect()
    }

    #[test]
    fn no_server_window_holds_more_than_the_limit() {
        let limit = RateLimit {
            requests: 3,
            window: Duration::from_secs(1),
        };
        let bucket = RateBucket::new(limit);
        let start = Instant::now();
        let round_trip = Duration::from_millis(30);
        let sends = send_times(&bucket, start, 12, Duration::from_millis(50), round_trip);
        let windows = server_windows(&sends, limit.window, round_trip / 2);
        assert!(windows.iter().all(|count| *count <= 3), "{windows:?}");
        assert_eq!(windows, [3, 3, 3, 3]);
        // Paced at the limit, not slower: 12 sends of 3 per window end after 3 windows (and a
        // round trip and the margin each).
        let last = sends[11].duration_since(start);
        assert!(last < Duration::from_millis(3_200), "{last:?}");
    }

    #[test]
    fn a_window_left_by_early_reads_is_filled_later_not_spread() {
        // The plan's three reads at 0 s, the writes from 20 s (they waited for the other key's
        // reads): the writes fill what is left of the first window, then the next window whole.
        let limit = RateLimit::OBSERVABILITY;
        let bucket = RateBucket::new(limit);
        let start = Instant::now();
        let round_trip = Duration::from_millis(5);
        let reads = send_times(&bucket, start, 3, Duration::ZERO, round_trip);
        let writes = send_times(
            &bucket,
            start + Duration::from_secs(20),
            203,
            Duration::ZERO,
            round_trip,
        );
        let sends: Vec<_> = reads.into_iter().chain(writes).collect();
        assert_eq!(
            server_windows(&sends, limit.window, round_trip / 2),
            [100, 100, 6]
        );
        let last = sends[205].duration_since(start);
        assert!(last < Duration::from_millis(121_000), "{last:?}");
    }

    #[test]
    fn a_window_closes_a_window_after_its_first_answer_not_its_send() {
        let limit = RateLimit {
            requests: 1,
            window: Duration::from_secs(1),
        };
        let bucket = RateBucket::new(limit);
        let start = Instant::now();
        let sent = bucket.try_take_at(start).unwrap();
        assert_eq!(sent, start);
        // Unanswered, the window is asked about again a window after the send.
        assert_eq!(
            bucket.try_take_at(start + Duration::from_secs(2)),
            Err(start + Duration::from_secs(2) + bucket.margin)
        );
        // The request's answer came 300 ms after it left (it opened the connection): the
        // server counted it at most then, so its window closes a window after that.
        bucket.answered_at(sent, start + Duration::from_millis(300));
        let free_at = bucket
            .try_take_at(start + Duration::from_secs(1))
            .unwrap_err();
        assert_eq!(
            free_at,
            start + Duration::from_millis(1_300) + bucket.margin
        );
        assert_eq!(bucket.try_take_at(free_at), Ok(free_at));
    }

    #[test]
    fn requests_in_the_last_moments_of_a_window_count_in_the_next_too() {
        let limit = RateLimit {
            requests: 10,
            window: Duration::from_secs(1),
        };
        let bucket = RateBucket::new(limit);
        let start = Instant::now();
        assert!(bucket.try_acquire_at(start));
        // Near the end they still go (nothing waits for a window that is not full), but each
        // may arrive in the server's next window, so it is counted there too.
        let late = start + limit.window - bucket.guard;
        assert_eq!((0..20).filter(|_| bucket.try_acquire_at(late)).count(), 9);
        let closes = start + limit.window + bucket.margin;
        assert_eq!(bucket.try_take_at(late), Err(closes));
        // The next window holds the 9 carried and one more.
        assert_eq!((0..20).filter(|_| bucket.try_acquire_at(closes)).count(), 1);
    }

    #[test]
    fn an_unanswered_opener_does_not_hold_a_window_that_has_room() {
        let limit = RateLimit {
            requests: 100,
            window: Duration::from_secs(1),
        };
        let bucket = RateBucket::new(limit);
        let start = Instant::now();
        // A long read opens the window and is still out two windows later.
        assert!(bucket.try_take_at(start).is_ok());
        let later = start + Duration::from_secs(2);
        assert!(bucket.try_take_at(later).is_ok());
    }

    #[test]
    fn the_margin_is_half_a_percent_of_the_window() {
        let margin = |requests, window| RateBucket::new(RateLimit { requests, window }).margin;
        assert_eq!(
            margin(10, Duration::from_secs(10)),
            Duration::from_millis(50)
        );
        assert_eq!(
            margin(100, Duration::from_secs(60)),
            Duration::from_millis(300)
        );
        // A scaled window (benches, tests) keeps the same share, not a fixed 20 ms.
        assert_eq!(margin(10, Duration::from_secs(1)), Duration::from_millis(5));
        assert_eq!(
            margin(5, Duration::from_millis(100)),
            Duration::from_millis(1)
        );
    }

    #[test]
    fn a_hold_delays_every_send() {
        let bucket = RateBucket::new(RateLimit::OBSERVABILITY);
        let start = Instant::now();
        bucket.hold_until(start + Duration::from_secs(4));
        assert!(!bucket.try_acquire_at(start));
        assert_eq!(
            bucket.try_take_at(start + Duration::from_secs(1)),
            Err(start + Duration::from_secs(4))
        );
        assert!(bucket.try_acquire_at(start + Duration::from_secs(4)));
    }

    #[test]
    fn an_exhausted_window_holds_the_key_until_its_reset() {
        let mut headers = HeaderMap::new();
        headers.insert("x-ratelimit-remaining", HeaderValue::from_static("0"));
        headers.insert("x-ratelimit-reset", HeaderValue::from_static("4"));
        let delay = server_delay(&headers);
        assert_eq!(
            exhausted_until(&headers, delay),
            Some(Duration::from_secs(4))
        );
        headers.insert("x-ratelimit-remaining", HeaderValue::from_static("3"));
        assert_eq!(exhausted_until(&headers, delay), None);
        assert_eq!(exhausted_until(&HeaderMap::new(), delay), None);
    }
}
