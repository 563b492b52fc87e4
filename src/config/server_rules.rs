//! What the real server rejects with a 400 ("Body validation failed") or quietly undoes,
//! caught at validate time at the config line instead of halfway through an apply:
//!
//! | Code | Rule |
//! |---|---|
//! | `semantic::webhook-id` | a webhook channel names its webhook once, by a well-formed `webhookId` or by `webhook` |
//! | `semantic::channels` | alert `channels` have no duplicate; a `channel` beside them is their first |
//! | `semantic::empty-message` | an alert's `message`, when written, is not empty |
//! | `semantic::group-by-limit` | a series groups by at most 10 fields |
//! | `semantic::mixed-series` | the series of one tile share one `type` and one `groupBy` |
//! | `semantic::histogram-series` | no series of `type: histogram` |
//! | `semantic::tag-limit` | a dashboard's tags and the ownership tag converge adds are at most 50 |
//! | `semantic::alert-tile-type` | an alert sits on a line (`time`) or number tile, the only ones the server keeps alerts on |
//! | `semantic::quantile-level` | a warning: a `quantile` aggregation without `level` draws the median |
//! | `semantic::value-expression` | a non-count aggregation has its `field` (series) or `valueExpression` (select item), a `count` has none, a `level` goes only with `quantile`; a metric series (`metricName`) without `field` is drawn from the metric tables' `Value` column, as HyperDX's chart editor writes it |
//! | `semantic::markdown-content` | a markdown series has its `content` |
//! | `semantic::search-fields` | a search series names its `fields` |
//! | `semantic::object-id` | on a stack declared `generation: config`, a series `sourceId`, a tile `config`'s `sourceId` and a webhook channel's `webhookId` are 24-hex ObjectIds |

use crate::api::limits;
use smol_str::SmolStr;

use super::model::{
    AlertConfig, ChannelConfig, DashboardConfig, Generation, Located, SeriesConfig, SourceRef,
    StackConfig, TileConfig,
};
use crate::diagnostic::{Code, Diagnostic, Span};

/// The most `groupBy` fields a series may have.
const GROUP_BY_MAX: usize = 10;

/// What every ownership tag starts with (the planner adds one to every dashboard it writes).
const OWNERSHIP_PREFIX: &str = "converge:";

/// Series types whose tiles carry alerts: the server deletes alerts on any other tile whenever
/// its dashboard is updated (`time` is written as a line tile).
const ALERTABLE_TYPES: &[&str] = &["time", "number"];

/// Runs the rules on one stack.
pub(crate) fn check(stack: &StackConfig, diags: &mut Vec<Diagnostic>) {
    for dashboard in stack.dashboards.values() {
        tags(dashboard, diags);
        for tile in &dashboard.tiles {
            series(tile, diags);
            tile_fields(tile, diags);
        }
    }
    for alert in stack.alerts.values() {
        channel(alert, diags);
        message(alert, diags);
        alert_tile(stack, alert, diags);
    }
    object_ids(stack, diags);
}

/// On a stack declared to speak today's generation (`generation: config`), every id its
/// servers require to be an ObjectId is one; offline, so `validate` says it. Under `auto` (the
/// default) the generation is learnt from the server at plan time, where the plan checks it.
fn object_ids(stack: &StackConfig, diags: &mut Vec<Diagnostic>) {
    if stack.generation.as_ref().map(|g| g.value) != Some(Generation::Config) {
        return;
    }
    let mut check = |what: String, id: &str, at: Option<Span>, server: &str| {
        if !limits::is_object_id(id) {
            diags.push(
                Diagnostic::error(
                    Code::SemanticObjectId,
                    format!(
                        "{what} `{id}`, which is not an ObjectId: stack `{}` is declared `generation: config`, whose servers refuse it (`{server}`)",
                        stack.key.value
                    ),
                    at,
                )
                .with_label("24 hexadecimal digits here")
                .with_help("give the id as the stack lists it, e.g. `65f5e4a3b9e77c001a789012`"),
            );
        }
    };
    for dashboard in stack.dashboards.values() {
        for tile in &dashboard.tiles {
            for series in &tile.series {
                if let Some(SourceRef::Id(id)) = &series.source {
                    check(
                        format!("tile `{}` names source", tile.name.value),
                        &id.value,
                        Some(id.span),
                        "Invalid ObjectId",
                    );
                }
            }
            if let Some(serde_json::Value::String(id)) =
                tile.config.as_ref().and_then(|c| c.value.get("sourceId"))
            {
                check(
                    format!("tile `{}` names source", tile.name.value),
                    id,
                    tile.config_span("/sourceId"),
                    "Invalid ObjectId",
                );
            }
        }
    }
    for alert in stack.alerts.values() {
        for channel in alert.all_channels() {
            if let Some(webhook) = channel
                .webhook_id
                .as_ref()
                .filter(|_| channel.kind.value == "webhook")
            {
                check(
                    format!("alert `{}` names webhook", alert.key.value),
                    &webhook.value,
                    Some(webhook.span),
                    "Invalid webhook ID",
                );
            }
        }
    }
}

