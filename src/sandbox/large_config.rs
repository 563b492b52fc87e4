//! A config that covers the whole `large` seed, for request-count tests, the Markdown budget
//! and benchmarks. It is written from the seed's own world, so it names every service, pipe,
//! attached private endpoint, dashboard and alert the seed has, with the same values; one object
//! in `change_every` (counted per kind, the first one included) gets a desired value that differs
//! from live, so the plan's size is known in advance.

use std::fmt::Write as _;
use std::path::Path;

use crate::address::Address;
use crate::api::wire::{Alert, Dashboard, Pipe, PipeScaling, Series, Service, SourceKind};

use super::error::SandboxError;
use super::model::Seed;
use super::seed;
use super::store::{Stack, StackKey, World};

/// How many objects of each kind [`large_config`] changes for a given `change_every`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct LargeConfigChanges {
    /// Services whose scaling differs.
    pub services: usize,
    /// Pipes whose scaling differs.
    pub pipes: usize,
    /// Dashboards whose tags differ.
    pub dashboards: usize,
    /// Alerts whose threshold differs.
    pub alerts: usize,
}

impl LargeConfigChanges {
    /// Every update the plan of the config shows.
    pub fn total(&self) -> usize {
        self.services + self.pipes + self.dashboards + self.alerts
    }
}

/// YAML text of a config covering the whole `large` seed (services, pipes, attached private
/// endpoints, both stacks with every dashboard and alert; no backup checks, which would cost
/// requests the no-op bound does not count). URLs and credentials come from the environment
/// [`super::SandboxHandle::environment`] sets. `change_every == 0` gives a config that matches
/// live exactly (a no-op plan); otherwise object `i` of each kind (services, pipes with scaling,
/// dashboards, alerts, in seed order) differs when `i % change_every == 0`.
pub fn large_config(change_every: usize) -> String {
    large_config_with_changes(change_every).0
}

/// [`large_config`] and how many objects of each kind it changes.
pub fn large_config_with_changes(change_every: usize) -> (String, LargeConfigChanges) {
    let every = |i: usize| change_every > 0 && i.is_multiple_of(change_every);
    let (text, counts, _) = generate(every, every, every, every);
    (text, counts)
}

/// [`large_config`] matching live except for the threshold of alert `n` (seed order, from 0),
/// and that alert's address: the one-object change of a large estate.
pub fn large_config_changing_alert(n: usize) -> (String, String) {
    let none = |_: usize| false;
    let (text, _, changed) = generate(none, none, none, |i| i == n);
    (text, changed.into_iter().next().unwrap_or_default())
}

/// [`large_config`] matching live except for the thresholds of the alerts `changed` names
/// (seed order, from 0: the managed stack's first, then the standalone stack's), and those
/// alerts' addresses: the alert changes of a whole config.
pub fn large_config_changing_alerts(changed: std::ops::Range<usize>) -> (String, Vec<String>) {
    let none = |_: usize| false;
    let (text, _, addresses) = generate(none, none, none, |i| changed.contains(&i));
    (text, addresses)
}

/// The `large` seed `scale` times over (`20 × scale` services with their pipes, `150 × scale`
/// dashboards with their alerts in each stack): writes the sandbox state file that serves it to
/// `state_file` and returns the YAML text of a config matching it exactly (a no-op plan). For
/// the memory benchmarks and the memory bound's test; scale 1 is [`large_config`]`(0)`.
pub fn write_large_estate(scale: usize, state_file: &Path) -> Result<String, SandboxError> {
    // "Now" only places backups, which the config does not name.
    let world = seed::large_scaled(scale, jiff::Timestamp::UNIX_EPOCH);
    world.save(state_file)?;
    let none = |_: usize| false;
    Ok(write_config(&world, none, none, none, none).0)
}

/// The config, given which object of each kind (services, pipes with scaling, dashboards,
/// alerts; by index in seed order) differs from live; also the changed alerts' addresses.
fn generate(
    service_changed: impl Fn(usize) -> bool,
    pipe_changed: impl Fn(usize) -> bool,
    dashboard_changed: impl Fn(usize) -> bool,
    alert_changed: impl Fn(usize) -> bool,
) -> (String, LargeConfigChanges, Vec<String>) {
    // "Now" only places backups, which the config does not name.
    let world = seed::world(Seed::Large, jiff::Timestamp::UNIX_EPOCH);
    write_config(
        &world,
        service_changed,
        pipe_changed,
        dashboard_changed,
        alert_changed,
    )
}

