//! The policy review of `plan` and `apply` (`--policy`, the config's `policy:`): the rules
//! loaded, evaluated on the plan (`crate::policy`), their findings shown at their config lines
//! and carried by the plan's review; and why a command stops on them.

use std::path::PathBuf;

use crate::config::model::{Config, Sources};
use crate::config::render;
use crate::diagnostic::{Code, Diagnostic};
use crate::error::{CommandError, Result};
use crate::format::Format;
use crate::output::Printer;
use crate::plan::Plan;
use crate::plan::saved::SavedPolicy;
use crate::policy::{self, PolicySet, Rule, Spec, input::Tree};

/// The `--policy` flag of the commands that plan.
#[derive(Debug, Clone, clap::Args)]
pub(crate) struct PolicyArgs {
    /// Rego rules to evaluate on the plan (docs/policy.md): a directory of `.rego` files or one
    /// file; repeatable, added to the config's `policy:`. A `deny` finding fails the plan (exit
    /// 1) and makes `apply` refuse it; a `warn` finding is shown.
    #[arg(long = "policy", value_name = "PATH")]
    pub policy: Vec<PathBuf>,
    /// Longest the rules may run on one plan before the run stops with an error at the rule:
    /// `1s`, `10s`, `1m`.
    #[arg(long, value_name = "DURATION", default_value = "10s", value_parser = super::flags::timeout)]
    pub policy_timeout: std::time::Duration,
}

/// Why a command stops on its policy.
#[derive(Debug, thiserror::Error, miette::Diagnostic)]
pub(crate) enum PolicyError {
    /// A `deny` rule reported findings.
    #[error("the policy denies the plan: {count} finding(s), shown above")]
    #[diagnostic(help("fix the config (or the rule) and plan again"))]
    Denied {
        /// How many `deny` findings.
        count: usize,
    },
    /// The rules could not be loaded or evaluated.
    #[error("the policy cannot be evaluated: {count} error(s), shown above")]
    #[diagnostic(help("fix the rules at the lines shown, then plan again"))]
    Invalid {
        /// How many errors.
        count: usize,
    },
}

impl CommandError for PolicyError {
    fn code(&self) -> Code {
        match self {
            PolicyError::Denied { .. } => Code::PolicyDenied,
            PolicyError::Invalid { .. } => Code::PolicyInvalid,
        }
    }
}

/// What a plan's policy review found.
#[derive(Debug, Clone)]
pub(crate) struct Reviewed {
    /// What a saved plan records of the rules.
    pub saved: SavedPolicy,
    /// How many `deny` findings.
    pub denied: usize,
}

/// The paths a run evaluates: the config's `policy:` (relative to the file each is written
/// in), then `--policy`.
pub(crate) fn specs(config: Option<(&Config, &Sources)>, args: &PolicyArgs) -> Vec<Spec> {
    let mut specs = Vec::new();
    if let Some((config, sources)) = config {
        for written in &config.policy {
            let base = sources
                .file(written.span.file_index())
                .and_then(|f| f.path.parent().map(PathBuf::from))
                .unwrap_or_default();
            // A built-in rule is a name, not a path.
            let path = match written.value.starts_with(policy::BUILTIN) {
                true => PathBuf::from(&written.value),
                false => base.join(&written.value),
            };
            specs.push(Spec {
                path,
                span: Some(written.span),
            });
        }
    }
    specs.extend(args.policy.iter().map(|path| Spec {
        path: path.clone(),
        span: None,
    }));
    specs
}

/// Loads the rules at `specs`; their read errors shown at the config line that names them.
pub(crate) fn load(specs: &[Spec], sources: &Sources, printer: &Printer) -> Result<PolicySet> {
    policy::load(specs).map_err(|problems| {
        render::render(&problems, sources, Format::Text, printer);
        PolicyError::Invalid {
            count: problems.len(),
        }
        .into()
    })
}

