//! The plan's types: what a plan holds, what `--out` saves and `--format json` prints.
//! Everything in `plan/` builds, checks or renders these; none of it is needed to read them.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::checks::CheckResult;
pub use super::fingerprint::Fingerprint;
use super::glob;
use super::kind::Kind;
pub use super::target::{AlertTarget, StackRef, StackTarget};
use super::target::{Effect, Key, Name, ScalingWrite, Target};
pub use crate::address::AddressBuf;

/// What a change does to its object.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Action {
    /// The object does not exist and will be created.
    Create,
    /// The object exists and some managed field differs.
    Update,
    /// The object exists and must not (or is no longer in the config and prune is on).
    Delete,
    /// The object already matches the config.
    NoOp,
    /// The object exists, and a declared field the server cannot change on it forces it to
    /// be deleted and created again (a destroy: it needs `--allow-destroy`).
    Replace,
}

impl Action {
    /// The word used in output (`create`, `update`, `delete`, `no-op`).
    pub(crate) fn as_str(self) -> &'static str {
        match self {
            Action::Create => "create",
            Action::Update => "update",
            Action::Delete => "delete",
            Action::NoOp => "no-op",
            Action::Replace => "replace",
        }
    }

    /// Whether it removes the live object (listed with the destroys, needs `--allow-destroy`).
    pub(crate) fn destroys(self) -> bool {
        matches!(self, Action::Delete | Action::Replace)
    }

    /// The one-character marker that carries the action without color.
    pub(crate) fn marker(self) -> &'static str {
        match self {
            Action::Create => "+",
            Action::Update => "~",
            Action::Delete => "-",
            Action::NoOp => " ",
            Action::Replace => "-/+",
        }
    }
}

/// One field that differs: a path inside the normalized object and its two values.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct FieldChange {
    /// Path such as `numReplicas` or `tiles[Requests].series[0].aggFn`.
    pub path: String,
    /// The live value; `None` when the field is absent live.
    pub before: Option<Value>,
    /// The desired value; `None` when the field goes away.
    pub after: Option<Value>,
}

/// The plan for one address.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Change {
    /// e.g. `service.analytics.scaling`, `dashboard.prod.api-health`.
    pub address: AddressBuf,
    /// Create, update, delete or no-op.
    pub action: Action,
    /// One line saying why, e.g. `numReplicas differs`.
    pub reason: String,
    /// The live object, normalized (managed fields only); `None` for creates.
    pub before: Option<Value>,
    /// The desired object, normalized; `None` for deletes.
    pub after: Option<Value>,
    /// Field-level differences (empty for no-ops).
    pub fields: Vec<FieldChange>,
    /// Fingerprint of the live object the change was computed from; `None` for creates.
    pub fingerprint: Option<Fingerprint>,
    /// The step that carries the change out; `None` for no-ops.
    pub step: Option<usize>,
    /// The live name of an object the config renames in place (`renamedFrom` or, for tiles,
    /// their place in the list); its id is kept.
    #[serde(
        default,
        rename = "renamedFrom",
        skip_serializing_if = "Option::is_none"
    )]
    pub renamed_from: Option<String>,
}

impl Change {
    /// The names the change shows its object by: a rename's old name, then the `name` of its
    /// `before` and of its `after`, each where it has one.
    pub(crate) fn names_shown(&self) -> [Option<&str>; 3] {
        fn name(value: Option<&Value>) -> Option<&str> {
            value?.get("name")?.as_str()
        }
        [
            self.renamed_from.as_deref(),
            name(self.before.as_ref()),
            name(self.after.as_ref()),
        ]
    }
}

/// How the reason of an [`Unmanaged`] object converge does not own starts.
pub(crate) const NOT_OWNED: &str = "not owned by converge";

/// A live object converge owns that the config no longer lists while prune is off, or (prune
/// on) one it does not own that the config does not list: reported, never touched.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Unmanaged {
    /// Address of the object, e.g. `dashboard.prod["Old board"]`.
    pub address: AddressBuf,
    /// Why it is reported.
    pub reason: String,
}

super::kinds::registry::kinds!(declare());

