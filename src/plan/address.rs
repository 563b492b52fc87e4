//! Addresses: how every planned or reported object is named (`service.analytics.scaling`,
//! `alert.prod.api-errors`, `dashboard.prod["Old board"]`). [`Address`] is the one place that
//! writes them and the one that reads them back; plans, reports and saved files keep the text.
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

use std::borrow::Cow;
use std::fmt;

use super::glob::{self, Part};
use crate::config::model::{Config, ServiceConfig, StackConfig};
use crate::live::{Lists, ReadScope};

/// The address of one object: config keys (letters, digits, `-` and `_`, so a dot always ends
/// one) and, for a live object the config does not name, its live name (quoted as Rust quotes a
/// string) or id.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Address<'a> {
    /// `service.K.scaling`.
    ServiceScaling {
        /// Service key.
        service: &'a str,
    },
    /// `service.K.private_endpoint[ID]`.
    PrivateEndpoint {
        /// Service key.
        service: &'a str,
        /// Endpoint id.
        id: &'a str,
    },
    /// `pipe.K.P`: a pipe marked `absent`.
    Pipe {
        /// Service key.
        service: &'a str,
        /// Pipe key.
        pipe: &'a str,
    },
    /// `pipe.K.P.scaling`.
    PipeScaling {
        /// Service key.
        service: &'a str,
        /// Pipe key.
        pipe: &'a str,
    },
    /// `pipe.K["name"]`: a live pipe the config does not name.
    LivePipe {
        /// Service key.
        service: &'a str,
        /// The pipe's live name.
        name: Cow<'a, str>,
    },
    /// `check.K.backups`.
    Backups {
        /// Service key.
        service: &'a str,
    },
    /// `dashboard.S.D`.
    Dashboard {
        /// Stack key.
        stack: &'a str,
        /// Dashboard key.
        dashboard: &'a str,
    },
    /// `dashboard.S["name"]`: a live dashboard the config does not name.
    LiveDashboard {
        /// Stack key.
        stack: &'a str,
        /// The dashboard's live name.
        name: Cow<'a, str>,
    },
    /// `dashboard.S.D.tile[name]`: a tile of a config dashboard (what `preview` draws).
    Tile {
        /// Stack key.
        stack: &'a str,
        /// Dashboard key.
        dashboard: &'a str,
        /// Tile name, as the config writes it.
        tile: &'a str,
    },
    /// `alert.S.A`.
    Alert {
        /// Stack key.
        stack: &'a str,
        /// Alert key.
        alert: &'a str,
    },
    /// `alert.S["name"]`: a live alert the config does not name.
    LiveAlert {
        /// Stack key.
        stack: &'a str,
        /// The alert's live name.
        name: Cow<'a, str>,
    },
}

impl fmt::Display for Address<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Address::ServiceScaling { service } => write!(f, "service.{service}.scaling"),
            Address::PrivateEndpoint { service, id } => {
                write!(f, "service.{service}.private_endpoint[{id}]")
            }
            Address::Pipe { service, pipe } => write!(f, "pipe.{service}.{pipe}"),
            Address::PipeScaling { service, pipe } => write!(f, "pipe.{service}.{pipe}.scaling"),
            Address::LivePipe { service, name } => write!(f, "pipe.{service}[{name:?}]"),
            Address::Backups { service } => write!(f, "check.{service}.backups"),
            Address::Dashboard { stack, dashboard } => write!(f, "dashboard.{stack}.{dashboard}"),
            Address::LiveDashboard { stack, name } => write!(f, "dashboard.{stack}[{name:?}]"),
            Address::Tile {
                stack,
                dashboard,
                tile,
            } => write!(f, "dashboard.{stack}.{dashboard}.tile[{tile}]"),
            Address::Alert { stack, alert } => write!(f, "alert.{stack}.{alert}"),
            Address::LiveAlert { stack, name } => write!(f, "alert.{stack}[{name:?}]"),
        }
    }
}

