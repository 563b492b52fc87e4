//! The member checks a pipe source's kinds share (`check.rs`, `gcp.rs`): an enumerated member
//! that must be there, and a member that must be present.

use serde_json::{Map, Value};

use crate::sandbox::validate::{self, Check, invalid};

/// The value of `key`, one of `allowed`; an error when it is missing.
pub(super) fn required_enum(
    map: &Map<String, Value>,
    key: &str,
    prefix: &str,
    allowed: &[&str],
) -> Check<String> {
    validate::enumerated(map, key, prefix, allowed)?
        .map_or_else(|| invalid(validate::join(prefix, key), "is required"), Ok)
}

/// Present and not null.
pub(super) fn present(map: &Map<String, Value>, key: &str, prefix: &str) -> Check<()> {
    match map.get(key) {
        None | Some(Value::Null) => invalid(validate::join(prefix, key), "is required"),
        Some(_) => Ok(()),
    }
}
