//! Several files (or a directory of them) become one tree: the root, `services` and `stacks`
//! merge key by key, `ignore` lists concatenate, and anything else written twice is an error
//! that shows both places.

use super::diagnostic::Diagnostic;
use super::yaml::{self, Kind, Node};

/// Top-level maps whose entries may come from different files.
const MERGED_MAPS: &[&str] = &["services", "stacks"];
/// Top-level lists that concatenate across files.
const MERGED_LISTS: &[&str] = &["ignore"];

/// Merges the roots of the files in load order. `None` when no file held a mapping.
pub fn merge(docs: Vec<Node>, diags: &mut Vec<Diagnostic>) -> Option<Node> {
    let mut root: Option<Node> = None;
    for doc in docs {
        let Kind::Map(entries) = doc.kind else {
            if doc.kind != Kind::Null {
                diags.push(
                    Diagnostic::error(
                        "schema::type",
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
            root = Some(Node {
                kind: Kind::Map(entries),
                span: doc.span,
            });
            continue;
        };
        for (key, value) in entries {
            let Some(pos) = into.iter().position(|(k, _)| k.name == key.name) else {
                into.push((key, value));
                continue;
            };
            let existing = &mut into[pos].1;
            let name = key.name.as_str();
            match (&mut existing.kind, value.kind) {
                (Kind::Map(left), Kind::Map(right)) if MERGED_MAPS.contains(&name) => {
                    for (k, v) in right {
                        if let Some((first, _)) = left.iter().find(|(f, _)| f.name == k.name) {
                            let mut duplicate = yaml::duplicate_key(&k, first.span);
                            duplicate.message = format!("`{name}.{}` is defined twice", k.name);
                            diags.push(duplicate);
                        } else {
                            left.push((k, v));
                        }
                    }
                }
                (Kind::Seq(left), Kind::Seq(right)) if MERGED_LISTS.contains(&name) => {
                    left.extend(right);
                }
                _ => diags.push(yaml::duplicate_key(&key, into[pos].0.span)),
            }
        }
    }
    root
}

#[cfg(test)]
mod tests {
    use super::*;

    fn doc(text: &str, file: usize) -> Node {
        let mut diags = Vec::new();
        let node = yaml::parse(text, file, &mut diags).unwrap();
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
        assert_eq!(dup.code, "config::duplicate-key");
        assert_eq!(dup.span.unwrap().file, 1);
        assert_eq!(dup.related[0].0.file, 0);
    }
}
