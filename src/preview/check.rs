//! `converge plan --check-queries`: every tile of every dashboard the plan creates or updates
//! runs its series once over the last 15 minutes. A query the server rejects becomes a
//! diagnostic at the tile (or at the series the server names) with the server's own words.
//! Requests carry 1 to 5 series each (a larger tile is split) and go through the transport, so
//! they are paced within the observability API's rate budget. Stacks without charts/series (the
//! managed stack) are reported as not checked.

use crate::api::clients::Clients;
use crate::api::error::{ApiError, FailureKind};
use crate::api::observability::ObservabilityClient;
use crate::api::wire::{Series, SeriesQuery, Source};
use crate::config::model::{Config, DashboardConfig, StackConfig, StackTarget, TileConfig};
use crate::diagnostic::{Code, Diagnostic};
use crate::error::{CommandError, Error, Result};
use crate::live::LiveState;
use crate::output::Printer;
use crate::plan::{Action, Plan};

use super::query;

/// The window every query runs over.
pub(crate) const CHECK_WINDOW_MS: i64 = 15 * 60_000;

/// What `--check-queries` found.
#[derive(Debug, Default)]
pub(crate) struct Outcome {
    /// One error per rejected query (or unresolvable source).
    pub diagnostics: Vec<Diagnostic>,
    /// Tiles whose queries all ran.
    pub passed: usize,
    /// Requests sent.
    pub requests: usize,
    /// Stacks skipped because their API has no charts/series, with their tile counts.
    pub skipped: Vec<(String, usize)>,
    /// Markdown tiles: text only, no query to run.
    pub text_only: usize,
}

/// The dashboards of a stack that the plan creates or updates.
fn planned<'c>(plan: &Plan, stack: &'c StackConfig) -> Vec<&'c DashboardConfig> {
    stack
        .dashboards
        .values()
        .filter(|dashboard| {
            let address = crate::plan::Address::Dashboard {
                stack: &stack.key.value,
                dashboard: &dashboard.key.value,
            };
            plan.changes.iter().any(|change| {
                change.address.view() == address
                    && matches!(change.action, Action::Create | Action::Update)
            })
        })
        .collect()
}

/// A tile to run: its address, its config and its series (sources resolved).
struct Job<'c> {
    stack: String,
    address: String,
    tile: &'c TileConfig,
    series: Vec<Series>,
    client: ObservabilityClient,
}

/// Runs the check on `runtime`, ending `now_ms`. Tiles run concurrently (the transport bounds
/// requests in flight by `--parallelism` and paces them by the rate limit); results are reported
/// in config order. A failure other than a rejected query (the network, authentication, the
/// server) ends the check with an error.
pub(crate) fn run(
    runtime: &tokio::runtime::Runtime,
    config: &Config,
    live: &LiveState,
    clients: &Clients,
    plan: &Plan,
    now_ms: i64,
    printer: &Printer,
) -> Result<Outcome> {
    let mut outcome = Outcome::default();
    let prepared = prepare(config, live, clients, plan, printer, &mut outcome)?;
    let answers = send_all(runtime, &prepared, now_ms);
    // Stacks whose API answered 404 for charts/series, with the tiles not checked there.
    let mut without_endpoint: Vec<(String, usize)> = Vec::new();
    for (job, results) in prepared.into_iter().zip(answers) {
        let job = match job {
            Ok(job) => job,
            Err(diagnostic) => {
                outcome.diagnostics.push(diagnostic);
                continue;
            }
        };
        // A task that did not finish (it cannot panic, but a runtime can shut down) is not a pass.
        let Some(results) = results else {
            return Err(QueryCheckError::Unfinished {
                address: job.address,
            }
            .into());
        };
        if judge(&job, results, &mut outcome, &mut without_endpoint, printer)? {
            outcome.passed += 1;
        }
    }
    outcome.skipped.extend(without_endpoint);
    Ok(outcome)
}

/// What one tile's requests got back: the offset of each request's first series, and its
/// result.
type TileAnswers = Vec<(usize, std::result::Result<(), ApiError>)>;

