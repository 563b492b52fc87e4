//! Field-level diff of two normalized values.
//!
//! Objects are compared key by key; arrays of objects that all carry a string `name` (tiles)
//! are matched by name, so moving a tile in the list is not a change, and an added or removed
//! element is listed field by field; other arrays (tags,
//! series, `groupBy`) are compared element by element. Numbers are compared as numbers with a
//! small relative tolerance, so `3`, `3.0` and `2.9999999999` read back from a server agree.

use serde_json::Value;

use super::model::FieldChange;

/// Whether two numbers are the same for the planner.
pub(crate) fn numbers_equal(a: f64, b: f64) -> bool {
    a == b || (a - b).abs() <= 1e-9 * a.abs().max(b.abs()).max(1.0)
}

/// Deep equality with numeric tolerance.
pub(crate) fn equal(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => match (x.as_f64(), y.as_f64()) {
            (Some(x), Some(y)) => numbers_equal(x, y),
            _ => x == y,
        },
        (Value::Array(x), Value::Array(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(a, b)| equal(a, b))
        }
        (Value::Object(x), Value::Object(y)) => {
            x.len() == y.len()
                && x.iter()
                    .all(|(k, v)| y.get(k).is_some_and(|other| equal(v, other)))
        }
        _ => a == b,
    }
}

/// The field changes turning `before` into `after`.
pub(crate) fn diff(before: &Value, after: &Value) -> Vec<FieldChange> {
    let mut out = Vec::new();
    walk("", before, after, &mut out);
    out
}

fn join(prefix: &str, key: &str) -> String {
    if prefix.is_empty() {
        key.to_string()
    } else {
        format!("{prefix}.{key}")
    }
}

fn named(items: &[Value]) -> Option<Vec<&str>> {
    let names: Option<Vec<&str>> = items
        .iter()
        .map(|v| v.get("name").and_then(Value::as_str))
        .collect();
    let names = names?;
    let mut sorted = names.clone();
    sorted.sort_unstable();
    sorted.dedup();
    // Matching by name only works when names are unique on both sides.
    (sorted.len() == names.len()).then_some(names)
}

fn walk(path: &str, before: &Value, after: &Value, out: &mut Vec<FieldChange>) {
    if equal(before, after) {
        return;
    }
    match (before, after) {
        (Value::Object(b), Value::Object(a)) => {
            let mut keys: Vec<&String> = b.keys().chain(a.keys()).collect();
            keys.sort();
            keys.dedup();
            for key in keys {
                let sub = join(path, key);
                match (b.get(key), a.get(key)) {
                    (Some(x), Some(y)) => walk(&sub, x, y, out),
                    (x, y) => out.push(FieldChange {
                        path: sub,
                        before: present(x),
                        after: present(y),
                    }),
                }
            }
        }
        (Value::Array(b), Value::Array(a)) if !b.is_empty() || !a.is_empty() => {
            match (named(b), named(a)) {
                (Some(bn), Some(an)) if !bn.is_empty() && !an.is_empty() => {
                    for (i, name) in an.iter().enumerate() {
                        let sub = format!("{path}[{name}]");
                        match bn.iter().position(|n| n == name) {
                            Some(j) => walk(&sub, &b[j], &a[i], out),
                            None => leaves(&sub, &a[i], &mut |path, value| {
                                out.push(FieldChange {
                                    path,
                                    before: None,
                                    after: Some(value.clone()),
                                })
                            }),
                        }
                    }
                    for (j, name) in bn.iter().enumerate() {
                        if !an.contains(name) {
                            leaves(&format!("{path}[{name}]"), &b[j], &mut |path, value| {
                                out.push(FieldChange {
                                    path,
                                    before: Some(value.clone()),
                                    after: None,
                                })
                            });
                        }
                    }
                }
                _ if b.len() == a.len() && b.iter().chain(a).all(Value::is_object) => {
                    for (i, (x, y)) in b.iter().zip(a).enumerate() {
                        walk(&format!("{path}[{i}]"), x, y, out);
                    }
                }
                _ => out.push(FieldChange {
                    path: path.to_string(),
                    before: present(Some(before)),
                    after: present(Some(after)),
                }),
            }
        }
        _ => out.push(FieldChange {
            path: path.to_string(),
            before: present(Some(before)),
            after: present(Some(after)),
        }),
    }
}

/// A side of a field change: a `null` (a member the config clears, or one the server answers
/// empty) is the field being absent, as a saved plan reads it back (JSON has one `null` for
/// both), so a plan and its saved copy render alike.
fn present(value: Option<&Value>) -> Option<Value> {
    value.filter(|v| !v.is_null()).cloned()
}

