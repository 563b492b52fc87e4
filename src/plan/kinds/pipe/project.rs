//! A live pipe kept to what a config declares: the planner's `before` and the saved-plan
//! check's (`check.rs`) are made by this one function, so the two cannot differ.

use serde_json::Value;

use crate::api::wire::Pipe;

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

/// Whether a live pipe reads from the source and writes to the destination `body` creates,
/// mapped the same way: what makes two pipes of one name copies of each other (the members
/// the server defaults or that change in place are left out).
pub(crate) fn made_as(pipe: &Pipe, body: &Value) -> bool {
    let live = serde_json::to_value(pipe).unwrap_or(Value::Null);
    ["source", "destination", "fieldMappings"]
        .iter()
        .all(|member| match (live.get(*member), body.get(*member)) {
            (_, None) => true,
            (Some(have), Some(want)) => deep_project(have, want) == *want,
            (None, Some(_)) => false,
        })
}
