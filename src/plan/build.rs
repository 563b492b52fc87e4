//! Building a plan: desired state against live state, per kind, with the rules that need live
//! facts. Pure: the same inputs give the same plan, byte for byte once rendered.

use std::collections::{BTreeMap, BTreeSet};

use serde_json::{Value, json};

use super::diff::{self, diff};
use super::fingerprint;
use super::model::{
    Action, AlertTarget, Change, FieldChange, Fingerprint, Operation, Plan, StackRef, StackTarget,
    Step, Unmanaged,
};
use super::normalize::{self, AlertView};
use super::tag::ownership_tag;
use crate::api::wire::{
    AddRemove, Alert, AlertRequest, Channel, Dashboard, DashboardRequest, PipeScaling,
    PrivateEndpoint, Series, Service, ServicePatch, ServiceScalingPatch, Source, SourceKind, Tile,
};
use crate::config::diagnostic::Diagnostic;
use crate::config::model::{
    self, AlertConfig, Config, DashboardConfig, PipeConfig, ServiceConfig, SourceRef, StackConfig,
};
use crate::live::{LiveState, StackLive};

/// Options of `converge plan` that shape the plan itself.
#[derive(Debug, Clone, Default)]
pub struct PlanOptions {
    /// `--only` globs over addresses; empty keeps everything.
    pub only: Vec<String>,
    /// The time backup ages are measured from (the plan itself stays pure); `None` leaves the
    /// age condition unevaluated.
    pub now: Option<jiff::Timestamp>,
}

/// Computes the plan of `config` against `live`. Plan-time rule violations come back as
/// diagnostics pointing at the config; the objects they concern get no change.
pub fn plan(config: &Config, live: &LiveState, options: &PlanOptions) -> (Plan, Vec<Diagnostic>) {
    let mut builder = Builder {
        live,
        now: options.now,
        plan: Plan {
            organization: config.organization.value.clone(),
            ..Plan::default()
        },
        diagnostics: Vec::new(),
    };
    // A run limited by `--only` read only the lists its addresses need; what was not read is
    // not planned (it would look missing), and `retain_addresses` drops it anyway.
    if live.scope.reads_services() {
        for service in config.services.values() {
            builder.service(service);
        }
    }
    for stack in config.stacks.values() {
        if live.scope.reads_stack(&stack.key.value) {
            builder.stack(config, stack);
        }
    }
    let Builder {
        mut plan,
        mut diagnostics,
        ..
    } = builder;
    let warnings = keep_only(&mut plan, &options.only);
    // After the filter: the names a partial plan shows are those of its own changes.
    plan.sources = source_names(&plan, live);
    diagnostics.extend(warnings);
    (plan, diagnostics)
}

/// Keeps the addresses `only` matches (all when empty), recording the globs in the plan; a
/// warning for each kept step that waits for one left out.
pub fn keep_only(plan: &mut Plan, only: &[String]) -> Vec<Diagnostic> {
    plan.retain_addresses(only)
        .into_iter()
        .map(|(kept, left_out)| {
            Diagnostic::warning(
                "plan::only-leaves-out-dependency",
                format!("`--only` keeps `{kept}` but leaves out `{left_out}`, which it waits for"),
                None,
            )
            .with_help(format!(
                "add an `--only` glob that matches `{left_out}`, or the step may fail when applied"
            ))
        })
        .collect()
}

struct Builder<'a> {
    live: &'a LiveState,
    now: Option<jiff::Timestamp>,
    plan: Plan,
    diagnostics: Vec<Diagnostic>,
}

/// A stack's live objects indexed for lookups by name and id, so planning stays linear in the
/// size of the stack.
struct StackIndex<'l> {
    live: &'l StackLive,
    /// The dashboards of each name, as a server that normalises names stores it
    /// ([`normalize::name_key`]): a name sent with two spaces may come back with one.
    dashboards_by_name: BTreeMap<String, Vec<&'l Dashboard>>,
    dashboards_by_id: BTreeMap<&'l str, &'l Dashboard>,
    /// The alerts of each name (more than one is an error for a config alert of that name).
    alerts_by_name: BTreeMap<String, Vec<&'l Alert>>,
}

impl<'l> StackIndex<'l> {
    fn new(live: &'l StackLive) -> Self {
        let mut dashboards_by_name: BTreeMap<String, Vec<&Dashboard>> = BTreeMap::new();
        let mut dashboards_by_id = BTreeMap::new();
        for d in &live.dashboards {
            dashboards_by_name
                .entry(normalize::name_key(&d.name))
                .or_default()
                .push(d);
            dashboards_by_id.entry(d.id.as_str()).or_insert(d);
        }
        let mut alerts_by_name: BTreeMap<String, Vec<&Alert>> = BTreeMap::new();
        for a in &live.alerts {
            alerts_by_name
                .entry(normalize::name_key(&a.name))
                .or_default()
                .push(a);
        }
        StackIndex {
            live,
            dashboards_by_name,
            dashboards_by_id,
            alerts_by_name,
        }
    }

    /// The live dashboard an alert points at.
    fn dashboard_of(&self, alert: &Alert) -> Option<&'l Dashboard> {
        alert
            .dashboard
            .as_deref()
            .and_then(|id| self.dashboards_by_id.get(id).copied())
    }
}

/// What the builder knows about a config dashboard once planned.
struct PlannedDashboard<'c, 'l> {
    config: &'c DashboardConfig,
    live: Option<&'l Dashboard>,
    /// The create or update step, if any.
    step: Option<usize>,
    /// The live tile id of each config tile that exists live (matched by name, `renamedFrom`
    /// or place), by config tile name.
    tile_ids: BTreeMap<String, String>,
    /// The live dashboard with the names the config gives it and its tiles, when any differ:
    /// alerts on it compare against these names, so a rename is not a change of the alert.
    renamed_view: Option<Dashboard>,
    /// Whether the step is an update (which drops alerts of removed tiles).
    updated: bool,
}

impl PlannedDashboard<'_, '_> {
    /// Whether the live tile `tile_id` is still on the dashboard once applied.
    fn keeps_tile(&self, tile_id: &str) -> bool {
        self.tile_ids.values().any(|id| id == tile_id)
    }
}

/// The live object a config object is: found by its current name or one of its `renamedFrom`
/// names. Each candidate comes with the `renamedFrom` entry that found it (`None`: its name).
fn candidates<'l, 'c, T>(
    by_name: impl Fn(&str) -> Vec<&'l T>,
    name: &str,
    renamed_from: &'c [model::Located<String>],
) -> Vec<(&'l T, Option<&'c model::Located<String>>)> {
    let mut found: Vec<(&'l T, Option<&'c model::Located<String>>)> =
        by_name(name).into_iter().map(|o| (o, None)).collect();
    for old in renamed_from {
        found.extend(by_name(&old.value).into_iter().map(|o| (o, Some(old))));
    }
    found
}

