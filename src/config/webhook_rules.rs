//! The rules of a stack's `webhooks:` that the schema cannot say (`semantic::webhook`): the
//! managed stack's document only lists webhooks, so none is written there; `externalWebhook
//! CreateSchema` refuses a `slack` webhook with a body, headers or query parameters (a webhook
//! without `url` is reported while building); and the server keeps one webhook of a service and name.

use std::collections::{BTreeSet, HashMap};

use super::model::{StackConfig, StackTarget, WebhookConfig};
use crate::diagnostic::{Code, Diagnostic, Span};

/// Pushes what the stack's webhooks break.
pub(crate) fn check(stack: &StackConfig, diags: &mut Vec<Diagnostic>) {
    if !matches!(stack.target, StackTarget::Managed { .. }) {
        renames(stack, diags);
    }
    let mut seen: HashMap<(&str, &str), Span> = HashMap::new();
    for webhook in stack.webhooks.values() {
        if let StackTarget::Managed { .. } = stack.target {
            diags.push(managed(stack, webhook));
            continue;
        }
        slack_members(webhook, diags);
        let identity = (webhook.service.value.as_str(), webhook.name.value.as_str());
        if let Some(first) = seen.insert(identity, webhook.name.span) {
            diags.push(
                Diagnostic::error(
                    Code::SemanticWebhook,
                    format!(
                        "two `{}` webhooks of the stack are named `{}`; the server keeps one of \
                         a service and name",
                        identity.0, identity.1
                    ),
                    Some(webhook.name.span),
                )
                .with_label("named again")
                .with_related(first, "first named here")
                .with_help("give one of them another name"),
            );
        }
    }
}

/// `renamedFrom` of a webhook names one webhook of its service (`semantic::rename-conflict`,
/// as for dashboards, alerts and pipes): the server keeps names per service.
fn renames(stack: &StackConfig, diags: &mut Vec<Diagnostic>) {
    let services: BTreeSet<&str> = stack
        .webhooks
        .values()
        .map(|w| w.service.value.as_str())
        .collect();
    for service in services {
        super::rename_rules::renames(
            &format!("{service} webhook"),
            ("stack", &stack.key.value),
            stack
                .webhooks
                .values()
                .filter(|w| w.service.value == service)
                .map(|w| (&w.name, w.renamed_from.as_slice())),
            diags,
        );
    }
}

fn managed(stack: &StackConfig, webhook: &WebhookConfig) -> Diagnostic {
    Diagnostic::error(
        Code::SemanticWebhook,
        format!(
            "stack `{}` is a managed stack, whose API only lists webhooks: converge cannot \
             create them there (nor change or delete webhook `{}`)",
            stack.key.value, webhook.key.value
        ),
        Some(webhook.key.span),
    )
    .with_label("not writable on the managed stack")
    .with_help(
        "make the webhook in the console and name it in the alert: `channel: { webhook: <name> }`",
    )
}

fn slack_members(webhook: &WebhookConfig, diags: &mut Vec<Diagnostic>) {
    if webhook.service.value != "slack" {
        return;
    }
    let written = [
        ("body", webhook.body.as_ref().map(|b| b.span)),
        (
            "headers",
            webhook
                .headers
                .as_ref()
                .and_then(|h| h.first())
                .map(|(_, v)| v.span),
        ),
        (
            "queryParams",
            webhook
                .query_params
                .as_ref()
                .and_then(|h| h.first())
                .map(|(_, v)| v.span),
        ),
    ];
    for (member, span) in written {
        let Some(span) = span else { continue };
        diags.push(
            Diagnostic::error(
                Code::SemanticWebhook,
                format!(
                    "webhook `{}` is a slack webhook: the server refuses `{member}` on it \
                     (`{member} is not supported for the slack webhook service`)",
                    webhook.key.value
                ),
                Some(span),
            )
            .with_label("not for slack")
            .with_help("remove it, or use `service: generic`"),
        );
    }
}
