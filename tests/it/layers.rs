//! The layers go one way (DESIGN section 2). The order is written once, as the `# Layers` list
//! at the top of `src/lib.rs`; these tests read it and every `src/**/*.rs`, and fail on a
//! `crate::` path (or a `super::` path that leaves the top-level module) that reaches a module
//! listed after the one it is written in, and on any import cycle between files: a child
//! importing its parent file, two siblings importing each other. Test code (`#[cfg(test)]`
//! items, `tests.rs` and `tests/` modules) is left out: it may reach across layers.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

#[test]
fn no_module_uses_a_module_above_it() {
    let sources = read_sources();
    let order = layer_order(&sources);
    let problems = layer_violations(&order, &sources);
    assert!(
        problems.is_empty(),
        "paths against the layer order of src/lib.rs:\n{}",
        problems.join("\n")
    );
}

#[test]
fn the_layer_list_names_every_top_level_module_once() {
    let sources = read_sources();
    let order = layer_order(&sources);
    let unique: BTreeSet<&String> = order.iter().collect();
    assert_eq!(
        unique.len(),
        order.len(),
        "a module listed twice: {order:?}"
    );
    let declared: BTreeSet<String> = sources
        .keys()
        .filter(|module| module.len() == 1)
        .map(|module| module[0].clone())
        .collect();
    let listed: BTreeSet<String> = order.into_iter().collect();
    assert_eq!(
        listed, declared,
        "the `# Layers` list of src/lib.rs and the modules differ"
    );
}

#[test]
fn no_import_cycle_between_files() {
    let sources = read_sources();
    let cycles: Vec<String> = file_cycles(&sources)
        .into_iter()
        .map(|cycle| format!("  {}", cycle.join(" <-> ")))
        .collect();
    assert!(
        cycles.is_empty(),
        "files that import each other, directly or through others (a child must not import \
         its parent: put what they share in a sibling file):\n{}",
        cycles.join("\n")
    );
}

#[test]
fn architecture_names_only_paths_that_exist_and_every_kind_directory() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let text = std::fs::read_to_string(root.join("ARCHITECTURE.md")).expect("ARCHITECTURE.md");
    let missing = missing_paths(root, &text);
    assert!(
        missing.is_empty(),
        "ARCHITECTURE.md names paths that do not exist: {missing:?}"
    );
    // The per-kind directories it promises hold a file for every kind they list.
    for layer in ["plan", "apply", "export"] {
        for kind in ["service", "private_endpoint", "pipe", "dashboard", "alert"] {
            let file = root.join(format!("src/{layer}/kinds/{kind}.rs"));
            assert!(file.is_file(), "no {}", file.display());
        }
    }
}

/// The repository paths (`src/...`, `tests/...`, `schema/...`, `benches/...`) quoted in
/// backticks in `text` that do not exist; a `<kind>` placeholder is read as `pipe`, and text
/// after `::` or a space (a path and an item) is left out.
fn missing_paths(root: &Path, text: &str) -> Vec<String> {
    text.split('`')
        .skip(1)
        .step_by(2)
        .filter(|quoted| {
            ["src/", "tests/", "schema/", "benches/"]
                .iter()
                .any(|prefix| quoted.starts_with(prefix))
        })
        .map(|quoted| quoted.split([' ', ':']).next().unwrap_or(quoted))
        .map(|path| path.replace("<kind>", "pipe").replace("*.rs", ""))
        .filter(|path| !root.join(path).exists())
        .collect()
}

#[test]
fn the_architecture_check_reports_a_path_that_is_not_there() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let text = "`src/plan/kinds/<kind>.rs` and `src/plan/nowhere.rs` and `src/lib.rs` and `cargo`";
    assert_eq!(missing_paths(root, text), vec!["src/plan/nowhere.rs"]);
}

