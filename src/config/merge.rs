//! Several files (or a directory of them) become one tree: the root, `services` and `stacks`
//! merge key by key, `ignore` lists concatenate, and anything else written twice is an error
//! that shows both places. A stack may span files (one file per service or environment): its
//! `dashboards`, `alerts` and `templates` merge key by key, each key still defined once, and
//! each of its settings (`service`, `prune`, ...) is written in one file.

use std::collections::HashMap;

use smol_str::SmolStr;

use super::yaml::{self, Kind, Node};
use crate::diagnostic::{Code, Diagnostic};

/// Top-level maps whose entries may come from different files.
const MERGED_MAPS: &[&str] = &["services", "stacks", "templates"];
/// Top-level lists that concatenate across files.
const MERGED_LISTS: &[&str] = &["ignore"];
/// The maps of a stack whose entries may come from different files.
const STACK_MAPS: &[&str] = &["dashboards", "alerts", "templates"];

/// Each key's position in a merged map, by the map's path (`services`, `stacks.prod.alerts`).
type Indexes = HashMap<String, HashMap<SmolStr, usize>>;

/// Merges the roots of the files in load order. `None` when no file held a mapping.
///
/// Keys are found through indexes, not by scanning: many files of many services merge in
/// linear time.
pub(crate) fn merge(docs: Vec<Node>, diags: &mut Vec<Diagnostic>) -> Option<Node> {
    let mut root: Option<Node> = None;
    // Position of each top-level key in the root, and of each key of a merged map in its map.
    let mut top: HashMap<SmolStr, usize> = HashMap::new();
    let mut nested: Indexes = HashMap::new();
    for doc in docs {
        let Kind::Map(entries) = doc.kind else {
            if doc.kind != Kind::Null {
                diags.push(
                    Diagnostic::error(
                        Code::SchemaType,
                        "a config file must be a mapping of keys such as `version`, `services`, `stacks`",
                        Some(doc.span),
                    )
                    .with_label("not a mapping"),
                );
            }
            continue;
        };
        let Some(Node {
            kind: Kind::Map(into),
            ..
        }) = root.as_mut()
        else {
            top = positions(&entries);
            root = Some(Node {
                kind: Kind::Map(entries),
                span: doc.span,
            });
            continue;
        };
        for (key, value) in entries {
            let Some((first_key, existing)) = top.get(&key.name).and_then(|&at| into.get_mut(at))
            else {
                top.insert(key.name.clone(), into.len());
                into.push((key, value));
                continue;
            };
            let name = key.name.as_str();
            match (&mut existing.kind, value.kind) {
                (Kind::Map(left), Kind::Map(right)) if MERGED_MAPS.contains(&name) => {
                    let path = name.to_string();
                    for (k, v) in right {
                        let merged = (name == "stacks").then_some(stack_part as Part);
                        entry(left, &mut nested, &path, (k, v), merged, diags);
                    }
                }
                (Kind::Seq(left), Kind::Seq(right)) if MERGED_LISTS.contains(&name) => {
                    left.extend(right);
                }
                _ => diags.push(yaml::duplicate_key(&key, first_key.span)),
            }
        }
    }
    root
}

/// How a key defined again in a merged map merges into its first definition (`None`: it is
/// an error): given the first value's entries and the second's.
type Part = fn(
    &mut Vec<(yaml::Key, Node)>,
    Vec<(yaml::Key, Node)>,
    &str,
    &mut Indexes,
    &mut Vec<Diagnostic>,
);

/// Adds `(key, value)` to the merged map `left` at `path`: a new key is appended; one defined
/// again merges by `part` when both are mappings, and is an error at both places otherwise.
fn entry(
    left: &mut Vec<(yaml::Key, Node)>,
    nested: &mut Indexes,
    path: &str,
    (key, value): (yaml::Key, Node),
    part: Option<Part>,
    diags: &mut Vec<Diagnostic>,
) {
    let index = nested
        .entry(path.to_string())
        .or_insert_with(|| positions(left));
    let Some(&at) = index.get(&key.name) else {
        index.insert(key.name.clone(), left.len());
        left.push((key, value));
        return;
    };
    let Some((first, existing)) = left.get_mut(at) else {
        return;
    };
    let inner = format!("{path}.{}", key.name);
    match (part, &mut existing.kind, value.kind) {
        (Some(part), Kind::Map(into), Kind::Map(more)) => part(into, more, &inner, nested, diags),
        _ => {
            let mut duplicate = yaml::duplicate_key(&key, first.span);
            duplicate.message = format!("`{inner}` is defined twice");
            diags.push(duplicate);
        }
    }
}

