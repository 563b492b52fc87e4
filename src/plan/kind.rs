//! The `Kind` trait (as kube-rs's `Resource`): what each kind of operation answers for the
//! engine, implemented once per kind in its `plan/kinds/<kind>/op.rs`. The engine holds an
//! [`Operation`](super::model::Operation) and asks it through [`Operation::kind`]
//! (made from the kinds' table, `plan/kinds/registry.rs`), never naming an operation itself.
//!
//! A kind's live object answers [`Live`]: the normalized value its fingerprint hashes, in the
//! kind's `plan/kinds/<kind>/live.rs` with the rest of its live side (its normalizers, how an
//! operation finds its object in a live state, its ownership rule).
//!
//! What a kind answers elsewhere, each in its own layer: what the saved-plan check compares
//! for it (`super::trust::Check`, in `plan/kinds/<kind>/check.rs`), how each operation is sent
//! (`apply/kinds/<kind>.rs`), how a live object is written as config (`export/kinds/`).

use serde_json::Value;

use super::fingerprint::{Fingerprint, of_value};
use super::target::{Effect, Key, Name, ScalingWrite, StackRef, Target};
use crate::address::Address;
use crate::api::wire::DashboardRequest;
use crate::live::LiveState;

/// What a kind's live object answers for the engine, implemented on the live type (or a view
/// of it) in the kind's `plan/kinds/<kind>/live.rs`.
pub(crate) trait Live {
    /// The normalized value its fingerprint hashes: what a stale step's object is now, field
    /// by field (`apply`'s fresh check, the saved-plan check's "as shown").
    fn fingerprinted(&self) -> Value;

    /// Its fingerprint, recorded by the plan and compared with a fresh read before a write.
    fn fingerprint(&self) -> Fingerprint {
        of_value(&self.fingerprinted())
    }
}

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

    /// The object it writes as `live` holds it, as its kind's [`Live::fingerprinted`] value:
    /// `None` when the object does not exist. For a create, an object that appeared since
    /// (found by the name or id it creates, and not another stack's) is that object.
    fn current(&self, live: &LiveState) -> Option<Value>;

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

/// How a rendered plan (`--format json`) shows an operation of a kind: as the saved plan stores
/// it, unless the kind leaves out what only the saved-plan check uses (a rotation's salt and
/// fingerprints), so the same plan renders the same bytes in every run. Every kind implements it
/// in its `op.rs` (the table in `plan/kinds/registry.rs` asks for it).
pub(crate) trait Shows: serde::Serialize {
    /// Writes the operation as the rendering shows it.
    fn show<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        self.serialize(serializer)
    }
}
