//! One HTTP client shared by both APIs: authentication, pacing under each key's rate limit,
//! bounded concurrency, retries with jittered exponential backoff, error bodies and logs.
//!
//! Each API (the cloud API, which also serves the managed stacks, and the standalone
//! observability API) is an [`Api`]: a base URL, an `Authorization` header and a [`RateBucket`].
//! They share one [`Transport`], so `--parallelism` bounds the requests in flight overall.

use std::collections::VecDeque;
use std::net::IpAddr;
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use backon::{ExponentialBuilder, Retryable};
use reqwest::header::{ACCEPT, AUTHORIZATION, CONTENT_TYPE, HeaderMap, HeaderValue};
use reqwest::{Method, StatusCode};
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::Value;
use tokio::sync::{Semaphore, SemaphorePermit, watch};
use tokio::time::Instant;

use super::activity::{Activity, WaitReason};
use super::error::{ApiError, ApiErrorDetails, FailureKind, server_words};
use super::limits;
use super::wire::{self, Secret};
use crate::duration::{self, HOURS, MILLISECONDS, MINUTES, SECONDS};
use crate::output::Printer;

/// Environment variable that turns retry delays (not the retries) off, for tests.
pub(crate) const NO_RETRY_DELAY_ENV: &str = "CONVERGE_TEST_NO_RETRY_DELAY";

/// The longest wait a server may ask for (`Retry-After`, `X-RateLimit-Reset`): a server that
/// asks for more is not waited for; the request fails and says so.
pub(crate) const MAX_SERVER_DELAY: Duration = Duration::from_secs(120);

/// The largest success body converge reads from one answer (the large seed's biggest list is a
/// few MiB); a server sending more is cut off with an error rather than filling memory.
pub(crate) const MAX_BODY_BYTES: usize = 64 * 1024 * 1024;

/// How much of an error body is kept: only its first words are ever shown.
const MAX_ERROR_BODY_BYTES: usize = 64 * 1024;

/// Redirects followed within one origin before giving up (a loop).
const MAX_REDIRECTS: usize = 5;

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

/// Paces one key: at most `requests` sends in any interval of length `window`, whichever way the
/// server counts its window (fixed or sliding). The first `requests` go at once; later ones wait
/// until the send `requests` places earlier has left the window. A 429 (or a response saying the
/// window is used up) holds every request of the key until the time the server named.
///
/// Slots are taken at the moment of sending, never booked ahead: a request that then waits for
/// a concurrency permit cannot make the recorded times lie about when requests really left.
#[derive(Debug)]
pub struct RateBucket {
    limit: RateLimit,
    margin: Duration,
    state: Mutex<BucketState>,
}

#[derive(Debug, Default)]
struct BucketState {
    /// Send times of the last `limit.requests` sends, oldest first.
    sent: VecDeque<Instant>,
    /// No request leaves before this (set after a 429).
    hold_until: Option<Instant>,
}

impl RateBucket {
    /// A bucket for one key.
    pub(crate) fn new(limit: RateLimit) -> Self {
        // Clocks and network delays differ between client and server; a send that leaves
        // exactly one window later may still land inside the server's window.
        let margin = (limit.window / 200).max(Duration::from_millis(20));
        RateBucket {
            limit,
            margin,
            state: Mutex::new(BucketState::default()),
        }
    }

    /// The limit this bucket enforces.
    pub(crate) fn limit(&self) -> RateLimit {
        self.limit
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, BucketState> {
        match self.state.lock() {
            Ok(guard) => guard,
            // The state stays consistent at every step; a panic elsewhere cannot break it.
            Err(poisoned) => poisoned.into_inner(),
        }
    }

    /// Takes a send slot at `now` if one is free; otherwise leaves the bucket untouched and
    /// returns the earliest time one may be.
    pub(crate) fn try_take_at(&self, now: Instant) -> Result<(), Instant> {
        let mut state = self.lock();
        if let Some(hold) = state.hold_until.filter(|hold| *hold > now) {
            return Err(hold);
        }
        if self.limit == RateLimit::UNLIMITED {
            return Ok(());
        }
        let capacity = self.limit.requests as usize;
        if state.sent.len() >= capacity {
            let index = state.sent.len() - capacity;
            if let Some(free_at) = state
                .sent
                .get(index)
                .map(|earlier| *earlier + self.limit.window + self.margin)
                .filter(|free_at| *free_at > now)
            {
                return Err(free_at);
            }
        }
        // Keep the log ordered even if callers' clocks were read out of order.
        let at = state.sent.back().map_or(now, |last| now.max(*last));
        state.sent.push_back(at);
        while state.sent.len() > capacity {
            state.sent.pop_front();
        }
        Ok(())
    }

    /// The earliest time a slot may be free, without taking one; `None` when one is free at
    /// `now`. Shared reads wait for it before they begin (`apply::fresh`), so that steps starting
    /// meanwhile can share them.
    pub(crate) fn free_at(&self, now: Instant) -> Option<Instant> {
        let state = self.lock();
        if let Some(hold) = state.hold_until.filter(|hold| *hold > now) {
            return Some(hold);
        }
        let capacity = self.limit.requests as usize;
        if state.sent.len() < capacity {
            return None;
        }
        state
            .sent
            .get(state.sent.len() - capacity)
            .map(|earlier| *earlier + self.limit.window + self.margin)
            .filter(|free_at| *free_at > now)
    }

    /// Whether a slot was free at `now` (and takes it).
    pub fn try_acquire_at(&self, now: Instant) -> bool {
        self.try_take_at(now).is_ok()
    }

    /// Holds every send of this key until `until` (the server asked us to wait).
    pub(crate) fn hold_until(&self, until: Instant) {
        let mut state = self.lock();
        if state.hold_until.is_none_or(|hold| hold < until) {
            state.hold_until = Some(until);
        }
    }
}

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

/// Resolves once `gate` is `true`; never without a gate (or once its sender is gone unset).
async fn stopped(gate: Option<watch::Receiver<bool>>) {
    match gate {
        Some(mut gate) => {
            if gate.wait_for(|stop| *stop).await.is_err() {
                std::future::pending::<()>().await;
            }
        }
        None => std::future::pending::<()>().await,
    }
}

fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    match mutex.lock() {
        Ok(guard) => guard,
        Err(poisoned) => poisoned.into_inner(),
    }
}

