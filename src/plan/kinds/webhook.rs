//! Webhooks of a stack on the observability API: each declared one created, changed in place
//! (found by its service and name, or a `renamedFrom` name), or deleted when `absent: true`;
//! and what those steps send (`op`). The list answers a webhook's `url` (and a generic one's
//! `body`) in clear and never its `headers` or `queryParams`: the first are compared without
//! being shown, the others are sent on create, with a new `url`, and when `credentialsVersion`
//! rises above the version recorded in the description ([`op::recorded`]).

mod check;
pub(crate) mod live;
pub(crate) mod op;

use std::collections::BTreeMap;

use serde_json::{Value, json};
use smol_str::SmolStr;

use crate::address::AddressBuf;
use crate::api::wire::Webhook;
use crate::config::model::{SecretValue, StackConfig, StackTarget, WebhookConfig};
use crate::diagnostic::{Code, Diagnostic};
use crate::live::StackLive;
use crate::plan::address::Address;
use crate::plan::build::builder::{
    Builder, PlannedWebhook, absent_already, ambiguous, candidates, rename_reason,
};
use crate::plan::diff;
use crate::plan::kinds::pipe::op::{SealedCredential, fingerprint_of, new_salt};
use crate::plan::model::{Action, Change, Operation, StackRef};
use live::sealed_fingerprint;
use op::{SECRET, SECRET_CHANGED, WebhookOp, WebhookSend};

/// The webhook id an alert's channel carries until the webhook it names is created in the same
/// apply: apply puts the created webhook's id in its place ([`placeholder`]).
pub(crate) fn placeholder(service: &str, name: &str) -> String {
    format!("(the {service} webhook {name:?} this plan creates)")
}

