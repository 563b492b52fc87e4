//! `--wait`: scaling is applied asynchronously, so after the writes the services list and the
//! pipes lists are polled (one list per service, within the rate limit like any request) until
//! every scaling change that was written shows, or the timeout passes.

use std::collections::BTreeSet;

use tokio::sync::watch;

use super::model::{Options, Status};
use super::report::{Report, WaitReport};
use crate::api::clients::Clients;
use crate::api::wire::{Pipe, PipeScalingPatch, Service, ServiceScalingPatch};
use crate::output::Printer;
use crate::plan::{Operation, Plan};

fn close(a: Option<f64>, b: Option<f64>) -> bool {
    match (a, b) {
        (Some(a), Some(b)) => (a - b).abs() < 1e-9,
        _ => false,
    }
}

/// Whether a service shows every field of a scaling patch.
pub(crate) fn service_shows(service: &Service, patch: &ServiceScalingPatch) -> bool {
    let number = |want: Option<f64>, have: Option<f64>| want.is_none() || close(want, have);
    number(patch.num_replicas, service.num_replicas)
        && number(patch.min_total_memory_gb, service.min_total_memory_gb)
        && number(patch.max_total_memory_gb, service.max_total_memory_gb)
        && number(patch.idle_timeout_minutes, service.idle_timeout_minutes)
        && patch
            .idle_scaling
            .is_none_or(|want| service.idle_scaling == Some(want))
}

/// Whether a pipe shows every field of a scaling patch.
pub(crate) fn pipe_shows(pipe: &Pipe, patch: &PipeScalingPatch) -> bool {
    let Some(scaling) = &pipe.scaling else {
        return false;
    };
    let integer = |want: Option<i64>, have: Option<i64>| want.is_none() || want == have;
    integer(patch.replicas, scaling.replicas)
        && integer(patch.concurrency, scaling.concurrency)
        && integer(patch.replica_cpu_millicores, scaling.replica_cpu_millicores)
        && (patch.replica_memory_gb.is_none()
            || close(patch.replica_memory_gb, scaling.replica_memory_gb))
}

/// Polls until the scaling steps `report` marks done show their values, the timeout passes or
/// `cancel` turns true.
pub(crate) async fn wait(
    plan: &Plan,
    report: &Report,
    clients: &Clients,
    options: &Options,
    mut cancel: watch::Receiver<bool>,
    printer: &Printer,
) -> WaitReport {
    let mut pending: Vec<&crate::plan::Step> = plan
        .steps
        .iter()
        .filter(|step| {
            matches!(
                step.operation,
                Operation::ServiceScaling { .. } | Operation::PipeScaling { .. }
            ) && report
                .steps
                .iter()
                .any(|r| r.id == step.id && r.status == Status::Done)
        })
        .collect();
    let Some(cloud) = &clients.cloud else {
        return WaitReport {
            settled: pending.is_empty(),
            pending: pending.iter().map(|s| s.address.clone()).collect(),
        };
    };
    if !pending.is_empty() {
        printer.err(&format!(
            "waiting up to {}s for {} scaling change(s) to show",
            options.timeout.as_secs(),
            pending.len()
        ));
    }
    let total = pending.len();
    // `None` only for a timeout beyond what the clock can count: no deadline, not a panic.
    let deadline = tokio::time::Instant::now().checked_add(options.timeout);
    while !pending.is_empty() {
        let before: Vec<String> = pending.iter().map(|s| s.address.clone()).collect();
        let mut services: Option<Vec<Service>> = None;
        if pending
            .iter()
            .any(|s| matches!(s.operation, Operation::ServiceScaling { .. }))
        {
            services = cloud.list_services().await.ok();
        }
        let pipe_services: BTreeSet<&str> = pending
            .iter()
            .filter_map(|s| match &s.operation {
                Operation::PipeScaling { service_id, .. } => Some(service_id.as_str()),
                _ => None,
            })
            .collect();
        let mut pipes: Vec<(String, Vec<Pipe>)> = Vec::new();
        for service in pipe_services {
            if let Ok(list) = cloud.list_pipes(service).await {
                pipes.push((service.to_string(), list));
            }
        }
        pending.retain(|step| match &step.operation {
            Operation::ServiceScaling { service_id, body } => !services
                .as_ref()
                .and_then(|list| list.iter().find(|s| s.id == *service_id))
                .is_some_and(|s| service_shows(s, body)),
            Operation::PipeScaling {
                service_id,
                pipe_id,
                body,
            } => !pipes
                .iter()
                .find(|(id, _)| id == service_id)
                .and_then(|(_, list)| list.iter().find(|p| p.id == *pipe_id))
                .is_some_and(|p| pipe_shows(p, body)),
            _ => false,
        });
        if pending.len() < before.len() {
            progress(&before, &pending, total, printer);
        }
        let late = deadline.is_some_and(|d| tokio::time::Instant::now() >= d);
        if pending.is_empty() || late || *cancel.borrow() {
            break;
        }
        tokio::select! {
            _ = tokio::time::sleep(options.poll_interval) => {}
            _ = cancel.changed() => {}
        }
    }
    if !pending.is_empty() {
        printer.err(&format!(
            "error: the wait ended after at most {}s with {} scaling change(s) not showing yet: \
             they were accepted and may still apply; raise `--timeout` or run `converge plan` \
             later to check",
            options.timeout.as_secs(),
            pending.len()
        ));
    }
    WaitReport {
        settled: pending.is_empty(),
        pending: pending.iter().map(|s| s.address.clone()).collect(),
    }
}

