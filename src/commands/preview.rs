//! `converge preview ADDRESS`: an alert's tile series over a window with its threshold, and how
//! often it would have fired; for a dashboard or a tile, its series alone. The series come from
//! the config's tile definition, so a change can be previewed before it is applied.

use std::path::PathBuf;

use jiff::Timestamp;
use serde_json::json;

use crate::api::error::ApiError;
use crate::api::limits::GRANULARITIES;
use crate::api::observability::ObservabilityClient;
use crate::commands::flags::FlagError;
use crate::commands::session::{self, Session};
use crate::config::model::{
    AlertConfig, Config, DashboardConfig, StackConfig, StackTarget, TileConfig,
};
use crate::diagnostic::{Code, Diagnostic};
use crate::error::{CommandError, Error, Result};
use crate::exit::Exit;
use crate::format::{Choices, Format};
use crate::output::{Printer, Style};
use crate::plan::Address;
use crate::preview::{
    self, Chart, Direction, Threshold, human_duration, iso, query, svg, terminal,
};
use crate::settings::{ApiArgs, ApiSettings};

/// Flags of `converge preview`.
#[derive(Debug, clap::Args)]
#[command(after_help = "Exit codes:\n  \
    0  drawn\n  \
    1  error: an unknown address, a managed stack (no series endpoint), an API failure\n\n\
    Examples:\n  converge preview --sandbox alert.obs.busy docs/preview.yaml\n  \
    converge preview --sandbox alert.obs.busy docs/preview.yaml --window 7d --granularity 1h \
    --svg busy.svg\n  \
    converge preview --sandbox 'dashboard.obs.api-health.tile[Requests]' docs/preview.yaml \
    --format json")]
pub(crate) struct Args {
    /// What to preview: `alert.<stack>.<key>`, `dashboard.<stack>.<key>` or
    /// `dashboard.<stack>.<key>.tile[<name>]`.
    pub address: String,
    /// Config files or directories of `*.yaml`/`*.yml` files.
    #[arg(required = true)]
    pub paths: Vec<PathBuf>,
    /// How far back to look, ending at `--end` (`15m`, `24h`, `7d`, `2w`; at most `366d`).
    #[arg(long, default_value = "24h", value_name = "DURATION", value_parser = super::flags::window)]
    pub window: String,
    /// Bucket size; default: the alert's interval, else `auto`.
    #[arg(long, value_name = "G", value_parser = clap::builder::PossibleValuesParser::new(GRANULARITIES))]
    pub granularity: Option<String>,
    /// End of the window (RFC 3339, e.g. `2026-11-21T06:00:00Z`, from 1970 to 9999); default:
    /// now.
    #[arg(long, value_name = "TIME", value_parser = super::flags::end)]
    pub end: Option<String>,
    /// Also write the chart as a standalone SVG file.
    #[arg(long, value_name = "FILE")]
    pub svg: Option<PathBuf>,
    /// Output format on stdout.
    #[arg(long, default_value = "text", value_parser = Choices::PREVIEW)]
    pub format: Format,
    /// Where the APIs are and how hard to use them.
    #[command(flatten)]
    pub api: ApiArgs,
}

/// One tile to draw, with the alert that watches it when previewing an alert.
struct Target<'c> {
    address: String,
    title: String,
    stack: &'c StackConfig,
    tile: &'c TileConfig,
    threshold: Option<Threshold>,
    interval: Option<String>,
    /// The alert previewed, for a tile watched by one.
    alert: Option<&'c AlertConfig>,
}

