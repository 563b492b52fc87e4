//! Sending a dashboard's write: its answer is kept, for the alerts that name it.

use crate::plan::kinds::dashboard::live as dashboard_live;
use futures_util::future::BoxFuture;

use crate::apply::sends::Sends;
use crate::apply::write::Part;
use crate::plan::Step;
use std::borrow::Cow;

use crate::address::{Address, AddressBuf};
use crate::api::limits::DASHBOARD_MAX_TAGS;
use crate::api::wire::{Dashboard, DashboardRequest};
use crate::apply::fresh::Data;
use crate::apply::write::{Context, Created, Doubles, StepError, WriteError};
use crate::live::StackLive;
use crate::plan::ownership::tagged_for_another;
use crate::plan::{DashboardOp, Operation, StackRef, normalize};

/// Sends a dashboard operation once; a create returns the dashboard as the server answered.
pub(crate) async fn send(
    context: &Context,
    operation: &DashboardOp,
) -> Result<Option<Created>, WriteError> {
    match operation {
        DashboardOp::Create { stack, body } => {
            // The run's tag lets a re-read after a lost answer tell this run's copy from
            // another run's; a dashboard with all the tags the API takes goes without it.
            let mut body = body.clone();
            if body.tags.len() < DASHBOARD_MAX_TAGS {
                body.tags.push(context.run_tag.clone());
            }
            let answer = context.stack(stack)?.create_dashboard(&body).await?;
            let created = Created {
                id: answer.id.clone(),
                name: answer.name.clone(),
            };
            context.remember(stack, answer);
            return Ok(Some(created));
        }
        DashboardOp::Update {
            stack,
            dashboard_id,
            body,
        } => {
            let answer = context
                .stack(stack)?
                .update_dashboard(dashboard_id, body)
                .await?;
            context.remember(stack, answer);
        }
        DashboardOp::Delete {
            stack,
            dashboard_id,
        } => context.stack(stack)?.delete_dashboard(dashboard_id).await?,
    }
    Ok(None)
}

/// A dashboard create, as its copies are settled.
pub(crate) struct DashboardCreate<'a> {
    stack: &'a StackRef,
    body: &'a DashboardRequest,
}

/// A dashboard operation that can leave its dashboard twice: a create.
pub(crate) fn doubles(operation: &DashboardOp) -> Option<DashboardCreate<'_>> {
    match operation {
        DashboardOp::Create { stack, body } => Some(DashboardCreate { stack, body }),
        DashboardOp::Update { .. } | DashboardOp::Delete { .. } => None,
    }
}

impl Doubles for DashboardCreate<'_> {
    fn kind(&self) -> &'static str {
        "dashboard"
    }

    fn name(&self) -> &str {
        &self.body.name
    }

    fn tags_its_copies(&self) -> bool {
        true
    }

    fn copies<'d>(&self, data: &'d Data) -> Vec<(&'d str, &'d [String])> {
        let Some(StackLive {
            dashboards: list, ..
        }) = data.stack()
        else {
            return Vec::new();
        };
        list.iter()
            // Another stack's dashboard of the same name is never a copy of this one.
            .filter(|d| {
                normalize::same_name(&d.name, &self.body.name)
                    && !tagged_for_another(&self.stack.key, d)
            })
            .map(|d| (d.id.as_str(), d.tags.as_slice()))
            .collect()
    }

    fn removal(&self, own_id: &str) -> (Operation, AddressBuf) {
        let operation = Operation::Dashboard(DashboardOp::Delete {
            stack: self.stack.clone(),
            dashboard_id: own_id.to_string(),
        });
        let address = Address::LiveDashboard {
            stack: &self.stack.key,
            name: Cow::Borrowed(&self.body.name),
        };
        (operation, address.into())
    }

    fn kept_as_wanted(&self, context: &Context, kept: &str, data: &Data) -> bool {
        let Some(StackLive {
            dashboards: list, ..
        }) = data.stack()
        else {
            return false;
        };
        let Some(oldest) = list.iter().find(|d| d.id == kept) else {
            return false;
        };
        context.remember(self.stack, oldest.clone());
        let wanted = Dashboard {
            id: String::new(),
            name: oldest.name.clone(),
            tiles: self.body.tiles.clone(),
            tags: self.body.tags.clone(),
            containers: self.body.containers.clone().unwrap_or_default(),
        };
        dashboard_live::dashboard(oldest) == dashboard_live::dashboard(&wanted)
    }
}

impl Sends for DashboardOp {
    fn send<'a>(
        &'a self,
        context: &'a Context,
        _step: &'a Step,
        _part: Part,
    ) -> BoxFuture<'a, Result<Option<Created>, WriteError>> {
        Box::pin(send(context, self))
    }

    /// The ids of the sources its tiles name that this plan creates, filled in.
    fn resolve<'a>(
        &'a self,
        context: &'a Context,
    ) -> BoxFuture<'a, Result<Option<Operation>, StepError>> {
        Box::pin(resolve(context, self))
    }

    fn doubles(&self) -> Option<Box<dyn Doubles + '_>> {
        doubles(self).map(|d| Box::new(d) as Box<dyn Doubles>)
    }
}

/// The dashboard with the ids of the sources its tiles name that this plan creates filled
/// in; `None` when its tiles name none.
async fn resolve(
    context: &Context,
    operation: &DashboardOp,
) -> Result<Option<Operation>, StepError> {
    let (stack, body) = match operation {
        DashboardOp::Create { stack, body } | DashboardOp::Update { stack, body, .. } => {
            (stack, body)
        }
        DashboardOp::Delete { .. } => return Ok(None),
    };
    let mut value = serde_json::to_value(body)
        .map_err(|e| StepError::Failed(format!("cannot read the dashboard's body: {e}")))?;
    if !super::source::fill_in(context, stack, &mut value).await? {
        return Ok(None);
    }
    let filled: DashboardRequest = serde_json::from_value(value)
        .map_err(|e| StepError::Failed(format!("cannot fill in the dashboard's sources: {e}")))?;
    let mut operation = operation.clone();
    if let DashboardOp::Create { body, .. } | DashboardOp::Update { body, .. } = &mut operation {
        *body = filled;
    }
    Ok(Some(Operation::Dashboard(operation)))
}
