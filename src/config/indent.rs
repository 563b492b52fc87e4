//! Which key is at the wrong depth, when the YAML parser stops at a wrong indent. The parser
//! says only "did not find expected key" or "mapping values are not allowed in this context",
//! often a line after the mistake; the lines around it tell which key is the odd one out.

use crate::diagnostic::{FileId, Span, narrow};

/// A key indented unlike the keys around it.
#[derive(Debug, PartialEq, Eq)]
pub(crate) struct WrongIndent {
    /// The key, underlined.
    pub span: Span,
    /// The key as written.
    pub key: String,
    /// Spaces before it.
    pub indent: usize,
    /// Spaces before the keys around it.
    pub expected: usize,
    /// A key around it at the expected depth, for the help.
    pub sibling: String,
}

/// One line that holds something: its 0-based number, its start, its indent and its key (when
/// it is a `key:` line).
struct Line<'t> {
    number: usize,
    start: usize,
    indent: usize,
    key: Option<&'t str>,
}

/// The key at the wrong depth near `at` (the byte where the parser stopped), when the lines
/// around it show one: the line there, or the one above it, indented unlike its neighbours.
pub(crate) fn wrong_indent(text: &str, at: usize, file: FileId) -> Option<WrongIndent> {
    let lines = significant(text);
    let here = lines
        .iter()
        .rposition(|line| line.start <= at.min(text.len()))?;
    let indent = |index: Option<usize>| index.and_then(|i| lines.get(i)).map(|l| l.indent);
    let (p2, p1, e, n1) = (
        here.checked_sub(2),
        here.checked_sub(1),
        Some(here),
        Some(here + 1),
    );
    // The line the parser stopped at is the odd one: the lines above and below agree.
    let odd_here = indent(p1).is_some()
        && indent(e) != indent(p1)
        && (indent(n1) == indent(p1) || (indent(n1).is_none() && indent(p2) == indent(p1)));
    // The line above is: the ones above it and the parser's line agree.
    let odd_above = indent(p2).is_some() && indent(p2) == indent(e) && indent(p1) != indent(e);
    let (odd, sibling) = if odd_here {
        (here, p1?)
    } else if odd_above {
        (p1?, here)
    } else {
        return None;
    };
    let (odd, sibling) = (lines.get(odd)?, lines.get(sibling)?);
    let key = odd.key?;
    let column = odd.indent + text[odd.start + odd.indent..].find(key)?;
    Some(WrongIndent {
        span: Span::new(
            file,
            narrow(odd.start + column),
            narrow(key.len().max(1)),
            narrow(odd.number + 1),
            narrow(text[odd.start..odd.start + column].chars().count() + 1),
        ),
        key: key.to_string(),
        indent: odd.indent,
        expected: sibling.indent,
        sibling: sibling.key?.to_string(),
    })
}

/// The lines that hold something (not blank, not only a comment), with their keys.
fn significant(text: &str) -> Vec<Line<'_>> {
    let mut start = 0;
    let mut lines = Vec::new();
    for (number, raw) in text.split_inclusive('\n').enumerate() {
        let line_start = start;
        start += raw.len();
        let content = raw.trim_end_matches(['\n', '\r']);
        let trimmed = content.trim_start_matches(' ');
        if trimmed.is_empty() || trimmed.starts_with('#') {
            continue;
        }
        let indent = content.len() - trimmed.len();
        // A list item's key sits after its dash: `- name: x` is a key `name`.
        let item = trimmed.trim_start_matches("- ").trim_start_matches(' ');
        let key = item
            .split_once(':')
            .map(|(key, _)| key.trim_end())
            .filter(|key| !key.is_empty() && !key.contains([' ', '{', '[', '"', '\'']));
        lines.push(Line {
            number,
            start: line_start,
            indent,
            key,
        });
    }
    lines
}

#[cfg(test)]
mod tests {
    use super::*;

    fn odd(text: &str, line: usize) -> Option<(String, usize, usize, u32)> {
        let at = text
            .split_inclusive('\n')
            .take(line - 1)
            .map(str::len)
            .sum::<usize>();
        wrong_indent(text, at, 0).map(|w| (w.key, w.indent, w.expected, w.span.line))
    }

    #[test]
    fn the_odd_line_is_the_one_the_parser_stopped_at_or_the_one_above() {
        let shallow = "a:\n  b: 1\n c: 2\n  d: 3\n";
        assert_eq!(odd(shallow, 3), Some(("c".into(), 1, 2, 3)));
        let deep = "a:\n  b: 1\n    c: 2\n  d: 3\n";
        assert_eq!(odd(deep, 3), Some(("c".into(), 4, 2, 3)));
        // The parser stops on `d`, the line after the shallow `c`.
        let above = "a:\n  x:\n    b: 1\n  c: 2\n    d: 3\n";
        assert_eq!(odd(above, 5), Some(("c".into(), 2, 4, 4)));
        // Comments and blank lines between do not count.
        let commented = "a:\n  b: 1\n\n  # note\n   c: 2\n  d: 3\n";
        assert_eq!(odd(commented, 5), Some(("c".into(), 3, 2, 5)));
    }

    #[test]
    fn no_guess_when_the_lines_around_do_not_agree() {
        assert_eq!(odd("a: [1, 2\n", 1), None);
        assert_eq!(odd("a:\n  b: 1\n    c: 2\n      d: 3\n", 3), None);
    }
}