impl Operation {
    /// What its kind answers for it (`super::kind::Kind`), through the kinds' table
    /// (`plan/kinds/registry.rs`); the engine asks the kind, never the variant.
    pub(crate) fn kind(&self) -> &dyn Kind {
        super::kinds::registry::kinds!(dispatch(self, op => op))
    }

    /// The object it touches, and through it the list that holds it.
    pub(crate) fn target(&self) -> Target<'_> {
        self.kind().target()
    }

    /// The fingerprint of the object it writes, in a (fresh) live state: `None` when the
    /// object does not exist. A step is stale when this differs from [`Step::fingerprint`];
    /// for a create, an object that appeared since is a change.
    pub(crate) fn current(&self, live: &crate::live::LiveState) -> Option<Fingerprint> {
        self.current_value(live)
            .as_ref()
            .map(super::fingerprint::of_value)
    }

    /// The normalized value [`Operation::current`] hashes: what a stale step's object is now,
    /// field by field.
    pub(crate) fn current_value(&self, live: &crate::live::LiveState) -> Option<Value> {
        self.kind().current(live)
    }

    /// What it does to its object: a create takes the never-twice path.
    pub(crate) fn effect(&self) -> Effect {
        self.kind().effect()
    }

    /// What it is called.
    pub(crate) fn name(&self) -> Name {
        self.kind().name()
    }

    /// Whether it carries out a change at `address`: of its kind, at the part it writes.
    pub(crate) fn fits(&self, address: &crate::address::Address<'_>) -> bool {
        self.kind().fits(address)
    }

    /// The stack and the whole dashboard a dashboard create or update sends.
    pub(crate) fn dashboard_sent(
        &self,
    ) -> Option<(&StackRef, &crate::api::wire::DashboardRequest)> {
        self.kind().dashboard_sent()
    }

    /// The stack and the name of the dashboard an alert create or update finds by name.
    pub(crate) fn dashboard_by_name(&self) -> Option<(&StackRef, &str)> {
        self.kind().dashboard_by_name()
    }

    /// The scaling it writes, which `apply --wait` waits to see show.
    pub(crate) fn scaling_written(&self) -> Option<ScalingWrite<'_>> {
        self.kind().scaling_written()
    }

    /// The pipe (service id, and how it is found) a done step leaves provisioning or
    /// modifying, which `apply --wait` sees settle.
    pub(crate) fn settles(&self) -> Option<(&str, Key<'_>)> {
        self.kind().settles()
    }

    /// Whether the operation destroys something (refused without `--allow-destroy`).
    pub(crate) fn is_destroy(&self) -> bool {
        self.effect().destroys()
    }
}

impl Serialize for Operation {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        super::kinds::registry::kinds!(dispatch(self, op => op.serialize(serializer)))
    }
}

impl<'de> Deserialize<'de> for Operation {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        use serde::de::Error;
        let value = Value::deserialize(deserializer)?;
        let tag = match value.get("op") {
            Some(Value::String(tag)) => tag.clone(),
            Some(_) => return Err(D::Error::custom("`op` is not a string")),
            None => return Err(D::Error::missing_field("op")),
        };
        // Each kind's tags start with the kind's name; the kind reads the rest (and names its
        // own tags when this one is not among them).
        match super::kinds::registry::kinds!(read(&tag, value)) {
            Some(read) => read.map_err(D::Error::custom),
            None => Err(D::Error::custom(format!(
                "unknown operation `{tag}`: operations are of a {}",
                prefixes_listed()
            ))),
        }
    }
}

/// Every kind's tag prefix as the unknown-tag error lists them: "a-, b- or c-".
fn prefixes_listed() -> String {
    let prefixes = super::kinds::registry::kinds!(prefixes());
    match prefixes.split_last() {
        Some((last, [])) => (*last).to_string(),
        Some((last, rest)) => format!("{} or {last}", rest.join(", ")),
        None => String::new(),
    }
}

impl From<Effect> for Action {
    fn from(effect: Effect) -> Self {
        match effect {
            Effect::Create => Action::Create,
            Effect::Update => Action::Update,
            Effect::Delete => Action::Delete,
            Effect::Replace => Action::Replace,
        }
    }
}

