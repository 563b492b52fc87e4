//! What a failed API call looks like to the rest of converge: the operation, the request (method
//! and path, never headers or secrets), the status, the server's own words and its request id.

use std::fmt;
use std::time::Duration;

use serde_json::Value;

use crate::diagnostic::Code;

/// Longest piece of server text kept in an error (HTML pages and stack traces are cut).
const MAX_SERVER_WORDS: usize = 200;

/// Why a request failed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FailureKind {
    /// The server answered with a non-success status.
    Status(u16),
    /// No connection could be made; the request was never sent.
    Connect,
    /// The connection was refused: nothing listens at the address. Not retried: a port nobody
    /// listens on does not start listening within a retry's backoff.
    Refused,
    /// The request timed out after it may have been sent.
    Timeout,
    /// The connection broke after the request may have been sent (no complete answer).
    Connection,
    /// The server answered success with a body that is not JSON (or is empty).
    Body(u16),
    /// The server sent more than converge reads (a body over its size limit, pages that never
    /// end); it stopped reading.
    TooMuch(u16),
    /// The server answered success with JSON of another shape than the operation reads.
    Shape(u16),
    /// The server answered success with JSON holding a number no float holds (`1e400`).
    OutOfRange(u16),
    /// The server answered success with its own error object (`{"status": 403, "error":
    /// "CODE: message"}`, `{"message": ...}`) in place of the result.
    ErrorBody(u16),
    /// The server answered a create with success but without the object it made.
    Lacking(u16),
    /// Not sent: the run was interrupted while the write waited to go out.
    Stopped,
}

impl FailureKind {
    /// Whether the server answered success with a body converge could not use.
    fn is_unreadable_success(&self) -> bool {
        match self {
            FailureKind::Body(status) => *status != 0,
            FailureKind::TooMuch(_)
            | FailureKind::Shape(_)
            | FailureKind::OutOfRange(_)
            | FailureKind::ErrorBody(_)
            | FailureKind::Lacking(_) => true,
            FailureKind::Status(_)
            | FailureKind::Connect
            | FailureKind::Refused
            | FailureKind::Timeout
            | FailureKind::Connection
            | FailureKind::Stopped => false,
        }
    }
}

/// A failed API call. Boxed: errors are rare, and a small `Result` keeps every call cheap.
#[derive(Debug, Clone, thiserror::Error)]
#[error("{}", self.describe())]
pub struct ApiError(Box<ApiErrorDetails>);

impl std::ops::Deref for ApiError {
    type Target = ApiErrorDetails;
    fn deref(&self) -> &ApiErrorDetails {
        &self.0
    }
}

impl std::ops::DerefMut for ApiError {
    fn deref_mut(&mut self) -> &mut ApiErrorDetails {
        &mut self.0
    }
}

impl From<ApiErrorDetails> for ApiError {
    fn from(details: ApiErrorDetails) -> Self {
        ApiError(Box::new(details))
    }
}

/// What an [`ApiError`] knows.
#[derive(Debug, Clone)]
pub struct ApiErrorDetails {
    /// What converge was doing, e.g. `list services`, `update pipe scaling`.
    pub operation: String,
    /// HTTP method.
    pub method: String,
    /// Request path with ids and converge's own query (never a secret).
    pub path: String,
    /// What went wrong.
    pub kind: FailureKind,
    /// What the server said (or, for a transport failure, what the client saw), shortened.
    pub message: String,
    /// The server's request id, when it sent one.
    pub request_id: Option<String>,
    /// How long the server asked us to wait (`Retry-After`, `X-RateLimit-Reset`).
    pub retry_after: Option<Duration>,
    /// How many attempts were made.
    pub attempts: u32,
}

impl ApiError {
    /// The HTTP status, when the server answered.
    pub(crate) fn status(&self) -> Option<u16> {
        match self.kind {
            FailureKind::Status(status)
            | FailureKind::Body(status)
            | FailureKind::TooMuch(status)
            | FailureKind::Shape(status)
            | FailureKind::OutOfRange(status)
            | FailureKind::ErrorBody(status)
            | FailureKind::Lacking(status) => Some(status),
            _ => None,
        }
    }