impl<'a> Address<'a> {
    /// Reads an address back; `None` when `text` is no address converge writes.
    pub(crate) fn parse(text: &'a str) -> Option<Self> {
        let (kind, rest) = text.split_once('.')?;
        let end = rest.find(['.', '['])?;
        let (key, rest) = rest.split_at(end);
        if key.is_empty() {
            return None;
        }
        if let Some(quoted) = rest.strip_prefix('[') {
            let name = unquote(quoted.strip_suffix(']')?)?;
            return match kind {
                "pipe" => Some(Address::LivePipe { service: key, name }),
                "dashboard" => Some(Address::LiveDashboard { stack: key, name }),
                "alert" => Some(Address::LiveAlert { stack: key, name }),
                _ => None,
            };
        }
        let tail = rest.strip_prefix('.')?;
        let address = match kind {
            "service" if tail == "scaling" => Address::ServiceScaling { service: key },
            "service" => Address::PrivateEndpoint {
                service: key,
                id: tail.strip_prefix("private_endpoint[")?.strip_suffix(']')?,
            },
            "check" if tail == "backups" => Address::Backups { service: key },
            "pipe" => match tail.split_once('.') {
                None => Address::Pipe {
                    service: key,
                    pipe: segment(tail)?,
                },
                Some((pipe, "scaling")) => Address::PipeScaling {
                    service: key,
                    pipe: segment(pipe)?,
                },
                Some(_) => return None,
            },
            "dashboard" => match tail.split_once('.') {
                None => Address::Dashboard {
                    stack: key,
                    dashboard: segment(tail)?,
                },
                Some((dashboard, tile)) => Address::Tile {
                    stack: key,
                    dashboard: segment(dashboard)?,
                    tile: tile.strip_prefix("tile[")?.strip_suffix(']')?,
                },
            },
            "alert" => Address::Alert {
                stack: key,
                alert: segment(tail)?,
            },
            _ => return None,
        };
        Some(address)
    }

    /// The service key of a service, pipe or check address.
    pub(crate) fn service(&self) -> Option<&'a str> {
        match self {
            Address::ServiceScaling { service }
            | Address::PrivateEndpoint { service, .. }
            | Address::Pipe { service, .. }
            | Address::PipeScaling { service, .. }
            | Address::LivePipe { service, .. }
            | Address::Backups { service } => Some(service),
            _ => None,
        }
    }

    /// The stack key of a dashboard, tile or alert address.
    pub(crate) fn stack(&self) -> Option<&'a str> {
        match self {
            Address::Dashboard { stack, .. }
            | Address::LiveDashboard { stack, .. }
            | Address::Tile { stack, .. }
            | Address::Alert { stack, .. }
            | Address::LiveAlert { stack, .. } => Some(stack),
            _ => None,
        }
    }

    /// The text before and after the open part of an address whose id, live name or tile name
    /// is left empty: what every such address of one service, stack or dashboard starts and
    /// ends with.
    pub(crate) fn around_open_part(&self) -> Option<(String, &'static str)> {
        let tail = match self {
            Address::PrivateEndpoint { .. } | Address::Tile { .. } => "]",
            Address::LivePipe { .. }
            | Address::LiveDashboard { .. }
            | Address::LiveAlert { .. } => "\"]",
            _ => return None,
        };
        let text = self.to_string();
        Some((text.strip_suffix(tail)?.to_string(), tail))
    }
}

/// A config key inside an address: up to the next dot or bracket.
fn segment(text: &str) -> Option<&str> {
    (!text.is_empty() && !text.contains(['.', '[', ']'])).then_some(text)
}

/// A string quoted as `{:?}` writes it, read back: the inverse of Rust's string escapes.
fn unquote(text: &str) -> Option<Cow<'_, str>> {
    let inner = text.strip_prefix('"')?.strip_suffix('"')?;
    if !inner.contains(['\\', '"']) {
        return Some(Cow::Borrowed(inner));
    }
    let mut out = String::with_capacity(inner.len());
    let mut chars = inner.chars();
    while let Some(c) = chars.next() {
        match c {
            '"' => return None,
            '\\' => out.push(match chars.next()? {
                'n' => '\n',
                'r' => '\r',
                't' => '\t',
                '0' => '\0',
                'u' => {
                    let rest = chars.as_str().strip_prefix('{')?;
                    let (hex, after) = rest.split_once('}')?;
                    chars = after.chars();
                    char::from_u32(u32::from_str_radix(hex, 16).ok()?)?
                }
                other @ ('\\' | '"' | '\'') => other,
                _ => return None,
            }),
            c => out.push(c),
        }
    }
    Some(Cow::Owned(out))
}

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
    for (name, pipe) in &service.pipes {
        // A pipe marked absent is planned as itself (deleted, or already gone); any other
        // as its scaling.
        let address = if pipe.absent {
            Address::Pipe {
                service: key,
                pipe: name,
            }
        } else if pipe.scaling.is_some() {
            Address::PipeScaling {
                service: key,
                pipe: name,
            }
        } else {
            continue;
        };
        out.push(Family::exact(
            address.to_string(),
            Need::Pipes(key.to_string()),
        ));
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
