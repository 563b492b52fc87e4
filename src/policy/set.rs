//! The policy set: the `.rego` files of the directories and files `--policy` or the config's
//! `policy:` name, read once, in a stable order, and their digest (what a saved plan records).

use std::path::{Path, PathBuf};
use std::sync::Arc;

use crate::config::model::{SourceFile, Sources};
use crate::diagnostic::{Code, Diagnostic, Span};

/// One path a run was given, with where the config wrote it (`None` for `--policy`).
#[derive(Debug, Clone)]
pub(crate) struct Spec {
    /// A directory of `.rego` files or one file, as given (resolved against the config file's
    /// folder when written in the config).
    pub path: PathBuf,
    /// Where the config names it.
    pub span: Option<Span>,
}

/// One rule file.
#[derive(Debug, Clone)]
pub(crate) struct PolicyFile {
    /// Its path as shown in diagnostics.
    pub name: String,
    /// Its text.
    pub text: Arc<str>,
}

/// The rule files of a run, sorted by name; `_test.rego` files are tests (`policy test`),
/// never evaluated on a plan.
#[derive(Debug, Clone, Default)]
pub(crate) struct PolicySet {
    /// The files.
    pub files: Vec<PolicyFile>,
}

impl PolicySet {
    /// The files as sources, for showing a diagnostic at a rule's line.
    pub(crate) fn sources(&self) -> Sources {
        Sources {
            files: self
                .files
                .iter()
                .map(|f| SourceFile {
                    path: PathBuf::from(&f.name),
                    text: f.text.clone(),
                })
                .collect(),
            instances: Vec::new(),
        }
    }

    /// `sha256:` and 64 hex digits over every file's name and text: two sets with one digest
    /// hold the same rules, so a saved plan can tell that its rules changed after review.
    pub(crate) fn digest(&self) -> String {
        let mut context = ring::digest::Context::new(&ring::digest::SHA256);
        for file in &self.files {
            context.update(file.name.as_bytes());
            context.update(&[0]);
            context.update(file.text.as_bytes());
            context.update(&[0]);
        }
        let hex: String = context
            .finish()
            .as_ref()
            .iter()
            .map(|byte| format!("{byte:02x}"))
            .collect();
        format!("sha256:{hex}")
    }

    /// The rule files, without the tests.
    pub(crate) fn rules(&self) -> impl Iterator<Item = &PolicyFile> {
        self.files.iter().filter(|f| !is_test(&f.name))
    }
}

/// How a built-in rule is named: `--policy builtin:alert-has-channel`, `policy: [builtin:...]`.
pub(crate) const BUILTIN: &str = "builtin:";

/// The rules shipped inside the binary, opt-in by name (docs/policy.md lists what each does).
pub(crate) const BUILTINS: &[(&str, &str)] = &[
    (
        "alert-has-channel",
        include_str!("builtin/alert_has_channel.rego"),
    ),
    (
        "dashboard-owner",
        include_str!("builtin/dashboard_owner.rego"),
    ),
    ("pipe-destroy", include_str!("builtin/pipe_destroy.rego")),
    ("scaling-bound", include_str!("builtin/scaling_bound.rego")),
    ("webhook-used", include_str!("builtin/webhook_used.rego")),
];

/// Whether a file holds tests (`*_test.rego`), as `opa test` tells them.
pub(crate) fn is_test(name: &str) -> bool {
    name.ends_with("_test.rego")
}

/// Reads every `.rego` file under each of `specs` (directories recursively). A path that
/// cannot be read, or a directory without any `.rego` file, is an error at its place.
pub(crate) fn load(specs: &[Spec]) -> Result<PolicySet, Vec<Diagnostic>> {
    let mut files = Vec::new();
    let mut problems = Vec::new();
    for spec in specs {
        let before = files.len();
        let text = crate::output::path_text(&spec.path);
        if let Some(name) = text.strip_prefix(BUILTIN) {
            match BUILTINS.iter().find(|(n, _)| *n == name) {
                Some((_, rules)) => files.push(PolicyFile {
                    name: text.clone(),
                    text: Arc::from(*rules),
                }),
                None => problems.push(problem(spec, &unknown_builtin())),
            }
            continue;
        }
        if let Err(why) = read(&spec.path, &mut files) {
            problems.push(problem(spec, &why));
        } else if files.len() == before {
            problems.push(problem(spec, "it holds no `.rego` file"));
        }
    }
    if !problems.is_empty() {
        return Err(problems);
    }
    files.sort_by(|a: &PolicyFile, b| a.name.cmp(&b.name));
    files.dedup_by(|a, b| a.name == b.name);
    Ok(PolicySet { files })
}

fn unknown_builtin() -> String {
    let names: Vec<String> = BUILTINS
        .iter()
        .map(|(name, _)| format!("`{BUILTIN}{name}`"))
        .collect();
    format!(
        "no built-in rule has this name; they are {}",
        names.join(", ")
    )
}

fn problem(spec: &Spec, why: &str) -> Diagnostic {
    Diagnostic::error(
        Code::PolicyRead,
        format!(
            "policy `{}` cannot be used: {why}",
            crate::output::path_text(&spec.path)
        ),
        spec.span,
    )
    .with_help("name a directory of `.rego` files, one `.rego` file or `builtin:NAME`")
}

/// Adds the `.rego` files at `path` (a file, or a directory read recursively in name order).
fn read(path: &Path, out: &mut Vec<PolicyFile>) -> Result<(), String> {
    let meta = std::fs::metadata(path).map_err(|e| e.to_string())?;
    if meta.is_file() {
        let text = std::fs::read_to_string(path).map_err(|e| e.to_string())?;
        out.push(PolicyFile {
            name: crate::output::path_text(path),
            text: Arc::from(text),
        });
        return Ok(());
    }
    let mut entries: Vec<PathBuf> = std::fs::read_dir(path)
        .map_err(|e| e.to_string())?
        .filter_map(|entry| entry.ok().map(|e| e.path()))
        .collect();
    entries.sort();
    for entry in entries {
        if entry.is_dir() || entry.extension().is_some_and(|e| e == "rego") {
            read(&entry, out)?;
        }
    }
    Ok(())
}
