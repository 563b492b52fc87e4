//! The one planning pipeline of the commands that plan (`plan`, `apply`, `drift`): the planner
//! over the whole config, then what the command's settings ask of the plan it prints (the
//! `--only` globs checked against every address known and applied, the names of the sources
//! the kept changes show, the review's warnings, and services that are not running while the
//! plan writes their pipes), so that the plan [`plan`] returns is the plan printed. No I/O:
//! the command reports what comes back.

use std::collections::BTreeSet;

use crate::config::model::{Config, Sources};
use crate::config::render;
use crate::diagnostic::{Diagnostic, Severity};
use crate::live::LiveState;
use crate::plan::build::{self, PlanOptions};
use crate::plan::model::{Plan, Warning};
use crate::plan::{address, glob, idle};

/// What a command asks of its plan, resolved once from its flags (`settings::PlanSettings`).
#[derive(Debug, Clone, Default)]
pub(crate) struct Options {
    /// `--only` globs over addresses; empty keeps everything.
    pub only: Vec<String>,
    /// `--dedupe`: a name a stack holds more than once is repaired by the plan's own deletes.
    pub dedupe: bool,
    /// The no-op changes keep no values ([`PlanOptions::drop_unchanged_values`]), for an
    /// output that does not show them.
    pub drop_unchanged_values: bool,
    /// What is said of services that are not running while the plan writes their pipes.
    pub idle: Idle,
}

/// What the plan says of a service that is not running while it writes the service's pipes
/// (those writes fail with 424).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) enum Idle {
    /// Nothing: the run wakes the service first (`apply --wake`).
    #[default]
    Quiet,
    /// A warning on stderr (`apply`).
    Said,
    /// A warning on stderr that the plan's own warnings carry too (`plan`).
    Shown,
}

/// A plan as it is printed, with what its command reports on the way.
#[derive(Debug)]
pub(crate) struct Planned {
    /// The plan.
    pub plan: Plan,
    /// The planner's diagnostics (warnings only), reported first.
    pub diagnostics: Vec<Diagnostic>,
    /// The warnings of `--only` (a kept step waits for one left out), reported after.
    pub only_diagnostics: Vec<Diagnostic>,
    /// The warnings of services not running, said after both.
    pub idle: Vec<String>,
}

/// Why there is no plan to print.
#[derive(Debug)]
pub(crate) enum Stopped {
    /// The planner's diagnostics hold an error.
    Invalid(Vec<Diagnostic>),
    /// An `--only` glob matches no address; the planner's diagnostics (warnings) come first.
    Unmatched {
        /// The planner's diagnostics.
        diagnostics: Vec<Diagnostic>,
        /// Each glob that matches nothing.
        globs: Vec<UnmatchedGlob>,
    },
}

/// The unmanaged objects of `plan` a pattern of the config's `ignore:` list matches.
fn acknowledged(plan: &Plan, config: &Config) -> Vec<crate::address::AddressBuf> {
    plan.unmanaged
        .iter()
        .filter(|u| {
            let address = u.address.to_string();
            config
                .ignore
                .iter()
                .any(|pattern| glob::matches(&pattern.value, &address))
        })
        .map(|u| u.address.clone())
        .collect()
}

/// A pattern of `--only` or `--ignore` that matches no address, with the closest addresses.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct UnmatchedGlob {
    /// The pattern as given.
    pub glob: String,
    /// The closest addresses of the config and the live state, closest first; empty when there
    /// is no address at all.
    pub closest: Vec<String>,
}

/// The plan of `config` against `live` as `options` ask for it, backup ages measured from
/// `now` (read by the caller: no clock here; `None` leaves the age condition unevaluated). A
/// glob of `options.only` may match an address of the config, of the whole plan, or of
/// `unmanaged` (the live objects nothing manages, which the drift report knows, a layer above;
/// asked only when there are globs).
pub(crate) fn plan(
    config: &Config,
    sources: &Sources,
    live: &LiveState,
    options: &Options,
    now: Option<jiff::Timestamp>,
    unmanaged: impl FnOnce(&Plan) -> Vec<String>,
) -> Result<Planned, Stopped> {
    let planner = PlanOptions {
        only: Vec::new(),
        now,
        dedupe: options.dedupe,
        drop_unchanged_values: options.drop_unchanged_values,
    };
    let (mut plan, diagnostics) = build::plan(config, live, &planner);
    if diagnostics.iter().any(|d| d.severity == Severity::Error) {
        return Err(Stopped::Invalid(diagnostics));
    }
    plan.warnings = review_warnings(&diagnostics, sources);
    let mut only_diagnostics = Vec::new();
    if !options.only.is_empty() {
        // What a glob may match: the addresses the config names (read or not: `--only` reads
        // only what its globs need) and those the lists read hold.
        let mut known = addresses(&plan);
        known.extend(unmanaged(&plan));
        known.extend(address::config_addresses(config));
        known.sort();
        known.dedup();
        let globs = unmatched(&options.only, &known);
        if !globs.is_empty() {
            return Err(Stopped::Unmatched { diagnostics, globs });
        }
        only_diagnostics = build::keep_only(&mut plan, &options.only);
        // The names a partial plan shows are those of its own changes.
        plan.sources = build::source_names(&plan, live);
        plan.webhooks = build::webhook_names(&plan, live);
        plan.warnings
            .extend(review_warnings(&only_diagnostics, sources));
    }
    // After `--only`: a partial plan acknowledges only what it still lists.
    plan.acknowledged = acknowledged(&plan, config);
    let idle = match options.idle {
        Idle::Quiet => Vec::new(),
        Idle::Said | Idle::Shown => idle::warnings(&plan, live),
    };
    if options.idle == Idle::Shown {
        plan.warnings.extend(idle.iter().map(|message| Warning {
            code: None,
            place: None,
            message: message.clone(),
            help: None,
        }));
    }
    Ok(Planned {
        plan,
        diagnostics,
        only_diagnostics,
        idle,
    })
}

/// The addresses a plan holds: changes (in sync ones too), owned objects the config no longer
/// lists, and checks; sorted.
pub(crate) fn addresses(plan: &Plan) -> Vec<String> {
    let changes = plan.changes.iter().map(|c| c.address.to_string());
    let unmanaged = plan.unmanaged.iter().map(|u| u.address.to_string());
    let checks = plan.checks.iter().map(|c| c.address.clone());
    let known: BTreeSet<String> = changes.chain(unmanaged).chain(checks).collect();
    known.into_iter().collect()
}

/// Each of `globs` that matches none of the `known` addresses, with the closest ones.
pub(crate) fn unmatched(globs: &[String], known: &[String]) -> Vec<UnmatchedGlob> {
    let candidates: Vec<&str> = known.iter().map(String::as_str).collect();
    globs
        .iter()
        .filter(|glob| !candidates.iter().any(|a| glob::matches(glob, a)))
        .map(|pattern| UnmatchedGlob {
            glob: pattern.clone(),
            closest: glob::closest(pattern, &candidates, 5)
                .into_iter()
                .map(str::to_string)
                .collect(),
        })
        .collect()
}

/// The warnings among `diagnostics` as the plan's review carries them.
fn review_warnings(diagnostics: &[Diagnostic], sources: &Sources) -> Vec<Warning> {
    diagnostics
        .iter()
        .filter(|d| d.severity == Severity::Warning)
        .map(|d| Warning {
            code: Some(d.code.as_str().to_string()),
            place: render::place(d, sources),
            message: d.message.clone(),
            help: d.help.clone(),
        })
        .collect()
}
