//! What every kind of operation answers the same way, so the engine asks an operation instead
//! of matching on it: which object it touches and the list that holds it ([`Target`], [`List`]),
//! what it does to that object ([`Effect`]) and what it is called ([`Name`]). Also the small
//! types the kinds' operations share (where a stack lives, how an alert finds its tile). Below
//! the kinds' files (`super::kinds`), which build these, and above nothing of `plan`.

use serde::{Deserialize, Serialize};

/// Where a stack's objects are written.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(
    tag = "api",
    rename_all = "kebab-case",
    rename_all_fields = "camelCase"
)]
pub enum StackTarget {
    /// The managed stack under the cloud API (`.../services/{serviceId}/stack/...`).
    Managed {
        /// The service that hosts the stack.
        service_id: String,
    },
    /// The standalone observability API (`/api/v2/...`).
    Observability,
}

/// The stack a step writes to.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct StackRef {
    /// The stack's key in the config.
    pub key: String,
    /// Which API serves it.
    pub target: StackTarget,
}

/// How an alert names its dashboard and tile.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "by", rename_all = "kebab-case")]
pub enum AlertTarget {
    /// Both exist live already: the ids are in the request body.
    Ids,
    /// The dashboard or the tile is created by this plan: apply looks both up by name (in the
    /// answer of the dashboard's step or a fresh list) and fills `dashboardId`/`tileId` in.
    Names {
        /// Dashboard name.
        dashboard: String,
        /// Tile name on that dashboard.
        tile: String,
    },
}

/// What an operation does to its object. It decides the write path: a create is never sent
/// twice blindly, an update or delete is resent in rounds, a delete or replace needs
/// `--allow-destroy`, and a replace is a delete resent in rounds followed by a create sent once
/// (as Terraform's `DeleteThenCreate`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Effect {
    /// The object does not exist yet.
    Create,
    /// The object exists and is changed in place.
    Update,
    /// The object (or its attachment) goes away.
    Delete,
    /// The object is deleted, then created again (a field the server cannot change forces it).
    Replace,
}

impl Effect {
    /// Whether it removes the live object: refused without `--allow-destroy`, checked against
    /// its fingerprint like any delete.
    pub(crate) fn destroys(self) -> bool {
        match self {
            Effect::Delete | Effect::Replace => true,
            Effect::Create | Effect::Update => false,
        }
    }
}

/// How an operation finds its object in its list.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Key<'a> {
    /// By the id the server gave it.
    Id(&'a str),
    /// By name (a create: the object has no id yet, and one of that name is the same object).
    Name(&'a str),
}

/// The object an operation touches.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Target<'a> {
    /// A service's scaling.
    Service {
        /// Service id.
        service_id: &'a str,
    },
    /// A private endpoint attached to a service.
    PrivateEndpoint {
        /// Service id.
        service_id: &'a str,
        /// Endpoint id.
        id: &'a str,
    },
    /// A pipe of a service.
    Pipe {
        /// Service id.
        service_id: &'a str,
        /// Its id, or its name (unique within the service) for a create.
        key: Key<'a>,
    },
    /// A dashboard of a stack.
    Dashboard {
        /// The stack.
        stack: &'a StackRef,
        /// Its id, or its name for a create.
        key: Key<'a>,
    },
    /// An alert of a stack.
    Alert {
        /// The stack.
        stack: &'a StackRef,
        /// Its id, or its name for a create.
        key: Key<'a>,
        /// For a create, the ids of the alerts of its name that another stack owns: never the
        /// object it creates.
        theirs: &'a [String],
    },
    /// The compute shared by a service's database pipes.
    PipeCompute {
        /// Service id.
        service_id: &'a str,
    },
    /// A reverse private endpoint of a service's pipes.
    ReverseEndpoint {
        /// Service id.
        service_id: &'a str,
        /// Its id, or its description (unique within the service) for a create.
        key: Key<'a>,
    },
    /// A webhook of a stack (the observability API's team-wide list).
    Webhook {
        /// The stack.
        stack: &'a StackRef,
        /// Its id, or, for a create, its service and name (unique together).
        key: Key<'a>,
        /// For a create, its service (a name is unique per service).
        service: &'a str,
    },
    /// A data source of a stack (the observability API's team-wide list).
    Source {
        /// The stack.
        stack: &'a StackRef,
        /// Its id, or its name for a create.
        key: Key<'a>,
    },
    /// A saved search of a stack (the observability API's team-wide list).
    SavedSearch {
        /// The stack.
        stack: &'a StackRef,
        /// Its id, or its name for a create.
        key: Key<'a>,
    },
    /// One member of a service's own settings (its IP access list, tags, release channel,
    /// endpoints, state).
    ServiceMember {
        /// Service id.
        service_id: &'a str,
        /// Which member.
        member: crate::address::Member,
    },
}

