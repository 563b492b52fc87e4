//! The planner: normalize, diff, order steps, saved plan files, renderers. No I/O here.
//!
//! `build` compares the desired state (the config) with the live state and produces a
//! [`Plan`] (`model`): one [`Change`] per `Address`, each with its field-level diff, and the
//! [`Step`]s `apply` runs, ordered by `order`. Renderers ([`render()`]) turn a plan into text,
//! JSON or Markdown; [`saved`] writes and reads the `--out` file. The files of this module import
//! each other, never this one: it only declares them and re-exports what other modules use.

pub(crate) mod address;
pub(crate) mod build;
pub(crate) mod checks;
pub(crate) mod diff;
pub(crate) mod fingerprint;
pub(crate) mod glob;
pub(crate) mod hash;
pub(crate) mod idle;
pub(crate) mod kind;
pub(crate) mod kinds;
pub(crate) mod lines;
pub mod markdown;
pub(crate) mod model;
pub(crate) mod normalize;
pub(crate) mod order;
pub(crate) mod ownership;
pub(crate) mod pipeline;
pub mod render;
pub mod render_json;
pub mod saved;
pub(crate) mod tag;
pub(crate) mod target;
pub mod text;
pub(crate) mod trust;

#[cfg(test)]
mod tests;

pub(crate) use address::Address;
pub use build::{PlanOptions, plan};
pub use checks::CheckResult;
pub use kinds::alert::op::AlertOp;
pub use kinds::dashboard::op::DashboardOp;
pub use kinds::pipe::op::PipeOp;
pub use kinds::private_endpoint::op::PrivateEndpointOp;
pub use kinds::reverse_endpoint::op::ReverseEndpointOp;
pub use kinds::saved_search::op::SavedSearchOp;
pub use kinds::service::op::ServiceOp;
pub use kinds::source::op::SourceOp;
pub use kinds::webhook::op::WebhookOp;
pub use model::{
    Action, AddressBuf, AlertTarget, Change, FieldChange, Fingerprint, Operation, Plan, StackRef,
    StackTarget, Step, Summary, Unmanaged, Warning,
};
pub use render::{Format, render};