/// The checks themselves, on small made-up crates: a test that cannot fail proves nothing.
#[test]
fn the_checks_report_paths_up_the_layers_and_loops_but_not_comments_or_tests() {
    let lib = "//! # Layers\n//!\n//! - `output`: the printer.\n//! - `cli`: the parser.\n//!\n\
               //! # Other\n//!\n//! - `nothing`: not a layer.\npub mod cli;\npub mod output;\n";
    let output = "//! Uses nothing above it, but `crate::cli` in a comment.\n\
                  use crate::error::Result; // crate::cli::Cli\n\
                  const WORDS: &str = \"crate::cli\";\n\
                  pub fn new() -> Printer {\n    crate::cli::default_printer()\n}\n\
                  const RAW: &str = r#\"crate::cli \"quoted\"\"#;\n\
                  pub(crate) fn plain() -> char {\n    '\"'\n}\n\
                  #[cfg(test)]\nmod tests {\n    use crate::cli::Cli;\n}\n";
    let cli = "use crate::{output::Printer, error};\n";
    let sources = made_up(&[("lib.rs", lib), ("output.rs", output), ("cli.rs", cli)]);
    assert_eq!(layer_order(&sources), ["output", "cli"]);
    assert_eq!(
        layer_violations(&["output".into(), "cli".into()], &sources),
        ["src/output.rs:5: `crate::cli` is above `output` in the layer order"]
    );

    let grouped = made_up(&[
        ("lib.rs", lib),
        ("output.rs", "use crate::{error, cli::Cli};\n"),
    ]);
    let found = layer_violations(&["output".into(), "cli".into()], &grouped);
    assert_eq!(
        found,
        ["src/output.rs:1: `crate::cli` is above `output` in the layer order"]
    );

    let looped = made_up(&[
        ("lib.rs", "pub mod apply;\n"),
        (
            "apply/mod.rs",
            "mod step;\nmod report;\npub struct Options;\n",
        ),
        ("apply/step.rs", "use super::report::Report;\n"),
        ("apply/report.rs", "use super::Options;\n"),
    ]);
    assert_eq!(
        file_cycles(&looped),
        [["apply", "apply/report", "apply/step"]]
    );

    let siblings = made_up(&[
        ("lib.rs", "pub mod sandbox;\n"),
        ("sandbox/mod.rs", "mod seed;\nmod store;\n"),
        ("sandbox/seed.rs", "use super::{store::World};\n"),
        ("sandbox/store.rs", "fn load() { super::seed::fill(); }\n"),
    ]);
    assert_eq!(file_cycles(&siblings), [["sandbox/seed", "sandbox/store"]]);

    let tidy = made_up(&[
        ("lib.rs", "pub mod apply;\n"),
        (
            "apply/mod.rs",
            "mod model;\nmod step;\npub use model::Options;\npub(crate) use step::run;\n",
        ),
        ("apply/model.rs", "pub struct Options;\n"),
        (
            "apply/step.rs",
            "use super::model::Options;\npub(super) fn run() {}\n\
             #[cfg(test)]\nmod tests {\n    use super::super::Options;\n}\n",
        ),
    ]);
    assert!(file_cycles(&tidy).is_empty());
}

/// A source file: its path under `src/` and its text.
pub(super) struct Source {
    pub(super) path: String,
    pub(super) text: String,
}

/// Every `src/**/*.rs`, by module path (`["apply", "step"]`; the crate root is `[]`).
pub(super) fn read_sources() -> BTreeMap<Vec<String>, Source> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    collect(&root, &root, &mut files);
    assert!(files.len() > 20, "src/ was not found: {}", root.display());
    made_up(
        &files
            .iter()
            .map(|(p, t)| (p.as_str(), t.as_str()))
            .collect::<Vec<_>>(),
    )
}

fn collect(root: &Path, dir: &Path, files: &mut Vec<(String, String)>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            collect(root, &path, files);
        } else if path.extension().is_some_and(|e| e == "rs") {
            let relative = path
                .strip_prefix(root)
                .unwrap()
                .to_string_lossy()
                .replace('\\', "/");
            files.push((relative, std::fs::read_to_string(&path).unwrap()));
        }
    }
}

/// Sources from `(path under src/, text)` pairs; `main.rs` (the binary) is left out.
pub(super) fn made_up(files: &[(&str, &str)]) -> BTreeMap<Vec<String>, Source> {
    files
        .iter()
        .filter(|(path, _)| *path != "main.rs")
        .map(|(path, text)| {
            let mut module: Vec<String> = path
                .trim_end_matches(".rs")
                .split('/')
                .map(str::to_string)
                .collect();
            if module
                .last()
                .is_some_and(|last| last == "mod" || last == "lib")
            {
                module.pop();
            }
            let source = Source {
                path: format!("src/{path}"),
                text: text.to_string(),
            };
            (module, source)
        })
        .collect()
}

