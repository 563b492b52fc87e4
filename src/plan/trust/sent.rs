//! How a step's body is compared with what its change shows: the disagreements, and the
//! helpers each kind's [`super::Check::sends_what_it_shows`] builds its comparison from.

use serde_json::{Map, Value};

use crate::plan::fingerprint;
use crate::plan::model::{Action, Change, Fingerprint};

/// How a step disagrees with its change.
#[derive(Debug, thiserror::Error)]
pub(crate) enum Disagreement {
    /// The step checks another fingerprint than the change was planned from.
    #[error("the step's fingerprint ({}) is not the change's ({})", text(*step), text(*change))]
    Fingerprint {
        step: Option<fingerprint::Fingerprint>,
        change: Option<fingerprint::Fingerprint>,
    },
    /// The step is of another kind, or for another address, than the change.
    #[error("the change is a {} of this address, but its step is a `{kind}` {place}", action.as_str())]
    Kind {
        action: Action,
        kind: String,
        place: String,
    },
    /// A detach of endpoints other than the one the change removes.
    #[error("the step detaches other endpoints than `{id}`")]
    OtherEndpoints { id: String },
    /// A delete whose change shows values to write.
    #[error("a delete whose change has desired values")]
    DeleteWithValues,
    /// A dashboard create that sends tile ids.
    #[error("the create sends tile ids")]
    CreateWithTileIds,
    /// A scaling change listing a field that is not a scaling field.
    #[error("`{path}` is not a scaling field")]
    NotScalingField { path: String },
    /// A change of a service's settings member listing a field of another member.
    #[error("`{path}` is not a field of the service's `{member}`")]
    NotMemberField { path: String, member: &'static str },
    /// A scaling change listing a field without its desired value.
    #[error("`{path}` has no desired value")]
    NoDesiredValue { path: String },
    /// A field whose value in the field list is not its desired value.
    #[error(
        "`{path}` is {listed} in the field list but {} in the desired values",
        desired.as_ref().map_or("absent".into(), Value::to_string)
    )]
    FieldDiffers {
        path: String,
        listed: Value,
        desired: Option<Value>,
    },
    /// An update whose fields all keep their values.
    #[error("an update with no field that differs")]
    NothingDiffers,
    /// A create or update whose change has no desired values.
    #[error("the change has no desired values")]
    NoDesiredValues,
    /// The step writes other values than the change shows.
    #[error(
        "the step writes {} but the change shows {}",
        compact(sent),
        compact(shown)
    )]
    Writes { sent: Value, shown: Value },
}

/// What a scaling change writes: each field that differs with its desired value, as shown.
pub(crate) fn written(change: &Change, known: &[&str]) -> Result<Value, Disagreement> {
    let after = after(change)?;
    let mut wanted = Map::new();
    for field in &change.fields {
        if !known.contains(&field.path.as_str()) {
            return Err(Disagreement::NotScalingField {
                path: field.path.clone(),
            });
        }
        let Some(value) = &field.after else {
            return Err(Disagreement::NoDesiredValue {
                path: field.path.clone(),
            });
        };
        if after.get(&field.path) != Some(value) {
            return Err(Disagreement::FieldDiffers {
                path: field.path.clone(),
                listed: value.clone(),
                desired: after.get(&field.path).cloned(),
            });
        }
        wanted.insert(field.path.clone(), value.clone());
    }
    if wanted.is_empty() {
        return Err(Disagreement::NothingDiffers);
    }
    Ok(Value::Object(wanted))
}

pub(crate) fn after(change: &Change) -> Result<&Value, Disagreement> {
    change.after.as_ref().ok_or(Disagreement::NoDesiredValues)
}

/// Whether two values are the same once keys are sorted and `3` is `3.0`.
pub(crate) fn same(sent: &Value, shown: &Value) -> Result<(), Disagreement> {
    if fingerprint::of_value(sent) == fingerprint::of_value(shown) {
        Ok(())
    } else {
        Err(Disagreement::Writes {
            sent: sent.clone(),
            shown: shown.clone(),
        })
    }
}

/// A value for a one-line message, cut when long.
fn compact(value: &Value) -> String {
    let text = value.to_string();
    if text.chars().count() > 200 {
        format!("{}…", text.chars().take(200).collect::<String>())
    } else {
        text
    }
}

/// The fields a change lists, with their desired values, for a kind's body builder.
pub(crate) fn fields_of(change: &Change) -> impl Iterator<Item = (&str, Option<&Value>)> {
    change
        .fields
        .iter()
        .map(|field| (field.path.as_str(), field.after.as_ref()))
}

/// Whether a saved body is the body built now from its change.
pub(crate) fn same_body<T: serde::Serialize>(sent: &T, built: &T) -> Result<(), Disagreement> {
    same(&to_value(sent), &to_value(built))
}

fn to_value<T: serde::Serialize>(value: &T) -> Value {
    serde_json::to_value(value).unwrap_or(Value::Null)
}

fn text(value: Option<Fingerprint>) -> String {
    value.map_or_else(|| "none".to_string(), |f| f.to_string())
}