/// Whether retries wait, given the value of `CONVERGE_TEST_NO_RETRY_DELAY`.
pub(crate) fn retry_delays_enabled(value: Option<&str>) -> bool {
    !matches!(value.map(str::trim), Some("1" | "true" | "yes"))
}

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
        if let Ok(date) = jiff::fmt::rfc2822::parse(value) {
            let wait = date.timestamp().as_second() - now_unix();
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

/// The HTTP client and the limits shared by both APIs. Cheap to clone.
#[derive(Debug, Clone)]
pub struct Transport {
    inner: Arc<TransportInner>,
}

#[derive(Debug)]
struct TransportInner {
    http: reqwest::Client,
    permits: Semaphore,
    settings: TransportSettings,
    activity: Arc<Activity>,
    printer: Printer,
}

impl Transport {
    /// Builds the HTTP client (rustls with the `ring` provider; system roots).
    pub fn new(
        settings: TransportSettings,
        printer: Printer,
    ) -> Result<Transport, HttpClientError> {
        // Another part of the process may already have installed the same provider.
        let _ = rustls::crypto::ring::default_provider().install_default();
        let http = reqwest::Client::builder()
            .user_agent(concat!("converge/", env!("CARGO_PKG_VERSION")))
            .connect_timeout(Duration::from_secs(10))
            .redirect(reqwest::redirect::Policy::custom(|attempt| {
                // reqwest drops the Authorization header on a redirect to another origin, so the
                // other host would answer 401 and converge would blame the key. Such a redirect
                // is not followed: its answer is reported as the redirect it is.
                let same_origin = attempt
                    .previous()
                    .last()
                    .is_some_and(|previous| same_origin(previous, attempt.url()));
                if same_origin && attempt.previous().len() <= MAX_REDIRECTS {
                    attempt.follow()
                } else {
                    attempt.stop()
                }
            }))
            .build()
            .map_err(|error| HttpClientError(chain(&error)))?;
        Ok(Transport {
            inner: Arc::new(TransportInner {
                http,
                permits: Semaphore::new(settings.parallelism.max(1)),
                settings,
                activity: Arc::new(Activity::new(printer.clone())),
                printer,
            }),
        })
    }

    /// What the requests of this transport are waiting for (for progress displays).
    pub(crate) fn activity(&self) -> &Arc<Activity> {
        &self.inner.activity
    }

    /// The printer logs go through.
    pub(crate) fn printer(&self) -> &Printer {
        &self.inner.printer
    }
}

/// The HTTP client could not be built; the text is the chain of the client library's errors.
#[derive(Debug, thiserror::Error)]
#[error("cannot set up the HTTP client: {0}")]
pub struct HttpClientError(String);

/// How an API authenticates.
#[derive(Clone)]
pub enum Auth {
    /// HTTP Basic with a key id and key secret (the cloud API and its stack paths).
    Basic {
        /// Key id.
        key_id: String,
        /// Key secret.
        key_secret: Secret,
    },
    /// A bearer token (the observability API).
    Bearer(Secret),
}

impl std::fmt::Debug for Auth {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Auth::Basic { key_id, .. } => write!(f, "Basic({key_id}:***)"),
            Auth::Bearer(_) => f.write_str("Bearer(***)"),
        }
    }
}

impl Auth {
    fn header(&self) -> Result<HeaderValue, ApiSetupError> {
        use base64::Engine as _;
        let text = match self {
            Auth::Basic { key_id, key_secret } => {
                let pair = format!("{key_id}:{}", key_secret.0);
                format!(
                    "Basic {}",
                    base64::engine::general_purpose::STANDARD.encode(pair)
                )
            }
            Auth::Bearer(token) => format!("Bearer {}", token.0),
        };
        let mut value = HeaderValue::from_str(&text).map_err(|_| ApiSetupError::Credentials)?;
        value.set_sensitive(true);
        Ok(value)
    }
}

/// Why an API base URL cannot be used.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum UrlError {
    /// Not a URL at all.
    #[error("`{url}` is not a URL: {cause}")]
    NotUrl {
        /// The URL as given.
        url: String,
        /// What the URL parser said.
        cause: String,
    },
    /// A URL without a host (`file:///x`).
    #[error("`{url}` has no host")]
    NoHost {
        /// The URL as given.
        url: String,
    },
    /// `http://` to a host that is not a loopback address.
    #[error(
        "`{url}` uses plain http to `{host}`; credentials would travel unencrypted: use https:// (http:// is allowed only for loopback addresses such as 127.0.0.1)"
    )]
    PlainHttp {
        /// The URL as given.
        url: String,
        /// Its host.
        host: String,
    },
    /// Neither `https://` nor `http://`.
    #[error(
        "`{url}` uses `{scheme}://`; the API needs https:// (or http:// to a loopback address)"
    )]
    Scheme {
        /// The URL as given.
        url: String,
        /// Its scheme.
        scheme: String,
    },
    /// A user name or password in the URL (shown by host only: the URL holds a secret).
    #[error(
        "the URL must not carry credentials; put them in `keyId`/`keySecret` or `token` (URL host `{host}`)"
    )]
    Credentials {
        /// Its host.
        host: String,
    },
    /// A `?query` or `#fragment`.
    #[error("`{url}` must not have a query or fragment")]
    QueryOrFragment {
        /// The URL as given.
        url: String,
    },
}

