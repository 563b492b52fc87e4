//! Alerts, planned against their dashboard's plan.

mod check;
pub(crate) mod live;
pub(crate) mod op;

use crate::address::AddressBuf;
use crate::plan::kind::Live;
use live::AlertView;
use std::collections::BTreeMap;

use serde_json::Value;

use super::dashboard::{Planned, PlannedDashboard};
use crate::api::limits::{alert_interval_minutes, is_object_id};
use crate::api::wire::{Alert, AlertRequest, Channel, Cleared, Dashboard, NewerAlertFields};
use crate::config::alert_rules;
use crate::config::model::{AlertConfig, ChannelConfig, DashboardConfig, Generation, StackConfig};
use crate::diagnostic::{Code, Diagnostic, Span};
use crate::plan::address::Address;
use crate::plan::build::builder::{Builder, ambiguous, candidates, copies_help, rename_reason};
use crate::plan::build::dedupe;
use crate::plan::build::index::StackIndex;
use crate::plan::build::names;
use crate::plan::diff::{self, diff};
use crate::plan::kinds::webhook::placeholder;
use crate::plan::model::{Action, AlertTarget, Change, Operation, StackRef};
use crate::plan::normalize;
use crate::plan::tag::ownership_tag;
use op::AlertOp;

/// What the config asks of an alert: its normalized view and the request that writes it.
struct Desired {
    /// The name as the server stores it (a renamed alert takes the config's).
    name: String,
    after: Value,
    target: AlertTarget,
    body: AlertRequest,
    /// Live members the update leaves out because they conflict with the config's ([`conflicts`]).
    conflicts: Vec<String>,
}

/// The dashboards whose deletes must wait for alert step `step`: the one the live alert moves
/// off (a prune deletes it), and for a create, the dashboard copies `--dedupe` deletes that
/// held its only copies (`moved_off`), so a create that fails leaves the copy, never the alert
/// nowhere.
fn waited_by_dashboards(
    alert_steps_by_dashboard: &mut BTreeMap<String, Vec<usize>>,
    step: usize,
    existing: Option<&Alert>,
    moved_off: &[(usize, String)],
) {
    // A dashboard deleted by prune must wait for alerts moving off it.
    if let Some(alert) = existing
        && let Some(d) = &alert.dashboard
    {
        alert_steps_by_dashboard
            .entry(d.clone())
            .or_default()
            .push(step);
    }
    // A dashboard copy `--dedupe` deletes goes only once the alert whose only copies it
    // held is on the dashboard that stays: a create that fails leaves the copy for the
    // next plan, never the alert nowhere.
    if existing.is_none() {
        for (_, on) in moved_off {
            alert_steps_by_dashboard
                .entry(on.clone())
                .or_default()
                .push(step);
        }
    }
}

/// Each copy's delete in `moved_off` is waited for by its dashboard's delete, and by the
/// alert's create (`creates`): before it the copy still holds the name.
fn copies_deleted_first(
    alert_steps_by_dashboard: &mut BTreeMap<String, Vec<usize>>,
    depends_on: &mut Vec<usize>,
    creates: bool,
    moved_off: &[(usize, String)],
) {
    for (step, on) in moved_off {
        alert_steps_by_dashboard
            .entry(on.clone())
            .or_default()
            .push(*step);
        if creates {
            depends_on.push(*step);
        }
    }
}

