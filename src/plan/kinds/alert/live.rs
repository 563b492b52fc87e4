//! The live side of alerts: an alert as the planner compares it (its dashboard and tile by
//! name) and as the fingerprint hashes it (with its own, its dashboard's and its tile's ids),
//! with the server's defaults on both sides: `source` absent is `tile`; a schedule start is
//! compared as the server stores it (with milliseconds).

use serde_json::{Map, Value};

use crate::api::limits::stored_date_time;
use crate::api::wire::{Alert, Channel, Dashboard, NewerAlertFields};
use crate::live::LiveState;
use crate::plan::kind::Live;
use crate::plan::normalize::{num, put, same_name, text};
use crate::plan::ownership::{Owned, Ownership};
use crate::plan::target::{Key, StackRef};

impl Live for Alert {
    /// The alert with its own, its dashboard's and its tile's ids.
    fn fingerprinted(&self) -> Value {
        alert_with_ids(self)
    }
}

impl Owned for Alert {
    /// Converge's when it is on a dashboard converge owns.
    fn owned(&self, ownership: &Ownership<'_>) -> bool {
        self.dashboard
            .as_deref()
            .is_some_and(|d| ownership.owns_dashboard_id(d))
    }
}

/// The alert of stack `stack` that `key` finds in `live`, as fingerprinted. A create's alert
/// found by name (as the server stores names) is never one of `theirs`, the alerts of its name
/// another stack owns.
pub(crate) fn current(
    live: &LiveState,
    stack: &StackRef,
    key: Key<'_>,
    theirs: &[String],
) -> Option<Value> {
    live.stacks
        .get(&stack.key)?
        .alerts
        .iter()
        .find(|a| match key {
            Key::Id(id) => a.id == id,
            Key::Name(name) => same_name(&a.name, name) && !theirs.contains(&a.id),
        })
        .map(Live::fingerprinted)
}

fn channel(channel: &Option<Channel>) -> Value {
    match channel {
        Some(c) => {
            let mut map = Map::new();
            map.insert("type".into(), Value::String(c.kind.clone()));
            put(&mut map, "webhookId", text(&c.webhook_id));
            put(
                &mut map,
                "emailRecipients",
                c.email_recipients.as_ref().map(|r| Value::from(r.clone())),
            );
            Value::Object(map)
        }
        None => Value::Null,
    }
}

/// The fields of an alert as compared; `dashboard` and `tile` are names.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct AlertView<'a> {
    /// Alert name.
    pub name: &'a str,
    /// Dashboard name (or `id:<id>` when the id matches no dashboard).
    pub dashboard: String,
    /// Tile name (or `id:<id>` when the id matches no tile).
    pub tile: String,
    /// Threshold.
    pub threshold: Option<f64>,
    /// `above` / `below`.
    pub threshold_type: &'a Option<String>,
    /// Interval.
    pub interval: &'a Option<String>,
    /// `tile` / `search`; absent is `tile`.
    pub source: &'a Option<String>,
    /// Channel.
    pub channel: &'a Option<Channel>,
    /// Message.
    pub message: &'a Option<String>,
    /// The members of today's generation; each absent one is left out.
    pub newer: &'a NewerAlertFields,
}

/// An alert as compared.
pub(crate) fn alert_view(view: &AlertView<'_>) -> Value {
    let mut map = Map::new();
    map.insert("name".into(), Value::String(view.name.to_string()));
    map.insert("dashboard".into(), Value::String(view.dashboard.clone()));
    map.insert("tile".into(), Value::String(view.tile.clone()));
    put(&mut map, "threshold", view.threshold.map(num));
    put(&mut map, "thresholdType", text(view.threshold_type));
    put(&mut map, "interval", text(view.interval));
    map.insert(
        "source".into(),
        text(view.source).unwrap_or_else(|| Value::from("tile")),
    );
    map.insert("channel".into(), channel(view.channel));
    put(&mut map, "message", text(view.message));
    let newer = view.newer;
    put(&mut map, "thresholdMax", newer.threshold_max.map(num));
    put(
        &mut map,
        "numConsecutiveWindows",
        newer.num_consecutive_windows.map(Value::from),
    );
    put(
        &mut map,
        "scheduleOffsetMinutes",
        newer.schedule_offset_minutes.map(Value::from),
    );
    // Compared as the server stores it (with milliseconds), so a start written without them
    // is not a difference after the apply.
    let start = text(&newer.schedule_start_at).map(|start| match start {
        Value::String(s) => Value::String(stored_date_time(&s).unwrap_or(s)),
        other => other,
    });
    put(&mut map, "scheduleStartAt", start);
    put(&mut map, "note", text(&newer.note));
    put(
        &mut map,
        "channels",
        newer
            .channels
            .as_ref()
            .map(|list| Value::Array(list.iter().map(|c| channel(&Some(c.clone()))).collect())),
    );
    Value::Object(map)
}

/// The keys of today's alert members in an alert's compared view.
pub(crate) const NEWER_ALERT_KEYS: &[&str] = &[
    "thresholdMax",
    "numConsecutiveWindows",
    "scheduleOffsetMinutes",
    "scheduleStartAt",
    "note",
    "channels",
];

/// A live alert as compared, its dashboard and tile ids resolved to names through `dashboard`
/// (the live dashboard whose id the alert names, if any).
pub(crate) fn alert(alert: &Alert, dashboard: Option<&Dashboard>) -> Value {
    let dashboard = dashboard.filter(|d| alert.dashboard.as_deref() == Some(d.id.as_str()));
    let dashboard_name = match (dashboard, &alert.dashboard) {
        (Some(d), _) => d.name.clone(),
        (None, Some(id)) => format!("id:{id}"),
        (None, None) => String::new(),
    };
    let tile = dashboard.and_then(|d| {
        d.tiles
            .iter()
            .find(|t| t.id.is_some() && t.id == alert.tile_id)
    });
    let tile_name = match (tile, &alert.tile_id) {
        (Some(t), _) => t.name.clone(),
        (None, Some(id)) => format!("id:{id}"),
        (None, None) => String::new(),
    };
    alert_view(&AlertView {
        name: &alert.name,
        dashboard: dashboard_name,
        tile: tile_name,
        threshold: alert.threshold,
        threshold_type: &alert.threshold_type,
        interval: &alert.interval,
        source: &alert.source,
        channel: &alert.channel,
        message: &alert.message,
        newer: &alert.newer,
    })
}

/// An alert with its own, its dashboard's and its tile's ids, for fingerprints.
pub(crate) fn alert_with_ids(alert: &Alert) -> Value {
    let mut value = alert_view(&AlertView {
        name: &alert.name,
        dashboard: alert.dashboard.clone().unwrap_or_default(),
        tile: alert.tile_id.clone().unwrap_or_default(),
        threshold: alert.threshold,
        threshold_type: &alert.threshold_type,
        interval: &alert.interval,
        source: &alert.source,
        channel: &alert.channel,
        message: &alert.message,
        newer: &alert.newer,
    });
    if let Value::Object(map) = &mut value {
        map.insert("id".into(), Value::String(alert.id.clone()));
    }
    value
}