/// The config of `world`, changed as [`generate`] says.
fn write_config(
    world: &World,
    service_changed: impl Fn(usize) -> bool,
    pipe_changed: impl Fn(usize) -> bool,
    dashboard_changed: impl Fn(usize) -> bool,
    alert_changed: impl Fn(usize) -> bool,
) -> (String, LargeConfigChanges, Vec<String>) {
    let mut config = Writer {
        y: String::new(),
        counts: LargeConfigChanges::default(),
        changed_alerts: Vec::new(),
        service_changed: &service_changed,
        pipe_changed: &pipe_changed,
        dashboard_changed: &dashboard_changed,
        alert_changed: &alert_changed,
        pipe_index: 0,
        dashboard_index: 0,
        alert_index: 0,
    };
    config.y.push_str(
        "# Generated by converge::sandbox::large_config: the whole `large` seed.\n\
         version: 1\n\
         organization: ${env:CONVERGE_ORG_ID}\n\
         cloud:\n  url: ${env:CONVERGE_CLOUD_URL}\n  keyId: ${env:CONVERGE_KEY_ID}\n  \
         keySecret: ${env:CONVERGE_KEY_SECRET}\n\
         observability:\n  url: ${env:CONVERGE_OBSERVABILITY_URL}\n  \
         token: ${env:CONVERGE_OBS_TOKEN}\n\
         services:\n",
    );
    for (i, record) in world.services.iter().enumerate() {
        config.service(i, &record.service, world);
    }
    config.y.push_str("stacks:\n");
    for stack in &world.stacks {
        config.stack(stack, world);
    }
    (config.y, config.counts, config.changed_alerts)
}

/// The config text as it is written, what it changes so far, and where each kind's count of
/// objects stands (an object's index decides whether it differs from live).
struct Writer<'a> {
    y: String,
    counts: LargeConfigChanges,
    changed_alerts: Vec<String>,
    service_changed: &'a dyn Fn(usize) -> bool,
    pipe_changed: &'a dyn Fn(usize) -> bool,
    dashboard_changed: &'a dyn Fn(usize) -> bool,
    alert_changed: &'a dyn Fn(usize) -> bool,
    pipe_index: usize,
    dashboard_index: usize,
    alert_index: usize,
}