/// Runs `converge preview`.
pub(crate) fn run(args: Args, printer: &Printer) -> Result<Exit> {
    let api = ApiSettings::resolve(&args.api);
    let window_ms =
        preview::parse_duration(&args.window).map_err(|problem| FlagError::Window { problem })?;
    let end_ms = match &args.end {
        None => Timestamp::now().as_millisecond(),
        Some(text) => text
            .parse::<Timestamp>()
            .map_err(|cause| FlagError::End {
                text: text.clone(),
                cause,
            })?
            .as_millisecond(),
    };
    // The API takes epoch milliseconds: a window that starts before 1970 cannot be asked for.
    if end_ms.checked_sub(window_ms).is_none_or(|start| start < 0) {
        return Err(FlagError::BeforeEpoch {
            window: args.window.clone(),
            end: preview::iso(end_ms),
        }
        .into());
    }
    let session = session::open(&args.paths, &api, printer)?;
    let targets = targets(&session.config, &args.address, printer)?;
    session.report(&not_evaluated(&targets), printer)?;
    let mut charts = Vec::with_capacity(targets.len());
    for target in &targets {
        charts.push(chart(&session, target, &args, window_ms, end_ms, printer)?);
    }
    match args.format {
        Format::Json => {
            let document = json!({
                "format": "converge-preview/1",
                "charts": charts.iter().map(Chart::to_json).collect::<Vec<_>>(),
            });
            printer.out(&format!(
                "{}\n",
                serde_json::to_string_pretty(&document).unwrap_or_default()
            ));
        }
        // `preview` offers no Markdown.
        Format::Text | Format::Markdown => {
            let width = terminal::width();
            let stdout = printer.for_stdout();
            let text: Vec<String> = charts.iter().map(|c| text(c, width, &stdout)).collect();
            printer.out_text(&text.join("\n"));
        }
    }
    if let Some(path) = &args.svg {
        printer.write_file(path, &svg::render(&charts))?;
        printer.err(&format!(
            "wrote the chart to `{}`",
            crate::output::path_text(path)
        ));
    }
    Ok(Exit::Success)
}

/// The tiles an address names, looked up in the config (not the live dashboards).
fn targets<'c>(config: &'c Config, address: &str, printer: &Printer) -> Result<Vec<Target<'c>>> {
    let mut known = Vec::new();
    for stack in config.stacks.values() {
        let stack_key = &stack.key.value;
        for alert in stack.alerts.values() {
            let alert_address = Address::Alert {
                stack: stack_key,
                alert: &alert.key.value,
            }
            .to_string();
            if alert_address == address {
                return Ok(vec![alert_target(stack, alert, address)?]);
            }
            known.push(alert_address);
        }
        for dashboard in stack.dashboards.values() {
            if let Some(found) = dashboard_targets(stack, dashboard, address, printer) {
                return found;
            }
            known.push(
                Address::Dashboard {
                    stack: stack_key,
                    dashboard: &dashboard.key.value,
                }
                .to_string(),
            );
        }
    }
    known.sort();
    Err(PreviewError::UnknownAddress {
        address: address.to_string(),
        known,
    }
    .into())
}

/// The tile an alert watches, with the alert's threshold and interval.
fn alert_target<'c>(
    stack: &'c StackConfig,
    alert: &'c AlertConfig,
    address: &str,
) -> Result<Target<'c>> {
    if alert.source.as_ref().is_some_and(|s| s.value == "search") {
        return Err(PreviewError::SearchAlert {
            address: address.to_string(),
        }
        .into());
    }
    let dashboard = stack.dashboards.get(&alert.dashboard.value);
    let tile = dashboard.and_then(|d| d.tiles.iter().find(|t| t.name.value == alert.tile.value));
    let (Some(dashboard), Some(tile)) = (dashboard, tile) else {
        return Err(PreviewError::AlertTile {
            address: address.to_string(),
            tile: alert.tile.value.to_string(),
            dashboard: alert.dashboard.value.to_string(),
        }
        .into());
    };
    let direction = Direction::parse(&alert.threshold_type.value).ok_or_else(|| {
        PreviewError::ThresholdType {
            address: address.to_string(),
            threshold_type: alert.threshold_type.value.to_string(),
        }
    })?;
    Ok(Target {
        address: address.to_string(),
        title: format!(
            "{} — {} › {}",
            alert.name.value, dashboard.name.value, tile.name.value
        ),
        stack,
        tile,
        threshold: Some(Threshold {
            value: alert.threshold.value,
            direction,
            max: alert.threshold_max.as_ref().map(|max| max.value),
            windows: alert
                .num_consecutive_windows
                .as_ref()
                .map_or(1, |n| usize::try_from(n.value).unwrap_or(1).max(1)),
        }),
        interval: Some(alert.interval.value.to_string()),
        alert: Some(alert),
    })
}