/// At most 50 tags, counting the ownership tag converge adds unless the config writes it.
fn tags(dashboard: &DashboardConfig, diags: &mut Vec<Diagnostic>) {
    let written_ownership = dashboard
        .tags
        .iter()
        .any(|t| t.value.starts_with(OWNERSHIP_PREFIX));
    let room = limits::DASHBOARD_MAX_TAGS - usize::from(!written_ownership);
    let Some(first_over) = dashboard.tags.get(room) else {
        return;
    };
    diags.push(
        Diagnostic::error(
            Code::SemanticTagLimit,
            format!(
                "dashboard `{}` has {} tags; with the ownership tag converge adds that is more \
                 than the {} the server accepts",
                dashboard.key.value,
                dashboard.tags.len(),
                limits::DASHBOARD_MAX_TAGS
            ),
            Some(first_over.span),
        )
        .with_label(format!("tag {} of at most {room}", room + 1))
        .with_help(format!(
            "keep at most {room} tags: converge adds `{OWNERSHIP_PREFIX}<stack>` to every \
             dashboard it writes"
        )),
    );
}

/// A tile's series: no histogram, at most 10 `groupBy` fields, one type and one `groupBy`.
fn series(tile: &TileConfig, diags: &mut Vec<Diagnostic>) {
    for series in &tile.series {
        if let Some(kind) = series.kind.as_ref().filter(|k| k.value == "histogram") {
            diags.push(
                Diagnostic::error(
                    Code::SemanticHistogramSeries,
                    format!(
                        "tile `{}` has a series of type `histogram`, which the server rejects",
                        tile.name.value
                    ),
                    Some(kind.span),
                )
                .with_label("rejected by the server")
                .with_help("use `type: time` (a line chart) or `type: number`"),
            );
        }
        if let Some(over) = series.group_by.as_ref().and_then(|g| g.get(GROUP_BY_MAX)) {
            let count = series.group_by.as_ref().map_or(0, Vec::len);
            diags.push(
                Diagnostic::error(
                    Code::SemanticGroupByLimit,
                    format!(
                        "a series of tile `{}` groups by {count} fields; the server accepts at \
                         most {GROUP_BY_MAX}",
                        tile.name.value
                    ),
                    Some(over.span),
                )
                .with_label(format!(
                    "field {} of at most {GROUP_BY_MAX}",
                    GROUP_BY_MAX + 1
                )),
            );
        }
    }
    same_series(tile, diags);
}

/// A tile's series all of one type and one `groupBy`, as the server needs.
fn same_series(tile: &TileConfig, diags: &mut Vec<Diagnostic>) {
    let Some((first, rest)) = tile.series.split_first() else {
        return;
    };
    for other in rest {
        if let (Some(a), Some(b)) = (&first.kind, &other.kind)
            && a.value != b.value
        {
            diags.push(
                Diagnostic::error(
                    Code::SemanticMixedSeries,
                    format!(
                        "tile `{}` mixes series of type `{}` and `{}`; the server needs one type \
                         for all the series of a tile",
                        tile.name.value, a.value, b.value
                    ),
                    Some(b.span),
                )
                .with_label("another type than the first series")
                .with_related(a.span, "the first series' type"),
            );
        }
        if group_by(first) != group_by(other) {
            let at = other
                .group_by
                .as_ref()
                .and_then(|g| g.first())
                .map_or(other.span, |g| g.span);
            diags.push(
                Diagnostic::error(
                    Code::SemanticMixedSeries,
                    format!(
                        "the series of tile `{}` group by different fields; the server needs one \
                         `groupBy` for all the series of a tile",
                        tile.name.value
                    ),
                    Some(at),
                )
                .with_label("another groupBy than the first series")
                .with_help(format!(
                    "give every series of the tile the same groupBy: [{}]",
                    group_by(first).join(", ")
                )),
            );
        }
    }
}