/// The `# Layers` list of the crate root's doc: `//! - \`name\`: ...` lines, lowest first.
fn layer_order(sources: &BTreeMap<Vec<String>, Source>) -> Vec<String> {
    let lib = &sources[&Vec::new()].text;
    let mut order = Vec::new();
    let mut in_section = false;
    for line in lib.lines().take_while(|line| line.starts_with("//!")) {
        let line = line.trim_start_matches("//!").trim();
        if line.starts_with('#') {
            in_section = line == "# Layers";
        } else if in_section && let Some(item) = line.strip_prefix("- `") {
            let name: String = item.chars().take_while(|c| *c != '`').collect();
            order.push(name);
        }
    }
    assert!(!order.is_empty(), "src/lib.rs has no `# Layers` list");
    order
}

/// Whether a module is test code, left out of both checks.
pub(super) fn is_test(module: &[String]) -> bool {
    module.iter().any(|segment| segment == "tests")
}

/// Every `crate::` path reaching a module listed after the file's own, as `file:line: why`.
fn layer_violations(order: &[String], sources: &BTreeMap<Vec<String>, Source>) -> Vec<String> {
    let rank = |name: &str| order.iter().position(|o| o == name);
    let mut problems = Vec::new();
    for (module, source) in sources {
        let Some(own) = module.first().filter(|_| !is_test(module)) else {
            continue;
        };
        let Some(own_rank) = rank(own) else {
            continue;
        };
        for (line, path) in paths(module, &code_only(&source.text)) {
            let Some(target) = path.first() else { continue };
            if rank(target).is_some_and(|r| r > own_rank) {
                let why = format!("`crate::{target}` is above `{own}` in the layer order");
                problems.push((source.path.clone(), line, why));
            }
        }
    }
    problems.sort();
    problems.dedup();
    problems
        .into_iter()
        .map(|(path, line, why)| format!("{path}:{line}: {why}"))
        .collect()
}

/// The file-level import graph's cycles, each as its files' module paths (`apply/step`),
/// sorted. Edges: a parent file to each child it declares, and a file to the file each of its
/// `crate::`, `super::` and `self::` paths names (the longest prefix that is a file).
fn file_cycles(sources: &BTreeMap<Vec<String>, Source>) -> Vec<Vec<String>> {
    let nodes: Vec<&Vec<String>> = sources
        .keys()
        .filter(|m| !m.is_empty() && !is_test(m))
        .collect();
    let mut edges: BTreeMap<&Vec<String>, BTreeSet<&Vec<String>>> = BTreeMap::new();
    for module in &nodes {
        let entry = edges.entry(module).or_default();
        let code = code_only(&sources[*module].text);
        for (_, path) in paths(module, &code) {
            if let Some(file) = (0..=path.len())
                .rev()
                .map(|n| path[..n].to_vec())
                .find(|prefix| sources.contains_key(prefix))
                .and_then(|prefix| nodes.iter().find(|n| ***n == prefix))
                && file != module
            {
                entry.insert(file);
            }
        }
        if module.len() > 1 {
            let parent = module[..module.len() - 1].to_vec();
            if let Some(parent) = nodes.iter().find(|n| ***n == parent) {
                edges.entry(parent).or_default().insert(module);
            }
        }
    }
    // Strongly connected components (Tarjan); a component of two or more files is a cycle.
    struct Walk<'a> {
        edges: &'a BTreeMap<&'a Vec<String>, BTreeSet<&'a Vec<String>>>,
        index: BTreeMap<&'a Vec<String>, usize>,
        low: BTreeMap<&'a Vec<String>, usize>,
        stack: Vec<&'a Vec<String>>,
        components: Vec<Vec<String>>,
    }
    fn visit<'a>(walk: &mut Walk<'a>, node: &'a Vec<String>) {
        let at = walk.index.len();
        walk.index.insert(node, at);
        walk.low.insert(node, at);
        walk.stack.push(node);
        let edges = walk.edges;
        for next in edges.get(node).into_iter().flatten() {
            if !walk.index.contains_key(*next) {
                visit(walk, next);
                let low = walk.low[node].min(walk.low[*next]);
                walk.low.insert(node, low);
            } else if walk.stack.contains(next) {
                let low = walk.low[node].min(walk.index[*next]);
                walk.low.insert(node, low);
            }
        }
        if walk.low[node] == walk.index[node] {
            let mut component = Vec::new();
            while let Some(member) = walk.stack.pop() {
                component.push(member.join("/"));
                if member == node {
                    break;
                }
            }
            if component.len() > 1 {
                component.sort();
                walk.components.push(component);
            }
        }
    }
    let mut walk = Walk {
        edges: &edges,
        index: BTreeMap::new(),
        low: BTreeMap::new(),
        stack: Vec::new(),
        components: Vec::new(),
    };
    for node in &nodes {
        if !walk.index.contains_key(*node) {
            visit(&mut walk, node);
        }
    }
    walk.components.sort();
    walk.components
}

