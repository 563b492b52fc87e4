//! Backup checks (`check.<service>.backups`): facts about live state the config asserts but
//! converge cannot change. They never become steps; `plan` shows them and `drift` fails on them.
//!
//! `maxAgeHours` fails when the newest `done` backup is older than that (or there is none), or
//! when the newest backup that ended is in `error`; `keep` fails for each listed backup that does
//! not exist or is not `done`.

use jiff::Timestamp;
use serde::{Deserialize, Serialize};

use super::address::Address;
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
    /// The backups the lines speak of, as fields for programs (JSON output).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub backups: Vec<BackupFact>,
}

/// One backup a check looked at: which role it plays, and its age, size and duration.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct BackupFact {
    /// `newestDone` (the age check's subject), `newestEnded` (ended in `error`), or `kept`.
    pub role: String,
    /// The backup id.
    pub id: String,
    /// Its status; `None` for a kept backup that does not exist.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub status: Option<String>,
    /// Whole minutes since it finished, when the check had a clock (minutes, like the text's
    /// tenths of an hour, keep the output the same across a run's few seconds).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub age_minutes: Option<i64>,
    /// Its size in bytes.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub size_bytes: Option<u64>,
    /// How long it took, in whole seconds.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub duration_seconds: Option<u64>,
}

impl BackupFact {
    fn of(role: &str, backup: &Backup, now: Option<Timestamp>) -> Self {
        let whole = |v: Option<f64>| {
            v.filter(|v| v.is_finite() && *v >= 0.0)
                .map(|v| v.round() as u64)
        };
        BackupFact {
            role: role.to_string(),
            id: backup.id.clone(),
            status: backup.status.clone(),
            age_minutes: now
                .zip(finished(backup))
                .map(|(now, at)| (now.as_millisecond() - at.as_millisecond()).div_euclid(60_000)),
            size_bytes: whole(backup.size_in_bytes),
            duration_seconds: whole(backup.duration_in_seconds),
        }
    }
}

fn finished(backup: &Backup) -> Option<Timestamp> {
    backup
        .finished_at
        .as_deref()
        .or(backup.started_at.as_deref())
        .and_then(|t| t.parse::<Timestamp>().ok())
}

/// Size and duration of a backup, for a detail line: `, 5.0 GiB, took 30m`.
fn facts(backup: &Backup) -> String {
    let mut out = String::new();
    if let Some(bytes) = backup.size_in_bytes.filter(|b| b.is_finite() && *b >= 0.0) {
        out.push_str(&format!(", {}", size(bytes)));
    }
    if let Some(seconds) = backup
        .duration_in_seconds
        .filter(|s| s.is_finite() && *s >= 0.0)
    {
        out.push_str(&format!(", took {}", took(seconds)));
    }
    out
}

/// A configured hour limit as written (`26`, `2.5`), in exponent form when huge (`1e300`).
fn limit(hours: f64) -> String {
    if hours.abs() >= 1e9 {
        format!("{hours:e}")
    } else {
        format!("{hours}")
    }
}

/// Bytes in the largest binary unit that keeps the number at least 1: `512 B`, `1.5 MiB`.
fn size(bytes: f64) -> String {
    const UNITS: [&str; 5] = ["KiB", "MiB", "GiB", "TiB", "PiB"];
    if bytes < 1024.0 {
        return format!("{bytes:.0} B");
    }
    let mut value = bytes / 1024.0;
    let mut unit = UNITS[0];
    for next in &UNITS[1..] {
        if value < 1024.0 {
            break;
        }
        value /= 1024.0;
        unit = next;
    }
    format!("{value:.1} {unit}")
}

/// A duration to the second under a minute, else to the minute: `45s`, `30m`, `2h5m`.
fn took(seconds: f64) -> String {
    if seconds < 59.5 {
        return format!("{seconds:.0}s");
    }
    let minutes = (seconds / 60.0).round() as u64;
    match (minutes / 60, minutes % 60) {
        (0, m) => format!("{m}m"),
        (h, 0) => format!("{h}h"),
        (h, m) => format!("{h}h{m}m"),
    }
}

