//! Creating, changing and deleting a saved search on the observability API (the managed
//! stack's document has none): each step sends the whole body its change shows.

use futures_util::future::BoxFuture;

use crate::api::stack::StackApi;
use crate::apply::sends::Sends;
use crate::apply::write::{Context, Created, Part, WriteError};
use crate::plan::{SavedSearchOp, Step};

/// Sends a saved search operation once; a create returns it as the server answered.
async fn send(context: &Context, operation: &SavedSearchOp) -> Result<Option<Created>, WriteError> {
    let StackApi::Standalone(client) = context.stack(operation.stack())? else {
        return Err(WriteError::Other(
            "the managed stack's API has no saved searches: converge cannot write one there".into(),
        ));
    };
    match operation {
        SavedSearchOp::Create { body, .. } => {
            let answer = client.create_saved_search(body).await?;
            return Ok(Some(Created {
                id: answer.id,
                name: answer.name,
            }));
        }
        SavedSearchOp::Update {
            saved_search_id,
            body,
            ..
        } => {
            client.update_saved_search(saved_search_id, body).await?;
        }
        SavedSearchOp::Delete {
            saved_search_id, ..
        } => client.delete_saved_search(saved_search_id).await?,
    }
    Ok(None)
}

impl Sends for SavedSearchOp {
    fn send<'a>(
        &'a self,
        context: &'a Context,
        _step: &'a Step,
        _part: Part,
    ) -> BoxFuture<'a, Result<Option<Created>, WriteError>> {
        Box::pin(send(context, self))
    }
}
