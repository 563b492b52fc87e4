//! Hand validation of request bodies, so that each 400 names the member the way the real API
//! does (`request body.numReplicas: ...`).

use serde_json::{Map, Value};

use crate::api::limits::Range;

/// A body member that is wrong, and why.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Invalid {
    /// Path of the member (`tiles[0].x`); empty for the body itself.
    pub field: String,
    pub message: String,
}

/// The result of a check.
pub(crate) type Check<T> = Result<T, Invalid>;

pub(crate) fn invalid<T>(field: impl Into<String>, message: impl Into<String>) -> Check<T> {
    Err(Invalid {
        field: field.into(),
        message: message.into(),
    })
}

/// `prefix.key`, or `key` at the top.
pub(crate) fn join(prefix: &str, key: &str) -> String {
    if prefix.is_empty() {
        key.to_string()
    } else {
        format!("{prefix}.{key}")
    }
}

/// The value as an object.
pub(crate) fn object<'a>(value: &'a Value, field: &str) -> Check<&'a Map<String, Value>> {
    value
        .as_object()
        .map_or_else(|| invalid(field, "must be an object"), Ok)
}

/// An optional number (absent or null: `None`).
pub(crate) fn number(map: &Map<String, Value>, key: &str, prefix: &str) -> Check<Option<f64>> {
    match map.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::Number(n)) => n.as_f64().map_or_else(
            || invalid(join(prefix, key), "must be a number"),
            |v| Ok(Some(v)),
        ),
        Some(_) => invalid(join(prefix, key), "must be a number"),
    }
}

/// An optional number within a range (integer where the range says so).
pub(crate) fn ranged(map: &Map<String, Value>, range: &Range, prefix: &str) -> Check<Option<f64>> {
    let value = number(map, range.field, prefix)?;
    if let Some(v) = value
        && !range.contains(v)
    {
        return invalid(
            join(prefix, range.field),
            format!("must be {}, got {v}", range.describe()),
        );
    }
    Ok(value)
}

/// An optional boolean.
pub(crate) fn boolean(map: &Map<String, Value>, key: &str, prefix: &str) -> Check<Option<bool>> {
    match map.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::Bool(b)) => Ok(Some(*b)),
        Some(_) => invalid(join(prefix, key), "must be a boolean"),
    }
}

/// An optional string of at most `max` characters.
pub(crate) fn string(
    map: &Map<String, Value>,
    key: &str,
    prefix: &str,
    max: usize,
) -> Check<Option<String>> {
    match map.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(s)) if s.chars().count() <= max => Ok(Some(s.clone())),
        Some(Value::String(_)) => invalid(
            join(prefix, key),
            format!("must be at most {max} characters long"),
        ),
        Some(_) => invalid(join(prefix, key), "must be a string"),
    }
}

/// A required string of at most `max` characters.
pub(crate) fn required_string(
    map: &Map<String, Value>,
    key: &str,
    prefix: &str,
    max: usize,
) -> Check<String> {
    match string(map, key, prefix, max)? {
        Some(s) if !s.is_empty() => Ok(s),
        _ => invalid(join(prefix, key), "is required"),
    }
}

/// An optional string from an enum.
pub(crate) fn enumerated(
    map: &Map<String, Value>,
    key: &str,
    prefix: &str,
    allowed: &[&str],
) -> Check<Option<String>> {
    match string(map, key, prefix, usize::MAX)? {
        Some(s) if allowed.contains(&s.as_str()) => Ok(Some(s)),
        Some(s) => invalid(
            join(prefix, key),
            format!("must be one of {}, got `{s}`", allowed.join(", ")),
        ),
        None => Ok(None),
    }
}

/// An optional array of strings.
pub(crate) fn strings(
    map: &Map<String, Value>,
    key: &str,
    prefix: &str,
) -> Check<Option<Vec<String>>> {
    match map.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::Array(items)) => items
            .iter()
            .enumerate()
            .map(|(i, item)| {
                item.as_str().map(str::to_string).map_or_else(
                    || invalid(format!("{}[{i}]", join(prefix, key)), "must be a string"),
                    Ok,
                )
            })
            .collect::<Check<Vec<String>>>()
            .map(Some),
        Some(_) => invalid(join(prefix, key), "must be an array of strings"),
    }
}

/// An optional array (elements unchecked).
pub(crate) fn array<'a>(
    map: &'a Map<String, Value>,
    key: &str,
    prefix: &str,
) -> Check<Option<&'a Vec<Value>>> {
    match map.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::Array(items)) => Ok(Some(items)),
        Some(_) => invalid(join(prefix, key), "must be an array"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::api::limits::PIPE_REPLICAS;
    use serde_json::json;

    #[test]
    fn ranged_names_the_member_and_rejects_fractions() {
        let body = json!({"replicas": 2.5});
        let err = ranged(body.as_object().unwrap(), &PIPE_REPLICAS, "").unwrap_err();
        assert_eq!(err.field, "replicas");
        assert!(err.message.contains("integer from 1 to 10"));
        let ok = json!({"replicas": null});
        assert_eq!(
            ranged(ok.as_object().unwrap(), &PIPE_REPLICAS, "").unwrap(),
            None
        );
    }
}
