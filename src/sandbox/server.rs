//! The HTTP side: an accept loop over hyper (so a fault can drop a connection with no answer),
//! auth, rate limits, faults, body limits, envelopes, the request log and persistence.

use std::convert::Infallible;
use std::future::Future;
use std::net::SocketAddr;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, OnceLock};
use std::time::{Duration, Instant};

use axum::body::Body;
use base64::Engine;
use hyper::body::Incoming;
use hyper::header::{AUTHORIZATION, CONTENT_LENGTH, CONTENT_TYPE, HeaderValue};
use hyper::{Request, Response, StatusCode};
use hyper_util::rt::TokioIo;
use jiff::Timestamp;
use serde_json::{Value, json};
use tokio::net::TcpListener;
use tokio::sync::Notify;

use super::error::{Result, SandboxError};
use crate::api::limits::{
    CLOUD_RATE_REQUESTS, CLOUD_RATE_WINDOW_SECS, OBSERVABILITY_RATE_REQUESTS,
    OBSERVABILITY_RATE_WINDOW_SECS,
};

use super::faults::{Fault, FaultSpec, SplitMix64};
use super::model::{Generation, LOG_BODY_BUDGET, LogEntry, SandboxOptions};
use super::rate::RateLimiter;
use super::routes::{self, Api, ApiError, Call, Ctx, Matched, Reply};
use super::store::{StateLock, World};
use super::{kinds, seed};

/// Largest request body accepted; larger ones answer 413.
pub(crate) const MAX_BODY_BYTES: usize = 2 * 1024 * 1024;

/// A callback told about each logged request.
type Observer = Box<dyn Fn(&LogEntry) + Send + Sync>;

/// State shared by every connection.
pub(crate) struct Shared {
    options: SandboxOptions,
    world: Mutex<World>,
    log: Mutex<RequestLog>,
    limiter: Mutex<RateLimiter>,
    rng: Mutex<SplitMix64>,
    /// The faults drawn from, which tests may change while it serves ([`FaultSwitch`]).
    faults: Arc<Mutex<FaultSpec>>,
    /// Told about every logged request (`sandbox serve -v` prints them).
    observer: OnceLock<Observer>,
    /// Held while the state file is served, so no other process serves it meanwhile.
    _state_lock: Option<StateLock>,
    /// Whether the rate limits are enforced now: `options.rate_limit` at the start, changed
    /// while it serves by [`Shared::set_rate_limit`].
    rate_limited: AtomicBool,
}

/// The request log and the bytes of bodies it holds.
#[derive(Default)]
struct RequestLog {
    entries: Vec<LogEntry>,
    body_bytes: usize,
}

/// What the log records of a request before its answer is known.
struct Logged {
    method: String,
    /// The route template, or the raw path when no route matched.
    route: String,
    path: String,
    query: Option<String>,
    /// The series count of a charts/series body.
    series: Option<usize>,
    /// The body as received, when bodies are logged and it was read.
    body: Option<String>,
    /// When the request arrived, before its rate limit was counted.
    arrived: Instant,
}

/// Locks a mutex; a panic elsewhere while it was held does not stop the sandbox.
fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}

impl Shared {
    pub(crate) fn log_snapshot(&self) -> Vec<LogEntry> {
        lock(&self.log).entries.clone()
    }

    /// Turns the rate limits on or off from the next request on; a window starts afresh.
    pub(crate) fn set_rate_limit(&self, on: bool) {
        *lock(&self.limiter) = RateLimiter::default();
        self.rate_limited.store(on, Ordering::SeqCst);
    }

    pub(crate) fn reset_log(&self) {
        let mut log = lock(&self.log);
        log.entries.clear();
        log.body_bytes = 0;
    }

    /// Records a request that got no answer the client could read (a dropped connection, a
    /// lost response): its status is what the server decided, its response body is not kept.
    fn record_unanswered(&self, request: Logged, status: u16, fault: Option<Fault>) {
        self.push_entry(request, status, fault, None);
    }