/// The fields of an object being created: every leaf, with no `before`.
pub(crate) fn created(after: &Value) -> Vec<FieldChange> {
    let mut out = Vec::new();
    leaves("", after, &mut |path, value| {
        out.push(FieldChange {
            path,
            before: None,
            after: Some(value.clone()),
        })
    });
    out
}

/// The fields of an object being deleted: every leaf, with no `after`.
pub(crate) fn deleted(before: &Value) -> Vec<FieldChange> {
    let mut out = Vec::new();
    leaves("", before, &mut |path, value| {
        out.push(FieldChange {
            path,
            before: Some(value.clone()),
            after: None,
        })
    });
    out
}

fn leaves(path: &str, value: &Value, emit: &mut dyn FnMut(String, &Value)) {
    match value {
        Value::Object(map) if !map.is_empty() => {
            for (key, v) in map {
                leaves(&join(path, key), v, emit);
            }
        }
        Value::Array(items) if !items.is_empty() && items.iter().all(Value::is_object) => {
            match named(items) {
                Some(names) => {
                    for (name, item) in names.iter().zip(items) {
                        leaves(&format!("{path}[{name}]"), item, emit);
                    }
                }
                None => {
                    for (i, item) in items.iter().enumerate() {
                        leaves(&format!("{path}[{i}]"), item, emit);
                    }
                }
            }
        }
        other => emit(path.to_string(), other),
    }
}

/// The top-level field names of some changes, for a reason line: `numReplicas differs`,
/// `tiles, tags differ`.
pub(crate) fn reason(fields: &[FieldChange]) -> String {
    let mut names: Vec<&str> = Vec::new();
    for field in fields {
        let top = field
            .path
            .split(['.', '['])
            .next()
            .unwrap_or(field.path.as_str());
        if !names.contains(&top) {
            names.push(top);
        }
    }
    match names.len() {
        0 => "matches the config".to_string(),
        1 => format!("{} differs", names[0]),
        n if n <= 3 => format!("{} differ", names.join(", ")),
        n => format!("{} and {} more differ", names[..3].join(", "), n - 3),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn floats_and_integers_agree() {
        assert!(equal(&json!({"a": 3}), &json!({"a": 3.0})));
        assert!(equal(&json!(0.1 + 0.2), &json!(0.3)));
        assert!(!equal(&json!(3), &json!(4)));
        assert!(diff(&json!({"a": 3}), &json!({"a": 3.0})).is_empty());
    }

    #[test]
    fn named_arrays_match_by_name() {
        let before = json!({"tiles": [{"name": "A", "x": 0}, {"name": "B", "x": 1}]});
        let after =
            json!({"tiles": [{"name": "B", "x": 1}, {"name": "A", "x": 2}, {"name": "C", "x": 3}]});
        let changes = diff(&before, &after);
        let paths: Vec<&str> = changes.iter().map(|c| c.path.as_str()).collect();
        assert_eq!(paths, vec!["tiles[A].x", "tiles[C].name", "tiles[C].x"]);
        assert_eq!(changes[0].before, Some(json!(0)));
        assert_eq!(changes[0].after, Some(json!(2)));
        let removed = diff(&after, &before);
        assert_eq!(removed.last().unwrap().path, "tiles[C].x");
        assert_eq!(removed.last().unwrap().after, None);
    }

    #[test]
    fn created_lists_every_leaf() {
        let fields =
            created(&json!({"name": "d", "tiles": [{"name": "A", "x": 1}], "tags": ["t"]}));
        let paths: Vec<&str> = fields.iter().map(|c| c.path.as_str()).collect();
        assert_eq!(paths, vec!["name", "tags", "tiles[A].name", "tiles[A].x"]);
        assert!(fields.iter().all(|f| f.before.is_none()));
        assert!(deleted(&json!({"id": "x"}))[0].after.is_none());
    }

    #[test]
    fn scalar_lists_compare_whole() {
        let changes = diff(&json!({"tags": ["a"]}), &json!({"tags": ["a", "b"]}));
        assert_eq!(changes.len(), 1);
        assert_eq!(changes[0].path, "tags");
    }

    #[test]
    fn reason_names_top_level_fields() {
        let changes = diff(
            &json!({"numReplicas": 2, "idleScaling": true}),
            &json!({"numReplicas": 3, "idleScaling": false}),
        );
        assert_eq!(reason(&changes), "idleScaling, numReplicas differ");
        assert_eq!(reason(&changes[..1]), "idleScaling differs");
    }
}
