//! The `PATCH .../pipes/{id}` bodies of an in-place change and of a rotation: each changed
//! member written at the member the API replaces whole, as the cloud document's
//! `ClickPipePatch*` schemas name them (a source kind's member, the destination's `columns`
//! array, the field mappings, a setting). The planner builds them, the saved-plan check builds
//! them again.

use serde_json::Value;

/// The members a diff path names, array positions (`columns[at]`) left out.
pub(crate) fn members(path: &str) -> Vec<&str> {
    path.split('.')
        .map(|part| part.split('[').next().unwrap_or(part))
        .collect()
}

/// The `PATCH` body that writes the in-place fields of a change, each at the member the API
/// replaces whole (a source member, the destination columns, the field mappings, a setting),
/// taken from `after`: the planner builds it, the saved-plan check builds it again.
pub(crate) fn patch_body<'a>(after: &Value, paths: impl IntoIterator<Item = &'a str>) -> Value {
    let mut body = Value::Object(serde_json::Map::new());
    for path in paths {
        let parts = members(path);
        let depth = match parts.as_slice() {
            ["source", "postgres" | "mysql" | "mongodb", "settings", ..] => 4,
            // `ClickPipePatchDestination` takes `columns` whole (an array), and a setting is
            // one member of the flat map.
            ["destination", ..] | ["settings", ..] => 2,
            ["source", ..] => 3,
            _ => 1,
        };
        let member = &parts[..depth.min(parts.len())];
        let value = member
            .iter()
            .try_fold(after, |v, part| v.get(*part))
            .cloned()
            .unwrap_or(Value::Null);
        let Some((last, parents)) = member.split_last() else {
            continue;
        };
        let mut at = &mut body;
        for part in parents {
            if !at.get(*part).is_some_and(Value::is_object) {
                at[*part] = Value::Object(serde_json::Map::new());
            }
            at = &mut at[*part];
        }
        at[*last] = value;
    }
    super::database::complete(&mut body, after);
    super::gcp::complete(&mut body, after);
    body
}

/// The `PATCH` body of a rotation: the in-place members that differ ([`patch_body`]) and the
/// source kind's member, which the credentials are put in when sent. The planner builds it,
/// the saved-plan check builds it again.
pub(crate) fn rotation_body<'a>(after: &Value, paths: impl IntoIterator<Item = &'a str>) -> Value {
    let mut body = patch_body(after, paths);
    let kind = after
        .get("source")
        .and_then(Value::as_object)
        .and_then(|kinds| kinds.iter().find(|(_, v)| v.is_object()))
        .map(|(kind, _)| kind.clone());
    if let (Some(kind), Value::Object(members)) = (kind, &mut body) {
        let source = members
            .entry("source")
            .or_insert_with(|| Value::Object(serde_json::Map::new()));
        if let Value::Object(kinds) = source {
            kinds
                .entry(kind)
                .or_insert_with(|| Value::Object(serde_json::Map::new()));
        }
    }
    super::database::complete(&mut body, after);
    super::gcp::complete(&mut body, after);
    body
}
