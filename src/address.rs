//! Addresses: how every planned or reported object is named (`service.analytics.scaling`,
//! `alert.prod.api-errors`, `dashboard.prod["Old board"]`). [`Address`] is the one place that
//! writes them and the one that reads them back; plans, reports and saved files keep the text.
//! It sits low in the layers, so the live reader and the sandbox name objects through it too.

use std::borrow::Cow;
use std::fmt;

use smol_str::SmolStr;

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
    /// `webhook.S.W`: a webhook the config declares.
    Webhook {
        /// Stack key.
        stack: &'a str,
        /// Webhook key.
        webhook: &'a str,
    },
    /// `source.S.K`: a data source the config declares.
    Source {
        /// Stack key.
        stack: &'a str,
        /// Source key.
        source: &'a str,
    },
    /// `saved_search.S.K`: a saved search the config declares.
    SavedSearch {
        /// Stack key.
        stack: &'a str,
        /// Saved search key.
        search: &'a str,
    },
    /// `pipe.K.P.settings`: a pipe's settings (`PUT .../settings`).
    PipeSettings {
        /// Service key.
        service: &'a str,
        /// Pipe key.
        pipe: &'a str,
    },
    /// `service.K.pipe_compute`: the compute shared by a service's database pipes.
    PipeCompute {
        /// Service key.
        service: &'a str,
    },
    /// `service.K.reverse_endpoint.E`: a reverse private endpoint of a service's pipes.
    ReverseEndpoint {
        /// Service key.
        service: &'a str,
        /// Endpoint key.
        endpoint: &'a str,
    },
    /// `service.K.name`, `.ipAccessList`, `.tags`, `.releaseChannel`, `.endpoints`, `.state`: one member
    /// of a service's own settings.
    ServiceMember {
        /// Service key.
        service: &'a str,
        /// Which member.
        member: Member,
    },
}

/// A member of a service's own settings, named as the config writes it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Member {
    /// `name` (`PATCH /services/{id}`).
    Name,
    /// `ipAccessList` (`PATCH /services/{id}`).
    IpAccessList,
    /// `tags` (`PATCH /services/{id}`).
    Tags,
    /// `releaseChannel` (`PATCH /services/{id}`).
    ReleaseChannel,
    /// `endpoints` (the `mysql` switch, `PATCH /services/{id}`).
    Endpoints,
    /// `state` (`PATCH /services/{id}/state`).
    State,
}

impl Member {
    /// Every member, in the order a service's changes list them.
    pub const ALL: [Member; 6] = [
        Member::Name,
        Member::IpAccessList,
        Member::Tags,
        Member::ReleaseChannel,
        Member::Endpoints,
        Member::State,
    ];

    /// The config key (and the address's last part).
    pub fn as_str(self) -> &'static str {
        match self {
            Member::Name => "name",
            Member::IpAccessList => "ipAccessList",
            Member::Tags => "tags",
            Member::ReleaseChannel => "releaseChannel",
            Member::Endpoints => "endpoints",
            Member::State => "state",
        }
    }

    /// The member a config key names.
    pub fn parse(text: &str) -> Option<Member> {
        Member::ALL.into_iter().find(|m| m.as_str() == text)
    }
}

/// Which of a stack's lists holds an object ([`Address::stack_object`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) enum StackList {
    /// The stack's dashboards.
    Dashboards,
    /// The stack's alerts.
    Alerts,
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
            Address::Webhook { stack, webhook } => write!(f, "webhook.{stack}.{webhook}"),
            Address::Source { stack, source } => write!(f, "source.{stack}.{source}"),
            Address::SavedSearch { stack, search } => write!(f, "saved_search.{stack}.{search}"),
            Address::PipeSettings { service, pipe } => {
                write!(f, "pipe.{service}.{pipe}.settings")
            }
            Address::PipeCompute { service } => write!(f, "service.{service}.pipe_compute"),
            Address::ReverseEndpoint { service, endpoint } => {
                write!(f, "service.{service}.reverse_endpoint.{endpoint}")
            }
            Address::ServiceMember { service, member } => {
                write!(f, "service.{service}.{}", member.as_str())
            }
        }
    }
}