/// Why an API client cannot be made from a URL and credentials.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ApiSetupError {
    /// The URL cannot be used.
    #[error(transparent)]
    Url(#[from] UrlError),
    /// The credentials cannot be sent in a header.
    #[error("the credentials contain characters that cannot be sent in an HTTP header")]
    Credentials,
}

/// Checks an API base URL: `https://`, or `http://` only for a loopback host; no credentials,
/// query or fragment in it. Returns the URL without a trailing slash.
pub(crate) fn check_base_url(url: &str) -> Result<String, UrlError> {
    let parsed = reqwest::Url::parse(url.trim()).map_err(|error| UrlError::NotUrl {
        url: url.to_string(),
        cause: error.to_string(),
    })?;
    let host = parsed.host_str().ok_or_else(|| UrlError::NoHost {
        url: url.to_string(),
    })?;
    match parsed.scheme() {
        "https" => {}
        "http" => {
            let bare = host.trim_start_matches('[').trim_end_matches(']');
            let loopback = bare.eq_ignore_ascii_case("localhost")
                || bare.parse::<IpAddr>().is_ok_and(|ip| ip.is_loopback());
            if !loopback {
                return Err(UrlError::PlainHttp {
                    url: url.to_string(),
                    host: host.to_string(),
                });
            }
        }
        other => {
            return Err(UrlError::Scheme {
                url: url.to_string(),
                scheme: other.to_string(),
            });
        }
    }
    if !parsed.username().is_empty() || parsed.password().is_some() {
        return Err(UrlError::Credentials {
            host: host.to_string(),
        });
    }
    if parsed.query().is_some() || parsed.fragment().is_some() {
        return Err(UrlError::QueryOrFragment {
            url: url.to_string(),
        });
    }
    Ok(parsed.as_str().trim_end_matches('/').to_string())
}

/// Whether two URLs share scheme, host and port: the one origin credentials may be sent to.
fn same_origin(a: &reqwest::Url, b: &reqwest::Url) -> bool {
    a.scheme() == b.scheme()
        && a.host_str() == b.host_str()
        && a.port_or_known_default() == b.port_or_known_default()
}

/// A URL as shown in messages: scheme, host, port and path (no credentials, query or fragment).
fn shown_url(url: &reqwest::Url) -> String {
    let mut shown = url.clone();
    let _ = shown.set_username("");
    let _ = shown.set_password(None);
    shown.set_query(None);
    shown.set_fragment(None);
    shown.to_string()
}

/// One API behind one key: base URL, credentials and the key's rate bucket.
#[derive(Debug, Clone)]
pub struct Api {
    transport: Transport,
    /// What messages call it, e.g. `the cloud API`.
    name: &'static str,
    base: Arc<str>,
    auth: HeaderValue,
    bucket: Arc<RateBucket>,
    /// Once `true`, writes not yet sent are not sent ([`Api::stop_writes_on`]).
    gate: Option<watch::Receiver<bool>>,
}

/// Whether a request may be sent again after a failure.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Resend {
    /// GET, PUT, PATCH, DELETE and read-only POSTs: retried on 429, 5xx and connection errors.
    Idempotent,
    /// A create: sent again only when the server certainly did not act (429, no connection).
    OnlyIfNotReceived,
}

/// One request to make.
#[derive(Debug, Clone)]
pub struct Call {
    /// What converge is doing, e.g. `list services`; it names the error.
    pub operation: String,
    /// HTTP method.
    pub method: Method,
    /// Path below the base URL, with converge's own query.
    pub path: String,
    /// JSON body.
    pub body: Option<Vec<u8>>,
    /// Retry rule.
    pub resend: Resend,
}

impl Call {
    /// A request with no body; POST is treated as a create.
    pub fn new(operation: impl Into<String>, method: Method, path: impl Into<String>) -> Self {
        let resend = if method == Method::POST {
            Resend::OnlyIfNotReceived
        } else {
            Resend::Idempotent
        };
        Call {
            operation: operation.into(),
            method,
            path: path.into(),
            body: None,
            resend,
        }
    }

    /// Adds a JSON body.
    pub(crate) fn json<B: Serialize>(mut self, body: &B) -> Result<Self, ApiError> {
        match serde_json::to_vec(body) {
            Ok(bytes) => {
                self.body = Some(bytes);
                Ok(self)
            }
            Err(error) => Err(self.error(
                FailureKind::Body(0),
                format!("cannot encode the request body: {error}"),
            )),
        }
    }

    /// Marks a POST that only reads (charts/series) as safe to retry.
    pub(crate) fn idempotent(mut self) -> Self {
        self.resend = Resend::Idempotent;
        self
    }

    /// An error about a success answer whose content is unusable.
    pub(crate) fn body_error(&self, status: u16, message: impl Into<String>) -> ApiError {
        self.error(FailureKind::Body(status), message.into())
    }

    /// An error of this call of any kind (e.g. [`FailureKind::TooMuch`] for pages that never
    /// end).
    pub(crate) fn error_of(&self, kind: FailureKind, message: impl Into<String>) -> ApiError {
        self.error(kind, message.into())
    }

    fn error(&self, kind: FailureKind, message: String) -> ApiError {
        ApiError::from(ApiErrorDetails {
            operation: self.operation.clone(),
            method: self.method.to_string(),
            path: self.path.clone(),
            kind,
            message,
            request_id: None,
            retry_after: None,
            attempts: 1,
        })
    }
}

