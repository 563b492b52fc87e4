//! The `Kind` trait (as kube-rs's `Resource`): what each kind of operation answers for the
//! engine, implemented once per kind in its `plan/kinds/<kind>/op.rs`. The engine holds an
//! [`Operation`](super::model::Operation) and asks it through [`Operation::kind`]
//! (`super::model`, the one match that names every kind), never naming an operation itself.
//!
//! What a kind answers elsewhere, each in its own layer: what the saved-plan check compares
//! for it (`super::trust::Check`, in `plan/kinds/<kind>/check.rs`), how each operation is sent
//! (`apply/kinds/<kind>.rs`), how a live object is written as config (`export/kinds/`).

use super::target::{Effect, Key, Name, ScalingWrite, StackRef, Target};
use crate::address::Address;
use crate::api::wire::DashboardRequest;

/// What an operation of a kind answers for the engine. The first four every kind answers;
/// the rest a kind answers when it has the trait (a scaling, a dashboard's body), and says
/// nothing otherwise.
pub(crate) trait Kind {
    /// The object it touches, and through it the list that holds it (fresh reads,
    /// fingerprints, the saved-plan check, progress lines and duplicates all use it).
    fn target(&self) -> Target<'_>;

    /// What it does to its object: the write path follows from it alone (`apply/step.rs`).
    fn effect(&self) -> Effect;

    /// What it is called, in plan, apply, progress and reports.
    fn name(&self) -> Name;

    /// Whether it carries out a change at `address`: of its kind, at the part it writes (the
    /// stack is checked by the caller).
    fn fits(&self, address: &Address<'_>) -> bool;

    /// The stack and the whole dashboard a create or update sends.
    fn dashboard_sent(&self) -> Option<(&StackRef, &DashboardRequest)> {
        None
    }

    /// The stack and the name of the dashboard it finds by name (its ids looked up when it
    /// runs): a step of the plan that writes that dashboard goes first.
    fn dashboard_by_name(&self) -> Option<(&StackRef, &str)> {
        None
    }

    /// The scaling it writes, which `apply --wait` waits to see show.
    fn scaling_written(&self) -> Option<ScalingWrite<'_>> {
        None
    }

    /// The pipe (service id, and how it is found) a done step leaves provisioning or
    /// modifying, which `apply --wait` sees settle.
    fn settles(&self) -> Option<(&str, Key<'_>)> {
        None
    }
}