/// What `address` names in `dashboard`: the dashboard (its tiles with series), one tile, or a
/// tile it does not have (an error listing its tiles); `None` when it names nothing there.
fn dashboard_targets<'c>(
    stack: &'c StackConfig,
    dashboard: &'c DashboardConfig,
    address: &str,
    printer: &Printer,
) -> Option<Result<Vec<Target<'c>>>> {
    let dashboard_address = Address::Dashboard {
        stack: &stack.key.value,
        dashboard: &dashboard.key.value,
    }
    .to_string();
    if dashboard_address == address {
        return Some(dashboard_tiles(stack, dashboard, address, printer));
    }
    if let Some(tile) = dashboard
        .tiles
        .iter()
        .find(|t| tile_address(stack, dashboard, t) == address)
    {
        return Some(one_tile(stack, dashboard, tile, address));
    }
    // A tile address with a name the dashboard does not have: its tiles are the help.
    let any_tile = Address::Tile {
        stack: &stack.key.value,
        dashboard: &dashboard.key.value,
        tile: "",
    };
    if any_tile
        .around_open_part()
        .is_some_and(|(head, _)| address.starts_with(&head))
    {
        let tiles: Vec<String> = dashboard
            .tiles
            .iter()
            .map(|t| format!("tile[{}]", t.name.value))
            .collect();
        return Some(Err(PreviewError::NoSuchTile {
            address: address.to_string(),
            dashboard: dashboard_address,
            tiles,
        }
        .into()));
    }
    None
}

/// Every tile of a dashboard that has series to draw (a markdown tile is left out, said so).
fn dashboard_tiles<'c>(
    stack: &'c StackConfig,
    dashboard: &'c DashboardConfig,
    address: &str,
    printer: &Printer,
) -> Result<Vec<Target<'c>>> {
    let tiles: Vec<Target<'c>> = dashboard
        .tiles
        .iter()
        .filter(|t| query::has_query(t))
        .filter(|t| {
            let text = query::is_text_only(t);
            if text {
                printer.warn(&format!(
                    "{} is a markdown tile: no series to draw, left out",
                    tile_address(stack, dashboard, t)
                ));
            }
            !text
        })
        .map(|tile| tile_target(stack, dashboard, tile))
        .collect();
    if tiles.is_empty() {
        return Err(PreviewError::NoTileWithSeries {
            address: address.to_string(),
        }
        .into());
    }
    Ok(tiles)
}

/// The one tile an address names, when it has series to draw.
fn one_tile<'c>(
    stack: &'c StackConfig,
    dashboard: &'c DashboardConfig,
    tile: &'c TileConfig,
    address: &str,
) -> Result<Vec<Target<'c>>> {
    if !query::has_query(tile) {
        return Err(PreviewError::NoSeries {
            address: address.to_string(),
        }
        .into());
    }
    if query::is_text_only(tile) {
        return Err(PreviewError::MarkdownTile {
            address: address.to_string(),
        }
        .into());
    }
    Ok(vec![tile_target(stack, dashboard, tile)])
}

fn tile_address(stack: &StackConfig, dashboard: &DashboardConfig, tile: &TileConfig) -> String {
    Address::Tile {
        stack: &stack.key.value,
        dashboard: &dashboard.key.value,
        tile: &tile.name.value,
    }
    .to_string()
}

