//! Which addresses a config can produce, and what each needs read. The [`Address`] type itself
//! (writing and reading one) lives in `crate::address`, below the live reader that uses it too.
//!
//! The addresses a config can produce are known before anything is read, and so are the live
//! lists each needs: what lets `--only` read only what its addresses need.
//!
//! Most addresses come from the config itself (`service.analytics.scaling`,
//! `alert.prod.api-errors`). Others name live objects the config does not list (a pruned or
//! reported dashboard `dashboard.prod["Old board"]`, a detached endpoint, an unnamed pipe): for
//! those the config knows only the family (`dashboard.prod["` any name `"]`), and a pattern that
//! could match any member of the family needs the family's lists.
//!
//! What a planned address needs, and why:
//! - `service.K.scaling`, `service.K.private_endpoint[...]`, `service.K.ipAccessList` (and
//!   `.tags`, `.releaseChannel`, `.endpoints`, `.state`): the services list.
//! - `pipe.K.P.scaling`, `pipe.K.P.settings`, `pipe.K.P` (absent, or declared beyond scaling) and `pipe.K["name"]`
//!   (drift's unnamed pipes): K's pipes list, and the services list (a pipe is planned only for a service that
//!   exists).
//! - `service.K.pipe_compute`: K's database-pipe compute, and the services list.
//! - `check.K.backups`: K's backups (and the backups `keep` names), and the services list.
//! - `dashboard.S.*`, `alert.S.*`, `webhook.S.*`: all the lists of stack S. An alert is planned against its
//!   dashboard's plan (the tile ids it points at, and whether it waits for a dashboard step); a
//!   dashboard resolves source names through the sources list; which alerts and dashboards are
//!   owned, stray or pruned depends on both lists.
//!
//! Nothing else is shared between them: a stack never needs the services list (its service id
//! comes from the config), and one service's lists never need another's.

use super::glob::{self, Part};
use std::borrow::Cow;

pub(crate) use crate::address::Address;
use crate::address::Member;
use crate::config::model::{Config, PipeConfig, ServiceConfig, StackConfig};
use crate::live::{Lists, ReadScope};

/// A family of addresses and the lists planning any of them needs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Family {
    /// The addresses: literal text, with [`Part::Any`] where a live name or id goes.
    pub parts: Vec<Part>,
    /// What planning them reads.
    pub needs: Need,
}

/// The lists one family of addresses needs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Need {
    /// The services list.
    Services,
    /// A service's pipes (by service key), with the services list.
    Pipes(String),
    /// A service's backups (by service key), with the services list.
    Backups(String),
    /// A stack's dashboards, alerts and sources (by stack key).
    Stack(String),
    /// A service's database-pipe compute (by service key), with the services list.
    PipeCompute(String),
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
    pub(crate) fn address(&self) -> Option<&str> {
        match self.parts.as_slice() {
            [Part::Text(address)] => Some(address),
            _ => None,
        }
    }

    /// Whether `pattern` matches some address of the family.
    pub(crate) fn matched_by(&self, pattern: &str) -> bool {
        glob::could_match(pattern, &self.parts)
    }

    fn add_to(&self, lists: &mut Lists) {
        match &self.needs {
            Need::Services => lists.services(),
            Need::Pipes(service) => lists.pipes_of(service),
            Need::Backups(service) => lists.backups_of(service),
            Need::Stack(stack) => lists.stack(stack),
            Need::PipeCompute(service) => lists.pipe_compute_of(service),
        }
    }
}

/// Objects named by their live name (`dashboard.prod["Old board"]`) also match a pattern as if
/// a dot came before the bracket ([`glob::matches`]), so such a family is listed in both forms.
fn named(out: &mut Vec<Family>, open: &Address<'_>, needs: Need) {
    let Some((head, tail)) = open.around_open_part() else {
        return;
    };
    let dotted = head.replacen("[\"", ".[\"", 1);
    out.push(Family::open(head, tail, needs.clone()));
    out.push(Family::open(dotted, tail, needs));
}

/// Every family of addresses `config` can produce, in config order: one address each for what
/// the config names, and an open family for the live objects it may report or delete.
pub(crate) fn families(config: &Config) -> Vec<Family> {
    let mut out = Vec::new();
    for (key, service) in &config.services {
        service_families(&mut out, key, service);
    }
    for (key, stack) in &config.stacks {
        stack_families(&mut out, key, stack);
    }
    out
}

/// The families of a service: its scaling, endpoints, pipes and backup check.
fn service_families(out: &mut Vec<Family>, key: &str, service: &ServiceConfig) {
    if service.scaling.is_some() {
        let address = Address::ServiceScaling { service: key };
        out.push(Family::exact(address.to_string(), Need::Services));
    }
    let settings = &service.settings;
    let written = [
        (Member::Name, settings.name.is_some()),
        (Member::IpAccessList, settings.ip_access_list.is_some()),
        (Member::Tags, settings.tags.is_some()),
        (Member::ReleaseChannel, settings.release_channel.is_some()),
        (Member::Endpoints, settings.mysql_endpoint.is_some()),
        (Member::State, settings.state.is_some()),
    ];
    for (member, _) in written.into_iter().filter(|(_, w)| *w) {
        let address = Address::ServiceMember {
            service: key,
            member,
        };
        out.push(Family::exact(address.to_string(), Need::Services));
    }
    if service.pipe_compute.is_some() {
        let address = Address::PipeCompute { service: key };
        out.push(Family::exact(
            address.to_string(),
            Need::PipeCompute(key.to_string()),
        ));
    }
    for endpoint in service.private_endpoints.iter().flatten() {
        let address = Address::PrivateEndpoint {
            service: key,
            id: &endpoint.id.value,
        };
        out.push(Family::exact(address.to_string(), Need::Services));
    }
    // With `privateEndpoints:` an extra endpoint is detached; without, drift reports it.
    let any_endpoint = Address::PrivateEndpoint {
        service: key,
        id: "",
    };
    if let Some((head, tail)) = any_endpoint.around_open_part() {
        out.push(Family::open(head, tail, Need::Services));
    }
    // Read with the pipes, which name them.
    for endpoint in service.reverse_endpoints.keys() {
        let address = Address::ReverseEndpoint {
            service: key,
            endpoint,
        };
        out.push(Family::exact(
            address.to_string(),
            Need::Pipes(key.to_string()),
        ));
    }
    for (name, pipe) in &service.pipes {
        pipe_families(out, key, name, pipe);
    }
    if !service.pipes.is_empty() {
        let any_pipe = Address::LivePipe {
            service: key,
            name: Cow::Borrowed(""),
        };
        named(out, &any_pipe, Need::Pipes(key.to_string()));
    }
    if service.backups.is_some() {
        let address = Address::Backups { service: key };
        out.push(Family::exact(
            address.to_string(),
            Need::Backups(key.to_string()),
        ));
    }
}