    /// Whether the write may have happened even though no success came back (timeout, 5xx, a
    /// connection lost after sending). `apply` re-reads before trying such a write again.
    pub fn is_ambiguous(&self) -> bool {
        match self.kind {
            FailureKind::Status(status) => status >= 500,
            FailureKind::Timeout | FailureKind::Connection => true,
            FailureKind::Connect
            | FailureKind::Refused
            | FailureKind::Body(_)
            | FailureKind::TooMuch(_)
            | FailureKind::Shape(_)
            | FailureKind::OutOfRange(_)
            | FailureKind::ErrorBody(_)
            | FailureKind::Lacking(_)
            | FailureKind::Stopped => false,
        }
    }

    /// Whether an idempotent request may be sent again: 429, 5xx and connection failures.
    pub fn is_retryable(&self) -> bool {
        match self.kind {
            FailureKind::Status(status) => status == 429 || status >= 500,
            FailureKind::Connect | FailureKind::Timeout | FailureKind::Connection => true,
            FailureKind::Refused
            | FailureKind::Body(_)
            | FailureKind::TooMuch(_)
            | FailureKind::Shape(_)
            | FailureKind::OutOfRange(_)
            | FailureKind::ErrorBody(_)
            | FailureKind::Lacking(_)
            | FailureKind::Stopped => false,
        }
    }

    /// Whether a request that must not be repeated blindly (POST) may still be sent again: only
    /// when the server certainly did not act on it (429, or no connection at all).
    pub(crate) fn is_safe_to_resend(&self) -> bool {
        matches!(
            self.kind,
            FailureKind::Status(429) | FailureKind::Connect | FailureKind::Refused
        )
    }

    /// Whether the request was not sent because the run was interrupted.
    pub fn is_stopped(&self) -> bool {
        matches!(self.kind, FailureKind::Stopped)
    }

    /// Whether the server refused the credentials.
    pub fn is_unauthorized(&self) -> bool {
        matches!(self.kind, FailureKind::Status(401 | 403))
    }

    /// Whether the server said the object does not exist.
    pub fn is_not_found(&self) -> bool {
        matches!(self.kind, FailureKind::Status(404))
    }

    fn describe(&self) -> String {
        let mut text = format!("{} failed: {} {}", self.operation, self.method, self.path);
        match &self.kind {
            FailureKind::Status(status) => {
                text.push_str(&format!(" answered {status}"));
                let reason = reason_phrase(*status);
                if let Some(reason) = reason {
                    text.push_str(&format!(" {reason}"));
                }
                // A body that only repeats the reason (`Unauthorized`) adds nothing.
                let repeats = reason.is_some_and(|r| r.eq_ignore_ascii_case(&self.message));
                if !self.message.is_empty() && !repeats {
                    text.push_str(&format!(": {}", self.message));
                }
            }
            FailureKind::Body(status) => {
                text.push_str(&format!(
                    " answered {status} with an unreadable body: {}",
                    self.message
                ));
            }
            FailureKind::TooMuch(status) => {
                text.push_str(&format!(" answered {status}, but {}", self.message));
            }
            FailureKind::Shape(status) => {
                text.push_str(&format!(
                    " answered {status} with JSON converge cannot read: {}",
                    self.message
                ));
            }
            FailureKind::OutOfRange(status) => {
                text.push_str(&format!(
                    " answered {status} with JSON holding {}",
                    self.message
                ));
            }
            FailureKind::ErrorBody(status) => {
                text.push_str(&format!(
                    " answered {status} with the server's error in place of a result: {}",
                    self.message
                ));
            }
            FailureKind::Lacking(status) => {
                text.push_str(&format!(
                    " answered {status}, but the server's answer lacked the object: {}",
                    self.message
                ));
            }
            FailureKind::Connect | FailureKind::Refused => {
                text.push_str(&format!(": cannot connect: {}", self.message));
            }
            FailureKind::Timeout => {
                text.push_str(&format!(": timed out: {}", self.message));
            }
            FailureKind::Connection => {
                text.push_str(&format!(": connection lost: {}", self.message));
            }
            FailureKind::Stopped => {
                text.push_str(&format!(": {}", self.message));
            }
        }
        // A write answered success, whatever its body, may well have been carried out.
        if !self.is_read() && self.kind.is_unreadable_success() {
            text.push_str("; it may have been applied; run `converge plan` to see");
        }
        let mut notes = Vec::new();
        if let Some(id) = &self.request_id {
            notes.push(format!("requestId {id}"));
        }
        if self.attempts > 1 {
            notes.push(format!("{} attempts", self.attempts));
        }
        if !notes.is_empty() {
            text.push_str(&format!(" ({})", notes.join(", ")));
        }
        text
    }