/// A tile drawn on its own, without a threshold.
fn tile_target<'c>(
    stack: &'c StackConfig,
    dashboard: &DashboardConfig,
    tile: &'c TileConfig,
) -> Target<'c> {
    Target {
        address: tile_address(stack, dashboard, tile),
        title: format!("{} › {}", dashboard.name.value, tile.name.value),
        stack,
        tile,
        threshold: None,
        interval: None,
        alert: None,
    }
}

/// The observability client a target's chart is read with: the managed stack has no
/// charts/series, and a config without the observability API has none to ask.
fn chart_client<'s>(session: &'s Session, target: &Target<'_>) -> Result<&'s ObservabilityClient> {
    let stack = target.stack;
    if let StackTarget::Managed { service } = &stack.target {
        return Err(PreviewError::ManagedStack {
            address: target.address.clone(),
            stack: stack.key.value.to_string(),
            service: service.value.to_string(),
        }
        .into());
    }
    session.clients.observability.as_ref().ok_or_else(|| {
        PreviewError::NoObservabilityApi {
            stack: stack.key.value.to_string(),
        }
        .into()
    })
}

/// Fetches and assembles one target's chart.
fn chart(
    session: &Session,
    target: &Target<'_>,
    args: &Args,
    window_ms: i64,
    end_ms: i64,
    printer: &Printer,
) -> Result<Chart> {
    let stack = target.stack;
    let client = chart_client(session, target)?;
    let sources = session
        .live
        .stacks
        .get(&stack.key.value)
        .map(|s| s.sources.as_slice())
        .unwrap_or_default();
    let series = match query::tile_series(target.tile, sources) {
        Ok(series) => series,
        Err(diagnostic) => {
            session.report(&[*diagnostic], printer)?;
            return Err(Error::Config { count: 1 });
        }
    };
    let granularity =
        preview::choose_granularity(args.granularity.as_deref(), target.interval.as_deref());
    let start_ms = end_ms - window_ms;
    let points = session
        .runtime
        .block_on(query::fetch(
            client,
            &series,
            start_ms,
            end_ms,
            &granularity,
        ))
        .map_err(|error| {
            let hint = if error.is_not_found() {
                "this observability API has no charts/series endpoint, so there is nothing to \
                 preview from it"
            } else {
                error.hint().unwrap_or(
                    "check the tile's series (`converge plan --check-queries` runs every tile), \
                     or use a coarser --granularity for a long --window",
                )
            };
            PreviewError::Fetch {
                address: target.address.clone(),
                error,
                hint,
            }
        })?;
    let as_ratio = target.tile.as_ratio.as_ref().is_some_and(|r| r.value);
    let lines = query::lines(&series, as_ratio, &points);
    let step_ms = preview::step_of(&granularity, &lines, window_ms);
    let (threshold, rescaled) = fit_to_buckets(target, step_ms, as_ratio, printer);
    Ok(Chart {
        address: target.address.clone(),
        title: target.title.clone(),
        start_ms,
        end_ms,
        granularity,
        step_ms,
        lines,
        threshold,
        rescaled,
        zeroed: 0,
    }
    .empty_buckets_as_zero(as_ratio))
}