    /// Records a request with the response it gets, and hands the response back. With
    /// `log_bodies` the response body is read (it is in memory) and kept beside the request's.
    async fn answered(
        &self,
        request: Logged,
        fault: Option<Fault>,
        response: Response<Body>,
    ) -> Response<Body> {
        let status = response.status().as_u16();
        if !self.options.log_bodies {
            self.push_entry(request, status, fault, None);
            return response;
        }
        let (parts, body) = response.into_parts();
        let bytes = axum::body::to_bytes(body, usize::MAX)
            .await
            .unwrap_or_default();
        let content_type = parts
            .headers
            .get(CONTENT_TYPE)
            .and_then(|v| v.to_str().ok())
            .unwrap_or("")
            .to_string();
        let text = String::from_utf8_lossy(&bytes).into_owned();
        self.push_entry(request, status, fault, Some((content_type, text)));
        Response::from_parts(parts, Body::from(bytes))
    }

    fn push_entry(
        &self,
        request: Logged,
        status: u16,
        fault: Option<Fault>,
        response: Option<(String, String)>,
    ) {
        let mut entry = LogEntry {
            method: request.method,
            route: request.route,
            status,
            fault: fault.map(|f| f.name().to_string()),
            series: request.series,
            path: request.path,
            query: request.query,
            request_body: None,
            response_body: None,
            response_type: None,
            bodies_left_out: false,
            took: request.arrived.elapsed(),
            arrived: Some(request.arrived),
        };
        let mut log = lock(&self.log);
        if self.options.log_bodies {
            let size = request.body.as_ref().map_or(0, String::len)
                + response.as_ref().map_or(0, |(_, body)| body.len());
            if log.body_bytes.saturating_add(size) <= LOG_BODY_BUDGET {
                log.body_bytes += size;
                entry.request_body = request.body;
                if let Some((content_type, body)) = response {
                    entry.response_type = Some(content_type);
                    entry.response_body = Some(body);
                }
            } else {
                entry.bodies_left_out = true;
            }
        }
        if let Some(observer) = self.observer.get() {
            observer(&entry);
        }
        log.entries.push(entry);
    }

    fn now(&self) -> Timestamp {
        self.options.clock.unwrap_or_else(Timestamp::now)
    }

    /// The credential a request authenticates as, or `None` (401).
    fn authenticate(&self, api: Api, header: Option<&str>) -> Option<String> {
        let header = header?;
        match api {
            Api::Cloud => {
                let encoded = header.strip_prefix("Basic ")?;
                let decoded = base64::engine::general_purpose::STANDARD
                    .decode(encoded.trim())
                    .ok()?;
                let decoded = String::from_utf8(decoded).ok()?;
                let (id, secret) = decoded.split_once(':')?;
                self.options
                    .keys
                    .iter()
                    .any(|k| k.id == id && k.secret.0 == secret)
                    .then(|| format!("key:{id}"))
            }
            Api::Observability => {
                let token = header.strip_prefix("Bearer ")?.trim();
                let index = self.options.tokens.iter().position(|t| t.0 == token)?;
                Some(format!("token:{index}"))
            }
        }
    }

    fn admit(&self, api: Api, credential: &str) -> std::result::Result<(), u64> {
        if !self.rate_limited.load(Ordering::SeqCst) {
            return Ok(());
        }
        let (limit, window) = match api {
            Api::Cloud => (CLOUD_RATE_REQUESTS, CLOUD_RATE_WINDOW_SECS),
            Api::Observability => (OBSERVABILITY_RATE_REQUESTS, OBSERVABILITY_RATE_WINDOW_SECS),
        };
        let window = Duration::from_secs(window) / self.options.rate_window_divisor.max(1);
        lock(&self.limiter).admit(credential, limit, window, Instant::now())
    }

    /// One draw per API request, so a seed and a request sequence fix every decision.
    fn draw_fault(&self, method: &str) -> Option<Fault> {
        let faults = lock(&self.faults);
        if faults.is_empty() {
            return None;
        }
        let draw = lock(&self.rng).next_f64();
        faults.pick_for(draw, Some(method))
    }

    /// A handle that changes the faults while the sandbox serves.
    pub(crate) fn fault_switch(&self) -> FaultSwitch {
        FaultSwitch(self.faults.clone())
    }

    /// Calls `observer` with every request as it is logged (at most one observer).
    pub(crate) fn observe(&self, observer: impl Fn(&LogEntry) + Send + Sync + 'static) {
        let _ = self.observer.set(Box::new(observer));
    }