/// A success answer.
#[derive(Debug, Clone)]
pub struct Answer {
    /// HTTP status.
    pub status: u16,
    /// The raw body.
    pub body: Vec<u8>,
}

impl Api {
    /// An API at `base_url` (checked with `check_base_url`) with its own rate bucket.
    pub fn new(
        transport: &Transport,
        base_url: &str,
        auth: &Auth,
        limit: RateLimit,
    ) -> Result<Api, ApiSetupError> {
        let base = check_base_url(base_url)?;
        // Every credential sent passes here: from now on the run's output masks it.
        let printer = transport.printer();
        match auth {
            Auth::Basic { key_id, key_secret } => {
                printer.add_basic_credentials(key_id, &key_secret.0)
            }
            Auth::Bearer(token) => printer.add_secret(&token.0),
        }
        Ok(Api {
            transport: transport.clone(),
            name: "the API",
            base: base.into(),
            auth: auth.header()?,
            bucket: Arc::new(RateBucket::new(limit)),
            gate: None,
        })
    }

    /// The same API (sharing its rate bucket) whose writes, from the moment `stop` turns
    /// `true`, are no longer sent: a write waiting for its rate limit, a concurrency permit or
    /// a retry fails with [`FailureKind::Stopped`] instead. A write already sent finishes.
    /// Reads are never stopped.
    pub fn stop_writes_on(&self, stop: watch::Receiver<bool>) -> Api {
        Api {
            gate: Some(stop),
            ..self.clone()
        }
    }

    /// The gate of `call`, when it is a write this API may stop.
    fn gate_of(&self, call: &Call) -> Option<watch::Receiver<bool>> {
        self.gate.clone().filter(|_| call.method != Method::GET)
    }

    /// The same API, called `name` in messages (`the cloud API`).
    pub(crate) fn named(mut self, name: &'static str) -> Api {
        self.name = name;
        self
    }

    /// The transport it sends through.
    pub(crate) fn transport(&self) -> &Transport {
        &self.transport
    }

    /// The base URL.
    pub(crate) fn base_url(&self) -> &str {
        &self.base
    }

    /// The key's rate bucket.
    pub fn bucket(&self) -> &RateBucket {
        &self.bucket
    }

    /// Sends a request, retrying as its [`Resend`] rule allows, and returns a success answer.
    pub(crate) async fn send(&self, call: &Call) -> Result<Answer, ApiError> {
        let settings = &self.transport.inner.settings;
        let printer = &self.transport.inner.printer;
        let attempts = AtomicU32::new(0);
        let backoff = backoff(settings);
        let retry_delays = settings.retry_delays;
        let gate = self.gate_of(call);
        // The last failed attempt the server may have acted on (a 5xx, a timeout): when a stop
        // then keeps the retry from being sent, that is the outcome, not "not sent".
        let acted: Mutex<Option<ApiError>> = Mutex::new(None);
        // Why the next sleep happens, for whoever shows progress (set by `adjust`).
        let next_wait: Arc<Mutex<Option<(WaitReason, String)>>> = Arc::default();
        let activity = self.transport.inner.activity.clone();
        // Owned: a `&'static str` captured by this closure trips rustc's higher-ranked `Send`
        // check of the tasks that await `send`.
        let name = self.name.to_string();
        let wait_to_say = next_wait.clone();
        let result = (|| async {
            attempts.fetch_add(1, Ordering::Relaxed);
            let result = self.attempt(call).await;
            if let Err(error) = &result
                && !error.is_safe_to_resend()
                && !error.is_stopped()
            {
                *lock(&acted) = Some(error.clone());
            }
            result
        })
        .retry(backoff)
        .sleep(move |delay| {
            let gate = gate.clone();
            let (reason, detail) = lock(&wait_to_say)
                .take()
                .unwrap_or((WaitReason::Retry, String::new()));
            // Made when backon asks for the sleep, right before awaiting it.
            let waiting = activity.wait(&name, Instant::now() + delay, reason, &detail);
            async move {
                let _waiting = waiting;
                tokio::select! {
                    () = tokio::time::sleep(delay) => {}
                    () = stopped(gate) => {}
                }
            }
        })
        .when(|error: &ApiError| worth_retrying(call, error))
        .adjust(|error: &ApiError, backoff| {
            let delay = next_delay(error, backoff, retry_delays);
            if let Some(delay) = delay {
                *lock(&next_wait) = Some(match error.retry_after {
                    Some(_) => (
                        WaitReason::ServerAsked,
                        format!(
                            "it answered {} to {} {}",
                            error.kind, call.method, call.path
                        ),
                    ),
                    None => (WaitReason::Retry, String::new()),
                });
                printer.debug(&format!(
                    "retrying {} {} after {} in {} ms (attempt {} of {})",
                    call.method,
                    call.path,
                    error.kind,
                    delay.as_millis(),
                    attempts.load(Ordering::Relaxed) + 1,
                    settings.max_attempts
                ));
            }
            delay
        })
        .await;
        result.map_err(|error| {
            let made = attempts.load(Ordering::Relaxed).max(1);
            final_error(error, lock(&acted).take(), made)
        })
    }

    /// One try of `call`: wait for a turn, send, read the answer. A failure status is an error
    /// carrying the server's words and the wait it asked for.
    async fn attempt(&self, call: &Call) -> Result<Answer, ApiError> {
        let printer = &self.transport.inner.printer;
        let _permit = self.turn(call).await?;
        let started = Instant::now();
        let response = self
            .request(call)
            .send()
            .await
            .map_err(|error| self.send_failed(call, &error, started))?;
        let status = response.status();
        let asked = server_delay_with_source(response.headers());
        let delay = asked.as_ref().map(|(delay, _)| *delay);
        self.pace(call, response.headers(), status, delay);
        if status.is_redirection() {
            return Err(redirected(call, &response));
        }
        let body = self.answer_body(call, response, status).await?;
        printer.info(&format!(
            "{} {} {} {}ms",
            call.method,
            call.path,
            status.as_u16(),
            started.elapsed().as_millis()
        ));
        if status.is_success() {
            return Ok(Answer {
                status: status.as_u16(),
                body,
            });
        }
        Err(self.status_error(call, status, &body, asked))
    }