/// A stack defined in a second file: its dashboards, alerts and templates merge key by key
/// into the first definition; a setting written in both files, or a whole-stack template's
/// entry (`template:`) written twice, is an error at both places.
fn stack_part(
    into: &mut Vec<(yaml::Key, Node)>,
    more: Vec<(yaml::Key, Node)>,
    path: &str,
    nested: &mut Indexes,
    diags: &mut Vec<Diagnostic>,
) {
    let fans_out =
        |entries: &[(yaml::Key, Node)]| entries.iter().any(|(k, _)| k.name == "template");
    if fans_out(into) || fans_out(&more) {
        // Its instances are made from the entry as a whole: said once, at both entries.
        if let (Some((key, _)), Some((first, _))) = (more.first(), into.first()) {
            let mut duplicate = yaml::duplicate_key(key, first.span);
            duplicate.message = format!(
                "`{path}` is defined twice; a whole-stack template's entry (`template:`) is \
                 written in one file"
            );
            diags.push(duplicate);
        }
        return;
    }
    for (key, value) in more {
        let name = key.name.clone();
        let first = into
            .iter()
            .find(|(k, _)| k.name == name)
            .map(|(k, _)| k.span);
        match first {
            Some(first) if !STACK_MAPS.contains(&name.as_str()) => {
                let mut duplicate = yaml::duplicate_key(&key, first);
                duplicate.message = format!("`{path}.{name}` is defined twice");
                duplicate.help = Some(format!(
                    "a stack may span files, but each of its settings is written in one: keep \
                     `{name}:` in one file and delete the other"
                ));
                diags.push(duplicate);
            }
            // Dashboards, alerts or templates written in both files merge key by key.
            _ => entry(into, nested, path, (key, value), Some(map_part), diags),
        }
    }
}

/// A stack's map (`dashboards`, `alerts`, `templates`) written in a second file: its entries
/// merge key by key, each defined once.
fn map_part(
    into: &mut Vec<(yaml::Key, Node)>,
    more: Vec<(yaml::Key, Node)>,
    path: &str,
    nested: &mut Indexes,
    diags: &mut Vec<Diagnostic>,
) {
    for pair in more {
        entry(into, nested, path, pair, None, diags);
    }
}

/// Each key's position in a mapping's entries (keys of one mapping are unique).
fn positions(entries: &[(yaml::Key, Node)]) -> HashMap<SmolStr, usize> {
    entries
        .iter()
        .enumerate()
        .map(|(at, (key, _))| (key.name.clone(), at))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn doc(text: &str, file: usize) -> Node {
        let mut diags = Vec::new();
        let node = yaml::parse(text, crate::diagnostic::narrow(file), &mut diags).unwrap();
        assert!(diags.is_empty());
        node
    }

    #[test]
    fn maps_merge_and_duplicates_show_both_files() {
        let a = doc("version: 1\nservices:\n  a: {id: x}\nignore: [p]\n", 0);
        let b = doc(
            "services:\n  b: {id: y}\n  a: {id: z}\nignore: [q]\nversion: 1\n",
            1,
        );
        let mut diags = Vec::new();
        let root = merge(vec![a, b], &mut diags).unwrap();
        let services = root.get("services").unwrap().as_map().unwrap();
        assert_eq!(services.len(), 2);
        assert_eq!(
            root.get("ignore").unwrap(),
            &root.get("ignore").unwrap().clone()
        );
        assert!(matches!(&root.get("ignore").unwrap().kind, Kind::Seq(v) if v.len() == 2));
        assert_eq!(diags.len(), 2, "{diags:?}");
        let dup = &diags[0];
        assert_eq!(dup.code, Code::ConfigDuplicateKey);
        assert_eq!(dup.span.unwrap().file, 1);
        assert_eq!(dup.related[0].0.file, 0);
    }
}
