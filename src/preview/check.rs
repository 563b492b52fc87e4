//! `converge plan --check-queries`: every tile of every dashboard the plan creates or updates
//! runs its series once over the last 15 minutes. A query the server rejects becomes a
//! diagnostic at the tile (or at the series the server names) with the server's own words.
//! Requests carry 1 to 5 series each (a larger tile is split) and go through the transport, so
//! they are paced within the observability API's rate budget. Stacks without charts/series (the
//! managed stack) are reported as not checked.

use crate::api::clients::Clients;
use crate::api::error::FailureKind;
use crate::api::observability::ObservabilityClient;
use crate::api::wire::{SeriesQuery, Source};
use crate::config::diagnostic::Diagnostic;
use crate::config::model::{Config, DashboardConfig, StackConfig, StackTarget, TileConfig};
use crate::error::{Error, Result};
use crate::live::LiveState;
use crate::output::Printer;
use crate::plan::{Action, Plan};

use super::query;

/// The window every query runs over.
pub const CHECK_WINDOW_MS: i64 = 15 * 60_000;

/// What `--check-queries` found.
#[derive(Debug, Default)]
pub struct Outcome {
    /// One error per rejected query (or unresolvable source).
    pub diagnostics: Vec<Diagnostic>,
    /// Tiles whose queries all ran.
    pub passed: usize,
    /// Requests sent.
    pub requests: usize,
    /// Stacks skipped because their API has no charts/series, with their tile counts.
    pub skipped: Vec<(String, usize)>,
}

/// The dashboards of a stack that the plan creates or updates.
fn planned<'c>(plan: &Plan, stack: &'c StackConfig) -> Vec<&'c DashboardConfig> {
    stack
        .dashboards
        .values()
        .filter(|dashboard| {
            let address = format!("dashboard.{}.{}", stack.key.value, dashboard.key.value);
            plan.changes.iter().any(|change| {
                change.address == address
                    && matches!(change.action, Action::Create | Action::Update)
            })
        })
        .collect()
}

/// Runs the check on `runtime`, ending `now_ms`. A failure other than a rejected query (the
/// network, authentication, the server) ends it with an error.
pub fn run(
    runtime: &tokio::runtime::Runtime,
    config: &Config,
    live: &LiveState,
    clients: &Clients,
    plan: &Plan,
    now_ms: i64,
    printer: &Printer,
) -> Result<Outcome> {
    let mut outcome = Outcome::default();
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
            return Err(Error::msg(format!(
                "stack.{}: cannot check queries: the config sets up no observability API",
                stack.key.value
            )));
        };
        let sources = live
            .stacks
            .get(&stack.key.value)
            .map(|s| s.sources.as_slice())
            .unwrap_or_default();
        for dashboard in dashboards {
            for tile in &dashboard.tiles {
                let address = format!(
                    "dashboard.{}.{}.tile[{}]",
                    stack.key.value, dashboard.key.value, tile.name.value
                );
                let ok = runtime.block_on(check_tile(
                    client,
                    sources,
                    tile,
                    &address,
                    now_ms,
                    &mut outcome,
                ))?;
                if ok {
                    outcome.passed += 1;
                }
            }
        }
    }
    Ok(outcome)
}

async fn check_tile(
    client: &ObservabilityClient,
    sources: &[Source],
    tile: &TileConfig,
    address: &str,
    now_ms: i64,
    outcome: &mut Outcome,
) -> Result<bool> {
    let series = match query::tile_series(tile, sources) {
        Ok(series) => series,
        Err(diagnostic) => {
            outcome.diagnostics.push(*diagnostic);
            return Ok(false);
        }
    };
    let mut ok = true;
    for (offset, chunk) in query::chunks(&series) {
        let request = SeriesQuery {
            series: chunk.to_vec(),
            start_time: now_ms - CHECK_WINDOW_MS,
            end_time: now_ms,
            granularity: Some("1m".into()),
            series_return_type: None,
        };
        outcome.requests += 1;
        let error = match query::request(client, &request).await {
            Ok(_) => continue,
            Err(error) => error,
        };
        let rejected = matches!(error.kind, FailureKind::Status(400 | 404 | 413 | 422));
        if !rejected {
            return Err(Error::from(error));
        }
        ok = false;
        outcome.diagnostics.push(rejection(
            tile,
            address,
            offset,
            &error.message,
            &error.to_string(),
        ));
    }
    Ok(ok)
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
        "plan::query-rejected",
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

/// `plan --check-queries` after the plan is printed: runs the check, renders rejected queries
/// at their config lines, and fails when any was rejected.
pub fn report(
    session: &crate::commands::session::Session,
    plan: &Plan,
    printer: &Printer,
) -> Result<()> {
    let now_ms = jiff::Timestamp::now().as_millisecond();
    let outcome = run(
        &session.runtime,
        &session.config,
        &session.live,
        &session.clients,
        plan,
        now_ms,
        printer,
    )?;
    let failed = outcome.diagnostics.len();
    if failed > 0 {
        crate::config::render::render(
            &outcome.diagnostics,
            &session.sources,
            crate::config::render::Format::Text,
            printer,
        );
        return Err(Error::with_hint(
            format!(
                "{failed} tile quer{} rejected",
                if failed == 1 { "y was" } else { "ies were" }
            ),
            "fix the series at the lines above, then run `converge plan --check-queries` again",
        ));
    }
    let skipped: usize = outcome.skipped.iter().map(|(_, n)| n).sum();
    printer.err(&format!(
        "check-queries: {} tile(s) ran in {} request(s){}",
        outcome.passed,
        outcome.requests,
        if skipped > 0 {
            format!("; {skipped} tile(s) on stacks without charts/series not checked")
        } else {
            String::new()
        }
    ));
    Ok(())
}
