//! What the saved-plan check compares for a service step (`plan/trust/`): its scaling body is
//! the one its change's fields build, and it writes to the service the config gives its key.

use super::op::{ServiceOp, scaling_body};
use crate::address::Address;
use crate::plan::model::{Change, Operation};
use crate::plan::trust::{Check, ConfigCheck, Disagreement, fields_of, same_body, written};

impl Check for ServiceOp {
    fn sends_what_it_shows(&self, change: &Change) -> Result<Option<Operation>, Disagreement> {
        written(change, self.route_fields())?;
        same_body(self.body(), &scaling_body(fields_of(change)))?;
        Ok(None)
    }

    fn against_config(
        &self,
        check: &ConfigCheck<'_>,
        _index: usize,
        address: &Address<'_>,
    ) -> Option<String> {
        check.service(address, self.service_id())
    }
}