/// Two or more live objects could be the one config object: an error at the `renamedFrom`
/// entry that found the extra one (else at the name), never a guess.
fn ambiguous(
    kind: &str,
    what: &str,
    name: &model::Located<String>,
    found: &[(String, String, Option<model::Span>)],
) -> Diagnostic {
    let listed: Vec<String> = found
        .iter()
        .map(|(name, id, _)| format!("\"{name}\" (id {id})"))
        .collect();
    let at = found
        .iter()
        .find_map(|(_, _, span)| *span)
        .unwrap_or(name.span);
    let mut diagnostic = Diagnostic::error(
        "plan::ambiguous-rename",
        format!(
            "{what} could be any of {} live {kind}s: {}; converge does not guess which one it is",
            found.len(),
            listed.join(", ")
        ),
        Some(at),
    )
    .with_label("finds more than one live object")
    .with_help(if at == name.span {
        format!("delete or rename all but one of those {kind}s in the stack, then plan again")
    } else {
        format!(
            "delete or rename the live {kind} that is not this one, or remove the `renamedFrom` entry that finds it, then plan again"
        )
    });
    if at != name.span {
        diagnostic = diagnostic.with_related(name.span, "the current name");
    }
    diagnostic
}

/// The reason of a change that renames its object: `renamed from "Old"`, and what else differs.
fn rename_reason(old: &str, fields: &[FieldChange]) -> String {
    let others: Vec<FieldChange> = fields
        .iter()
        .filter(|f| f.path != "name")
        .cloned()
        .collect();
    if others.is_empty() {
        format!("renamed from {old:?}")
    } else {
        format!("renamed from {old:?}; {}", diff::reason(&others))
    }
}

impl<'a> Builder<'a> {
    fn push(&mut self, mut change: Change, step: Option<(Operation, Vec<usize>)>) -> Option<usize> {
        let id = step.map(|(operation, depends_on)| {
            let id = self.plan.steps.len();
            self.plan.steps.push(Step {
                id,
                address: change.address.clone(),
                depends_on,
                fingerprint: change.fingerprint,
                operation,
            });
            id
        });
        change.step = id;
        self.plan.changes.push(change);
        id
    }

    fn error(&mut self, diagnostic: Diagnostic) {
        self.diagnostics.push(diagnostic);
    }

    /// Warns at the config line when the server stores a name other than as written (some
    /// servers collapse runs of white space): converge matches the object as stored, and would
    /// otherwise create it again on every apply.
    fn stored_name(&mut self, kind: &str, config: &model::Located<String>, live: &str) {
        if config.value == live {
            return;
        }
        self.diagnostics.push(
            Diagnostic::warning(
                "plan::stored-name",
                format!(
                    "the server stores this name as {live:?}, not as written ({:?}); converge \
                     matches the {kind} as the server stores it",
                    config.value
                ),
                Some(config.span),
            )
            .with_label("stored differently")
            .with_help(format!("write the name as the server stores it: {live:?}")),
        );
    }

    // -----------------------------------------------------------------------------------------
    // Services, private endpoints, pipes

    fn service(&mut self, config: &ServiceConfig) {
        let Some(live) = self.live.services.get(&config.id.value) else {
            self.error(
                Diagnostic::error(
                    "plan::service-not-found",
                    format!(
                        "service `{}` ({}) does not exist in the organization",
                        config.key.value, config.id.value
                    ),
                    Some(config.id.span),
                )
                .with_label("no service with this id")
                .with_help(
                    "check the id in the cloud console, or remove the service from the config",
                ),
            );
            return;
        };
        let key = &config.key.value;
        if self.live.scope.reads_backups(key)
            && let Some(check) = super::checks::backups(config, self.live, self.now)
        {
            self.plan.checks.push(check);
        }
        self.service_scaling(config, live);
        self.private_endpoints(config, live);
        if self.live.scope.reads_pipes(key) {
            for pipe in config.pipes.values() {
                self.pipe(config, live, pipe);
            }
        }
    }

    fn service_scaling(&mut self, config: &ServiceConfig, live: &Service) {
        let Some(scaling) = &config.scaling else {
            return;
        };
        if let Some(replicas) = &scaling.num_replicas
            && live.is_primary == Some(true)
            && replicas.value < crate::api::limits::SERVICE_REPLICAS_MIN_FIRST_IN_WAREHOUSE
        {
            self.error(
                Diagnostic::error(
                    "plan::replicas-first-in-warehouse",
                    format!(
                        "service `{}` is the first service of its warehouse, which needs at least 2 replicas",
                        config.key.value
                    ),
                    Some(replicas.span),
                )
                .with_label("below 2")
                .with_help("set numReplicas to 2 or more"),
            );
            return;
        }
        let mut desired = serde_json::Map::new();
        let mut put = |key: &str, value: Option<Value>| {
            if let Some(value) = value {
                desired.insert(key.to_string(), value);
            }
        };
        put(
            "numReplicas",
            scaling
                .num_replicas
                .as_ref()
                .map(|v| normalize::num(v.value)),
        );
        put(
            "idleScaling",
            scaling.idle_scaling.as_ref().map(|v| Value::Bool(v.value)),
        );
        put(
            "idleTimeoutMinutes",
            scaling
                .idle_timeout_minutes
                .as_ref()
                .map(|v| normalize::num(v.value)),
        );
        put(
            "minTotalMemoryGb",
            scaling
                .min_total_memory_gb
                .as_ref()
                .map(|v| normalize::num(v.value)),
        );
        put(
            "maxTotalMemoryGb",
            scaling
                .max_total_memory_gb
                .as_ref()
                .map(|v| normalize::num(v.value)),
        );
        let after = Value::Object(desired);
        let before = normalize::project(&normalize::service_scaling(live), &after);
        let fields = diff(&before, &after);
        let change = compared(
            format!("service.{}.scaling", config.key.value),
            before,
            after,
            fields,
            fingerprint::service_scaling(live),
        );
        if change.action == Action::NoOp {
            self.push(change, None);
            return;
        }
        let mut body = ServiceScalingPatch::default();
        for field in &change.fields {
            let number = field.after.as_ref().and_then(Value::as_f64);
            match field.path.as_str() {
                "numReplicas" => body.num_replicas = number,
                "idleScaling" => body.idle_scaling = field.after.as_ref().and_then(Value::as_bool),
                "idleTimeoutMinutes" => body.idle_timeout_minutes = number,
                "minTotalMemoryGb" => body.min_total_memory_gb = number,
                "maxTotalMemoryGb" => body.max_total_memory_gb = number,
                _ => {}
            }
        }
        let operation = Operation::ServiceScaling {
            service_id: live.id.clone(),
            body,
        };
        self.push(change, Some((operation, Vec::new())));
    }