/// The alert's threshold at the buckets' size, with a warning when they are not the interval
/// the alert evaluates every: hourly counts compared with a 5-minute threshold would say
/// nothing true.
fn fit_to_buckets(
    target: &Target<'_>,
    step_ms: i64,
    as_ratio: bool,
    printer: &Printer,
) -> (Option<Threshold>, Option<preview::Rescaled>) {
    let (Some(threshold), Some(interval)) = (target.threshold, target.interval.as_deref()) else {
        return (target.threshold, None);
    };
    let Ok(interval_ms) = preview::parse_duration(interval) else {
        return (Some(threshold), None);
    };
    let agg_fn = target
        .tile
        .series
        .first()
        .and_then(|series| series.agg_fn.as_ref())
        .map(|agg| agg.value.as_str());
    let bucket = human_duration(step_ms);
    let own = if GRANULARITIES.contains(&interval) {
        format!("`--granularity {interval}` shows the alert's own windows")
    } else {
        "a granularity equal to the interval shows the alert's own windows".to_string()
    };
    let address = &target.address;
    let value = terminal::compact(threshold.value);
    match preview::fit_interval(threshold, interval_ms, step_ms, agg_fn, as_ratio) {
        preview::IntervalFit::Same => (Some(threshold), None),
        preview::IntervalFit::Scaled(scaled, rescaled) => {
            let scaled_value = terminal::compact(scaled.value);
            printer.warn(&format!(
                "{address} evaluates every {interval}, but these buckets are {bucket}: its \
                 threshold {value} (a {} per {interval}) is scaled ×{} to {scaled_value} per \
                 {bucket} bucket, as if the rate were even; a burst shorter than {bucket} can \
                 fire the alert and stay under {scaled_value} here. {own}",
                agg_fn.unwrap_or("count"),
                terminal::compact(rescaled.factor),
            ));
            (Some(scaled), Some(rescaled))
        }
        preview::IntervalFit::Unscaled => {
            let what = if as_ratio {
                "ratio".to_string()
            } else {
                agg_fn.unwrap_or("value").to_string()
            };
            printer.warn(&format!(
                "{address} evaluates every {interval}, but these buckets are {bucket}: each \
                 bucket's {what} is compared with the threshold {value} as it is, which smooths \
                 over what the alert sees every {interval}. {own}"
            ));
            (Some(threshold), None)
        }
    }
}

/// The text report of one chart: header, terminal chart, and for an alert the firings.
fn text(chart: &Chart, width: usize, printer: &Printer) -> String {
    let mut out = format!(
        "{}  {}\n",
        printer.paint(&chart.address, Style::Bold),
        chart.title
    );
    let buckets = chart.bucket_count();
    let with_data = chart.lines.first().map_or(0, |l| l.points.len()) - chart.zeroed;
    let zeroed = match chart.zeroed {
        0 => String::new(),
        _ => " (compared as 0, as the server does)".to_string(),
    };
    out.push_str(&format!(
        "window {} to {} ({}), granularity {}, {} bucket(s), {} without data{zeroed}\n\n",
        iso(chart.start_ms),
        iso(chart.end_ms),
        human_duration(chart.end_ms - chart.start_ms),
        chart.granularity,
        buckets,
        (buckets - with_data as i64).max(0)
    ));
    if let (Some(threshold), Some(rescaled)) = (&chart.threshold, &chart.rescaled) {
        // Right under the window line, before its blank line.
        out.pop();
        out.push_str(&format!(
            "threshold {} per {} bucket: the alert's {} per {}, scaled ×{}\n\n",
            terminal::compact(threshold.value),
            human_duration(chart.step_ms),
            terminal::compact(rescaled.alert_value),
            human_duration(rescaled.interval_ms),
            terminal::compact(rescaled.factor)
        ));
    }
    if chart.lines.iter().all(|l| l.points.is_empty()) {
        out.push_str("no data in this window\n");
    } else {
        out.push_str(&terminal::render(chart, width));
    }
    let Some(threshold) = &chart.threshold else {
        return out;
    };
    out.push_str(&firings_text(chart, threshold, printer));
    out
}

