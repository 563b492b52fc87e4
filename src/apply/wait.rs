//! `--wait`: scaling is applied asynchronously, so after the writes the services list and the
//! pipes lists are polled (one list per service, within the rate limit like any request) until
//! every scaling change that was written shows, or the timeout passes.

use std::collections::BTreeSet;

use tokio::sync::watch;

use super::kinds::{pipe, service};
use super::model::{Options, Status};
use super::report::{Report, WaitReport};
use crate::api::clients::Clients;
use crate::api::wire::{Pipe, Service};
use crate::output::Printer;
use crate::plan::target::{Key, ScalingWrite};
use crate::plan::{Operation, Plan};

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
    let mut pending = done_steps(plan, report, |op| op.scaling_written().is_some());
    let Some(cloud) = &clients.cloud else {
        return WaitReport {
            settled: pending.is_empty(),
            pending: pending.iter().map(|s| s.address.to_string()).collect(),
            failed: Vec::new(),
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
        let before: Vec<String> = pending.iter().map(|s| s.address.to_string()).collect();
        pending = not_showing(cloud, pending).await;
        if pending.len() < before.len() {
            progress(&before, &pending, total, printer);
        }
        if !poll_again(!pending.is_empty(), deadline, options, &mut cancel).await {
            break;
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
    let mut pending: Vec<String> = pending.iter().map(|s| s.address.to_string()).collect();
    let (still, failed) = settle_pipes(plan, report, cloud, options, cancel, printer).await;
    pending.extend(still);
    WaitReport {
        settled: pending.is_empty() && failed.is_empty(),
        pending,
        failed,
    }
}

/// The steps of `pending` whose scaling does not show yet, read with one services list (when a
/// service's scaling is pending) and one pipes list per service whose pipe's is.
async fn not_showing<'a>(
    cloud: &crate::api::cloud::CloudClient,
    mut pending: Vec<&'a crate::plan::Step>,
) -> Vec<&'a crate::plan::Step> {
    let mut services: Option<Vec<Service>> = None;
    if pending.iter().any(|s| {
        matches!(
            s.operation.scaling_written(),
            Some(ScalingWrite::Service { .. })
        )
    }) {
        services = cloud.list_services().await.ok();
    }
    let pipe_services: BTreeSet<&str> = pending
        .iter()
        .filter_map(|s| match s.operation.scaling_written() {
            Some(ScalingWrite::Pipe { service_id, .. }) => Some(service_id),
            Some(ScalingWrite::Service { .. }) | None => None,
        })
        .collect();
    let mut pipes: Vec<(String, Vec<Pipe>)> = Vec::new();
    for service in pipe_services {
        if let Ok(list) = cloud.list_pipes(service).await {
            pipes.push((service.to_string(), list));
        }
    }
    pending.retain(|step| match step.operation.scaling_written() {
        Some(ScalingWrite::Service { service_id, body }) => !services
            .as_ref()
            .and_then(|list| list.iter().find(|s| s.id == service_id))
            .is_some_and(|s| service::shows(s, body)),
        Some(ScalingWrite::Pipe {
            service_id,
            pipe_id,
            body,
        }) => !pipes
            .iter()
            .find(|(id, _)| id == service_id)
            .and_then(|(_, list)| list.iter().find(|p| p.id == pipe_id))
            .is_some_and(|p| pipe::shows(p, body)),
        None => false,
    });
    pending
}

/// The states a written pipe is waited out of.
const SETTLING: [&str; 2] = ["Provisioning", "Modifying"];