impl<'a> Address<'a> {
    /// Reads an address back; `None` when `text` is no address converge writes.
    pub(crate) fn parse(text: &'a str) -> Option<Self> {
        let (kind, rest) = text.split_once('.')?;
        let (key, rest) = rest.split_at(key_end(rest)?);
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
            "service" if tail == "pipe_compute" => Address::PipeCompute { service: key },
            "service" if tail.starts_with("reverse_endpoint.") => Address::ReverseEndpoint {
                service: key,
                endpoint: segment(tail.strip_prefix("reverse_endpoint.")?)?,
            },
            "service" if Member::parse(tail).is_some() => Address::ServiceMember {
                service: key,
                member: Member::parse(tail)?,
            },
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
                Some((pipe, "settings")) => Address::PipeSettings {
                    service: key,
                    pipe: segment(pipe)?,
                },
                Some(_) => return None,
            },
            "dashboard" => match tail.split_once('.') {
                None => Address::Dashboard {
                    stack: key,
                    dashboard: instance_segment(tail)?,
                },
                Some((dashboard, tile)) => Address::Tile {
                    stack: key,
                    dashboard: instance_segment(dashboard)?,
                    tile: tile.strip_prefix("tile[")?.strip_suffix(']')?,
                },
            },
            "alert" => Address::Alert {
                stack: key,
                alert: instance_segment(tail)?,
            },
            "webhook" => Address::Webhook {
                stack: key,
                webhook: segment(tail)?,
            },
            "source" => Address::Source {
                stack: key,
                source: segment(tail)?,
            },
            "saved_search" => Address::SavedSearch {
                stack: key,
                search: segment(tail)?,
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
            | Address::Backups { service }
            | Address::PipeSettings { service, .. }
            | Address::PipeCompute { service }
            | Address::ReverseEndpoint { service, .. }
            | Address::ServiceMember { service, .. } => Some(service),
            Address::Dashboard { .. }
            | Address::LiveDashboard { .. }
            | Address::Tile { .. }
            | Address::Alert { .. }
            | Address::LiveAlert { .. }
            | Address::Webhook { .. }
            | Address::Source { .. }
            | Address::SavedSearch { .. } => None,
        }
    }

    /// The service key of an address of a service's own settings: its scaling, an endpoint
    /// (private or reverse), its database pipes' compute.
    pub(crate) fn service_setting(&self) -> Option<&'a str> {
        match self {
            Address::ServiceScaling { service }
            | Address::PrivateEndpoint { service, .. }
            | Address::PipeCompute { service }
            | Address::ReverseEndpoint { service, .. }
            | Address::ServiceMember { service, .. } => Some(service),
            Address::Pipe { .. }
            | Address::PipeScaling { .. }
            | Address::LivePipe { .. }
            | Address::Backups { .. }
            | Address::PipeSettings { .. }
            | Address::Dashboard { .. }
            | Address::LiveDashboard { .. }
            | Address::Tile { .. }
            | Address::Alert { .. }
            | Address::LiveAlert { .. }
            | Address::Webhook { .. }
            | Address::Source { .. }
            | Address::SavedSearch { .. } => None,
        }
    }

    /// The service and pipe keys of an address of a pipe the config names: the pipe, its
    /// scaling, its settings.
    pub(crate) fn config_pipe(&self) -> Option<(&'a str, &'a str)> {
        match self {
            Address::Pipe { service, pipe }
            | Address::PipeScaling { service, pipe }
            | Address::PipeSettings { service, pipe } => Some((service, pipe)),
            Address::ServiceScaling { .. }
            | Address::PrivateEndpoint { .. }
            | Address::PipeCompute { .. }
            | Address::ReverseEndpoint { .. }
            | Address::ServiceMember { .. }
            | Address::LivePipe { .. }
            | Address::Backups { .. }
            | Address::Dashboard { .. }
            | Address::LiveDashboard { .. }
            | Address::Tile { .. }
            | Address::Alert { .. }
            | Address::LiveAlert { .. }
            | Address::Webhook { .. }
            | Address::Source { .. }
            | Address::SavedSearch { .. } => None,
        }
    }

    /// The stack key of a dashboard, tile, alert or webhook address.
    pub(crate) fn stack(&self) -> Option<&'a str> {
        match self {
            Address::Dashboard { stack, .. }
            | Address::LiveDashboard { stack, .. }
            | Address::Tile { stack, .. }
            | Address::Alert { stack, .. }
            | Address::LiveAlert { stack, .. }
            | Address::Webhook { stack, .. }
            | Address::Source { stack, .. }
            | Address::SavedSearch { stack, .. } => Some(stack),
            Address::ServiceScaling { .. }
            | Address::PrivateEndpoint { .. }
            | Address::Pipe { .. }
            | Address::PipeScaling { .. }
            | Address::LivePipe { .. }
            | Address::Backups { .. }
            | Address::PipeSettings { .. }
            | Address::PipeCompute { .. }
            | Address::ReverseEndpoint { .. }
            | Address::ServiceMember { .. } => None,
        }
    }

    /// The stack of the config's dashboard the address names or is part of (the dashboard, or
    /// one of its tiles).
    pub(crate) fn dashboard_stack(&self) -> Option<&'a str> {
        match self {
            Address::Dashboard { stack, .. } | Address::Tile { stack, .. } => Some(stack),
            Address::ServiceScaling { .. }
            | Address::PrivateEndpoint { .. }
            | Address::Pipe { .. }
            | Address::PipeScaling { .. }
            | Address::LivePipe { .. }
            | Address::Backups { .. }
            | Address::LiveDashboard { .. }
            | Address::Alert { .. }
            | Address::LiveAlert { .. }
            | Address::PipeSettings { .. }
            | Address::PipeCompute { .. }
            | Address::ReverseEndpoint { .. }
            | Address::ServiceMember { .. }
            | Address::Webhook { .. }
            | Address::Source { .. }
            | Address::SavedSearch { .. } => None,
        }
    }

    /// The keys leading from the config's root to the object the address names, for an object
    /// the config edits field by field; `None` for any other.
    pub(crate) fn config_keys(&self) -> Option<Vec<&'a str>> {
        Some(match self {
            Address::ServiceScaling { service } => vec!["services", service, "scaling"],
            Address::PipeScaling { service, pipe } => {
                vec!["services", service, "pipes", pipe, "scaling"]
            }
            Address::PipeCompute { service } => vec!["services", service, "pipeCompute"],
            // A member's change names its fields from the service (`tags.team`, `releaseChannel`).
            Address::ServiceMember { service, .. } => vec!["services", service],
            Address::PipeSettings { service, pipe } => {
                vec!["services", service, "pipes", pipe, "settings"]
            }
            Address::Dashboard { stack, dashboard } => {
                vec!["stacks", stack, "dashboards", dashboard]
            }
            Address::Alert { stack, alert } => vec!["stacks", stack, "alerts", alert],
            // A pipe declared whole: its changed members (`source.pubsub.ackDeadline`, `name`)
            // are written under it; its credentials never are (`is_pipe_credential_pointer`).
            Address::Pipe { service, pipe } => vec!["services", service, "pipes", pipe],
            Address::Webhook { stack, webhook } => vec!["stacks", stack, "webhooks", webhook],
            Address::Source { stack, source } => vec!["stacks", stack, "sources", source],
            Address::SavedSearch { stack, search } => {
                vec!["stacks", stack, "savedSearches", search]
            }
            // Its members are never edited in place (the cloud cannot change them).
            Address::PrivateEndpoint { .. }
            | Address::ReverseEndpoint { .. }
            | Address::LivePipe { .. }
            | Address::Backups { .. }
            | Address::LiveDashboard { .. }
            | Address::Tile { .. }
            | Address::LiveAlert { .. } => return None,
        })
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
            Address::ServiceScaling { .. }
            | Address::Pipe { .. }
            | Address::PipeScaling { .. }
            | Address::Backups { .. }
            | Address::Dashboard { .. }
            | Address::Alert { .. }
            | Address::PipeSettings { .. }
            | Address::PipeCompute { .. }
            | Address::ReverseEndpoint { .. }
            | Address::ServiceMember { .. }
            | Address::Webhook { .. }
            | Address::Source { .. }
            | Address::SavedSearch { .. } => return None,
        };
        let text = self.to_string();
        Some((text.strip_suffix(tail)?.to_string(), tail))
    }
}