impl Builder<'_> {
    /// Plans one config alert. Returns the live tile a new alert goes on, for the hint about a
    /// rename without `renamedFrom`.
    pub(crate) fn alert(
        &mut self,
        stack: &StackConfig,
        stack_ref: &StackRef,
        index: &StackIndex,
        (planned, planned_by_live_id): Planned,
        config: &AlertConfig,
        alert_steps_by_dashboard: &mut BTreeMap<String, Vec<usize>>,
    ) -> Option<String> {
        if !self.speaks_the_generation(stack, index, config) {
            return None;
        }
        let dashboard_config = self.alert_dashboard(stack, config)?;
        if !self.webhook_is_an_object_id(index, config) {
            return None;
        }
        let channels = self.channels(index, config)?;
        // A dashboard with its own errors gets no change; its alerts wait for it silently.
        let dashboard = planned.get(dashboard_config.key.value.as_str())?;
        let live_tile_id = dashboard
            .tile_ids
            .get(config.tile.value.as_str())
            .map(|id| id.to_string());
        // Copies on dashboard copies `--dedupe` deletes: deleted first, each step with its
        // dashboard (whose delete waits for it). A copy is judged against what the config makes.
        let mut moved_off: Vec<(usize, String)> = Vec::new();
        let made = self.desired(config, &channels, dashboard, live_tile_id.clone(), None);
        let found = (index, &made.after);
        let existing =
            self.live_alert(stack, stack_ref, found, config, dashboard, &mut moved_off)?;
        let desired = self.desired(config, &channels, dashboard, live_tile_id.clone(), existing);
        let address = Address::Alert {
            stack: &stack.key.value,
            alert: &config.key.value,
        }
        .into();
        let mut depends_on: Vec<usize> = dashboard.step.into_iter().collect();
        depends_on.extend(self.webhooks_created(config));
        let creates = existing.is_none();
        copies_deleted_first(
            alert_steps_by_dashboard,
            &mut depends_on,
            creates,
            &moved_off,
        );
        // The server deletes an alert whose tile a dashboard update removes: such an alert is
        // created again after the update rather than updated.
        let doomed_by = existing.and_then(|alert| doomed_by(index, planned_by_live_id, alert));
        let doomed = doomed_by.is_some();
        // It is created once that update has removed it: the update may be of another
        // dashboard than the one the alert moves to, and before it the old alert still holds
        // the name (the create's check would find it and call the step stale).
        if let Some(update) = doomed_by.and_then(|planned| planned.step)
            && !depends_on.contains(&update)
        {
            depends_on.push(update);
        }

        let (mut change, operation) = match existing {
            Some(alert) if !doomed => {
                let view = dashboard_view(index, planned_by_live_id, alert);
                updated(address, alert, view, desired, stack_ref)
            }
            _ => created(address, desired, doomed, stack_ref, index),
        };
        if existing.is_none() && !moved_off.is_empty() {
            change.reason = "--dedupe: its only copies are on dashboard copies that go; created \
                             again on the dashboard that stays"
                .into();
        }
        depends_on.sort_unstable();
        let created_on = existing.is_none().then_some(live_tile_id).flatten();
        let step = self.push(change, operation.map(|op| (op, depends_on)));
        if let Some(step) = step {
            waited_by_dashboards(alert_steps_by_dashboard, step, existing, &moved_off);
        }
        created_on
    }

    /// Whether an alert can be planned against a stack that answers in the contract's shape:
    /// each field it cannot send there is reported (`false`). A stack declared
    /// `generation: series` had these at validate time.
    fn speaks_the_generation(
        &mut self,
        stack: &StackConfig,
        index: &StackIndex,
        config: &AlertConfig,
    ) -> bool {
        if index.contract_alerts
            && stack
                .generation
                .as_ref()
                .is_none_or(|g| g.value != Generation::Series)
        {
            let errors = alert_rules::contract_generation(
                config,
                "answers its GETs in the contract's shape",
            );
            if !errors.is_empty() {
                for error in errors {
                    self.error(error);
                }
                return false;
            }
        }
        true
    }

    /// The config dashboard an alert points at, when it has the alert's tile (else reported).
    fn alert_dashboard<'s>(
        &mut self,
        stack: &'s StackConfig,
        config: &AlertConfig,
    ) -> Option<&'s DashboardConfig> {
        let Some(dashboard_config) = stack.dashboards.get(&config.dashboard.value) else {
            self.error(
                Diagnostic::error(
                    Code::PlanUnknownDashboard,
                    format!(
                        "alert `{}` points at dashboard `{}`, which stack `{}` does not define",
                        config.key.value, config.dashboard.value, stack.key.value
                    ),
                    Some(config.dashboard.span),
                )
                .with_help("name a key under this stack's `dashboards:`"),
            );
            return None;
        };
        if !dashboard_config
            .tiles
            .iter()
            .any(|t| t.name.value == config.tile.value)
        {
            let names: Vec<&str> = dashboard_config
                .tiles
                .iter()
                .map(|t| t.name.value.as_str())
                .collect();
            self.error(
                Diagnostic::error(
                    Code::PlanUnknownTile,
                    format!(
                        "alert `{}` points at tile \"{}\", which dashboard `{}` does not have",
                        config.key.value, config.tile.value, config.dashboard.value
                    ),
                    Some(config.tile.span),
                )
                .with_label("no tile with this name")
                .with_help(format!("tiles of that dashboard: {}", names.join(", "))),
            );
            return None;
        }
        Some(dashboard_config)
    }

    /// The live alert a config alert is (`Some(None)`: none yet); `None` when two live alerts
    /// could be it (reported). A copy on a dashboard copy that `--dedupe` deletes (`dashboard`'s
    /// copies going) is
    /// not it: its delete is planned here, and its step added to `moved_off` with the copy's
    /// dashboard id.
    fn live_alert<'l>(
        &mut self,
        stack: &StackConfig,
        stack_ref: &StackRef,
        (index, made): (&StackIndex<'l>, &Value),
        config: &AlertConfig,
        dashboard: &PlannedDashboard,
        moved_off: &mut Vec<(usize, String)>,
    ) -> Option<Option<&'l Alert>> {
        let going: Vec<&str> = dashboard
            .copies_going
            .iter()
            .map(|c| c.id.as_str())
            .collect();
        let on_going = |a: &Alert| a.dashboard.as_deref().is_some_and(|d| going.contains(&d));
        let all: &[&'l Alert] = index
            .alerts_by_name
            .get(&normalize::name_key(&config.name.value))
            .map(Vec::as_slice)
            .unwrap_or_default();
        let staying: Vec<&'l Alert> = all.iter().copied().filter(|a| !on_going(a)).collect();
        let going_copies: Vec<&Alert> = all.iter().copied().filter(|a| on_going(a)).collect();
        if let Some(changed) = going_copies.iter().find(|a| !made_by(made, a, index)) {
            self.error(changed_copy(stack, config, changed));
            return None;
        }
        self.delete_going_copies(
            stack,
            stack_ref,
            index,
            config,
            (&going_copies, &staying),
            moved_off,
        );
        let same_name: &[&Alert] = &staying;
        if same_name.len() > 1 {
            return self.duplicate_alerts(stack, stack_ref, (index, made), config, same_name);
        }
        let by_name = |name: &str| {
            let mut found = index
                .alerts_by_name
                .get(&normalize::name_key(name))
                .cloned()
                .unwrap_or_default();
            found.retain(|a| !on_going(a));
            found
        };
        let found = candidates(by_name, &config.name.value, &config.renamed_from);
        if found.len() > 1 {
            let listed: Vec<(String, String, Option<Span>)> = found
                .iter()
                .map(|(a, old)| (a.name.clone(), a.id.clone(), old.map(|o| o.span)))
                .collect();
            let address = Address::Alert {
                stack: &stack.key.value,
                alert: &config.key.value,
            };
            let what = format!("`{address}`");
            self.error(ambiguous("alert", &what, &config.name, &listed));
            return None;
        }
        Some(found.first().map(|(a, _)| *a))
    }

    /// The deletes of the copies of a config alert on dashboard copies `--dedupe` deletes
    /// (`going`, with the copies that stay): each step is added to `moved_off` with the
    /// copy's dashboard id.
    fn delete_going_copies(
        &mut self,
        stack: &StackConfig,
        stack_ref: &StackRef,
        index: &StackIndex<'_>,
        config: &AlertConfig,
        (going, staying): (&[&Alert], &[&Alert]),
        moved_off: &mut Vec<(usize, String)>,
    ) {
        for copy in going {
            let Some(on) = copy.dashboard.clone() else {
                continue;
            };
            let of = Address::Alert {
                stack: &stack.key.value,
                alert: &config.key.value,
            };
            let stays = match staying.first() {
                Some(kept) => format!(
                    "the copy on the dashboard that stays (id {}) stays",
                    kept.id
                ),
                None => "it is created again on the dashboard that stays".to_string(),
            };
            let change = dedupe::deleted_for(
                Address::LiveAlert {
                    stack: &stack.key.value,
                    name: std::borrow::Cow::Borrowed(&copy.name),
                },
                format!(
                    "--dedupe: id {} is a copy of `{of}` on dashboard copy id {on}, which goes \
                 after it; {stays}",
                    copy.id
                ),
                live::alert(copy, index.dashboard_of(copy)),
                copy.fingerprint(),
            );
            let operation = Operation::Alert(AlertOp::Delete {
                stack: stack_ref.clone(),
                alert_id: copy.id.clone(),
            });
            if let Some(step) = self.push(change, Some((operation, Vec::new()))) {
                moved_off.push((step, on));
            }
        }
    }

    /// Several live alerts of a config alert's name: with `--dedupe`, the one kept and the
    /// other copies deleted; otherwise an error.
    fn duplicate_alerts<'l>(
        &mut self,
        stack: &StackConfig,
        stack_ref: &StackRef,
        (index, made): (&StackIndex<'l>, &Value),
        config: &AlertConfig,
        same_name: &[&'l Alert],
    ) -> Option<Option<&'l Alert>> {
        let tag = ownership_tag(&stack.key.value);
        let mut repair = dedupe::alerts(same_name, &index.live.dashboards, &tag);
        if let Some(repair) = repair.as_mut() {
            let copy = |id: &str| same_name.iter().copied().find(|a| a.id == id);
            let made_by_config = |id: &str| copy(id).is_some_and(|a| made_by(made, a, index));
            repair.hold(
                made_by_config,
                "alert",
                "its threshold, channel, tile or message",
            );
        }
        if let Some(repair) = repair.as_ref().filter(|r| self.dedupe && r.left.is_empty())
            && let Some(kept) = same_name.iter().find(|a| a.id == repair.kept)
        {
            let of = Address::Alert {
                stack: &stack.key.value,
                alert: &config.key.value,
            };
            for copy in same_name
                .iter()
                .filter(|a| repair.removable.contains(&a.id))
            {
                let before = live::alert(copy, index.dashboard_of(copy));
                let change = dedupe::deleted(
                    Address::LiveAlert {
                        stack: &stack.key.value,
                        name: std::borrow::Cow::Borrowed(&copy.name),
                    },
                    &copy.id,
                    &of,
                    repair,
                    before,
                    copy.fingerprint(),
                );
                let operation = Operation::Alert(AlertOp::Delete {
                    stack: stack_ref.clone(),
                    alert_id: copy.id.clone(),
                });
                self.push(change, Some((operation, Vec::new())));
            }
            return Some(Some(*kept));
        }
        let ids: Vec<&str> = same_name.iter().map(|a| a.id.as_str()).collect();
        self.error(
            Diagnostic::error(
                Code::PlanDuplicateAlert,
                format!(
                    "stack `{}` has {} alerts named \"{}\" (ids {}); converge matches alerts by name",
                    stack.key.value,
                    same_name.len(),
                    config.name.value,
                    ids.join(", ")
                ),
                Some(config.name.span),
            )
            .with_label("matches more than one live alert")
            .with_help(repair.map_or_else(
                || copies_help(&ids),
                |r| r.help("alert", self.dedupe),
            )),
        );
        None
    }

    /// Today's servers refuse a webhook channel whose `webhookId` is not a 24-hex ObjectId
    /// (`Invalid webhook ID`); the contract's take any string. An error at its line on a stack
    /// of today's generation; `false` then.
    fn webhook_is_an_object_id(&mut self, index: &StackIndex, config: &AlertConfig) -> bool {
        if index.generation != Some(Generation::Config) {
            return true;
        }
        let mut fine = true;
        for channel in config.all_channels() {
            if channel.kind.value != "webhook" {
                continue;
            }
            let Some(webhook) = &channel.webhook_id else {
                continue;
            };
            let id = &webhook.value;
            if is_object_id(id) {
                continue;
            }
            fine = false;
            self.error(
                Diagnostic::error(
                    Code::PlanObjectId,
                    format!(
                        "alert `{}` names webhook `{id}`, which is not an ObjectId: this stack speaks today's generation, whose servers refuse it (`Invalid webhook ID`)",
                        config.key.value
                    ),
                    Some(webhook.span),
                )
                .with_label("24 hexadecimal digits here")
                .with_help("use the webhook's id as the server lists it, e.g. `65f5e4a3b9e77c001a789012`"),
            );
        }
        fine
    }

    /// The alert's channels as sent, in order, each `webhook:` name resolved to the id the
    /// stack's webhooks list gives it; `None` when a name resolves to no webhook or to two
    /// (each one reported at its line).
    fn channels(&mut self, index: &StackIndex, config: &AlertConfig) -> Option<Vec<Channel>> {
        let listed = names::webhooks(&index.live.webhooks);
        let mut failed = false;
        let mut channels = Vec::new();
        for channel in config.all_channels() {
            let declared = channel
                .webhook
                .as_ref()
                .and_then(|n| self.webhooks.get(&n.value));
            let id = match &channel.webhook {
                // A webhook the stack declares: its live id, or the one its create answers.
                Some(_) if declared.is_some() => declared.map(|w| match &w.id {
                    Some(id) => id.clone(),
                    None => placeholder(&w.service, &w.name),
                }),
                Some(name) => match names::resolve(&names::WEBHOOK, &listed, name) {
                    Ok(id) => Some(id),
                    Err(diagnostic) => {
                        self.error(*diagnostic);
                        failed = true;
                        None
                    }
                },
                None => channel.webhook_id.as_ref().map(|v| v.value.to_string()),
            };
            channels.push(wire_channel(channel, id));
        }
        (!failed).then_some(channels)
    }

    /// The steps creating the declared webhooks the alert's channels name.
    fn webhooks_created(&self, config: &AlertConfig) -> Vec<usize> {
        config
            .all_channels()
            .iter()
            .filter_map(|c| self.webhooks.get(&c.webhook.as_ref()?.value)?.created)
            .collect()
    }

    /// The alert as the config asks for it, on its dashboard's plan: by ids when both the
    /// dashboard and the tile exist live, else by name.
    fn desired(
        &mut self,
        config: &AlertConfig,
        channels: &[Channel],
        dashboard: &PlannedDashboard,
        live_tile_id: Option<String>,
        existing: Option<&Alert>,
    ) -> Desired {
        // Names as the server stores them (see `stored_name`); a renamed alert takes the
        // config's name, and its dashboard the name the config gives it.
        let stored = existing.filter(|a| normalize::same_name(&a.name, &config.name.value));
        if let Some(live) = stored {
            self.stored_name("alert", &config.name, &live.name);
        }
        let name = stored.map_or_else(|| config.name.value.to_string(), |a| a.name.clone());
        let dashboard_name = dashboard
            .live
            .filter(|d| normalize::same_name(&d.name, &dashboard.config.name.value))
            .map_or_else(
                || dashboard.config.name.value.to_string(),
                |d| d.name.clone(),
            );
        let (target, dashboard_id, tile_id) = alert_target(config, dashboard, live_tile_id);
        let source = config.source.as_ref().map(|s| s.value.to_string());
        // The first channel is `channel` (the servers mirror `channels[0]` there).
        let channel = channels.first().cloned();
        let threshold_type = Some(config.threshold_type.value.to_string());
        let interval = Some(config.interval.value.to_string());
        let message = config.message.as_ref().map(|m| m.value.to_string());
        let newer = newer_fields(config, channels);
        let mut after = live::alert_view(&AlertView {
            name: &name,
            dashboard: dashboard_name,
            tile: config.tile.value.to_string(),
            threshold: Some(config.threshold.value),
            threshold_type: &threshold_type,
            interval: &interval,
            source: &source,
            channel: &channel,
            message: &message,
            newer: &newer,
        });
        // A message the config does not mention is not managed: kept as it is live (a PUT
        // would otherwise empty it). So are the newer members it does not mention.
        if message.is_none()
            && let Value::Object(map) = &mut after
        {
            map.remove("message");
        }
        let live_newer = cleared(config, &mut after, existing);
        let conflicts = conflicts(config, &live_newer);
        let body = AlertRequest {
            cleared: Cleared(if existing.is_some() {
                config.cleared.names()
            } else {
                Vec::new()
            }),
            dashboard_id,
            tile_id,
            threshold: Some(config.threshold.value),
            interval,
            source: Some(source.unwrap_or_else(|| "tile".to_string())),
            threshold_type,
            name: Some(name.clone()),
            message: message.or_else(|| {
                existing
                    .filter(|_| !config.cleared.clears_message())
                    .and_then(|a| a.message.clone())
            }),
            newer: sent_newer(newer, live_newer, &channel),
            channel,
        };
        Desired {
            name,
            after,
            target,
            body,
            conflicts,
        }
    }
}

