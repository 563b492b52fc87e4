//! The configuration layer: files and directories, YAML with spans, `${env:...}` interpolation,
//! the JSON Schema check, semantic rules, and the typed desired state.
//!
//! # Public API
//!
//! - `load``(paths, mode) -> `[`Loaded`]: reads files and directories (`*.yaml`/`*.yml`,
//!   sorted), merges them, interpolates, checks (YAML, schema, semantic rules) and builds the
//!   [`model::Config`]. `Loaded::config` is `None` when any error diagnostic exists; every
//!   diagnostic of the run is in `Loaded::diagnostics`, sorted by place.
//! - [`LoadMode::Offline`] (`validate`): an unset `${env:...}` is a warning.
//!   [`LoadMode::Live`] (`plan`, `apply`, ...): it is an error.
//! - [`render::render`]`(diags, sources, format, printer)`: shows any `Vec<Diagnostic>` (config
//!   or plan-time) as text (miette), JSON, and GitHub annotations when `GITHUB_ACTIONS=true`.
//!
//! # Stages, in order
//!
//! 1. `yaml`: text to a `yaml::Node` tree with a span on every key and value; strict
//!    booleans; duplicate keys in a file are errors with both places.
//! 2. `merge`: the files' trees into one; a key defined in two files is an error.
//!    Then [`templates`]: every `template:` entry becomes its instances (`entry[key]`), the
//!    `templates:` maps leave the tree, and each copied value's span names its instance
//!    ([`Sources::instances`](model::Sources)) so later problems point at both places.
//! 3. Interpolation ([`interpolate`]) of every string but the secrets, which must be exactly
//!    `${env:NAME}` and are resolved into [`model::SecretValue`] without ever being printed; a
//!    variable a secret reads is refused in every other string.
//!    Only strings interpolate: a number written as `${env:...}` is a `schema::type` error.
//! 4. `schema_check`: the tree as JSON against `schema/converge.schema.json`, errors mapped
//!    back from JSON pointers to spans. Unknown keys are `config::unknown-key` with "did you mean".
//! 5. `build` then `rules`: the typed config and the semantic rules.
//!
//! # Diagnostic codes
//!
//! The `yaml::*`, `config::*`, `template::*`, `schema::*` and `semantic::*` codes of
//! [`crate::diagnostic::Code`], which lists each with when it is raised.

pub(crate) mod alert_rules;
pub(crate) mod build;
pub(crate) mod indent;
pub mod interpolate;
mod located;
pub(crate) mod lookalike;
pub(crate) mod merge;
pub mod model;
pub(crate) mod pipe_rules;
mod rename_rules;
pub mod render;
pub(crate) mod reverse_endpoints;
pub(crate) mod rules;
pub(crate) mod saved_searches;
pub(crate) mod schema_check;
pub(crate) mod schema_parts;
pub(crate) mod secret_fields;
pub(crate) mod server_rules;
pub(crate) mod service_rules;
pub(crate) mod service_settings_rules;
mod shared_rules;
pub(crate) mod source_rules;
pub(crate) mod templates;
pub(crate) mod webhook_rules;
pub(crate) mod yaml;

use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::sync::Arc;

pub use build::LoadMode;
use model::{Config, SourceFile, Sources};
pub use schema_check::SCHEMA;
use yaml::{Kind, Node};

use crate::diagnostic::{Code, Diagnostic, Severity, Span, narrow};

/// What loading produced.
#[derive(Debug, Clone)]
pub struct Loaded {
    /// The desired state; `None` when any diagnostic is an error.
    pub config: Option<Config>,
    /// The files read, for rendering diagnostics.
    pub sources: Sources,
    /// Every problem found, sorted by file, line and column.
    pub diagnostics: Vec<Diagnostic>,
}

impl Loaded {
    /// The config with its templates expanded, as YAML (`validate --expand`); `${env:...}`
    /// stays as written, so no variable's value, secret or not, is printed.
    /// Expanded again from the texts read, so that no load keeps a second tree for it.
    pub(crate) fn expanded_yaml(&self) -> Option<String> {
        let mut diags = Vec::new();
        let docs = self
            .sources
            .files
            .iter()
            .enumerate()
            .filter_map(|(file, source)| yaml::parse(&source.text, narrow(file), &mut diags))
            .collect();
        let mut root = merge::merge(docs, &mut diags)?;
        let sources = Sources {
            files: self.sources.files.clone(),
            instances: templates::expand(&mut root, &mut diags).instances,
        };
        Some(templates::to_yaml(&root, &sources))
    }