    /// Runs an operation against the world and saves it after a successful write.
    fn execute(&self, matched: &Matched, query: Option<&str>, body: Option<&Value>) -> Reply {
        let mut world = lock(&self.world);
        let wall_ms = Timestamp::now().as_millisecond();
        world.settle(wall_ms);
        let mut ctx = Ctx {
            world: &mut world,
            wall_ms,
            now: self.now(),
            delay_ms: i64::try_from(self.options.scaling_delay.as_millis()).unwrap_or(i64::MAX),
            quirks: &self.options.quirks,
            generation: self.options.effective_generation(),
        };
        let call = Call {
            api: matched.api,
            service: matched.service.as_deref().unwrap_or(""),
            id: matched.id.as_deref(),
            query,
            body: body.unwrap_or(&Value::Null),
        };
        let reply = matched.route.run(&mut ctx, &call);
        if matched.route.writes
            && matches!(reply, Reply::Ok(_) | Reply::Paged(..) | Reply::Deleted)
            && let Some(path) = &self.options.state_file
            && let Err(error) = world.save(path)
        {
            return Reply::Err(ApiError::new(
                500,
                "INTERNAL_SERVER_ERROR",
                format!("the sandbox could not save its state: {error}"),
            ));
        }
        reply
    }
}

/// Changes the faults of a running sandbox (tests that need a fault from a given moment on,
/// e.g. reads that fail right after a create whose answer was lost).
#[derive(Debug, Clone)]
pub struct FaultSwitch(Arc<Mutex<FaultSpec>>);

impl FaultSwitch {
    /// From the next request on, faults are drawn from `faults`.
    pub fn set(&self, faults: FaultSpec) {
        *lock(&self.0) = faults;
    }
}

/// A bound, not yet running sandbox server.
pub(crate) struct Server {
    listener: TcpListener,
    shared: Arc<Shared>,
}

impl std::fmt::Debug for Server {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Server")
            .field("addr", &self.listener.local_addr().ok())
            .finish()
    }
}

impl Server {
    /// Loads (or seeds) the world and binds `127.0.0.1:<port>`. A state file another process
    /// serves is refused: both would overwrite each other's writes.
    pub(crate) async fn bind(options: SandboxOptions) -> Result<Server> {
        let lock = match &options.state_file {
            Some(path) => Some(
                StateLock::try_take(path)?
                    .ok_or_else(|| SandboxError::ServedStateInUse { path: path.clone() })?,
            ),
            None => None,
        };
        Self::bind_locked(options, lock).await
    }

    /// [`Server::bind`] with the state file's lock already taken.
    pub(crate) async fn bind_locked(
        options: SandboxOptions,
        lock: Option<StateLock>,
    ) -> Result<Server> {
        let now = options.clock.unwrap_or_else(Timestamp::now);
        let world = match &options.state_file {
            Some(path) => match World::load(path)? {
                Some(world) => world,
                None => {
                    let world = seed::world(options.seed, now);
                    world.save(path)?;
                    world
                }
            },
            None => seed::world(options.seed, now),
        };
        let listener = TcpListener::bind(("127.0.0.1", options.port))
            .await
            .map_err(|cause| SandboxError::Listen {
                port: options.port,
                cause,
            })?;
        let rng = SplitMix64::new(options.fault_seed);
        let faults = Arc::new(Mutex::new(options.faults.clone()));
        let rate_limited = AtomicBool::new(options.rate_limit);
        Ok(Server {
            listener,
            shared: Arc::new(Shared {
                options,
                world: Mutex::new(world),
                log: Mutex::new(RequestLog::default()),
                limiter: Mutex::new(RateLimiter::default()),
                rng: Mutex::new(rng),
                faults,
                observer: OnceLock::new(),
                _state_lock: lock,
                rate_limited,
            }),
        })
    }

    /// The address it listens on.
    pub(crate) fn local_addr(&self) -> SocketAddr {
        self.listener
            .local_addr()
            .unwrap_or_else(|_| SocketAddr::from(([127, 0, 0, 1], 0)))
    }

    pub(crate) fn shared(&self) -> Arc<Shared> {
        self.shared.clone()
    }

    /// Calls `observer` with every request as it is logged (at most one observer).
    pub(crate) fn observe(&self, observer: impl Fn(&LogEntry) + Send + Sync + 'static) {
        self.shared.observe(observer);
    }

