//! Sending an alert's write, after looking up the dashboard and tile it names when the plan
//! creates or changes them.

use crate::api::wire::AlertRequest;
use crate::apply::fresh::{Data, Scope};
use crate::apply::write::{Context, Created, StepError, WriteError, read_failed};
use crate::plan::{AlertOp, AlertTarget, normalize};

/// Sends an alert operation once; a create returns the alert as the server answered.
pub(crate) async fn send(
    context: &Context,
    operation: &AlertOp,
) -> Result<Option<Created>, WriteError> {
    match operation {
        AlertOp::Create { stack, body, .. } => {
            let answer = context.stack(stack)?.create_alert(body).await?;
            return Ok(Some(Created {
                id: answer.id,
                name: answer.name,
            }));
        }
        AlertOp::Update {
            stack,
            alert_id,
            body,
            ..
        } => {
            context.stack(stack)?.update_alert(alert_id, body).await?;
        }
        AlertOp::Delete { stack, alert_id } => context.stack(stack)?.delete_alert(alert_id).await?,
    }
    Ok(None)
}

/// What to do when an alert's dashboard or tile is not there yet: most often `--only` kept the
/// alert and left out the dashboard change it depends on.
const APPLY_THE_DASHBOARD_FIRST: &str = "apply the dashboard first: run without `--only`, or \
     with an `--only` glob that also matches the dashboard's address";

/// Fills in the dashboard and tile ids of an alert that names them.
pub(crate) async fn resolve(context: &Context, alert: &AlertOp) -> Result<AlertOp, StepError> {
    let stack = alert.stack();
    let Some((AlertTarget::Names { dashboard, tile }, body)) = alert.written() else {
        return Ok(alert.clone());
    };
    let found = match context.answer(stack, dashboard) {
        Some(found) => Some(found),
        None => {
            // Rare (no answer was kept): read now, after the dashboard's step.
            let scope = Scope::Dashboards(stack.key.clone());
            let data = context
                .fresh
                .get(&scope, Some(stack), context.fresh.now())
                .await
                .map_err(read_failed)?;
            match data.as_ref() {
                Data::Dashboards(list) => list
                    .iter()
                    .find(|d| normalize::same_name(&d.name, dashboard))
                    .cloned(),
                _ => None,
            }
        }
    };
    let Some(found) = found else {
        return Err(StepError::Failed(format!(
            "dashboard `{dashboard}` of stack `{}` does not exist, so the alert cannot point at it; \
             {APPLY_THE_DASHBOARD_FIRST}",
            stack.key
        )));
    };
    let Some(tile_id) = found
        .tiles
        .iter()
        .find(|t| t.name == *tile)
        .and_then(|t| t.id.clone())
    else {
        return Err(StepError::Failed(format!(
            "dashboard `{dashboard}` of stack `{}` has no tile `{tile}` with an id; \
             {APPLY_THE_DASHBOARD_FIRST}",
            stack.key
        )));
    };
    let body = AlertRequest {
        dashboard_id: Some(found.id.clone()),
        tile_id: Some(tile_id),
        ..body.clone()
    };
    let mut alert = alert.clone();
    if let Some((_, b)) = alert.written_mut() {
        *b = body;
    }
    Ok(alert)
}
