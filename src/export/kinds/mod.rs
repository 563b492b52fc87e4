//! What each kind writes into an export, one file per kind, registered in the two lists below
//! in the order their sections appear in the config.

mod alert;
mod dashboard;
mod pipe;
mod private_endpoint;
mod reverse_endpoint;
mod service;
mod source;
mod webhook;

pub(crate) use alert::adopted_alert_node;
pub(crate) use dashboard::{dashboard_node, tile_node};
pub(crate) use reverse_endpoint::reverse_endpoints;
pub(crate) use service::pipe_compute;

use super::build::StackWriting;
use super::yaml::Node;
use crate::api::wire::{Pipe, Service};

/// Writes a kind's entries under an exported service, given the key the export writes it under
/// (deduplicated among services of one slug) and its pipes.
pub(crate) type ServiceSection = fn(&str, &Service, &[Pipe], &mut Vec<(String, Node)>);

/// Writes a kind's entries under a stack.
pub(crate) type StackSection = fn(&mut StackWriting<'_>, &mut Vec<(String, Node)>);

/// The sections of an exported service, after its `id`.
pub(crate) const SERVICE_SECTIONS: &[ServiceSection] = &[
    service::scaling,
    service::settings,
    private_endpoint::attached,
    pipe::pipes,
];

/// The sections of a stack, after its target; a section may use what the ones before it
/// exported (alerts name dashboards).
pub(crate) const STACK_SECTIONS: &[StackSection] = &[
    source::sources,
    dashboard::dashboards,
    alert::alerts,
    webhook::webhooks,
];
