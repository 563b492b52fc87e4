//! Reading an answer's body: up to a limit, chunk by chunk, and decoding a success body's JSON
//! into typed values, with messages that name the JSON path and never quote a value.

use std::marker::PhantomData;

use reqwest::StatusCode;
use serde::de::{DeserializeOwned, DeserializeSeed, MapAccess, Visitor};
use serde_json::Value;

use super::call::{Answer, Call, Resend};
use super::failure::{chain, kind_of};
use crate::api::error::{ApiError, FailureKind, server_words};
use crate::api::wire;

/// The largest success body converge reads from one answer (the large seed's biggest list is a
/// few MiB); a server sending more is cut off with an error rather than filling memory.
pub(crate) const MAX_BODY_BYTES: usize = 64 * 1024 * 1024;

/// How much of an error body is kept: only its first words are ever shown.
const MAX_ERROR_BODY_BYTES: usize = 64 * 1024;

/// The body of `response`, up to `max_body_bytes` for a success (less for an error body, of
/// which only the first words are ever shown).
pub(crate) async fn answer_body(
    call: &Call,
    response: reqwest::Response,
    status: StatusCode,
    max_body_bytes: usize,
) -> Result<Vec<u8>, ApiError> {
    let limit = if status.is_success() {
        max_body_bytes
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

/// A body read up to a limit.
enum Body {
    /// All of it.
    Complete(Vec<u8>),
    /// The first `limit` bytes; there was more.
    Cut(Vec<u8>),
}

/// Reads a body chunk by chunk, never holding more than `limit` bytes: into one buffer of the
/// size the server announces (a list of a few MiB grown by doubling would copy itself a dozen
/// times and keep up to half its buffer unused).
async fn read_body(mut response: reqwest::Response, limit: usize) -> Result<Body, reqwest::Error> {
    let announced = response.content_length();
    if announced.is_some_and(|length| length > limit as u64) {
        return Ok(Body::Cut(Vec::new()));
    }
    // The announcement is a hint: a body that ends early or runs on is still read as sent.
    let mut body = Vec::with_capacity(announced.map_or(0, |length| length as usize));
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

/// `member` of a JSON object body read straight into `T` (the other members as JSON, checked as
/// the tree would check them; the last of a repeated member wins, as in the tree); `None` when
/// the body is not such an object or `member` does not read as `T`.
fn read_straight<T: DeserializeOwned>(body: &[u8], member: &str) -> Option<T> {
    let mut reader = serde_json::Deserializer::from_slice(body);
    let read = MemberOf::<T> {
        member,
        read: PhantomData,
    }
    .deserialize(&mut reader)
    .ok()?;
    reader.end().ok()?;
    read
}

/// Reads one member of a JSON object as `T`.
struct MemberOf<'m, T> {
    member: &'m str,
    read: PhantomData<T>,
}

impl<'de, T: DeserializeOwned> DeserializeSeed<'de> for MemberOf<'_, T> {
    type Value = Option<T>;

    fn deserialize<D: serde::Deserializer<'de>>(self, reader: D) -> Result<Option<T>, D::Error> {
        reader.deserialize_map(self)
    }
}

impl<'de, T: DeserializeOwned> Visitor<'de> for MemberOf<'_, T> {
    type Value = Option<T>;

    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "a JSON object with \"{}\"", self.member)
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Option<T>, A::Error> {
        let mut read = None;
        while let Some(key) = map.next_key::<String>()? {
            if key == self.member {
                read = Some(map.next_value::<T>()?);
            } else {
                map.next_value::<Value>()?;
            }
        }
        Ok(read)
    }
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
        failure(call, kind, message, request_id)
    };
    let creates = call.resend == Resend::OnlyIfNotReceived;
    // A list of thousands of objects read as a JSON tree first takes ten times its size; read
    // straight into `T` instead, and only a body that does not read so goes the way below, which
    // says what is wrong with it. A create's answer is small and checked for its id there.
    if !creates && let Some(read) = read_straight(&answer.body, member) {
        return Ok(read);
    }
    let value = json_body(call, answer, member)?;
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
        if let Some(words) = error_words(&object) {
            return Err(fail(
                FailureKind::ErrorBody(answer.status),
                words,
                request_id,
            ));
        }
        if creates {
            return Err(fail(
                FailureKind::Lacking(answer.status),
                format!("no \"{member}\""),
                request_id,
            ));
        }
        return Err(fail(
            shape,
            format!("expected a JSON object with \"{member}\""),
            request_id,
        ));
    };
    // A create's answer is the object made; without its id nothing can be tied to it (and an
    // empty object would read as one whose name is empty).
    if creates
        && inner
            .get("id")
            .and_then(Value::as_str)
            .is_none_or(|id| id.trim().is_empty())
    {
        return Err(fail(
            FailureKind::Lacking(answer.status),
            format!("\"{member}\" has no id"),
            request_id,
        ));
    }
    serde_path_to_error::deserialize(&inner).map_err(|error| {
        let (path, problem) = shape_problem(member, &error, &inner);
        fail(
            shape,
            format!("\"{member}\" has an unexpected shape at `{path}`: {problem}"),
            request_id,
        )
    })
}

