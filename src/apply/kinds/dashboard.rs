//! Sending a dashboard's write: its answer is kept, for the alerts that name it.

use crate::api::limits::DASHBOARD_MAX_TAGS;
use crate::apply::write::{Context, Created, WriteError};
use crate::plan::DashboardOp;

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