/// What the backtest says under the chart: whether and when the alert would have fired,
/// each run of buckets past its threshold, and the longest.
fn firings_text(chart: &Chart, threshold: &Threshold, printer: &Printer) -> String {
    let mut out = String::new();
    let firings = chart.firings();
    out.push('\n');
    if firings.is_empty() {
        out.push_str(&format!(
            "would not have fired: no {} {}{}\n",
            if threshold.windows > 1 {
                format!("{} buckets in a row", threshold.windows)
            } else {
                "bucket".to_string()
            },
            threshold.describe(terminal::compact),
            short_runs_note(chart, threshold)
        ));
        return out;
    }
    out.push_str(&printer.paint(
        &format!(
            "would have fired {} time{}{}:\n",
            firings.len(),
            if firings.len() == 1 { "" } else { "s" },
            short_runs_note(chart, threshold)
        ),
        Style::Warning,
    ));
    let several_lines = chart.lines.iter().filter(|l| l.evaluated).count() > 1;
    for (line, run) in &firings {
        let on = match chart.lines.get(*line) {
            Some(l) if several_lines => format!("  [{}]", l.label),
            _ => String::new(),
        };
        out.push_str(&format!(
            "  {}  for {} ({} bucket{}), {} {}{on}\n",
            iso(run.start),
            human_duration(run.end - run.start),
            run.buckets,
            if run.buckets == 1 { "" } else { "s" },
            threshold.direction.peak_word(),
            terminal::compact(run.peak)
        ));
    }
    if let Some((_, run)) = chart.longest() {
        out.push_str(&format!(
            "longest run {}: {} from {}\n",
            threshold.describe(terminal::compact),
            human_duration(run.end - run.start),
            iso(run.start)
        ));
    }
    out
}