/// Polls the pipes this run created or changed until each leaves `Provisioning`/`Modifying`
/// (bounded by `--timeout`, saying each on stderr as it settles); returns the addresses still
/// settling when the wait ended and those that ended `Failed`, with their state.
async fn settle_pipes(
    plan: &Plan,
    report: &Report,
    cloud: &crate::api::cloud::CloudClient,
    options: &Options,
    mut cancel: watch::Receiver<bool>,
    printer: &Printer,
) -> (Vec<String>, Vec<String>) {
    let mut pending = done_steps(plan, report, |op| op.settles().is_some());
    if pending.is_empty() {
        return (Vec::new(), Vec::new());
    }
    printer.err(&format!(
        "waiting up to {}s for {} pipe(s) to leave {}",
        options.timeout.as_secs(),
        pending.len(),
        SETTLING.join("/")
    ));
    let deadline = tokio::time::Instant::now().checked_add(options.timeout);
    let mut failed = Vec::new();
    loop {
        let services: BTreeSet<&str> = pending
            .iter()
            .filter_map(|s| s.operation.settles().map(|(service, _)| service))
            .collect();
        let mut lists: Vec<(&str, Vec<Pipe>)> = Vec::new();
        for service in services {
            if let Ok(list) = cloud.list_pipes(service).await {
                lists.push((service, list));
            }
        }
        let mut still = Vec::new();
        for step in pending {
            let Some((service_id, key)) = step.operation.settles() else {
                continue;
            };
            let state = lists
                .iter()
                .find(|(id, _)| *id == service_id)
                .and_then(|(_, list)| {
                    list.iter().find(|p| match key {
                        Key::Id(id) => p.id == id,
                        Key::Name(name) => p.name == name,
                    })
                })
                .and_then(|p| p.state.clone());
            match state.as_deref() {
                Some(state) if SETTLING.contains(&state) => still.push(step),
                // Not listed (yet), or the list could not be read: asked again next poll.
                None => still.push(step),
                Some(state @ ("Failed" | "InternalError")) => {
                    printer.err(&format!("{} ended `{state}`", step.address));
                    failed.push(format!("{}: `{state}`", step.address));
                }
                Some(state) => printer.err(&format!("{} is `{state}`", step.address)),
            }
        }
        pending = still;
        if !poll_again(!pending.is_empty(), deadline, options, &mut cancel).await {
            break;
        }
    }
    if !pending.is_empty() {
        printer.err(&format!(
            "error: the wait ended after at most {}s with {} pipe(s) still provisioning or \
             modifying; raise `--timeout` or run `converge plan` later to check",
            options.timeout.as_secs(),
            pending.len()
        ));
    }
    (
        pending.iter().map(|s| s.address.to_string()).collect(),
        failed,
    )
}

/// Between two polls: whether to poll again (something is pending, the deadline has not
/// passed, the run is not cancelled), after one poll interval or a cancel, whichever comes
/// first.
async fn poll_again(
    pending: bool,
    deadline: Option<tokio::time::Instant>,
    options: &Options,
    cancel: &mut watch::Receiver<bool>,
) -> bool {
    let late = deadline.is_some_and(|d| tokio::time::Instant::now() >= d);
    if !pending || late || *cancel.borrow() {
        return false;
    }
    tokio::select! {
        _ = tokio::time::sleep(options.poll_interval) => {}
        _ = cancel.changed() => {}
    }
    true
}

/// One line for a poll that found changes showing: which, and what is still pending; or that
/// all of them show, so the wait never ends on a line that looks frozen.
fn progress(before: &[String], pending: &[&crate::plan::Step], total: usize, printer: &Printer) {
    let still: Vec<String> = pending.iter().map(|s| s.address.to_string()).collect();
    let shown: Vec<&str> = before
        .iter()
        .map(String::as_str)
        .filter(|address| !still.iter().any(|s| s == address))
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

/// The steps of `plan` that `report` marks done and `pick` takes: what a wait polls.
fn done_steps<'a>(
    plan: &'a Plan,
    report: &Report,
    pick: impl Fn(&Operation) -> bool,
) -> Vec<&'a crate::plan::Step> {
    plan.steps
        .iter()
        .filter(|step| {
            pick(&step.operation)
                && report
                    .steps
                    .iter()
                    .any(|r| r.id == step.id && r.status == Status::Done)
        })
        .collect()
}
