//! What the saved-plan check compares for a webhook step (`plan/trust/`): a create or update
//! sends the name, service, description and recorded version its change shows, and reads each
//! secret from the reference the applying run's config writes at that place (a plan edited to
//! send another variable's value is refused); every step writes to the stack the config names.

use serde_json::{Value, json};

use super::op::{WebhookOp, recorded};
use crate::address::Address;
use crate::plan::model::{Change, Operation};
use crate::plan::trust::{Check, ConfigCheck, Disagreement, after, same};

impl Check for WebhookOp {
    fn sends_what_it_shows(&self, change: &Change) -> Result<Option<Operation>, Disagreement> {
        let Some(send) = self.sent() else {
            return match change.after {
                Some(_) => Err(Disagreement::DeleteWithValues),
                None => Ok(None),
            };
        };
        let shown = after(change)?;
        let (description, version) = recorded(send.description.as_deref());
        let sent = json!({
            "name": send.name,
            "service": send.service,
            "description": description,
            "credentialsVersion": version,
        });
        let member = |key: &str| shown.get(key).cloned().unwrap_or(Value::Null);
        let wanted = json!({
            "name": member("name"),
            "service": member("service"),
            "description": member("description"),
            "credentialsVersion": member("credentialsVersion"),
        });
        same(&sent, &wanted)?;
        Ok(None)
    }

    fn against_config(
        &self,
        check: &ConfigCheck<'_>,
        _index: usize,
        address: &Address<'_>,
    ) -> Option<String> {
        if let Some(problem) = check.stack(self.stack()) {
            return Some(problem);
        }
        let (Address::Webhook { stack, webhook }, Some(send)) = (address, self.sent()) else {
            return None;
        };
        let Some(config) = check
            .config
            .stacks
            .get(*stack)
            .and_then(|s| s.webhooks.get(*webhook))
        else {
            return Some(format!(
                "writes webhook `{webhook}`, which stack `{stack}` of the config does not declare"
            ));
        };
        for secret in &send.secrets {
            let written = match secret.path.split_once('.') {
                None if secret.path == "url" => config.url.as_ref(),
                None if secret.path == "body" => config.body.as_ref(),
                Some(("headers", name)) => entry(config.headers.as_deref(), name),
                Some(("queryParams", name)) => entry(config.query_params.as_deref(), name),
                _ => None,
            };
            if written.is_none_or(|w| w.reference != secret.reference) {
                return Some(format!(
                    "sends webhook `{webhook}`'s `{}` from `{}`, which the config does not write there",
                    secret.path, secret.reference
                ));
            }
        }
        None
    }
}

fn entry<'c>(
    entries: Option<&'c [(smol_str::SmolStr, crate::config::model::SecretValue)]>,
    name: &str,
) -> Option<&'c crate::config::model::SecretValue> {
    entries?.iter().find(|(n, _)| n == name).map(|(_, v)| v)
}