impl Builder<'_> {
    /// Runs `plan_deletes`, making each step it adds wait for the alert steps planned since step
    /// `from`: the server refuses to delete an object an alert names (a webhook), so alerts
    /// moving off it or going are sent first.
    pub(crate) fn after_alerts(&mut self, from: usize, plan_deletes: impl FnOnce(&mut Self)) {
        let alerts: Vec<usize> = self.plan.steps[from.min(self.plan.steps.len())..]
            .iter()
            .filter(|s| {
                matches!(
                    s.operation.target().list(),
                    crate::plan::target::List::Alerts(_)
                )
            })
            .map(|s| s.id)
            .collect();
        let before = self.plan.steps.len();
        plan_deletes(self);
        for step in &mut self.plan.steps[before..] {
            step.depends_on.extend(&alerts);
        }
    }

    /// Plans the stack's declared webhooks; returns them by key and by name for its alerts.
    pub(crate) fn plan_webhooks(
        &mut self,
        stack: &StackConfig,
        stack_ref: &StackRef,
        live: &StackLive,
    ) -> BTreeMap<SmolStr, PlannedWebhook> {
        let mut planned = BTreeMap::new();
        // The managed stack's are refused at validate (`semantic::webhook`).
        if !matches!(stack.target, StackTarget::Observability) {
            return planned;
        }
        for config in stack.webhooks.values().filter(|w| !w.absent) {
            // One that could not be planned (reported) is still the one its alerts name.
            let p = self
                .webhook(stack, stack_ref, live, config)
                .unwrap_or_else(|| PlannedWebhook {
                    id: None,
                    created: None,
                    service: config.service.value.to_string(),
                    name: config.name.value.to_string(),
                });
            planned.insert(config.name.value.clone(), p.clone());
            planned.insert(config.key.value.clone(), p);
        }
        planned
    }

    /// Plans the stack's webhooks declared `absent: true`, after its alerts: each delete waits
    /// for the alert steps planned since step `from` (the server refuses to delete a webhook
    /// an alert names, so alerts moving off it or going go first).
    pub(crate) fn absent_webhooks(
        &mut self,
        stack: &StackConfig,
        stack_ref: &StackRef,
        live: &StackLive,
        from: usize,
    ) {
        if !matches!(stack.target, StackTarget::Observability) {
            return;
        }
        self.after_alerts(from, |builder| {
            for config in stack.webhooks.values().filter(|w| w.absent) {
                builder.webhook(stack, stack_ref, live, config);
            }
        });
    }

    fn webhook(
        &mut self,
        stack: &StackConfig,
        stack_ref: &StackRef,
        live: &StackLive,
        config: &WebhookConfig,
    ) -> Option<PlannedWebhook> {
        let service = config.service.value.as_str();
        let found = found(live, config);
        if found.len() > 1 {
            self.error(ambiguous_webhook(stack, config, &found));
            return None;
        }
        let existing = found.first().map(|(w, _)| *w);
        let address: AddressBuf = Address::Webhook {
            stack: &stack.key.value,
            webhook: &config.key.value,
        }
        .into();
        if config.absent {
            self.absent_webhook(address, stack_ref, existing);
            return None;
        }
        let desired = self.desired_webhook(config, existing)?;
        let planned = PlannedWebhook {
            id: existing.map(|w| w.id.clone()),
            created: None,
            service: service.to_string(),
            name: config.name.value.to_string(),
        };
        let change = match existing {
            Some(live) => updated(address, live, config, &desired),
            None => Change {
                address,
                action: Action::Create,
                reason: "no webhook of this service and name in the team".into(),
                before: None,
                fields: diff::created(&desired.after),
                after: Some(desired.after),
                fingerprint: None,
                step: None,
                renamed_from: None,
            },
        };
        if change.action == Action::NoOp {
            self.push(change, None);
            return Some(planned);
        }
        // Unset secrets are reported only once a step sends them.
        if !desired.unset.is_empty() {
            desired
                .unset
                .iter()
                .for_each(|s| self.error(unset_secret(s)));
            return None;
        }
        let operation = Operation::Webhook(match existing {
            Some(live) => WebhookOp::Update {
                stack: stack_ref.clone(),
                webhook_id: live.id.clone(),
                send: desired.send,
            },
            None => WebhookOp::Create {
                stack: stack_ref.clone(),
                send: desired.send,
            },
        });
        let step = self.push(change, Some((operation, Vec::new())));
        let created = existing.is_none().then_some(step).flatten();
        Some(PlannedWebhook { created, ..planned })
    }

    /// A webhook declared `absent: true`: deleted when it exists.
    fn absent_webhook(
        &mut self,
        address: AddressBuf,
        stack_ref: &StackRef,
        existing: Option<&Webhook>,
    ) {
        let Some(live) = existing else {
            self.push(absent_already(address), None);
            return;
        };
        let before = live_view(live, false);
        let salt = new_salt();
        let fingerprint = sealed_fingerprint(live, &salt);
        let operation = Operation::Webhook(WebhookOp::Delete {
            stack: stack_ref.clone(),
            webhook_id: live.id.clone(),
            salt,
        });
        let change = Change {
            address,
            action: Action::Delete,
            reason: "declared `absent: true`".into(),
            fields: diff::deleted(&before),
            before: Some(before),
            after: None,
            fingerprint: Some(fingerprint),
            step: None,
            renamed_from: None,
        };
        self.push(change, Some((operation, Vec::new())));
    }

    /// What the config asks of a webhook against `live`: the view the plan shows and what the
    /// step sends. `None` when a secret it must send is unset (reported at its reference).
    fn desired_webhook(
        &mut self,
        config: &WebhookConfig,
        live: Option<&Webhook>,
    ) -> Option<Desired> {
        let url = config.url.as_ref()?;
        // Unset, a secret is not compared: it is needed only when the step sends it.
        let mut unset: Vec<SecretValue> = Vec::new();
        let url_value = url.value.as_deref();
        if url_value.is_none() {
            unset.push(url.clone());
        }
        let recorded = live.and_then(|w| op::recorded(w.description.as_deref()).1);
        let declared = config.credentials_version.as_ref().map(|v| v.value);
        if let Some(lowered) = lowered(config, recorded) {
            self.error(lowered);
            return None;
        }
        let moved = url_value.is_some_and(|v| live.is_some_and(|w| w.url.as_deref() != Some(v)));
        let rotated = declared.is_some() && declared != recorded;
        // A new service is a new destination: the server drops the entries it kept.
        let reserviced = live.is_some_and(|w| w.service != config.service.value);
        let entries = live.is_none() || moved || rotated || reserviced;
        let salt = new_salt();
        let mut secrets = vec![seal(&salt, "url", url)];
        // Generic webhooks answer their body; the others are sent theirs with every write.
        let body_shown = config.service.value == "generic";
        let mut after = json!({
            "name": config.name.value.as_str(),
            "service": config.service.value.as_str(),
            "url": if moved { SECRET_CHANGED } else { SECRET },
        });
        if let Some(description) = &config.description {
            after["description"] = json!(description.value.as_str());
        }
        if let Some(body) = &config.body {
            if body.value.is_none() {
                unset.push(body.clone());
            }
            secrets.push(seal(&salt, "body", body));
            if body_shown {
                let same = body
                    .value
                    .as_deref()
                    .is_none_or(|value| live.is_none_or(|w| w.body.as_deref() == Some(value)));
                after["body"] = json!(if same { SECRET } else { SECRET_CHANGED });
            }
        }
        if let Some(v) = declared {
            after["credentialsVersion"] = json!(v);
        }
        if entries {
            for (map, names) in sealed_entries(config, &salt, &mut secrets, &mut unset) {
                if live.is_none() {
                    after[map] = json!(names);
                }
            }
        }
        let send = WebhookSend {
            name: config.name.value.to_string(),
            service: config.service.value.to_string(),
            description: op::described(
                config.description.as_ref().map(|d| d.value.as_str()),
                declared,
            ),
            salt,
            secrets,
            entries,
        };
        Some(Desired { after, send, unset })
    }
}

