//! Carries a plan's steps out against an in-memory live state with the server semantics of
//! `api-facts.md` (PATCH merges present members, PUT replaces, tile ids kept only if they
//! exist, removed tiles and deleted dashboards take their alerts along, DELETE of a missing
//! object succeeds). Used to check that planning again after applying finds nothing to do.

use crate::api::wire::{Alert, AlertRequest, Dashboard, DashboardRequest, Tile};
use crate::live::{LiveState, StackLive};
use crate::plan::kinds::alert::op::AlertOp;
use crate::plan::kinds::dashboard::op::DashboardOp;
use crate::plan::kinds::pipe::op::PipeOp;
use crate::plan::kinds::private_endpoint::op::PrivateEndpointOp;
use crate::plan::kinds::service::op::ServiceOp;
use crate::plan::{AlertTarget, Operation, Plan, StackRef, fingerprint};

pub(crate) struct Server {
    next_id: usize,
}

impl Server {
    pub(crate) fn new() -> Self {
        Server { next_id: 0 }
    }

    fn id(&mut self, prefix: &str) -> String {
        self.next_id += 1;
        format!("{prefix}-new-{}", self.next_id)
    }

    pub(crate) fn apply(&mut self, plan: &Plan, live: &mut LiveState) {
        for step in &plan.steps {
            assert!(
                step.depends_on.iter().all(|d| *d < step.id),
                "step {} runs before a dependency",
                step.id
            );
            // What apply's stale check sees right before the write: a fresh plan is never
            // stale. A delete whose object already went (with its dashboard or tile) is done.
            let current = fingerprint::current(&step.operation, live);
            let gone_delete = step.operation.is_destroy() && current.is_none();
            assert!(
                current == step.fingerprint || gone_delete,
                "step {} ({}) would read as stale",
                step.id,
                step.address
            );
            self.operation(&step.operation, live);
        }
    }

