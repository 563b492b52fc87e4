//! `plan --check-queries`, for whole dashboards: each dashboard the plan creates or updates is
//! sent, exactly as apply would send it, to the server's `POST .../dashboards/validate` (both
//! APIs of today's generation have it), which runs the checks of a create and stores nothing.
//! A body the server finds invalid is a diagnostic at the dashboard's key with the server's own
//! words; a stack whose API has no such endpoint (a 404: the contract's generation) is said once
//! and left unvalidated.

use crate::api::clients::Clients;
use crate::api::error::ApiError;
use crate::api::stack::StackApi;
use crate::api::wire::{DashboardRequest, DashboardValidation};
use crate::apply::fresh::stack_api;
use crate::config::model::{Config, DashboardConfig};
use crate::diagnostic::{Code, Diagnostic};
use crate::error::{Error, Result};
use crate::output::Printer;
use crate::plan::{Action, Plan};

use super::check::{QueryCheckError, endpoint_missing};

/// What the validation of the planned dashboards found.
#[derive(Debug, Default)]
pub(crate) struct Validation {
    /// One error per dashboard the server found invalid.
    pub diagnostics: Vec<Diagnostic>,
    /// Dashboards the server found valid.
    pub passed: usize,
    /// Requests sent.
    pub requests: usize,
    /// Dashboards not validated because their stack's API has no validate endpoint.
    pub skipped: usize,
}

/// One dashboard to validate: where it is written and what apply would send.
struct Job<'c> {
    stack: &'c str,
    address: String,
    dashboard: &'c DashboardConfig,
    api: StackApi,
    body: DashboardRequest,
}

/// Validates every dashboard the plan creates or updates, concurrently on `runtime` (the
/// transport paces the requests); the results in config order. A failure other than a 404 for
/// the endpoint (the network, authentication, the server) ends the check with an error.
pub(crate) fn run(
    runtime: &tokio::runtime::Runtime,
    config: &Config,
    clients: &Clients,
    plan: &Plan,
    printer: &Printer,
) -> Result<Validation> {
    let jobs = jobs(config, clients, plan)?;
    let mut answers: Vec<Option<std::result::Result<DashboardValidation, ApiError>>> =
        vec![None; jobs.len()];
    runtime.block_on(async {
        let mut tasks = tokio::task::JoinSet::new();
        for (index, job) in jobs.iter().enumerate() {
            let api = job.api.clone();
            let body = job.body.clone();
            tasks.spawn(async move { (index, api.validate_dashboard(&body).await) });
        }
        while let Some(joined) = tasks.join_next().await {
            if let Ok((index, answer)) = joined
                && let Some(slot) = answers.get_mut(index)
            {
                *slot = Some(answer);
            }
        }
    });
    let mut validation = Validation::default();
    let mut without_endpoint: Vec<&str> = Vec::new();
    for (job, answer) in jobs.iter().zip(answers) {
        let Some(answer) = answer else {
            return Err(QueryCheckError::Unfinished {
                address: job.address.clone(),
            }
            .into());
        };
        validation.requests += 1;
        match answer {
            Ok(answer) if answer.valid => validation.passed += 1,
            Ok(answer) => validation.diagnostics.push(rejection(job, &answer)),
            Err(error) if endpoint_missing(&error) => {
                validation.skipped += 1;
                if !without_endpoint.contains(&job.stack) {
                    printer.warn(&format!(
                        "stack.{}: dashboards not validated: its API answered 404 for \
                         dashboards/validate (servers of the contract's generation have no such \
                         endpoint): {error}",
                        job.stack
                    ));
                    without_endpoint.push(job.stack);
                }
            }
            Err(error) => return Err(Error::from(error)),
        }
    }
    Ok(validation)
}

/// In config order, the dashboards the plan creates or updates, each with the body its step
/// sends.
fn jobs<'c>(config: &'c Config, clients: &Clients, plan: &Plan) -> Result<Vec<Job<'c>>> {
    let mut jobs = Vec::new();
    for stack in config.stacks.values() {
        for dashboard in stack.dashboards.values() {
            let address = crate::plan::Address::Dashboard {
                stack: &stack.key.value,
                dashboard: &dashboard.key.value,
            };
            let step = plan
                .changes
                .iter()
                .filter(|c| c.address.view() == address)
                .filter(|c| matches!(c.action, Action::Create | Action::Update))
                .find_map(|c| plan.steps.get(c.step?));
            let Some((stack_ref, body)) = step.and_then(|s| s.operation.dashboard_sent()) else {
                continue;
            };
            let api = stack_api(clients, stack_ref).map_err(|why| QueryCheckError::NotSetUp {
                why: why.to_string(),
            })?;
            jobs.push(Job {
                stack: &stack.key.value,
                address: address.to_string(),
                dashboard,
                api,
                body: body.clone(),
            });
        }
    }
    Ok(jobs)
}

/// The diagnostic of a dashboard the server found invalid: at its key, with every problem the
/// server named, and at the tile its first problem names (`tiles.2...`) when that is one of the
/// config's tiles (the body lists them first, in config order).
fn rejection(job: &Job<'_>, answer: &DashboardValidation) -> Diagnostic {
    let words = if answer.errors.is_empty() {
        "it gave no reason".to_string()
    } else {
        answer
            .errors
            .iter()
            .map(|problem| match problem.path.as_str() {
                "" => problem.message.clone(),
                path => format!("`{path}`: {}", problem.message),
            })
            .collect::<Vec<_>>()
            .join("; ")
    };
    let tile = answer
        .errors
        .first()
        .and_then(|problem| problem.path.strip_prefix("tiles."))
        .and_then(|rest| rest.split('.').next())
        .and_then(|index| index.parse::<usize>().ok())
        .and_then(|index| job.dashboard.tiles.get(index));
    let mut diagnostic = Diagnostic::error(
        Code::PlanDashboardRejected,
        format!(
            "{}: the server's validation rejected the dashboard: {words}",
            job.address
        ),
        Some(job.dashboard.key.span),
    )
    .with_label("this dashboard")
    .with_help("fix the dashboard so the server accepts it, then plan again");
    if let Some(tile) = tile {
        diagnostic = diagnostic.with_related(tile.span, "the tile the server names");
    }
    diagnostic
}
