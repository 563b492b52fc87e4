//! The reverse private endpoints a pipe step names: their ids filled in when it runs (an
//! endpoint this run created) and each waited for until `Ready`.

use serde_json::Value;

use crate::apply::kinds::reverse_endpoint::resolve_ids;
use crate::apply::write::{Context, StepError};
use crate::plan::{Operation, PipeOp};

/// `operation` with its body's endpoint ids filled in, once each endpoint is `Ready`; `None`
/// when it names none.
pub(super) async fn resolve(
    context: &Context,
    operation: &PipeOp,
) -> Result<Option<Operation>, StepError> {
    let mut operation = operation.clone();
    let Some((service_id, ids)) = endpoint_ids(&mut operation) else {
        return Ok(None);
    };
    let service_id = service_id.to_string();
    resolve_ids(context, &service_id, ids).await?;
    Ok(Some(Operation::Pipe(operation)))
}

/// The service and the `source.kafka.reversePrivateEndpointIds` of a step whose body sends
/// them; `None` for any other.
fn endpoint_ids(operation: &mut PipeOp) -> Option<(&str, &mut [Value])> {
    let (service_id, body) = match operation {
        PipeOp::Create {
            service_id, body, ..
        }
        | PipeOp::Update {
            service_id, body, ..
        }
        | PipeOp::Replace {
            service_id, body, ..
        }
        | PipeOp::Rotate {
            service_id, body, ..
        }
        | PipeOp::Lifecycle {
            service_id, body, ..
        } => (service_id, body),
        PipeOp::Scaling { .. }
        | PipeOp::Delete { .. }
        | PipeOp::Resync { .. }
        | PipeOp::Settings { .. }
        | PipeOp::Compute { .. } => return None,
    };
    let ids = body
        .pointer_mut("/source/kafka/reversePrivateEndpointIds")?
        .as_array_mut()?;
    Some((service_id.as_str(), ids.as_mut_slice()))
}
