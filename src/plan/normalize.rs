//! What every kind's normalizer shares: each kind's live object (and desired object) is turned
//! into the JSON the planner compares, so the plan after a successful apply is always empty.
//! Each kind's normalizer is its own, in `plan/kinds/<kind>/live.rs` (with the defaults it
//! applies on both sides, listed there); this file holds the rules and pieces they share, and
//! names no kind.
//!
//! What every normalizer does:
//! - drops server-owned fields by construction: only the listed fields are written (ids,
//!   timestamps, `state`, `team`, endpoints... never appear);
//! - writes whole numbers as integers, so `3` and `3.0` compare and print alike ([`num`]);
//! - treats an empty string as absent (a `PUT` turns omitted strings into `""`: [`text`],
//!   [`present`]);
//! - applies the server's defaults on both sides, and sorts order-insensitive lists.
//!
//! Names of stack objects are compared as the server stores them ([`name_key`],
//! [`same_name`]).

use serde_json::{Map, Value};

/// A number as JSON: whole numbers as integers.
pub(crate) fn num(value: f64) -> Value {
    if value.fract() == 0.0 && value.abs() < 9.0e15 {
        Value::from(value as i64)
    } else {
        serde_json::Number::from_f64(value)
            .map(Value::Number)
            .unwrap_or(Value::Null)
    }
}

pub(crate) fn put(map: &mut Map<String, Value>, key: &str, value: Option<Value>) {
    if let Some(value) = value {
        map.insert(key.to_string(), value);
    }
}

pub(crate) fn text(value: &Option<String>) -> Option<Value> {
    value
        .as_deref()
        .filter(|s| !s.is_empty())
        .map(|s| Value::String(s.to_string()))
}

/// A value without its nulls, empty strings, empty lists and empty maps (absent to the server),
/// at every depth.
pub(crate) fn present(value: &Value) -> Option<Value> {
    match value {
        Value::Null => None,
        Value::String(s) if s.is_empty() => None,
        Value::Object(map) => {
            let map: Map<String, Value> = map
                .iter()
                .filter_map(|(k, v)| Some((k.clone(), present(v)?)))
                .collect();
            (!map.is_empty()).then_some(Value::Object(map))
        }
        Value::Array(items) => {
            let items: Vec<Value> = items.iter().filter_map(present).collect();
            (!items.is_empty()).then_some(Value::Array(items))
        }
        Value::Number(n) => Some(n.as_f64().map_or_else(|| value.clone(), num)),
        other => Some(other.clone()),
    }
}

/// A dashboard or alert name as a server that normalises names stores it: runs of white space
/// collapsed to one space, none at the ends.
pub(crate) fn name_key(name: &str) -> String {
    name.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// Whether two dashboard or alert names are one name to the server: equal, or equal once white
/// space is normalised the way some servers store names ([`name_key`]).
pub(crate) fn same_name(a: &str, b: &str) -> bool {
    a == b || name_key(a) == name_key(b)
}

/// What the tag an apply puts on each dashboard it creates starts with ([`run_tag`]).
pub(crate) const RUN_TAG_PREFIX: &str = "converge-run:";

/// The tag an apply puts on each dashboard it creates, naming the run: when the create's answer
/// is lost, the run finds its own copy by it (and can prove it made it). Ignored wherever
/// dashboards are compared or exported: the next update, which replaces the tags, drops it.
pub(crate) fn run_tag(run: &str) -> String {
    format!("{RUN_TAG_PREFIX}{run}")
}

/// Keeps only the keys of `value` that `managed` has (both objects): the live side of a diff
/// over the fields the config mentions.
pub(crate) fn project(value: &Value, managed: &Value) -> Value {
    match (value, managed) {
        (Value::Object(map), Value::Object(keys)) => Value::Object(
            map.iter()
                .filter(|(k, _)| keys.contains_key(*k))
                .map(|(k, v)| (k.clone(), v.clone()))
                .collect(),
        ),
        _ => value.clone(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn whole_floats_are_integers() {
        assert_eq!(num(3.0), Value::from(3));
        assert_eq!(num(0.5), serde_json::json!(0.5));
    }
}
