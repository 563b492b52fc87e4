//! One request to make (operation, method, path, body and its retry rule), the errors that name
//! it, and its success answer.

use reqwest::Method;
use serde::Serialize;

use crate::api::error::{ApiError, ApiErrorDetails, FailureKind};

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

    /// An error of this call, for the transport's own files.
    pub(super) fn error(&self, kind: FailureKind, message: String) -> ApiError {
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