/// One unit of work for `apply`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Step {
    /// Position in [`Plan::steps`] (steps are listed in an order that respects dependencies).
    pub id: usize,
    /// Address of the change it carries out.
    pub address: AddressBuf,
    /// Steps that must succeed first.
    pub depends_on: Vec<usize>,
    /// Fingerprint of the live object when planned (`None`: it did not exist). `apply`
    /// compares it with `Operation::current` of a fresh read before writing.
    pub fingerprint: Option<Fingerprint>,
    /// The request.
    pub operation: Operation,
}

/// A whole plan: what changes, in which order.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct Plan {
    /// Organization id the plan was computed for.
    pub organization: String,
    /// Every address of the config (and every destroy), in config order.
    pub changes: Vec<Change>,
    /// The steps, dependencies first.
    pub steps: Vec<Step>,
    /// Owned objects missing from the config while prune is off.
    pub unmanaged: Vec<Unmanaged>,
    /// Backup checks: reported, never steps.
    #[serde(default)]
    pub checks: Vec<CheckResult>,
    /// The names of the sources whose ids the plan shows (id to name), so renderings say
    /// `"65f5e4a3..." (Logs)` rather than a bare id.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub sources: BTreeMap<String, String>,
    /// The names of the webhooks whose ids the plan shows (id to name): a `webhook:` name
    /// resolves to one of these, and renderings say `"65f5e4a3..." (oncall)`. Left out when
    /// empty, so plans without any read as they always did.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub webhooks: BTreeMap<String, String>,
    /// The `--only` patterns the plan was limited to: empty for a whole plan. A partial plan
    /// read only the lists its addresses need and says nothing about the rest.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub only: Vec<String>,
    /// The warnings the plan was made with (a likely rename, an idle service, a step `--only`
    /// leaves out): the text shows them on stderr, the Markdown comment and the JSON carry them.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub warnings: Vec<Warning>,
    /// The addresses of [`Plan::unmanaged`] a pattern of the config's `ignore:` list matches:
    /// a team has acknowledged them, so the plan counts them in one line instead of listing
    /// them in every plan (`drift` lists them under "Ignored", as it does all it silences).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub acknowledged: Vec<AddressBuf>,
}

/// A warning about a plan, as its review (Markdown, JSON) shows it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Warning {
    /// The diagnostic code, e.g. `plan::maybe-renamed`; absent for a warning without one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub code: Option<String>,
    /// Where in the config, `file:line:column`, for a warning with a place.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub place: Option<String>,
    /// What is wrong, in one sentence.
    pub message: String,
    /// What to do about it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub help: Option<String>,
}

/// Counts per action, for the summary line.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Summary {
    /// Creates.
    pub create: usize,
    /// Updates.
    pub update: usize,
    /// Deletes.
    pub delete: usize,
    /// No-ops.
    pub unchanged: usize,
}

impl Summary {
    /// `N to create, N to update, N to delete, N unchanged`.
    pub fn line(&self) -> String {
        format!(
            "{} to create, {} to update, {} to delete, {} unchanged",
            self.create, self.update, self.delete, self.unchanged
        )
    }
}