/// Whether the live alert `copy` is what the config makes (`made`, the desired view of a new
/// alert): planning it would change nothing. Name alone never makes a copy converge's to delete.
fn made_by(made: &Value, copy: &Alert, index: &StackIndex) -> bool {
    let full = live::alert(copy, index.dashboard_of(copy));
    let mut after = made.clone();
    settle_cleared(&mut after, Some(&full));
    if let Value::Object(map) = &mut after {
        // Found by its name as the server stores it.
        map.insert("name".into(), Value::from(copy.name.clone()));
    }
    diff(&normalize::project(&full, &after), &after).is_empty()
}

/// The error for an alert on a dashboard copy `--dedupe` would delete that is named like the
/// config's alert but is not what the config makes: a person's, which would go with the copy.
fn changed_copy(stack: &StackConfig, config: &AlertConfig, copy: &Alert) -> Diagnostic {
    let address = Address::Alert {
        stack: &stack.key.value,
        alert: &config.key.value,
    };
    Diagnostic::error(
        Code::PlanDuplicateAlert,
        format!(
            "alert id {} on dashboard copy id {} is named like `{address}`, but it is not what \
             the config makes (its threshold, channel, tile or message differ), so a person may \
             have made or changed it: `--dedupe` deletes neither it nor its dashboard",
            copy.id,
            copy.dashboard.as_deref().unwrap_or_default()
        ),
        Some(config.name.span),
    )
    .with_label("named like a live alert that is not the config's")
    .with_help(
        "keep the copy you want: delete or rename the other dashboard or alert in the stack, \
         then plan again",
    )
}

