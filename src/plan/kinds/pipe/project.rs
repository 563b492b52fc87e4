//! A live pipe kept to what a config declares: the planner's `before` and the saved-plan
//! check's (`check.rs`) are made by this one function, so the two cannot differ.

use serde_json::Value;

/// Keeps of `live` what `declared` names, at every depth (arrays element by element): the
/// server adds defaults the config need not write.
pub(crate) fn deep_project(live: &Value, declared: &Value) -> Value {
    match (live, declared) {
        (Value::Object(have), Value::Object(want)) => Value::Object(
            have.iter()
                .filter_map(|(k, v)| Some((k.clone(), deep_project(v, want.get(k)?))))
                .collect(),
        ),
        (Value::Array(have), Value::Array(want)) if have.len() == want.len() => Value::Array(
            have.iter()
                .zip(want)
                .map(|(v, w)| deep_project(v, w))
                .collect(),
        ),
        _ => live.clone(),
    }
}
