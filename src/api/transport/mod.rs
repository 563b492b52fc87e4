//! One HTTP client shared by both APIs, and one request's way through it: a turn under the
//! key's rate limit and the concurrency bound, the attempt, its retries and its log lines.
//! Each concern it relies on has its own file beside this one: `rate_limit.rs` (the key's pace),
//! `retry.rs` (the retry policy and the waits a server asks for), `auth.rs`, `url.rs` (base URLs
//! and redirects), `body.rs` (reading and decoding answers), `failure.rs` (requests that got no
//! answer), `call.rs` (the request and its answer) and `settings.rs`.
//!
//! Each API (the cloud API, which also serves the managed stacks, and the standalone
//! observability API) is an [`Api`]: a base URL, an `Authorization` header and a [`RateBucket`].
//! They share one [`Transport`], so `--parallelism` bounds the requests in flight overall.
//! What a request has to say goes to the [`Reporter`] the transport is built with.

mod auth;
mod body;
mod call;
mod failure;
mod rate_limit;
mod retry;
mod settings;
mod url;

use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use backon::Retryable;
use reqwest::header::{ACCEPT, AUTHORIZATION, CONTENT_TYPE, HeaderMap, HeaderValue};
use reqwest::{Method, StatusCode};
use serde::de::DeserializeOwned;
use tokio::sync::{Semaphore, SemaphorePermit, watch};
use tokio::time::Instant;

pub use self::auth::{ApiSetupError, Auth};
use self::body::answer_body;
pub use self::call::{Answer, Call, Resend};
use self::failure::{chain, kind_of};
pub(crate) use self::rate_limit::RateLimitError;
pub use self::rate_limit::{RateBucket, RateLimit};
// The fuzz target `api_responses` (fuzz/) feeds answers and headers to these three.
pub use self::body::{read_member, read_whole};
pub use self::rate_limit::exhausted_until;
pub use self::retry::server_delay;
use self::retry::{
    MAX_SERVER_DELAY, backoff, final_error, human_wait, next_delay, server_delay_with_source,
    worth_retrying,
};
pub use self::settings::TransportSettings;
pub use self::url::UrlError;
use self::url::{check_base_url, host_and_port, redirect_policy, redirected};
use super::activity::{Activity, WaitReason};
use super::error::{ApiError, FailureKind, server_words};
use super::report::{Credential, Reporter};

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
    reporter: Arc<dyn Reporter>,
}

impl Transport {
    /// Builds the HTTP client (rustls with the `ring` provider; system roots); what requests
    /// have to say goes to `reporter`.
    pub fn new(
        settings: TransportSettings,
        reporter: impl Reporter + 'static,
    ) -> Result<Transport, HttpClientError> {
        let reporter: Arc<dyn Reporter> = Arc::new(reporter);
        // Another part of the process may already have installed the same provider.
        let _ = rustls::crypto::ring::default_provider().install_default();
        let http = reqwest::Client::builder()
            .user_agent(concat!("converge/", env!("CARGO_PKG_VERSION")))
            .connect_timeout(Duration::from_secs(10))
            .redirect(redirect_policy())
            .build()
            .map_err(|error| HttpClientError(chain(&error)))?;
        Ok(Transport {
            inner: Arc::new(TransportInner {
                http,
                permits: Semaphore::new(settings.parallelism.max(1)),
                settings,
                activity: Arc::new(Activity::new(reporter.clone())),
                reporter,
            }),
        })
    }

    /// What the requests of this transport are waiting for (for progress displays).
    pub(crate) fn activity(&self) -> &Arc<Activity> {
        &self.inner.activity
    }

    /// Where what requests have to say goes.
    fn reporter(&self) -> &dyn Reporter {
        self.inner.reporter.as_ref()
    }
}

