//! The rules of the alert members today's servers added, checked at validate time at the
//! config line (the server answers each with a 400):
//!
//! | Code | Rule |
//! |---|---|
//! | `semantic::threshold-max` | `between` and `not_between` have a `thresholdMax` of at least `threshold`; the others have none |
//! | `semantic::schedule-offset` | `scheduleOffsetMinutes` is less than the interval |
//! | `semantic::schedule-start` | `scheduleStartAt` is a date-time with its offset (`2026-02-08T10:00:00Z`) |
//! | `semantic::email-channel` | an `email` channel is on a managed stack and has `emailRecipients` |

use crate::api::limits::{BOUNDED_THRESHOLD_TYPES, alert_interval_minutes};

use super::model::{AlertConfig, StackConfig, StackTarget};
use crate::diagnostic::{Code, Diagnostic};

/// Runs the rules on the alerts of one stack.
pub(crate) fn check(stack: &StackConfig, diags: &mut Vec<Diagnostic>) {
    for alert in stack.alerts.values() {
        threshold_max(alert, diags);
        schedule_offset(alert, diags);
        schedule_start(alert, diags);
        email_channel(stack, alert, diags);
    }
}

/// The managed stack's one extra channel type: the standalone API takes webhooks only.
fn email_channel(stack: &StackConfig, alert: &AlertConfig, diags: &mut Vec<Diagnostic>) {
    let channel = &alert.channel;
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

/// `scheduleOffsetMinutes` shifts the windows inside one interval, so it is less than it.
fn schedule_offset(alert: &AlertConfig, diags: &mut Vec<Diagnostic>) {
    let (Some(offset), Some(minutes)) = (
        &alert.schedule_offset_minutes,
        alert_interval_minutes(&alert.interval.value),
    ) else {
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

/// `scheduleStartAt` is a date-time the server can read: RFC 3339 with its offset.
fn schedule_start(alert: &AlertConfig, diags: &mut Vec<Diagnostic>) {
    let Some(start) = &alert.schedule_start_at else {
        return;
    };
    if start.value.parse::<jiff::Timestamp>().is_err() {
        diags.push(
            Diagnostic::error(
                Code::SemanticScheduleStart,
                format!(
                    "alert `{}` has scheduleStartAt {:?}, which is not a date-time",
                    alert.key.value, start.value
                ),
                Some(start.span),
            )
            .with_label("not a date-time")
            .with_help("write a UTC date-time such as `2026-02-08T10:00:00Z`"),
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
