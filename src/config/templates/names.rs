//! How the live names of an entry's instances read back as their keys.

use super::declare::{Template, is_name};
use super::matrix::Wanted;
use super::tree::scalar_text;
use crate::config::model::{InstanceNames, NamePart};

/// How the live names of an entry's instances read back as their keys; `None` when the
/// template's `name` is not one string, or no parameters of it make every instance's key.
pub(super) fn instance_names(
    template: &Template,
    entry: &str,
    wanted: &[Wanted],
) -> Option<InstanceNames> {
    let name = name_parts(template.body.get("name")?.as_str()?);
    let holes: Vec<&str> = name
        .iter()
        .filter_map(|p| match p {
            NamePart::Param(param) => Some(param.as_str()),
            NamePart::Text(_) => None,
        })
        .collect();
    let value = |want: &Wanted, param: &str| -> Option<String> {
        if param == "key" {
            return Some(want.key.clone());
        }
        match want.values.iter().find(|(k, _)| k.name == param) {
            Some((_, v)) => scalar_text(v),
            None => scalar_text(
                template
                    .params
                    .iter()
                    .find(|p| p.name == param)?
                    .default
                    .as_ref()?,
            ),
        }
    };
    // `${key}` itself; one parameter every key repeats; a matrix's axes, joined.
    let axes: Vec<&str> = wanted
        .first()
        .map(|w| w.values.iter().map(|(k, _)| k.name.as_str()).collect())
        .unwrap_or_default();
    let candidates = std::iter::once(vec!["key"])
        .chain(holes.iter().map(|h| vec![*h]))
        .chain(std::iter::once(axes));
    let key = candidates
        .filter(|params| !params.is_empty() && params.iter().all(|p| holes.contains(p)))
        .find(|params| {
            wanted.iter().all(|want| {
                params
                    .iter()
                    .map(|p| value(want, p))
                    .collect::<Option<Vec<_>>>()
                    .is_some_and(|values| values.join(",") == want.key)
            })
        })?;
    let key = key.iter().map(|p| (*p).to_string()).collect();
    Some(InstanceNames {
        kind: template.kind.to_string(),
        entry: entry.to_string(),
        name,
        key,
        keys: wanted.iter().map(|w| w.key.clone()).collect(),
    })
}

/// The parameter of a whole-stack template its instances' keys are made from: one whose value
/// is each instance's key, else the first whose values differ between every two instances.
/// `None` when no parameter tells them apart.
pub(super) fn key_parameter(template: &Template, wanted: &[Wanted]) -> Option<String> {
    let values = |param: &str| -> Vec<Option<String>> {
        wanted
            .iter()
            .map(
                |want| match want.values.iter().find(|(k, _)| k.name == param) {
                    Some((_, v)) => scalar_text(v),
                    None => template
                        .params
                        .iter()
                        .find(|p| p.name == param)
                        .and_then(|p| p.default.as_ref())
                        .and_then(scalar_text),
                },
            )
            .collect()
    };
    let params: Vec<&str> = template.params.iter().map(|p| p.name.as_str()).collect();
    let is_key = |param: &str| {
        values(param)
            .iter()
            .zip(wanted)
            .all(|(value, want)| value.as_deref() == Some(want.key.as_str()))
    };
    let distinct = |param: &str| {
        let mut seen: Vec<String> = Vec::new();
        values(param).into_iter().all(|value| match value {
            Some(value) if !seen.contains(&value) => {
                seen.push(value);
                true
            }
            _ => false,
        })
    };
    let found = params
        .iter()
        .find(|p| is_key(p))
        .or_else(|| params.iter().find(|p| distinct(p)));
    found.map(|param| (*param).to_string())
}

/// A template's `name` as literal text and `${parameter}` holes; `${env:...}` and `$${` stay
/// text.
pub(super) fn name_parts(text: &str) -> Vec<NamePart> {
    let mut parts = Vec::new();
    let mut literal = String::new();
    let mut rest = text;
    while let Some(pos) = rest.find("${") {
        let after = &rest[pos..];
        let hole = after[2..]
            .find('}')
            .map(|end| &after[2..2 + end])
            .filter(|name| is_name(name) && !rest[..pos].ends_with('$'));
        match hole {
            Some(name) => {
                literal.push_str(&rest[..pos]);
                if !literal.is_empty() {
                    parts.push(NamePart::Text(std::mem::take(&mut literal)));
                }
                parts.push(NamePart::Param(name.to_string()));
                rest = &after[name.len() + 3..];
            }
            None => {
                literal.push_str(&rest[..pos + 2]);
                rest = &after[2..];
            }
        }
    }
    literal.push_str(rest);
    if !literal.is_empty() {
        parts.push(NamePart::Text(literal));
    }
    parts
}
