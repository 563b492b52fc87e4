//! Saved searches of a stack on the observability API: each declared one created, changed in
//! place (found by its name, or a `renamedFrom` name, its id kept), or deleted when `absent:
//! true`; and what those steps send (`op`). Compared in the form the server stores
//! (`live::normalized`): every member the config leaves out is the server's default, so an
//! applied saved search plans empty.

mod check;
pub(crate) mod live;
pub(crate) mod op;

use serde_json::Value;

use crate::address::AddressBuf;
use crate::api::wire::{SavedSearch, SavedSearchRequest};
use crate::config::model::{SavedSearchConfig, SourceRef, StackConfig, StackTarget};
use crate::live::StackLive;
use crate::plan::address::Address;
use crate::plan::build::builder::{Builder, absent_already, ambiguous, candidates, rename_reason};
use crate::plan::build::series::resolve_source;
use crate::plan::diff;
use crate::plan::kind::Live;
use crate::plan::model::{Action, Change, Operation, StackRef};
use op::SavedSearchOp;

impl Builder<'_> {
    /// Plans the stack's declared saved searches (its alerts may watch them, so they go
    /// first); those declared `absent: true` are deleted after the stack's alert steps
    /// planned since step `from` ([`Builder::absent_saved_searches`]).
    pub(crate) fn plan_saved_searches(
        &mut self,
        stack: &StackConfig,
        stack_ref: &StackRef,
        live: &StackLive,
    ) {
        if !matches!(stack.target, StackTarget::Observability) {
            return;
        }
        for config in stack.saved_searches.values().filter(|s| !s.absent) {
            self.saved_search(stack, stack_ref, live, config);
        }
    }

    /// Plans the stack's saved searches declared `absent: true`, after its alerts (one moving
    /// off a saved search goes first).
    pub(crate) fn absent_saved_searches(
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
            for config in stack.saved_searches.values().filter(|s| s.absent) {
                builder.saved_search(stack, stack_ref, live, config);
            }
        });
    }

    fn saved_search(
        &mut self,
        stack: &StackConfig,
        stack_ref: &StackRef,
        live: &StackLive,
        config: &SavedSearchConfig,
    ) -> Option<usize> {
        let by_name = |name: &str| -> Vec<&SavedSearch> {
            live.saved_searches
                .iter()
                .filter(|s| s.name == name.trim())
                .collect()
        };
        let found = candidates(by_name, &config.name.value, &config.renamed_from);
        if found.len() > 1 {
            let listed: Vec<(String, String, Option<crate::diagnostic::Span>)> = found
                .iter()
                .map(|(s, old)| (s.name.clone(), s.id.clone(), old.map(|o| o.span)))
                .collect();
            let what = format!("saved search `{}.{}`", stack.key.value, config.key.value);
            self.error(ambiguous("saved search", &what, &config.name, &listed));
            return None;
        }
        let existing = found.first().map(|(s, _)| *s);
        let address: AddressBuf = Address::SavedSearch {
            stack: &stack.key.value,
            search: &config.key.value,
        }
        .into();
        if config.absent {
            return self.absent_saved_search(address, stack_ref, existing);
        }
        let body = self.saved_search_body(live, config)?;
        let after = live::sent(&body);
        let change = match existing {
            Some(live) => updated(address, live, &after),
            None => Change {
                address,
                action: Action::Create,
                reason: "no saved search with this name in the team".into(),
                before: None,
                fields: diff::created(&after),
                after: Some(after),
                fingerprint: None,
                step: None,
                renamed_from: None,
            },
        };
        if change.action == Action::NoOp {
            return self.push(change, None);
        }
        let operation = Operation::SavedSearch(match existing {
            Some(live) => SavedSearchOp::Update {
                stack: stack_ref.clone(),
                saved_search_id: live.id.clone(),
                body,
            },
            None => SavedSearchOp::Create {
                stack: stack_ref.clone(),
                body,
            },
        });
        self.push(change, Some((operation, Vec::new())))
    }

    /// A saved search declared `absent: true`: deleted when it exists.
    fn absent_saved_search(
        &mut self,
        address: AddressBuf,
        stack_ref: &StackRef,
        existing: Option<&SavedSearch>,
    ) -> Option<usize> {
        let Some(live) = existing else {
            return self.push(absent_already(address), None);
        };
        let before = live::normalized(live);
        let operation = Operation::SavedSearch(SavedSearchOp::Delete {
            stack: stack_ref.clone(),
            saved_search_id: live.id.clone(),
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
        self.push(change, Some((operation, Vec::new())))
    }

    /// The body the config's saved search is sent as: its source resolved to an id, each
    /// member left out as the server's default. `None` when its source resolves to nothing
    /// or to two (reported at the line).
    fn saved_search_body(
        &mut self,
        live: &StackLive,
        config: &SavedSearchConfig,
    ) -> Option<SavedSearchRequest> {
        let source_id = match config.source.as_ref()? {
            SourceRef::Id(id) => id.value.to_string(),
            SourceRef::Name(name) => match resolve_source(&live.sources, name) {
                Ok(id) => id,
                Err(diagnostic) => {
                    self.error(*diagnostic);
                    return None;
                }
            },
        };
        let text = |v: &Option<crate::config::model::Located<smol_str::SmolStr>>| {
            v.as_ref().map(|v| v.value.to_string()).unwrap_or_default()
        };
        Some(SavedSearchRequest {
            name: config.name.value.trim().to_string(),
            source_id,
            select: text(&config.select),
            where_: text(&config.where_),
            where_language: config
                .where_language
                .as_ref()
                .map_or_else(|| live::LUCENE.to_string(), |l| l.value.to_string()),
            order_by: text(&config.order_by),
            tags: config.tags.iter().map(|t| t.value.to_string()).collect(),
            filters: config
                .filters
                .iter()
                .map(|f| serde_json::json!({"type": "sql", "condition": f.value.as_str()}))
                .collect(),
        })
    }
}

/// The change of a live saved search to what the config asks (a no-op when nothing differs).
fn updated(address: AddressBuf, live: &SavedSearch, after: &Value) -> Change {
    let before = live::normalized(live);
    let fields = diff::diff(&before, after);
    let name = after
        .get("name")
        .and_then(Value::as_str)
        .unwrap_or_default();
    let renamed = (live.name != name).then(|| live.name.clone());
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
