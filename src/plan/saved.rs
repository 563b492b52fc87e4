//! The saved plan (`plan --out FILE`, read back by `apply --plan FILE`): JSON with a format
//! version, the organization, the API settings it was made with (secrets only as `${env:NAME}`
//! references), and the plan itself (desired values, fingerprints of what was read, steps).
//! Nothing in it is a secret value.
//!
//! The file crosses a trust boundary (made in one job, applied in another), so reading it back
//! trusts none of it blindly: the steps must be what the changes show (`super::derive`), and
//! the API settings it records are for reading only: `apply --plan` connects with its own
//! config or environment, never with a URL or `${env:...}` reference from the file.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::model::{Plan, Step};
use crate::config::model::Config;
use crate::live::LiveState;

/// Format identifier of saved plans.
pub(crate) const FORMAT: &str = "converge-saved-plan/1";

/// The cloud API settings the plan was made with (for reading; never used to connect).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SavedCloud {
    /// Base URL.
    pub url: Option<String>,
    /// Key id (not a secret).
    pub key_id: Option<String>,
    /// Key secret, as the reference written in the config (`${env:NAME}`).
    pub key_secret: Option<String>,
}

/// The observability API settings the plan was made with (for reading; never used to connect).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SavedObservability {
    /// Base URL.
    pub url: Option<String>,
    /// Token, as the reference written in the config (`${env:NAME}`).
    pub token: Option<String>,
}

/// A saved plan file.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SavedPlan {
    /// Always `FORMAT`.
    pub format: String,
    /// The digest of the plan's text as `plan` printed it and `show` prints it ([`digest`]);
    /// absent from files saved before digests, which get every other check.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub digest: Option<String>,
    /// Organization id.
    pub organization: String,
    /// Cloud API settings.
    pub cloud: SavedCloud,
    /// Observability API settings, when the config has them.
    pub observability: Option<SavedObservability>,
    /// The plan: changes with desired values and fingerprints, and the steps.
    pub plan: Plan,
    /// The policy the plan was reviewed with (`--policy`, `policy:`); absent when it had none,
    /// so plans without one read and write as they always did. Its findings are the plan's
    /// warnings coded `policy::*`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub policy: Option<SavedPolicy>,
}

/// The policy a saved plan was reviewed with: `apply --plan` loads the same paths, refuses
/// when their digest differs, and evaluates them again.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SavedPolicy {
    /// The paths as the run that saved it resolved them (`builtin:NAME` for a built-in rule).
    pub paths: Vec<String>,
    /// The digest of the rule files (their names and texts).
    pub digest: String,
    /// The config's objects the rules read (`input.config`), as reviewed: a saved plan is
    /// applied without its config files, and its rules read the same objects again.
    pub config: Vec<Value>,
}

/// Why a saved plan could not be read.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum LoadError {
    /// Not JSON of the expected shape.
    #[error("the file is not a saved converge plan: {0}")]
    Malformed(String),
    /// Its steps are not what its changes call for (the file was edited).
    #[error(
        "its steps are not what its changes show (was the file edited?); nothing was written:\n{}",
        .0.iter().map(|p| format!("  - {p}")).collect::<Vec<_>>().join("\n")
    )]
    Inconsistent(Vec<String>),
    /// Its changes render to another text than the one it records the digest of.
    #[error("{0}")]
    Digest(DigestMismatch),
    /// Another format version.
    #[error(
        "the file is a `{found}` plan; this converge reads `{FORMAT}`: run `converge plan --out` again"
    )]
    Version {
        /// The format it declared.
        found: String,
    },
}

/// The text a saved plan's file records its digest does not match.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error(
    "its changes do not render to the text it was saved with (its digest is {recorded}, its text \
     now {computed}): was the file edited?"
)]
pub struct DigestMismatch {
    /// The digest the file records.
    pub recorded: String,
    /// The digest of the text its changes render to now.
    pub computed: String,
}

/// The digest of a plan's text, as `plan` prints it and `show` prints it (no color, secrets
/// masked by `printer`): `sha256:` and 64 hex digits. The text is what a reviewer reads, so two
/// files with one digest show one plan; `show` and `apply --plan` print it, so the run can be
/// matched with the review. Masked, because the file is saved masked: a live name that holds a
/// secret reads back as the mask, and the text it renders to must be the one the digest is of.
pub fn digest(plan: &Plan, printer: &crate::output::Printer) -> String {
    let text = super::text::render(plan, &crate::output::Printer::plain());
    let text = printer.redact(&text);
    let hash = ring::digest::digest(&ring::digest::SHA256, text.as_bytes());
    let hex: String = hash
        .as_ref()
        .iter()
        .map(|byte| format!("{byte:02x}"))
        .collect();
    format!("sha256:{hex}")
}

impl SavedPlan {
    /// Checks the digest the file records, if any, against the text its changes render to now
    /// (masked by `printer`, as it was when saved).
    pub fn check_digest(&self, printer: &crate::output::Printer) -> Result<(), DigestMismatch> {
        let Some(recorded) = &self.digest else {
            return Ok(());
        };
        let computed = digest(&self.plan, printer);
        if *recorded == computed {
            Ok(())
        } else {
            Err(DigestMismatch {
                recorded: recorded.clone(),
                computed,
            })
        }
    }

