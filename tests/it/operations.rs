//! The engine asks an operation what it touches and does (`target()`, `effect()`, `name()`)
//! instead of matching on it, so that adding a kind of operation is a compile error wherever it
//! must be handled. Two things would hide such a place from the compiler: a `_ =>` arm in a
//! `match` whose arms are operations, and a `matches!` list of operations (a new create left
//! out of one would take the update path, which resends on a 5xx and can create twice). This
//! reads `src/**/*.rs` (comments, strings and test items left out, as `layers` does) and fails
//! on either.

use std::collections::BTreeMap;

use super::layers::{Source, code_only, is_test, made_up, read_sources};

/// The enums of operations: the outer one and each kind's.
const OPERATION_ENUMS: &[&str] = &[
    "Operation",
    "ServiceOp",
    "PrivateEndpointOp",
    "PipeOp",
    "DashboardOp",
    "AlertOp",
];

#[test]
fn no_wildcard_arm_or_matches_list_over_operations() {
    let found = blind_spots(&read_sources());
    assert!(
        found.is_empty(),
        "operations matched without naming every one (name each, or ask the operation: \
         target(), effect(), name()):\n{}",
        found.join("\n")
    );
}

#[test]
fn the_check_finds_wildcards_and_lists_but_not_exhaustive_matches() {
    let sources = made_up(&[
        (
            "apply/step.rs",
            "fn run(op: &Operation) -> bool {\n    \
             let create = matches!(op, Operation::Dashboard(DashboardOp::Create { .. }));\n    \
             create\n}\n",
        ),
        (
            "apply/write.rs",
            "fn send(op: &Operation) {\n    match op {\n        \
             Operation::Pipe(PipeOp::Delete { pipe_id, .. }) => { drop(pipe_id); }\n        \
             _ => {}\n    }\n}\n",
        ),
        (
            "apply/kinds/pipe.rs",
            "fn send(op: &PipeOp) -> u8 {\n    match op {\n        \
             PipeOp::Scaling { .. } => 1,\n        _ => 2,\n    }\n}\n",
        ),
        (
            "plan/derive.rs",
            "fn name(op: &Operation, n: u8) -> u8 {\n    \
             // matches!(op, Operation::Pipe(_)) in a comment is not code\n    \
             let small = matches!(n, 0 | 1);\n    \
             let word = match n { 0 => \"_ => Operation::\", _ => \"many\" };\n    \
             match op {\n        Operation::Service(_) | Operation::PrivateEndpoint(_) => 1,\n        \
             Operation::Pipe(PipeOp::Scaling { .. } | PipeOp::Delete { .. }) => {\n            \
             if small { 2 } else { 3 }\n        }\n        \
             Operation::Dashboard(_) | Operation::Alert(_) => word.len() as u8,\n    }\n}\n",
        ),
        (
            "plan/tests/fixtures.rs",
            "fn any(op: &Operation) -> bool { matches!(op, Operation::Pipe(_)) }\n",
        ),
    ]);
    assert_eq!(
        blind_spots(&sources),
        [
            "src/apply/kinds/pipe.rs:4: `_ =>` in a match over operations",
            "src/apply/step.rs:2: `matches!` over operations",
            "src/apply/write.rs:4: `_ =>` in a match over operations",
        ]
    );
}