/// The families of one config pipe `name` of service `key`: its settings, the pipe itself,
/// its scaling, each as it declares them.
fn pipe_families(out: &mut Vec<Family>, key: &str, name: &str, pipe: &PipeConfig) {
    if !pipe.absent && pipe.settings.is_some() {
        let settings = Address::PipeSettings {
            service: key,
            pipe: name,
        };
        out.push(Family::exact(
            settings.to_string(),
            Need::Pipes(key.to_string()),
        ));
    }
    // A pipe is planned as itself when marked absent (deleted, or already gone) or when
    // it declares more than scaling (created, changed, replaced, paused or started,
    // rotated): the plan prints `pipe.K.P` for those, so `--only` takes it.
    let whole = pipe.absent
        || pipe.name.is_some()
        || pipe.source.is_some()
        || pipe.destination.is_some()
        || pipe.field_mappings.is_some()
        || pipe.state.is_some()
        || pipe.credentials_version.is_some();
    if whole {
        let address = Address::Pipe {
            service: key,
            pipe: name,
        };
        out.push(Family::exact(
            address.to_string(),
            Need::Pipes(key.to_string()),
        ));
    }
    if !pipe.absent && pipe.scaling.is_some() {
        let address = Address::PipeScaling {
            service: key,
            pipe: name,
        };
        out.push(Family::exact(
            address.to_string(),
            Need::Pipes(key.to_string()),
        ));
    }
}

/// The families of a stack: its dashboards and alerts, named by the config or live.
fn stack_families(out: &mut Vec<Family>, key: &str, stack: &StackConfig) {
    let needs = || Need::Stack(key.to_string());
    for dashboard in stack.dashboards.keys() {
        let address = Address::Dashboard {
            stack: key,
            dashboard,
        };
        out.push(Family::exact(address.to_string(), needs()));
    }
    let any_dashboard = Address::LiveDashboard {
        stack: key,
        name: Cow::Borrowed(""),
    };
    named(out, &any_dashboard, needs());
    for alert in stack.alerts.keys() {
        let address = Address::Alert { stack: key, alert };
        out.push(Family::exact(address.to_string(), needs()));
    }
    let any_alert = Address::LiveAlert {
        stack: key,
        name: Cow::Borrowed(""),
    };
    named(out, &any_alert, needs());
    // The webhooks list is read with the stack's lists for a stack that declares webhooks.
    for webhook in stack.webhooks.keys() {
        let address = Address::Webhook {
            stack: key,
            webhook,
        };
        out.push(Family::exact(address.to_string(), needs()));
    }
    // The sources list is read with the stack's lists (and the connections list beside it).
    for source in stack.sources.keys() {
        let address = Address::Source { stack: key, source };
        out.push(Family::exact(address.to_string(), needs()));
    }
    // The saved searches list is read with the stack's lists for a stack that declares them.
    for search in stack.saved_searches.keys() {
        let address = Address::SavedSearch { stack: key, search };
        out.push(Family::exact(address.to_string(), needs()));
    }
    // A removed template instance is deleted at its address, found through these lists.
    for names in &stack.instance_names {
        let head = format!("{}.{key}.{}[", names.kind, names.entry);
        out.push(Family::open(head, "]", needs()));
    }
    // A removed instance of the same whole-stack template is found through this one's lists.
    if let Some(entry) = instance_entry(key) {
        for kind in ["dashboard", "alert"] {
            out.push(Family::open(format!("{kind}.{entry}["), "\"]", needs()));
        }
    }
}

/// The entry of a stack instance's key `entry[key]`, made by a whole-stack template.
pub(crate) fn instance_entry(stack: &str) -> Option<&str> {
    let (entry, _) = stack.strip_suffix(']')?.split_once('[')?;
    Some(entry)
}

/// The addresses the config itself names, in config order: what a pattern can be compared
/// with before anything is read (a hint for a pattern that matches nothing).
pub(crate) fn config_addresses(config: &Config) -> Vec<String> {
    families(config)
        .iter()
        .filter_map(|family| family.address().map(str::to_string))
        .collect()
}

/// The lists a run limited to `patterns` reads: those of every family some pattern could
/// match. No patterns: everything.
pub(crate) fn read_scope(config: &Config, patterns: &[String]) -> ReadScope {
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
#[cfg(test)]
pub(crate) fn unmatchable<'p>(config: &Config, patterns: &'p [String]) -> Vec<&'p str> {
    let families = families(config);
    patterns
        .iter()
        .filter(|p| !families.iter().any(|f| f.matched_by(p)))
        .map(String::as_str)
        .collect()
}
