//! The one integration-test binary: the real `converge` binary against the real sandbox.
//! One module per area.

mod alert_channels;
mod alert_fields;
mod apply;
mod ci_kit;
mod common;
mod conformance;
mod dashboard_validation;
mod drift;
mod export;
mod globs;
mod help;
mod hostile;
mod hostile_inputs;
mod layers;
mod memory;
mod messages;
mod object_ids;
mod operations;
mod pipes;
mod plan;
mod preview;
mod reading;
mod readme;
mod rename;
mod review;
mod sandbox;
mod server_rejects;
mod show;
mod soak;
mod stack_templates;
mod templates;
mod tiles;
mod transport;
mod validate;
mod writeback;