/// Where an alert goes: by ids when both its dashboard and its tile exist live, else by names.
fn alert_target(
    config: &AlertConfig,
    dashboard: &PlannedDashboard,
    live_tile_id: Option<String>,
) -> (AlertTarget, Option<String>, Option<String>) {
    match (dashboard.live, live_tile_id) {
        (Some(d), Some(tile_id)) => (AlertTarget::Ids, Some(d.id.clone()), Some(tile_id)),
        _ => (
            AlertTarget::Names {
                dashboard: dashboard.config.name.value.to_string(),
                tile: config.tile.value.to_string(),
            },
            None,
            None,
        ),
    }
}

/// The live newer members an update may resend: those the config clears (`null`) are taken out,
/// and shown going in the desired view `after` (as is a `message: null`).
fn cleared(config: &AlertConfig, after: &mut Value, existing: Option<&Alert>) -> NewerAlertFields {
    let mut live_newer = existing.map(|a| a.newer.clone()).unwrap_or_default();
    if config.cleared.clears_message()
        && let Value::Object(map) = after
    {
        map.insert("message".to_string(), Value::Null);
    }
    for member in config.cleared.names() {
        if let Value::Object(map) = after {
            map.insert(member.to_string(), Value::Null);
        }
        match member {
            "note" => live_newer.note = None,
            "numConsecutiveWindows" => live_newer.num_consecutive_windows = None,
            _ => {}
        }
    }
    live_newer
}