/// Evaluates a service's backup checks. `now` is the time the age is measured from; without
/// it the age condition is reported as not evaluated (and does not fail).
pub(crate) fn backups(
    service: &ServiceConfig,
    live: &LiveState,
    now: Option<Timestamp>,
) -> Option<CheckResult> {
    let checks = service.backups.as_ref()?;
    let mut outcome = Outcome {
        passed: true,
        details: Vec::new(),
        facts: Vec::new(),
    };
    let id = &service.id.value;
    if let Some(max_age) = &checks.max_age_hours {
        let listed: Vec<&Backup> = live.backups.get(id).into_iter().flatten().collect();
        outcome.newest(&listed, max_age.value, now);
    }
    for keep in &checks.keep {
        let found = live.kept_backups.get(&(id.clone(), keep.value.clone()));
        outcome.kept(&keep.value, found.and_then(Option::as_ref), now);
    }
    Some(CheckResult {
        address: Address::Backups {
            service: &service.key.value,
        }
        .to_string(),
        passed: outcome.passed,
        details: outcome.details,
        backups: outcome.facts,
    })
}

/// A check's result as its conditions are evaluated.
struct Outcome {
    passed: bool,
    details: Vec<String>,
    facts: Vec<BackupFact>,
}

impl Outcome {
    /// `maxAgeHours`: the newest finished backup is at most that old, and the newest backup
    /// that ended (not one still running) did not fail.
    fn newest(&mut self, listed: &[&Backup], max_age: f64, now: Option<Timestamp>) {
        let newest_done = listed
            .iter()
            .filter(|b| b.status.as_deref() == Some("done"))
            .filter_map(|b| finished(b).map(|t| (t, *b)))
            .max_by_key(|(t, _)| *t);
        match (newest_done, now) {
            (None, _) => {
                self.passed = false;
                self.details.push(format!(
                    "no finished (`done`) backup found; the newest must be at most {}h old",
                    limit(max_age)
                ));
            }
            (Some((_, backup)), None) => {
                self.facts.push(BackupFact::of("newestDone", backup, now));
                self.details.push(format!(
                    "newest done backup {}{}; age not evaluated",
                    backup.id,
                    facts(backup)
                ));
            }
            (Some((newest, backup)), Some(now)) => {
                self.facts
                    .push(BackupFact::of("newestDone", backup, Some(now)));
                let hours = now.duration_since(newest).as_secs_f64() / 3600.0;
                let ok = hours <= max_age;
                self.passed &= ok;
                self.details.push(format!(
                    "newest done backup {} is {hours:.1}h old (at most {}h){}{}",
                    backup.id,
                    limit(max_age),
                    facts(backup),
                    if ok { "" } else { ": too old" }
                ));
            }
        }
        let newest_ended = listed
            .iter()
            .filter(|b| matches!(b.status.as_deref(), Some("done" | "error")))
            .filter_map(|b| finished(b).map(|t| (t, *b)))
            .max_by_key(|(t, _)| *t);
        if let Some((_, backup)) = newest_ended
            && backup.status.as_deref() == Some("error")
        {
            self.passed = false;
            self.facts.push(BackupFact::of("newestEnded", backup, now));
            self.details
                .push(format!("newest backup {} ended in `error`", backup.id));
        }
    }

    /// `keep`: the backup `id` exists and is done (`found`: the backup, when it exists).
    fn kept(&mut self, id: &str, found: Option<&Backup>, now: Option<Timestamp>) {
        self.facts.push(match found {
            Some(backup) => BackupFact::of("kept", backup, now),
            None => BackupFact {
                role: "kept".into(),
                id: id.to_string(),
                status: None,
                age_minutes: None,
                size_bytes: None,
                duration_seconds: None,
            },
        });
        match found {
            Some(backup) if backup.status.as_deref() == Some("done") => {
                self.details
                    .push(format!("backup {id} is kept and done{}", facts(backup)));
            }
            Some(backup) => {
                self.passed = false;
                self.details.push(format!(
                    "backup {id} has status `{}`, not `done`",
                    backup.status.as_deref().unwrap_or("unknown")
                ));
            }
            None => {
                self.passed = false;
                self.details.push(format!("backup {id} does not exist"));
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{limit, size, took};

    #[test]
    fn sizes_and_durations_read_at_any_scale() {
        assert_eq!(size(512.0), "512 B");
        assert_eq!(size(1_572_864.0), "1.5 MiB");
        assert_eq!(size(5.0 * 1_073_741_824.0), "5.0 GiB");
        assert_eq!(size(3.0 * 1_099_511_627_776.0), "3.0 TiB");
        assert_eq!(took(20.0), "20s");
        assert_eq!(took(1800.0), "30m");
        assert_eq!(took(7200.0), "2h");
        assert_eq!(took(7500.0), "2h5m");
        assert_eq!(limit(26.0), "26");
        assert_eq!(limit(2.5), "2.5");
        assert_eq!(limit(1e300), "1e300");
    }
}