    fn private_endpoints(&mut self, config: &ServiceConfig, live: &Service) {
        let Some(wanted) = &config.private_endpoints else {
            return;
        };
        let attached = normalize::private_endpoint_ids(live);
        for endpoint in wanted {
            let id = endpoint.id.value.clone();
            let address = format!("service.{}.private_endpoint[{id}]", config.key.value);
            let description = endpoint
                .description
                .as_ref()
                .map(|d| d.value.clone())
                .unwrap_or_default();
            let after = json!({ "id": id });
            if attached.contains(&id) {
                self.push(
                    Change {
                        address,
                        action: Action::NoOp,
                        reason: "attached to the service".into(),
                        before: Some(after.clone()),
                        after: Some(after),
                        fields: Vec::new(),
                        fingerprint: Some(fingerprint::private_endpoint(&id)),
                        step: None,
                        renamed_from: None,
                    },
                    None,
                );
            } else {
                let fields = diff::created(&after);
                let operation = Operation::PrivateEndpointCreate {
                    service_id: live.id.clone(),
                    body: PrivateEndpoint {
                        id: id.clone(),
                        description,
                        ..PrivateEndpoint::default()
                    },
                };
                self.push(
                    Change {
                        address,
                        action: Action::Create,
                        reason: "not registered on the service".into(),
                        before: None,
                        after: Some(after),
                        fields,
                        fingerprint: None,
                        step: None,
                        renamed_from: None,
                    },
                    Some((operation, Vec::new())),
                );
            }
        }
        let listed: BTreeSet<&str> = wanted.iter().map(|e| e.id.value.as_str()).collect();
        for id in attached.iter().filter(|id| !listed.contains(id.as_str())) {
            let before = json!({ "id": id });
            let operation = Operation::PrivateEndpointDetach {
                service_id: live.id.clone(),
                body: ServicePatch {
                    private_endpoint_ids: Some(AddRemove {
                        add: Vec::new(),
                        remove: vec![id.clone()],
                    }),
                },
            };
            self.push(
                Change {
                    address: format!("service.{}.private_endpoint[{id}]", config.key.value),
                    action: Action::Delete,
                    reason: "attached to the service but not in privateEndpoints".into(),
                    fields: diff::deleted(&before),
                    before: Some(before),
                    after: None,
                    fingerprint: Some(fingerprint::private_endpoint(id)),
                    step: None,
                    renamed_from: None,
                },
                Some((operation, Vec::new())),
            );
        }
    }

    fn pipe(&mut self, service: &ServiceConfig, live_service: &Service, config: &PipeConfig) {
        let live = self
            .live
            .pipes
            .get(&live_service.id)
            .and_then(|pipes| pipes.iter().find(|p| p.id == config.id.value));
        let address = format!("pipe.{}.{}", service.key.value, config.key.value);
        if config.absent {
            match live {
                Some(pipe) => {
                    let before = normalize::pipe_identity(pipe);
                    let operation = Operation::PipeDelete {
                        service_id: live_service.id.clone(),
                        pipe_id: pipe.id.clone(),
                    };
                    self.push(
                        Change {
                            address,
                            action: Action::Delete,
                            reason: "marked `absent: true` but exists".into(),
                            fields: diff::deleted(&before),
                            before: Some(before),
                            after: None,
                            fingerprint: Some(fingerprint::pipe(pipe)),
                            step: None,
                            renamed_from: None,
                        },
                        Some((operation, Vec::new())),
                    );
                }
                None => {
                    self.push(
                        Change {
                            address,
                            action: Action::NoOp,
                            reason: "absent, as the config says".into(),
                            before: None,
                            after: None,
                            fields: Vec::new(),
                            fingerprint: None,
                            step: None,
                            renamed_from: None,
                        },
                        None,
                    );
                }
            }
            return;
        }
        let Some(pipe) = live else {
            self.error(
                Diagnostic::error(
                    "plan::pipe-not-found",
                    format!(
                        "pipe `{}` ({}) does not exist on service `{}`",
                        config.key.value, config.id.value, service.key.value
                    ),
                    Some(config.id.span),
                )
                .with_label("no pipe with this id on the service")
                .with_help("check the pipe id, or mark the pipe `absent: true` if it was removed"),
            );
            return;
        };
        let Some(scaling) = &config.scaling else {
            return;
        };
        let kind = pipe.source.as_ref().and_then(|s| s.kind());
        let fields: [(&str, Option<(Value, model::Span)>); 4] = [
            (
                "replicas",
                scaling
                    .replicas
                    .as_ref()
                    .map(|v| (Value::from(v.value), v.span)),
            ),
            (
                "concurrency",
                scaling
                    .concurrency
                    .as_ref()
                    .map(|v| (Value::from(v.value), v.span)),
            ),
            (
                "replicaCpuMillicores",
                scaling
                    .replica_cpu_millicores
                    .as_ref()
                    .map(|v| (Value::from(v.value), v.span)),
            ),
            (
                "replicaMemoryGb",
                scaling
                    .replica_memory_gb
                    .as_ref()
                    .map(|v| (normalize::num(v.value), v.span)),
            ),
        ];
        let mut desired = serde_json::Map::new();
        let mut rejected = false;
        for (name, value) in fields {
            let Some((value, span)) = value else { continue };
            if let Some(kind) = kind
                && !kind.scales(name)
            {
                rejected = true;
                self.error(pipe_field_diagnostic(service, config, kind, name, span));
                continue;
            }
            desired.insert(name.to_string(), value);
        }
        if rejected {
            return;
        }
        let after = Value::Object(desired);
        let live_scaling = normalize::pipe_scaling(&pipe.scaling.clone().unwrap_or_default());
        let before = normalize::project(&live_scaling, &after);
        let fields = diff(&before, &after);
        let change = compared(
            format!("{address}.scaling"),
            before,
            after,
            fields,
            fingerprint::pipe(pipe),
        );
        if change.action == Action::NoOp {
            self.push(change, None);
            return;
        }
        let mut body = PipeScaling::default();
        for field in &change.fields {
            let after = field.after.as_ref();
            match field.path.as_str() {
                "replicas" => body.replicas = after.and_then(Value::as_i64),
                "concurrency" => body.concurrency = after.and_then(Value::as_i64),
                "replicaCpuMillicores" => {
                    body.replica_cpu_millicores = after.and_then(Value::as_i64)
                }
                "replicaMemoryGb" => body.replica_memory_gb = after.and_then(Value::as_f64),
                _ => {}
            }
        }
        let operation = Operation::PipeScaling {
            service_id: live_service.id.clone(),
            pipe_id: pipe.id.clone(),
            body,
        };
        self.push(change, Some((operation, Vec::new())));
    }

