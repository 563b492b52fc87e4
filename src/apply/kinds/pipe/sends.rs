//! How a pipe operation is sent ([`Sends`]): its write, its copies, what a found create does
//! after it, and the ids of the reverse private endpoints its body names, filled in when it
//! runs.

use futures_util::future::BoxFuture;
use serde_json::Value;

use super::{doubles, found_created, send};
use crate::apply::kinds::reverse_endpoint::resolve_ids;
use crate::apply::sends::Sends;
use crate::apply::write::{Context, Created, Doubles, Part, StepError, WriteError};
use crate::plan::{Operation, PipeOp, Step};

impl Sends for PipeOp {
    fn send<'a>(
        &'a self,
        context: &'a Context,
        step: &'a Step,
        part: Part,
    ) -> BoxFuture<'a, Result<Option<Created>, WriteError>> {
        Box::pin(send(context, step, self, part))
    }

    fn doubles(&self) -> Option<Box<dyn Doubles + '_>> {
        doubles(self).map(|p| Box::new(p) as Box<dyn Doubles>)
    }

    /// Its body's endpoint ids filled in and each endpoint `Ready`
    /// ([`super::super::reverse_endpoint::resolve_ids`]).
    fn resolve<'a>(
        &'a self,
        context: &'a Context,
    ) -> BoxFuture<'a, Result<Option<Operation>, StepError>> {
        Box::pin(async move {
            let mut operation = self.clone();
            let Some((service_id, ids)) = endpoint_ids(&mut operation) else {
                return Ok(None);
            };
            let service_id = service_id.to_string();
            resolve_ids(context, &service_id, ids).await?;
            Ok(Some(Operation::Pipe(operation)))
        })
    }

    fn found_created<'a>(
        &'a self,
        context: &'a Context,
        step: &'a Step,
        live: &'a crate::live::LiveState,
    ) -> BoxFuture<'a, Result<(), WriteError>> {
        Box::pin(found_created(context, step, self, live))
    }
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
