//! The engine asks an operation what it touches and does (`target()`, `effect()`, `name()`)
//! instead of matching on it, so that adding a kind of operation is a compile error wherever it
//! must be handled. What would hide such a place from the compiler, or make a kind's meaning
//! live outside its files:
//!
//! - a `_ =>` arm in a `match` whose arms are operations, and a `matches!` list of operations
//!   (a new create left out of one would take the update path, which resends on a 5xx and can
//!   create twice);
//! - a `_ =>` arm in a `match` over addresses or targets (an address or a target of a kind
//!   someone forgot would fall into it);
//! - an operation's `op` tag compared as text (`name().op == "pipe-replace"`, a tag written
//!   outside its kind's `op.rs`): the kind's effect or its own methods say it;
//! - `if let Operation::...` outside a kind's files: one kind picked out by the engine.
//!
//! This reads `src/**/*.rs` (comments, strings and test items left out, as `layers` does) and
//! fails on any of them. [`kind_names_stay_home`] counts the files each kind is named in
//! outside its homes, a bound that may only go down; [`a_kinds_live_side_stays_home`] keeps
//! each kind's fingerprint, normalizers and ownership rule in its `live.rs` and bounds the
//! files outside it that import them or name a target; [`a_kind_is_named_in_a_bounded_set_of_files`]
//! bounds, per kind, the files outside its own and the registration files (the kinds' table,
//! addresses, targets) that name any of its operations, targets, addresses or lists.

use std::collections::BTreeMap;

use super::layers::{Source, code_only, is_test, made_up, read_sources};

/// The enums a `_ =>` arm must not hide a variant of: addresses, targets and lists.
const KIND_ENUMS: &[&str] = &["Address", "AddressBuf", "Target", "List"];

