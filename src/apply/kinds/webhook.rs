//! Creating, changing and deleting a webhook on the observability API. Each secret a step
//! sends is read from its reference when the step is sent and must be the value the plan was
//! made with (its salted fingerprint): a saved plan sends only what its reviewer approved.

use std::collections::BTreeMap;

use futures_util::future::BoxFuture;

use crate::api::stack::StackApi;
use crate::api::wire::{Secret, WebhookRequest};
use crate::apply::sends::Sends;
use crate::apply::write::{Context, Created, Part, WriteError};
use crate::config::interpolate::secret_reference;
use crate::plan::kinds::webhook::op::WebhookSend;
use crate::plan::{Step, WebhookOp};

/// The client a webhook write goes through: the observability API's (the managed stack's
/// document only lists webhooks).
fn client(
    context: &Context,
    op: &WebhookOp,
) -> Result<crate::api::observability::ObservabilityClient, WriteError> {
    match context.stack(op.stack())? {
        StackApi::Standalone(client) => Ok(client),
        StackApi::Managed { .. } => Err(WriteError::Other(
            "the managed stack's API only lists webhooks: converge cannot write one there".into(),
        )),
    }
}

/// Sends a webhook operation once; a create returns the webhook as the server answered.
pub(crate) async fn send(
    context: &Context,
    operation: &WebhookOp,
) -> Result<Option<Created>, WriteError> {
    let client = client(context, operation)?;
    match operation {
        WebhookOp::Create { send, .. } => {
            let answer = client.create_webhook(&request(send)?).await?;
            return Ok(Some(Created {
                id: answer.id,
                name: answer.name,
            }));
        }
        WebhookOp::Update {
            webhook_id, send, ..
        } => {
            client.update_webhook(webhook_id, &request(send)?).await?;
        }
        WebhookOp::Delete { webhook_id, .. } => client.delete_webhook(webhook_id).await?,
    }
    Ok(None)
}

/// The request a step sends, each secret read now and approved against its fingerprint.
fn request(send: &WebhookSend) -> Result<WebhookRequest, WriteError> {
    let lookup = |name: &str| std::env::var(name).ok();
    let approval = (send.salt.as_str(), "webhook secret", "the webhook's write");
    let approved = super::pipe::approved(&send.secrets, approval, lookup)?;
    let mut request = WebhookRequest {
        name: send.name.clone(),
        service: send.service.clone(),
        description: send.description.clone(),
        ..WebhookRequest::default()
    };
    let mut headers: BTreeMap<String, Secret> = BTreeMap::new();
    let mut query_params: BTreeMap<String, Secret> = BTreeMap::new();
    for secret in approved {
        // Approved above: the variable is set.
        let value = Secret(
            secret_reference(&secret.reference)
                .and_then(lookup)
                .unwrap_or_default(),
        );
        match secret.path.split_once('.') {
            None if secret.path == "url" => request.url = value,
            None if secret.path == "body" => request.body = Some(value),
            Some(("headers", name)) => {
                headers.insert(name.to_string(), value);
            }
            Some(("queryParams", name)) => {
                query_params.insert(name.to_string(), value);
            }
            _ => {
                return Err(WriteError::Other(format!(
                    "the step sends `{}`, which is no member of a webhook",
                    secret.path
                )));
            }
        }
    }
    if send.entries {
        request.headers = (!headers.is_empty()).then_some(headers);
        request.query_params = (!query_params.is_empty()).then_some(query_params);
    }
    Ok(request)
}

impl Sends for WebhookOp {
    fn send<'a>(
        &'a self,
        context: &'a Context,
        _step: &'a Step,
        _part: Part,
    ) -> BoxFuture<'a, Result<Option<Created>, WriteError>> {
        Box::pin(send(context, self))
    }
}
