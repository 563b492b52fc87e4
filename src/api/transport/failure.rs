//! A request that got no answer: what kind of failure it was (refused, timed out, cut off) and
//! the client library's chain of causes in one line.

use crate::api::error::FailureKind;

/// What kind of failure a client library error is.
pub(crate) fn kind_of(error: &reqwest::Error) -> FailureKind {
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

/// The error and its causes in one line, without the URL (the path is shown on its own).
pub(crate) fn chain(error: &reqwest::Error) -> String {
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
