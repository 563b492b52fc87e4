//! The addresses a config can produce, known before anything is read, and the live lists each
//! needs: what lets `--only` read only what its addresses need.
//!
//! Most addresses come from the config itself (`service.analytics.scaling`,
//! `alert.prod.api-errors`). Others name live objects the config does not list (a pruned or
//! reported dashboard `dashboard.prod["Old board"]`, a detached endpoint, an unnamed pipe): for
//! those the config knows only the family (`dashboard.prod["` any name `"]`), and a pattern that
//! could match any member of the family needs the family's lists.
//!
//! What a planned address needs, and why:
//! - `service.K.scaling`, `service.K.private_endpoint[...]`: the services list.
//! - `pipe.K.P.scaling`, `pipe.K.P` (marked absent) and `pipe.K["name"]` (drift's unnamed
//!   pipes): K's pipes list, and the services list (a pipe is planned only for a service that
//!   exists).
//! - `check.K.backups`: K's backups (and the backups `keep` names), and the services list.
//! - `dashboard.S.*`, `alert.S.*`: all three lists of stack S. An alert is planned against its
//!   dashboard's plan (the tile ids it points at, and whether it waits for a dashboard step); a
//!   dashboard resolves source names through the sources list; which alerts and dashboards are
//!   owned, stray or pruned depends on both lists.
//!
//! Nothing else is shared between them: a stack never needs the services list (its service id
//! comes from the config), and one service's lists never need another's.

use super::glob::{self, Part};
use crate::config::model::Config;
use crate::live::{Lists, ReadScope};

/// A family of addresses and the lists planning any of them needs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Family {
    /// The addresses: literal text, with [`Part::Any`] where a live name or id goes.
    pub parts: Vec<Part>,
    /// What planning them reads.
    pub needs: Need,
}

/// The lists one family of addresses needs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Need {
    /// The services list.
    Services,
    /// A service's pipes (by service key), with the services list.
    Pipes(String),
    /// A service's backups (by service key), with the services list.
    Backups(String),
    /// A stack's dashboards, alerts and sources (by stack key).
    Stack(String),
}

impl Family {
    fn exact(address: String, needs: Need) -> Self {
        Family {
            parts: vec![Part::Text(address)],
            needs,
        }
    }

    /// `head` + any text + `tail`.
    fn open(head: String, tail: &str, needs: Need) -> Self {
        Family {
            parts: vec![Part::Text(head), Part::Any, Part::Text(tail.to_string())],
            needs,
        }
    }

    /// The one address of a family without a wildcard.
    pub fn address(&self) -> Option<&str> {
        match self.parts.as_slice() {
            [Part::Text(address)] => Some(address),
            _ => None,
        }
    }

    /// Whether `pattern` matches some address of the family.
    pub fn matched_by(&self, pattern: &str) -> bool {
        glob::could_match(pattern, &self.parts)
    }

    fn add_to(&self, lists: &mut Lists) {
        match &self.needs {
            Need::Services => lists.services(),
            Need::Pipes(service) => lists.pipes_of(service),
            Need::Backups(service) => lists.backups_of(service),
            Need::Stack(stack) => lists.stack(stack),
        }
    }
}

/// Objects named by their live name (`dashboard.prod["Old board"]`) also match a pattern as if
/// a dot came before the bracket ([`glob::matches`]), so such a family is listed in both forms.
fn named(out: &mut Vec<Family>, head: &str, needs: Need) {
    out.push(Family::open(format!("{head}[\""), "\"]", needs.clone()));
    out.push(Family::open(format!("{head}.[\""), "\"]", needs));
}

/// Every family of addresses `config` can produce, in config order: one address each for what
/// the config names, and an open family for the live objects it may report or delete.
pub fn families(config: &Config) -> Vec<Family> {
    let mut out = Vec::new();
    for (key, service) in &config.services {
        if service.scaling.is_some() {
            out.push(Family::exact(
                format!("service.{key}.scaling"),
                Need::Services,
            ));
        }
        for endpoint in service.private_endpoints.iter().flatten() {
            out.push(Family::exact(
                format!("service.{key}.private_endpoint[{}]", endpoint.id.value),
                Need::Services,
            ));
        }
        // With `privateEndpoints:` an extra endpoint is detached; without, drift reports it.
        out.push(Family::open(
            format!("service.{key}.private_endpoint["),
            "]",
            Need::Services,
        ));
        for (name, pipe) in &service.pipes {
            // A pipe marked absent is planned as itself (deleted, or already gone); any other
            // as its scaling.
            let address = if pipe.absent {
                format!("pipe.{key}.{name}")
            } else if pipe.scaling.is_some() {
                format!("pipe.{key}.{name}.scaling")
            } else {
                continue;
            };
            out.push(Family::exact(address, Need::Pipes(key.clone())));
        }
        if !service.pipes.is_empty() {
            named(&mut out, &format!("pipe.{key}"), Need::Pipes(key.clone()));
        }
        if service.backups.is_some() {
            out.push(Family::exact(
                format!("check.{key}.backups"),
                Need::Backups(key.clone()),
            ));
        }
    }
    for (key, stack) in &config.stacks {
        let needs = || Need::Stack(key.clone());
        for dashboard in stack.dashboards.keys() {
            out.push(Family::exact(
                format!("dashboard.{key}.{dashboard}"),
                needs(),
            ));
        }
        named(&mut out, &format!("dashboard.{key}"), needs());
        for alert in stack.alerts.keys() {
            out.push(Family::exact(format!("alert.{key}.{alert}"), needs()));
        }
        named(&mut out, &format!("alert.{key}"), needs());
    }
    out
}

/// The addresses the config itself names, in config order: what a pattern can be compared
/// with before anything is read (a hint for a pattern that matches nothing).
pub fn config_addresses(config: &Config) -> Vec<String> {
    families(config)
        .iter()
        .filter_map(|family| family.address().map(str::to_string))
        .collect()
}

/// The lists a run limited to `patterns` reads: those of every family some pattern could
/// match. No patterns: everything.
pub fn read_scope(config: &Config, patterns: &[String]) -> ReadScope {
    if patterns.is_empty() {
        return ReadScope::All;
    }
    let mut lists = Lists::default();
    for family in families(config) {
        if patterns.iter().any(|p| family.matched_by(p)) {
            family.add_to(&mut lists);
        }
    }
    ReadScope::Only(lists)
}

/// The patterns of `patterns` that match no address `config` can produce, whatever is live:
/// such a pattern selects nothing in any run.
pub fn unmatchable<'p>(config: &Config, patterns: &'p [String]) -> Vec<&'p str> {
    let families = families(config);
    patterns
        .iter()
        .filter(|p| !families.iter().any(|f| f.matched_by(p)))
        .map(String::as_str)
        .collect()
}
