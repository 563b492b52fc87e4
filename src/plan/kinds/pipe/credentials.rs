//! Pipe credentials as a plan holds them: never the secret, only where it goes, the reference
//! it is read from when sent, and (for a rotation) a salted fingerprint of the value the plan
//! was made with; and the service tag that records the version last sent.

use serde::{Deserialize, Serialize};

/// A credential of a rotation: where it goes, the reference it is read from when sent, and a
/// salted fingerprint of the value the plan was made with, so that a saved plan applies only
/// the secret its reviewer approved, without holding it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SealedCredential {
    /// Dot-separated path under the kind.
    pub path: String,
    /// The `${env:NAME}` reference as written.
    pub reference: String,
    /// HMAC-SHA-256 of the value keyed by the plan's salt, in hex ([`fingerprint_of`]).
    pub fingerprint: String,
}

/// The field a rotation shows in its change: the version recorded before and the one sent.
pub(crate) const CREDENTIALS_VERSION: &str = "credentialsVersion";

/// The service tag that records the `credentialsVersion` last sent to pipe `pipe_id`. A pipe
/// stores nothing free-form, so the one place the API keeps a converge fact about it between
/// runs, without a secret, is a tag of its service.
pub(crate) fn version_tag(pipe_id: &str) -> String {
    format!("converge.credentials-version.{pipe_id}")
}

/// The version tag of pipe `pipe_id` when the service carries one.
pub(crate) fn recorded_tag(service: &crate::api::wire::Service, pipe_id: &str) -> Option<String> {
    let key = version_tag(pipe_id);
    service.tags.iter().any(|tag| tag.key == key).then_some(key)
}

/// A fresh random salt for one plan's fingerprints: the same secret fingerprints differently in
/// every plan, so a fingerprint cannot be matched across plans or against a precomputed list.
pub(crate) fn new_salt() -> String {
    uuid::Uuid::new_v4().simple().to_string()
}

/// The salted fingerprint of a credential value: HMAC-SHA-256 keyed by the salt, in hex.
pub(crate) fn fingerprint_of(salt: &str, value: &str) -> String {
    let key = ring::hmac::Key::new(ring::hmac::HMAC_SHA256, salt.as_bytes());
    ring::hmac::sign(&key, value.as_bytes())
        .as_ref()
        .iter()
        .map(|byte| format!("{byte:02x}"))
        .collect()
}

/// A credential of a pipe create: its path under the source kind (`credentials.password`) and
/// the reference it is read from (`${env:PIPE_EVENTS_PASSWORD}`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CredentialRef {
    /// Dot-separated path under the kind.
    pub path: String,
    /// The `${env:NAME}` reference as written.
    pub reference: String,
}