/// The fields a tile's type needs: a quantile's level (the server takes none and draws the
/// median: a warning), a non-count aggregation's value expression (`field` of a series, except
/// a metric series, whose `Value` column converge writes; `valueExpression` of a select item),
/// none on a count, a `level` only on a quantile; a markdown series' `content` and a search
/// series' `fields` (the server's series schemas require both; today's `config` tiles may
/// leave them empty).
fn tile_fields(tile: &TileConfig, diags: &mut Vec<Diagnostic>) {
    series_fields(tile, diags);
    select_fields(tile, diags);
}

/// [`tile_fields`] of a tile's `series`.
fn series_fields(tile: &TileConfig, diags: &mut Vec<Diagnostic>) {
    let name = &tile.name.value;
    for series in &tile.series {
        let kind = series.kind.as_ref().map(|k| (k.value.as_str(), k.span));
        if let Some(agg) = &series.agg_fn
            && !matches!(kind, Some(("markdown" | "search", _)))
        {
            let field = series.field.as_ref().filter(|f| !f.value.is_empty());
            let metric = series.metric_name.is_some();
            let problem = aggregation_problem(
                &agg.value,
                field.is_some() || metric,
                series.level.is_some(),
                "field",
            );
            if let Some((message, help)) = problem {
                let at = match (&series.level, field) {
                    (Some(level), _) if agg.value != "quantile" => level.span,
                    (_, Some(field)) if agg.value == "count" => field.span,
                    _ => agg.span,
                };
                diags.push(value_expression(name, &message, help, at));
            } else if agg.value == "quantile" && series.level.is_none() {
                diags.push(quantile_without_level(name, agg.span));
            }
        }
        match kind {
            Some(("markdown", at)) if series.content.is_none() => {
                diags.push(markdown_without_content(name, at));
            }
            Some(("search", at)) if series.fields.as_ref().is_none_or(Vec::is_empty) => {
                diags.push(search_without_fields(name, at));
            }
            _ => {}
        }
    }
}

/// [`tile_fields`] of a `config` tile's `select` items.
fn select_fields(tile: &TileConfig, diags: &mut Vec<Diagnostic>) {
    let name = &tile.name.value;
    let Some(config) = &tile.config else {
        return;
    };
    // Heatmap items have their own schema (a value expression, no `aggFn`).
    if config.value.get("displayType").and_then(|d| d.as_str()) == Some("heatmap") {
        return;
    }
    if let Some(items) = config.value.get("select").and_then(|s| s.as_array()) {
        for (i, item) in items.iter().enumerate() {
            let Some(agg) = item.get("aggFn").and_then(|a| a.as_str()) else {
                continue;
            };
            let present = |key: &str| {
                item.get(key)
                    .is_some_and(|v| !v.is_null() && v.as_str() != Some(""))
            };
            let span = |key: &str| {
                tile.config_span(&format!("/select/{i}/{key}"))
                    .or_else(|| tile.config_span(&format!("/select/{i}/aggFn")))
            };
            let problem = aggregation_problem(
                agg,
                present("valueExpression"),
                present("level"),
                "valueExpression",
            );
            if let Some((message, help)) = problem {
                let at = if present("level") && agg != "quantile" {
                    span("level")
                } else if agg == "count" {
                    span("valueExpression")
                } else {
                    span("aggFn")
                };
                if let Some(at) = at {
                    diags.push(value_expression(name, &message, help, at));
                }
            } else if agg == "quantile"
                && !present("level")
                && let Some(span) = span("aggFn")
            {
                diags.push(quantile_without_level(name, span));
            }
        }
    }
}

/// What the server's select-item rule refuses of an aggregation `agg` with or without its
/// value expression (`value`, written as `key`) and `level`: its message (the server's own
/// words) and a help line.
fn aggregation_problem(agg: &str, value: bool, level: bool, key: &str) -> Option<(String, String)> {
    if level && agg != "quantile" {
        return Some((
            "Level can only be used with quantile aggregation function".into(),
            "remove `level`, or aggregate with `quantile`".into(),
        ));
    }
    if agg == "count" && value {
        return Some((
            "Value expression cannot be used with count aggregation function".into(),
            format!("remove `{key}`: a count counts rows"),
        ));
    }
    if agg != "count" && !value {
        return Some((
            "Value expression is required for non-count aggregation functions".into(),
            format!(
                "add `{key}:` with the column or expression `{agg}` aggregates (e.g. `{key}: Duration`)"
            ),
        ));
    }
    None
}