    /// How many diagnostics are errors.
    pub fn error_count(&self) -> usize {
        count(&self.diagnostics, Severity::Error)
    }

    /// How many diagnostics are warnings.
    pub(crate) fn warning_count(&self) -> usize {
        count(&self.diagnostics, Severity::Warning)
    }
}

fn count(diags: &[Diagnostic], severity: Severity) -> usize {
    diags.iter().filter(|d| d.severity == severity).count()
}

/// Loads, merges and checks the config at `paths`, reading variables from the process
/// environment.
pub(crate) fn load(paths: &[PathBuf], mode: LoadMode) -> Loaded {
    load_with_env(paths, mode, &|name| std::env::var(name).ok())
}

/// `load` with the variables taken from `env` (tests and benchmarks).
pub fn load_with_env(
    paths: &[PathBuf],
    mode: LoadMode,
    env: &dyn Fn(&str) -> Option<String>,
) -> Loaded {
    let mut sources = Sources::default();
    let mut diags = Vec::new();
    let mut seen = HashSet::new();
    for path in paths {
        read_path(path, &mut sources, &mut seen, &mut diags);
    }
    let config = check_sources(&mut sources, mode, env, &mut diags);
    finish(config, sources, diags)
}

/// Checks texts already in memory, one per file (tests, benchmarks, and the sandbox seed).
pub fn load_texts(
    files: &[(PathBuf, String)],
    mode: LoadMode,
    env: &dyn Fn(&str) -> Option<String>,
) -> Loaded {
    let mut sources = Sources {
        files: files
            .iter()
            .map(|(path, text)| SourceFile {
                path: path.clone(),
                text: Arc::from(text.as_str()),
            })
            .collect(),
        instances: Vec::new(),
    };
    let mut diags = Vec::new();
    let config = check_sources(&mut sources, mode, env, &mut diags);
    finish(config, sources, diags)
}

fn finish(config: Option<Config>, sources: Sources, mut diags: Vec<Diagnostic>) -> Loaded {
    diags.sort_by(|a, b| {
        let place = |d: &Diagnostic| d.span.map(|s| (s.file, s.line, s.column));
        place(a)
            .cmp(&place(b))
            .then_with(|| a.severity.cmp(&b.severity))
            .then_with(|| a.code.as_str().cmp(b.code.as_str()))
            .then_with(|| a.message.cmp(&b.message))
    });
    diags.dedup();
    let config = config.filter(|_| count(&diags, Severity::Error) == 0);
    Loaded {
        config,
        sources,
        diagnostics: diags,
    }
}

fn check_sources(
    sources: &mut Sources,
    mode: LoadMode,
    env: &dyn Fn(&str) -> Option<String>,
    diags: &mut Vec<Diagnostic>,
) -> Option<Config> {
    if diags.iter().any(|d| d.severity == Severity::Error) {
        // A file that could not be read would make every later check report its absence.
        return None;
    }
    let mut docs = Vec::new();
    for (file, source) in sources.files.iter().enumerate() {
        if let Some(node) = yaml::parse(&source.text, narrow(file), diags) {
            docs.push(node);
        }
    }
    if diags.iter().any(|d| d.severity == Severity::Error) {
        // A file that did not parse (a syntax error, a tab, ...) is missing from the merged
        // config: later stages would report its absence in the other files (a stack naming a
        // service it defines, a required key it holds), not new problems.
        return None;
    }
    let Some(mut root) = merge::merge(docs, diags) else {
        if !sources.files.is_empty() && !diags.iter().any(|d| d.severity == Severity::Error) {
            let span = Span::new(0, 0, 1, 1, 1);
            diags.push(
                Diagnostic::error(
                    Code::SchemaRequired,
                    "the config is empty: it needs at least `version` and `organization`",
                    Some(span),
                )
                .with_help("start from examples/quickstart.yaml"),
            );
        }
        return None;
    };
    let expansion = templates::expand(&mut root, diags);
    sources.instances = expansion.instances;
    let mut names = expansion.names;
    let mut unresolved = HashSet::new();
    let secrets = secret_variables(&root);
    let strings = Interpolation {
        mode,
        env,
        secrets: &secrets,
    };
    strings.tree(&mut root, String::new(), &mut unresolved, diags);
    schema_check::check(&root, &unresolved, diags);
    // The build frees the parts of the tree the rules below do not read.
    let mut config = build::build(&mut root, mode, env, diags)?;
    for (key, stack) in &mut config.stacks {
        stack.instance_names = names.remove(key).unwrap_or_default();
        stack.key_parameter = key
            .strip_suffix(']')
            .and_then(|k| k.split_once('['))
            .and_then(|(entry, _)| expansion.key_parameters.get(entry))
            .map(|param| smol_str::SmolStr::from(param.as_str()));
    }
    rules::check(&config, &root, diags);
    Some(config)
}