/// The paths in `code` that start with `crate`, `super` or `self`, as absolute module paths
/// (a `use a::{b, c::d}` group gives one per member), with their line numbers.
fn paths(module: &[String], code: &str) -> Vec<(usize, Vec<String>)> {
    let chars: Vec<char> = code.chars().collect();
    let mut found = Vec::new();
    let mut at = 0;
    while at < chars.len() {
        let starts_word = at == 0 || !(chars[at - 1].is_alphanumeric() || chars[at - 1] == '_');
        let word = ident(&chars, at);
        if !starts_word || !matches!(word.as_str(), "crate" | "super" | "self") {
            at += word.len().max(1);
            continue;
        }
        // `$crate` in a macro is the crate root too; `pub(crate)`, `pub(super)` are no paths.
        let before: String = chars[..at].iter().filter(|c| !c.is_whitespace()).collect();
        if before.ends_with("pub(") || before.ends_with("pub(in") {
            at += word.len();
            continue;
        }
        let line = chars[..at].iter().filter(|c| **c == '\n').count() + 1;
        let mut segments = Vec::new();
        let end = path_at(&chars, at, &mut segments, &mut |segments| {
            if let Some(path) = absolute(module, segments) {
                found.push((line, path));
            }
        });
        at = end.max(at + 1);
    }
    found
}

/// Reads the path starting at `at` (its segments appended to `prefix`), calling `done` for
/// each complete path (several for a `{...}` group); returns where it ended.
fn path_at(
    chars: &[char],
    mut at: usize,
    prefix: &mut Vec<String>,
    done: &mut dyn FnMut(&[String]),
) -> usize {
    let depth = prefix.len();
    loop {
        at = skip_space(chars, at);
        if chars.get(at) == Some(&'{') {
            at += 1;
            loop {
                at = skip_space(chars, at);
                match chars.get(at) {
                    Some('}') => {
                        at += 1;
                        break;
                    }
                    Some(',') => at += 1,
                    Some(_) => {
                        let mut member = prefix.clone();
                        let end = path_at(chars, at, &mut member, done);
                        at = end.max(at + 1);
                    }
                    None => break,
                }
            }
            prefix.truncate(depth);
            return at;
        }
        let word = ident(chars, at);
        if word.is_empty() {
            break;
        }
        prefix.push(word.clone());
        at += word.len();
        let after = skip_space(chars, at);
        if chars.get(after) == Some(&':') && chars.get(after + 1) == Some(&':') {
            at = after + 2;
        } else {
            break;
        }
    }
    if !prefix.is_empty() {
        done(prefix);
    }
    at
}

/// The module path a path names, from the crate root; `None` when it is relative.
fn absolute(module: &[String], segments: &[String]) -> Option<Vec<String>> {
    let mut base: Vec<String> = module.to_vec();
    let mut rest = segments;
    match rest.first().map(String::as_str) {
        Some("crate") => {
            base.clear();
            rest = &rest[1..];
        }
        Some("super") | Some("self") => {
            while let Some(first) = rest.first() {
                match first.as_str() {
                    "super" => {
                        base.pop()?;
                    }
                    "self" => {}
                    _ => break,
                }
                rest = &rest[1..];
            }
        }
        _ => return None,
    }
    base.extend(rest.iter().cloned());
    Some(base)
}