    /// Whether the request only reads: a GET, or the chart series query (a POST that computes).
    fn is_read(&self) -> bool {
        self.method.eq_ignore_ascii_case("GET") || self.path.ends_with("/charts/series")
    }

    /// The stable code of the failure, by its kind: what a user does about it differs.
    pub(crate) fn code(&self) -> Code {
        match self.kind {
            FailureKind::Status(401 | 403) => Code::ApiUnauthorized,
            FailureKind::Status(429) => Code::ApiRateLimited,
            FailureKind::Status(status) if status >= 500 => Code::ApiServerError,
            FailureKind::Status(_) => Code::ApiHttpStatus,
            FailureKind::Connect | FailureKind::Refused => Code::ApiUnreachable,
            FailureKind::Timeout | FailureKind::Connection => Code::ApiInterrupted,
            FailureKind::Body(_)
            | FailureKind::Shape(_)
            | FailureKind::OutOfRange(_)
            | FailureKind::ErrorBody(_)
            | FailureKind::Lacking(_) => Code::ApiBadAnswer,
            FailureKind::TooMuch(_) => Code::ApiTooMuch,
            FailureKind::Stopped => Code::ApiStopped,
        }
    }

    /// What a user can do about it, for a `hint:` line.
    pub(crate) fn hint(&self) -> Option<&'static str> {
        match self.kind {
            FailureKind::Status(401 | 403) => {
                Some("check the key id and secret (or the token) the config's `${env:...}` names")
            }
            FailureKind::Status(429) => Some("the API's rate limit was hit; wait and run again"),
            FailureKind::Status(status) if status >= 500 => {
                Some("the service failed; run again later, and re-plan before applying")
            }
            FailureKind::Connect => Some("check the API url and your network"),
            FailureKind::Refused => Some(
                "check that the API url names the right host and port, and that the server there \
                 is running",
            ),
            FailureKind::TooMuch(_) => Some(
                "the server sends far more than the API would: check that the url points at the \
                 API itself, and that it honours `limit` and `offset`",
            ),
            // A read cannot have changed anything: only writes get the "may have happened" warning.
            FailureKind::Timeout | FailureKind::Connection if self.is_read() => {
                Some("check the API url and your network, then run again")
            }
            FailureKind::Timeout | FailureKind::Connection => {
                Some("a write may have happened anyway: run `converge plan` to see the state")
            }
            FailureKind::Body(_) => Some(
                "the answer is not JSON: check that the url points at the API itself (not a proxy or login page)",
            ),
            FailureKind::Shape(_) => Some(
                "the server speaks another version of the API than converge (which follows the API contract); check the url, and report the answer if it is right",
            ),
            _ => None,
        }
    }
}

/// A failed call that ends a command is shown as any other error, with its hint as the `help:`
/// line.
impl miette::Diagnostic for ApiError {
    fn code<'a>(&'a self) -> Option<Box<dyn fmt::Display + 'a>> {
        Some(Box::new(ApiError::code(self)))
    }

    fn help<'a>(&'a self) -> Option<Box<dyn fmt::Display + 'a>> {
        self.hint()
            .map(|hint| Box::new(hint) as Box<dyn fmt::Display + 'a>)
    }
}

fn reason_phrase(status: u16) -> Option<&'static str> {
    Some(match status {
        400 => "Bad Request",
        401 => "Unauthorized",
        403 => "Forbidden",
        404 => "Not Found",
        409 => "Conflict",
        424 => "Failed Dependency",
        429 => "Too Many Requests",
        500 => "Internal Server Error",
        502 => "Bad Gateway",
        503 => "Service Unavailable",
        504 => "Gateway Timeout",
        _ => return None,
    })
}