fn read_path(
    path: &Path,
    sources: &mut Sources,
    seen: &mut HashSet<PathBuf>,
    diags: &mut Vec<Diagnostic>,
) {
    if path.is_dir() {
        if let Some(diag) = link_out_of_project(path) {
            diags.push(diag);
            return;
        }
        let entries = match std::fs::read_dir(path) {
            Ok(entries) => entries,
            Err(error) => {
                diags.push(read_error(path, &error));
                return;
            }
        };
        let mut named: Vec<PathBuf> = entries
            .filter_map(Result::ok)
            .map(|e| e.path())
            .filter(|p| p.extension().is_some_and(|e| e == "yaml" || e == "yml"))
            .collect();
        named.sort();
        // A broken link is kept so that reading it reports it: skipping it would silently
        // validate a smaller config. Any other entry named like a config that is no file is
        // skipped, and said.
        let (files, skipped): (Vec<PathBuf>, Vec<PathBuf>) = named
            .into_iter()
            .partition(|p| p.is_file() || (p.is_symlink() && !p.exists()));
        for entry in skipped {
            diags.push(
                Diagnostic::warning(
                    Code::ConfigRead,
                    format!(
                        "skipped `{}`: it is {}, not a regular file",
                        crate::output::path_text(&entry),
                        what_it_is(&entry)
                    ),
                    None,
                )
                .with_help("only the regular `*.yaml` and `*.yml` files of a directory are read"),
            );
        }
        if files.is_empty() {
            diags.push(
                Diagnostic::error(
                    Code::ConfigEmptyDirectory,
                    format!(
                        "`{}` holds no `*.yaml` or `*.yml` file",
                        crate::output::path_text(path)
                    ),
                    None,
                )
                .with_help("name a config file, or a directory that holds config files"),
            );
        }
        for file in files {
            read_file(&file, sources, seen, diags);
        }
    } else {
        read_file(path, sources, seen, diags);
    }
}

fn read_file(
    path: &Path,
    sources: &mut Sources,
    seen: &mut HashSet<PathBuf>,
    diags: &mut Vec<Diagnostic>,
) {
    // A file named twice (`dir/` and `dir/a.yaml`) is read once, not reported as all duplicates.
    let canonical = std::fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf());
    if !seen.insert(canonical) {
        return;
    }
    if let Some(diag) = link_out_of_project(path) {
        diags.push(diag);
        return;
    }
    // Reading a named pipe waits for a writer that may never come; a device may never end.
    if let Ok(metadata) = std::fs::metadata(path)
        && !metadata.is_file()
    {
        diags.push(
            Diagnostic::error(
                Code::ConfigRead,
                format!(
                    "cannot read `{}`: it is {}, not a regular file",
                    crate::output::path_text(path),
                    what_it_is(path)
                ),
                None,
            )
            .with_help("name a config file, or a directory that holds config files"),
        );
        return;
    }
    let bytes = match std::fs::read(path) {
        Ok(bytes) => bytes,
        Err(error) => {
            diags.push(read_error(path, &error));
            return;
        }
    };
    let file = sources.files.len();
    match String::from_utf8(bytes) {
        Ok(text) => sources.files.push(SourceFile {
            path: path.to_path_buf(),
            text: Arc::from(text),
        }),
        Err(error) => {
            let valid = error.utf8_error().valid_up_to();
            let bytes = error.into_bytes();
            let before = String::from_utf8_lossy(&bytes[..valid]);
            let line = before.matches('\n').count() + 1;
            let column = before.rsplit('\n').next().map_or(0, |l| l.chars().count()) + 1;
            // Keep only the valid part so the snippet never shows replacement noise.
            let text: Arc<str> = Arc::from(before.into_owned());
            let offset = text.len();
            sources.files.push(SourceFile {
                path: path.to_path_buf(),
                text,
            });
            diags.push(
                Diagnostic::error(
                    Code::ConfigEncoding,
                    format!("`{}` is not UTF-8 text", crate::output::path_text(path)),
                    Some(Span::new(
                        narrow(file),
                        narrow(offset),
                        1,
                        narrow(line),
                        narrow(column),
                    )),
                )
                .with_label("the invalid bytes start here")
                .with_help("save the file as UTF-8"),
            );
        }
    }
}