    /// Serves until `shutdown` completes.
    pub(crate) async fn run(self, shutdown: impl Future<Output = ()>) {
        let Server { listener, shared } = self;
        tokio::pin!(shutdown);
        loop {
            let accepted = tokio::select! {
                accepted = listener.accept() => accepted,
                () = &mut shutdown => break,
            };
            let Ok((stream, _)) = accepted else {
                // Out of file descriptors and the like: wait a little instead of spinning.
                tokio::time::sleep(Duration::from_millis(10)).await;
                continue;
            };
            let _ = stream.set_nodelay(true);
            let shared = shared.clone();
            tokio::spawn(async move {
                let kill = Arc::new(Notify::new());
                let service = {
                    let kill = kill.clone();
                    hyper::service::service_fn(move |request| {
                        handle(shared.clone(), kill.clone(), request)
                    })
                };
                let connection = hyper::server::conn::http1::Builder::new()
                    .serve_connection(TokioIo::new(stream), service);
                // Dropping the connection closes the socket without an answer: how `reset`
                // and `lost` faults reach the client.
                tokio::select! {
                    _ = connection => {}
                    () = kill.notified() => {}
                }
            });
        }
    }
}

fn response(status: u16, content_type: &'static str, body: Vec<u8>) -> Response<Body> {
    let mut response = Response::new(Body::from(body));
    *response.status_mut() = StatusCode::from_u16(status).unwrap_or(StatusCode::OK);
    response
        .headers_mut()
        .insert(CONTENT_TYPE, HeaderValue::from_static(content_type));
    response
}

fn json_response(status: u16, value: &Value) -> Response<Body> {
    response(
        status,
        "application/json; charset=utf-8",
        serde_json::to_vec(value).unwrap_or_default(),
    )
}

fn text_response(status: u16, text: &str) -> Response<Body> {
    response(
        status,
        "text/plain; charset=utf-8",
        text.as_bytes().to_vec(),
    )
}

/// The gateway's answer for a path it does not serve.
fn cannot(method: &str, path: &str) -> Response<Body> {
    let escaped = path
        .replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;");
    let html = format!(
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>Error</title>\n</head>\n<body>\n<pre>Cannot {method} {escaped}</pre>\n</body>\n</html>\n"
    );
    response(404, "text/html; charset=utf-8", html.into_bytes())
}

/// Renders an error in the API's own shape (the charts route, `chart`, has its own).
fn error_response(api: Api, chart: bool, error: &ApiError, request_id: &str) -> Response<Body> {
    match api {
        Api::Cloud => json_response(
            error.status,
            &json!({"status": error.status, "error": error.cloud_text(), "requestId": request_id}),
        ),
        Api::Observability if chart => {
            json_response(error.status, &json!({"error": error.observability_text()}))
        }
        Api::Observability => json_response(
            error.status,
            &json!({"message": error.observability_text()}),
        ),
    }
}

fn too_many(api: Api, reset_secs: u64) -> Response<Body> {
    let mut response = match api {
        Api::Cloud => json_response(429, &json!({"error": "TOO_MANY_REQUESTS"})),
        Api::Observability => text_response(429, "Too many requests, please try again later."),
    };
    if let Ok(value) = HeaderValue::from_str(&reset_secs.to_string()) {
        response.headers_mut().insert("x-ratelimit-reset", value);
    }
    response
}

fn render(api: Api, chart: bool, reply: Reply, request_id: &str) -> Response<Body> {
    match (api, reply) {
        (Api::Cloud, Reply::Ok(result)) => json_response(
            200,
            &json!({"status": 200, "requestId": request_id, "result": result}),
        ),
        (Api::Cloud, Reply::Deleted) => {
            json_response(200, &json!({"status": 200, "requestId": request_id}))
        }
        (Api::Observability, Reply::Ok(data)) => json_response(200, &json!({"data": data})),
        (Api::Observability, Reply::Deleted) => json_response(200, &json!({})),
        (api, Reply::Err(error)) => error_response(api, chart, &error, request_id),
        (_, Reply::Text(status, text)) => text_response(status, text),
        (Api::Cloud, Reply::Paged(result, _)) => json_response(
            200,
            &json!({"status": 200, "requestId": request_id, "result": result}),
        ),
        (Api::Observability, Reply::Paged(data, meta)) => {
            json_response(200, &json!({"data": data, "meta": meta}))
        }
        (Api::Cloud, Reply::Bare(result)) => json_response(
            200,
            &json!({"status": 200, "requestId": request_id, "result": result}),
        ),
        (Api::Observability, Reply::Bare(body)) => json_response(200, &body),
    }
}

