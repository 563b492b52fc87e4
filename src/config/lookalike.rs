//! Names that do not print as what they are: a zero-width character, a blank at either end, or a
//! Cyrillic or Greek letter among Latin ones. Names identify dashboards, alerts and tiles, so
//! `API health` and `API health` with a zero-width space are two dashboards that read the same
//! in every plan. These are warnings (such a name may be wanted), at the line of the name.
//!
//! | Code | Warns about |
//! |---|---|
//! | `semantic::invisible-characters` | a name holding an invisible character or starting or ending with a blank |
//! | `semantic::confusable-name` | a name mixing Latin with look-alike Cyrillic or Greek letters, or two names of one scope that differ only by look-alikes, invisible characters or blanks |

use smol_str::SmolStr;
use std::collections::HashMap;

use super::model::Located;
use crate::diagnostic::{Code, Diagnostic};
use crate::output::{is_invisible, reveal};

/// The Latin letter a Cyrillic or Greek letter is drawn like, in the usual fonts.
fn latin_look_alike(c: char) -> Option<char> {
    let latin = match c {
        // Cyrillic
        'А' => 'A',
        'В' => 'B',
        'Е' => 'E',
        'К' => 'K',
        'М' => 'M',
        'Н' | 'Һ' => 'H',
        'О' => 'O',
        'Р' => 'P',
        'С' => 'C',
        'Т' => 'T',
        'Х' => 'X',
        'У' | 'Ү' => 'Y',
        'І' | 'Ӏ' => 'I',
        'Ј' => 'J',
        'Ѕ' => 'S',
        'Ԛ' => 'Q',
        'Ԝ' => 'W',
        'а' => 'a',
        'е' => 'e',
        'о' => 'o',
        'р' => 'p',
        'с' => 'c',
        'у' | 'ү' => 'y',
        'х' => 'x',
        'і' => 'i',
        'ј' => 'j',
        'ѕ' => 's',
        'ԁ' => 'd',
        'ԛ' => 'q',
        'ԝ' => 'w',
        'һ' => 'h',
        'ӏ' => 'l',
        // Greek
        'Α' => 'A',
        'Β' => 'B',
        'Ε' => 'E',
        'Ζ' => 'Z',
        'Η' => 'H',
        'Ι' => 'I',
        'Κ' => 'K',
        'Μ' => 'M',
        'Ν' => 'N',
        'Ο' => 'O',
        'Ρ' => 'P',
        'Τ' => 'T',
        'Υ' => 'Y',
        'Χ' => 'X',
        'ο' => 'o',
        'ν' => 'v',
        'ρ' => 'p',
        'α' => 'a',
        'ι' => 'i',
        // Fullwidth forms of ASCII
        '\u{ff01}'..='\u{ff5e}' => char::from_u32(c as u32 - 0xfee0)?,
        _ => return None,
    };
    Some(latin)
}

/// What a name looks like: invisible characters dropped, look-alikes drawn as the Latin letter,
/// blanks trimmed and collapsed. Two names with one skeleton are hard to tell apart.
pub(crate) fn skeleton(name: &str) -> String {
    let mut out = String::with_capacity(name.len());
    for c in name.chars() {
        if c.is_whitespace() {
            if !out.is_empty() && !out.ends_with(' ') {
                out.push(' ');
            }
        } else if !is_invisible(c) {
            out.push(latin_look_alike(c).unwrap_or(c));
        }
    }
    let kept = out.trim_end().len();
    out.truncate(kept);
    out
}

/// The code points of what makes `name` print other than it reads, for messages.
fn describe(chars: impl Iterator<Item = char>) -> String {
    let mut seen: Vec<char> = Vec::new();
    for c in chars {
        if !seen.contains(&c) {
            seen.push(c);
        }
    }
    seen.iter()
        .take(4)
        .map(|c| format!("U+{:04X}", *c as u32))
        .collect::<Vec<_>>()
        .join(", ")
}

/// Checks the names of one scope (the dashboards of a stack, the tiles of a dashboard, the
/// alerts of a stack), in config order.
#[derive(Default)]
pub(crate) struct Lookalikes<'a> {
    seen: HashMap<String, &'a Located<SmolStr>>,
}