/// Every symbolic link on the way to a config file or directory (the file itself, or a
/// directory of its path) must point inside the current directory or the directory holding the
/// link. A link committed to a repository could otherwise make a pull-request check read any
/// file of the machine (`/proc/self/environ`, a key file) and show it in error snippets; such a
/// path is refused and nothing of its target is read.
fn link_out_of_project(path: &Path) -> Option<Diagnostic> {
    let cwd = std::env::current_dir().and_then(std::fs::canonicalize).ok();
    let mut prefix = PathBuf::new();
    for component in path.components() {
        prefix.push(component);
        // A missing or broken step is left to the read, which names it.
        let step = std::fs::symlink_metadata(&prefix).ok()?;
        if !step.file_type().is_symlink() {
            continue;
        }
        let target = std::fs::canonicalize(&prefix).ok()?;
        let holder = prefix
            .parent()
            .filter(|p| !p.as_os_str().is_empty())
            .unwrap_or(Path::new("."));
        let holder = std::fs::canonicalize(holder).ok();
        if [cwd.as_ref(), holder.as_ref()]
            .into_iter()
            .flatten()
            .any(|root| target.starts_with(root))
        {
            continue;
        }
        let what = if prefix.as_path() == path {
            format!("`{}` is a symbolic link", crate::output::path_text(path))
        } else {
            format!(
                "`{}` goes through `{}`, a symbolic link",
                crate::output::path_text(path),
                crate::output::path_text(&prefix)
            )
        };
        return Some(
            Diagnostic::error(
                Code::ConfigOutsideProject,
                format!(
                    "{what} to `{}`, outside the project; converge does not read it",
                    crate::output::path_text(&target)
                ),
                None,
            )
            .with_help(
                "copy the file into the project, or run converge from a directory that holds the link's target",
            ),
        );
    }
    None
}

/// What kind of entry `path` is, for a message saying why it is not read as a file.
fn what_it_is(path: &Path) -> &'static str {
    let Ok(metadata) = std::fs::metadata(path) else {
        return "an entry converge cannot inspect";
    };
    let kind = metadata.file_type();
    if kind.is_dir() {
        return "a directory";
    }
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        if kind.is_fifo() {
            return "a named pipe (FIFO)";
        }
        if kind.is_socket() {
            return "a socket";
        }
        if kind.is_block_device() || kind.is_char_device() {
            return "a device";
        }
    }
    "an entry of another kind"
}

fn read_error(path: &Path, error: &std::io::Error) -> Diagnostic {
    Diagnostic::error(
        Code::ConfigRead,
        format!("cannot read `{}`: {error}", crate::output::path_text(path)),
        None,
    )
    .with_help("check the path and its permissions")
}