/// The list that holds an object: what one read returns, and what a fresh check reads. `I` is
/// how a service is named (its id), `S` how a stack is: borrowed from a step ([`ListOf`]), or
/// owned as the key of a read (`apply::fresh::Scope`, `List<String, String>`, by stack key).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) enum List<I, S> {
    /// `GET /services` (scaling and private endpoints are fields of a service).
    Services,
    /// `GET /services/{id}/pipes`.
    Pipes(I),
    /// A stack's dashboards.
    Dashboards(S),
    /// A stack's alerts.
    Alerts(S),
    /// `GET /services/{id}/pipesCdcScaling`.
    PipeCompute(I),
    /// A stack's webhooks.
    Webhooks(S),
    /// A stack's saved searches.
    SavedSearches(S),
    /// `GET /services/{id}/pipesReversePrivateEndpoints`.
    ReverseEndpoints(I),
    /// A stack's data sources.
    Sources(S),
}

impl<T> List<T, T> {
    /// The service or stack the list is of, when both are named the same way (a read's key);
    /// `None` for the services.
    pub(crate) fn named(&self) -> Option<&T> {
        match self {
            List::Services => None,
            List::Pipes(of)
            | List::PipeCompute(of)
            | List::ReverseEndpoints(of)
            | List::Dashboards(of)
            | List::Alerts(of)
            | List::Webhooks(of)
            | List::Sources(of)
            | List::SavedSearches(of) => Some(of),
        }
    }
}

/// The list of a step's object, borrowed from the step.
pub(crate) type ListOf<'a> = List<&'a str, &'a StackRef>;

impl<I, S> List<I, S> {
    /// The same list with its service and stack named another way.
    pub(crate) fn map<J, T>(
        self,
        service: impl FnOnce(I) -> J,
        stack: impl FnOnce(S) -> T,
    ) -> List<J, T> {
        match self {
            List::Services => List::Services,
            List::Pipes(id) => List::Pipes(service(id)),
            List::Dashboards(s) => List::Dashboards(stack(s)),
            List::Alerts(s) => List::Alerts(stack(s)),
            List::PipeCompute(id) => List::PipeCompute(service(id)),
            List::Webhooks(s) => List::Webhooks(stack(s)),
            List::Sources(s) => List::Sources(stack(s)),
            List::SavedSearches(s) => List::SavedSearches(stack(s)),
            List::ReverseEndpoints(id) => List::ReverseEndpoints(service(id)),
        }
    }
}