impl<'a> Lookalikes<'a> {
    /// Warns about `name` on its own, and when it looks like an earlier name of the scope.
    pub(crate) fn check(
        &mut self,
        kind: &str,
        name: &'a Located<SmolStr>,
        diags: &mut Vec<Diagnostic>,
    ) {
        let text = name.value.as_str();
        let shown = reveal(text);
        let invisible: Vec<char> = text.chars().filter(|c| is_invisible(*c)).collect();
        if !invisible.is_empty() || text.trim() != text {
            let what = if invisible.is_empty() {
                "a blank at its start or end".to_string()
            } else {
                format!("invisible characters ({})", describe(invisible.into_iter()))
            };
            diags.push(
                Diagnostic::warning(
                    Code::SemanticInvisibleCharacters,
                    format!("{kind} name `{shown}` has {what}, so it does not print as written"),
                    Some(name.span),
                )
                .with_label("invisible here")
                .with_help("remove them unless the live object's name really holds them"),
            );
        }
        let has_latin = text.chars().any(|c| c.is_ascii_alphabetic());
        let foreign: Vec<char> = text
            .chars()
            .filter(|c| !c.is_ascii() && latin_look_alike(*c).is_some())
            .collect();
        if has_latin && !foreign.is_empty() {
            diags.push(
                Diagnostic::warning(
                    Code::SemanticConfusableName,
                    format!(
                        "{kind} name `{shown}` mixes Latin letters with look-alikes from another script ({}); it reads as `{}`",
                        describe(foreign.into_iter()),
                        skeleton(text)
                    ),
                    Some(name.span),
                )
                .with_label("look-alike letters")
                .with_help("type the name again in one script"),
            );
        }
        let key = skeleton(text);
        match self.seen.get(&key) {
            // The same text twice is a duplicate name, an error of its own.
            Some(first) if first.value != name.value => diags.push(
                Diagnostic::warning(
                    Code::SemanticConfusableName,
                    format!(
                        "{kind} name `{shown}` looks like {kind} name `{}` but differs (look-alike letters, invisible characters or blanks)",
                        reveal(&first.value)
                    ),
                    Some(name.span),
                )
                .with_label("looks like the other")
                .with_related(first.span, "the name it looks like")
                .with_help("give the two clearly different names, or make them the same object"),
            ),
            Some(_) => {}
            None => {
                self.seen.insert(key, name);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::diagnostic::Span;

    fn located(text: &str, line: usize) -> Located<SmolStr> {
        Located::new(
            SmolStr::new(text),
            Span::new(0, 0, 0, crate::diagnostic::narrow(line), 0),
        )
    }

    fn codes(names: &[Located<SmolStr>]) -> Vec<(Code, usize)> {
        let mut diags = Vec::new();
        let mut scope = Lookalikes::default();
        for name in names {
            scope.check("dashboard", name, &mut diags);
        }
        diags
            .into_iter()
            .map(|d| (d.code, d.span.map_or(0, |s| s.line as usize)))
            .collect()
    }

    #[test]
    fn skeletons_fold_look_alikes_invisibles_and_blanks() {
        assert_eq!(skeleton("АРІ health"), "API health");
        assert_eq!(skeleton(" API\u{200b}  health\u{a0}"), "API health");
        assert_eq!(skeleton("ＡＰＩ"), "API");
        assert_eq!(skeleton("Café Überblick"), "Café Überblick");
    }

    #[test]
    fn plain_names_and_one_script_pass() {
        let names = [
            located("API health", 1),
            located("Панель", 2),
            located("p95 (μs)", 3),
        ];
        assert!(codes(&names).is_empty(), "{:?}", codes(&names));
    }

    #[test]
    fn each_kind_is_warned_at_its_line() {
        let names = [
            located("API health", 1),
            located("API health\u{200b}", 2),
            located("Аpi errors", 3),
            located("Requests ", 4),
        ];
        assert_eq!(
            codes(&names),
            [
                (Code::SemanticInvisibleCharacters, 2),
                (Code::SemanticConfusableName, 2),
                (Code::SemanticConfusableName, 3),
                (Code::SemanticInvisibleCharacters, 4),
            ]
        );
    }
}
