//! Series as the API takes them, sources resolved (preview sends the same shape).

use crate::api::wire::{Series, Source};
use crate::config::model::{self};
use crate::diagnostic::{Code, Diagnostic};

/// Resolves a series' `source:` name to the id the stack's sources list gives it; the
/// diagnostic points at the name and lists the stack's sources. Preview uses it too.
pub(crate) fn resolve_source(
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
            Code::PlanUnknownSource,
            format!("no source named \"{}\" in the stack", name.value),
            Some(name.span),
        )
        .with_label("not in the stack's sources")
        .with_help(help),
    ))
}

/// A config series as the API takes it, with its source already resolved to an id. Dashboards
/// (the planner) and chart queries (preview, `--check-queries`) send the same shape.
pub(crate) fn wire_series(series: &model::SeriesConfig, source_id: Option<String>) -> Series {
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