fn control(shared: &Shared, method: &str, path: &str) -> Response<Body> {
    match (method, path) {
        ("GET", "requests") => json_response(
            200,
            &serde_json::to_value(shared.log_snapshot()).unwrap_or(Value::Null),
        ),
        ("POST", "reset") => {
            shared.reset_log();
            json_response(200, &json!({}))
        }
        _ => cannot(method, &format!("/_sandbox/{path}")),
    }
}

/// Checks that path ids of the cloud API are UUIDs and the organization is the sandbox's.
fn check_path(shared: &Shared, matched: &Matched) -> std::result::Result<(), ApiError> {
    let mut params = vec![("organizationId", matched.org.as_deref())];
    params.push(("serviceId", matched.service.as_deref()));
    if let Some(name) = matched.route.uuid_id {
        params.push((name, matched.id.as_deref()));
    }
    for (name, value) in params {
        if let Some(value) = value
            && uuid::Uuid::parse_str(value).is_err()
        {
            return Err(ApiError::new(
                400,
                "BAD_REQUEST",
                format!("request params.{name}: must be a valid UUID"),
            ));
        }
    }
    if matched.org.as_deref() != Some(shared.options.organization.as_str()) {
        return Err(ApiError::not_found(format!(
            "Organization {} not found",
            matched.org.as_deref().unwrap_or("")
        )));
    }
    Ok(())
}

/// A request body as read: parsed, and as text when bodies are logged.
struct ReadBody {
    value: Option<Value>,
    text: Option<String>,
}

/// Reads and parses a JSON body; `Err` is the answer to give instead, with the text read.
async fn read_body(
    request: Request<Incoming>,
    keep_text: bool,
) -> std::result::Result<ReadBody, (ApiError, Option<String>)> {
    let too_large = || {
        ApiError::new(
            413,
            "PAYLOAD_TOO_LARGE",
            format!("request body is larger than {MAX_BODY_BYTES} bytes"),
        )
    };
    let declared = request
        .headers()
        .get(CONTENT_LENGTH)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.parse::<usize>().ok());
    if declared.is_some_and(|n| n > MAX_BODY_BYTES) {
        return Err((too_large(), None));
    }
    let bytes = axum::body::to_bytes(Body::new(request.into_body()), MAX_BODY_BYTES)
        .await
        .map_err(|_| (too_large(), None))?;
    let text = keep_text.then(|| String::from_utf8_lossy(&bytes).into_owned());
    if bytes.iter().all(u8::is_ascii_whitespace) {
        return Ok(ReadBody { value: None, text });
    }
    match serde_json::from_slice(&bytes) {
        Ok(value) => Ok(ReadBody {
            value: Some(value),
            text,
        }),
        Err(error) => Err((
            ApiError {
                status: 400,
                code: "BAD_REQUEST",
                field: Some("request body".into()),
                message: format!("invalid JSON: {error}"),
            },
            text,
        )),
    }
}

async fn handle(
    shared: Arc<Shared>,
    kill: Arc<Notify>,
    request: Request<Incoming>,
) -> std::result::Result<Response<Body>, Infallible> {
    let method = request.method().as_str().to_string();
    let path = request.uri().path().to_string();
    let query = request.uri().query().map(str::to_string);
    if let Some(rest) = path.strip_prefix("/_sandbox/") {
        return Ok(control(&shared, &method, rest));
    }
    let mut logged = Logged {
        method: method.clone(),
        route: path.clone(),
        path: path.clone(),
        query: query.clone(),
        series: None,
        body: None,
        arrived: Instant::now(),
    };
    let current = shared.options.effective_generation() == Generation::Current;
    let Some(matched) = routes::match_route(kinds::routes(), &method, &path).filter(|m| {
        m.route
            .absent_with
            .is_none_or(|quirk| !shared.options.quirks.contains(&quirk))
            && (current || !m.route.current_only)
    }) else {
        return Ok(shared.answered(logged, None, cannot(&method, &path)).await);
    };
    logged.route = matched.template.to_string();
    let request_id = uuid::Uuid::new_v4().to_string();
    let header = request
        .headers()
        .get(AUTHORIZATION)
        .and_then(|v| v.to_str().ok());
    if let Some(refusal) = refusal(&shared, matched.api, header, &request_id) {
        return Ok(shared.answered(logged, None, refusal).await);
    }
    if !shared.options.latency.is_zero() {
        tokio::time::sleep(shared.options.latency).await;
    }
    let fault = shared.draw_fault(&method);
    if let Some(response) = injected(matched.api, fault, &request_id) {
        return Ok(shared.answered(logged, fault, response).await);
    }
    if fault == Some(Fault::Reset) {
        shared.record_unanswered(logged, 0, fault);
        kill.notify_one();
        return Ok(std::future::pending().await);
    }
    let reply = reply(
        &shared,
        &matched,
        &method,
        query.as_deref(),
        request,
        &mut logged,
    )
    .await;
    let response = render(matched.api, matched.route.chart, reply, &request_id);
    if fault == Some(Fault::Lost) {
        // The work is done; the answer never leaves.
        shared.record_unanswered(logged, response.status().as_u16(), fault);
        kill.notify_one();
        return Ok(std::future::pending().await);
    }
    if fault == Some(Fault::GatewayTimeout) {
        // The work is done; the gateway gave up waiting for it.
        return Ok(shared.answered(logged, fault, gateway_timeout()).await);
    }
    Ok(shared.answered(logged, None, response).await)
}