/// Every variable a secret field reads (`${env:NAME}` in a field of
/// [`secret_fields::SECRET_FIELDS`]), with the field, plus the conventional secret variables
/// (the ones `export` and `--sandbox` read the secrets from), secrets whatever the config says.
fn secret_variables(root: &Node) -> Vec<(String, String)> {
    let mut names: Vec<(String, String)> = secret_fields::SECRET_FIELDS
        .iter()
        .map(|field| {
            (
                field.variable.to_string(),
                "a conventional secret variable".to_string(),
            )
        })
        .collect();
    for field in secret_fields::SECRET_FIELDS {
        let raw = root
            .get(field.section)
            .and_then(|s| s.get(field.key))
            .and_then(Node::as_str);
        for name in raw.map(interpolate::references).unwrap_or_default() {
            names.retain(|(known, _)| known != name);
            names.push((name.to_string(), format!("`{}`", field.path)));
        }
    }
    for (written, path) in pipe_credentials(root)
        .into_iter()
        .chain(webhook_secrets(root))
    {
        for name in interpolate::references(written) {
            names.retain(|(known, _)| known != name);
            names.push((name.to_string(), format!("`{path}`")));
        }
    }
    names
}

/// Every webhook secret written in the tree (`url`, `body`, each `headers` and `queryParams`
/// value), with its path as messages name it.
fn webhook_secrets(root: &Node) -> Vec<(&str, String)> {
    let mut found = Vec::new();
    for (stack, stack_node) in entries(root.get("stacks")) {
        for (webhook, node) in entries(stack_node.get("webhooks")) {
            let at = format!("stacks.{}.webhooks.{}", stack.name, webhook.name);
            for member in secret_fields::WEBHOOK_SECRETS {
                if let Some(written) = node.get(member).and_then(Node::as_str) {
                    found.push((written, format!("{at}.{member}")));
                }
            }
            for map in secret_fields::WEBHOOK_SECRET_MAPS {
                for (name, value) in entries(node.get(map)) {
                    if let Some(written) = value.as_str() {
                        found.push((written, format!("{at}.{map}.{}", name.name)));
                    }
                }
            }
        }
    }
    found
}

/// Every pipe credential written in the tree, with its path as messages name it.
fn pipe_credentials(root: &Node) -> Vec<(&str, String)> {
    let mut found = Vec::new();
    for (service, service_node) in entries(root.get("services")) {
        for (pipe, pipe_node) in entries(service_node.get("pipes")) {
            let source = pipe_node.get("source");
            for (kind, path) in secret_fields::PIPE_CREDENTIALS {
                let written = path
                    .split('.')
                    .try_fold(source.and_then(|s| s.get(kind)), |node, part| {
                        Some(node?.get(part))
                    })
                    .flatten()
                    .and_then(Node::as_str);
                if let Some(written) = written {
                    found.push((
                        written,
                        format!(
                            "services.{}.pipes.{}.source.{kind}.{path}",
                            service.name, pipe.name
                        ),
                    ));
                }
            }
        }
    }
    found
}

fn entries(node: Option<&Node>) -> &[(yaml::Key, Node)] {
    node.and_then(Node::as_map).unwrap_or_default()
}

/// How strings are interpolated: the variables come from `env`; those in `secrets` are refused
/// outside the secret fields, since a secret substituted into a name or message would be
/// printed in plans, comments and saved plans.
struct Interpolation<'a> {
    mode: LoadMode,
    env: &'a dyn Fn(&str) -> Option<String>,
    secrets: &'a [(String, String)],
}

