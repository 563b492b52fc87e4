//! Data sources of a stack on the observability API: each declared one created, changed in
//! place (found by its name, or a `renamedFrom` name; a `PUT` replaces the whole source), or
//! deleted when `absent: true`; a source the config does not declare is never touched. What
//! the steps send is in `op`; the form the server stores a source in, which both sides are
//! compared in, in `live`.
//!
//! A reference to a source by key or name (a tile's `source:`, a source's `traceSource:`) is
//! resolved here, by [`Builder::source_id`], for every kind that names one.

mod check;
pub(crate) mod live;
pub(crate) mod op;

use std::collections::BTreeMap;

use serde_json::Value;
use smol_str::SmolStr;

use crate::address::AddressBuf;
use crate::api::wire::{Source, SourceRequest};
use crate::config::model::{Located, SourceConfig, StackConfig, StackTarget};
use crate::config::source_rules::SOURCE_REFERENCES;
use crate::diagnostic::{Code, Diagnostic};
use crate::live::StackLive;
use crate::plan::address::Address;
use crate::plan::build::builder::{
    Builder, PlannedSource, absent_already, ambiguous, candidates, rename_reason,
};
use crate::plan::build::names;
use crate::plan::diff;
use crate::plan::kind::Live;
use crate::plan::model::{Action, Change, Operation, StackRef};
use op::{SourceOp, placeholder};

/// What a connection name refers to.
const CONNECTION: names::Kind = names::Kind {
    noun: "connection",
    unknown: Code::PlanUnknownSource,
    id_key: "connection",
};

impl Builder<'_> {
    /// Plans the stack's declared sources, before its dashboards, keeping them by key and by
    /// name for the references to them ([`Builder::source_id`]).
    pub(crate) fn plan_sources(
        &mut self,
        stack: &StackConfig,
        stack_ref: &StackRef,
        live: &StackLive,
    ) {
        self.sources = BTreeMap::new();
        // The managed stack's are refused at validate (`semantic::source`).
        if !matches!(stack.target, StackTarget::Observability) {
            return;
        }
        for config in stack.sources.values().filter(|s| !s.absent) {
            let p = self
                .source(stack, stack_ref, live, config)
                .unwrap_or_else(|| PlannedSource {
                    id: None,
                    created: None,
                    name: config.name.value.to_string(),
                });
            self.sources.insert(config.name.value.clone(), p.clone());
            self.sources.insert(config.key.value.clone(), p);
        }
    }

    /// Plans the stack's sources declared `absent: true`, after the steps planned since step
    /// `from` (the dashboards and alerts that may move off them).
    pub(crate) fn absent_sources(
        &mut self,
        stack: &StackConfig,
        stack_ref: &StackRef,
        live: &StackLive,
        from: usize,
    ) {
        if !matches!(stack.target, StackTarget::Observability) {
            return;
        }
        let before: Vec<usize> = self.plan.steps[from.min(self.plan.steps.len())..]
            .iter()
            .map(|s| s.id)
            .collect();
        for config in stack.sources.values().filter(|s| s.absent) {
            let first = self.plan.steps.len();
            self.source(stack, stack_ref, live, config);
            for step in &mut self.plan.steps[first..] {
                step.depends_on.extend(&before);
            }
        }
    }

    /// The id a reference to a source by key or name sends, and the step creating it when
    /// this plan does: a source the stack declares first (by key, then name), else the one
    /// live source of that name; an error at the name otherwise.
    pub(crate) fn source_id(
        &self,
        listed: &[Source],
        name: &Located<SmolStr>,
    ) -> Result<(String, Option<usize>), Box<Diagnostic>> {
        if let Some(declared) = self.sources.get(&name.value) {
            return Ok(match &declared.id {
                Some(id) => (id.clone(), None),
                None => (placeholder(&declared.name), declared.created),
            });
        }
        names::resolve(&names::SOURCE, &names::sources(listed), name).map(|id| (id, None))
    }

    fn source(
        &mut self,
        stack: &StackConfig,
        stack_ref: &StackRef,
        live: &StackLive,
        config: &SourceConfig,
    ) -> Option<PlannedSource> {
        let by_name = |name: &str| -> Vec<&Source> {
            live.sources.iter().filter(|s| s.name == name).collect()
        };
        let found = candidates(by_name, &config.name.value, &config.renamed_from);
        if found.len() > 1 {
            let listed: Vec<(String, String, Option<crate::diagnostic::Span>)> = found
                .iter()
                .map(|(s, old)| (s.name.clone(), s.id.clone(), old.map(|o| o.span)))
                .collect();
            let what = format!("source `{}.{}`", stack.key.value, config.key.value);
            self.error(ambiguous("source", &what, &config.name, &listed));
            return None;
        }
        let existing = found.first().map(|(s, _)| *s);
        let address: AddressBuf = Address::Source {
            stack: &stack.key.value,
            source: &config.key.value,
        }
        .into();
        if config.absent {
            self.absent_source(address, stack_ref, existing);
            return None;
        }
        let (body, waits) = self.desired_source(live, config)?;
        let after = live::stored(&body);
        let planned = PlannedSource {
            id: existing.map(|s| s.id.clone()),
            created: None,
            name: config.name.value.to_string(),
        };
        let change = match existing {
            Some(live) => updated(address, live, &after),
            None => Change {
                address,
                action: Action::Create,
                reason: "no source of this name in the team".into(),
                before: None,
                fields: diff::created(&after),
                after: Some(after),
                fingerprint: None,
                step: None,
                renamed_from: None,
            },
        };
        if change.action == Action::NoOp {
            self.push(change, None);
            return Some(planned);
        }
        let operation = Operation::Source(match existing {
            Some(live) => SourceOp::Update {
                stack: stack_ref.clone(),
                source_id: live.id.clone(),
                body,
            },
            None => SourceOp::Create {
                stack: stack_ref.clone(),
                body,
            },
        });
        let step = self.push(change, Some((operation, waits)));
        let created = existing.is_none().then_some(step).flatten();
        Some(PlannedSource { created, ..planned })
    }

    /// A source declared `absent: true`: deleted when it exists.
    fn absent_source(
        &mut self,
        address: AddressBuf,
        stack_ref: &StackRef,
        existing: Option<&Source>,
    ) {
        let Some(live) = existing else {
            self.push(absent_already(address), None);
            return;
        };
        let before = live::stored(&live.members());
        let operation = Operation::Source(SourceOp::Delete {
            stack: stack_ref.clone(),
            source_id: live.id.clone(),
        });
        let change = Change {
            address,
            action: Action::Delete,
            reason: "declared `absent: true`".into(),
            fields: diff::deleted(&before),
            before: Some(before),
            after: None,
            fingerprint: Some(live.fingerprint()),
            step: None,
            renamed_from: None,
        };
        self.push(change, Some((operation, Vec::new())));
    }

    /// The source the config asks for, as sent: its connection and the sources it names
    /// resolved to ids; the steps creating those. `None` when a reference resolves to nothing
    /// or to two objects (each reported at its line).
    fn desired_source(
        &mut self,
        live: &StackLive,
        config: &SourceConfig,
    ) -> Option<(SourceRequest, Vec<usize>)> {
        let mut body = SourceRequest::new();
        body.insert("name".into(), Value::from(config.name.value.as_str()));
        if let Some(kind) = &config.kind {
            body.insert("kind".into(), Value::from(kind.value.as_str()));
        }
        let mut failed = false;
        if let Some(connection) = &config.connection {
            match connection_id(&live.connections, connection) {
                Ok(id) => {
                    body.insert("connection".into(), Value::from(id));
                }
                Err(diagnostic) => {
                    self.error(*diagnostic);
                    failed = true;
                }
            }
        }
        let mut waits = Vec::new();
        for (member, value) in &config.members {
            let reference = SOURCE_REFERENCES.iter().find(|(r, _)| r == member);
            let (Some((_, id_member)), Value::String(name)) = (reference, &value.value) else {
                body.insert(member.to_string(), value.value.clone());
                continue;
            };
            match self.source_id(&live.sources, &Located::new(name.into(), value.span)) {
                Ok((id, created)) => {
                    body.insert((*id_member).to_string(), Value::from(id));
                    waits.extend(created);
                }
                Err(diagnostic) => {
                    self.error(*diagnostic);
                    failed = true;
                }
            }
        }
        (!failed).then_some((body, waits))
    }

    /// Makes each step since `from` that sends a placeholder of a source this plan creates
    /// wait for that source's step (a dashboard whose tile names a declared source).
    pub(crate) fn wait_for_sources(&mut self, from: usize) {
        let created: Vec<(String, usize)> = self
            .sources
            .values()
            .filter_map(|p| Some((placeholder(&p.name), p.created?)))
            .collect();
        if created.is_empty() {
            return;
        }
        for step in self.plan.steps.iter_mut().skip(from) {
            let Some((_, body)) = step.operation.kind().dashboard_sent() else {
                continue;
            };
            let sent = serde_json::to_value(body).unwrap_or_default();
            for (text, id) in &created {
                if holds(&sent, text) && !step.depends_on.contains(id) {
                    step.depends_on.push(*id);
                }
            }
        }
    }
}