impl Writer<'_> {
    /// Service `i`: its scaling, private endpoints and pipes.
    fn service(&mut self, i: usize, service: &Service, world: &World) {
        let y = &mut self.y;
        let mut timeout = service.idle_timeout_minutes.unwrap_or(5.0);
        if (self.service_changed)(i) {
            timeout += 5.0;
            self.counts.services += 1;
        }
        let _ = writeln!(y, "  {}:", service.name);
        let _ = writeln!(y, "    id: {}", service.id);
        let _ = writeln!(y, "    scaling:");
        let _ = writeln!(
            y,
            "      numReplicas: {}",
            service.num_replicas.unwrap_or(2.0)
        );
        let _ = writeln!(
            y,
            "      idleScaling: {}",
            service.idle_scaling.unwrap_or(false)
        );
        let _ = writeln!(y, "      idleTimeoutMinutes: {timeout}");
        let _ = writeln!(y, "    privateEndpoints:");
        for endpoint in &service.private_endpoint_ids {
            let _ = writeln!(y, "      - id: {endpoint}");
        }
        let _ = writeln!(y, "    pipes:");
        for record in world
            .pipes
            .iter()
            .filter(|p| p.pipe.service_id == service.id)
        {
            self.pipe(&record.pipe);
        }
    }

    /// A pipe, and its scaling when it has one.
    fn pipe(&mut self, pipe: &Pipe) {
        let y = &mut self.y;
        let _ = writeln!(y, "      {}:", pipe.name);
        let _ = writeln!(y, "        id: {}", pipe.id);
        let kind = pipe.source.as_ref().and_then(|s| s.kind());
        let Some(scaling) = &pipe.scaling else {
            return;
        };
        let scaling = if (self.pipe_changed)(self.pipe_index) {
            self.counts.pipes += 1;
            changed_scaling(scaling, kind)
        } else {
            scaling.clone()
        };
        self.pipe_index += 1;
        let mut fields = Vec::new();
        if let Some(v) = scaling.replicas {
            fields.push(format!("replicas: {v}"));
        }
        if let Some(v) = scaling.concurrency {
            fields.push(format!("concurrency: {v}"));
        }
        if let Some(v) = scaling.replica_cpu_millicores {
            fields.push(format!("replicaCpuMillicores: {v}"));
        }
        if let Some(v) = scaling.replica_memory_gb {
            fields.push(format!("replicaMemoryGb: {v}"));
        }
        let _ = writeln!(self.y, "        scaling: {{ {} }}", fields.join(", "));
    }

    /// A stack: its target, every dashboard and every alert.
    fn stack(&mut self, stack: &Stack, world: &World) {
        let stack_key = match &stack.key {
            StackKey::Managed { .. } => "managed",
            StackKey::Observability => "global",
        };
        match &stack.key {
            StackKey::Managed { service_id } => {
                let name = world
                    .services
                    .iter()
                    .find(|s| &s.service.id == service_id)
                    .map(|s| s.service.name.clone())
                    .unwrap_or_default();
                let _ = writeln!(self.y, "  managed:\n    service: {name}");
            }
            StackKey::Observability => self.y.push_str("  global:\n    api: observability\n"),
        }
        self.y.push_str("    prune: false\n    dashboards:\n");
        for dashboard in &stack.dashboards {
            self.dashboard(dashboard, stack);
        }
        self.y.push_str("    alerts:\n");
        for alert in &stack.alerts {
            self.alert(alert, stack, stack_key);
        }
    }

    /// A dashboard with its tags, tiles and their series.
    fn dashboard(&mut self, dashboard: &Dashboard, stack: &Stack) {
        let y = &mut self.y;
        let _ = writeln!(y, "      {}:", dashboard.name);
        let _ = writeln!(y, "        name: {}", quoted(&dashboard.name));
        let mut tags: Vec<String> = dashboard.tags.iter().map(|t| quoted(t)).collect();
        if (self.dashboard_changed)(self.dashboard_index) {
            tags.push(quoted("reviewed"));
            self.counts.dashboards += 1;
        }
        self.dashboard_index += 1;
        let _ = writeln!(y, "        tags: [{}]", tags.join(", "));
        y.push_str("        tiles:\n");
        for tile in &dashboard.tiles {
            let _ = writeln!(y, "          - name: {}", quoted(&tile.name));
            let _ = writeln!(
                y,
                "            x: {}\n            y: {}\n            w: {}\n            h: {}",
                tile.x, tile.y, tile.w, tile.h
            );
            y.push_str("            series:\n");
            for series in &tile.series {
                write_series(y, series, stack);
            }
        }
    }

    /// An alert, named by its place in seed order; one on no dashboard of the stack is left out.
    fn alert(&mut self, alert: &Alert, stack: &Stack, stack_key: &str) {
        let Some(dashboard) = stack
            .dashboards
            .iter()
            .find(|d| Some(&d.id) == alert.dashboard.as_ref())
        else {
            return;
        };
        let tile = dashboard
            .tiles
            .iter()
            .find(|t| t.id.is_some() && t.id == alert.tile_id)
            .map(|t| t.name.clone())
            .unwrap_or_default();
        let mut threshold = alert.threshold.unwrap_or(0.0);
        if (self.alert_changed)(self.alert_index) {
            threshold += 1.0;
            self.counts.alerts += 1;
            let alert = format!("a{:04}", self.alert_index + 1);
            self.changed_alerts.push(
                Address::Alert {
                    stack: stack_key,
                    alert: &alert,
                }
                .to_string(),
            );
        }
        self.alert_index += 1;
        let alert_index = self.alert_index;
        let y = &mut self.y;
        let _ = writeln!(y, "      a{alert_index:04}:");
        let _ = writeln!(y, "        name: {}", quoted(&alert.name));
        let _ = writeln!(y, "        dashboard: {}", dashboard.name);
        let _ = writeln!(y, "        tile: {}", quoted(&tile));
        let _ = writeln!(y, "        threshold: {threshold}");
        let _ = writeln!(
            y,
            "        thresholdType: {}",
            alert.threshold_type.as_deref().unwrap_or("above")
        );
        let _ = writeln!(
            y,
            "        interval: {}",
            alert.interval.as_deref().unwrap_or("5m")
        );
        if let Some(channel) = &alert.channel {
            let _ = writeln!(
                y,
                "        channel: {{ type: {}, webhookId: {} }}",
                channel.kind,
                quoted(channel.webhook_id.as_deref().unwrap_or_default())
            );
        }
        if let Some(message) = &alert.message {
            let _ = writeln!(y, "        message: {}", quoted(message));
        }
    }
}

