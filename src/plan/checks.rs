//! Backup checks (`check.<service>.backups`): facts about live state the config asserts but
//! converge cannot change. They never become steps; `plan` shows them and `drift` fails on them.

use jiff::Timestamp;
use serde::{Deserialize, Serialize};

use crate::api::wire::Backup;
use crate::config::model::ServiceConfig;
use crate::live::LiveState;

/// The outcome of one check.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CheckResult {
    /// e.g. `check.analytics.backups`.
    pub address: String,
    /// Whether every condition held.
    pub passed: bool,
    /// One line per condition, e.g. `newest done backup is 6h old (at most 26h)`.
    pub details: Vec<String>,
}

fn finished(backup: &Backup) -> Option<Timestamp> {
    backup
        .finished_at
        .as_deref()
        .or(backup.started_at.as_deref())
        .and_then(|t| t.parse::<Timestamp>().ok())
}

/// Evaluates a service's backup checks. `now` is the time the age is measured from; without
/// it the age condition is reported as not evaluated (and does not fail).
pub fn backups(
    service: &ServiceConfig,
    live: &LiveState,
    now: Option<Timestamp>,
) -> Option<CheckResult> {
    let checks = service.backups.as_ref()?;
    let mut passed = true;
    let mut details = Vec::new();
    let id = &service.id.value;
    if let Some(max_age) = &checks.max_age_hours {
        let newest = live
            .backups
            .get(id)
            .into_iter()
            .flatten()
            .filter(|b| b.status.as_deref() == Some("done"))
            .filter_map(finished)
            .max();
        match (newest, now) {
            (None, _) => {
                passed = false;
                details.push(format!(
                    "no finished (`done`) backup found; the newest must be at most {}h old",
                    max_age.value
                ));
            }
            (Some(_), None) => details.push("backup age not evaluated".to_string()),
            (Some(newest), Some(now)) => {
                let hours = now.duration_since(newest).as_secs_f64() / 3600.0;
                let ok = hours <= max_age.value;
                passed &= ok;
                details.push(format!(
                    "newest done backup is {hours:.1}h old (at most {}h){}",
                    max_age.value,
                    if ok { "" } else { ": too old" }
                ));
            }
        }
    }
    for keep in &checks.keep {
        let found = live.kept_backups.get(&(id.clone(), keep.value.clone()));
        match found {
            Some(Some(backup)) if backup.status.as_deref() == Some("done") => {
                details.push(format!("backup {} is kept and done", keep.value));
            }
            Some(Some(backup)) => {
                passed = false;
                details.push(format!(
                    "backup {} has status `{}`, not `done`",
                    keep.value,
                    backup.status.as_deref().unwrap_or("unknown")
                ));
            }
            Some(None) | None => {
                passed = false;
                details.push(format!("backup {} does not exist", keep.value));
            }
        }
    }
    Some(CheckResult {
        address: format!("check.{}.backups", service.key.value),
        passed,
        details,
    })
}
