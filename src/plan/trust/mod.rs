//! The trust boundary's one home. A saved plan crosses it: made in one job (a pull request's),
//! applied in another (the merge's), kept as a file in between. What a person reviewed is its
//! changes (what `plan` printed: address, action, fields); what `apply` sends is its steps.
//! Before a saved plan is applied, it is refused when any part disagrees with what was shown:
//!
//! - [`steps`] (when the file is read): the steps are exactly what the changes call for: no
//!   step that no change shows (a duplicate create), no no-op with a step, no body that writes
//!   other values than its change's fields, no step of another kind or address than its change,
//!   no alert that no longer waits for its dashboard. Where a step carries more than a change
//!   shows, it is derived from the change instead (an alert's dashboard and tile are taken by
//!   name from the change, their ids looked up when the step runs, never ids from the file).
//! - [`against_config`] (when `apply --plan FILE PATH...` is given the config): service and
//!   pipe ids are tied to the addresses the changes show only by the config, so each step must
//!   write to the service, pipe and stack API its address names there. A pipe the config
//!   finds by name (no `id:`) is [`bound`] to the id the plan read: before any write, the pipe
//!   that name finds must be the step's.
//! - [`against_live`] and [`shown_against_live`] (with the reads made before any write): what
//!   only the live state can tell (the tile ids a dashboard update carries forward, the message
//!   of an alert whose config leaves it unmanaged), and that each step's `before` and `fields`
//!   are the object its address names as read now (`shown`).
//!
//! The engine here names no operation: each kind says what is compared for it by implementing
//! [`Check`] in its own `plan/kinds/<kind>/check.rs`, with the helpers this module exports
//! (`check.rs` holds the one match that registers each kind's check).
//! Dashboard, alert and pipe ids are also part of the fingerprints compared with a fresh read
//! before anything is written (`apply`).

mod bound;
mod check;
mod config;
mod sent;
mod shown;
mod steps;

pub(crate) use bound::{Bound, Hinted, bound_against_live};
pub(crate) use check::{Check, ConfigCheck};
pub(crate) use config::against_config;
pub(crate) use sent::{Disagreement, after, fields_of, same, same_body, written};
pub(crate) use shown::{
    created, dashboards_of, deleted, live_name, named_as, owned, owner_of, reads_stack,
    same_before, same_before_masked, same_fields, shown_against_live, the_one,
};
pub(crate) use steps::{against_live, read_for_check, steps};
