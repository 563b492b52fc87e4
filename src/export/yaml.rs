//! A small block-style YAML writer for exported configs: an ordered tree in, stable text out.
//! Strings are written plain when YAML would read them back as the same string, otherwise
//! double-quoted (JSON escaping is valid YAML); `${` in data is escaped as `$${` so the config
//! loader does not take it for an environment reference.

/// A YAML value in the order it is written.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Node {
    /// A string from data (escaped and quoted as needed).
    Str(String),
    /// An `${env:NAME}` reference, written as is.
    Reference(String),
    /// A number, already formatted.
    Num(String),
    /// A boolean.
    Bool(bool),
    /// A mapping, in order.
    Map(Vec<(String, Node)>),
    /// A sequence.
    List(Vec<Node>),
    /// A scalar followed by a comment on its line (`${env:X}  # set X`).
    Commented(Box<Node>, String),
}

impl Node {
    /// A whole or fractional number, whole numbers without a decimal point.
    pub(crate) fn float(value: f64) -> Node {
        if value.fract() == 0.0 && value.abs() < 9.0e15 {
            Node::Num(format!("{}", value as i64))
        } else {
            Node::Num(format!("{value}"))
        }
    }

    /// An integer.
    pub(crate) fn int(value: i64) -> Node {
        Node::Num(value.to_string())
    }
}

/// Words some YAML readers take for booleans or null (YAML 1.1 as well as 1.2).
const RESERVED: &[&str] = &[
    "true", "false", "yes", "no", "on", "off", "y", "n", "null", "~",
];

/// Whether a string that starts with a digit cannot be read as a number by any YAML reader:
/// ids such as `1c7d8c62-...` and intervals such as `5m` stay plain.
fn clearly_not_a_number(text: &str) -> bool {
    let lower = text.to_ascii_lowercase();
    if lower.starts_with("0x") || lower.starts_with("0o") || lower.starts_with("0b") {
        return false;
    }
    text.parse::<f64>().is_err()
        && text
            .chars()
            .any(|c| c == '-' || (c.is_ascii_alphabetic() && !matches!(c, 'e' | 'E')))
}

/// Whether `text` can be written without quotes and read back unchanged.
fn plain(text: &str) -> bool {
    let Some(first) = text.chars().next() else {
        return false;
    };
    let starts_well = first.is_ascii_alphabetic()
        || first == '_'
        || first == '/'
        || (first.is_ascii_digit() && clearly_not_a_number(text));
    if !starts_well {
        return false;
    }
    if text.ends_with(' ') || RESERVED.contains(&text.to_ascii_lowercase().as_str()) {
        return false;
    }
    text.chars()
        .all(|c| c.is_ascii_alphanumeric() || matches!(c, ' ' | '_' | '-' | '.' | '/' | '(' | ')'))
        && !text.contains(" #")
}

/// A string scalar as written: plain when safe, otherwise JSON-quoted.
pub(crate) fn scalar(text: &str) -> String {
    let text = text.replace("${", "$${");
    if plain(&text) {
        text
    } else {
        serde_json::Value::String(text).to_string()
    }
}

fn inline(node: &Node) -> Option<String> {
    match node {
        Node::Str(s) => Some(scalar(s)),
        Node::Reference(r) => Some(r.clone()),
        Node::Num(n) => Some(n.clone()),
        Node::Bool(b) => Some(b.to_string()),
        Node::Map(entries) if entries.is_empty() => Some("{}".into()),
        Node::List(items) if items.is_empty() => Some("[]".into()),
        // Lists of scalars read best on one line (`tags: [a, b]`).
        Node::List(items) => items
            .iter()
            .map(|item| match item {
                Node::Map(_) | Node::List(_) | Node::Commented(..) => None,
                scalar => inline(scalar),
            })
            .collect::<Option<Vec<String>>>()
            .map(|parts| format!("[{}]", parts.join(", "))),
        Node::Map(_) => None,
        // Only a scalar carries a comment; the comment says what to do, never a value.
        Node::Commented(node, comment) => {
            inline(node).map(|text| format!("{text}  # {}", comment.replace('\n', " ")))
        }
    }
}

fn write_map(entries: &[(String, Node)], indent: usize, out: &mut String) {
    let pad = " ".repeat(indent);
    for (key, value) in entries {
        // `y` is a tile field of the format: the loader reads keys as field names, and a
        // quoted `"y"` would only puzzle a reader. Keys from data go through `scalar`.
        let key = if key == "y" { key.clone() } else { scalar(key) };
        match inline(value) {
            Some(text) => out.push_str(&format!("{pad}{key}: {text}\n")),
            None => {
                out.push_str(&format!("{pad}{key}:\n"));
                write_block(value, indent + 2, out);
            }
        }
    }
}

