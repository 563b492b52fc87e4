//! What the apply layer's parts share: how a run is set up, how a step ended, and what an
//! operation is called in reports.

use std::time::Duration;

use serde::Serialize;

use crate::plan::Operation;

/// How `apply` runs.
#[derive(Debug, Clone)]
pub struct Options {
    /// Steps running at once.
    pub parallelism: usize,
    /// Wake idle services before writing their pipes (`--wake`).
    pub wake: bool,
    /// How long to wait for a woken service to run, and for scaling to show (`--timeout`).
    pub timeout: Duration,
    /// Pause between two polls (services waking up, `--wait`).
    pub poll_interval: Duration,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            parallelism: 4,
            wake: false,
            timeout: Duration::from_secs(600),
            poll_interval: Duration::from_secs(1),
        }
    }
}

/// How a step ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, serde::Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Status {
    /// Written (or found already done: a delete of something gone, a create that landed).
    Done,
    /// The write failed.
    Failed,
    /// The object changed since the plan; nothing was written for it.
    Stale,
    /// A step it depends on did not succeed.
    Skipped,
    /// Not started because the run was interrupted.
    NotStarted,
}

impl Status {
    /// The word used in output.
    pub(crate) fn as_str(self) -> &'static str {
        match self {
            Status::Done => "done",
            Status::Failed => "failed",
            Status::Stale => "stale",
            Status::Skipped => "skipped",
            Status::NotStarted => "not started",
        }
    }
}

/// A short name of what an operation does, for reports (`update pipe scaling`).
pub fn operation_name(operation: &Operation) -> String {
    operation.name().doing()
}