    // -----------------------------------------------------------------------------------------
    // Stacks: dashboards and alerts

    fn stack(&mut self, config: &Config, stack: &StackConfig) {
        let target = match &stack.target {
            model::StackTarget::Observability => StackTarget::Observability,
            model::StackTarget::Managed { service } => match config.services.get(&service.value) {
                Some(s) => StackTarget::Managed {
                    service_id: s.id.value.clone(),
                },
                None => {
                    self.error(
                        Diagnostic::error(
                            "plan::unknown-service",
                            format!(
                                "stack `{}` names service `{}`, which the config does not define",
                                stack.key.value, service.value
                            ),
                            Some(service.span),
                        )
                        .with_help("name a key under `services:`"),
                    );
                    return;
                }
            },
        };
        let stack_ref = StackRef {
            key: stack.key.value.clone(),
            target,
        };
        let empty = StackLive::default();
        let live = self.live.stacks.get(&stack.key.value).unwrap_or(&empty);
        let tag = ownership_tag(&stack.key.value);
        let index = StackIndex::new(live);

        if let Some(warning) = newer_format_tiles(stack, &index) {
            self.diagnostics.push(warning);
        }

        // Dashboards: create or update, config order.
        let mut planned: BTreeMap<&str, PlannedDashboard> = BTreeMap::new();
        for dashboard in stack.dashboards.values() {
            if let Some(p) = self.dashboard(stack, &stack_ref, &index, &tag, dashboard) {
                planned.insert(dashboard.key.value.as_str(), p);
            }
        }
        let planned_by_live_id: BTreeMap<&str, &PlannedDashboard> = planned
            .values()
            .filter_map(|p| p.live.map(|d| (d.id.as_str(), p)))
            .collect();

        let owned: Vec<&Dashboard> = live
            .dashboards
            .iter()
            .filter(|d| d.tags.contains(&tag))
            .collect();
        // Alerts are owned through their dashboard: a tagged one, or one the config lists (it
        // is converge's to manage even before the tag rides along with a change).
        let owned_ids: BTreeSet<&str> = owned
            .iter()
            .map(|d| d.id.as_str())
            .chain(
                planned
                    .values()
                    .filter_map(|p| p.live.map(|d| d.id.as_str())),
            )
            .collect();
        // A live object named as the config names it now (as the server stores names), or as
        // it was named before a rename, is the config's: never stray, even when its own planning
        // reported an error.
        let config_alert_names: BTreeSet<String> = stack
            .alerts
            .values()
            .flat_map(|a| std::iter::once(&a.name).chain(&a.renamed_from))
            .map(|n| normalize::name_key(&n.value))
            .collect();
        let config_dashboard_names: BTreeSet<String> = stack
            .dashboards
            .values()
            .flat_map(|d| std::iter::once(&d.name).chain(&d.renamed_from))
            .map(|n| normalize::name_key(&n.value))
            .collect();

        // Steps touching alerts that live on each dashboard, so its delete waits for them.
        let mut alert_steps_by_dashboard: BTreeMap<String, Vec<usize>> = BTreeMap::new();

        // Owned alerts missing from the config: deleted first (prune) or reported.
        let mut stray: Vec<&Alert> = live
            .alerts
            .iter()
            .filter(|a| {
                a.dashboard
                    .as_deref()
                    .is_some_and(|d| owned_ids.contains(d))
                    && !config_alert_names.contains(&normalize::name_key(&a.name))
            })
            .collect();
        stray.sort_by(|a, b| (&a.name, &a.id).cmp(&(&b.name, &b.id)));
        let stray_alerts = stray.clone();
        for alert in stray {
            let address = format!("alert.{}[{:?}]", stack.key.value, alert.name);
            if stack.prune {
                let before = normalize::alert(alert, index.dashboard_of(alert));
                let operation = Operation::AlertDelete {
                    stack: stack_ref.clone(),
                    alert_id: alert.id.clone(),
                };
                let step = self.push(
                    Change {
                        address,
                        action: Action::Delete,
                        reason: "not in the config; prune is on".into(),
                        fields: diff::deleted(&before),
                        before: Some(before),
                        after: None,
                        fingerprint: Some(fingerprint::alert(alert)),
                        step: None,
                        renamed_from: None,
                    },
                    Some((operation, Vec::new())),
                );
                if let (Some(step), Some(d)) = (step, &alert.dashboard) {
                    alert_steps_by_dashboard
                        .entry(d.clone())
                        .or_default()
                        .push(step);
                }
            } else {
                self.plan.unmanaged.push(Unmanaged {
                    address,
                    reason: "on a dashboard converge owns but not in the config; prune is off"
                        .into(),
                });
            }
        }

        // Alerts of the config.
        let mut created_alerts = Vec::new();
        for alert in stack.alerts.values() {
            let created_on = self.alert(
                stack,
                &stack_ref,
                &index,
                (&planned, &planned_by_live_id),
                alert,
                &mut alert_steps_by_dashboard,
            );
            if let Some(tile_id) = created_on {
                created_alerts.push((alert, tile_id));
            }
        }
        for (alert, tile_id) in created_alerts {
            let same_tile: Vec<&str> = stray_alerts
                .iter()
                .filter(|a| a.tile_id.as_deref() == Some(tile_id.as_str()))
                .map(|a| a.name.as_str())
                .collect();
            self.maybe_renamed("alert", &alert.key.value, &alert.name, &same_tile);
        }

        // Owned dashboards missing from the config: deleted last (prune) or reported.
        let mut stray: Vec<&Dashboard> = owned
            .into_iter()
            .filter(|d| !config_dashboard_names.contains(&normalize::name_key(&d.name)))
            .collect();
        stray.sort_by(|a, b| (&a.name, &a.id).cmp(&(&b.name, &b.id)));
        for created in planned.values().filter(|p| p.live.is_none()) {
            let config = created.config;
            let alike: Vec<&str> = stray
                .iter()
                .filter(|d| {
                    d.tiles
                        .iter()
                        .any(|t| config.tiles.iter().any(|c| c.name.value == t.name))
                })
                .map(|d| d.name.as_str())
                .collect();
            self.maybe_renamed("dashboard", &config.key.value, &config.name, &alike);
        }
        for dashboard in stray {
            let address = format!("dashboard.{}[{:?}]", stack.key.value, dashboard.name);
            if stack.prune {
                let before = normalize::dashboard(dashboard);
                let operation = Operation::DashboardDelete {
                    stack: stack_ref.clone(),
                    dashboard_id: dashboard.id.clone(),
                };
                let depends_on = alert_steps_by_dashboard
                    .get(&dashboard.id)
                    .cloned()
                    .unwrap_or_default();
                self.push(
                    Change {
                        address,
                        action: Action::Delete,
                        reason: "not in the config; prune is on".into(),
                        fields: diff::deleted(&before),
                        before: Some(before),
                        after: None,
                        fingerprint: Some(fingerprint::dashboard(dashboard)),
                        step: None,
                        renamed_from: None,
                    },
                    Some((operation, depends_on)),
                );
            } else {
                self.plan.unmanaged.push(Unmanaged {
                    address,
                    reason: "owned by converge but not in the config; prune is off".into(),
                });
            }
        }
    }