/// The live webhooks the config's one could be: of its service by its name or a `renamedFrom`
/// name; else of another service (the server's PUT takes a new `service`: that webhook is the
/// one whose service the config changes, changed in place, its id kept).
fn found<'l, 'c>(
    live: &'l StackLive,
    config: &'c WebhookConfig,
) -> Vec<(
    &'l Webhook,
    Option<&'c crate::config::model::Located<SmolStr>>,
)> {
    let service = config.service.value.as_str();
    let of_service = |same: bool| {
        move |name: &str| -> Vec<&Webhook> {
            live.webhooks
                .iter()
                .filter(|w| (w.service == service) == same && w.name == name)
                .collect()
        }
    };
    let found = candidates(of_service(true), &config.name.value, &config.renamed_from);
    if found.is_empty() {
        return candidates(of_service(false), &config.name.value, &config.renamed_from);
    }
    found
}

/// A declared webhook's view and what its step sends.
struct Desired {
    after: Value,
    send: WebhookSend,
    /// The secrets it sends whose variables are unset: an error once a step sends them.
    unset: Vec<SecretValue>,
}

/// The change of a live webhook to what the config asks (a no-op when nothing differs).
fn updated(
    address: AddressBuf,
    live: &Webhook,
    config: &WebhookConfig,
    desired: &Desired,
) -> Change {
    let before = live_view(live, config.credentials_version.is_some());
    let fields = diff::diff(&before, &desired.after);
    let renamed = (live.name != config.name.value).then(|| live.name.clone());
    let (action, mut reason) = match (&renamed, fields.is_empty()) {
        (_, true) => (Action::NoOp, "matches the config".to_string()),
        (Some(old), false) => (Action::Update, rename_reason(old, &fields)),
        (None, false) => (Action::Update, diff::reason(&fields)),
    };
    if action == Action::Update && desired.send.entries {
        reason.push_str("; headers and queryParams sent again");
    }
    Change {
        address,
        action,
        reason,
        before: Some(before),
        after: Some(desired.after.clone()),
        fields,
        fingerprint: Some(sealed_fingerprint(live, &desired.send.salt)),
        step: None,
        renamed_from: renamed,
    }
}