impl Plan {
    /// The names renderings show beside ids: the sources', and the webhooks' when there are
    /// any (ids are server-made, so the two never share one).
    pub(crate) fn names(&self) -> std::borrow::Cow<'_, BTreeMap<String, String>> {
        if self.webhooks.is_empty() {
            return std::borrow::Cow::Borrowed(&self.sources);
        }
        let mut names = self.sources.clone();
        for (id, name) in &self.webhooks {
            names.entry(id.clone()).or_insert_with(|| name.clone());
        }
        std::borrow::Cow::Owned(names)
    }

    /// Live objects the config does not list that converge does not own: left as is even by
    /// prune, so a plan with them never reads as if the live state matched the config.
    pub(crate) fn not_owned(&self) -> usize {
        self.listed_unmanaged()
            .filter(|u| u.reason.starts_with(NOT_OWNED))
            .count()
    }

    /// The unmanaged objects a review lists: those no `ignore:` pattern acknowledges.
    pub(crate) fn listed_unmanaged(&self) -> impl Iterator<Item = &Unmanaged> {
        self.unmanaged
            .iter()
            .filter(|u| !self.acknowledged.contains(&u.address))
    }

    /// The line that counts the acknowledged unmanaged objects, when there are any.
    pub(crate) fn acknowledged_line(&self) -> Option<String> {
        match self.acknowledged.len() {
            0 => None,
            1 => Some(
                "1 live object not managed is acknowledged by the config's `ignore:` and not \
                 listed"
                    .into(),
            ),
            n => Some(format!(
                "{n} live objects not managed are acknowledged by the config's `ignore:` and not \
                 listed"
            )),
        }
    }

    /// Counts per action.
    pub fn summary(&self) -> Summary {
        let mut summary = Summary::default();
        for change in &self.changes {
            match change.action {
                Action::Create => summary.create += 1,
                Action::Update => summary.update += 1,
                Action::Delete => summary.delete += 1,
                Action::NoOp => summary.unchanged += 1,
                // Both halves happen: the object is gone, then there again.
                Action::Replace => {
                    summary.delete += 1;
                    summary.create += 1;
                }
            }
        }
        summary
    }

    /// The checks that failed.
    #[cfg(test)]
    pub(crate) fn failed_checks(&self) -> impl Iterator<Item = &CheckResult> {
        self.checks.iter().filter(|c| !c.passed)
    }

    /// Whether the plan was limited by `--only` (and so read and shows only part of the
    /// config).
    pub(crate) fn is_partial(&self) -> bool {
        !self.only.is_empty()
    }

    /// `only addresses matching `a`, `b``, for the line that says a plan is partial.
    pub(crate) fn only_words(&self) -> String {
        let patterns: Vec<String> = self.only.iter().map(|p| format!("`{p}`")).collect();
        format!(
            "partial: only addresses matching {} (`--only`); the rest of the config was not \
             read or planned",
            patterns.join(", ")
        )
    }

    /// Whether anything would be written.
    pub fn has_changes(&self) -> bool {
        !self.steps.is_empty()
    }

    /// Changes in display order: destroys first, then the rest in config order.
    pub(crate) fn display_order(&self) -> impl Iterator<Item = &Change> {
        let deletes = self.changes.iter().filter(|c| c.action.destroys());
        let others = self.changes.iter().filter(|c| !c.action.destroys());
        deletes.chain(others)
    }

    /// Keeps only the changes whose address matches one of `globs` (and their steps); a step
    /// that depended on a dropped step no longer waits for it. Returns each such pair (kept
    /// address, dropped address it waited for), sorted, so callers can warn about it.
    pub(crate) fn retain_addresses(&mut self, globs: &[String]) -> Vec<(String, String)> {
        if globs.is_empty() {
            return Vec::new();
        }
        for pattern in globs {
            if !self.only.contains(pattern) {
                self.only.push(pattern.clone());
            }
        }
        let keep = |address: &str| globs.iter().any(|g| glob::matches(g, address));
        let kept = |address: &AddressBuf| keep(&address.to_string());
        let mut left_out: Vec<(String, String)> = self
            .steps
            .iter()
            .filter(|step| kept(&step.address))
            .flat_map(|step| {
                step.depends_on
                    .iter()
                    .filter_map(|d| self.steps.get(*d))
                    .filter(|dep| !kept(&dep.address))
                    .map(|dep| (step.address.to_string(), dep.address.to_string()))
            })
            .collect();
        left_out.sort();
        left_out.dedup();
        self.changes.retain(|c| kept(&c.address));
        self.unmanaged.retain(|u| kept(&u.address));
        self.checks.retain(|c| keep(&c.address));
        let old_steps = std::mem::take(&mut self.steps);
        let mut renumber = BTreeMap::new();
        for step in old_steps {
            if kept(&step.address) {
                renumber.insert(step.id, self.steps.len());
                let id = self.steps.len();
                self.steps.push(Step { id, ..step });
            }
        }
        for step in &mut self.steps {
            step.depends_on = step
                .depends_on
                .iter()
                .filter_map(|d| renumber.get(d).copied())
                .collect();
        }
        for change in &mut self.changes {
            change.step = change.step.and_then(|s| renumber.get(&s).copied());
        }
        left_out
    }
}
