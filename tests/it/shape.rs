//! Files and functions by concern (issue 33): no product file (`src/**/*.rs`, test modules left
//! out) over 1,000 lines, and no function over 80 lines, counted from its signature line to its
//! closing brace. Braces in comments, strings and char literals do not count (the source is read
//! through `layers::code_only`, which blanks them and `#[cfg(test)]` items).

use super::layers::{Source, code_only, is_test, made_up, read_sources};
use std::collections::BTreeMap;

/// The most lines a product file may have.
const FILE_LINES: usize = 1_000;

/// The most lines a function may have, signature line to closing brace.
const FN_LINES: usize = 80;

/// The directories whose long functions are being split in the same round (the engine's
/// `Kind` restructuring); only they may hold an entry of [`LONG_FUNCTIONS`].
const ENGINE: [&str; 5] = [
    "src/plan/",
    "src/apply/",
    "src/drift/",
    "src/writeback/",
    "src/live/",
];

/// Temporary: the functions still over [`FN_LINES`] in [`ENGINE`], each with its length when
/// listed. A listed function may only shrink; one at or under the limit, or gone, must leave the
/// list, so that it empties as the engine's functions are split.
const LONG_FUNCTIONS: &[(&str, &str, usize)] = &[];

#[test]
fn no_product_file_is_over_1000_lines() {
    let long = long_files(&read_sources());
    assert!(
        long.is_empty(),
        "product files over {FILE_LINES} lines (split them by concern):\n{}",
        long.join("\n")
    );
}

#[test]
fn no_function_is_over_80_lines() {
    let problems = function_problems(&long_functions(&read_sources()), LONG_FUNCTIONS);
    assert!(
        problems.is_empty(),
        "functions over {FN_LINES} lines (split them by concern):\n{}",
        problems.join("\n")
    );
}

#[test]
fn the_allow_list_holds_only_the_engines_functions() {
    let outside: Vec<&str> = LONG_FUNCTIONS
        .iter()
        .filter(|(path, _, _)| !ENGINE.iter().any(|dir| path.starts_with(dir)))
        .map(|(path, _, _)| *path)
        .collect();
    assert!(
        outside.is_empty(),
        "allowed outside the engine: {outside:?}"
    );
}

/// The scanner on a made-up crate: a check that cannot fail proves nothing.
#[test]
fn the_scanner_counts_past_braces_in_strings_chars_and_comments() {
    let body = |n: usize| "    let x = 1;\n".repeat(n);
    let tricky = format!(
        "/// Doc with a brace {{\nfn tricky<'a>(s: &'a str) -> char {{\n    \
         let _ = \"}}\"; // }}\n    let _ = r#\"}} \"}}\"#; /* }} /* }} */ */\n{}    '}}'\n}}\n",
        body(80)
    );
    let short = format!(
        "pub(crate) fn short(f: fn(u8) -> u8) -> [u8; 2] {{\n{}    [f(1), 2]\n}}\n",
        body(77)
    );
    let declared = "trait T {\n    fn only_declared(&self);\n}\n";
    let tests = format!(
        "#[cfg(test)]\nmod tests {{\n    fn long_test() {{\n{}    }}\n}}\n",
        body(90)
    );
    let big = "\n".repeat(FILE_LINES + 1);
    let sources = made_up(&[
        ("lib.rs", "pub mod a;\n"),
        ("a.rs", &format!("{tricky}{short}{declared}{tests}")),
        ("a/big.rs", &big),
        (
            "a/tests.rs",
            &format!("{big}fn long() {{\n{}}}\n", body(90)),
        ),
    ]);
    let found = long_functions(&sources);
    assert_eq!(
        found,
        [Long {
            path: "src/a.rs".into(),
            line: 2,
            name: "tricky".into(),
            lines: 85,
        }]
    );
    assert_eq!(
        function_problems(&found, &[]),
        ["src/a.rs:2: fn tricky is 85 lines"]
    );
    assert!(function_problems(&found, &[("src/a.rs", "tricky", 85)]).is_empty());
    assert_eq!(
        function_problems(&found, &[("src/a.rs", "tricky", 84)]),
        ["src/a.rs:2: fn tricky is 85 lines (allowed 84 until split; it may only shrink)"]
    );
    assert_eq!(
        function_problems(&[], &[("src/a.rs", "tricky", 85)]),
        ["src/a.rs: fn tricky is no longer over 80 lines: take it off LONG_FUNCTIONS"]
    );
    assert_eq!(
        long_files(&sources),
        [format!("src/a/big.rs: {} lines", FILE_LINES + 1)]
    );
}

