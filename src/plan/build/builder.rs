//! The builder every kind plans through, and what the kinds share.

use crate::address::AddressBuf;
use serde_json::Value;
use smol_str::SmolStr;

use crate::config::model::{self};
use crate::diagnostic::{Code, Diagnostic, Span};
use crate::live::LiveState;
use crate::plan::diff::{self};
use crate::plan::model::{Action, Change, FieldChange, Fingerprint, Operation, Plan, Step};

pub(crate) struct Builder<'a> {
    pub(crate) live: &'a LiveState,
    pub(crate) now: Option<jiff::Timestamp>,
    /// Whether copies of a managed name are deleted ([`super::dedupe`]).
    pub(crate) dedupe: bool,
    /// Whether no-op changes keep their values ([`super::PlanOptions::drop_unchanged_values`]).
    pub(crate) drop_unchanged_values: bool,
    pub(crate) plan: Plan,
    pub(crate) diagnostics: Vec<Diagnostic>,
    /// The stack being planned's declared webhooks, by key and by name, for its alerts'
    /// `webhook:` references (`plan/kinds/webhook.rs`).
    pub(crate) webhooks: std::collections::BTreeMap<SmolStr, PlannedWebhook>,
    /// The service being planned's declared reverse private endpoints, by key, for its kafka
    /// pipes' `reversePrivateEndpoints` (`plan/kinds/reverse_endpoint.rs`).
    pub(crate) reverse_endpoints: std::collections::BTreeMap<String, PlannedEndpoint>,
}

/// A declared endpoint as planned, for the pipes that name it by key: its live id (or, when
/// this plan creates it, a placeholder apply fills in) and the step that creates it.
#[derive(Debug, Clone)]
pub(crate) struct PlannedEndpoint {
    /// The id a pipe sends.
    pub(crate) id: String,
    /// The step that creates it.
    pub(crate) created: Option<usize>,
}

/// A declared webhook as planned, for the alerts that name it by key or name: its live id, or
/// the step that creates it.
#[derive(Debug, Clone)]
pub(crate) struct PlannedWebhook {
    /// The live webhook's id (kept by an update).
    pub(crate) id: Option<String>,
    /// The step that creates it.
    pub(crate) created: Option<usize>,
    /// Its service.
    pub(crate) service: String,
    /// Its name.
    pub(crate) name: String,
}

/// The live object a config object is: found by its current name or one of its `renamedFrom`
/// names. Each candidate comes with the `renamedFrom` entry that found it (`None`: its name).
pub(crate) fn candidates<'l, 'c, T>(
    by_name: impl Fn(&str) -> Vec<&'l T>,
    name: &str,
    renamed_from: &'c [model::Located<SmolStr>],
) -> Vec<(&'l T, Option<&'c model::Located<SmolStr>>)> {
    let mut found: Vec<(&'l T, Option<&'c model::Located<SmolStr>>)> =
        by_name(name).into_iter().map(|o| (o, None)).collect();
    for old in renamed_from {
        found.extend(by_name(&old.value).into_iter().map(|o| (o, Some(old))));
    }
    found
}

/// An object the config declares `absent` that is not there: nothing to do.
pub(crate) fn absent_already(address: crate::address::AddressBuf) -> Change {
    Change {
        address,
        action: Action::NoOp,
        reason: "absent, as the config says".into(),
        before: None,
        after: None,
        fields: Vec::new(),
        fingerprint: None,
        step: None,
        renamed_from: None,
    }
}

/// Two or more live objects could be the one config object: an error at the `renamedFrom`
/// entry that found the extra one (else at the name), never a guess.
pub(crate) fn ambiguous(
    kind: &str,
    what: &str,
    name: &model::Located<SmolStr>,
    found: &[(String, String, Option<Span>)],
) -> Diagnostic {
    let listed: Vec<String> = found
        .iter()
        .map(|(name, id, _)| format!("\"{name}\" (id {id})"))
        .collect();
    let at = found
        .iter()
        .find_map(|(_, _, span)| *span)
        .unwrap_or(name.span);
    let mut diagnostic = Diagnostic::error(
        Code::PlanAmbiguousRename,
        format!(
            "{what} could be any of {} live {kind}s: {}; converge does not guess which one it is",
            found.len(),
            listed.join(", ")
        ),
        Some(at),
    )
    .with_label("finds more than one live object")
    .with_help(if at == name.span {
        format!("delete or rename all but one of those {kind}s in the stack, then plan again")
    } else {
        format!(
            "delete or rename the live {kind} that is not this one, or remove the `renamedFrom` entry that finds it, then plan again"
        )
    });
    if at != name.span {
        diagnostic = diagnostic.with_related(name.span, "the current name");
    }
    diagnostic
}