/// Whether `value` holds the string `text` anywhere.
fn holds(value: &Value, text: &str) -> bool {
    match value {
        Value::String(s) => s == text,
        Value::Array(items) => items.iter().any(|v| holds(v, text)),
        Value::Object(map) => map.values().any(|v| holds(v, text)),
        _ => false,
    }
}

/// The id of the connection a source names by id or name.
fn connection_id(
    listed: &[crate::api::wire::Connection],
    written: &Located<SmolStr>,
) -> Result<String, Box<Diagnostic>> {
    if listed.iter().any(|c| c.id == written.value) {
        return Ok(written.value.to_string());
    }
    let named: Vec<names::Named<'_>> = listed
        .iter()
        .map(|c| names::Named {
            id: &c.id,
            name: &c.name,
            detail: None,
        })
        .collect();
    names::resolve(&CONNECTION, &named, written)
}

/// The change of a live source to what the config asks (a no-op when nothing differs).
fn updated(address: AddressBuf, live: &Source, after: &Value) -> Change {
    let before = live::stored(&live.members());
    let fields = diff::diff(&before, after);
    let renamed = after
        .get("name")
        .and_then(Value::as_str)
        .filter(|name| *name != live.name)
        .map(|_| live.name.clone());
    let (action, reason) = match (&renamed, fields.is_empty()) {
        (_, true) => (Action::NoOp, "matches the config".to_string()),
        (Some(old), false) => (Action::Update, rename_reason(old, &fields)),
        (None, false) => (Action::Update, diff::reason(&fields)),
    };
    Change {
        address,
        action,
        reason,
        before: Some(before),
        after: Some(after.clone()),
        fields,
        fingerprint: Some(live.fingerprint()),
        step: None,
        renamed_from: renamed,
    }
}