/// How drift names a live reverse private endpoint the config does not declare:
/// `service.K.reverse_endpoint["description"]` (only reported, never planned).
pub(crate) fn live_reverse_endpoint(service: &str, description: &str) -> String {
    format!("service.{service}.reverse_endpoint[{description:?}]")
}

/// An address a plan holds ([`Address`] owned, as `PathBuf` is `Path` owned): parsed once when
/// it is made or read from a saved plan, written as text only when it is shown or saved. Keys
/// and names are `SmolStr`, so most of them take no allocation.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum AddressBuf {
    /// `service.K.scaling`.
    ServiceScaling {
        /// Service key.
        service: SmolStr,
    },
    /// `service.K.private_endpoint[ID]`.
    PrivateEndpoint {
        /// Service key.
        service: SmolStr,
        /// Endpoint id.
        id: SmolStr,
    },
    /// `pipe.K.P`.
    Pipe {
        /// Service key.
        service: SmolStr,
        /// Pipe key.
        pipe: SmolStr,
    },
    /// `pipe.K.P.scaling`.
    PipeScaling {
        /// Service key.
        service: SmolStr,
        /// Pipe key.
        pipe: SmolStr,
    },
    /// `pipe.K["name"]`.
    LivePipe {
        /// Service key.
        service: SmolStr,
        /// The pipe's live name.
        name: SmolStr,
    },
    /// `check.K.backups`.
    Backups {
        /// Service key.
        service: SmolStr,
    },
    /// `dashboard.S.D`.
    Dashboard {
        /// Stack key.
        stack: SmolStr,
        /// Dashboard key.
        dashboard: SmolStr,
    },
    /// `dashboard.S["name"]`.
    LiveDashboard {
        /// Stack key.
        stack: SmolStr,
        /// The dashboard's live name.
        name: SmolStr,
    },
    /// `dashboard.S.D.tile[name]`.
    Tile {
        /// Stack key.
        stack: SmolStr,
        /// Dashboard key.
        dashboard: SmolStr,
        /// Tile name.
        tile: SmolStr,
    },
    /// `alert.S.A`.
    Alert {
        /// Stack key.
        stack: SmolStr,
        /// Alert key.
        alert: SmolStr,
    },
    /// `alert.S["name"]`.
    LiveAlert {
        /// Stack key.
        stack: SmolStr,
        /// The alert's live name.
        name: SmolStr,
    },
    /// `webhook.S.W`.
    Webhook {
        /// Stack key.
        stack: SmolStr,
        /// Webhook key.
        webhook: SmolStr,
    },
    /// `source.S.K`.
    Source {
        /// Stack key.
        stack: SmolStr,
        /// Source key.
        source: SmolStr,
    },
    /// `saved_search.S.K`.
    SavedSearch {
        /// Stack key.
        stack: SmolStr,
        /// Saved search key.
        search: SmolStr,
    },
    /// `pipe.K.P.settings`.
    PipeSettings {
        /// Service key.
        service: SmolStr,
        /// Pipe key.
        pipe: SmolStr,
    },
    /// `service.K.pipe_compute`.
    PipeCompute {
        /// Service key.
        service: SmolStr,
    },
    /// `service.K.reverse_endpoint.E`.
    ReverseEndpoint {
        /// Service key.
        service: SmolStr,
        /// Endpoint key.
        endpoint: SmolStr,
    },
    /// `service.K.ipAccessList` and the other members of a service's settings.
    ServiceMember {
        /// Service key.
        service: SmolStr,
        /// Which member.
        member: Member,
    },
}

