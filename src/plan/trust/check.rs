//! What the saved-plan check asks of each kind ([`Check`], implemented in each kind's
//! `plan/kinds/<kind>/check.rs`), and the one match that finds an operation's ([`of`]).

use crate::address::Address;
use crate::config::model::Config;
use crate::live::LiveState;
use crate::output::Printer;
use crate::plan::model::{Change, Operation, Plan};

use super::sent::Disagreement;

/// What the saved-plan check compares for an operation of a kind. Every kind answers
/// [`Check::sends_what_it_shows`] and [`Check::against_config`]; the checks against the live
/// state a kind answers when the live state tells something of it that its fingerprint does
/// not (dashboards and alerts), and passes otherwise.
pub(crate) trait Check {
    /// Whether it writes exactly what `change` shows (its body built again from the change's
    /// fields). `Some` is the operation to run instead, when part of it is taken from the
    /// change rather than the file (an alert's dashboard and tile, by name).
    fn sends_what_it_shows(&self, change: &Change) -> Result<Option<Operation>, Disagreement>;

    /// Whether it writes to the objects `check.config` gives `address` (step `index`'s): a
    /// step moved to another service's id is refused.
    fn against_config(
        &self,
        check: &ConfigCheck<'_>,
        index: usize,
        address: &Address<'_>,
    ) -> Option<String>;

    /// What only the live state can tell of what it sends for `change`: one line each.
    fn against_live(&self, _change: &Change, _live: &LiveState) -> Vec<String> {
        Vec::new()
    }

    /// Whether it does what `change` shows (its object, `before` and `fields`), given `live`
    /// holding the lists `super::reads_stack` names.
    fn shown_against_live(
        &self,
        _plan: &Plan,
        _change: &Change,
        _live: &LiveState,
        _printer: &Printer,
    ) -> Result<(), String> {
        Ok(())
    }

    /// Whether the check before any write must read its object's list although the step is
    /// checked only when it runs (step `step` of `plan`).
    fn read_for_check(&self, _plan: &Plan, _step: usize) -> bool {
        false
    }
}

/// What a kind's config check is given: the plan, the applying run's config, and how a name
/// is masked in messages.
pub(crate) struct ConfigCheck<'a> {
    /// The saved plan.
    pub plan: &'a Plan,
    /// The applying run's config.
    pub config: &'a Config,
    /// Masks the secrets a name may hold, for messages.
    pub redact: &'a dyn Fn(&str) -> String,
    /// The steps whose objects the config finds by name, held to the live state before any
    /// write ([`super::bound::bound_against_live`]).
    pub bound: std::cell::RefCell<Vec<super::bound::Bound>>,
}

/// What the saved-plan check compares for `operation`: its kind's [`Check`], through the kinds'
/// table (`plan/kinds/registry.rs`; a new kind is a compile error here until its `check.rs` exists).
pub(crate) fn of(operation: &Operation) -> &dyn Check {
    crate::plan::kinds::registry::kinds!(dispatch(operation, op => op))
}