/// A JSON string, which YAML reads as a double-quoted scalar.
fn quoted(text: &str) -> String {
    serde_json::Value::String(text.to_string()).to_string()
}

fn write_series(y: &mut String, series: &Series, stack: &Stack) {
    let mut first = true;
    let mut field = |y: &mut String, name: &str, value: String| {
        let lead = if first {
            "              - "
        } else {
            "                "
        };
        first = false;
        let _ = writeln!(y, "{lead}{name}: {value}");
    };
    if let Some(v) = &series.kind {
        field(y, "type", quoted(v));
    }
    if let Some(v) = &series.data_source {
        field(y, "dataSource", quoted(v));
    }
    if let Some(id) = &series.source_id {
        let name = stack
            .sources
            .iter()
            .find(|s| &s.id == id)
            .map(|s| s.name.clone())
            .unwrap_or_default();
        field(y, "source", quoted(&name));
    }
    if let Some(v) = &series.agg_fn {
        field(y, "aggFn", quoted(v));
    }
    if let Some(v) = &series.field {
        field(y, "field", quoted(v));
    }
    if let Some(v) = &series.where_ {
        field(y, "where", quoted(v));
    }
    if let Some(v) = &series.where_language {
        field(y, "whereLanguage", quoted(v));
    }
    if let Some(group_by) = &series.group_by {
        let items: Vec<String> = group_by.iter().map(|g| quoted(g)).collect();
        field(y, "groupBy", format!("[{}]", items.join(", ")));
    }
}

/// A valid scaling that differs from `live` in one step of each field the kind uses.
fn changed_scaling(live: &PipeScaling, kind: Option<SourceKind>) -> PipeScaling {
    let step = |value: i64, max: i64| if value < max { value + 1 } else { value - 1 };
    let mut out = live.clone();
    match kind {
        Some(SourceKind::Kafka) => out.replicas = live.replicas.map(|r| step(r, 10)),
        Some(SourceKind::ObjectStorage) => out.concurrency = live.concurrency.map(|c| step(c, 34)),
        // Kinesis CPU and memory move together (125 millicores per 0.5 GB) to keep their ratio.
        _ => {
            if let Some(cpu) = live.replica_cpu_millicores {
                let k = step(cpu / 125, 16);
                out.replica_cpu_millicores = Some(125 * k);
                out.replica_memory_gb = Some(0.5 * k as f64);
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn no_op_config_changes_nothing_and_is_deterministic() {
        let (text, counts) = large_config_with_changes(0);
        assert_eq!(counts, LargeConfigChanges::default());
        assert_eq!(text, large_config(0));
        assert_eq!(text.matches("\n    id: ").count(), 20);
    }

    #[test]
    fn change_every_sets_a_known_share() {
        let (_, counts) = large_config_with_changes(10);
        // 20 services, 75 scaled pipes, 300 dashboards, 1,000 alerts: every tenth, first included.
        assert_eq!(counts.services, 2);
        assert_eq!(counts.pipes, 8);
        assert_eq!(counts.dashboards, 30);
        assert_eq!(counts.alerts, 100);
        assert_ne!(large_config(10), large_config(0));
    }
}