impl AddressBuf {
    /// A stack's dashboard or alert the address names: which list holds it, its stack, and its
    /// live name when the address names a live object by name (a tile is not one).
    pub(crate) fn stack_object(&self) -> Option<(StackList, &str, Option<&str>)> {
        match self {
            AddressBuf::Dashboard { stack, .. } => Some((StackList::Dashboards, stack, None)),
            AddressBuf::LiveDashboard { stack, name } => {
                Some((StackList::Dashboards, stack, Some(name)))
            }
            AddressBuf::Alert { stack, .. } => Some((StackList::Alerts, stack, None)),
            AddressBuf::LiveAlert { stack, name } => Some((StackList::Alerts, stack, Some(name))),
            AddressBuf::ServiceScaling { .. }
            | AddressBuf::PrivateEndpoint { .. }
            | AddressBuf::Pipe { .. }
            | AddressBuf::PipeScaling { .. }
            | AddressBuf::LivePipe { .. }
            | AddressBuf::Backups { .. }
            | AddressBuf::Tile { .. }
            | AddressBuf::PipeSettings { .. }
            | AddressBuf::PipeCompute { .. }
            | AddressBuf::ReverseEndpoint { .. }
            | AddressBuf::ServiceMember { .. }
            | AddressBuf::Webhook { .. }
            | AddressBuf::Source { .. }
            | AddressBuf::SavedSearch { .. } => None,
        }
    }

