//! Alerts of a stack: one per name, on a tile of an exported dashboard.

use std::collections::BTreeMap;

use crate::api::wire::{Alert, Channel, Dashboard, Webhook};
use crate::export::build::{Keys, StackWriting, entry, non_empty, slug, str};
use crate::export::yaml::Node;

/// `alerts:` of a stack; an alert whose dashboard or tile was not exported is a warning.
pub(super) fn alerts(writing: &mut StackWriting<'_>, node: &mut Vec<(String, Node)>) {
    let (key, live) = (writing.key, writing.live);
    let mut by_name: BTreeMap<&str, Vec<&Alert>> = BTreeMap::new();
    for a in &live.alerts {
        by_name.entry(a.name.as_str()).or_default().push(a);
    }
    let mut keys = Keys::default();
    let mut alerts = Vec::new();
    for (name, same) in &by_name {
        let [alert] = same.as_slice() else {
            writing.warnings.push(format!(
                "stack {key}: {} alerts are named {name:?}; none exported (converge matches alerts by name)",
                same.len()
            ));
            continue;
        };
        match alert_node(alert, &writing.dashboards, &live.webhooks) {
            Ok(n) => alerts.push((keys.take(slug(name, "alert")), n)),
            Err(why) => writing
                .warnings
                .push(format!("stack {key}: alert {name:?} not exported: {why}")),
        }
    }
    if !alerts.is_empty() {
        node.push(entry("alerts", Node::Map(alerts)));
    }
}

/// One alert as an export writes it, on the dashboards `dashboards` maps from live id to
/// config key (what `drift --adopt` appends); why it cannot be written otherwise.
pub(crate) fn adopted_alert_node(
    alert: &Alert,
    dashboards: &BTreeMap<&str, (String, &Dashboard)>,
    webhooks: &[Webhook],
) -> Result<Node, String> {
    alert_node(alert, dashboards, webhooks).map_err(|why| why.to_string())
}

/// Why an alert is left out of the export (a warning names it).
#[derive(Debug, thiserror::Error)]
enum NotExported {
    #[error("it names no dashboard")]
    NoDashboard,
    #[error("its dashboard {id} was not exported")]
    DashboardLeftOut { id: String },
    #[error("its tile {} is not on dashboard {dashboard:?}", tile.as_deref().unwrap_or("(none)"))]
    TileNotOnDashboard {
        tile: Option<String>,
        dashboard: String,
    },
    /// A member the config needs that the live alert lacks.
    #[error("it has no {member}")]
    Missing { member: &'static str },
}

fn alert_node(
    alert: &Alert,
    dashboards: &BTreeMap<&str, (String, &Dashboard)>,
    webhooks: &[Webhook],
) -> Result<Node, NotExported> {
    let missing = |member| NotExported::Missing { member };
    let dashboard_id = alert.dashboard.as_deref().ok_or(NotExported::NoDashboard)?;
    let (dashboard_key, dashboard) =
        dashboards
            .get(dashboard_id)
            .ok_or_else(|| NotExported::DashboardLeftOut {
                id: dashboard_id.to_string(),
            })?;
    let tile = dashboard
        .tiles
        .iter()
        .find(|t| t.id.is_some() && t.id == alert.tile_id)
        .ok_or_else(|| NotExported::TileNotOnDashboard {
            tile: alert.tile_id.clone(),
            dashboard: dashboard.name.clone(),
        })?;
    let threshold = alert.threshold.ok_or(missing("threshold"))?;
    let threshold_type = non_empty(&alert.threshold_type).ok_or(missing("thresholdType"))?;
    let interval = non_empty(&alert.interval).ok_or(missing("interval"))?;
    let channel = alert.channel.as_ref().ok_or(missing("channel"))?;
    let mut node = vec![
        entry("name", str(&alert.name)),
        entry("dashboard", str(dashboard_key)),
        entry("tile", str(&tile.name)),
        entry("threshold", Node::float(threshold)),
        entry("thresholdType", str(threshold_type)),
    ];
    let newer = &alert.newer;
    if let Some(max) = newer.threshold_max {
        node.push(entry("thresholdMax", Node::float(max)));
    }
    node.push(entry("interval", str(interval)));
    if let Some(windows) = newer.num_consecutive_windows {
        node.push(entry("numConsecutiveWindows", Node::int(windows)));
    }
    if let Some(offset) = newer.schedule_offset_minutes {
        node.push(entry("scheduleOffsetMinutes", Node::int(offset)));
    }
    if let Some(start) = non_empty(&newer.schedule_start_at) {
        node.push(entry("scheduleStartAt", str(start)));
    }
    // One channel is written as `channel` (both generations read it); more as `channels`.
    match newer.channels.as_deref().filter(|list| list.len() > 1) {
        Some(list) => node.push(entry(
            "channels",
            Node::List(list.iter().map(|c| channel_node(c, webhooks)).collect()),
        )),
        None => node.push(entry("channel", channel_node(channel, webhooks))),
    }
    if let Some(message) = non_empty(&alert.message) {
        node.push(entry("message", str(message)));
    }
    if let Some(note) = non_empty(&newer.note) {
        node.push(entry("note", str(note)));
    }
    if let Some(source) = non_empty(&alert.source).filter(|s| *s != "tile") {
        node.push(entry("source", str(source)));
    }
    Ok(Node::Map(node))
}

/// One channel as the config writes it: its webhook by name (`webhook: <name>`, the same on
/// every server) when the name resolves back to this very id, else by `webhookId`.
fn channel_node(channel: &Channel, webhooks: &[Webhook]) -> Node {
    let mut node = vec![entry("type", str(&channel.kind))];
    if let Some(id) = non_empty(&channel.webhook_id) {
        let named = webhooks.iter().find(|w| w.id == id).filter(|w| {
            !w.name.is_empty() && webhooks.iter().filter(|o| o.name == w.name).count() == 1
        });
        match named {
            Some(webhook) => node.push(entry("webhook", str(&webhook.name))),
            None => node.push(entry("webhookId", str(id))),
        }
    }
    if let Some(recipients) = &channel.email_recipients {
        let list = recipients.iter().map(|r| str(r)).collect();
        node.push(entry("emailRecipients", Node::List(list)));
    }
    Node::Map(node)
}
