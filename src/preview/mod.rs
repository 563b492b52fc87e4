//! Looking at a tile's data before alerting on it: `converge preview` (fetch a tile's series
//! from `POST /api/v2/charts/series`, evaluate an alert's threshold bucket by bucket, draw it in
//! the terminal or as SVG) and `plan --check-queries` (run every planned tile's query once, and
//! send every planned dashboard to the server's validation).
//!
//! Everything here starts from the config's tile definition (source names resolved through the
//! stack's sources list), so a change can be previewed before it is applied. Only the standalone
//! observability API has charts/series; the managed stack has none and is reported as skipped.
//!
//! Evaluation rules, documented in docs/preview.md: a bucket fires as the server's alert check
//! compares it (`above` is `>=`, `above_exclusive` `>`, and so on for the eight threshold
//! types); a bucket the server left out of an ungrouped line is compared as 0, as the server's
//! check does with an empty window; a firing is a run of consecutive firing buckets.

pub(crate) mod check;
pub(crate) mod model;
pub(crate) mod query;
pub(crate) mod svg;
pub(crate) mod terminal;
pub(crate) mod validation;

pub(crate) use model::{
    Chart, Direction, IntervalFit, Rescaled, Threshold, choose_granularity, fit_interval,
    human_duration, iso, parse_duration, step_of,
};