/// One line for a poll that found changes showing: which, and what is still pending; or that
/// all of them show, so the wait never ends on a line that looks frozen.
fn progress(before: &[String], pending: &[&crate::plan::Step], total: usize, printer: &Printer) {
    let still: Vec<&str> = pending.iter().map(|s| s.address.as_str()).collect();
    let shown: Vec<&str> = before
        .iter()
        .map(String::as_str)
        .filter(|address| !still.contains(address))
        .collect();
    if still.is_empty() {
        printer.err(&format!(
            "scaling shows: {}; all {total} scaling change(s) show",
            shown.join(", ")
        ));
    } else {
        printer.err(&format!(
            "scaling shows: {} ({} of {total}); still pending: {}",
            shown.join(", "),
            total - still.len(),
            still.join(", ")
        ));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::api::wire::PipeScaling;

    #[test]
    fn a_service_shows_a_patch_only_when_every_sent_field_matches() {
        let service = Service {
            num_replicas: Some(3.0),
            idle_scaling: Some(true),
            idle_timeout_minutes: Some(15.0),
            ..Service::default()
        };
        let patch = ServiceScalingPatch {
            num_replicas: Some(3.0),
            idle_scaling: Some(true),
            ..ServiceScalingPatch::default()
        };
        assert!(service_shows(&service, &patch));
        let other = ServiceScalingPatch {
            idle_timeout_minutes: Some(20.0),
            ..patch
        };
        assert!(!service_shows(&service, &other));
    }

    #[test]
    fn a_pipe_with_no_scaling_yet_does_not_show_a_patch() {
        let patch = PipeScaling {
            replicas: Some(4),
            replica_memory_gb: Some(2.0),
            ..PipeScaling::default()
        };
        let mut pipe = Pipe::default();
        assert!(!pipe_shows(&pipe, &patch));
        pipe.scaling = Some(PipeScaling {
            replicas: Some(4),
            replica_memory_gb: Some(2.0),
            concurrency: Some(1),
            ..PipeScaling::default()
        });
        assert!(pipe_shows(&pipe, &patch));
        pipe.scaling = Some(PipeScaling {
            replicas: Some(2),
            ..PipeScaling::default()
        });
        assert!(!pipe_shows(&pipe, &patch));
    }
}