impl Interpolation<'_> {
    /// Interpolates every string of the tree in place except the secret fields (resolved,
    /// never substituted, by [`build`]). Pointers of strings still holding an unset reference
    /// go into `unresolved` so the schema does not judge their shape.
    fn tree(
        &self,
        node: &mut Node,
        pointer: String,
        unresolved: &mut HashSet<String>,
        diags: &mut Vec<Diagnostic>,
    ) {
        match &mut node.kind {
            Kind::Str(text) => {
                if !text.contains('$') || secret_fields::is_secret_pointer(&pointer) {
                    return;
                }
                let secret = interpolate::references(text).into_iter().find_map(|name| {
                    self.secrets
                        .iter()
                        .find(|(secret, _)| secret == name)
                        .map(|(_, field)| (name.to_string(), field.as_str()))
                });
                if let Some((name, field)) = secret {
                    // Left as written: the value never enters the tree.
                    unresolved.insert(pointer);
                    diags.push(
                        Diagnostic::error(
                            Code::ConfigSecretVariable,
                            format!(
                                "`{name}` holds a secret ({field} reads it) and may be used only by {}",
                                secret_fields::described()
                            ),
                            Some(node.span),
                        )
                        .with_label("secret variable used here")
                        .with_help(format!(
                            "remove `${{env:{name}}}` from this value; a secret in any other field would be printed in plans, pull-request comments and saved plans"
                        )),
                    );
                    return;
                }
                match interpolate::expand(text, self.env) {
                    Ok(expanded) => {
                        for name in &expanded.unset {
                            diags.push(build::unset_variable(self.mode, name, node.span));
                        }
                        if !expanded.unset.is_empty() {
                            unresolved.insert(pointer);
                        }
                        *text = expanded.text.into();
                    }
                    Err(problem) => diags.push(
                        Diagnostic::error(
                            Code::ConfigInterpolation,
                            problem.to_string(),
                            Some(node.span),
                        )
                        .with_label("malformed reference")
                        .with_help("write `${env:NAME}` or `${env:NAME:-default}`"),
                    ),
                }
            }
            Kind::Seq(items) => {
                for (i, item) in items.iter_mut().enumerate() {
                    self.tree(item, format!("{pointer}/{i}"), unresolved, diags);
                }
            }
            Kind::Map(entries) => {
                for (key, value) in entries.iter_mut() {
                    let child = yaml::child_pointer(&pointer, &key.name);
                    self.tree(value, child, unresolved, diags);
                }
            }
            Kind::Null | Kind::Bool(_) | Kind::Int(_) | Kind::Float(_) => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use model::{SourceRef, StackTarget};

    fn quickstart() -> Vec<(PathBuf, String)> {
        let text = include_str!("../../examples/quickstart.yaml").to_string();
        vec![(PathBuf::from("examples/quickstart.yaml"), text)]
    }

    fn spot(text: &str, span: Span) -> &str {
        &text[span.range()]
    }

    #[test]
    fn quickstart_builds_the_typed_config_with_spans() {
        let files = quickstart();
        let env = |name: &str| (name == "CONVERGE_KEY_SECRET").then(|| "s3cret".to_string());
        let loaded = load_texts(&files, LoadMode::Offline, &env);
        let config = loaded.config.clone().unwrap();
        let text = &files[0].1;
        assert_eq!(config.version, 1);
        assert_eq!(
            config.organization.value,
            "7d3f6a2e-0c1b-4e5f-9a8b-1c2d3e4f5a6b"
        );
        let cloud = config.cloud.unwrap();
        assert_eq!(cloud.url.unwrap().value, "http://127.0.0.1:8080");
        let secret = cloud.key_secret.unwrap();
        assert_eq!(secret.reference, "${env:CONVERGE_KEY_SECRET}");
        assert_eq!(secret.value.as_deref(), Some("s3cret"));
        assert!(!format!("{secret:?}").contains("s3cret"));
        let token = config.observability.unwrap().token.unwrap();
        assert_eq!(token.value, None);

        let service = &config.services["analytics"];
        let replicas = service
            .scaling
            .as_ref()
            .unwrap()
            .num_replicas
            .clone()
            .unwrap();
        assert_eq!(replicas.value, 3.0);
        assert_eq!((replicas.span.line, replicas.span.column), (18, 20));
        assert_eq!(spot(text, replicas.span), "3");
        assert_eq!(spot(text, service.key.span), "analytics");
        assert_eq!(service.pipes.len(), 4);
        let orders = service.pipes["orders"].scaling.clone().unwrap();
        assert_eq!(orders.replicas.unwrap().value, 4);
        assert_eq!(orders.replica_memory_gb.unwrap().value, 2.0);
        assert!(service.pipes["customers"].scaling.is_none());
        assert_eq!(service.private_endpoints.as_ref().unwrap().len(), 1);
        assert_eq!(
            service
                .backups
                .as_ref()
                .unwrap()
                .max_age_hours
                .clone()
                .unwrap()
                .value,
            26.0
        );

        let stack = &config.stacks["prod"];
        assert!(
            matches!(&stack.target, StackTarget::Managed { service } if service.value == "analytics")
        );
        let dashboard = &stack.dashboards["api-health"];
        assert_eq!(dashboard.tiles.len(), 2);
        let series = &dashboard.tiles[0].series[0];
        assert!(matches!(&series.source, Some(SourceRef::Name(n)) if n.value == "Logs"));
        assert_eq!(series.group_by.as_ref().map(Vec::len), Some(0));
        let alert = &stack.alerts["api-errors"];
        assert_eq!(alert.threshold.value, 100.0);
        assert_eq!(spot(text, alert.tile.span), "Requests");
        assert_eq!(
            alert.channel.clone().unwrap().webhook_id.unwrap().value,
            "65f5e4a3b9e77c001a789012"
        );

        // One warning: the token's variable is unset.
        assert_eq!(loaded.diagnostics.len(), 1, "{:?}", loaded.diagnostics);
        assert_eq!(loaded.warning_count(), 1);
    }

    #[test]
    fn live_mode_makes_unset_variables_errors_and_drops_the_config() {
        let loaded = load_texts(&quickstart(), LoadMode::Live, &|_| None);
        assert!(loaded.config.is_none());
        assert_eq!(loaded.error_count(), 2);
        assert!(
            loaded
                .diagnostics
                .iter()
                .all(|d| d.code == Code::ConfigEnvUnset)
        );
    }

    #[test]
    fn interpolation_substitutes_into_the_model() {
        let text =
            "version: 1\norganization: ${env:ORG}\nignore: [\"stack.${env:STACK:-prod}.*\"]\n";
        let files = vec![(PathBuf::from("c.yaml"), text.to_string())];
        let env = |name: &str| {
            (name == "ORG").then(|| "7d3f6a2e-0c1b-4e5f-9a8b-1c2d3e4f5a6b".to_string())
        };
        let loaded = load_texts(&files, LoadMode::Live, &env);
        let config = loaded.config.unwrap();
        assert_eq!(
            config.organization.value,
            "7d3f6a2e-0c1b-4e5f-9a8b-1c2d3e4f5a6b"
        );
        assert_eq!(config.ignore[0].value, "stack.prod.*");
        assert_eq!(config.organization.span.line, 2);
    }

    #[test]
    fn a_secret_passed_through_a_template_stays_a_secret() {
        let text = "version: 1
organization: 7d3f6a2e-0c1b-4e5f-9a8b-1c2d3e4f5a6b
observability:
  token: ${env:OBS_TOKEN}
templates:
  t:
    parameters: { who: string }
    alert: { name: \"${who} errors\" }
stacks:
  s:
    api: observability
    alerts:
      a: { template: t, forEach: [{ key: x, who: \"${env:OBS_TOKEN}\" }] }
";
        let files = vec![(PathBuf::from("c.yaml"), text.to_string())];
        let env = |name: &str| (name == "OBS_TOKEN").then(|| "hunter2".to_string());
        let loaded = load_texts(&files, LoadMode::Live, &env);
        let refused: Vec<&Diagnostic> = loaded
            .diagnostics
            .iter()
            .filter(|d| d.code == Code::ConfigSecretVariable)
            .collect();
        assert_eq!(refused.len(), 1, "{:?}", loaded.diagnostics);
        assert_eq!(refused[0].span.map(|s| s.line), Some(8));
        assert!(refused[0].span.is_some_and(|s| s.instance() == Some(0)));
        assert!(!format!("{:?}", loaded.diagnostics).contains("hunter2"));
        let expanded = loaded.expanded_yaml().unwrap_or_default();
        assert!(expanded.contains("${env:OBS_TOKEN} errors"), "{expanded}");
        assert!(!expanded.contains("hunter2"));
    }

    #[test]
    fn diagnostics_are_sorted_by_place() {
        let text = "version: 2\norganization: x\nservices:\n  a: {id: y, bogus: 1}\n";
        let files = vec![(PathBuf::from("c.yaml"), text.to_string())];
        let loaded = load_texts(&files, LoadMode::Offline, &|_| None);
        let places: Vec<(u32, u32)> = loaded
            .diagnostics
            .iter()
            .map(|d| d.span.map_or((0, 0), |s| (s.line, s.column)))
            .collect();
        let mut sorted = places.clone();
        sorted.sort();
        assert_eq!(places, sorted);
        assert!(loaded.error_count() >= 4, "{:?}", loaded.diagnostics);
    }
}
