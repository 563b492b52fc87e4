//! The rules of the alert members today's servers added, checked at validate time at the
//! config line (the server answers each with a 400):
//!
//! | Code | Rule |
//! |---|---|
//! | `semantic::threshold-max` | `between` and `not_between` have a `thresholdMax` of at least `threshold`; the others have none |
//! | `semantic::schedule-offset` | `scheduleOffsetMinutes` is less than the interval, and 0 beside a `scheduleStartAt` |
//! | `semantic::schedule-start` | `scheduleStartAt` is a UTC date-time as the server reads one (`2026-02-08T10:00:00Z`, milliseconds optional; no other offset), at most 365 days ahead of now and 3,650 days back (the server's window, checked against the clock when the config is read) |
//! | `semantic::email-channel` | an `email` channel is on a managed stack and has `emailRecipients` |
//! | `semantic::channels` | `channels` is on a stack of the standalone observability API |
//! | `plan::alert-generation` | no member of today's generation on a stack declared `generation: series` (at plan time, on one whose GETs answer the contract's shape) |

use crate::api::limits::{
    self, BOUNDED_THRESHOLD_TYPES, CONTRACT_THRESHOLD_TYPES, alert_interval_minutes,
};

use super::model::{AlertConfig, ChannelConfig, Generation, StackConfig, StackTarget};
use crate::diagnostic::{Code, Diagnostic, Span};

/// Runs the rules on the alerts of one stack.
pub(crate) fn check(stack: &StackConfig, diags: &mut Vec<Diagnostic>) {
    let contract = stack
        .generation
        .as_ref()
        .is_some_and(|g| g.value == Generation::Series);
    for alert in stack.alerts.values() {
        saved_search(alert, diags);
        threshold_max(alert, diags);
        schedule_offset(alert, diags);
        schedule_start(alert, diags);
        email_channel(stack, alert, diags);
        managed_channels(stack, alert, diags);
        if contract {
            diags.extend(contract_generation(
                alert,
                "is declared `generation: series`",
            ));
        }
    }
}

/// The members of an alert that only today's generation takes, with where each was written:
/// the newer members, and the threshold types with an upper bound.
pub(crate) fn newer_members(alert: &AlertConfig) -> Vec<(&'static str, Span)> {
    let mut found = Vec::new();
    if !CONTRACT_THRESHOLD_TYPES.contains(&alert.threshold_type.value.as_str()) {
        found.push(("thresholdType", alert.threshold_type.span));
    }
    let members = [
        ("thresholdMax", alert.threshold_max.as_ref().map(|v| v.span)),
        (
            "numConsecutiveWindows",
            alert.num_consecutive_windows.as_ref().map(|v| v.span),
        ),
        (
            "scheduleOffsetMinutes",
            alert.schedule_offset_minutes.as_ref().map(|v| v.span),
        ),
        (
            "scheduleStartAt",
            alert.schedule_start_at.as_ref().map(|v| v.span),
        ),
        ("note", alert.note.as_ref().map(|v| v.span)),
        ("channels", alert.channels.as_ref().map(|v| v.span)),
    ];
    found.extend(
        members
            .into_iter()
            .filter_map(|(name, span)| span.map(|s| (name, s))),
    );
    found
}

/// The errors of an alert's newer members on a stack of the contract's generation (`why`
/// says how the generation is known), one at each member's line.
pub(crate) fn contract_generation(alert: &AlertConfig, why: &str) -> Vec<Diagnostic> {
    newer_members(alert)
        .into_iter()
        .map(|(member, at)| {
            let what = if member == "thresholdType" {
                format!("thresholdType `{}`", alert.threshold_type.value)
            } else {
                format!("`{member}`")
            };
            Diagnostic::error(
                Code::PlanAlertGeneration,
                format!(
                    "alert `{}` uses {what}, which only servers of today's generation take \
                     (observability API 2.21 and later); this stack {why}, the contract's \
                     generation, whose servers would drop it",
                    alert.key.value
                ),
                Some(at),
            )
            .with_label("today's generation only")
            .with_help(
                "remove it, or point the stack at a server of today's generation (`generation: \
                 config` once it is)",
            )
        })
        .collect()
}