    /// Wraps a plan with what `apply --plan` needs from the config; the digest is of its text
    /// masked by `printer`, the one that saves the file.
    pub(crate) fn new(config: &Config, plan: Plan, printer: &crate::output::Printer) -> Self {
        let cloud = config
            .cloud
            .as_ref()
            .map(|c| SavedCloud {
                url: c.url.as_ref().map(|v| v.value.clone()),
                key_id: c.key_id.as_ref().map(|v| v.value.clone()),
                key_secret: c.key_secret.as_ref().map(|s| s.reference.clone()),
            })
            .unwrap_or_default();
        let observability = config.observability.as_ref().map(|o| SavedObservability {
            url: o.url.as_ref().map(|v| v.value.clone()),
            token: o.token.as_ref().map(|s| s.reference.clone()),
        });
        SavedPlan {
            format: FORMAT.to_string(),
            digest: Some(digest(&plan, printer)),
            organization: config.organization.value.clone(),
            cloud,
            observability,
            plan,
            policy: None,
        }
    }

    /// The file's text: pretty JSON with a trailing newline.
    pub fn to_json(&self) -> String {
        let mut text = serde_json::to_string_pretty(self).unwrap_or_else(|_| "{}".to_string());
        text.push('\n');
        text
    }

    /// Reads a saved plan, refusing other format versions.
    pub fn from_json(text: &str) -> Result<Self, LoadError> {
        let value: serde_json::Value =
            serde_json::from_str(text).map_err(|e| LoadError::Malformed(e.to_string()))?;
        let Some(found) = value.get("format").and_then(serde_json::Value::as_str) else {
            return Err(LoadError::Malformed(format!(
                "it has no `format` field (a saved plan starts with `\"format\": \"{FORMAT}\"`)"
            )));
        };
        let found = found.to_string();
        if found != FORMAT {
            return Err(LoadError::Version { found });
        }
        let mut saved: SavedPlan =
            serde_json::from_value(value).map_err(|e| LoadError::Malformed(e.to_string()))?;
        // A hand-edited file must still describe an order apply can follow.
        super::order::check(&saved.plan.steps)
            .map_err(|problem| LoadError::Malformed(problem.to_string()))?;
        if let Some(change) = saved.plan.changes.iter().find(|c| {
            c.step.is_some_and(|s| {
                saved
                    .plan
                    .steps
                    .get(s)
                    .is_none_or(|st| st.address != c.address)
            })
        }) {
            return Err(LoadError::Malformed(format!(
                "change {} points at a step that does not carry it",
                change.address
            )));
        }
        // What runs is what the changes show, never steps the file adds or alters.
        saved.plan.steps = super::trust::steps(&saved.plan).map_err(LoadError::Inconsistent)?;
        Ok(saved)
    }
}

/// What changed in a stale step's object since the plan was made, one line per field the plan
/// showed: `threshold 50 -> 75`. Empty when the object is gone, is new, or only changed in what
/// the plan does not show (ids the server assigned).
pub(crate) fn changed_since(plan: &Plan, step: &Step, live: &LiveState) -> Vec<String> {
    let Some(then) = plan
        .changes
        .iter()
        .find(|c| c.address == step.address)
        .and_then(|c| c.before.as_ref())
    else {
        return Vec::new();
    };
    let Some(now) = step.operation.current_value(live) else {
        return Vec::new();
    };
    let now = super::normalize::project(&as_shown(now, then, live), then);
    super::diff::diff(then, &now)
        .into_iter()
        // A field the plan did not show (an id) is not what the reader reviewed.
        .filter(|field| field.before.is_some())
        .map(|field| {
            let shown = |value: &Option<Value>| {
                value
                    .as_ref()
                    .map_or_else(|| "(absent)".to_string(), super::lines::inline)
            };
            format!(
                "{} {} -> {}",
                field.path,
                shown(&field.before),
                shown(&field.after)
            )
        })
        .collect()
}

/// A fingerprinted value as the plan shows it: without server ids, an alert's dashboard and
/// tile by name.
fn as_shown(value: Value, then: &Value, live: &LiveState) -> Value {
    let mut value = without_ids(value);
    let Value::Object(map) = &mut value else {
        return value;
    };
    let dashboard_id = map
        .get("dashboard")
        .and_then(Value::as_str)
        .map(str::to_string);
    let tile_id = map.get("tile").and_then(Value::as_str).map(str::to_string);
    let (Some(dashboard_id), Some(tile_id)) = (dashboard_id, tile_id) else {
        return value;
    };
    let dashboard = live
        .stacks
        .values()
        .flat_map(|stack| &stack.dashboards)
        .find(|d| d.id == dashboard_id);
    // An id that cannot be named (the read did not cover the dashboards) is taken as the name
    // the plan showed, rather than shown as a change from a name to an id.
    let unnamed = |key: &str| then.get(key).cloned().unwrap_or(Value::Null);
    let (dashboard_name, tile_name) = match dashboard {
        Some(dashboard) => (
            Value::String(dashboard.name.clone()),
            dashboard
                .tiles
                .iter()
                .find(|t| t.id.as_deref() == Some(tile_id.as_str()))
                .map_or_else(|| unnamed("tile"), |t| Value::String(t.name.clone())),
        ),
        None => (unnamed("dashboard"), unnamed("tile")),
    };
    map.insert("dashboard".into(), dashboard_name);
    map.insert("tile".into(), tile_name);
    value
}

fn without_ids(value: Value) -> Value {
    match value {
        Value::Object(map) => Value::Object(
            map.into_iter()
                .filter(|(key, _)| key != "id")
                .map(|(key, v)| (key, without_ids(v)))
                .collect(),
        ),
        Value::Array(items) => Value::Array(items.into_iter().map(without_ids).collect()),
        other => other,
    }
}
