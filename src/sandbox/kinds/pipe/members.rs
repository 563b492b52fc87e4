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

/// A database source's `tableMappings`: at least one, each naming the `names` (its source and
/// target) and at most a table engine of the document's.
pub(super) fn table_mappings(body: &Map<String, Value>, p: &str, names: [&str; 3]) -> Check<()> {
    let items = match validate::array(body, "tableMappings", p)? {
        Some(items) if !items.is_empty() => items,
        _ => return invalid(validate::join(p, "tableMappings"), "is required"),
    };
    for (i, mapping) in items.iter().enumerate() {
        let at = format!("{p}.tableMappings[{i}]");
        let mapping = validate::object(mapping, &at)?;
        for member in names {
            validate::required_string(mapping, member, &at, 1024)?;
        }
        let engines = ["MergeTree", "ReplacingMergeTree", "Null"];
        validate::enumerated(mapping, "tableEngine", &at, &engines)?;
        validate::boolean(mapping, "useCustomSortingKey", &at)?;
    }
    Ok(())
}