/// The error of an aggregation the server refuses (its message `message`), written at `at`.
fn value_expression(tile: &str, message: &str, help: String, at: Span) -> Diagnostic {
    Diagnostic::error(
        Code::SemanticValueExpression,
        format!("tile `{tile}`: the server refuses this aggregation (`{message}`)"),
        Some(at),
    )
    .with_label("refused here")
    .with_help(help)
}

/// The warning of a `quantile` written at `at` without a level: the server draws the median.
fn quantile_without_level(tile: &str, at: Span) -> Diagnostic {
    Diagnostic::warning(
        Code::SemanticQuantileLevel,
        format!(
            "tile `{tile}` aggregates with `quantile` but has no `level`; the server will draw \
             the median (level 0.5)"
        ),
        Some(at),
    )
    .with_label("no level: the median")
    .with_help("add `level:` beside `aggFn` (0.5, 0.9, 0.95 or 0.99; `level: 0.95` is p95)")
}

/// The error of a markdown series (its type written at `at`) without text.
fn markdown_without_content(tile: &str, at: Span) -> Diagnostic {
    Diagnostic::error(
        Code::SemanticMarkdownContent,
        format!("markdown tile `{tile}` has no content, which the server rejects"),
        Some(at),
    )
    .with_label("no `content`")
    .with_help("add `content:` with the tile's text")
}

/// The error of a search series (its type written at `at`) without fields.
fn search_without_fields(tile: &str, at: Span) -> Diagnostic {
    Diagnostic::error(
        Code::SemanticSearchFields,
        format!("search tile `{tile}` names no fields to show, which the server rejects"),
        Some(at),
    )
    .with_label("no `fields`")
    .with_help("add `fields:` with the columns to show (`fields: [Timestamp, Body]`)")
}

/// A series' `groupBy` fields (absent is none).
fn group_by(series: &SeriesConfig) -> Vec<&str> {
    series
        .group_by
        .iter()
        .flatten()
        .map(|g| g.value.as_str())
        .collect()
}

/// Each webhook channel names its webhook.
fn channel(alert: &AlertConfig, diags: &mut Vec<Diagnostic>) {
    for channel in alert.all_channels() {
        webhook(alert, channel, diags);
    }
    channels(alert, diags);
}

/// The key a channel is told apart by: all of its members, as the server compares them.
fn channel_key(channel: &ChannelConfig) -> (&str, Option<&str>, Option<Vec<&str>>) {
    (
        channel.kind.value.as_str(),
        channel
            .webhook_id
            .as_ref()
            .or(channel.webhook.as_deref())
            .map(|w| w.value.as_str()),
        channel
            .email_recipients
            .as_ref()
            .map(|r| r.iter().map(|e| e.value.as_str()).collect()),
    )
}

/// `channels` without duplicates, and a `channel` beside them equal to their first (the
/// server answers 400 to both: "Duplicate notification channels are not allowed", "channel
/// must match the first entry of channels").
fn channels(alert: &AlertConfig, diags: &mut Vec<Diagnostic>) {
    let Some(list) = &alert.channels else {
        return;
    };
    for (i, later) in list.value.iter().enumerate() {
        if let Some(first) = list.value[..i]
            .iter()
            .find(|c| channel_key(c) == channel_key(later))
        {
            diags.push(
                Diagnostic::error(
                    Code::SemanticChannels,
                    format!(
                        "alert `{}` lists the same channel twice, which the server rejects",
                        alert.key.value
                    ),
                    Some(later.span),
                )
                .with_label("a duplicate")
                .with_related(first.span, "the same channel first")
                .with_help("remove one of the two"),
            );
        }
    }
    if let (Some(one), Some(first)) = (&alert.channel, list.value.first())
        && channel_key(one) != channel_key(first)
    {
        diags.push(
            Diagnostic::error(
                Code::SemanticChannels,
                format!(
                    "alert `{}` has a `channel` that is not the first of its `channels`; the \
                     server takes both only when they agree",
                    alert.key.value
                ),
                Some(one.span),
            )
            .with_label("not `channels[0]`")
            .with_related(first.span, "the first of `channels`")
            .with_help("remove `channel` (the server mirrors `channels[0]` as `channel`)"),
        );
    }
}