/// The server's words and request id, read from any error body shape the two APIs use:
/// cloud `{status, error: "CODE: msg", requestId}`, observability `{message}` or `{error}`,
/// plain text (`Unauthorized`) and HTML pages (gateway 404 and 504).
pub fn server_words(body: &[u8]) -> (String, Option<String>) {
    let text = String::from_utf8_lossy(body);
    let trimmed = text.trim();
    if trimmed.is_empty() {
        return (String::new(), None);
    }
    if let Ok(value) = serde_json::from_str::<Value>(trimmed) {
        return json_words(&value);
    }
    if looks_like_html(trimmed) {
        return (shorten(&html_text(trimmed)), None);
    }
    (shorten(trimmed), None)
}

fn json_words(value: &Value) -> (String, Option<String>) {
    let Value::Object(object) = value else {
        return (shorten(&value.to_string()), None);
    };
    let request_id = object
        .get("requestId")
        .or_else(|| object.get("request_id"))
        .and_then(Value::as_str)
        .map(str::to_string);
    let words = ["error", "message", "detail", "title"]
        .iter()
        .filter_map(|key| object.get(*key))
        .find_map(|value| match value {
            Value::String(s) if !s.trim().is_empty() => Some(s.trim().to_string()),
            Value::Object(inner) => inner
                .get("message")
                .and_then(Value::as_str)
                .map(str::to_string)
                .or_else(|| Some(value.to_string())),
            Value::Null => None,
            Value::String(_) => None,
            other => Some(other.to_string()),
        })
        .unwrap_or_else(|| {
            if object.is_empty() {
                String::new()
            } else {
                value.to_string()
            }
        });
    (shorten(&words), request_id)
}

fn looks_like_html(text: &str) -> bool {
    let start: String = text
        .chars()
        .take(100)
        .collect::<String>()
        .to_ascii_lowercase();
    start.starts_with("<!doctype") || start.starts_with("<html") || start.contains("<body")
}

/// The readable text of an HTML page: its `<title>` and its body text, tags dropped.
fn html_text(html: &str) -> String {
    let lower = html.to_ascii_lowercase();
    let title = lower.find("<title>").and_then(|start| {
        let from = start + "<title>".len();
        lower[from..]
            .find("</title>")
            .map(|end| html[from..from + end].trim().to_string())
    });
    let body_start = lower.find("<body").unwrap_or(0);
    let mut body = String::new();
    let mut in_tag = false;
    let mut skip_until: Option<&str> = None;
    let bytes_lower = &lower[body_start..];
    for (i, c) in html[body_start..].char_indices() {
        if let Some(end) = skip_until {
            if bytes_lower[i..].starts_with(end) {
                skip_until = None;
            }
            continue;
        }
        match c {
            '<' => {
                if bytes_lower[i..].starts_with("<script") {
                    skip_until = Some("</script");
                } else if bytes_lower[i..].starts_with("<style") {
                    skip_until = Some("</style");
                }
                in_tag = true;
                body.push(' ');
            }
            '>' => in_tag = false,
            c if !in_tag => body.push(c),
            _ => {}
        }
    }
    let body = collapse(&body);
    match title {
        Some(title) if !title.is_empty() && !body.starts_with(&title) => {
            collapse(&format!("{title}: {body}"))
        }
        _ => body,
    }
}