/// `channels` is the observability API's: the cloud document's managed stack takes one
/// `channel`.
fn managed_channels(stack: &StackConfig, alert: &AlertConfig, diags: &mut Vec<Diagnostic>) {
    let (StackTarget::Managed { .. }, Some(list)) = (&stack.target, &alert.channels) else {
        return;
    };
    diags.push(
        Diagnostic::error(
            Code::SemanticChannels,
            format!(
                "alert `{}` has `channels`, which the managed stack `{}` does not take (its \
                 alerts have one `channel`)",
                alert.key.value, stack.key.value
            ),
            Some(list.span),
        )
        .with_label("only the standalone observability API of today's generation has it")
        .with_help("write one `channel:`"),
    );
}

/// The managed stack's one extra channel type: the standalone API takes webhooks only.
fn email_channel(stack: &StackConfig, alert: &AlertConfig, diags: &mut Vec<Diagnostic>) {
    // A `channel` beside `channels` is their first, or `semantic::channels` says it is not.
    for channel in alert.all_channels() {
        email(stack, alert, channel, diags);
    }
}

/// [`email_channel`] on one channel.
fn email(
    stack: &StackConfig,
    alert: &AlertConfig,
    channel: &ChannelConfig,
    diags: &mut Vec<Diagnostic>,
) {
    if channel.kind.value != "email" {
        return;
    }
    if matches!(stack.target, StackTarget::Observability) {
        diags.push(
            Diagnostic::error(
                Code::SemanticEmailChannel,
                format!(
                    "alert `{}` has an email channel, which stack `{}` on the standalone \
                     observability API does not take",
                    alert.key.value, stack.key.value
                ),
                Some(channel.kind.span),
            )
            .with_label("only the managed stack (today's generation) has email channels")
            .with_help("use `type: webhook` with a `webhookId`"),
        );
    } else if channel.email_recipients.is_none() {
        diags.push(
            Diagnostic::error(
                Code::SemanticEmailChannel,
                format!(
                    "alert `{}` has an email channel without `emailRecipients`",
                    alert.key.value
                ),
                Some(channel.span),
            )
            .with_label("no emailRecipients")
            .with_help("add `emailRecipients: [someone@example.com]`"),
        );
    }
}

/// `thresholdMax` with exactly the threshold types that have an upper bound, not below
/// `threshold` (the server's document: "must be >= threshold").
fn threshold_max(alert: &AlertConfig, diags: &mut Vec<Diagnostic>) {
    let kind = &alert.threshold_type;
    let bounded = BOUNDED_THRESHOLD_TYPES.contains(&kind.value.as_str());
    match (&alert.threshold_max, bounded) {
        (None, true) => diags.push(
            Diagnostic::error(
                Code::SemanticThresholdMax,
                format!(
                    "alert `{}` has thresholdType `{}` but no thresholdMax",
                    alert.key.value, kind.value
                ),
                Some(kind.span),
            )
            .with_label("needs an upper bound")
            .with_help("add `thresholdMax:`, at least `threshold`"),
        ),
        (Some(max), false) => diags.push(
            Diagnostic::error(
                Code::SemanticThresholdMax,
                format!(
                    "alert `{}` has a thresholdMax, which only `between` and `not_between` take",
                    alert.key.value
                ),
                Some(max.span),
            )
            .with_label(format!("not used with `{}`", kind.value))
            .with_help("remove `thresholdMax`, or use `thresholdType: between` or `not_between`"),
        ),
        (Some(max), true) if max.value < alert.threshold.value => diags.push(
            Diagnostic::error(
                Code::SemanticThresholdMax,
                format!(
                    "alert `{}` has thresholdMax {} below its threshold {}",
                    alert.key.value, max.value, alert.threshold.value
                ),
                Some(max.span),
            )
            .with_label("below `threshold`")
            .with_related(alert.threshold.span, "the lower bound")
            .with_help("`threshold` is the lower bound and `thresholdMax` the upper one"),
        ),
        _ => {}
    }
}