    /// A warning when an object is created while an owned object like it (a dashboard sharing
    /// a tile name, an alert on the same tile) that the config no longer names is deleted or
    /// left behind: it may be a rename that forgot `renamedFrom`.
    fn maybe_renamed(
        &mut self,
        kind: &str,
        key: &str,
        name: &model::Located<String>,
        left_behind: &[&str],
    ) {
        if left_behind.is_empty() {
            return;
        }
        let names: Vec<String> = left_behind.iter().map(|n| format!("{n:?}")).collect();
        self.diagnostics.push(
            Diagnostic::warning(
                "plan::maybe-renamed",
                format!(
                    "{kind} `{key}` is created as a new {kind}, while {} that converge owns and the config no longer names is left behind (or pruned)",
                    names.join(", ")
                ),
                Some(name.span),
            )
            .with_label("created as a new object")
            .with_help(format!(
                "if this {kind} was renamed, add `renamedFrom: [{}]` under it: it is then updated in place and keeps its id",
                left_behind.first().copied().unwrap_or_default()
            )),
        );
    }

    /// The live tile each config tile is: by name or `renamedFrom`; else, for a tile without
    /// `renamedFrom`, the live tile at the same place in the list when no config tile names it
    /// (a tile renamed where it stands). `None` when a tile could be two live tiles (reported).
    fn match_tiles(
        &mut self,
        dashboard_key: &str,
        config: &DashboardConfig,
        live: &Dashboard,
    ) -> Option<Vec<Option<usize>>> {
        let mut matched: Vec<Option<usize>> = vec![None; config.tiles.len()];
        let mut claimed: BTreeSet<usize> = BTreeSet::new();
        let mut failed = false;
        for (i, tile) in config.tiles.iter().enumerate() {
            let found: Vec<(usize, Option<&model::Located<String>>)> = live
                .tiles
                .iter()
                .enumerate()
                .filter_map(|(j, t)| {
                    if t.name == tile.name.value {
                        Some((j, None))
                    } else {
                        tile.renamed_from
                            .iter()
                            .find(|old| old.value == t.name)
                            .map(|old| (j, Some(old)))
                    }
                })
                .collect();
            match found.as_slice() {
                [] => {}
                [(j, _)] if claimed.insert(*j) => matched[i] = Some(*j),
                _ => {
                    let listed: Vec<(String, String, Option<model::Span>)> = found
                        .iter()
                        .map(|(j, old)| {
                            let t = &live.tiles[*j];
                            (
                                t.name.clone(),
                                t.id.clone().unwrap_or_default(),
                                old.map(|o| o.span),
                            )
                        })
                        .collect();
                    let what = format!("tile `{}` of dashboard `{dashboard_key}`", tile.name.value);
                    self.error(ambiguous("tile", &what, &tile.name, &listed));
                    failed = true;
                }
            }
        }
        if failed {
            return None;
        }
        let named: BTreeSet<&str> = config
            .tiles
            .iter()
            .flat_map(|t| std::iter::once(&t.name).chain(&t.renamed_from))
            .map(|n| n.value.as_str())
            .collect();
        for (i, tile) in config.tiles.iter().enumerate() {
            if matched[i].is_some() || !tile.renamed_from.is_empty() {
                continue;
            }
            if let Some(live_tile) = live.tiles.get(i)
                && !claimed.contains(&i)
                && !named.contains(live_tile.name.as_str())
            {
                claimed.insert(i);
                matched[i] = Some(i);
            }
        }
        Some(matched)
    }

