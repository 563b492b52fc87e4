//! What the saved-plan check compares for a saved search step (`plan/trust/`): a create or
//! update sends, as the server would store it, exactly the `after` its change shows (the one
//! function both the planner and this check call, `live::sent`); every step writes to the
//! stack the config names, and a create or update to a saved search the config declares.

use super::live::sent;
use super::op::SavedSearchOp;
use crate::address::Address;
use crate::plan::model::{Change, Operation};
use crate::plan::trust::{Check, ConfigCheck, Disagreement, after, same};

impl Check for SavedSearchOp {
    fn sends_what_it_shows(&self, change: &Change) -> Result<Option<Operation>, Disagreement> {
        let Some(body) = self.sent() else {
            return match change.after {
                Some(_) => Err(Disagreement::DeleteWithValues),
                None => Ok(None),
            };
        };
        same(&sent(body), after(change)?)?;
        Ok(None)
    }

    fn against_config(
        &self,
        check: &ConfigCheck<'_>,
        _index: usize,
        address: &Address<'_>,
    ) -> Option<String> {
        if let Some(problem) = check.stack(self.stack()) {
            return Some(problem);
        }
        let Address::SavedSearch { stack, search } = address else {
            return None;
        };
        let declared = check
            .config
            .stacks
            .get(*stack)
            .is_some_and(|s| s.saved_searches.contains_key(*search));
        (!declared).then(|| {
            format!(
                "writes saved search `{search}`, which stack `{stack}` of the config does not declare"
            )
        })
    }
}
