//! What the saved-plan check compares for a service step (`plan/trust/`): its scaling body is
//! the one its change's fields build, a settings body the one its member's fields build (each
//! field's value the one the change's desired values hold), a state command the one its
//! desired state asks, and every step writes to the service the config gives its key.

use serde_json::Value;

use super::op::{ServiceOp, member_body, scaling_body, state_body};
use crate::address::{Address, Member};
use crate::plan::model::{Change, Operation};
use crate::plan::trust::{
    Check, ConfigCheck, Disagreement, after, fields_of, same, same_body, written,
};

impl Check for ServiceOp {
    fn sends_what_it_shows(&self, change: &Change) -> Result<Option<Operation>, Disagreement> {
        match self {
            ServiceOp::Scaling { body, .. } | ServiceOp::ReplicaScaling { body, .. } => {
                written(change, self.route_fields())?;
                same_body(body, &scaling_body(fields_of(change)))?;
            }
            ServiceOp::Update { body, .. } => {
                let member = self.member().unwrap_or(Member::IpAccessList);
                shown_fields(change, member)?;
                let fields = change
                    .fields
                    .iter()
                    .map(|f| (f.path.as_str(), f.before.as_ref(), f.after.as_ref()));
                same_body(body, &member_body(member, fields))?;
            }
            ServiceOp::State { body, .. } => {
                shown_fields(change, Member::State)?;
                let wanted = after(change)?
                    .get(Member::State.as_str())
                    .and_then(Value::as_str)
                    .unwrap_or_default();
                same_body(body, &state_body(wanted))?;
            }
        }
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

/// Each field of a member's change is that member's, with the value the change's desired
/// values hold at its path.
fn shown_fields(change: &Change, member: Member) -> Result<(), Disagreement> {
    let wanted = after(change)?.get(member.as_str());
    if change.fields.is_empty() {
        return Err(Disagreement::NothingDiffers);
    }
    for field in &change.fields {
        let desired = match field.path.strip_prefix(member.as_str()) {
            Some("") => wanted,
            Some(rest) => match rest.strip_prefix('.') {
                Some(key) => wanted.and_then(|w| w.get(key)),
                None => return Err(not_member(&field.path, member)),
            },
            None => return Err(not_member(&field.path, member)),
        };
        let listed = field.after.clone().unwrap_or(Value::Null);
        same(&listed, desired.unwrap_or(&Value::Null)).map_err(|_| Disagreement::FieldDiffers {
            path: field.path.clone(),
            listed,
            desired: desired.cloned(),
        })?;
    }
    Ok(())
}

fn not_member(path: &str, member: Member) -> Disagreement {
    Disagreement::NotMemberField {
        path: path.to_string(),
        member: member.as_str(),
    }
}