/// A config channel as the API takes it, its webhook's id given (`webhook_id`: the one
/// written, or the one its name resolved to).
fn wire_channel(channel: &ChannelConfig, webhook_id: Option<String>) -> Channel {
    Channel {
        kind: channel.kind.value.to_string(),
        webhook_id,
        email_recipients: channel
            .email_recipients
            .as_ref()
            .map(|r| r.iter().map(|v| v.value.to_string()).collect()),
    }
}

/// The newer members the config sets.
fn newer_fields(config: &AlertConfig, channels: &[Channel]) -> NewerAlertFields {
    NewerAlertFields {
        channels: config.channels.as_ref().map(|_| channels.to_vec()),
        threshold_max: config.threshold_max.as_ref().map(|v| v.value),
        num_consecutive_windows: config.num_consecutive_windows.as_ref().map(|v| v.value),
        schedule_offset_minutes: config.schedule_offset_minutes.as_ref().map(|v| v.value),
        schedule_start_at: config
            .schedule_start_at
            .as_ref()
            .map(|v| v.value.to_string()),
        note: config.note.as_ref().map(|v| v.value.to_string()),
    }
}

/// The newer members a write sends: the config's, and the live value of each one the config
/// leaves unmanaged that an update would otherwise clear (`numConsecutiveWindows`, `note`, the
/// further channels). `thresholdMax`, `scheduleOffsetMinutes` and `scheduleStartAt` are never
/// resent: the server keeps them when an update leaves them out (`makeAlert`), and resending one
/// beside what the config writes can make the body one it refuses (`scheduleOffsetMinutes must
/// be 0 when scheduleStartAt is provided`, an offset not less than a new interval, a
/// `thresholdMax` on a type without an upper bound), on every apply.
fn sent_newer(
    config: NewerAlertFields,
    live: NewerAlertFields,
    channel: &Option<Channel>,
) -> NewerAlertFields {
    // A config that writes one `channel` sets the first channel; the live alert's further
    // channels are kept (a PUT with `channel` alone would drop them).
    let live_channels = live
        .channels
        .filter(|list| list.len() > 1)
        .zip(channel.clone())
        .map(|(mut list, first)| {
            list[0] = first;
            list
        });
    NewerAlertFields {
        channels: config.channels.or(live_channels),
        threshold_max: config.threshold_max,
        num_consecutive_windows: config
            .num_consecutive_windows
            .or(live.num_consecutive_windows),
        schedule_offset_minutes: config.schedule_offset_minutes,
        schedule_start_at: config.schedule_start_at,
        note: config.note.or(live.note),
    }
}