/// `answer`'s body as JSON, or the failure of a body that is not JSON (empty, an HTML page, a
/// number out of range) to read `member` from.
fn json_body(call: &Call, answer: &Answer, member: &str) -> Result<Value, ApiError> {
    serde_json::from_slice(&answer.body).map_err(|error| {
        if let Some(path) = out_of_range(&answer.body, &error) {
            return failure(
                call,
                FailureKind::OutOfRange(answer.status),
                format!("a number out of range at `{path}`"),
                None,
            );
        }
        let what = if answer.body.is_empty() {
            "an empty body".to_string()
        } else {
            "a body that is not JSON".to_string()
        };
        failure(
            call,
            FailureKind::Body(answer.status),
            format!("expected a JSON object with \"{member}\", got {what}"),
            None,
        )
    })
}

/// The error of `call` of `kind`, with the request id the answer gave.
fn failure(
    call: &Call,
    kind: FailureKind,
    message: String,
    request_id: Option<String>,
) -> ApiError {
    let mut error = call.error(kind, message);
    error.request_id = request_id;
    error
}

/// Where in `body` the number out of range that stopped `error` is (`result[0].numReplicas`),
/// when that is what stopped it: the rest of the body is JSON.
fn out_of_range(body: &[u8], error: &serde_json::Error) -> Option<String> {
    if !error.is_syntax() || !error.to_string().starts_with("number out of range") {
        return None;
    }
    let mut deserializer = serde_json::Deserializer::from_slice(body);
    let located = serde_path_to_error::deserialize::<_, Value>(&mut deserializer).err()?;
    let path = located.path().to_string();
    Some(if path == "." {
        "the top".to_string()
    } else {
        path
    })
}

/// The server's own words when a success body is its error object instead: the cloud API's
/// `{"status": 403, "error": "CODE: message"}` or the observability API's `{"message": ...}`.
fn error_words(object: &serde_json::Map<String, Value>) -> Option<String> {
    let status = object.get("status").and_then(Value::as_u64);
    let said = |key: &str| {
        object
            .get(key)
            .and_then(Value::as_str)
            .map(str::trim)
            .filter(|words| !words.is_empty())
    };
    let words = said("error").or_else(|| said("message"));
    match (status, words) {
        (_, Some(words)) => {
            let (shown, _) = server_words(words.as_bytes());
            Some(match status {
                Some(status) if status >= 400 => format!("status {status}, {shown}"),
                _ => shown,
            })
        }
        (Some(status), None) if status >= 400 => Some(format!("status {status}")),
        _ => None,
    }
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

/// Reads a whole answer body as `T`: for the few answers the observability API sends without
/// its `{data}` wrapper (dashboard validation).
pub fn read_whole<T: DeserializeOwned>(call: &Call, answer: &Answer) -> Result<T, ApiError> {
    let value: Value = serde_json::from_slice(&answer.body).map_err(|_| {
        let what = if answer.body.is_empty() {
            "an empty body"
        } else {
            "a body that is not JSON"
        };
        call.error(
            FailureKind::Body(answer.status),
            format!("expected a JSON object, got {what}"),
        )
    })?;
    serde_path_to_error::deserialize(&value).map_err(|error| {
        call.error(
            FailureKind::Shape(answer.status),
            format!(
                "the answer has an unexpected shape at `{}`: {}",
                error.path(),
                error.inner()
            ),
        )
    })
}

#[cfg(test)]
mod tests {
    use reqwest::Method;

    use super::*;

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