/// A live webhook as the plan shows it: its secrets as [`SECRET`], the version recorded in its
/// description as `credentialsVersion` (compared only when the config declares one).
pub(crate) fn live_view(webhook: &Webhook, version: bool) -> Value {
    let (description, recorded) = op::recorded(webhook.description.as_deref());
    let mut view = json!({
        "name": webhook.name,
        "service": webhook.service,
        "url": SECRET,
    });
    if let Some(description) = description {
        view["description"] = json!(description);
    }
    if webhook.body.is_some() && webhook.service == "generic" {
        view["body"] = json!(SECRET);
    }
    if let Some(v) = recorded.filter(|_| version) {
        view["credentialsVersion"] = json!(v);
    }
    view
}

/// Two live webhooks the config's one could be (its name and a `renamedFrom` name).
fn ambiguous_webhook(
    stack: &StackConfig,
    config: &WebhookConfig,
    found: &[(&Webhook, Option<&crate::config::model::Located<SmolStr>>)],
) -> Diagnostic {
    let listed: Vec<(String, String, Option<crate::diagnostic::Span>)> = found
        .iter()
        .map(|(w, old)| (w.name.clone(), w.id.clone(), old.map(|o| o.span)))
        .collect();
    let what = format!("webhook `{}.{}`", stack.key.value, config.key.value);
    ambiguous("webhook", &what, &config.name, &listed)
}

/// A `credentialsVersion` below the one recorded on the live webhook.
fn lowered(config: &WebhookConfig, recorded: Option<i64>) -> Option<Diagnostic> {
    let (v, r) = (config.credentials_version.as_ref()?, recorded?);
    (v.value < r).then(|| {
        Diagnostic::error(
            Code::SemanticWebhook,
            format!(
                "credentialsVersion {} is below the version {r} last sent to this webhook",
                v.value
            ),
            Some(v.span),
        )
        .with_label("lowered")
        .with_help(format!(
            "write {r} to keep the entries sent, or {} to send them again",
            r + 1
        ))
    })
}

/// Seals the `headers` and `queryParams` a step sends (each unset one noted); the names of
/// each map's entries.
fn sealed_entries(
    config: &WebhookConfig,
    salt: &str,
    secrets: &mut Vec<SealedCredential>,
    unset: &mut Vec<SecretValue>,
) -> Vec<(&'static str, Vec<String>)> {
    let maps = [
        ("headers", &config.headers),
        ("queryParams", &config.query_params),
    ];
    let mut names = Vec::new();
    for (map, written) in maps {
        let Some(written) = written else { continue };
        let mut these = Vec::new();
        for (name, secret) in written {
            if secret.value.is_none() {
                unset.push(secret.clone());
            }
            secrets.push(seal(salt, &format!("{map}.{name}"), secret));
            these.push(name.to_string());
        }
        names.push((map, these));
    }
    names
}

fn seal(salt: &str, path: &str, secret: &SecretValue) -> SealedCredential {
    SealedCredential {
        path: path.to_string(),
        reference: secret.reference.clone(),
        fingerprint: fingerprint_of(salt, secret.value.as_deref().unwrap_or_default()),
    }
}

fn unset_secret(secret: &SecretValue) -> Diagnostic {
    Diagnostic::error(
        Code::ConfigEnvUnset,
        format!(
            "`{}` is not set, and this plan writes the webhook, which sends it",
            secret.reference
        ),
        Some(secret.span),
    )
    .with_label("unset here")
    .with_help("export it where the plan is made and applied")
}