/// The live members that conflict with what the config writes, each with what the server does
/// with it: named in the plan's reason, since the config does not manage them.
fn conflicts(config: &AlertConfig, live: &NewerAlertFields) -> Vec<String> {
    let mut out = Vec::new();
    let offset = config.schedule_offset_minutes.as_ref().map(|o| o.value);
    if let Some(start) = &live.schedule_start_at
        && config.schedule_start_at.is_none()
        && !config.cleared.names().contains(&"scheduleStartAt")
        && offset.is_some_and(|m| m > 0)
    {
        out.push(format!(
            "the live scheduleStartAt {start} is not resent (the server refuses it beside \
             scheduleOffsetMinutes {}); the server keeps it, and a start overrides the offset: \
             write `scheduleStartAt` to manage it",
            offset.unwrap_or_default()
        ));
    }
    if let Some(live_offset) = live.schedule_offset_minutes.filter(|m| *m > 0)
        && config.schedule_offset_minutes.is_none()
    {
        if config.schedule_start_at.is_some() {
            out.push(format!(
                "the live scheduleOffsetMinutes {live_offset} is not resent: beside \
                 scheduleStartAt the server sets it to 0"
            ));
        } else if alert_interval_minutes(&config.interval.value).is_some_and(|m| live_offset >= m) {
            out.push(format!(
                "the live scheduleOffsetMinutes {live_offset} is not resent (the server refuses \
                 one not less than the interval {}); write `scheduleOffsetMinutes` to set it",
                config.interval.value
            ));
        }
    }
    out
}