/// The members of a previewed alert the server evaluates and the preview's buckets cannot, each
/// a warning at its line: the buckets are aligned on the granularity from the epoch, so windows
/// the server shifts by `scheduleOffsetMinutes` are not the buckets compared, and the preview
/// does not leave out what comes before `scheduleStartAt`.
fn not_evaluated(targets: &[Target<'_>]) -> Vec<Diagnostic> {
    let mut out = Vec::new();
    for alert in targets.iter().filter_map(|t| t.alert) {
        if let Some(offset) = alert
            .schedule_offset_minutes
            .as_ref()
            .filter(|o| o.value != 0)
        {
            out.push(
                Diagnostic::warning(
                    Code::PreviewNotEvaluated,
                    format!(
                        "the server evaluates this alert's windows {} minute(s) after the start of each {} \
                         window; the preview compares buckets aligned on the window",
                        offset.value, alert.interval.value
                    ),
                    Some(offset.span),
                )
                .with_label("not evaluated by the preview")
                .with_help(
                    "read the firings as the unshifted windows' (a run may start or end up to the \
                     offset earlier); the threshold and windows in a row are evaluated",
                ),
            );
        }
        if let Some(start) = &alert.schedule_start_at {
            out.push(
                Diagnostic::warning(
                    Code::PreviewNotEvaluated,
                    format!(
                        "the server evaluates this alert from {} on; the preview evaluates the \
                         whole window",
                        start.value
                    ),
                    Some(start.span),
                )
                .with_label("not evaluated by the preview")
                .with_help("firings before this time would not have happened"),
            );
        }
    }
    out
}

/// With `numConsecutiveWindows` above 1: that the alert waits for that many windows in a row,
/// and how many shorter runs past the threshold therefore did not fire it.
fn short_runs_note(chart: &Chart, threshold: &Threshold) -> String {
    if threshold.windows <= 1 {
        return String::new();
    }
    let short = chart.short_runs();
    format!(
        " (numConsecutiveWindows {}: {short} shorter run{} past the threshold did not fire)",
        threshold.windows,
        if short == 1 { "" } else { "s" }
    )
}

/// Why `converge preview ADDRESS` cannot draw what the address names.
#[derive(Debug, thiserror::Error, miette::Diagnostic)]
pub(crate) enum PreviewError {
    /// An alert on a search, not on a tile.
    #[error("{address} watches a search, not a tile; preview draws tile series only")]
    SearchAlert {
        /// The alert's address.
        address: String,
    },
    /// An alert whose tile the config does not have.
    #[error("{address}: no tile \"{tile}\" on dashboard `{dashboard}` in the config")]
    #[diagnostic(help("run `converge validate` to see the alert's problems"))]
    AlertTile {
        /// The alert's address.
        address: String,
        /// The tile it names.
        tile: String,
        /// The dashboard it names.
        dashboard: String,
    },
    /// An alert whose `thresholdType` is neither `above` nor `below`.
    #[error(
        "{address}: thresholdType `{threshold_type}` is none the preview evaluates (above, below, between, not_between)"
    )]
    ThresholdType {
        /// The alert's address.
        address: String,
        /// Its `thresholdType`.
        threshold_type: String,
    },
    /// A dashboard none of whose tiles has series.
    #[error("{address} has no tile with series")]
    NoTileWithSeries {
        /// The dashboard's address.
        address: String,
    },
    /// A tile with no series.
    #[error("{address} has no series to draw")]
    NoSeries {
        /// The tile's address.
        address: String,
    },
    /// A markdown tile.
    #[error("{address} is a markdown tile: it shows text and has no series to draw")]
    MarkdownTile {
        /// The tile's address.
        address: String,
    },
    /// A tile address with a name its dashboard does not have.
    #[error("`{address}`: the dashboard has no such tile in the config")]
    #[diagnostic(help("tiles of {dashboard}: {}", tiles.join(", ")))]
    NoSuchTile {
        /// The address as given.
        address: String,
        /// The dashboard's address.
        dashboard: String,
        /// The dashboard's tiles, as `tile[NAME]`.
        tiles: Vec<String>,
    },
    /// An address that names nothing of the config.
    #[error("`{address}` is not an alert, dashboard or tile of the config")]
    #[diagnostic(help("{}", known_addresses(known)))]
    UnknownAddress {
        /// The address as given.
        address: String,
        /// The alert and dashboard addresses of the config, sorted.
        known: Vec<String>,
    },
    /// A tile of a managed stack, whose API has no charts/series endpoint.
    #[error(
        "{address}: stack `{stack}` is the managed stack of service `{service}`, which has no \
         charts/series endpoint: there is no data to preview there"
    )]
    #[diagnostic(help(
        "preview and `plan --check-queries` work on stacks with `api: observability`"
    ))]
    ManagedStack {
        /// The tile's address.
        address: String,
        /// The stack's key.
        stack: String,
        /// The service the stack belongs to.
        service: String,
    },
    /// A stack of the observability API when the config sets that API up not.
    #[error("stack.{stack}: the config sets up no observability API")]
    NoObservabilityApi {
        /// The stack's key.
        stack: String,
    },
    /// The series query failed.
    #[error("{address}: {error}")]
    Fetch {
        /// The tile's address.
        address: String,
        /// The failed call.
        error: ApiError,
        /// What to do about it, for the `help:` line.
        #[help]
        hint: &'static str,
    },
}

impl CommandError for PreviewError {
    fn code(&self) -> Code {
        match self {
            PreviewError::SearchAlert { .. }
            | PreviewError::NoTileWithSeries { .. }
            | PreviewError::NoSeries { .. }
            | PreviewError::MarkdownTile { .. } => Code::PreviewNothingToDraw,
            PreviewError::AlertTile { .. } | PreviewError::ThresholdType { .. } => {
                Code::PreviewAlert
            }
            PreviewError::NoSuchTile { .. } | PreviewError::UnknownAddress { .. } => {
                Code::PreviewUnknownAddress
            }
            PreviewError::ManagedStack { .. } | PreviewError::NoObservabilityApi { .. } => {
                Code::PreviewNoSeriesApi
            }
            PreviewError::Fetch { .. } => Code::PreviewFetch,
        }
    }
}

fn known_addresses(known: &[String]) -> String {
    if known.is_empty() {
        "the config declares no alerts or dashboards".to_string()
    } else {
        format!("addresses in the config: {}", known.join(", "))
    }
}