    fn operation(&mut self, operation: &Operation, live: &mut LiveState) {
        match operation {
            Operation::Service(ServiceOp::Scaling { service_id, body }) => {
                let service = live.services.get_mut(service_id).unwrap();
                if let Some(v) = body.num_replicas {
                    service.num_replicas = Some(v);
                }
                if let Some(v) = body.idle_scaling {
                    service.idle_scaling = Some(v);
                }
                if let Some(v) = body.idle_timeout_minutes {
                    service.idle_timeout_minutes = Some(v);
                }
                if let Some(v) = body.min_total_memory_gb {
                    service.min_total_memory_gb = Some(v);
                }
                if let Some(v) = body.max_total_memory_gb {
                    service.max_total_memory_gb = Some(v);
                }
            }
            Operation::PrivateEndpoint(PrivateEndpointOp::Create { service_id, body }) => {
                let service = live.services.get_mut(service_id).unwrap();
                if !service.private_endpoint_ids.contains(&body.id) {
                    service.private_endpoint_ids.push(body.id.clone());
                }
            }
            Operation::PrivateEndpoint(PrivateEndpointOp::Detach { service_id, body }) => {
                let service = live.services.get_mut(service_id).unwrap();
                if let Some(ids) = &body.private_endpoint_ids {
                    service
                        .private_endpoint_ids
                        .retain(|id| !ids.remove.contains(id));
                    for id in &ids.add {
                        service.private_endpoint_ids.push(id.clone());
                    }
                }
            }
            Operation::Pipe(PipeOp::Scaling {
                service_id,
                pipe_id,
                body,
            }) => {
                let pipe = live
                    .pipes
                    .get_mut(service_id)
                    .unwrap()
                    .iter_mut()
                    .find(|p| p.id == *pipe_id)
                    .unwrap();
                let scaling = pipe.scaling.get_or_insert_with(Default::default);
                if body.replicas.is_some() {
                    scaling.replicas = body.replicas;
                }
                if body.concurrency.is_some() {
                    scaling.concurrency = body.concurrency;
                }
                if body.replica_cpu_millicores.is_some() {
                    scaling.replica_cpu_millicores = body.replica_cpu_millicores;
                }
                if body.replica_memory_gb.is_some() {
                    scaling.replica_memory_gb = body.replica_memory_gb;
                }
            }
            Operation::Pipe(PipeOp::Delete {
                service_id,
                pipe_id,
            }) => {
                live.pipes
                    .get_mut(service_id)
                    .unwrap()
                    .retain(|p| p.id != *pipe_id);
            }
            Operation::Dashboard(DashboardOp::Create { stack, body }) => {
                let tiles = self.tiles(body, &[]);
                let id = self.id("dash");
                let stack = stack_mut(live, stack);
                stack.dashboards.push(Dashboard {
                    id,
                    name: body.name.clone(),
                    tiles,
                    tags: body.tags.clone(),
                });
            }
            Operation::Dashboard(DashboardOp::Update {
                stack,
                dashboard_id,
                body,
            }) => {
                let existing: Vec<String> = stack_mut(live, stack)
                    .dashboards
                    .iter()
                    .find(|d| d.id == *dashboard_id)
                    .unwrap()
                    .tiles
                    .iter()
                    .filter_map(|t| t.id.clone())
                    .collect();
                let tiles = self.tiles(body, &existing);
                let stack = stack_mut(live, stack);
                let kept: Vec<Option<String>> = tiles.iter().map(|t| t.id.clone()).collect();
                let dashboard = stack
                    .dashboards
                    .iter_mut()
                    .find(|d| d.id == *dashboard_id)
                    .unwrap();
                dashboard.name = body.name.clone();
                dashboard.tags = body.tags.clone();
                dashboard.tiles = tiles;
                stack.alerts.retain(|a| {
                    a.dashboard.as_deref() != Some(dashboard_id) || kept.contains(&a.tile_id)
                });
            }
            Operation::Dashboard(DashboardOp::Delete {
                stack,
                dashboard_id,
            }) => {
                let stack = stack_mut(live, stack);
                stack.dashboards.retain(|d| d.id != *dashboard_id);
                stack
                    .alerts
                    .retain(|a| a.dashboard.as_deref() != Some(dashboard_id));
            }
            Operation::Alert(AlertOp::Create {
                stack,
                target,
                body,
            }) => {
                let id = self.id("alert");
                let stack = stack_mut(live, stack);
                let mut alert = Alert {
                    id,
                    ..Alert::default()
                };
                put_alert(&mut alert, stack, target, body);
                stack.alerts.push(alert);
            }
            Operation::Alert(AlertOp::Update {
                stack,
                alert_id,
                target,
                body,
            }) => {
                let stack = stack_mut(live, stack);
                let mut alert = stack
                    .alerts
                    .iter()
                    .find(|a| a.id == *alert_id)
                    .cloned()
                    .expect("updated alert exists");
                put_alert(&mut alert, stack, target, body);
                for a in stack.alerts.iter_mut().filter(|a| a.id == *alert_id) {
                    *a = alert.clone();
                }
            }
            Operation::Alert(AlertOp::Delete { stack, alert_id }) => {
                stack_mut(live, stack).alerts.retain(|a| a.id != *alert_id);
            }
        }
    }

    fn tiles(&mut self, body: &DashboardRequest, existing: &[String]) -> Vec<Tile> {
        body.tiles
            .iter()
            .map(|t| {
                let id = match &t.id {
                    Some(id) if existing.contains(id) => id.clone(),
                    _ => self.id("tile"),
                };
                Tile {
                    id: Some(id),
                    ..t.clone()
                }
            })
            .collect()
    }
}

fn stack_mut<'l>(live: &'l mut LiveState, stack: &StackRef) -> &'l mut StackLive {
    live.stacks.entry(stack.key.clone()).or_default()
}

/// PUT semantics: every member replaced, omitted ones emptied; names resolved when asked.
fn put_alert(alert: &mut Alert, stack: &StackLive, target: &AlertTarget, body: &AlertRequest) {
    let (dashboard, tile) = match target {
        AlertTarget::Ids => (body.dashboard_id.clone(), body.tile_id.clone()),
        AlertTarget::Names { dashboard, tile } => {
            let d = stack
                .dashboards
                .iter()
                .find(|d| d.name == *dashboard)
                .expect("dashboard named by the alert exists");
            let t = d
                .tiles
                .iter()
                .find(|t| t.name == *tile)
                .expect("tile named by the alert exists");
            (Some(d.id.clone()), t.id.clone())
        }
    };
    alert.dashboard = dashboard;
    alert.tile_id = tile;
    alert.name = body.name.clone().unwrap_or_default();
    alert.message = body.message.clone();
    alert.threshold = body.threshold;
    alert.interval = body.interval.clone();
    alert.threshold_type = body.threshold_type.clone();
    alert.source = body.source.clone();
    alert.channel = body.channel.clone();
}