/// The alert's live dashboard under the names the config gives it and its tiles.
fn dashboard_view<'a>(
    index: &StackIndex<'a>,
    planned_by_live_id: &BTreeMap<&str, &'a PlannedDashboard>,
    alert: &Alert,
) -> Option<&'a Dashboard> {
    alert
        .dashboard
        .as_deref()
        .and_then(|id| planned_by_live_id.get(id))
        .and_then(|p| p.renamed_view.as_ref())
        .or_else(|| index.dashboard_of(alert))
}

/// The planned update of the live alert's dashboard that removes the alert's tile (the server
/// then deletes the alert too), if there is one.
pub(crate) fn doomed_by<'p, 'c, 'l>(
    index: &StackIndex,
    planned_by_live_id: &BTreeMap<&str, &'p PlannedDashboard<'c, 'l>>,
    alert: &Alert,
) -> Option<&'p PlannedDashboard<'c, 'l>> {
    let live_dashboard = index.dashboard_of(alert)?;
    let tile_id = alert.tile_id.as_deref().filter(|id| {
        live_dashboard
            .tiles
            .iter()
            .any(|t| t.id.as_deref() == Some(*id))
    })?;
    planned_by_live_id
        .get(live_dashboard.id.as_str())
        .copied()
        .filter(|p| p.updated && !p.keeps_tile(tile_id))
}

