//! Several files (or a directory of them) become one tree: the root, `services` and `stacks`
//! merge key by key, `ignore` lists concatenate, and anything else written twice is an error
//! that shows both places.

use std::collections::HashMap;

use smol_str::SmolStr;

use super::yaml::{self, Kind, Node};
use crate::diagnostic::{Code, Diagnostic};

/// Top-level maps whose entries may come from different files.
const MERGED_MAPS: &[&str] = &["services", "stacks", "templates"];
/// Top-level lists that concatenate across files.
const MERGED_LISTS: &[&str] = &["ignore"];

/// Merges the roots of the files in load order. `None` when no file held a mapping.
///
/// Keys are found through indexes, not by scanning: many files of many services merge in
/// linear time.
pub(crate) fn merge(docs: Vec<Node>, diags: &mut Vec<Diagnostic>) -> Option<Node> {
    let mut root: Option<Node> = None;
    // Position of each top-level key in the root, and of each key of a merged map in its map.
    let mut top: HashMap<SmolStr, usize> = HashMap::new();
    let mut nested: HashMap<SmolStr, HashMap<SmolStr, usize>> = HashMap::new();
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
                    let index = nested
                        .entry(key.name.clone())
                        .or_insert_with(|| positions(left));
                    for (k, v) in right {
                        if let Some((first, _)) = index.get(&k.name).and_then(|&at| left.get(at)) {
                            let mut duplicate = yaml::duplicate_key(&k, first.span);
                            duplicate.message = format!("`{name}.{}` is defined twice", k.name);
                            diags.push(duplicate);
                        } else {
                            index.insert(k.name.clone(), left.len());
                            left.push((k, v));
                        }
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