/// Evaluates `set` on `plan`: the findings shown on stderr at their config lines (and as
/// GitHub annotations), added to the plan's warnings for the Markdown comment, the JSON plan
/// and a saved plan. An error of the rules is shown at its `.rego` line and ends the command.
pub(crate) fn review(
    set: &PolicySet,
    specs: &[Spec],
    limit: std::time::Duration,
    sources: &Sources,
    recorded: Option<&[serde_json::Value]>,
    plan: &mut Plan,
    printer: &Printer,
) -> Result<Reviewed> {
    let tree = Tree::read(sources);
    let config = match recorded {
        Some(config) => config.to_vec(),
        None => policy::input::config_objects(plan, &tree, sources),
    };
    let input = policy::input::build(plan, config.clone());
    let policy_sources = set.sources();
    let findings = policy::evaluate(set, &input, limit).map_err(|problems| {
        render::render(&problems, &policy_sources, Format::Text, printer);
        crate::error::Error::from(PolicyError::Invalid {
            count: problems.len(),
        })
    })?;
    let shown: Vec<Diagnostic> = policy::diagnostics(&findings, &tree, &policy_sources);
    if !shown.is_empty() {
        render::render(&shown, sources, Format::Text, printer);
    }
    plan.warnings
        .extend(policy::warnings(&findings, &tree, sources, &policy_sources));
    Ok(Reviewed {
        saved: SavedPolicy {
            paths: specs
                .iter()
                .map(|s| crate::output::path_text(&s.path))
                .collect(),
            digest: set.digest(),
            config,
        },
        denied: findings.iter().filter(|f| f.rule == Rule::Deny).count(),
    })
}

/// What the policy says of a plan `apply` is about to write.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Gate {
    /// No rule denies it (or there is no policy).
    Pass,
    /// `deny` findings: this many.
    Denied(usize),
    /// A saved plan's rules changed since its review: the digest it records, and the one now.
    Changed {
        /// What the saved plan records.
        reviewed: String,
        /// The rules' digest now.
        now: String,
    },
}

/// The gate of `apply` on a plan made from the config: its rules (`policy:`, `--policy`)
/// evaluated on it.
pub(crate) fn gate(
    config: &Config,
    sources: &Sources,
    args: &PolicyArgs,
    plan: &mut Plan,
    printer: &Printer,
) -> Result<Gate> {
    let specs = specs(Some((config, sources)), args);
    if specs.is_empty() {
        return Ok(Gate::Pass);
    }
    let set = load(&specs, sources, printer)?;
    let reviewed = review(
        &set,
        &specs,
        args.policy_timeout,
        sources,
        None,
        plan,
        printer,
    )?;
    Ok(denied(reviewed.denied))
}

/// The gate of `apply --plan`: the rules the plan was reviewed with (`--policy` when given,
/// else the paths it records) must have the digest it records, and are evaluated again on it.
pub(crate) fn gate_saved(
    saved: Option<&SavedPolicy>,
    args: &PolicyArgs,
    plan: &mut Plan,
    printer: &Printer,
) -> Result<Gate> {
    let mut specs = specs(None, args);
    if specs.is_empty()
        && let Some(saved) = saved
    {
        specs = saved
            .paths
            .iter()
            .map(|path| Spec {
                path: PathBuf::from(path),
                span: None,
            })
            .collect();
    }
    if specs.is_empty() {
        return Ok(Gate::Pass);
    }
    let none = Sources::default();
    let set = load(&specs, &none, printer)?;
    if let Some(saved) = saved
        && saved.digest != set.digest()
    {
        return Ok(Gate::Changed {
            reviewed: saved.digest.clone(),
            now: set.digest(),
        });
    }
    // The findings of the review are replaced by those of this evaluation.
    plan.warnings
        .retain(|w| !w.code.as_deref().is_some_and(|c| c.starts_with("policy::")));
    let recorded = saved.map(|s| s.config.as_slice());
    let reviewed = review(
        &set,
        &specs,
        args.policy_timeout,
        &none,
        recorded,
        plan,
        printer,
    )?;
    Ok(denied(reviewed.denied))
}

fn denied(count: usize) -> Gate {
    match count {
        0 => Gate::Pass,
        n => Gate::Denied(n),
    }
}