/// In config order, a job for every tile with a query of every dashboard the plan creates or
/// updates, or the diagnostic of a source that does not resolve. A managed stack is skipped
/// (said so); markdown tiles are counted.
fn prepare<'c>(
    config: &'c Config,
    live: &LiveState,
    clients: &Clients,
    plan: &Plan,
    printer: &Printer,
    outcome: &mut Outcome,
) -> Result<Vec<std::result::Result<Job<'c>, Diagnostic>>> {
    let mut prepared = Vec::new();
    for stack in config.stacks.values() {
        let dashboards = planned(plan, stack);
        let tiles: usize = dashboards.iter().map(|d| d.tiles.len()).sum();
        if dashboards.is_empty() {
            continue;
        }
        if let StackTarget::Managed { service } = &stack.target {
            printer.warn(&format!(
                "stack.{}: not checked: the managed stack of service `{}` has no charts/series \
                 endpoint, so the {tiles} tile(s) of its {} planned dashboard(s) cannot be run",
                stack.key.value,
                service.value,
                dashboards.len()
            ));
            outcome.skipped.push((stack.key.value.clone(), tiles));
            continue;
        }
        let Some(client) = &clients.observability else {
            return Err(QueryCheckError::NoObservabilityApi {
                stack: stack.key.value.clone(),
            }
            .into());
        };
        let sources: &[Source] = live
            .stacks
            .get(&stack.key.value)
            .map(|s| s.sources.as_slice())
            .unwrap_or_default();
        for dashboard in dashboards {
            for tile in dashboard.tiles.iter().filter(|t| query::has_query(t)) {
                if query::is_text_only(tile) {
                    outcome.text_only += 1;
                    continue;
                }
                let address = format!(
                    "dashboard.{}.{}.tile[{}]",
                    stack.key.value, dashboard.key.value, tile.name.value
                );
                prepared.push(match query::tile_series(tile, sources) {
                    Ok(series) => Ok(Job {
                        stack: stack.key.value.clone(),
                        address,
                        tile,
                        series,
                        client: client.clone(),
                    }),
                    Err(diagnostic) => Err(*diagnostic),
                });
            }
        }
    }
    Ok(prepared)
}

/// Runs every job's tile at once on `runtime`; the answers in the jobs' order (`None` for a
/// diagnostic, or a task that did not finish).
fn send_all(
    runtime: &tokio::runtime::Runtime,
    prepared: &[std::result::Result<Job<'_>, Diagnostic>],
    now_ms: i64,
) -> Vec<Option<TileAnswers>> {
    let mut answers: Vec<Option<TileAnswers>> = vec![None; prepared.len()];
    runtime.block_on(async {
        let mut tasks = tokio::task::JoinSet::new();
        for (index, job) in prepared.iter().enumerate() {
            let Ok(job) = job else { continue };
            let client = job.client.clone();
            let series = job.series.clone();
            tasks.spawn(async move { (index, run_tile(&client, &series, now_ms).await) });
        }
        while let Some(joined) = tasks.join_next().await {
            if let Ok((index, results)) = joined
                && let Some(slot) = answers.get_mut(index)
            {
                *slot = Some(results);
            }
        }
    });
    answers
}

/// Whether a tile passed: a rejected query is a diagnostic at the tile, a stack without the
/// charts/series endpoint is counted in `without_endpoint` (warned once), and any other failure
/// ends the check.
fn judge(
    job: &Job<'_>,
    results: TileAnswers,
    outcome: &mut Outcome,
    without_endpoint: &mut Vec<(String, usize)>,
    printer: &Printer,
) -> Result<bool> {
    let mut ok = true;
    for (offset, result) in results {
        outcome.requests += 1;
        let Err(error) = result else { continue };
        // A gateway's 404 is the path, not the query: this API has no charts/series at all.
        if endpoint_missing(&error) {
            match without_endpoint.iter_mut().find(|(s, _)| *s == job.stack) {
                Some((_, tiles)) => *tiles += 1,
                None => {
                    printer.warn(&format!(
                        "stack.{}: not checked: its API answered 404 for charts/series (it \
                         has no such endpoint): {error}",
                        job.stack
                    ));
                    without_endpoint.push((job.stack.clone(), 1));
                }
            }
            return Ok(false);
        }
        // A 404 with the server's own words (a source that does not exist) is the query's.
        let rejected = matches!(error.kind, FailureKind::Status(400 | 404 | 413 | 422));
        if !rejected {
            return Err(Error::from(error));
        }
        ok = false;
        outcome.diagnostics.push(rejection(
            job.tile,
            &job.address,
            offset,
            &error.message,
            &error.to_string(),
        ));
    }
    Ok(ok)
}

/// Whether a 404 says the charts/series path does not exist (an empty body, a bare `Not Found`,
/// or a gateway's `Cannot POST ...` page) rather than something about the query itself.
pub(super) fn endpoint_missing(error: &ApiError) -> bool {
    let words = error.message.trim();
    error.is_not_found()
        && (words.is_empty()
            || words.eq_ignore_ascii_case("not found")
            || words.contains("Cannot POST"))
}

/// Sends a tile's requests (five series at most each), one after the other.
async fn run_tile(client: &ObservabilityClient, series: &[Series], now_ms: i64) -> TileAnswers {
    let mut results = Vec::new();
    for (offset, chunk) in query::chunks(series) {
        let request = SeriesQuery {
            series: chunk.to_vec(),
            start_time: now_ms - CHECK_WINDOW_MS,
            end_time: now_ms,
            granularity: Some("1m".into()),
            series_return_type: None,
        };
        let result = query::request(client, &request).await.map(|_| ());
        results.push((offset, result));
    }
    results
}

/// The diagnostic of a rejected query: at the series the server names (`series[1].aggFn: ...`,
/// counted within the request) when it names one, else at the tile.
fn rejection(
    tile: &TileConfig,
    address: &str,
    offset: usize,
    message: &str,
    full: &str,
) -> Diagnostic {
    let named = message
        .strip_prefix("series[")
        .and_then(|rest| rest.split_once(']'))
        .and_then(|(index, _)| index.parse::<usize>().ok())
        .and_then(|index| tile.series.get(offset + index));
    let words = if message.is_empty() { full } else { message };
    let mut diagnostic = Diagnostic::error(
        Code::PlanQueryRejected,
        format!("{address}: the server rejected the tile's query: {words}"),
        Some(named.map_or(tile.span, |s| s.span)),
    )
    .with_label(if named.is_some() {
        "this series"
    } else {
        "this tile's query"
    })
    .with_help("fix the series so the observability API accepts it, then plan again");
    if named.is_some() {
        diagnostic = diagnostic.with_related(tile.span, "in this tile");
    }
    diagnostic
}

/// Why `converge plan --check-queries` failed.
#[derive(Debug, thiserror::Error, miette::Diagnostic)]
pub(crate) enum QueryCheckError {
    /// A stack of the observability API when the config sets that API up not.
    #[error("stack.{stack}: cannot check queries: the config sets up no observability API")]
    NoObservabilityApi {
        /// The stack's key.
        stack: String,
    },
    /// A tile's check did not finish (its task ended without an answer).
    #[error("{address}: the query check did not finish; run it again")]
    Unfinished {
        /// The tile's address.
        address: String,
    },
    /// The API rejected tile queries; the diagnostics were already printed.
    #[error(
        "{count} tile quer{} rejected",
        if *count == 1 { "y was" } else { "ies were" }
    )]
    #[diagnostic(help(
        "fix the series at the lines above, then run `converge plan --check-queries` again"
    ))]
    Rejected {
        /// How many tile queries.
        count: usize,
    },
    /// The API a planned dashboard's stack lives behind has no client in this run.
    #[error("cannot validate dashboards: {why}")]
    NotSetUp {
        /// Which API, for which stack.
        why: String,
    },
    /// The server's validation rejected dashboards (and perhaps tile queries); the
    /// diagnostics were already printed.
    #[error(
        "{dashboards} dashboard{} rejected by the server's validation{}",
        if *dashboards == 1 { " was" } else { "s were" },
        match queries {
            0 => String::new(),
            1 => ", and 1 tile query".to_string(),
            n => format!(", and {n} tile queries"),
        }
    )]
    #[diagnostic(help(
        "fix the dashboards at the lines above, then run `converge plan --check-queries` again"
    ))]
    DashboardsRejected {
        /// How many dashboards.
        dashboards: usize,
        /// How many tile queries.
        queries: usize,
    },
}