    /// Waits for a permit and the key's rate limit; the permit is held while the request is
    /// out. A stop while waiting, or right before sending, means the request is not sent.
    async fn turn(&self, call: &Call) -> Result<SemaphorePermit<'_>, ApiError> {
        let inner = &self.transport.inner;
        // A request waiting for its key's rate limit holds no permit, so the other API's
        // requests are not stuck behind it.
        let mut waited = Duration::ZERO;
        let gate = self.gate_of(call);
        let not_sent = || {
            call.error(
                FailureKind::Stopped,
                "not sent: the run was interrupted".into(),
            )
        };
        let permit = loop {
            let permit = tokio::select! {
                permit = inner.permits.acquire() => permit.map_err(|_| {
                    call.error(FailureKind::Connect, "the client is shutting down".into())
                })?,
                () = stopped(gate.clone()) => return Err(not_sent()),
            };
            let now = Instant::now();
            match self.bucket.try_take_at(now) {
                Ok(()) => break permit,
                Err(free_at) => {
                    drop(permit);
                    waited += free_at.saturating_duration_since(now);
                    let limit = self.bucket.limit().describe();
                    let _waiting =
                        inner
                            .activity
                            .wait(self.name, free_at, WaitReason::RateLimit, &limit);
                    tokio::select! {
                        () = tokio::time::sleep_until(free_at) => {}
                        () = stopped(gate.clone()) => return Err(not_sent()),
                    }
                }
            }
        };
        // The last moment a stop can keep the write from going out: checked after the waits,
        // right before sending (a stop that came while the permit was being taken counts).
        if gate.as_ref().is_some_and(|gate| *gate.borrow()) {
            return Err(not_sent());
        }
        if !waited.is_zero() {
            inner.printer.debug(&format!(
                "waited {} ms for the rate limit before {} {}",
                waited.as_millis(),
                call.method,
                call.path
            ));
        }
        Ok(permit)
    }

    /// The request of `call`, with the key and its JSON body.
    fn request(&self, call: &Call) -> reqwest::RequestBuilder {
        let inner = &self.transport.inner;
        let url = format!("{}{}", self.base, call.path);
        let mut request = inner
            .http
            .request(call.method.clone(), url)
            .header(AUTHORIZATION, self.auth.clone())
            .header(ACCEPT, "application/json")
            .timeout(inner.settings.timeout);
        if let Some(body) = &call.body {
            inner.printer.debug(&format!(
                "{} {} sending {} bytes of JSON",
                call.method,
                call.path,
                body.len()
            ));
            request = request
                .header(CONTENT_TYPE, "application/json")
                .body(body.clone());
        }
        request
    }

    /// A request that got no answer: refused, unreachable, timed out.
    fn send_failed(&self, call: &Call, error: &reqwest::Error, started: Instant) -> ApiError {
        let kind = kind_of(error);
        self.transport.inner.printer.info(&format!(
            "{} {} failed after {} ms: {}",
            call.method,
            call.path,
            started.elapsed().as_millis(),
            kind
        ));
        let message = match kind {
            FailureKind::Refused => format!(
                "connection refused: nothing listens on {}",
                host_and_port(&self.base)
            ),
            _ => chain(error),
        };
        call.error(kind, message)
    }

    /// Holds the key's bucket when the server says its window is used up (another process may
    /// share the key): waiting for its reset beats earning a 429.
    fn pace(&self, call: &Call, headers: &HeaderMap, status: StatusCode, delay: Option<Duration>) {
        // A 429's wait is a retry delay (see `status_error`), which tests may turn off; this is
        // pacing. A window that resets later than converge waits is left to the 429 that will
        // say so.
        if let Some(until) = exhausted_until(headers, delay)
            .filter(|_| status != StatusCode::TOO_MANY_REQUESTS)
            .filter(|until| *until < MAX_SERVER_DELAY)
        {
            self.transport.inner.printer.debug(&format!(
                "{} {}: the server reports no requests left in its window",
                call.method, call.path
            ));
            self.bucket.hold_until(Instant::now() + until);
        }
    }

    /// The answer's body, up to the most converge reads (less for an error body).
    async fn answer_body(
        &self,
        call: &Call,
        response: reqwest::Response,
        status: StatusCode,
    ) -> Result<Vec<u8>, ApiError> {
        let limit = if status.is_success() {
            self.transport.inner.settings.max_body_bytes
        } else {
            MAX_ERROR_BODY_BYTES
        };
        match read_body(response, limit).await {
            Ok(Body::Complete(body)) => Ok(body),
            // An error body is only ever shown by its first words: the rest is not needed.
            Ok(Body::Cut(body)) if !status.is_success() => Ok(body),
            Ok(Body::Cut(_)) => Err(call.error(
                FailureKind::TooMuch(status.as_u16()),
                format!(
                    "its body is larger than {}, the most converge reads from one answer: \
                     it stopped reading there",
                    human_bytes(limit)
                ),
            )),
            Err(error) => {
                let kind = match kind_of(&error) {
                    FailureKind::Connect | FailureKind::Refused => FailureKind::Connection,
                    other => other,
                };
                Err(call.error(kind, chain(&error)))
            }
        }
    }

    /// A failure status as an error: the server's words and request id, and the wait it asked
    /// for (a 429's wait holds the key's bucket; a wait longer than converge's is said).
    fn status_error(
        &self,
        call: &Call,
        status: StatusCode,
        body: &[u8],
        asked: Option<(Duration, String)>,
    ) -> ApiError {
        let (mut message, request_id) = server_words(body);
        if let Some(id) = &request_id {
            self.transport
                .inner
                .printer
                .debug(&format!("{} {} requestId {id}", call.method, call.path));
        }
        match &asked {
            Some((delay, source)) if *delay > MAX_SERVER_DELAY => {
                if !message.is_empty() {
                    message.push_str("; ");
                }
                message.push_str(&format!(
                    "it asked to wait {} before trying again (`{source}`), longer than the {} \
                     converge waits for a server, so it was not tried again",
                    human_wait(*delay),
                    human_wait(MAX_SERVER_DELAY)
                ));
            }
            Some((delay, _))
                if status == StatusCode::TOO_MANY_REQUESTS
                    && self.transport.inner.settings.retry_delays =>
            {
                self.bucket.hold_until(Instant::now() + *delay);
            }
            _ => {}
        }
        let mut error = call.error(FailureKind::Status(status.as_u16()), message);
        error.request_id = request_id;
        error.retry_after = asked.map(|(delay, _)| delay);
        error
    }

    /// Sends and reads the cloud envelope's `result` as `T`.
    pub(crate) async fn cloud_result<T: DeserializeOwned>(
        &self,
        call: &Call,
    ) -> Result<T, ApiError> {
        let answer = self.send(call).await?;
        read_member(call, &answer, "result")
    }

    /// Sends and reads the observability wrapper's `data` as `T`.
    pub(crate) async fn observability_data<T: DeserializeOwned>(
        &self,
        call: &Call,
    ) -> Result<T, ApiError> {
        let answer = self.send(call).await?;
        read_member(call, &answer, "data")
    }
}

