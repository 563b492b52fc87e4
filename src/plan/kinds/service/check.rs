//! What the saved-plan check compares for a service step (`plan/trust/`): its scaling body is
//! the one its change's fields build, and it writes to the service the config gives its key.

use super::op::{SCALING_FIELDS, ServiceOp, scaling_body};
use crate::address::Address;
use crate::plan::model::{Change, Operation};
use crate::plan::trust::{Check, ConfigCheck, Disagreement, fields_of, same_body, written};

impl Check for ServiceOp {
    fn sends_what_it_shows(&self, change: &Change) -> Result<Option<Operation>, Disagreement> {
        let ServiceOp::Scaling { body, .. } = self;
        written(change, SCALING_FIELDS)?;
        same_body(body, &scaling_body(fields_of(change)))?;
        Ok(None)
    }

    fn against_config(
        &self,
        check: &ConfigCheck<'_>,
        _index: usize,
        address: &Address<'_>,
    ) -> Option<String> {
        let ServiceOp::Scaling { service_id, .. } = self;
        check.service(address, service_id)
    }
}