/// The HTTP client could not be built; the text is the chain of the client library's errors.
#[derive(Debug, thiserror::Error)]
#[error("cannot set up the HTTP client: {0}")]
pub struct HttpClientError(String);

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
    /// A SHA-256 of the key secret or token it authenticates with, so that a value about to
    /// be sent can be told to be it ([`Api::authenticates_with`]) without keeping it twice.
    secret: [u8; 32],
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
        transport.reporter().on_credential(match auth {
            Auth::Basic { key_id, key_secret } => Credential::Basic {
                key_id,
                key_secret: &key_secret.0,
            },
            Auth::Bearer(token) => Credential::Bearer(&token.0),
        });
        let secret = match auth {
            Auth::Basic { key_secret, .. } => &key_secret.0,
            Auth::Bearer(token) => &token.0,
        };
        Ok(Api {
            secret: secret_digest(secret),
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

    /// Whether `value` is the key secret or token this API authenticates with: a pipe is
    /// never sent converge's own secret as its credential, whatever variable it was read from.
    pub(crate) fn authenticates_with(&self, value: &str) -> bool {
        secret_digest(value) == self.secret
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

    /// Returns once the key's rate limit has a slot free (at once when it has), saying the wait
    /// as a send waiting for its slot does: a write whose check must be as young as possible
    /// checks only when its slot is free (`apply::fresh`).
    pub(crate) async fn slot_free(&self) {
        if let Some(free_at) = self.bucket.free_at(Instant::now()) {
            let limit = self.bucket.limit().describe();
            let _waiting = self.transport.inner.activity.wait(
                self.name,
                free_at,
                WaitReason::RateLimit,
                &limit,
            );
            tokio::time::sleep_until(free_at).await;
        }
    }

    /// Sends a request, retrying as its [`Resend`] rule allows, and returns a success answer.
    pub(crate) async fn send(&self, call: &Call) -> Result<Answer, ApiError> {
        let settings = &self.transport.inner.settings;
        let reporter = self.transport.reporter();
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
                reporter.on_detail(&format!(
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
        let (_permit, slot) = self.turn(call).await?;
        let started = Instant::now();
        let response = self.request(call).send().await;
        // Answered or not, the request may have reached the server by now.
        self.bucket.answered_at(slot, Instant::now());
        let response = response.map_err(|error| self.send_failed(call, &error, started))?;
        let status = response.status();
        let asked = server_delay_with_source(response.headers());
        let delay = asked.as_ref().map(|(delay, _)| *delay);
        self.pace(call, response.headers(), status, delay);
        if status.is_redirection() {
            return Err(redirected(call, &response));
        }
        let max_body_bytes = self.transport.inner.settings.max_body_bytes;
        let body = answer_body(call, response, status, max_body_bytes).await?;
        self.transport.reporter().on_request(&format!(
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
    async fn turn(&self, call: &Call) -> Result<(SemaphorePermit<'_>, Instant), ApiError> {
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
                Ok(slot) => break (permit, slot),
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
            inner.reporter.on_detail(&format!(
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
            inner.reporter.on_detail(&format!(
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
        self.transport.reporter().on_request(&format!(
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
            self.transport.reporter().on_detail(&format!(
                "{} {}: the server reports no requests left in its window",
                call.method, call.path
            ));
            self.bucket.hold_until(Instant::now() + until);
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
                .reporter()
                .on_detail(&format!("{} {} requestId {id}", call.method, call.path));
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

    /// Sends and reads the whole answer as `T` (an answer without the `data` wrapper).
    pub(crate) async fn observability_whole<T: DeserializeOwned>(
        &self,
        call: &Call,
    ) -> Result<T, ApiError> {
        let answer = self.send(call).await?;
        read_whole(call, &answer)
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

/// The SHA-256 of a secret, as [`Api`] keeps it.
fn secret_digest(secret: &str) -> [u8; 32] {
    let digest = ring::digest::digest(&ring::digest::SHA256, secret.as_bytes());
    // SHA-256 is 32 bytes long.
    digest.as_ref().try_into().unwrap_or([0; 32])
}
