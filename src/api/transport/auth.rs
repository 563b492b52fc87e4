//! How an API authenticates: its credentials, the `Authorization` header they are sent in, and
//! why a client cannot be set up from a URL and credentials.

use reqwest::header::HeaderValue;

use super::url::UrlError;
use crate::api::wire::Secret;

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
    pub(crate) fn header(&self) -> Result<HeaderValue, ApiSetupError> {
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

#[cfg(test)]
mod tests {
    use super::*;

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
}
