//! Sending a service's scaling.

use crate::apply::write::{Context, Created, WriteError};
use crate::plan::ServiceOp;

/// Sends a service operation once.
pub(crate) async fn send(
    context: &Context,
    operation: &ServiceOp,
) -> Result<Option<Created>, WriteError> {
    match operation {
        ServiceOp::Scaling { service_id, body } => {
            context
                .cloud()?
                .update_service_scaling(service_id, body)
                .await?;
        }
    }
    Ok(None)
}