fn write_block(node: &Node, indent: usize, out: &mut String) {
    match node {
        Node::Map(entries) => write_map(entries, indent, out),
        Node::List(items) => {
            let pad = " ".repeat(indent);
            for item in items {
                match inline(item) {
                    Some(text) => out.push_str(&format!("{pad}- {text}\n")),
                    None => {
                        // The item's first line takes the dash in place of its indentation.
                        let mut block = String::new();
                        write_block(item, indent + 2, &mut block);
                        out.push_str(&pad);
                        out.push_str("- ");
                        out.push_str(&block[indent + 2..]);
                    }
                }
            }
        }
        scalar => {
            if let Some(text) = inline(scalar) {
                out.push_str(&format!("{}{text}\n", " ".repeat(indent)));
            }
        }
    }
}

/// Writes one block-style list item whose dash stands at column `indent`.
pub(crate) fn list_item(node: &Node, indent: usize) -> String {
    let mut out = String::new();
    write_block(&Node::List(vec![node.clone()]), indent, &mut out);
    out
}

/// Writes one mapping entry whose key stands at column `indent`.
pub(crate) fn map_entry(key: &str, node: &Node, indent: usize) -> String {
    let mut out = String::new();
    write_map(&[(key.to_string(), node.clone())], indent, &mut out);
    out
}

/// Writes a document whose root is a mapping.
pub(crate) fn to_string(root: &[(String, Node)]) -> String {
    let mut out = String::new();
    write_map(root, 0, &mut out);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn strings_are_quoted_only_when_yaml_would_change_them() {
        assert_eq!(scalar("API health"), "API health");
        assert_eq!(scalar("service:api"), "\"service:api\"");
        assert_eq!(scalar("true"), "\"true\"");
        assert_eq!(scalar("3"), "\"3\"");
        assert_eq!(scalar("1e3"), "\"1e3\"");
        assert_eq!(scalar("0x1f"), "\"0x1f\"");
        assert_eq!(scalar("5m"), "5m");
        assert_eq!(scalar("1c7d8c62-0b0f"), "1c7d8c62-0b0f");
        assert_eq!(scalar("y"), "\"y\"");
        assert_eq!(scalar(""), "\"\"");
        assert_eq!(scalar("a # b"), "\"a # b\"");
        assert_eq!(scalar("cost ${env:X}"), "\"cost $${env:X}\"");
        assert_eq!(scalar("quote\"d"), "\"quote\\\"d\"");
    }

    #[test]
    fn nested_lists_of_maps_are_block_style() {
        let root = vec![(
            "tiles".to_string(),
            Node::List(vec![Node::Map(vec![
                ("name".into(), Node::Str("Requests".into())),
                ("groupBy".into(), Node::List(vec![])),
                ("tags".into(), Node::List(vec![Node::Str("a b".into())])),
                (
                    "series".into(),
                    Node::List(vec![Node::Map(vec![(
                        "aggFn".into(),
                        Node::Str("count".into()),
                    )])]),
                ),
            ])]),
        )];
        assert_eq!(
            to_string(&root),
            "tiles:\n  - name: Requests\n    groupBy: []\n    tags: [a b]\n    series:\n      - aggFn: count\n"
        );
    }

    fn reads_back(text: &str) -> Option<serde_json::Value> {
        let document = to_string(&[("value".to_string(), Node::Str(text.to_string()))]);
        let parsed: std::collections::BTreeMap<String, serde_json::Value> =
            serde_saphyr::from_str(&document).ok()?;
        parsed.get("value").cloned()
    }

    #[test]
    fn look_alikes_of_other_types_read_back_as_strings() {
        for text in [
            "y",
            "Yes",
            "NULL",
            "True",
            "~",
            "1e3",
            "0x1f",
            "0o17",
            ".inf",
            "-a",
            "- a",
            "5m",
            "2024-01-01",
            "12:30",
            "1_000",
            "1c7d8c62-0b0f",
            "a: b",
            "a #b",
            "[x]",
            "{x}",
            "*x",
            "&x",
            "!x",
            "|",
            ">",
            "%x",
            "@x",
            "`x`",
            "'x'",
            "\"x\"",
            " lead",
            "trail ",
            "a\nb",
        ] {
            assert_eq!(
                reads_back(text),
                Some(serde_json::Value::String(text.to_string())),
                "{text:?}"
            );
        }
    }

    proptest::proptest! {
        /// Whatever a name or query holds, the YAML reader gets the same string back (with
        /// `${` escaped for the config loader, which turns `$${` back into `${`).
        #[test]
        fn any_string_reads_back_as_itself(text in "\\PC{0,24}|[a-z0-9 :#'\"\\-\\[\\]{},&*!|>%@`.$]{0,16}") {
            let document = to_string(&[("value".to_string(), Node::Str(text.clone()))]);
            let parsed: std::collections::BTreeMap<String, serde_json::Value> =
                serde_saphyr::from_str(&document).map_err(|e| {
                    proptest::test_runner::TestCaseError::fail(format!("{document}: {e}"))
                })?;
            proptest::prop_assert_eq!(
                parsed.get("value"),
                Some(&serde_json::Value::String(text.replace("${", "$${"))),
                "{}", document
            );
        }
    }

    #[test]
    fn numbers_drop_a_whole_decimal_point() {
        assert_eq!(Node::float(3.0), Node::Num("3".into()));
        assert_eq!(Node::float(0.5), Node::Num("0.5".into()));
    }
}