    fn dashboard<'c, 'l>(
        &mut self,
        stack: &StackConfig,
        stack_ref: &StackRef,
        index: &StackIndex<'l>,
        tag: &str,
        config: &'c DashboardConfig,
    ) -> Option<PlannedDashboard<'c, 'l>> {
        // Names as the server stores them ([`normalize::name_key`]).
        let by_name = |name: &str| {
            index
                .dashboards_by_name
                .get(&normalize::name_key(name))
                .cloned()
                .unwrap_or_default()
        };
        let same_name: Vec<&'l Dashboard> = by_name(&config.name.value);
        if same_name.len() > 1 {
            let ids: Vec<&str> = same_name.iter().map(|d| d.id.as_str()).collect();
            self.error(
                Diagnostic::error(
                    "plan::duplicate-dashboard",
                    format!(
                        "stack `{}` has {} dashboards named \"{}\" (ids {}); converge matches dashboards by name",
                        stack.key.value,
                        same_name.len(),
                        config.name.value,
                        ids.join(", ")
                    ),
                    Some(config.name.span),
                )
                .with_label("matches more than one live dashboard")
                .with_help("delete or rename all but one of them in the stack, then plan again"),
            );
            return None;
        }
        let found = candidates(by_name, &config.name.value, &config.renamed_from);
        if found.len() > 1 {
            let listed: Vec<(String, String, Option<model::Span>)> = found
                .iter()
                .map(|(d, old)| (d.name.clone(), d.id.clone(), old.map(|o| o.span)))
                .collect();
            let what = format!("`dashboard.{}.{}`", stack.key.value, config.key.value);
            self.error(ambiguous("dashboard", &what, &config.name, &listed));
            return None;
        }
        let existing: Option<&'l Dashboard> = found.first().map(|(d, _)| *d);
        let matched = match existing {
            Some(live) => self.match_tiles(&config.key.value, config, live)?,
            None => vec![None; config.tiles.len()],
        };
        // Matched under its current name: the name as the server stores it (a renamed one takes
        // the config's).
        let stored = existing.filter(|d| normalize::same_name(&d.name, &config.name.value));
        if let Some(live) = stored {
            self.stored_name("dashboard", &config.name, &live.name);
        }
        let desired_name = stored.map_or_else(|| config.name.value.clone(), |d| d.name.clone());

        let mut failed = false;
        let mut tiles = Vec::with_capacity(config.tiles.len());
        let mut tile_ids = BTreeMap::new();
        let mut tile_renames: Vec<(String, String)> = Vec::new();
        for (tile, live_index) in config.tiles.iter().zip(&matched) {
            let mut series = Vec::with_capacity(tile.series.len());
            for s in &tile.series {
                let source_id = match &s.source {
                    None => None,
                    Some(SourceRef::Id(id)) => Some(id.value.clone()),
                    Some(SourceRef::Name(name)) => {
                        match resolve_source(&index.live.sources, name) {
                            Ok(id) => Some(id),
                            Err(diagnostic) => {
                                self.error(*diagnostic);
                                failed = true;
                                None
                            }
                        }
                    }
                };
                series.push(wire_series(s, source_id));
            }
            // Carry the live tile's id forward so alerts on it survive the update.
            let live_tile = existing.zip(*live_index).map(|(d, j)| &d.tiles[j]);
            let id = live_tile.and_then(|t| t.id.clone());
            if let Some(id) = &id {
                tile_ids.insert(tile.name.value.clone(), id.clone());
            }
            if let Some(live_tile) = live_tile
                && live_tile.name != tile.name.value
            {
                tile_renames.push((live_tile.name.clone(), tile.name.value.clone()));
            }
            tiles.push(Tile {
                id,
                name: tile.name.value.clone(),
                x: tile.x.value,
                y: tile.y.value,
                w: tile.w.value,
                h: tile.h.value,
                as_ratio: tile.as_ratio.as_ref().map(|v| v.value),
                series,
                config: None,
            });
        }
        if failed {
            return None;
        }
        // A live tile of the newer format (`config`, no `series`) is left as the server has it:
        // compared as itself and sent back unchanged (the stack's warning says why).
        if let Some(live) = existing {
            for tile in &mut tiles {
                if let Some(newer) = live
                    .tiles
                    .iter()
                    .find(|t| t.name == tile.name && t.is_newer_format())
                {
                    *tile = newer.clone();
                }
            }
        }
        let mut tags: Vec<String> = config.tags.iter().map(|t| t.value.clone()).collect();
        tags.push(tag.to_string());
        let tags = normalize::tags(&tags);
        let desired_tags = tags.clone();
        let desired = Dashboard {
            id: String::new(),
            // The name as the server stores it: sending it as written would never stick.
            name: desired_name.clone(),
            tiles,
            tags,
        };
        let after = normalize::dashboard(&desired);
        let address = format!("dashboard.{}.{}", stack.key.value, config.key.value);
        let renamed_view = existing
            .filter(|d| d.name != desired_name || !tile_renames.is_empty())
            .map(|live| {
                let mut view = live.clone();
                view.name = desired_name.clone();
                for (tile, live_index) in config.tiles.iter().zip(&matched) {
                    if let Some(t) = live_index.and_then(|j| view.tiles.get_mut(j)) {
                        t.name = tile.name.value.clone();
                    }
                }
                view
            });
        let mut planned = PlannedDashboard {
            config,
            live: existing,
            step: None,
            tile_ids,
            renamed_view,
            updated: false,
        };
        let body = DashboardRequest {
            name: desired.name,
            tiles: desired.tiles,
            tags: desired.tags,
        };
        match existing {
            None => {
                let operation = Operation::DashboardCreate {
                    stack: stack_ref.clone(),
                    body: DashboardRequest {
                        // A create ignores tile ids; none are sent.
                        tiles: body
                            .tiles
                            .into_iter()
                            .map(|t| Tile { id: None, ..t })
                            .collect(),
                        ..body
                    },
                };
                let order: Vec<&str> = config.tiles.iter().map(|t| t.name.value.as_str()).collect();
                let after = tiles_in_order(after, &order);
                planned.step = self.push(
                    Change {
                        address,
                        action: Action::Create,
                        reason: "no dashboard with this name in the stack".into(),
                        fields: diff::created(&after),
                        before: None,
                        after: Some(after),
                        fingerprint: None,
                        step: None,
                        renamed_from: None,
                    },
                    Some((operation, Vec::new())),
                );
            }
            Some(live_dashboard) => {
                let before = normalize::dashboard(live_dashboard);
                // Compared under the names the config gives (a renamed tile is matched to its
                // live self); the renames themselves lead the field list.
                let compared_before = planned
                    .renamed_view
                    .as_ref()
                    .map_or_else(|| before.clone(), normalize::dashboard);
                let mut after = after;
                let mut fields = diff(&compared_before, &after);
                if !live_dashboard.tags.iter().any(|t| t == tag) && tile_renames.is_empty() {
                    // A dashboard the config adopts gets the ownership tag with its next real
                    // change; the tag alone is no reason to write (an exported config plans to
                    // no changes).
                    let mut untagged = desired_tags.clone();
                    untagged.retain(|t| t != tag);
                    let mut comparable = after.clone();
                    if let Value::Object(map) = &mut comparable {
                        map.insert("tags".into(), json!(untagged));
                    }
                    if diff(&compared_before, &comparable).is_empty()
                        && live_dashboard.name == desired_name
                    {
                        fields.clear();
                        after = comparable;
                    }
                }
                let mut renames = Vec::new();
                if live_dashboard.name != desired_name {
                    renames.push(FieldChange {
                        path: "name".into(),
                        before: Some(json!(live_dashboard.name)),
                        after: Some(json!(desired_name)),
                    });
                }
                for (old, new) in &tile_renames {
                    renames.push(FieldChange {
                        path: format!("tiles[{new}].name"),
                        before: Some(json!(old)),
                        after: Some(json!(new)),
                    });
                }
                renames.append(&mut fields);
                let mut change = compared(
                    address,
                    before,
                    after,
                    renames,
                    fingerprint::dashboard(live_dashboard),
                );
                if live_dashboard.name != desired_name {
                    change.reason = rename_reason(&live_dashboard.name, &change.fields);
                    change.renamed_from = Some(live_dashboard.name.clone());
                }
                if change.action == Action::NoOp {
                    self.push(change, None);
                } else {
                    let operation = Operation::DashboardUpdate {
                        stack: stack_ref.clone(),
                        dashboard_id: live_dashboard.id.clone(),
                        body,
                    };
                    planned.step = self.push(change, Some((operation, Vec::new())));
                    planned.updated = true;
                }
            }
        }
        Some(planned)
    }

