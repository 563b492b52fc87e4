//! Sending an alert's write, after looking up the dashboard and tile it names when the plan
//! creates or changes them.

use crate::plan::kinds::alert::live as alert_live;
use futures_util::future::BoxFuture;

use crate::apply::sends::Sends;
use crate::apply::write::Part;
use crate::plan::Step;
use std::borrow::Cow;

use crate::address::{Address, AddressBuf};
use crate::api::wire::{Alert, AlertRequest};
use crate::apply::fresh::{Data, Scope};
use crate::apply::write::{Context, Created, Doubles, StepError, WriteError, read_failed};
use crate::live::StackLive;
use crate::plan::{AlertOp, AlertTarget, Operation, StackRef, normalize};

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

/// Fills in the dashboard and tile ids of an alert that names them, and the id of each webhook
/// its channels name that this plan creates.
pub(crate) async fn resolve(context: &Context, alert: &AlertOp) -> Result<AlertOp, StepError> {
    let mut alert = resolve_dashboard(context, alert).await?;
    let stack = alert.stack().clone();
    let Some((_, body)) = alert.written_mut() else {
        return Ok(alert);
    };
    let waiting = |id: Option<&String>| id.is_some_and(|id| id.starts_with(PLACEHOLDER));
    let channels = body
        .channel
        .iter_mut()
        .chain(body.newer.channels.iter_mut().flatten());
    let mut open: Vec<&mut crate::api::wire::Channel> = channels
        .filter(|c| waiting(c.webhook_id.as_ref()))
        .collect();
    if open.is_empty() {
        return Ok(alert);
    }
    let scope = Scope::Webhooks(stack.key.clone());
    let data = context
        .fresh
        .get(&scope, Some(&stack), context.fresh.now())
        .await
        .map_err(read_failed)?;
    let Some(StackLive {
        webhooks: listed, ..
    }) = data.stack()
    else {
        return Err(StepError::Failed("the webhooks list was not read".into()));
    };
    for channel in open.iter_mut() {
        let wanted = channel.webhook_id.clone().unwrap_or_default();
        let found = listed
            .iter()
            .find(|w| crate::plan::kinds::webhook::placeholder(&w.service, &w.name) == wanted);
        let Some(found) = found else {
            return Err(StepError::Failed(format!(
                "the alert names {wanted}, which the team does not have: apply the webhook \
                 first (run without `--only`, or with a glob that matches its address)"
            )));
        };
        channel.webhook_id = Some(found.id.clone());
    }
    Ok(alert)
}

/// How a channel's webhook id starts until the webhook this plan creates has its id.
const PLACEHOLDER: &str = "(the ";

/// Fills in the dashboard and tile ids of an alert that names them.
async fn resolve_dashboard(context: &Context, alert: &AlertOp) -> Result<AlertOp, StepError> {
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
            data.stack().and_then(|part| {
                part.dashboards
                    .iter()
                    .find(|d| normalize::same_name(&d.name, dashboard))
                    .cloned()
            })
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

/// An alert create, as its copies are settled.
pub(crate) struct AlertCreate<'a> {
    stack: &'a StackRef,
    body: &'a AlertRequest,
}

/// An alert operation that can leave its alert twice: a create.
pub(crate) fn doubles(operation: &AlertOp) -> Option<AlertCreate<'_>> {
    match operation {
        AlertOp::Create { stack, body, .. } => Some(AlertCreate { stack, body }),
        AlertOp::Update { .. } | AlertOp::Delete { .. } => None,
    }
}

impl Doubles for AlertCreate<'_> {
    fn kind(&self) -> &'static str {
        "alert"
    }

    fn name(&self) -> &str {
        self.body.name.as_deref().unwrap_or_default()
    }

    fn tags_its_copies(&self) -> bool {
        false
    }

    fn copies<'d>(&self, data: &'d Data) -> Vec<(&'d str, &'d [String])> {
        let Some(StackLive { alerts: list, .. }) = data.stack() else {
            return Vec::new();
        };
        // An alert carries no tags: it is this run's only by the id its create answered.
        list.iter()
            // Alerts are matched within their stack: one on another dashboard is another's.
            .filter(|a| {
                normalize::same_name(&a.name, self.name())
                    && self
                        .body
                        .dashboard_id
                        .as_deref()
                        .is_none_or(|d| a.dashboard.as_deref() == Some(d))
            })
            .map(|a| (a.id.as_str(), &[][..]))
            .collect()
    }

    fn removal(&self, own_id: &str) -> (Operation, AddressBuf) {
        let operation = Operation::Alert(AlertOp::Delete {
            stack: self.stack.clone(),
            alert_id: own_id.to_string(),
        });
        let address = Address::LiveAlert {
            stack: &self.stack.key,
            name: Cow::Borrowed(self.name()),
        };
        (operation, address.into())
    }

    fn kept_as_wanted(&self, _context: &Context, kept: &str, data: &Data) -> bool {
        let Some(StackLive { alerts: list, .. }) = data.stack() else {
            return false;
        };
        let Some(oldest) = list.iter().find(|a| a.id == kept) else {
            return false;
        };
        let body = self.body;
        let wanted = Alert {
            id: oldest.id.clone(),
            name: oldest.name.clone(),
            message: body.message.clone(),
            threshold: body.threshold,
            interval: body.interval.clone(),
            threshold_type: body.threshold_type.clone(),
            source: body.source.clone(),
            channel: body.channel.clone(),
            tile_id: body.tile_id.clone(),
            dashboard: body.dashboard_id.clone(),
            newer: body.newer.clone(),
            ..Alert::default()
        };
        alert_live::alert_with_ids(oldest) == alert_live::alert_with_ids(&wanted)
    }
}

impl Sends for AlertOp {
    fn send<'a>(
        &'a self,
        context: &'a Context,
        _step: &'a Step,
        _part: Part,
    ) -> BoxFuture<'a, Result<Option<Created>, WriteError>> {
        Box::pin(send(context, self))
    }

    fn resolve<'a>(
        &'a self,
        context: &'a Context,
    ) -> BoxFuture<'a, Result<Option<Operation>, StepError>> {
        Box::pin(async move {
            resolve(context, self)
                .await
                .map(|op| Some(Operation::Alert(op)))
        })
    }

    fn doubles(&self) -> Option<Box<dyn Doubles + '_>> {
        doubles(self).map(|a| Box::new(a) as Box<dyn Doubles>)
    }
}
