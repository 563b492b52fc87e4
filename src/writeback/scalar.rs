//! A live value written as a YAML scalar in the style the config used for the value it
//! replaces, when that style can hold it; otherwise in a style that can (single, then double
//! quotes), so the value reads back as exactly the live one.

use serde_json::Value;

use crate::config::yaml::{Kind, resolve_plain};

/// How the replaced scalar was written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Style {
    /// `value`.
    Plain,
    /// `'value'`.
    Single,
    /// `"value"`.
    Double,
    /// `|` or `>` and indented lines.
    Block,
}

impl Style {
    /// The style of the scalar written as `text` (the bytes of its span).
    pub(crate) fn of(text: &str) -> Style {
        match text.as_bytes().first() {
            Some(b'\'') => Style::Single,
            Some(b'"') => Style::Double,
            Some(b'|' | b'>') => Style::Block,
            _ => Style::Plain,
        }
    }
}

/// The text replacing a scalar written in `style`; `None` when the value is no scalar (a list,
/// a mapping), which is not spliced.
pub(crate) fn render(value: &Value, style: Style) -> Option<String> {
    match value {
        Value::Null => Some("null".to_string()),
        Value::Bool(b) => Some(b.to_string()),
        Value::Number(n) => Some(number(n)),
        Value::String(s) => Some(string(s, style)),
        Value::Array(_) | Value::Object(_) => None,
    }
}

/// A whole float is written as an integer (`3`, not `3.0`): the config's numbers are read as
/// numbers either way, and a threshold of 3 reads as people wrote it.
fn number(n: &serde_json::Number) -> String {
    if n.is_i64() || n.is_u64() {
        return n.to_string();
    }
    match n.as_f64() {
        Some(f) if f.fract() == 0.0 && f.abs() < 1e15 => format!("{f:.0}"),
        Some(f) => format!("{f}"),
        None => n.to_string(),
    }
}

fn string(s: &str, style: Style) -> String {
    match style {
        Style::Plain if plain_holds(s) => s.to_string(),
        Style::Plain | Style::Single if single_holds(s) => format!("'{}'", s.replace('\'', "''")),
        Style::Plain | Style::Single | Style::Double | Style::Block => double(s),
    }
}

/// A double-quoted scalar: JSON's string escapes are all valid YAML escapes.
fn double(s: &str) -> String {
    serde_json::to_string(s).unwrap_or_else(|_| format!("\"{}\"", s.escape_default()))
}

/// Whether `s` written plain reads back as the same string: not a number, boolean or null,
/// no indicator first, nothing that starts a comment or a mapping, no flow punctuation (the
/// value may sit in a flow collection), no white space at the ends.
fn plain_holds(s: &str) -> bool {
    let Some(first) = s.chars().next() else {
        return false;
    };
    if !matches!(resolve_plain(s), Kind::Str(_)) {
        return false;
    }
    if "-?:,[]{}#&*!|>'\"%@`".contains(first) || first.is_whitespace() {
        return false;
    }
    if s.ends_with(char::is_whitespace) || s.ends_with(':') {
        return false;
    }
    !(s.contains(": ")
        || s.contains(" #")
        || s.contains(['\n', '\r', '\t', ',', '[', ']', '{', '}'])
        || s.chars().any(char::is_control))
}

/// Whether `s` fits single quotes on one line: no line breaks or control characters.
fn single_holds(s: &str) -> bool {
    !s.chars().any(char::is_control)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_style_that_holds_the_value_is_kept() {
        assert_eq!(
            render(&json!("level:warn"), Style::Plain).unwrap(),
            "level:warn"
        );
        assert_eq!(render(&json!("it's"), Style::Single).unwrap(), "'it''s'");
        assert_eq!(render(&json!("a\"b"), Style::Double).unwrap(), "\"a\\\"b\"");
    }

    #[test]
    fn a_style_that_cannot_hold_it_gives_way_to_a_safe_one() {
        assert_eq!(render(&json!("true"), Style::Plain).unwrap(), "'true'");
        assert_eq!(render(&json!("a: b"), Style::Plain).unwrap(), "'a: b'");
        assert_eq!(render(&json!("12"), Style::Plain).unwrap(), "'12'");
        assert_eq!(
            render(&json!("two\nlines"), Style::Single).unwrap(),
            "\"two\\nlines\""
        );
        assert_eq!(render(&json!("x"), Style::Block).unwrap(), "\"x\"");
    }

    #[test]
    fn numbers_read_as_people_write_them() {
        assert_eq!(render(&json!(3.0), Style::Plain).unwrap(), "3");
        assert_eq!(render(&json!(0.75), Style::Plain).unwrap(), "0.75");
        assert_eq!(render(&json!(-4), Style::Plain).unwrap(), "-4");
        assert!(render(&json!([1]), Style::Plain).is_none());
    }
}