/// A function over [`FN_LINES`].
#[derive(Debug, PartialEq)]
struct Long {
    path: String,
    line: usize,
    name: String,
    lines: usize,
}

/// Each product file over [`FILE_LINES`], as `path: N lines`.
fn long_files(sources: &BTreeMap<Vec<String>, Source>) -> Vec<String> {
    sources
        .iter()
        .filter(|(module, _)| !is_test(module))
        .map(|(_, source)| (source, source.text.lines().count()))
        .filter(|(_, lines)| *lines > FILE_LINES)
        .map(|(source, lines)| format!("{}: {lines} lines", source.path))
        .collect()
}

/// Every function of the product files over [`FN_LINES`], in file and line order.
fn long_functions(sources: &BTreeMap<Vec<String>, Source>) -> Vec<Long> {
    let mut long = Vec::new();
    for (module, source) in sources {
        if is_test(module) {
            continue;
        }
        for (line, name, lines) in functions(&code_only(&source.text)) {
            if lines > FN_LINES {
                let path = source.path.clone();
                long.push(Long {
                    path,
                    line,
                    name,
                    lines,
                });
            }
        }
    }
    long
}

/// What is wrong given the allow-list: a long function not on it, one longer than listed, and
/// a listed one that is no longer long (or gone).
fn function_problems(long: &[Long], allowed: &[(&str, &str, usize)]) -> Vec<String> {
    let listed = |f: &Long| {
        allowed
            .iter()
            .find(|(path, name, _)| *path == f.path && *name == f.name)
    };
    let mut problems: Vec<String> = long
        .iter()
        .filter_map(|f| {
            let at = format!("{}:{}: fn {} is {} lines", f.path, f.line, f.name, f.lines);
            match listed(f) {
                None => Some(at),
                Some((_, _, most)) if f.lines > *most => Some(format!(
                    "{at} (allowed {most} until split; it may only shrink)"
                )),
                Some(_) => None,
            }
        })
        .collect();
    for (path, name, _) in allowed {
        if !long.iter().any(|f| f.path == *path && f.name == *name) {
            problems.push(format!(
                "{path}: fn {name} is no longer over {FN_LINES} lines: take it off LONG_FUNCTIONS"
            ));
        }
    }
    problems
}

/// The functions with a body in `code` (comments and literals already blanked): the line of
/// each `fn`, its name and its length in lines up to its closing brace.
fn functions(code: &str) -> Vec<(usize, String, usize)> {
    let chars: Vec<char> = code.chars().collect();
    let is_ident = |c: char| c.is_alphanumeric() || c == '_';
    let line_of = |at: usize| chars[..at].iter().filter(|c| **c == '\n').count() + 1;
    let mut found = Vec::new();
    for at in 0..chars.len().saturating_sub(2) {
        let keyword = chars[at] == 'f'
            && chars[at + 1] == 'n'
            && (at == 0 || !is_ident(chars[at - 1]))
            && chars[at + 2].is_whitespace();
        if !keyword {
            continue;
        }
        let mut i = at + 2;
        while chars.get(i).is_some_and(|c| c.is_whitespace()) {
            i += 1;
        }
        let name: String = chars[i..].iter().take_while(|c| is_ident(**c)).collect();
        // `fn(u8) -> u8` is a type, not a function.
        if name.is_empty() {
            continue;
        }
        let Some(open) = body_start(&chars, i + name.len()) else {
            continue;
        };
        let Some(close) = matching_brace(&chars, open) else {
            continue;
        };
        let (first, last) = (line_of(at), line_of(close));
        found.push((first, name, last - first + 1));
    }
    found
}

/// Where the body of the function whose signature goes on from `at` opens: the first `{`
/// outside parentheses and brackets; `None` when a `;` ends it first (a declaration).
fn body_start(chars: &[char], at: usize) -> Option<usize> {
    let mut depth = 0usize;
    for (i, c) in chars.iter().enumerate().skip(at) {
        match c {
            '(' | '[' => depth += 1,
            ')' | ']' => depth = depth.saturating_sub(1),
            '{' if depth == 0 => return Some(i),
            ';' if depth == 0 => return None,
            _ => {}
        }
    }
    None
}

/// The `}` closing the `{` at `open`.
fn matching_brace(chars: &[char], open: usize) -> Option<usize> {
    let mut depth = 0usize;
    for (i, c) in chars.iter().enumerate().skip(open) {
        match c {
            '{' => depth += 1,
            '}' => {
                depth -= 1;
                if depth == 0 {
                    return Some(i);
                }
            }
            _ => {}
        }
    }
    None
}