    /// Reads an address back; `None` when `text` is no address converge writes.
    pub(crate) fn parse(text: &str) -> Option<Self> {
        Address::parse(text).map(|address| AddressBuf::from(&address))
    }

    /// The address, borrowed: what every question about it is asked of.
    pub(crate) fn view(&self) -> Address<'_> {
        match self {
            AddressBuf::ServiceScaling { service } => Address::ServiceScaling { service },
            AddressBuf::PrivateEndpoint { service, id } => Address::PrivateEndpoint { service, id },
            AddressBuf::Pipe { service, pipe } => Address::Pipe { service, pipe },
            AddressBuf::PipeScaling { service, pipe } => Address::PipeScaling { service, pipe },
            AddressBuf::LivePipe { service, name } => Address::LivePipe {
                service,
                name: Cow::Borrowed(name),
            },
            AddressBuf::Backups { service } => Address::Backups { service },
            AddressBuf::Dashboard { stack, dashboard } => Address::Dashboard { stack, dashboard },
            AddressBuf::LiveDashboard { stack, name } => Address::LiveDashboard {
                stack,
                name: Cow::Borrowed(name),
            },
            AddressBuf::Tile {
                stack,
                dashboard,
                tile,
            } => Address::Tile {
                stack,
                dashboard,
                tile,
            },
            AddressBuf::Alert { stack, alert } => Address::Alert { stack, alert },
            AddressBuf::LiveAlert { stack, name } => Address::LiveAlert {
                stack,
                name: Cow::Borrowed(name),
            },
            AddressBuf::Webhook { stack, webhook } => Address::Webhook { stack, webhook },
            AddressBuf::Source { stack, source } => Address::Source { stack, source },
            AddressBuf::SavedSearch { stack, search } => Address::SavedSearch { stack, search },
            AddressBuf::PipeSettings { service, pipe } => Address::PipeSettings { service, pipe },
            AddressBuf::PipeCompute { service } => Address::PipeCompute { service },
            AddressBuf::ReverseEndpoint { service, endpoint } => {
                Address::ReverseEndpoint { service, endpoint }
            }
            AddressBuf::ServiceMember { service, member } => Address::ServiceMember {
                service,
                member: *member,
            },
        }
    }

    /// The service key of a service, pipe or check address.
    pub(crate) fn service(&self) -> Option<&str> {
        self.view().service()
    }

    /// The stack key of a dashboard, tile or alert address.
    pub(crate) fn stack(&self) -> Option<&str> {
        self.view().stack()
    }
}

