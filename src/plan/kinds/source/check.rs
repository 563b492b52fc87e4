//! What the saved-plan check compares for a source step (`plan/trust/`): a create or update
//! sends, in the form the server stores it, exactly the source its change shows; every step
//! writes to the stack the config names, and to a source the config declares.

use super::live::stored;
use super::op::SourceOp;
use crate::address::Address;
use crate::plan::model::{Change, Operation};
use crate::plan::trust::{Check, ConfigCheck, Disagreement, after, same};

impl Check for SourceOp {
    fn sends_what_it_shows(&self, change: &Change) -> Result<Option<Operation>, Disagreement> {
        let Some(body) = self.sent() else {
            return match change.after {
                Some(_) => Err(Disagreement::DeleteWithValues),
                None => Ok(None),
            };
        };
        same(&stored(body), after(change)?)?;
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
        let Address::Source { stack, source } = address else {
            return None;
        };
        let declared = check
            .config
            .stacks
            .get(*stack)
            .and_then(|s| s.sources.get(*source));
        match declared {
            None => Some(format!(
                "writes source `{source}`, which stack `{stack}` of the config does not declare"
            )),
            Some(config) if config.absent != self.sent().is_none() => Some(format!(
                "{} source `{source}`, which the config declares {}",
                if config.absent { "writes" } else { "deletes" },
                if config.absent {
                    "`absent: true`"
                } else {
                    "present"
                }
            )),
            Some(_) => None,
        }
    }
}