/// What to do about a name the stack holds more than once (`ids` in the server's order, oldest
/// first): which copy to keep, the one concurrent applies keep when they race, and which to go.
pub(crate) fn copies_help(ids: &[&str]) -> String {
    match ids.split_first() {
        Some((oldest, others)) if !others.is_empty() => format!(
            "keep the oldest (id {oldest}), the copy converge's own runs keep when they race: \
             delete or rename all but one of them in the stack (ids {}), then plan again",
            others.join(", ")
        ),
        _ => "delete or rename all but one of them in the stack, then plan again".to_string(),
    }
}

/// The reason of a change that renames its object: `renamed from "Old"`, and what else differs.
pub(crate) fn rename_reason(old: &str, fields: &[FieldChange]) -> String {
    let others: Vec<FieldChange> = fields
        .iter()
        .filter(|f| f.path != "name")
        .cloned()
        .collect();
    if others.is_empty() {
        format!("renamed from {old:?}")
    } else {
        format!("renamed from {old:?}; {}", diff::reason(&others))
    }
}

impl Builder<'_> {
    pub(crate) fn push(
        &mut self,
        mut change: Change,
        step: Option<(Operation, Vec<usize>)>,
    ) -> Option<usize> {
        let id = step.map(|(operation, depends_on)| {
            let id = self.plan.steps.len();
            self.plan.steps.push(Step {
                id,
                address: change.address.clone(),
                depends_on,
                fingerprint: change.fingerprint,
                operation,
            });
            id
        });
        change.step = id;
        if self.drop_unchanged_values && change.action == Action::NoOp {
            // Dropped here, one object at a time, so the whole plan never holds them.
            change.before = None;
            change.after = None;
        }
        self.plan.changes.push(change);
        id
    }

    pub(crate) fn error(&mut self, diagnostic: Diagnostic) {
        self.diagnostics.push(diagnostic);
    }

    /// Warns at the config line when the server stores a name other than as written (some
    /// servers collapse runs of white space): converge matches the object as stored, and would
    /// otherwise create it again on every apply.
    pub(crate) fn stored_name(&mut self, kind: &str, config: &model::Located<SmolStr>, live: &str) {
        if config.value == live {
            return;
        }
        self.diagnostics.push(
            Diagnostic::warning(
                Code::PlanStoredName,
                format!(
                    "the server stores this name as {live:?}, not as written ({:?}); converge \
                     matches the {kind} as the server stores it",
                    config.value
                ),
                Some(config.span),
            )
            .with_label("stored differently")
            .with_help(format!("write the name as the server stores it: {live:?}")),
        );
    }

    /// A warning when an object is created while an owned object like it (a dashboard sharing
    /// a tile name, an alert on the same tile) that the config no longer names is deleted or
    /// left behind: it may be a rename that forgot `renamedFrom`.
    pub(crate) fn maybe_renamed(
        &mut self,
        kind: &str,
        key: &str,
        name: &model::Located<SmolStr>,
        left_behind: &[&str],
    ) {
        if left_behind.is_empty() {
            return;
        }
        let names: Vec<String> = left_behind.iter().map(|n| format!("{n:?}")).collect();
        self.diagnostics.push(
            Diagnostic::warning(
                Code::PlanMaybeRenamed,
                format!(
                    "{kind} `{key}` is created as a new {kind}, while {} that converge owns and the config no longer names is left behind (or pruned)",
                    names.join(", ")
                ),
                Some(name.span),
            )
            .with_label("created as a new object")
            .with_help(format!(
                "if this {kind} was renamed, add `renamedFrom: [{}]` under it: it is then updated in place and keeps its id",
                left_behind.first().copied().unwrap_or_default()
            )),
        );
    }
}

/// The change for an object that exists live: an update when any managed field differs, else
/// a no-op; either way it records the live object's fingerprint.
pub(crate) fn compared(
    address: AddressBuf,
    before: Value,
    after: Value,
    fields: Vec<FieldChange>,
    fingerprint: Fingerprint,
) -> Change {
    Change {
        address,
        action: if fields.is_empty() {
            Action::NoOp
        } else {
            Action::Update
        },
        reason: diff::reason(&fields),
        before: Some(before),
        after: Some(after),
        fingerprint: Some(fingerprint),
        fields,
        step: None,
        renamed_from: None,
    }
}
