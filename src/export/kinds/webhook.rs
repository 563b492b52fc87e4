//! Webhooks of a stack on the observability API: each one's readable members, its `url` (and
//! a generic one's `body`) as an `${env:...}` placeholder, since the value may hold a secret;
//! `headers` and `queryParams` are never read back, so an export cannot write them.

use crate::export::build::{Keys, StackWriting, entry, reference, slug, str};
use crate::export::yaml::Node;
use crate::plan::kinds::webhook::op::recorded;

/// `webhooks:` of a stack on the observability API.
pub(super) fn webhooks(writing: &mut StackWriting<'_>, node: &mut Vec<(String, Node)>) {
    if !writing.observability {
        return;
    }
    let mut keys = Keys::default();
    let mut written = Vec::new();
    let mut listed: Vec<&crate::api::wire::Webhook> = writing.live.webhooks.iter().collect();
    listed.sort_by(|a, b| (&a.name, &a.service).cmp(&(&b.name, &b.service)));
    for webhook in listed {
        let key = keys.take(slug(&webhook.name, "webhook"));
        let variable =
            |member: &str| format!("WEBHOOK_{}_{member}", key.to_uppercase().replace('-', "_"));
        let placeholder = |name: String| {
            Node::Commented(
                Box::new(reference(&name)),
                format!("may hold a secret, never written here: set {name}"),
            )
        };
        let (description, version) = recorded(webhook.description.as_deref());
        let mut entries = vec![
            entry("name", str(&webhook.name)),
            entry("service", str(&webhook.service)),
            entry("url", placeholder(variable("URL"))),
        ];
        if let Some(description) = description {
            entries.push(entry("description", str(description)));
        }
        if webhook.body.is_some() && webhook.service == "generic" {
            entries.push(entry("body", placeholder(variable("BODY"))));
        }
        if let Some(version) = version {
            entries.push(entry("credentialsVersion", Node::Num(version.to_string())));
        }
        written.push((key, Node::Map(entries)));
    }
    if !written.is_empty() {
        node.push(entry("webhooks", Node::Map(written)));
    }
}