impl CommandError for QueryCheckError {
    fn code(&self) -> Code {
        match self {
            QueryCheckError::NoObservabilityApi { .. } => Code::CheckQueriesNoSeriesApi,
            QueryCheckError::Unfinished { .. } => Code::CheckQueriesUnfinished,
            QueryCheckError::Rejected { .. } => Code::CheckQueriesRejected,
            QueryCheckError::NotSetUp { .. } => Code::CheckQueriesNoSeriesApi,
            QueryCheckError::DashboardsRejected { .. } => Code::CheckQueriesDashboardsRejected,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::api::error::ApiErrorDetails;

    fn not_found(message: &str) -> ApiError {
        ApiError::from(ApiErrorDetails {
            operation: "query chart series".into(),
            method: "POST".into(),
            path: "/api/v2/charts/series".into(),
            kind: FailureKind::Status(404),
            message: message.into(),
            request_id: None,
            retry_after: None,
            attempts: 1,
        })
    }

    #[test]
    fn only_a_bare_404_means_the_endpoint_is_missing() {
        assert!(endpoint_missing(&not_found("")));
        assert!(endpoint_missing(&not_found("Not Found")));
        assert!(endpoint_missing(&not_found(
            "Cannot POST /api/v2/charts/series"
        )));
        let (page, _) = crate::api::error::server_words(
            b"<!DOCTYPE html><html><head><title>Error</title></head><body>\
              <pre>Cannot POST /api/v2/charts/series</pre></body></html>",
        );
        assert!(endpoint_missing(&not_found(&page)), "{page}");
        // The server's words about the query: a rejection to report, not a stack to skip.
        assert!(!endpoint_missing(&not_found("Source not found")));
    }
}
