//! Fingerprints of live objects: a stable hash (FNV-1a, 64 bits) of an object's normalized JSON
//! written with sorted keys. A saved plan records the fingerprint of every object it read;
//! `apply` recomputes it from a fresh read with the same functions and refuses a step whose
//! object changed since. What is hashed is each kind's own (`super::kind::Live`, in the kind's
//! `plan/kinds/<kind>/live.rs`); this file holds only the hash, and names no kind.

use std::fmt;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::hash::{OFFSET, fnv1a};

/// A 64-bit FNV-1a hash, written as 16 hex digits.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(into = "String", try_from = "String")]
pub struct Fingerprint(pub u64);

impl fmt::Display for Fingerprint {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:016x}", self.0)
    }
}

impl From<Fingerprint> for String {
    fn from(value: Fingerprint) -> Self {
        value.to_string()
    }
}

/// A saved fingerprint that is not 16 hex digits.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("`{value}` is not a fingerprint (16 hex digits)")]
pub struct NotAFingerprint {
    /// The text found.
    pub value: String,
}

impl TryFrom<String> for Fingerprint {
    type Error = NotAFingerprint;
    fn try_from(value: String) -> Result<Self, Self::Error> {
        match u64::from_str_radix(&value, 16) {
            Ok(hash) => Ok(Fingerprint(hash)),
            Err(_) => Err(NotAFingerprint { value }),
        }
    }
}

/// Fingerprint of any JSON value, independent of key order.
pub(crate) fn of_value(value: &Value) -> Fingerprint {
    let mut text = String::new();
    canonical(value, &mut text);
    Fingerprint(fnv1a(text.as_bytes(), OFFSET))
}

fn canonical(value: &Value, out: &mut String) {
    match value {
        Value::Object(map) => {
            let mut keys: Vec<&String> = map.keys().collect();
            keys.sort();
            out.push('{');
            for (i, key) in keys.into_iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                out.push_str(&Value::String(key.clone()).to_string());
                out.push(':');
                if let Some(v) = map.get(key) {
                    canonical(v, out);
                }
            }
            out.push('}');
        }
        Value::Array(items) => {
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                canonical(item, out);
            }
            out.push(']');
        }
        Value::Number(n) => match n.as_f64() {
            // `3` and `3.0` hash alike.
            Some(f) if f.fract() == 0.0 && f.abs() < 9.0e15 => {
                out.push_str(&(f as i64).to_string())
            }
            _ => out.push_str(&n.to_string()),
        },
        other => out.push_str(&other.to_string()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn key_order_and_integral_floats_do_not_matter() {
        let a = serde_json::json!({"a": 3, "b": [1, {"y": 1, "x": 2}]});
        let b = serde_json::json!({"b": [1.0, {"x": 2, "y": 1}], "a": 3.0});
        assert_eq!(of_value(&a), of_value(&b));
        let c = serde_json::json!({"a": 4, "b": [1, {"y": 1, "x": 2}]});
        assert_ne!(of_value(&a), of_value(&c));
    }

    #[test]
    fn round_trips_as_hex() {
        let f = Fingerprint(0x0123_4567_89ab_cdef);
        let text = serde_json::to_string(&f).unwrap();
        assert_eq!(text, "\"0123456789abcdef\"");
        assert_eq!(serde_json::from_str::<Fingerprint>(&text).unwrap(), f);
    }
}