impl From<&Address<'_>> for AddressBuf {
    fn from(address: &Address<'_>) -> Self {
        let text = |s: &str| SmolStr::new(s);
        match address {
            Address::ServiceScaling { service } => AddressBuf::ServiceScaling {
                service: text(service),
            },
            Address::PrivateEndpoint { service, id } => AddressBuf::PrivateEndpoint {
                service: text(service),
                id: text(id),
            },
            Address::Pipe { service, pipe } => AddressBuf::Pipe {
                service: text(service),
                pipe: text(pipe),
            },
            Address::PipeScaling { service, pipe } => AddressBuf::PipeScaling {
                service: text(service),
                pipe: text(pipe),
            },
            Address::LivePipe { service, name } => AddressBuf::LivePipe {
                service: text(service),
                name: text(name),
            },
            Address::Backups { service } => AddressBuf::Backups {
                service: text(service),
            },
            Address::Dashboard { stack, dashboard } => AddressBuf::Dashboard {
                stack: text(stack),
                dashboard: text(dashboard),
            },
            Address::LiveDashboard { stack, name } => AddressBuf::LiveDashboard {
                stack: text(stack),
                name: text(name),
            },
            Address::Tile {
                stack,
                dashboard,
                tile,
            } => AddressBuf::Tile {
                stack: text(stack),
                dashboard: text(dashboard),
                tile: text(tile),
            },
            Address::Alert { stack, alert } => AddressBuf::Alert {
                stack: text(stack),
                alert: text(alert),
            },
            Address::LiveAlert { stack, name } => AddressBuf::LiveAlert {
                stack: text(stack),
                name: text(name),
            },
            Address::Webhook { stack, webhook } => AddressBuf::Webhook {
                stack: text(stack),
                webhook: text(webhook),
            },
            Address::Source { stack, source } => AddressBuf::Source {
                stack: text(stack),
                source: text(source),
            },
            Address::SavedSearch { stack, search } => AddressBuf::SavedSearch {
                stack: text(stack),
                search: text(search),
            },
            Address::PipeSettings { service, pipe } => AddressBuf::PipeSettings {
                service: text(service),
                pipe: text(pipe),
            },
            Address::PipeCompute { service } => AddressBuf::PipeCompute {
                service: text(service),
            },
            Address::ReverseEndpoint { service, endpoint } => AddressBuf::ReverseEndpoint {
                service: text(service),
                endpoint: text(endpoint),
            },
            Address::ServiceMember { service, member } => AddressBuf::ServiceMember {
                service: text(service),
                member: *member,
            },
        }
    }
}

impl From<Address<'_>> for AddressBuf {
    fn from(address: Address<'_>) -> Self {
        AddressBuf::from(&address)
    }
}

impl fmt::Display for AddressBuf {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.view().fmt(f)
    }
}

impl PartialEq<str> for AddressBuf {
    fn eq(&self, other: &str) -> bool {
        AddressBuf::parse(other).is_some_and(|parsed| parsed == *self)
    }
}

impl PartialEq<&str> for AddressBuf {
    fn eq(&self, other: &&str) -> bool {
        *self == **other
    }
}

impl serde::Serialize for AddressBuf {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_str(self)
    }
}

impl<'de> serde::Deserialize<'de> for AddressBuf {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let text = <Cow<'de, str>>::deserialize(deserializer)?;
        AddressBuf::parse(&text).ok_or_else(|| {
            serde::de::Error::custom(format!("`{text}` is not an address converge writes"))
        })
    }
}

/// Where the first key of an address ends: at the next dot or the bracket of a live name; a
/// stack instance's key (`env[prod]`, from a whole-stack template) holds its bracket.
fn key_end(text: &str) -> Option<usize> {
    let end = text.find(['.', '['])?;
    if text[end..].starts_with('[') && !text[end..].starts_with("[\"") {
        let close = end + text[end..].find(']')?;
        let after = close + 1;
        return match text[after..].chars().next() {
            Some('.' | '[') => Some(after),
            _ => Some(end),
        };
    }
    Some(end)
}

/// A config key inside an address: up to the next dot or bracket.
fn segment(text: &str) -> Option<&str> {
    (!text.is_empty() && !text.contains(['.', '[', ']'])).then_some(text)
}

/// The key of a dashboard or an alert: a config key, or a template instance's
/// `entry[key]` (a matrix's values joined by `,`).
fn instance_segment(text: &str) -> Option<&str> {
    if let Some(open) = text.strip_suffix(']') {
        let (entry, keys) = open.split_once('[')?;
        segment(entry)?;
        return keys
            .split(',')
            .all(|k| segment(k).is_some() && !k.contains(['"', ' ']))
            .then_some(text);
    }
    segment(text)
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