/// The enums of operations: the outer one and each kind's.
const OPERATION_ENUMS: &[&str] = &[
    "Operation",
    "ServiceOp",
    "PrivateEndpointOp",
    "PipeOp",
    "DashboardOp",
    "AlertOp",
    "WebhookOp",
    "ReverseEndpointOp",
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
            "plan/trust/steps.rs",
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

#[test]
fn no_wildcard_arm_over_addresses_or_targets() {
    let found = wildcards_over(&read_sources(), KIND_ENUMS, "addresses or targets");
    assert!(
        found.is_empty(),
        "addresses or targets matched with a `_ =>` arm (name every kind, or ask the address: \
         service(), stack(), config_pipe()):\n{}",
        found.join("\n")
    );
}

#[test]
fn no_op_tag_compared_and_no_kind_picked_out_by_if_let() {
    let sources = read_sources();
    let mut found = op_tags_outside_kinds(&sources);
    found.extend(picked_out(&sources));
    found.sort();
    assert!(
        found.is_empty(),
        "an operation's kind decided outside its files (ask the operation: effect(), fits(), \
         target(); or give its kind a method):\n{}",
        found.join("\n")
    );
}

#[test]
fn the_checks_find_tags_picks_and_wildcards_over_addresses() {
    let sources = made_up(&[
        (
            "apply/step.rs",
            "fn run(op: &Operation) -> bool {\n    \
             // name().op == \"pipe-replace\" in a comment is not code\n    \
             if op.name().op == \"pipe-replace\" { return true; }\n    \
             if let Operation::Pipe(pipe) = op { drop(pipe); }\n    false\n}\n",
        ),
        (
            "plan/trust/steps.rs",
            "fn service(a: &Address) -> Option<&str> {\n    match a {\n        \
             Address::ServiceScaling { service } => Some(service),\n        _ => None,\n    \
             }\n}\n",
        ),
        (
            "plan/kinds/pipe/op.rs",
            "#[serde(rename = \"pipe-replace\")]\nfn name(op: &PipeOp) -> &str {\n    \
             if let PipeOp::Replace { .. } = op { \"pipe-replace\" } else { \"pipe\" }\n}\n",
        ),
        (
            "apply/kinds/pipe.rs",
            "fn send(op: &Operation) { if let Operation::Pipe(_) = op {} }\n",
        ),
    ]);
    let mut found = op_tags_outside_kinds(&sources);
    found.extend(picked_out(&sources));
    found.extend(wildcards_over(&sources, KIND_ENUMS, "addresses or targets"));
    found.sort();
    assert_eq!(
        found,
        [
            "src/apply/step.rs:3: `\"pipe-replace\"` (an op tag) outside its kind's op.rs",
            "src/apply/step.rs:3: an op tag compared (`name().op`)",
            "src/apply/step.rs:4: `if let Operation::` outside a kind's files",
            "src/plan/trust/steps.rs:4: `_ =>` in a match over addresses or targets",
        ]
    );
}

/// The folders that hold each layer's file of every kind, with the lists that register them.
const KIND_FOLDERS: &[&str] = &[
    "src/plan/kinds/",
    "src/apply/kinds/",
    "src/sandbox/kinds/",
    "src/export/kinds/",
    "src/api/wire/",
];

/// The files of a kind: every layer's file or folder of it, and the shared lists that register
/// each kind once (the operation enum, the address, the target, the wire types, the config
/// model, the schema checks).
fn is_home(path: &str, kind: &str) -> bool {
    KIND_FOLDERS.iter().any(|folder| {
        path.strip_prefix(folder).is_some_and(|rest| {
            rest.starts_with(&format!("{kind}.rs")) || rest.starts_with(&format!("{kind}/"))
        })
    })
}

/// How many product files outside a kind's homes name its operations (`PipeOp`, ...), and the
/// bound each may not pass. Two are registration (`plan/model.rs`'s `Operation`, `plan/mod.rs`'s
/// re-export); for dashboards and alerts also `plan/build/stack.rs`'s prune of a stack (the
/// saved-plan check is each kind's `plan/kinds/<kind>/check.rs`). Lower a bound when a change
/// brings its count down, never raise it.
const KIND_NAME_BOUNDS: &[(&str, &str, usize)] = &[
    ("service", "ServiceOp", 2),
    ("private_endpoint", "PrivateEndpointOp", 2),
    ("pipe", "PipeOp", 2),
    ("dashboard", "DashboardOp", 3),
    ("alert", "AlertOp", 3),
    ("webhook", "WebhookOp", 2),
    ("reverse_endpoint", "ReverseEndpointOp", 2),
];

#[test]
fn kind_names_stay_home() {
    let sources = read_sources();
    let mut over = Vec::new();
    for (kind, name, bound) in KIND_NAME_BOUNDS {
        let files = files_naming(&sources, kind, name);
        if files.len() > *bound {
            over.push(format!(
                "`{name}` is named in {} files outside the {kind} kind's own (bound {bound}):\n  {}",
                files.len(),
                files.join("\n  ")
            ));
        }
    }
    assert!(over.is_empty(), "{}", over.join("\n"));
}

/// How many product files outside a kind's homes import its live side
/// (`plan::kinds::<kind>::live`: its normalizers, its `current`), a bound that may only go
/// down: the stack planner (`plan/build/stack.rs`) compares dashboards and alerts it prunes,
/// drift lists a service's unmanaged endpoints.
const LIVE_SIDE_BOUNDS: &[(&str, usize)] = &[
    ("service", 0),
    ("private_endpoint", 1),
    ("pipe", 0),
    ("dashboard", 1),
    ("alert", 1),
    ("reverse_endpoint", 0),
];

/// How many product files outside `src/plan/target.rs` and the kind's homes name each target
/// (`Target::Pipe`, ...), a bound that may only go down: a new object kind is a variant there
/// and the answers of `Target`'s methods, not an arm in every engine file. (A `let ... else`
/// on one target, as `plan/idle.rs` and drift make, is all that is left.)
const TARGET_BOUNDS: &[(&str, &str, usize)] = &[
    ("Service", "service", 0),
    ("PrivateEndpoint", "private_endpoint", 0),
    ("Pipe", "pipe", 1),
    ("PipeCompute", "pipe", 0),
    ("Dashboard", "dashboard", 1),
    ("Alert", "alert", 0),
    ("ServiceMember", "service", 1),
    ("ReverseEndpoint", "reverse_endpoint", 0),
];

/// The wire types whose normalizing and fingerprinting is their kind's own.
const LIVE_TYPES: &[&str] = &[
    "Service",
    "Pipe",
    "PipeScaling",
    "Dashboard",
    "Tile",
    "Series",
    "Alert",
];

#[test]
fn a_kinds_live_side_stays_home() {
    let sources = read_sources();
    let mut over = Vec::new();
    for (module, source) in &sources {
        if is_test(module) {
            continue;
        }
        let code: Vec<char> = code_only(&source.text).chars().collect();
        // Each kind's `Live` (its fingerprint) and `Owned` (its ownership rule) is in its
        // own `live.rs`.
        let live_file =
            source.path.starts_with("src/plan/kinds/") && source.path.ends_with("/live.rs");
        for trait_name in ["impl Live for", "impl Owned for"] {
            if !live_file && !words(&code, trait_name).is_empty() {
                over.push(format!(
                    "{}: `{trait_name}` outside a kind's live.rs",
                    source.path
                ));
            }
        }
        // The shared normalizing rules and the hash name no kind's live type.
        if ["src/plan/normalize.rs", "src/plan/fingerprint.rs"].contains(&source.path.as_str()) {
            for name in LIVE_TYPES {
                if !words(&code, name).is_empty() {
                    over.push(format!(
                        "{}: names `{name}`, a kind's live type",
                        source.path
                    ));
                }
            }
        }
    }
    for (kind, bound) in LIVE_SIDE_BOUNDS {
        let files = files_naming(&sources, kind, &format!("kinds::{kind}::live"));
        if files.len() > *bound {
            over.push(format!(
                "the {kind} kind's live side is imported in {} files outside its homes (bound {bound}):\n  {}",
                files.len(),
                files.join("\n  ")
            ));
        }
    }
    for (variant, kind, bound) in TARGET_BOUNDS {
        let files: Vec<String> = files_naming(&sources, kind, &format!("Target::{variant}"))
            .into_iter()
            .filter(|path| path != "src/plan/target.rs")
            .collect();
        if files.len() > *bound {
            over.push(format!(
                "`Target::{variant}` is named in {} files outside plan/target.rs and the {kind} kind's own (bound {bound}):\n  {}",
                files.len(),
                files.join("\n  ")
            ));
        }
    }
    assert!(over.is_empty(), "{}", over.join("\n"));
}

/// Each kind's identifiers: its operation type and `Operation` variant, its targets, its
/// addresses and its lists (as a step's list and as a read's scope).
const KIND_IDENTIFIERS: &[(&str, &[&str])] = &[
    (
        "service",
        &[
            "ServiceOp",
            "Operation::Service",
            "Target::Service",
            "Target::ServiceMember",
            "Address::ServiceScaling",
            "Address::ServiceMember",
            "Address::Backups",
            "AddressBuf::ServiceScaling",
            "AddressBuf::ServiceMember",
            "AddressBuf::Backups",
            "List::Services",
            "Scope::Services",
        ],
    ),
    (
        "private_endpoint",
        &[
            "PrivateEndpointOp",
            "Operation::PrivateEndpoint",
            "Target::PrivateEndpoint",
            "Address::PrivateEndpoint",
            "AddressBuf::PrivateEndpoint",
        ],
    ),
    (
        "pipe",
        &[
            "PipeOp",
            "Operation::Pipe",
            "Target::Pipe",
            "Target::PipeCompute",
            "Address::Pipe",
            "Address::PipeScaling",
            "Address::LivePipe",
            "Address::PipeSettings",
            "Address::PipeCompute",
            "AddressBuf::Pipe",
            "AddressBuf::PipeScaling",
            "AddressBuf::LivePipe",
            "AddressBuf::PipeSettings",
            "AddressBuf::PipeCompute",
            "List::Pipes",
            "List::PipeCompute",
            "Scope::Pipes",
            "Scope::PipeCompute",
        ],
    ),
    (
        "dashboard",
        &[
            "DashboardOp",
            "Operation::Dashboard",
            "Target::Dashboard",
            "Address::Dashboard",
            "Address::LiveDashboard",
            "Address::Tile",
            "AddressBuf::Dashboard",
            "AddressBuf::LiveDashboard",
            "AddressBuf::Tile",
            "List::Dashboards",
            "Scope::Dashboards",
        ],
    ),
    (
        "alert",
        &[
            "AlertOp",
            "Operation::Alert",
            "Target::Alert",
            "Address::Alert",
            "Address::LiveAlert",
            "AddressBuf::Alert",
            "AddressBuf::LiveAlert",
            "List::Alerts",
            "Scope::Alerts",
        ],
    ),
    (
        "webhook",
        &[
            "WebhookOp",
            "Operation::Webhook",
            "Target::Webhook",
            "Address::Webhook",
            "AddressBuf::Webhook",
            "List::Webhooks",
            "Scope::Webhooks",
        ],
    ),
];

/// Where a kind registers once besides its own files: the kinds' table, its addresses, its
/// targets and lists.
const REGISTRATION_FILES: &[&str] = &[
    "src/plan/kinds/registry.rs",
    "src/address.rs",
    "src/plan/target.rs",
];

/// How many engine files (outside every kind's files, [`KIND_FOLDERS`], and
/// [`REGISTRATION_FILES`]) name any of a kind's identifiers ([`KIND_IDENTIFIERS`]), the bound each may not pass: the figures measured when
/// the dispatch over operations became the kinds' table (`plan/kinds/registry.rs`). Lower a
/// bound when a change brings its count down, never raise it: a kind's arm added to an engine
/// file fails here. What they are, for webhooks (a stack object, the newest kind): the read of
/// its list before a write (`apply/fresh.rs`), its `--only` families (`plan/address.rs`) and the
/// re-export of its operations (`plan/mod.rs`). Dashboards and alerts are named more: alerts live on dashboards,
/// and ownership, preview, write-back and drift tell the two apart.
const KIND_FILE_BOUNDS: &[(&str, usize)] = &[
    ("service", 6),
    ("private_endpoint", 3),
    ("pipe", 6),
    ("dashboard", 13),
    ("alert", 11),
    ("webhook", 3),
];

/// The engine files (outside every kind's files and the registration files) that name one of
/// `kind`'s identifiers, sorted.
fn files_naming_kind(sources: &BTreeMap<Vec<String>, Source>, kind: &str) -> Vec<String> {
    let Some((_, names)) = KIND_IDENTIFIERS.iter().find(|(k, _)| *k == kind) else {
        return Vec::new();
    };
    let mut files: Vec<String> = names
        .iter()
        .flat_map(|name| files_naming(sources, kind, name))
        .filter(|path| !REGISTRATION_FILES.contains(&path.as_str()))
        // Another kind's files may name it (an alert's channel names a webhook): that is the
        // other kind's own business, not an engine arm.
        .filter(|path| !KIND_FOLDERS.iter().any(|folder| path.starts_with(folder)))
        .collect();
    files.sort();
    files.dedup();
    files
}

#[test]
fn a_kind_is_named_in_a_bounded_set_of_files() {
    let sources = read_sources();
    let mut over = Vec::new();
    for (kind, bound) in KIND_FILE_BOUNDS {
        let files = files_naming_kind(&sources, kind);
        if files.len() > *bound {
            over.push(format!(
                "the {kind} kind is named in {} engine files outside the kinds' and the registration \
                 files (bound {bound}):\n  {}",
                files.len(),
                files.join("\n  ")
            ));
        }
    }
    assert!(over.is_empty(), "{}", over.join("\n"));
}

#[test]
fn the_kind_count_sees_an_arm_added_to_an_engine_file() {
    let sources = made_up(&[
        (
            "plan/derive.rs",
            "fn shown(op: &Operation) -> u8 {\n    match op {\n        \
             Operation::Webhook(_) => 1,\n        other => other.kind().name().op.len() as u8,\n    }\n}\n",
        ),
        ("plan/kinds/webhook/op.rs", "pub struct WebhookOp;\n"),
        (
            "address.rs",
            "fn text(a: &Address) { let Address::Webhook { .. } = a; }\n",
        ),
    ]);
    assert_eq!(
        files_naming_kind(&sources, "webhook"),
        ["src/plan/derive.rs"]
    );
}

/// The product files outside `kind`'s homes whose code names `name` as a word, sorted.
fn files_naming(sources: &BTreeMap<Vec<String>, Source>, kind: &str, name: &str) -> Vec<String> {
    let mut files: Vec<String> = sources
        .iter()
        .filter(|(module, source)| !is_test(module) && !is_home(&source.path, kind))
        .filter(|(_, source)| {
            let code: Vec<char> = code_only(&source.text).chars().collect();
            !words(&code, name).is_empty()
        })
        .map(|(_, source)| source.path.clone())
        .collect();
    files.sort();
    files
}

/// Each `if let`/`let ... else` on an operation variant outside a kind's files.
fn picked_out(sources: &BTreeMap<Vec<String>, Source>) -> Vec<String> {
    let mut found = Vec::new();
    for (module, source) in sources {
        if is_test(module) || source.path.contains("/kinds/") {
            continue;
        }
        let code = code_only(&source.text);
        for (number, line) in code.lines().enumerate() {
            let picks = OPERATION_ENUMS.iter().any(|name| {
                [format!("let {name}::"), format!("let Some({name}::")]
                    .iter()
                    .any(|pattern| line.contains(pattern.as_str()))
            });
            if picks {
                found.push(format!(
                    "{}:{}: `if let Operation::` outside a kind's files",
                    source.path,
                    number + 1
                ));
            }
        }
    }
    found
}

/// Each op tag written outside the kinds' `op.rs` files (and outside comments), and each
/// comparison through an operation's `name().op`.
fn op_tags_outside_kinds(sources: &BTreeMap<Vec<String>, Source>) -> Vec<String> {
    let tags: Vec<String> = sources
        .values()
        .filter(|source| is_op_file(&source.path))
        .flat_map(|source| serde_renames(&source.text))
        .collect();
    let mut found = Vec::new();
    for (module, source) in sources {
        if is_test(module) || is_op_file(&source.path) {
            continue;
        }
        let kept = without_comments(&code_only_tests(&source.text));
        let code = code_only(&source.text);
        for (number, (line, code_line)) in kept.lines().zip(code.lines()).enumerate() {
            let at = format!("{}:{}", source.path, number + 1);
            for tag in &tags {
                if line.contains(&format!("\"{tag}\"")) {
                    found.push(format!(
                        "{at}: `\"{tag}\"` (an op tag) outside its kind's op.rs"
                    ));
                }
            }
            if code_line.contains("name().op") {
                found.push(format!("{at}: an op tag compared (`name().op`)"));
            }
        }
    }
    found
}

fn is_op_file(path: &str) -> bool {
    path.starts_with("src/plan/kinds/") && path.ends_with("/op.rs")
}

/// The `rename = "..."` values of a kind's operations: its op tags.
fn serde_renames(text: &str) -> Vec<String> {
    text.match_indices("rename = \"")
        .filter_map(|(at, found)| {
            let rest = &text[at + found.len()..];
            rest.split_once('"').map(|(tag, _)| tag.to_string())
        })
        .filter(|tag| tag.contains('-'))
        .collect()
}

/// The text with the lines `code_only` blanks whole (test items, comment lines) left empty,
/// strings kept; a line of a string alone is kept too.
fn code_only_tests(text: &str) -> String {
    let code = code_only(text);
    text.lines()
        .zip(code.lines())
        .map(|(line, code_line)| {
            if code_line.trim().is_empty()
                && !line.trim().is_empty()
                && !line.trim_start().starts_with('"')
            {
                ""
            } else {
                line
            }
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// The text without its `//` comments; strings (and a `//` inside one) kept.
fn without_comments(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for line in text.lines() {
        let chars: Vec<char> = line.chars().collect();
        let mut in_string = false;
        let mut i = 0;
        while i < chars.len() {
            let c = chars[i];
            if in_string {
                if c == '\\' {
                    i += 1;
                } else if c == '"' {
                    in_string = false;
                }
            } else if c == '"' {
                in_string = true;
            } else if c == '\'' && chars.get(i + 2) == Some(&'\'') {
                out.extend(&chars[i..i + 3]);
                i += 3;
                continue;
            } else if c == '/' && chars.get(i + 1) == Some(&'/') {
                break;
            }
            out.push(c);
            i += 1;
        }
        out.push('\n');
    }
    out
}

/// Each `_ =>` arm of a `match` whose arms name one of `enums`, as `file:line: what`.
fn wildcards_over(
    sources: &BTreeMap<Vec<String>, Source>,
    enums: &[&str],
    what: &str,
) -> Vec<String> {
    let mut found = Vec::new();
    for (module, source) in sources {
        if is_test(module) {
            continue;
        }
        let code: Vec<char> = code_only(&source.text).chars().collect();
        let line = |at: usize| code[..at].iter().filter(|c| **c == '\n').count() + 1;
        for at in words(&code, "match") {
            let Some(open) = (at..code.len()).find(|i| code[*i] == '{') else {
                continue;
            };
            let arms = patterns(&code[open + 1..closing(&code, open).saturating_sub(1)]);
            if !arms.iter().any(|(_, pattern)| names_any(pattern, enums)) {
                continue;
            }
            for (offset, pattern) in &arms {
                let pattern = pattern.trim();
                if pattern == "_" || pattern.starts_with("_ if") {
                    found.push(format!(
                        "{}:{}: `_ =>` in a match over {what}",
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
    }
    found.extend(wildcards_over(sources, OPERATION_ENUMS, "operations"));
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
    names_any(code, OPERATION_ENUMS)
}

/// Whether code names a variant of one of `enums` (`Address::`, ...).
fn names_any(code: &str, enums: &[&str]) -> bool {
    enums.iter().any(|name| {
        let path = format!("{name}::");
        code.match_indices(&path).any(|(at, _)| {
            code[..at]
                .chars()
                .next_back()
                .is_none_or(|c| !(c.is_alphanumeric() || c == '_'))
        })
    })
}