fn collapse(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

fn shorten(text: &str) -> String {
    let text = collapse(text);
    if text.chars().count() <= MAX_SERVER_WORDS {
        return text;
    }
    let cut: String = text.chars().take(MAX_SERVER_WORDS).collect();
    format!("{cut}…")
}

impl fmt::Display for FailureKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            FailureKind::Status(status) => write!(f, "{status}"),
            FailureKind::Connect => f.write_str("connect error"),
            FailureKind::Refused => f.write_str("connection refused"),
            FailureKind::TooMuch(status) => write!(f, "{status} too much data"),
            FailureKind::Timeout => f.write_str("timeout"),
            FailureKind::Connection => f.write_str("connection lost"),
            FailureKind::Body(status) => write!(f, "{status} unreadable body"),
            FailureKind::Shape(status) => write!(f, "{status} body of another shape"),
            FailureKind::OutOfRange(status) => write!(f, "{status} number out of range"),
            FailureKind::ErrorBody(status) => write!(f, "{status} error body"),
            FailureKind::Lacking(status) => write!(f, "{status} without the object"),
            FailureKind::Stopped => f.write_str("not sent (interrupted)"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cloud_error_body_gives_code_message_and_request_id() {
        let (words, id) = server_words(
            br#"{"status":400,"error":"BAD_REQUEST: request body.numReplicas: must be <= 20","requestId":"5b0c"}"#,
        );
        assert_eq!(
            words,
            "BAD_REQUEST: request body.numReplicas: must be <= 20"
        );
        assert_eq!(id.as_deref(), Some("5b0c"));
    }

    #[test]
    fn observability_bodies_give_message_or_error() {
        assert_eq!(
            server_words(br#"{"message":"name is required"}"#).0,
            "name is required"
        );
        assert_eq!(server_words(br#"{"error":"bad series"}"#).0, "bad series");
        assert_eq!(server_words(b"Unauthorized\n").0, "Unauthorized");
        assert_eq!(server_words(b"").0, "");
        assert_eq!(server_words(b"{}").0, "");
    }

    #[test]
    fn html_pages_are_reduced_to_short_text() {
        let page = b"<!DOCTYPE html><html><head><title>504 Gateway Time-out</title><style>h1{}</style></head>\
            <body><center><h1>504 Gateway Time-out</h1></center><hr><center>nginx</center></body></html>";
        let (words, _) = server_words(page);
        assert_eq!(words, "504 Gateway Time-out nginx");
        let express = b"<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>Error</title></head>\
            <body><pre>Cannot GET /v1/nowhere</pre></body></html>";
        assert_eq!(server_words(express).0, "Error: Cannot GET /v1/nowhere");
    }

    #[test]
    fn long_text_is_cut() {
        let long = "x".repeat(1000);
        let (words, _) = server_words(long.as_bytes());
        assert!(words.chars().count() <= MAX_SERVER_WORDS + 1);
        assert!(words.ends_with('…'));
    }

    #[test]
    fn ambiguity_and_retry_rules() {
        let error = |kind| {
            ApiError::from(ApiErrorDetails {
                operation: "create alert".into(),
                method: "POST".into(),
                path: "/api/v2/alerts".into(),
                kind,
                message: String::new(),
                request_id: None,
                retry_after: None,
                attempts: 1,
            })
        };
        assert!(error(FailureKind::Status(504)).is_ambiguous());
        assert!(error(FailureKind::Timeout).is_ambiguous());
        assert!(error(FailureKind::Connection).is_ambiguous());
        assert!(!error(FailureKind::Connect).is_ambiguous());
        assert!(!error(FailureKind::Status(400)).is_ambiguous());
        assert!(error(FailureKind::Status(429)).is_safe_to_resend());
        assert!(!error(FailureKind::Status(500)).is_safe_to_resend());
        assert!(!error(FailureKind::Status(404)).is_retryable());
        assert!(
            error(FailureKind::Connection)
                .hint()
                .is_some_and(|h| h.contains("a write may have happened"))
        );
        let mut read = error(FailureKind::Timeout);
        read.method = "GET".into();
        assert!(read.hint().is_some_and(|h| !h.contains("write")));
        let shown = error(FailureKind::Status(401)).to_string();
        assert_eq!(
            shown,
            "create alert failed: POST /api/v2/alerts answered 401 Unauthorized"
        );
    }

    #[test]
    fn a_dropped_read_does_not_suggest_a_write_happened() {
        let error = |method: &str, path: &str| {
            ApiError::from(ApiErrorDetails {
                operation: "op".into(),
                method: method.into(),
                path: path.into(),
                kind: FailureKind::Connection,
                message: String::new(),
                request_id: None,
                retry_after: None,
                attempts: 5,
            })
        };
        for read in [
            error("GET", "/api/v2/dashboards"),
            error("POST", "/api/v2/charts/series"),
        ] {
            let hint = read.hint().unwrap_or_default();
            assert!(!hint.contains("write"), "{hint}");
            assert!(hint.contains("run again"), "{hint}");
        }
        let write = error("POST", "/api/v2/alerts").hint().unwrap_or_default();
        assert!(write.contains("a write may have happened"), "{write}");
    }
}