/// The answer to a request without valid credentials, or over the rate limit; `None` lets it
/// through.
fn refusal(
    shared: &Shared,
    api: Api,
    header: Option<&str>,
    request_id: &str,
) -> Option<Response<Body>> {
    let Some(credential) = shared.authenticate(api, header) else {
        return Some(match api {
            Api::Cloud => error_response(
                Api::Cloud,
                false,
                &ApiError::new(401, "UNAUTHORIZED", "Key is not found"),
                request_id,
            ),
            Api::Observability => text_response(401, "Unauthorized"),
        });
    };
    shared
        .admit(api, &credential)
        .err()
        .map(|reset| too_many(api, reset))
}

/// The answer a drawn fault gives instead of doing the work (a 429, a 500, a 503); `None` for
/// no fault and the faults that do the work first or drop the connection.
fn injected(api: Api, fault: Option<Fault>, request_id: &str) -> Option<Response<Body>> {
    match fault {
        Some(Fault::TooManyRequests) => Some(too_many(api, 1)),
        Some(Fault::Internal | Fault::Unavailable) => {
            let (status, code, text) = if fault == Some(Fault::Internal) {
                (500, "INTERNAL_SERVER_ERROR", "Internal Server Error")
            } else {
                (503, "SERVICE_UNAVAILABLE", "Service Unavailable")
            };
            Some(match api {
                Api::Cloud => error_response(
                    Api::Cloud,
                    false,
                    &ApiError::new(status, code, "injected by the sandbox"),
                    request_id,
                ),
                Api::Observability => text_response(status, text),
            })
        }
        Some(Fault::Reset | Fault::Lost | Fault::GatewayTimeout) | None => None,
    }
}

/// Does the work of a request: checks the path's ids, reads the body of a write (kept in the
/// log entry when asked) and runs the operation.
async fn reply(
    shared: &Shared,
    matched: &Matched,
    method: &str,
    query: Option<&str>,
    request: Request<Incoming>,
    logged: &mut Logged,
) -> Reply {
    if matched.api == Api::Cloud
        && let Err(error) = check_path(shared, matched)
    {
        Reply::Err(error)
    } else if matches!(method, "POST" | "PUT" | "PATCH") {
        match read_body(request, shared.options.log_bodies).await {
            Ok(body) => {
                logged.body = body.text;
                if matched.route.chart {
                    logged.series = body
                        .value
                        .as_ref()
                        .and_then(|b| b.get("series"))
                        .and_then(Value::as_array)
                        .map(Vec::len);
                }
                shared.execute(matched, query, body.value.as_ref())
            }
            Err((error, text)) => {
                logged.body = text;
                Reply::Err(error)
            }
        }
    } else {
        shared.execute(matched, query, None)
    }
}

/// A gateway's 504 page.
fn gateway_timeout() -> Response<Body> {
    response(
        504,
        "text/html; charset=utf-8",
        b"<html><head><title>504 Gateway Time-out</title></head><body><center><h1>504 \
          Gateway Time-out</h1></center></body></html>"
            .to_vec(),
    )
}