/// converge writes alerts on tiles: a saved-search alert needs a `savedSearchId`, which the
/// config has no member for (such alerts are read, planned around and exported as they are).
fn saved_search(alert: &AlertConfig, diags: &mut Vec<Diagnostic>) {
    if let Some(source) = alert.source.as_ref().filter(|s| s.value == "saved_search") {
        diags.push(
            Diagnostic::error(
                Code::SemanticAlertSource,
                format!(
                    "alert `{}` has source `saved_search`: converge writes alerts on dashboard \
                     tiles only (a saved-search alert needs a `savedSearchId` the config cannot \
                     give)",
                    alert.key.value
                ),
                Some(source.span),
            )
            .with_label("not written by converge")
            .with_help("leave `source` out (it is `tile`), or keep the alert in the UI"),
        );
    }
}

/// `scheduleOffsetMinutes` shifts the windows inside one interval, so it is less than it.
fn schedule_offset(alert: &AlertConfig, diags: &mut Vec<Diagnostic>) {
    let Some(offset) = &alert.schedule_offset_minutes else {
        return;
    };
    if offset.value > 0
        && let Some(start) = &alert.schedule_start_at
    {
        diags.push(
            Diagnostic::error(
                Code::SemanticScheduleOffset,
                format!(
                    "alert `{}` has scheduleOffsetMinutes {} beside scheduleStartAt, which the \
                     server refuses (`scheduleOffsetMinutes must be 0 when scheduleStartAt is \
                     provided`)",
                    alert.key.value, offset.value
                ),
                Some(offset.span),
            )
            .with_label("must be 0 here")
            .with_related(start.span, "the start, which sets the windows' phase")
            .with_help("leave out one of the two: the start already fixes when each window begins"),
        );
    }
    let Some(minutes) = alert_interval_minutes(&alert.interval.value) else {
        return;
    };
    if offset.value >= minutes {
        diags.push(
            Diagnostic::error(
                Code::SemanticScheduleOffset,
                format!(
                    "alert `{}` has scheduleOffsetMinutes {}, not less than its interval `{}` \
                     ({minutes} minutes)",
                    alert.key.value, offset.value, alert.interval.value
                ),
                Some(offset.span),
            )
            .with_label(format!("at most {}", minutes - 1))
            .with_related(alert.interval.span, "the interval"),
        );
    }
}

/// `scheduleStartAt` is a date-time the server can read: UTC, written with `Z`.
fn schedule_start(alert: &AlertConfig, diags: &mut Vec<Diagnostic>) {
    let Some(start) = &alert.schedule_start_at else {
        return;
    };
    if !limits::utc_date_time(&start.value) {
        diags.push(
            Diagnostic::error(
                Code::SemanticScheduleStart,
                format!(
                    "alert `{}` has scheduleStartAt {:?}, which the server refuses (`Invalid datetime`): \
                     it reads a UTC date-time written with `Z`",
                    alert.key.value, start.value
                ),
                Some(start.span),
            )
            .with_label("not a UTC date-time")
            .with_help("write a UTC date-time such as `2026-02-08T10:00:00Z`"),
        );
    } else if let Some(refusal) =
        limits::schedule_start_outside(&start.value, jiff::Timestamp::now())
    {
        diags.push(
            Diagnostic::error(
                Code::SemanticScheduleStart,
                format!(
                    "alert `{}` has scheduleStartAt {:?}, which the server refuses today (`{refusal}`)",
                    alert.key.value, start.value
                ),
                Some(start.span),
            )
            .with_label("outside the server's window")
            .with_help(format!(
                "the server takes a start from {} days back to {} days ahead of the moment it is \
                 sent; pick one in that window, or leave scheduleStartAt out to align alerts to \
                 the interval",
                limits::SCHEDULE_START_BACK_DAYS,
                limits::SCHEDULE_START_AHEAD_DAYS
            )),
        );
    }
}

#[cfg(test)]
mod tests {
    use crate::api::limits::alert_interval_minutes;

    #[test]
    fn every_interval_has_its_minutes() {
        let minutes: Vec<Option<i64>> = crate::api::limits::ALERT_INTERVALS
            .iter()
            .map(|i| alert_interval_minutes(i))
            .collect();
        let expected = [1, 5, 15, 30, 60, 360, 720, 1440].map(Some);
        assert_eq!(minutes, expected);
        assert_eq!(alert_interval_minutes(""), None);
        assert_eq!(alert_interval_minutes("5x"), None);
    }
}