impl<'a> Target<'a> {
    /// The list that holds the object.
    pub(crate) fn list(self) -> ListOf<'a> {
        match self {
            Target::Service { .. }
            | Target::PrivateEndpoint { .. }
            | Target::ServiceMember { .. } => List::Services,
            Target::Pipe { service_id, .. } => List::Pipes(service_id),
            Target::Dashboard { stack, .. } => List::Dashboards(stack),
            Target::Alert { stack, .. } => List::Alerts(stack),
            Target::PipeCompute { service_id } => List::PipeCompute(service_id),
            Target::Webhook { stack, .. } => List::Webhooks(stack),
            Target::Source { stack, .. } => List::Sources(stack),
            Target::SavedSearch { stack, .. } => List::SavedSearches(stack),
            Target::ReverseEndpoint { service_id, .. } => List::ReverseEndpoints(service_id),
        }
    }

    /// The stack the object lives in; `None` for services and pipes.
    pub(crate) fn stack(self) -> Option<&'a StackRef> {
        match self {
            Target::Service { .. }
            | Target::PrivateEndpoint { .. }
            | Target::Pipe { .. }
            | Target::PipeCompute { .. }
            | Target::ReverseEndpoint { .. }
            | Target::ServiceMember { .. } => None,
            Target::Dashboard { stack, .. }
            | Target::Alert { stack, .. }
            | Target::Webhook { stack, .. }
            | Target::Source { stack, .. }
            | Target::SavedSearch { stack, .. } => Some(stack),
        }
    }

    /// How the object is found in its list, for an object of a list found by id or name (a
    /// pipe, a stack object); `None` for a service's own parts.
    pub(crate) fn key(self) -> Option<Key<'a>> {
        match self {
            Target::Pipe { key, .. }
            | Target::ReverseEndpoint { key, .. }
            | Target::Dashboard { key, .. }
            | Target::Alert { key, .. }
            | Target::Webhook { key, .. }
            | Target::Source { key, .. }
            | Target::SavedSearch { key, .. } => Some(key),
            Target::Service { .. }
            | Target::PrivateEndpoint { .. }
            | Target::PipeCompute { .. }
            | Target::ServiceMember { .. } => None,
        }
    }

    /// The service whose pipes the object is (a pipe, or the compute its database pipes
    /// share): a pipe write needs its service running.
    pub(crate) fn pipes_of(self) -> Option<&'a str> {
        match self {
            Target::Pipe { service_id, .. }
            | Target::PipeCompute { service_id }
            | Target::ReverseEndpoint { service_id, .. } => Some(service_id),
            Target::Service { .. }
            | Target::PrivateEndpoint { .. }
            | Target::Dashboard { .. }
            | Target::Alert { .. }
            | Target::ServiceMember { .. }
            | Target::Webhook { .. }
            | Target::Source { .. }
            | Target::SavedSearch { .. } => None,
        }
    }

    /// Where the object is, for messages: `on service ID`, `on pipe P of service S`,
    /// `in stack `KEY``.
    pub(crate) fn place(self) -> String {
        match self {
            Target::Service { service_id }
            | Target::PrivateEndpoint { service_id, .. }
            | Target::ServiceMember { service_id, .. } => format!("on service {service_id}"),
            Target::Pipe {
                service_id,
                key: Key::Id(pipe_id),
            } => format!("on pipe {pipe_id} of service {service_id}"),
            Target::Pipe {
                service_id,
                key: Key::Name(name),
            } => format!("on pipe {name:?} of service {service_id}"),
            Target::Dashboard { stack, .. }
            | Target::Alert { stack, .. }
            | Target::Webhook { stack, .. }
            | Target::Source { stack, .. }
            | Target::SavedSearch { stack, .. } => {
                format!("in stack `{}`", stack.key)
            }
            Target::PipeCompute { service_id } => {
                format!("on the database pipes of service {service_id}")
            }
            Target::ReverseEndpoint { service_id, .. } => {
                format!("on the pipes' reverse private endpoints of service {service_id}")
            }
        }
    }
}

/// A scaling write `apply --wait` waits to see show: what was sent, and to which service or
/// pipe.
#[derive(Debug, Clone, Copy)]
pub(crate) enum ScalingWrite<'a> {
    /// A service's scaling.
    Service {
        /// Service id.
        service_id: &'a str,
        /// What was sent.
        body: &'a crate::api::wire::ServiceScalingPatch,
    },
    /// A pipe's scaling.
    Pipe {
        /// Service id.
        service_id: &'a str,
        /// Pipe id.
        pipe_id: &'a str,
        /// What was sent.
        body: &'a crate::api::wire::PipeScalingPatch,
    },
}

/// What an operation is called: one home for the words plan, apply, progress and reports use.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Name {
    /// The saved plan's `op` tag, e.g. `pipe-scaling` (the serde rename of the variant).
    pub(crate) op: &'static str,
    /// What is done, e.g. `update`, `register`, `detach`.
    pub(crate) verb: &'static str,
    /// What it is done to, e.g. `pipe scaling`, `private endpoint`.
    pub(crate) object: &'static str,
}

impl Name {
    /// The kind of step, as the saved-plan check says it: the `op` tag in words
    /// (`pipe scaling`, `dashboard create`).
    pub(crate) fn kind(self) -> String {
        self.op.replace('-', " ")
    }

    /// What the step does, as apply reports it (`update pipe scaling`, `create dashboard`).
    pub(crate) fn doing(self) -> String {
        format!("{} {}", self.verb, self.object)
    }
}
