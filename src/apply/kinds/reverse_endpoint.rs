//! Creating and deleting a reverse private endpoint, waiting for one until it is `Ready`, and
//! filling in the ids of the endpoints a pipe step names that this run created.

use futures_util::future::BoxFuture;
use serde_json::Value;

use crate::apply::fresh::{Data, Scope};
use crate::apply::sends::Sends;
use crate::apply::write::{Context, Created, Part, StepError, WriteError, read_failed};
use crate::live::LiveState;
use crate::plan::kinds::reverse_endpoint::live::placeholder_of;
use crate::plan::{ReverseEndpointOp, Step};

/// Sends a reverse private endpoint operation once. A create waits until its endpoint is
/// `Ready`: the pipes that name it wait for the step.
pub(crate) async fn send(
    context: &Context,
    operation: &ReverseEndpointOp,
) -> Result<Option<Created>, WriteError> {
    let cloud = context.cloud()?;
    match operation {
        ReverseEndpointOp::Create { service_id, body } => {
            let created = cloud.create_reverse_endpoint(service_id, body).await?;
            ready(context, service_id, &created.id).await?;
        }
        ReverseEndpointOp::Delete {
            service_id,
            endpoint_id,
        } => {
            cloud
                .delete_reverse_endpoint(service_id, endpoint_id)
                .await?
        }
    }
    Ok(None)
}

/// The statuses an endpoint does not leave on its own: a pipe cannot use it.
const FAILED: [&str; 3] = ["Failed", "Rejected", "Expired"];

/// Waits until endpoint `id` of service `service_id` reads `Ready`, for at most the run's
/// timeout. A failed read is said as it is (never as an ambiguous write: the create was
/// answered), a failed endpoint says its status.
async fn ready(context: &Context, service_id: &str, id: &str) -> Result<(), WriteError> {
    let cloud = context.cloud()?;
    let (timeout, poll) = context.patience();
    // `None` only for a timeout beyond what the clock can count: no deadline.
    let deadline = tokio::time::Instant::now().checked_add(timeout);
    loop {
        let endpoint = cloud
            .get_reverse_endpoint(service_id, id)
            .await
            .map_err(|e| {
                WriteError::Other(format!("cannot read reverse private endpoint {id}: {e}"))
            })?;
        let status = endpoint.status.as_deref().unwrap_or("Unknown");
        if status == "Ready" {
            return Ok(());
        }
        if FAILED.contains(&status) {
            return Err(WriteError::Other(format!(
                "reverse private endpoint {id} (`{}`) is {status}: no pipe can use it",
                endpoint.spec.description
            )));
        }
        if deadline.is_some_and(|d| tokio::time::Instant::now() >= d) {
            return Err(WriteError::Other(format!(
                "reverse private endpoint {id} (`{}`) is still {status} after {}s",
                endpoint.spec.description,
                timeout.as_secs()
            )));
        }
        context.say(&format!(
            "waiting for reverse private endpoint `{}` ({status})",
            endpoint.spec.description
        ));
        tokio::time::sleep(poll).await;
    }
}

/// The endpoint ids a pipe step sends (`ids`, its body's `reversePrivateEndpointIds`), each
/// `Ready`: a placeholder for an endpoint this run created is replaced by its id, read from
/// the service's list by the description it names.
pub(crate) async fn resolve_ids(
    context: &Context,
    service_id: &str,
    ids: &mut [Value],
) -> Result<(), StepError> {
    if ids
        .iter()
        .any(|id| id.as_str().and_then(placeholder_of).is_some())
    {
        let scope = Scope::ReverseEndpoints(service_id.to_string());
        let data = context
            .fresh
            .get(&scope, None, context.fresh.now())
            .await
            .map_err(read_failed)?;
        let Data::ReverseEndpoints(listed) = data.as_ref() else {
            return Err(StepError::Failed(
                "the reverse private endpoints were not read".into(),
            ));
        };
        for id in ids.iter_mut() {
            let Some(description) = id.as_str().and_then(placeholder_of) else {
                continue;
            };
            let Some(found) = listed.iter().find(|e| e.spec.description == description) else {
                return Err(StepError::Failed(format!(
                    "the pipe names reverse private endpoint `{description}`, which service \
                     {service_id} does not have: apply the endpoint first (run without `--only`, \
                     or with a glob that matches its address)"
                )));
            };
            *id = Value::from(found.id.clone());
        }
    }
    for id in ids.iter() {
        let id = id.as_str().unwrap_or_default();
        ready(context, service_id, id)
            .await
            .map_err(|e| StepError::Failed(format!("the pipe is not written: {e}")))?;
    }
    Ok(())
}

impl Sends for ReverseEndpointOp {
    fn send<'a>(
        &'a self,
        context: &'a Context,
        _step: &'a Step,
        _part: Part,
    ) -> BoxFuture<'a, Result<Option<Created>, WriteError>> {
        Box::pin(send(context, self))
    }

    /// A create whose answer was lost, found by its description: waited for like an answered
    /// one.
    fn found_created<'a>(
        &'a self,
        context: &'a Context,
        _step: &'a Step,
        live: &'a LiveState,
    ) -> BoxFuture<'a, Result<(), WriteError>> {
        Box::pin(async move {
            let (service_id, key) = self.object();
            let found = crate::plan::kinds::reverse_endpoint::live::find(live, service_id, key);
            match found {
                Some(found) => ready(context, service_id, &found.id).await,
                None => Ok(()),
            }
        })
    }
}
