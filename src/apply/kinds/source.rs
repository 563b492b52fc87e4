//! Creating, changing and deleting a source on the observability API, and filling in the id
//! of each source a step names that this plan creates (a source's `traceSourceId`, a tile's
//! `sourceId`): its create ran first, so a fresh read of the sources list has it by name.

use futures_util::future::BoxFuture;
use serde_json::Value;

use crate::api::stack::StackApi;
use crate::apply::fresh::Scope;
use crate::apply::sends::Sends;
use crate::apply::write::{Context, Created, Part, StepError, WriteError, read_failed};
use crate::plan::kinds::source::op::{PLACEHOLDER, placeholder_name};
use crate::plan::{Operation, SourceOp, StackRef, Step};

/// Sends a source operation once; a create returns the source as the server answered.
async fn send(context: &Context, operation: &SourceOp) -> Result<Option<Created>, WriteError> {
    let client = match context.stack(operation.stack())? {
        StackApi::Standalone(client) => client,
        StackApi::Managed { .. } => {
            return Err(WriteError::Other(
                "the managed stack's API only lists sources: converge cannot write one there"
                    .into(),
            ));
        }
    };
    match operation {
        SourceOp::Create { body, .. } => {
            let answer = client.create_source(body).await?;
            return Ok(Some(Created {
                id: answer.id,
                name: answer.name,
            }));
        }
        SourceOp::Update {
            source_id, body, ..
        } => {
            client.update_source(source_id, body).await?;
        }
        SourceOp::Delete { source_id, .. } => client.delete_source(source_id).await?,
    }
    Ok(None)
}

/// Whether `value` holds a placeholder of a source this plan creates.
fn waits(value: &Value) -> bool {
    match value {
        Value::String(text) => text.starts_with(PLACEHOLDER),
        Value::Array(items) => items.iter().any(waits),
        Value::Object(map) => map.values().any(waits),
        _ => false,
    }
}

/// Puts the id of each source `value` names by placeholder in its place, from a fresh read of
/// the stack's sources; `false` when it names none (nothing read).
pub(super) async fn fill_in(
    context: &Context,
    stack: &StackRef,
    value: &mut Value,
) -> Result<bool, StepError> {
    if !waits(value) {
        return Ok(false);
    }
    let scope = Scope::Sources(stack.key.clone());
    let data = context
        .fresh
        .get(&scope, Some(stack), context.fresh.now())
        .await
        .map_err(read_failed)?;
    let listed = data
        .stack()
        .map(|s| s.sources.as_slice())
        .unwrap_or_default();
    let mut missing = None;
    replace(value, &mut |text: &mut String| {
        let Some(name) = placeholder_name(text) else {
            return;
        };
        match listed.iter().find(|s| s.name == name) {
            Some(found) => *text = found.id.clone(),
            None => missing = Some(name),
        }
    });
    match missing {
        Some(name) => Err(StepError::Failed(format!(
            "the step names source {name:?}, which the team does not have: apply the source \
             first (run without `--only`, or with a glob that matches its address)"
        ))),
        None => Ok(true),
    }
}

fn replace(value: &mut Value, each: &mut impl FnMut(&mut String)) {
    match value {
        Value::String(text) => each(text),
        Value::Array(items) => items.iter_mut().for_each(|v| replace(v, each)),
        Value::Object(map) => map.values_mut().for_each(|v| replace(v, each)),
        _ => {}
    }
}

/// The operation with the ids of the sources it names filled in; `None` when it names none.
async fn resolve(context: &Context, operation: &SourceOp) -> Result<Option<Operation>, StepError> {
    let mut operation = operation.clone();
    let stack = operation.stack().clone();
    let Some(body) = operation.sent_mut() else {
        return Ok(None);
    };
    let mut value = Value::Object(std::mem::take(body));
    let filled = fill_in(context, &stack, &mut value).await?;
    if let Value::Object(map) = value {
        *body = map;
    }
    Ok(filled.then_some(Operation::Source(operation)))
}

impl Sends for SourceOp {
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
        Box::pin(resolve(context, self))
    }
}