    fn alert(
        &mut self,
        stack: &StackConfig,
        stack_ref: &StackRef,
        index: &StackIndex,
        (planned, planned_by_live_id): (
            &BTreeMap<&str, PlannedDashboard>,
            &BTreeMap<&str, &PlannedDashboard>,
        ),
        config: &AlertConfig,
        alert_steps_by_dashboard: &mut BTreeMap<String, Vec<usize>>,
    ) -> Option<String> {
        let Some(dashboard_config) = stack.dashboards.get(&config.dashboard.value) else {
            self.error(
                Diagnostic::error(
                    "plan::unknown-dashboard",
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
                    "plan::unknown-tile",
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
        // A dashboard with its own errors gets no change; its alerts wait for it silently.
        let dashboard = planned.get(dashboard_config.key.value.as_str())?;
        let live_tile_id = dashboard.tile_ids.get(&config.tile.value).cloned();
        let (target, dashboard_id, tile_id) = match (dashboard.live, live_tile_id.clone()) {
            (Some(d), Some(tile_id)) => (AlertTarget::Ids, Some(d.id.clone()), Some(tile_id)),
            _ => (
                AlertTarget::Names {
                    dashboard: dashboard.config.name.value.clone(),
                    tile: config.tile.value.clone(),
                },
                None,
                None,
            ),
        };
        let same_name: &[&Alert] = index
            .alerts_by_name
            .get(&normalize::name_key(&config.name.value))
            .map(Vec::as_slice)
            .unwrap_or_default();
        if same_name.len() > 1 {
            let ids: Vec<&str> = same_name.iter().map(|a| a.id.as_str()).collect();
            self.error(
                Diagnostic::error(
                    "plan::duplicate-alert",
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
                .with_help("delete or rename all but one of them in the stack, then plan again"),
            );
            return None;
        }
        let by_name = |name: &str| {
            index
                .alerts_by_name
                .get(&normalize::name_key(name))
                .cloned()
                .unwrap_or_default()
        };
        let found = candidates(by_name, &config.name.value, &config.renamed_from);
        if found.len() > 1 {
            let listed: Vec<(String, String, Option<model::Span>)> = found
                .iter()
                .map(|(a, old)| (a.name.clone(), a.id.clone(), old.map(|o| o.span)))
                .collect();
            let what = format!("`alert.{}.{}`", stack.key.value, config.key.value);
            self.error(ambiguous("alert", &what, &config.name, &listed));
            return None;
        }
        let existing = found.first().map(|(a, _)| *a);
        // Names as the server stores them (see `stored_name`); a renamed alert takes the
        // config's name, and its dashboard the name the config gives it.
        let stored = existing.filter(|a| normalize::same_name(&a.name, &config.name.value));
        if let Some(live) = stored {
            self.stored_name("alert", &config.name, &live.name);
        }
        let name = stored.map_or_else(|| config.name.value.clone(), |a| a.name.clone());
        let dashboard_name = dashboard
            .live
            .filter(|d| normalize::same_name(&d.name, &dashboard.config.name.value))
            .map_or_else(|| dashboard.config.name.value.clone(), |d| d.name.clone());
        // The alert's live dashboard under the names the config gives it and its tiles.
        let dashboard_view = |alert: &Alert| -> Option<&Dashboard> {
            alert
                .dashboard
                .as_deref()
                .and_then(|id| planned_by_live_id.get(id))
                .and_then(|p| p.renamed_view.as_ref())
                .or_else(|| index.dashboard_of(alert))
        };
        let source = config.source.as_ref().map(|s| s.value.clone());
        let channel = Some(Channel {
            kind: config.channel.kind.value.clone(),
            webhook_id: config.channel.webhook_id.as_ref().map(|v| v.value.clone()),
        });
        let threshold_type = Some(config.threshold_type.value.clone());
        let interval = Some(config.interval.value.clone());
        let message = config.message.as_ref().map(|m| m.value.clone());
        let mut after = normalize::alert_view(&AlertView {
            name: &name,
            dashboard: dashboard_name,
            tile: config.tile.value.clone(),
            threshold: Some(config.threshold.value),
            threshold_type: &threshold_type,
            interval: &interval,
            source: &source,
            channel: &channel,
            message: &message,
        });
        // A message the config does not mention is not managed: kept as it is live (a PUT
        // would otherwise empty it).
        if message.is_none()
            && let Value::Object(map) = &mut after
        {
            map.remove("message");
        }
        let body = AlertRequest {
            dashboard_id,
            tile_id,
            threshold: Some(config.threshold.value),
            interval,
            source: Some(source.unwrap_or_else(|| "tile".to_string())),
            threshold_type,
            channel,
            name: Some(name.clone()),
            message: message.or_else(|| existing.and_then(|a| a.message.clone())),
        };
        let address = format!("alert.{}.{}", stack.key.value, config.key.value);
        let mut depends_on: Vec<usize> = dashboard.step.into_iter().collect();

        // The server deletes an alert whose tile a dashboard update removes: such an alert is
        // created again after the update rather than updated.
        let doomed = existing.is_some_and(|alert| {
            let Some(live_dashboard) = index.dashboard_of(alert) else {
                return false;
            };
            let Some(tile_id) = alert.tile_id.as_deref().filter(|id| {
                live_dashboard
                    .tiles
                    .iter()
                    .any(|t| t.id.as_deref() == Some(*id))
            }) else {
                return false;
            };
            planned_by_live_id
                .get(live_dashboard.id.as_str())
                .is_some_and(|p| p.updated && !p.keeps_tile(tile_id))
        });

        let (change, operation) = match existing {
            Some(alert) if !doomed => {
                let full_before = normalize::alert(alert, dashboard_view(alert));
                let before = normalize::project(&full_before, &after);
                let mut fields = diff(&before, &after);
                // A rename leads, as it does on a dashboard.
                fields.sort_by_key(|f| f.path != "name");
                let action = if fields.is_empty() {
                    Action::NoOp
                } else {
                    Action::Update
                };
                let renamed_from = (alert.name != name).then(|| alert.name.clone());
                let operation = (action == Action::Update).then(|| Operation::AlertUpdate {
                    stack: stack_ref.clone(),
                    alert_id: alert.id.clone(),
                    target: target.clone(),
                    body: body.clone(),
                });
                (
                    Change {
                        address,
                        action,
                        reason: match &renamed_from {
                            Some(old) => rename_reason(old, &fields),
                            None => diff::reason(&fields),
                        },
                        before: Some(before),
                        after: Some(after),
                        fields,
                        fingerprint: Some(fingerprint::alert(alert)),
                        step: None,
                        renamed_from,
                    },
                    operation,
                )
            }
            _ => {
                let reason = if doomed {
                    "its tile is removed by the dashboard update, which deletes it; created again"
                } else {
                    "no alert with this name in the stack"
                };
                let operation = Operation::AlertCreate {
                    stack: stack_ref.clone(),
                    target,
                    body,
                };
                (
                    Change {
                        address,
                        action: Action::Create,
                        reason: reason.into(),
                        fields: diff::created(&after),
                        before: None,
                        after: Some(after),
                        fingerprint: None,
                        step: None,
                        renamed_from: None,
                    },
                    Some(operation),
                )
            }
        };
        depends_on.sort_unstable();
        // The live tile a new alert goes on, for the hint about a rename without `renamedFrom`.
        let created_on = existing.is_none().then(|| live_tile_id.clone()).flatten();
        let step = self.push(change, operation.map(|op| (op, depends_on)));
        // A dashboard deleted by prune must wait for alerts moving off it.
        if let (Some(step), Some(alert)) = (step, existing)
            && let Some(d) = &alert.dashboard
        {
            alert_steps_by_dashboard
                .entry(d.clone())
                .or_default()
                .push(step);
        }
        created_on
    }
}

/// The name of every source whose id a change shows (`sourceId` in a before or after value),
/// from the stacks' sources lists.
pub fn source_names(plan: &Plan, live: &LiveState) -> BTreeMap<String, String> {
    fn ids<'v>(value: &'v Value, out: &mut BTreeSet<&'v str>) {
        match value {
            Value::Object(map) => {
                for (key, v) in map {
                    match (key.as_str(), v) {
                        ("sourceId", Value::String(id)) => {
                            out.insert(id);
                        }
                        _ => ids(v, out),
                    }
                }
            }
            Value::Array(items) => items.iter().for_each(|v| ids(v, out)),
            _ => {}
        }
    }
    let mut wanted = BTreeSet::new();
    for change in &plan.changes {
        for value in change.before.iter().chain(&change.after) {
            ids(value, &mut wanted);
        }
    }
    let mut names = BTreeMap::new();
    for source in live.stacks.values().flat_map(|s| &s.sources) {
        if wanted.contains(source.id.as_str()) && !source.name.is_empty() {
            names
                .entry(source.id.clone())
                .or_insert_with(|| source.name.clone());
        }
    }
    names
}

/// A created dashboard's tiles in the config's order (the normalized value sorts them by
/// name), so its rendering reads as the config does.
fn tiles_in_order(mut dashboard: Value, order: &[&str]) -> Value {
    if let Some(Value::Array(tiles)) = dashboard.get_mut("tiles") {
        tiles.sort_by_key(|t| {
            let name = t.get("name").and_then(Value::as_str).unwrap_or_default();
            order.iter().position(|n| *n == name).unwrap_or(usize::MAX)
        });
    }
    dashboard
}

/// One warning per stack whose live tiles, named by the config, are of the newer format
/// (`config` instead of `series`): what converge manages, what the server speaks, what to do.
fn newer_format_tiles(stack: &StackConfig, index: &StackIndex<'_>) -> Option<Diagnostic> {
    let mut found: Vec<String> = Vec::new();
    for dashboard in stack.dashboards.values() {
        let Some([live]) = index
            .dashboards_by_name
            .get(dashboard.name.value.as_str())
            .map(Vec::as_slice)
        else {
            continue;
        };
        for tile in &dashboard.tiles {
            if live
                .tiles
                .iter()
                .any(|t| t.name == tile.name.value && t.is_newer_format())
            {
                found.push(format!("{} / {}", dashboard.name.value, tile.name.value));
            }
        }
    }
    let first = found.first()?;
    let more = match found.len() {
        1 => String::new(),
        n => format!(" and {} more", n - 1),
    };
    Some(
        Diagnostic::warning(
            "plan::newer-tile-format",
            format!(
                "stack `{}`: the server keeps {} tile(s) ({first}{more}) in a newer format (`config` instead of `series`); converge manages tiles by `series`, the format of the API contract, so it leaves these tiles as they are: not compared, not changed",
                stack.key.value,
                found.len(),
            ),
            Some(stack.key.span),
        )
        .with_help(
            "edit these tiles in the stack's own UI, or delete them there so that converge creates them again from the config",
        ),
    )
}

/// The change for an object that exists live: an update when any managed field differs, else
/// a no-op; either way it records the live object's fingerprint.
fn compared(
    address: String,
    before: Value,
    after: Value,
    fields: Vec<FieldChange>,
    fingerprint: Fingerprint,
) -> Change {
    Change {
        address,
        action: if fields.is_empty() {
            Action::NoOp
        } else {
            Action::Update
        },
        reason: diff::reason(&fields),
        before: Some(before),
        after: Some(after),
        fingerprint: Some(fingerprint),
        fields,
        step: None,
        renamed_from: None,
    }
}

/// Resolves a series' `source:` name to the id the stack's sources list gives it; the
/// diagnostic points at the name and lists the stack's sources. Preview uses it too.
pub fn resolve_source(
    sources: &[Source],
    name: &model::Located<String>,
) -> Result<String, Box<Diagnostic>> {
    if let Some(source) = sources.iter().find(|s| s.name == name.value) {
        return Ok(source.id.clone());
    }
    let mut names: Vec<&str> = sources.iter().map(|s| s.name.as_str()).collect();
    names.sort_unstable();
    let help = if names.is_empty() {
        "the stack has no sources; use `sourceId:` or create the source first".to_string()
    } else {
        format!("sources of this stack: {}", names.join(", "))
    };
    Err(Box::new(
        Diagnostic::error(
            "plan::unknown-source",
            format!("no source named \"{}\" in the stack", name.value),
            Some(name.span),
        )
        .with_label("not in the stack's sources")
        .with_help(help),
    ))
}

/// A config series as the API takes it, with its source already resolved to an id. Dashboards
/// (the planner) and chart queries (preview, `--check-queries`) send the same shape.
pub fn wire_series(series: &model::SeriesConfig, source_id: Option<String>) -> Series {
    let text = |v: &Option<model::Located<String>>| v.as_ref().map(|v| v.value.clone());
    Series {
        kind: text(&series.kind),
        data_source: text(&series.data_source),
        source_id,
        agg_fn: text(&series.agg_fn),
        field: text(&series.field),
        where_: text(&series.where_),
        where_language: text(&series.where_language),
        group_by: series
            .group_by
            .as_ref()
            .map(|g| g.iter().map(|v| v.value.clone()).collect()),
        metric_name: text(&series.metric_name),
        metric_data_type: text(&series.metric_data_type),
    }
}

fn pipe_field_diagnostic(
    service: &ServiceConfig,
    pipe: &PipeConfig,
    kind: SourceKind,
    field: &str,
    span: model::Span,
) -> Diagnostic {
    let applicable: Vec<&str> = [
        "replicas",
        "concurrency",
        "replicaCpuMillicores",
        "replicaMemoryGb",
    ]
    .into_iter()
    .filter(|f| kind.scales(f))
    .collect();
    let help = if applicable.is_empty() {
        format!(
            "{} pipes are not scaled per pipe; remove `scaling` from this pipe",
            kind.as_str()
        )
    } else {
        format!(
            "{} pipes scale by {}; remove `{field}`",
            kind.as_str(),
            applicable.join(", ")
        )
    };
    Diagnostic::error(
        "plan::pipe-scaling-field",
        format!(
            "`{field}` does not apply to pipe `{}.{}`, whose source is {}",
            service.key.value,
            pipe.key.value,
            kind.as_str()
        ),
        Some(span),
    )
    .with_label(format!("not a scaling field of {} pipes", kind.as_str()))
    .with_help(help)
}
