//! A service's own settings: each member the config writes (`ipAccessList`, `tags`,
//! `releaseChannel`, `endpoints`, `state`) compared in the form the server stores it
//! ([`super::live::service_member`]) and sent as its own step at `service.<key>.<member>`, so
//! `--only service.<key>.ipAccessList` takes one. The IP access list and the tags go as the
//! document's `{add, remove}` deltas of what differs, never the whole list.

use serde_json::{Map, Value, json};

use crate::address::Member;
use crate::api::wire::Service;
use crate::config::model::{ServiceConfig, ServiceSettings};
use crate::diagnostic::{Code, Diagnostic};
use crate::plan::address::Address;
use crate::plan::build::builder::{Builder, compared};
use crate::plan::diff::diff;
use crate::plan::fingerprint;
use crate::plan::model::{Action, Change, Operation};

use super::op::{ServiceOp, member_body, state_body};

impl Builder<'_> {
    /// Plans the members of a service's settings that go through `PATCH /services/{id}`.
    pub(super) fn service_settings(&mut self, config: &ServiceConfig, live: &Service) {
        let settings = &config.settings;
        if let Some(problem) = release_channel_refused(&config.key.value, settings, live) {
            self.error(problem);
            return;
        }
        for member in Member::ALL {
            if member == Member::State {
                continue;
            }
            let Some(after) = desired(settings, member) else {
                continue;
            };
            let Some((mut change, fields)) = member_change(&config.key.value, live, member, after)
            else {
                continue;
            };
            if let Some(fields) = &fields {
                change.reason = reason(member, fields).unwrap_or(change.reason);
            }
            let Some(fields) = fields else {
                self.push(change, None);
                continue;
            };
            let operation = ServiceOp::Update {
                service_id: live.id.clone(),
                body: member_body(
                    member,
                    fields
                        .iter()
                        .map(|(p, b, a)| (p.as_str(), b.as_ref(), a.as_ref())),
                ),
            };
            self.push(change, Some((Operation::Service(operation), Vec::new())));
        }
    }

    /// Plans a service's `state:`; the step waits for `after` (its scaling step, when one is
    /// planned). Returns the step, when one is planned.
    pub(super) fn service_state(
        &mut self,
        config: &ServiceConfig,
        live: &Service,
        after: Vec<usize>,
    ) -> Option<usize> {
        let wanted = desired(&config.settings, Member::State)?;
        let (mut change, fields) = member_change(&config.key.value, live, Member::State, wanted)?;
        if fields.is_none() {
            self.push(change, None);
            return None;
        }
        let stop = change
            .after
            .as_ref()
            .and_then(|a| a.get("state"))
            .and_then(Value::as_str)
            == Some("stopped");
        change.reason = if stop {
            let pipes = self.live.pipes.get(&live.id).map_or(0, Vec::len);
            let which = match pipes {
                0 => "its pipes".to_string(),
                1 => "its pipe".to_string(),
                n => format!("its {n} pipes"),
            };
            format!(
                "state: running -> stopped: stopping the service idles ingestion of {which} until it starts again"
            )
        } else {
            "state: stopped -> running: the service is started".to_string()
        };
        let body = state_body(if stop { "stopped" } else { "running" });
        let operation = ServiceOp::State {
            service_id: live.id.clone(),
            body,
        };
        self.push(change, Some((Operation::Service(operation), after)))
    }
}

/// The change of one member, and its fields as `(path, before, after)` when it differs
/// (`None` for a no-op).
#[allow(clippy::type_complexity)]
fn member_change(
    key: &str,
    live: &Service,
    member: Member,
    after: Value,
) -> Option<(Change, Option<Vec<(String, Option<Value>, Option<Value>)>>)> {
    let before = super::live::service_member(live, member);
    let fields = diff(&before, &after);
    let change = compared(
        Address::ServiceMember {
            service: key,
            member,
        }
        .into(),
        before.clone(),
        after,
        fields,
        fingerprint::of_value(&before),
    );
    if change.action == Action::NoOp {
        return Some((change, None));
    }
    let fields = change
        .fields
        .iter()
        .map(|f| (f.path.clone(), f.before.clone(), f.after.clone()))
        .collect();
    Some((change, Some(fields)))
}

/// The reason of a change of the IP access list or the tags: how many entries are added,
/// changed and removed (`ipAccessList: 1 entry added, 1 changed`); `None` for the others.
fn reason(member: Member, fields: &[(String, Option<Value>, Option<Value>)]) -> Option<String> {
    let (one, many) = match member {
        Member::IpAccessList => ("entry", "entries"),
        Member::Tags => ("tag", "tags"),
        Member::Name | Member::ReleaseChannel | Member::Endpoints | Member::State => return None,
    };
    let count = |wanted: fn(&Option<Value>, &Option<Value>) -> bool| {
        fields.iter().filter(|(_, b, a)| wanted(b, a)).count()
    };
    let counts = [
        (count(|b, a| b.is_none() && a.is_some()), "added"),
        (count(|b, a| b.is_some() && a.is_some()), "changed"),
        (count(|b, a| b.is_some() && a.is_none()), "removed"),
    ];
    let parts: Vec<String> = counts
        .iter()
        .filter(|(n, _)| *n > 0)
        .enumerate()
        .map(|(i, (n, what))| match (i, *n) {
            (0, 1) => format!("1 {one} {what}"),
            (0, n) => format!("{n} {many} {what}"),
            (_, n) => format!("{n} {what}"),
        })
        .collect();
    Some(format!("{}: {}", member.as_str(), parts.join(", ")))
}

/// What the config asks of one member, in the form [`super::live::service_member`] writes the
/// live one; `None` when the config does not write it.
fn desired(settings: &ServiceSettings, member: Member) -> Option<Value> {
    let value = match member {
        Member::Name => Value::from(settings.name.as_ref()?.value.as_str()),
        Member::IpAccessList => {
            let list = settings.ip_access_list.as_ref()?;
            let entries: Map<String, Value> = list
                .value
                .iter()
                .map(|e| (e.source.value.clone(), Value::from(e.description.as_str())))
                .collect();
            Value::Object(entries)
        }
        Member::Tags => {
            let tags = settings.tags.as_ref()?;
            let tags: Map<String, Value> = tags
                .value
                .iter()
                .map(|t| (t.key.value.clone(), Value::from(t.value.value.as_str())))
                .collect();
            Value::Object(tags)
        }
        Member::ReleaseChannel => Value::from(settings.release_channel.as_ref()?.value.as_str()),
        Member::Endpoints => json!({ "mysql": settings.mysql_endpoint.as_ref()?.value }),
        Member::State => Value::from(settings.state.as_ref()?.value.as_str()),
    };
    Some(json!({ member.as_str(): value }))
}

/// A release channel other than `default` on a service whose tier says it is not a
/// production service (the document: "only available for production services").
fn release_channel_refused(
    key: &str,
    settings: &ServiceSettings,
    live: &Service,
) -> Option<Diagnostic> {
    let channel = settings.release_channel.as_ref()?;
    let tier = live.tier.as_deref()?;
    if channel.value == "default" || tier == "production" {
        return None;
    }
    Some(
        Diagnostic::error(
            Code::PlanReleaseChannel,
            format!(
                "service `{key}` is not a production service (tier {tier}), which only has the default release channel"
            ),
            Some(channel.span),
        )
        .with_label("production services only")
        .with_help("write releaseChannel: default, or remove it"),
    )
}