/// A webhook channel names its webhook, once: by `webhookId` (a well-formed id) or by
/// `webhook` (a name).
fn webhook(alert: &AlertConfig, channel: &ChannelConfig, diags: &mut Vec<Diagnostic>) {
    if channel.kind.value != "webhook" {
        return;
    }
    if let (Some(id), Some(name)) = (&channel.webhook_id, &channel.webhook) {
        diags.push(
            Diagnostic::error(
                Code::SemanticWebhookId,
                format!(
                    "alert `{}` names its webhook twice, by `webhookId` and by `webhook`",
                    alert.key.value
                ),
                Some(id.span),
            )
            .with_label("an id here")
            .with_related(name.span, "and a name here")
            .with_help("keep one: `webhook: <name>` is resolved to the id on each server"),
        );
        return;
    }
    if let Some(id) = channel
        .webhook_id
        .as_ref()
        .filter(|id| !is_id_like(&id.value))
    {
        diags.push(
            Diagnostic::error(
                Code::SemanticWebhookId,
                format!(
                    "alert `{}` names webhook id \"{}\", which is not an id (ids are letters, digits, `-` and `_`)",
                    alert.key.value, id.value
                ),
                Some(id.span),
            )
            .with_label("not an id")
            .with_help(format!(
                "to name the webhook, write `webhook: {}`; its id is looked up at plan time",
                id.value.trim()
            )),
        );
        return;
    }
    if channel.webhook_id.is_none() && channel.webhook.is_none() {
        diags.push(
            Diagnostic::error(
                Code::SemanticWebhookId,
                format!(
                    "alert `{}` has a webhook channel without `webhookId`, which the server rejects",
                    alert.key.value
                ),
                Some(channel.span),
            )
            .with_label("no webhookId")
            .with_help("add `webhookId:` with the id of the webhook to notify"),
        );
    }
}

/// Whether a literal id is one a server could have made: letters, digits, `-` and `_` (a
/// name such as `On call` written where the id goes is not).
fn is_id_like(id: &str) -> bool {
    !id.is_empty()
        && id
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_')
}

/// A written message is not empty (leave `message` out to keep the server's).
fn message(alert: &AlertConfig, diags: &mut Vec<Diagnostic>) {
    let Some(message) = alert.message.as_ref().filter(|m| m.value.is_empty()) else {
        return;
    };
    diags.push(
        Diagnostic::error(
            Code::SemanticEmptyMessage,
            format!(
                "alert `{}` has an empty `message`, which the server rejects",
                alert.key.value
            ),
            Some(message.span),
        )
        .with_label("empty")
        .with_help("write a message, or leave `message` out"),
    );
}

/// A tile alert sits on a tile the server keeps alerts on.
fn alert_tile(stack: &StackConfig, alert: &AlertConfig, diags: &mut Vec<Diagnostic>) {
    if alert.source.as_ref().is_some_and(|s| s.value != "tile") {
        return;
    }
    let Some(tile) = stack
        .dashboards
        .get(&alert.dashboard.value)
        .and_then(|d| d.tiles.iter().find(|t| t.name.value == alert.tile.value))
    else {
        // An unknown dashboard or tile is `references`' to report.
        return;
    };
    // A `config` tile: only line, stacked bar and number tiles keep their alerts.
    if let Some(config) = &tile.config {
        let display = config.value.get("displayType").and_then(|d| d.as_str());
        if let Some(display) = display.filter(|d| !["line", "stacked_bar", "number"].contains(d)) {
            let kind = Located::new(SmolStr::new(display), config.span);
            diags.push(kind_of_tile(alert, &alert.tile, &kind));
        }
        return;
    }
    let Some(kind) = tile
        .series
        .first()
        .and_then(|s| s.kind.as_ref())
        .filter(|k| !ALERTABLE_TYPES.contains(&k.value.as_str()))
    else {
        return;
    };
    diags.push(kind_of_tile(alert, &alert.tile, kind));
}

/// The error of an alert on a tile of type `kind`.
fn kind_of_tile(
    alert: &AlertConfig,
    tile: &Located<SmolStr>,
    kind: &Located<SmolStr>,
) -> Diagnostic {
    Diagnostic::error(
        Code::SemanticAlertTileType,
        format!(
            "alert `{}` is on tile `{}`, a `{}` tile; the server deletes alerts on any tile but \
             line (`time`) and number tiles whenever the dashboard is updated",
            alert.key.value, tile.value, kind.value
        ),
        Some(tile.span),
    )
    .with_label("not a line or number tile")
    .with_related(kind.span, "the tile's type")
    .with_help("put the alert on a line (`type: time`) or number tile")
}