/// The backoff between attempts the settings ask for.
fn backoff(settings: &TransportSettings) -> ExponentialBuilder {
    ExponentialBuilder::default()
        .with_min_delay(settings.min_delay)
        .with_max_delay(settings.max_delay)
        .with_factor(2.0)
        .with_max_times(settings.max_attempts.saturating_sub(1))
        .with_jitter()
}

/// Whether a failed attempt of `call` is tried again, as its [`Resend`] rule allows.
fn worth_retrying(call: &Call, error: &ApiError) -> bool {
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
fn final_error(error: ApiError, acted: Option<ApiError>, made: u32) -> ApiError {
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

/// Reads `member` of a success body as `T`, or says what was wrong with the body: a body that
/// is not JSON at all (an HTML page, a proxy's answer: [`FailureKind::Body`]), or JSON of
/// another shape ([`FailureKind::Shape`]) with the JSON path of the first value that does not
/// fit (`result[3].name`), what was expected there and what came.
pub fn read_member<T: DeserializeOwned>(
    call: &Call,
    answer: &Answer,
    member: &str,
) -> Result<T, ApiError> {
    let fail = |kind: FailureKind, message: String, request_id: Option<String>| {
        let mut error = call.error(kind, message);
        error.request_id = request_id;
        error
    };
    let value: Value = serde_json::from_slice(&answer.body).map_err(|_| {
        let what = if answer.body.is_empty() {
            "an empty body".to_string()
        } else {
            "a body that is not JSON".to_string()
        };
        fail(
            FailureKind::Body(answer.status),
            format!("expected a JSON object with \"{member}\", got {what}"),
            None,
        )
    })?;
    let shape = FailureKind::Shape(answer.status);
    let Value::Object(mut object) = value else {
        return Err(fail(
            shape,
            format!(
                "expected a JSON object with \"{member}\", got {}",
                json_type(&value)
            ),
            None,
        ));
    };
    let request_id = object
        .get("requestId")
        .and_then(Value::as_str)
        .map(str::to_string);
    let Some(inner) = object.remove(member) else {
        return Err(fail(
            shape,
            format!("expected a JSON object with \"{member}\""),
            request_id,
        ));
    };
    serde_path_to_error::deserialize(&inner).map_err(|error| {
        let (path, problem) = shape_problem(member, &error, &inner);
        fail(
            shape,
            format!("\"{member}\" has an unexpected shape at `{path}`: {problem}"),
            request_id,
        )
    })
}

/// One step of a JSON path.
enum Step {
    Key(String),
    Index(usize),
}

/// Where a typed read failed (`result[3].name`) and why, in words that never quote a value
/// (it could be a credential): what was expected there and the JSON type that came.
fn shape_problem(
    member: &str,
    error: &serde_path_to_error::Error<serde_json::Error>,
    inner: &Value,
) -> (String, String) {
    let mut steps: Vec<Step> = error
        .path()
        .iter()
        .filter_map(|segment| match segment {
            serde_path_to_error::Segment::Seq { index } => Some(Step::Index(*index)),
            serde_path_to_error::Segment::Map { key } => Some(Step::Key(key.clone())),
            _ => None,
        })
        .collect();
    let mut message = error.inner().to_string();
    // Objects read in two steps (alerts) report their member's place inside the message.
    if let Some((nested, rest)) = message.split_once(wire::NESTED) {
        steps.extend(parse_steps(nested));
        message = rest.to_string();
    }
    let mut path = member.to_string();
    let mut at = Some(inner);
    for step in &steps {
        match step {
            Step::Key(key) => {
                path.push('.');
                path.push_str(key);
                at = at.and_then(|v| v.get(key));
            }
            Step::Index(index) => {
                path.push_str(&format!("[{index}]"));
                at = at.and_then(|v| v.get(index));
            }
        }
    }
    // serde says "invalid type: null, expected a string" or "missing field `id`".
    let message = message
        .split(" at line ")
        .next()
        .unwrap_or(&message)
        .to_string();
    let problem = match message.split_once(", expected ") {
        Some((_, expected)) => format!(
            "expected {expected}, got {}",
            at.map_or("nothing", json_type)
        ),
        None => redact_quoted(&message),
    };
    (path, problem)
}

/// `.name[2].x` → the steps it names.
fn parse_steps(text: &str) -> Vec<Step> {
    let mut steps = Vec::new();
    for part in text.split('.').filter(|p| !p.is_empty()) {
        let (key, indexes) = part.split_once('[').unwrap_or((part, ""));
        if !key.is_empty() {
            steps.push(Step::Key(key.to_string()));
        }
        for index in indexes.split('[') {
            if let Ok(index) = index.trim_end_matches(']').parse() {
                steps.push(Step::Index(index));
            }
        }
    }
    steps
}

/// The JSON type of a value, as a message names it.
fn json_type(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

/// serde quotes the offending string value in its messages; a credential field of the wrong
/// type must not be echoed, so quoted text is replaced.
fn redact_quoted(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut inside = false;
    for c in text.chars() {
        if c == '"' {
            if inside {
                out.push_str("…\"");
            } else {
                out.push('"');
            }
            inside = !inside;
        } else if !inside {
            out.push(c);
        }
    }
    out
}

fn kind_of(error: &reqwest::Error) -> FailureKind {
    if error.is_timeout() {
        FailureKind::Timeout
    } else if error.is_connect() && is_refused(error) {
        FailureKind::Refused
    } else if error.is_connect() {
        FailureKind::Connect
    } else {
        FailureKind::Connection
    }
}

/// Whether the cause of a failed connection is a refusal (nothing listens on the port).
fn is_refused(error: &reqwest::Error) -> bool {
    let mut current: Option<&dyn std::error::Error> = Some(error);
    while let Some(cause) = current {
        if let Some(io) = cause.downcast_ref::<std::io::Error>()
            && io.kind() == std::io::ErrorKind::ConnectionRefused
        {
            return true;
        }
        current = cause.source();
    }
    false
}

/// `host:port` of a base URL, for messages.
fn host_and_port(base: &str) -> String {
    match reqwest::Url::parse(base) {
        Ok(url) => match (url.host_str(), url.port_or_known_default()) {
            (Some(host), Some(port)) => format!("{host}:{port}"),
            (Some(host), None) => host.to_string(),
            _ => base.to_string(),
        },
        Err(_) => base.to_string(),
    }
}

/// The error for a redirect converge does not follow: to another origin (where the
/// credentials would not go), or one too many within its own.
fn redirected(call: &Call, response: &reqwest::Response) -> ApiError {
    let status = response.status().as_u16();
    let target = response
        .headers()
        .get(reqwest::header::LOCATION)
        .and_then(|value| value.to_str().ok())
        .and_then(|location| response.url().join(location).ok());
    let message = match target {
        Some(target) if !same_origin(response.url(), &target) => format!(
            "the server redirected to {}, another host; converge does not follow a redirect to \
             another host: the credentials would not go with it (reqwest drops them), and must \
             not",
            shown_url(&target)
        ),
        Some(target) => format!(
            "the server redirected to {} after {MAX_REDIRECTS} redirects already; converge stops \
             there",
            shown_url(&target)
        ),
        None => "the server answered a redirect with no usable `Location`".to_string(),
    };
    call.error(FailureKind::Status(status), message)
}

/// A body read up to a limit.
enum Body {
    /// All of it.
    Complete(Vec<u8>),
    /// The first `limit` bytes; there was more.
    Cut(Vec<u8>),
}

/// Reads a body chunk by chunk, never holding more than `limit` bytes.
async fn read_body(mut response: reqwest::Response, limit: usize) -> Result<Body, reqwest::Error> {
    if response
        .content_length()
        .is_some_and(|length| length > limit as u64)
    {
        return Ok(Body::Cut(Vec::new()));
    }
    let mut body = Vec::new();
    while let Some(chunk) = response.chunk().await? {
        let room = limit - body.len();
        if chunk.len() > room {
            body.extend_from_slice(&chunk[..room]);
            return Ok(Body::Cut(body));
        }
        body.extend_from_slice(&chunk);
    }
    Ok(Body::Complete(body))
}

/// `64 MiB`, `64 KiB`, `100 bytes`.
fn human_bytes(bytes: usize) -> String {
    const MIB: usize = 1024 * 1024;
    if bytes >= MIB && bytes.is_multiple_of(MIB) {
        format!("{} MiB", bytes / MIB)
    } else if bytes >= 1024 && bytes.is_multiple_of(1024) {
        format!("{} KiB", bytes / 1024)
    } else {
        format!("{bytes} bytes")
    }
}

/// `2m`, `1h`, `45s`, `3600s` waits as people read them.
fn human_wait(wait: Duration) -> String {
    let seconds = wait.as_secs_f64().ceil() as u64;
    match seconds {
        s if s >= 3600 && s.is_multiple_of(3600) => format!("{}h", s / 3600),
        s if s >= 60 && s.is_multiple_of(60) => format!("{}m", s / 60),
        s => format!("{s}s"),
    }
}

/// The error and its causes in one line, without the URL (the path is shown on its own).
fn chain(error: &reqwest::Error) -> String {
    let mut parts: Vec<String> = Vec::new();
    let mut current: Option<&dyn std::error::Error> = Some(error);
    while let Some(e) = current {
        let text = e.to_string();
        let text = match text.find(" for url (") {
            Some(index) => text[..index].to_string(),
            None => text,
        };
        // reqwest and hyper wrap the cause in words that say nothing to a user.
        let generic = text.starts_with("error sending request") || text.starts_with("client error");
        if !generic && !parts.iter().any(|part| part.contains(&text)) {
            parts.push(text);
        }
        current = e.source();
    }
    if parts.is_empty() {
        return "the request failed".to_string();
    }
    parts.join(": ")
}

#[cfg(test)]
mod tests {
    use super::*;

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
    /// offered one after another every `spacing` from `start`.
    fn send_times(
        bucket: &RateBucket,
        start: Instant,
        count: u32,
        spacing: Duration,
    ) -> Vec<Instant> {
        (0..count)
            .map(|i| {
                let mut at = start + spacing * i;
                loop {
                    match bucket.try_take_at(at) {
                        Ok(()) => return at,
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
    fn bucket_lets_a_full_window_go_then_paces_one_per_slot() {
        let bucket = RateBucket::new(RateLimit::CLOUD);
        let start = Instant::now();
        let immediate = (0..25).filter(|_| bucket.try_acquire_at(start)).count();
        assert_eq!(immediate, 10);
        // The 11th send waits for the first to leave the window (plus the safety margin).
        let next = bucket.try_take_at(start).unwrap_err();
        assert!(next >= start + Duration::from_secs(10));
        assert!(next <= start + Duration::from_millis(10_100));
        // A refusal takes nothing: the slot is free at that time.
        assert!(bucket.try_acquire_at(next));
    }

    #[test]
    fn bucket_never_allows_more_than_the_limit_in_any_window() {
        let limit = RateLimit {
            requests: 3,
            window: Duration::from_secs(1),
        };
        let bucket = RateBucket::new(limit);
        let start = Instant::now();
        let sends = send_times(&bucket, start, 12, Duration::from_millis(50));
        for (i, send) in sends.iter().enumerate() {
            let in_window = sends[i..]
                .iter()
                .filter(|later| **later < *send + limit.window)
                .count();
            assert!(
                in_window <= 3,
                "send {i} has {in_window} sends in its window"
            );
        }
        // Paced at the limit, not slower: 12 sends of 3 per second end after 3 windows.
        let last = sends[11].duration_since(start);
        assert!(last < Duration::from_millis(3_200), "{last:?}");
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
    fn retry_delay_switch() {
        assert!(retry_delays_enabled(None));
        assert!(retry_delays_enabled(Some("0")));
        assert!(!retry_delays_enabled(Some("1")));
    }

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

    #[test]
    fn base_urls() {
        assert_eq!(
            check_base_url("https://api.example.com/").as_deref(),
            Ok("https://api.example.com")
        );
        assert!(check_base_url("http://127.0.0.1:8080").is_ok());
        assert!(check_base_url("http://localhost:8080").is_ok());
        assert!(check_base_url("http://[::1]:8080").is_ok());
        let refused = check_base_url("http://api.example.com").unwrap_err();
        assert!(refused.to_string().contains("loopback"), "{refused}");
        assert!(check_base_url("http://10.0.0.1").is_err());
        assert!(check_base_url("https://user:pw@api.example.com").is_err());
        assert!(check_base_url("ftp://api.example.com").is_err());
        assert!(check_base_url("not a url").is_err());
    }

    #[test]
    fn basic_and_bearer_headers_are_sensitive() {
        let basic = Auth::Basic {
            key_id: "sandbox-key".into(),
            key_secret: Secret("sandbox-secret".into()),
        };
        let header = basic.header().unwrap();
        assert_eq!(
            header.to_str().unwrap(),
            "Basic c2FuZGJveC1rZXk6c2FuZGJveC1zZWNyZXQ="
        );
        assert!(header.is_sensitive());
        assert!(!format!("{basic:?}").contains("sandbox-secret"));
        let bearer = Auth::Bearer(Secret("tok".into()));
        assert_eq!(bearer.header().unwrap().to_str().unwrap(), "Bearer tok");
    }

    fn answer(body: &str) -> Answer {
        Answer {
            status: 200,
            body: body.as_bytes().to_vec(),
        }
    }

    #[test]
    fn a_shape_error_names_the_json_path_and_both_types() {
        let call = Call::new("list stack alerts", Method::GET, "/v1/x/stack/alerts");
        let error = read_member::<Vec<wire::Alert>>(
            &call,
            &answer(r#"{"status":200,"requestId":"r","result":[{"id":"a"},{"id":"b","name":["hunter2"]}]}"#),
            "result",
        )
        .unwrap_err();
        assert_eq!(error.kind, FailureKind::Shape(200));
        assert!(
            error
                .message
                .ends_with("at `result[1].name`: expected a string, got an array"),
            "{}",
            error.message
        );
        assert!(!error.to_string().contains("hunter2"));
        assert!(error.hint().unwrap_or_default().contains("another version"));
        let error = read_member::<Vec<wire::Service>>(
            &call,
            &answer(r#"{"result":{"not":"a list"}}"#),
            "result",
        )
        .unwrap_err();
        assert!(
            error
                .message
                .ends_with("at `result`: expected a sequence, got an object"),
            "{}",
            error.message
        );
        let error =
            read_member::<Vec<wire::Service>>(&call, &answer("<html>"), "result").unwrap_err();
        assert_eq!(error.kind, FailureKind::Body(200));
        assert!(
            error
                .hint()
                .unwrap_or_default()
                .contains("proxy or login page")
        );
    }

    #[test]
    fn quoted_values_are_redacted_from_shape_errors() {
        assert_eq!(
            redact_quoted(r#"invalid type: string "hunter2", expected u16"#),
            "invalid type: string \"…\", expected u16"
        );
    }
}