/// A member the config clears (`null` in the desired view) is a change only while the live
/// alert has it: one already absent (or an alert created) leaves it out.
fn settle_cleared(after: &mut Value, live: Option<&Value>) {
    if let Value::Object(map) = after {
        map.retain(|key, value| {
            !value.is_null() || live.is_some_and(|l| l.get(key).is_some_and(|v| !v.is_null()))
        });
    }
}

/// The change of an alert that exists live (compared on its dashboard `view`), and its update
/// when any field differs.
fn updated(
    address: AddressBuf,
    alert: &Alert,
    view: Option<&Dashboard>,
    desired: Desired,
    stack_ref: &StackRef,
) -> (Change, Option<Operation>) {
    let full_before = live::alert(alert, view);
    let mut desired = desired;
    settle_cleared(&mut desired.after, Some(&full_before));
    // A clear is sent only where the change shows one (the saved-plan check holds it to that).
    let after = &desired.after;
    desired
        .body
        .cleared
        .0
        .retain(|member| after.get(*member).is_some_and(Value::is_null));
    let before = normalize::project(&full_before, &desired.after);
    let mut fields = diff(&before, &desired.after);
    // A rename leads, as it does on a dashboard.
    fields.sort_by_key(|f| f.path != "name");
    let action = if fields.is_empty() {
        Action::NoOp
    } else {
        Action::Update
    };
    let renamed_from = (alert.name != desired.name).then(|| alert.name.clone());
    let operation = (action == Action::Update).then(|| {
        Operation::Alert(AlertOp::Update {
            stack: stack_ref.clone(),
            alert_id: alert.id.clone(),
            target: desired.target,
            body: desired.body,
        })
    });
    let change = Change {
        address,
        action,
        reason: {
            let mut reason = match &renamed_from {
                Some(old) => rename_reason(old, &fields),
                None => diff::reason(&fields),
            };
            if action == Action::Update {
                for conflict in &desired.conflicts {
                    reason.push_str("; ");
                    reason.push_str(conflict);
                }
            }
            reason
        },
        before: Some(before),
        after: Some(desired.after),
        fields,
        fingerprint: Some(alert.fingerprint()),
        step: None,
        renamed_from,
    };
    (change, operation)
}

/// The change and step of an alert created: new, or again because its tile goes (`doomed`);
/// the step knows the alerts of its name another stack owns (`index`).
fn created(
    address: AddressBuf,
    desired: Desired,
    doomed: bool,
    stack_ref: &StackRef,
    index: &StackIndex,
) -> (Change, Option<Operation>) {
    let theirs = index.theirs(desired.body.name.as_deref().unwrap_or_default());
    let reason = if doomed {
        "its tile is removed by the dashboard update, which deletes it; created again"
    } else {
        "no alert with this name in the stack"
    };
    let mut desired = desired;
    settle_cleared(&mut desired.after, None);
    let operation = Operation::Alert(AlertOp::Create {
        stack: stack_ref.clone(),
        target: desired.target,
        body: desired.body,
        theirs,
    });
    let change = Change {
        address,
        action: Action::Create,
        reason: reason.into(),
        fields: diff::created(&desired.after),
        before: None,
        after: Some(desired.after),
        fingerprint: None,
        step: None,
        renamed_from: None,
    };
    (change, Some(operation))
}
