//! Registering a private endpoint on a service, and detaching one.

use futures_util::future::BoxFuture;

use crate::apply::sends::Sends;
use crate::apply::write::Part;
use crate::apply::write::{Context, Created, WriteError};
use crate::plan::PrivateEndpointOp;
use crate::plan::Step;

/// Sends a private endpoint operation once. Registering one the service has already changes
/// nothing, so its create answers no object to check for copies.
pub(crate) async fn send(
    context: &Context,
    operation: &PrivateEndpointOp,
) -> Result<Option<Created>, WriteError> {
    match operation {
        PrivateEndpointOp::Create { service_id, body } => {
            context
                .cloud()?
                .create_private_endpoint(service_id, body)
                .await?;
        }
        PrivateEndpointOp::Detach { service_id, body } => {
            context
                .cloud()?
                .update_service_private_endpoints(service_id, body)
                .await?;
        }
    }
    Ok(None)
}

impl Sends for PrivateEndpointOp {
    fn send<'a>(
        &'a self,
        context: &'a Context,
        _step: &'a Step,
        _part: Part,
    ) -> BoxFuture<'a, Result<Option<Created>, WriteError>> {
        Box::pin(send(context, self))
    }
}