/// Each `matches!` naming an operation enum, and each `_ =>` arm of a `match` whose arms name
/// one, as `file:line: what`, sorted.
fn blind_spots(sources: &BTreeMap<Vec<String>, Source>) -> Vec<String> {
    let mut found = Vec::new();
    for (module, source) in sources {
        if is_test(module) {
            continue;
        }
        let code: Vec<char> = code_only(&source.text).chars().collect();
        let line = |at: usize| code[..at].iter().filter(|c| **c == '\n').count() + 1;
        for at in words(&code, "matches") {
            let open = skip_space(&code, at + "matches".len());
            if code.get(open) != Some(&'!') {
                continue;
            }
            let open = skip_space(&code, open + 1);
            let args: String = code[open..closing(&code, open)].iter().collect();
            if names_operation(&args) {
                found.push(format!(
                    "{}:{}: `matches!` over operations",
                    source.path,
                    line(at)
                ));
            }
        }
        for at in words(&code, "match") {
            let Some(open) = (at..code.len()).find(|i| code[*i] == '{') else {
                continue;
            };
            let arms = patterns(&code[open + 1..closing(&code, open).saturating_sub(1)]);
            if !arms.iter().any(|(_, pattern)| names_operation(pattern)) {
                continue;
            }
            for (offset, pattern) in &arms {
                let pattern = pattern.trim();
                if pattern == "_" || pattern.starts_with("_ if") {
                    found.push(format!(
                        "{}:{}: `_ =>` in a match over operations",
                        source.path,
                        line(open + 1 + offset)
                    ));
                }
            }
        }
    }
    found.sort();
    found
}

/// Where `word` starts as a whole word.
fn words(code: &[char], word: &str) -> Vec<usize> {
    let word: Vec<char> = word.chars().collect();
    let ident = |c: &char| c.is_alphanumeric() || *c == '_';
    (0..code.len())
        .filter(|at| code[*at..].starts_with(&word))
        .filter(|at| *at == 0 || !ident(&code[at - 1]))
        .filter(|at| code.get(at + word.len()).is_none_or(|c| !ident(c)))
        .collect()
}

fn skip_space(code: &[char], mut at: usize) -> usize {
    while code.get(at).is_some_and(|c| c.is_whitespace()) {
        at += 1;
    }
    at
}

/// Just past the bracket that closes the one at `open` (`(`, `[` or `{`).
fn closing(code: &[char], open: usize) -> usize {
    let mut depth = 0usize;
    for (i, c) in code.iter().enumerate().skip(open) {
        match c {
            '(' | '[' | '{' => depth += 1,
            ')' | ']' | '}' => {
                depth = depth.saturating_sub(1);
                if depth == 0 {
                    return i + 1;
                }
            }
            _ => {}
        }
    }
    code.len()
}

/// The arms of a match block's inside: each pattern (the text before its `=>`) with its
/// offset. An arm's body is a `{...}` block or an expression up to the next top-level `,`.
fn patterns(block: &[char]) -> Vec<(usize, String)> {
    let mut arms = Vec::new();
    let mut at = 0;
    while at < block.len() {
        let start = skip_space(block, at);
        let mut depth = 0usize;
        let mut i = start;
        let arrow = loop {
            match block.get(i) {
                None => break None,
                Some('(' | '[' | '{') => depth += 1,
                Some(')' | ']' | '}') => depth = depth.saturating_sub(1),
                Some('=') if depth == 0 && block.get(i + 1) == Some(&'>') => break Some(i),
                Some(_) => {}
            }
            i += 1;
        };
        let Some(arrow) = arrow else { break };
        arms.push((start, block[start..arrow].iter().collect()));
        let body = skip_space(block, arrow + 2);
        at = if block.get(body) == Some(&'{') {
            let end = closing(block, body);
            if block.get(skip_space(block, end)) == Some(&',') {
                skip_space(block, end) + 1
            } else {
                end
            }
        } else {
            let mut depth = 0usize;
            let mut i = body;
            while let Some(c) = block.get(i) {
                match c {
                    '(' | '[' | '{' => depth += 1,
                    ')' | ']' | '}' => depth = depth.saturating_sub(1),
                    ',' if depth == 0 => break,
                    _ => {}
                }
                i += 1;
            }
            i + 1
        };
    }
    arms
}

/// Whether code names a variant of an operation enum (`Operation::`, `PipeOp::`...).
fn names_operation(code: &str) -> bool {
    OPERATION_ENUMS.iter().any(|name| {
        let path = format!("{name}::");
        code.match_indices(&path).any(|(at, _)| {
            code[..at]
                .chars()
                .next_back()
                .is_none_or(|c| !(c.is_alphanumeric() || c == '_'))
        })
    })
}
