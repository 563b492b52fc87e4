//! Where requests may go: the check of an API's base URL, the redirect policy (same origin, a
//! few hops) and the error for a redirect converge does not follow.

use std::net::IpAddr;

use super::call::Call;
use crate::api::error::{ApiError, FailureKind};

/// Redirects followed within one origin before giving up (a loop).
const MAX_REDIRECTS: usize = 5;

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

/// The redirects the client follows: within one origin, up to [`MAX_REDIRECTS`].
pub(crate) fn redirect_policy() -> reqwest::redirect::Policy {
    reqwest::redirect::Policy::custom(|attempt| {
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
    })
}

/// `host:port` of a base URL, for messages.
pub(crate) fn host_and_port(base: &str) -> String {
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
pub(crate) fn redirected(call: &Call, response: &reqwest::Response) -> ApiError {
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

#[cfg(test)]
mod tests {
    use super::*;

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
}