fn ident(chars: &[char], at: usize) -> String {
    chars[at..]
        .iter()
        .take_while(|c| c.is_alphanumeric() || **c == '_')
        .collect()
}

fn skip_space(chars: &[char], mut at: usize) -> usize {
    while chars.get(at).is_some_and(|c| c.is_whitespace()) {
        at += 1;
    }
    at
}

/// The code of a file with comments, string and char literals and `#[cfg(test)]` items blanked
/// out (line breaks kept, so line numbers hold).
pub(super) fn code_only(text: &str) -> String {
    let chars: Vec<char> = text.chars().collect();
    let mut out: Vec<char> = Vec::with_capacity(chars.len());
    let blank = |c: char| if c == '\n' { '\n' } else { ' ' };
    let mut at = 0;
    while at < chars.len() {
        let rest = &chars[at..];
        let starts = |s: &str| rest.iter().take(s.len()).copied().eq(s.chars());
        let end = if starts("//") {
            rest.iter()
                .position(|c| *c == '\n')
                .map_or(chars.len(), |n| at + n)
        } else if starts("/*") {
            let mut depth = 0;
            let mut i = at;
            while i < chars.len() {
                if chars[i..].starts_with(&['/', '*']) {
                    depth += 1;
                    i += 2;
                } else if chars[i..].starts_with(&['*', '/']) {
                    depth -= 1;
                    i += 2;
                    if depth == 0 {
                        break;
                    }
                } else {
                    i += 1;
                }
            }
            i
        } else if let Some(hashes) = raw_string_start(rest)
            && (at == 0 || !(chars[at - 1].is_alphanumeric() || chars[at - 1] == '_'))
        {
            let close: Vec<char> = std::iter::once('"')
                .chain(std::iter::repeat_n('#', hashes))
                .collect();
            let open = at + 2 + hashes + usize::from(rest[0] == 'b');
            (open..chars.len())
                .find(|i| chars[*i..].starts_with(&close))
                .map_or(chars.len(), |i| i + close.len())
        } else if rest[0] == '"' {
            let mut i = at + 1;
            while i < chars.len() && chars[i] != '"' {
                i += if chars[i] == '\\' { 2 } else { 1 };
            }
            i + 1
        } else if rest[0] == '\'' && (rest.get(1) == Some(&'\\') || rest.get(2) == Some(&'\'')) {
            let mut i = at + 1;
            while i < chars.len() && chars[i] != '\'' {
                i += if chars[i] == '\\' { 2 } else { 1 };
            }
            i + 1
        } else {
            out.push(rest[0]);
            at += 1;
            continue;
        };
        let end = end.min(chars.len());
        out.extend(chars[at..end].iter().map(|c| blank(*c)));
        at = end;
    }
    blank_test_items(&out)
}

/// `r"`, `r#"`, `br"`...: the number of `#`.
fn raw_string_start(rest: &[char]) -> Option<usize> {
    let after_b = if rest.first() == Some(&'b') {
        &rest[1..]
    } else {
        rest
    };
    if after_b.first() != Some(&'r') {
        return None;
    }
    let hashes = after_b[1..].iter().take_while(|c| **c == '#').count();
    (after_b.get(1 + hashes) == Some(&'"')).then_some(hashes)
}

/// Blanks each item marked `#[cfg(test)]`: up to its `;`, or its `{...}` block.
fn blank_test_items(code: &[char]) -> String {
    let mut out = code.to_vec();
    let marker: Vec<char> = "#[cfg(test)]".chars().collect();
    let mut at = 0;
    while let Some(start) = (at..out.len()).find(|i| out[*i..].starts_with(&marker)) {
        let mut i = start + marker.len();
        let mut depth = 0usize;
        while i < out.len() {
            match out[i] {
                '{' => depth += 1,
                '}' => {
                    depth = depth.saturating_sub(1);
                    if depth == 0 {
                        i += 1;
                        break;
                    }
                }
                ';' if depth == 0 => {
                    i += 1;
                    break;
                }
                _ => {}
            }
            i += 1;
        }
        for c in &mut out[start..i.min(code.len())] {
            if *c != '\n' {
                *c = ' ';
            }
        }
        at = i;
    }
    out.into_iter().collect()
}
