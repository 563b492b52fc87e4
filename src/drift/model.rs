//! The drift report's types: what `converge drift` prints in each format.

use serde::Serialize;
use serde_json::Value;

use crate::plan::{Action, CheckResult};

/// One field that differs: its path, the value the config asks for and the value live.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct DriftField {
    /// Path inside the object, e.g. `numReplicas` or `tiles[Requests].series[0].aggFn`.
    pub path: String,
    /// What the config says; `None` when the config has no such field (or object).
    pub config: Option<Value>,
    /// What is live; `None` when the field (or object) does not exist live.
    pub live: Option<Value>,
}

/// An address whose live object differs from the config.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Changed {
    /// e.g. `service.analytics.scaling`.
    pub address: String,
    /// What `apply` would do about it.
    pub action: Action,
    /// One line saying why.
    pub reason: String,
    /// The fields that differ.
    pub fields: Vec<DriftField>,
}

/// A live object no config entry manages.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Serialize)]
pub struct UnmanagedObject {
    /// e.g. `dashboard.prod["On-call overview"]`.
    pub address: String,
    /// Why it is reported.
    pub reason: String,
}

/// Counts for the summary line.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct DriftSummary {
    /// Addresses whose live object differs.
    pub changed: usize,
    /// Live objects nothing manages.
    pub unmanaged: usize,
    /// Checks that failed.
    pub failed_checks: usize,
    /// Addresses and fields silenced by ignore patterns.
    pub ignored: usize,
}

/// Everything `converge drift` reports.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct Report {
    /// Organization id.
    pub organization: String,
    /// Changed objects, in plan display order.
    pub changed: Vec<Changed>,
    /// Unmanaged objects, sorted by address.
    pub unmanaged: Vec<UnmanagedObject>,
    /// Every check, passed or failed, in config order.
    pub checks: Vec<CheckResult>,
    /// What ignore patterns silenced: addresses, or `address.field` paths; sorted.
    pub ignored: Vec<String>,
    /// Whether unmanaged objects count as drift (`--fail-on-unmanaged`, `drift.failOnUnmanaged`);
    /// by default they are listed but do not count.
    pub fail_on_unmanaged: bool,
    /// The `--only` patterns of a partial report (its plan's); empty when the whole config
    /// was compared.
    pub only: Vec<String>,
}

impl Report {
    /// Counts for the summary line.
    pub(crate) fn summary(&self) -> DriftSummary {
        DriftSummary {
            changed: self.changed.len(),
            unmanaged: self.unmanaged.len(),
            failed_checks: self.failed_checks().count(),
            ignored: self.ignored.len(),
        }
    }

    /// The checks that failed.
    pub(crate) fn failed_checks(&self) -> impl Iterator<Item = &CheckResult> {
        self.checks.iter().filter(|c| !c.passed)
    }

    /// Whether the live state is as the config says (exit 0): no managed object differs and no
    /// check failed; unmanaged objects count only with [`Report::fail_on_unmanaged`].
    pub(crate) fn in_sync(&self) -> bool {
        self.changed.is_empty()
            && self.failed_checks().count() == 0
            && (!self.fail_on_unmanaged || self.unmanaged.is_empty())
    }
}
