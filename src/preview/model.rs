//! What a preview draws and how it is evaluated: the chart, its lines and threshold, the runs
//! of firing buckets, and the times and durations the flags and the output use.

use jiff::Timestamp;
use serde_json::{Value, json};

use crate::api::limits::GRANULARITIES;
use crate::duration::{self, DAYS, HOURS, MINUTES, Problem, SECONDS, WEEKS};

/// One drawn line: a series (or the ratio of two) for one group, its buckets in time order.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Line {
    /// What it shows, e.g. `count` or `series 0 / series 1 · host-a`.
    pub label: String,
    /// Group-by values of this line (empty without `groupBy`).
    pub group: Vec<String>,
    /// `(bucket start in epoch ms, value)`, ascending; absent buckets are gaps.
    pub points: Vec<(i64, f64)>,
    /// Whether the alert's threshold applies to this line (series 0, or the ratio).
    pub evaluated: bool,
}

/// Which values fire, as the observability server's alert check compares them
/// (`doesExceedThreshold` in HyperDX's `checkAlerts`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Direction {
    /// `above`: fires when the value is the threshold or more (the server's `>=`).
    Above,
    /// `above_exclusive`: fires when the value is greater than the threshold.
    AboveExclusive,
    /// `below`: fires when the value is less than the threshold.
    Below,
    /// `below_or_equal`: fires when the value is the threshold or less.
    BelowOrEqual,
    /// `equal`: fires when the value is the threshold.
    Equal,
    /// `not_equal`: fires when the value is anything but the threshold.
    NotEqual,
    /// Fires when the value is within the threshold and `thresholdMax`, both included.
    Between,
    /// Fires when the value is outside the threshold and `thresholdMax`.
    NotBetween,
}

impl Direction {
    /// Every direction, in the order the current document lists the threshold types.
    const ALL: [Direction; 8] = [
        Direction::Above,
        Direction::AboveExclusive,
        Direction::Below,
        Direction::BelowOrEqual,
        Direction::Equal,
        Direction::NotEqual,
        Direction::Between,
        Direction::NotBetween,
    ];

    /// Reads the alert's `thresholdType`.
    pub(crate) fn parse(text: &str) -> Option<Direction> {
        Direction::ALL
            .into_iter()
            .find(|direction| direction.api_name() == text)
    }

    /// The word used in output.
    pub(crate) fn as_str(self) -> &'static str {
        match self {
            Direction::Above => "at or above",
            Direction::AboveExclusive => "above",
            Direction::Below => "below",
            Direction::BelowOrEqual => "at or below",
            Direction::Equal => "equal to",
            Direction::NotEqual => "not equal to",
            Direction::Between => "between",
            Direction::NotBetween => "not between",
        }
    }

    /// The `thresholdType` it was read from.
    pub(crate) fn api_name(self) -> &'static str {
        match self {
            Direction::Above => "above",
            Direction::AboveExclusive => "above_exclusive",
            Direction::Below => "below",
            Direction::BelowOrEqual => "below_or_equal",
            Direction::Equal => "equal",
            Direction::NotEqual => "not_equal",
            Direction::Between => "between",
            Direction::NotBetween => "not_between",
        }
    }

    /// Whether the low values are the ones that fire (the chart keeps the lowest value of a
    /// column, not the highest).
    pub(crate) fn fires_low(self) -> bool {
        matches!(self, Direction::Below | Direction::BelowOrEqual)
    }

    /// What a run's most telling value is called: the highest above, the lowest below, the
    /// furthest out of a band or from the value it must not equal.
    pub(crate) fn peak_word(self) -> &'static str {
        match self {
            Direction::Above | Direction::AboveExclusive | Direction::Between => "peak",
            Direction::Below | Direction::BelowOrEqual => "lowest",
            Direction::Equal => "value",
            Direction::NotBetween | Direction::NotEqual => "furthest",
        }
    }
}

/// An alert's threshold.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Threshold {
    /// The value compared with each bucket (the band's lower bound for `between`).
    pub value: f64,
    /// Which side fires.
    pub direction: Direction,
    /// `thresholdMax`: the band's upper bound for `between` and `not_between`.
    pub max: Option<f64>,
    /// `numConsecutiveWindows`: how many firing windows in a row the alert waits for (1 when
    /// the alert leaves it out).
    pub windows: usize,
}

impl Threshold {
    /// A threshold of one side that fires at the first window.
    #[cfg(test)]
    pub(crate) fn simple(value: f64, direction: Direction) -> Threshold {
        Threshold {
            value,
            direction,
            max: None,
            windows: 1,
        }
    }

    /// Whether one bucket's value fires.
    pub(crate) fn fires(&self, value: f64) -> bool {
        let max = self.max.unwrap_or(self.value);
        match self.direction {
            Direction::Above => value >= self.value,
            Direction::AboveExclusive => value > self.value,
            Direction::Below => value < self.value,
            Direction::BelowOrEqual => value <= self.value,
            // The server compares with `===`: only the very value fires.
            Direction::Equal => value == self.value,
            Direction::NotEqual => value != self.value,
            Direction::Between => value >= self.value && value <= max,
            Direction::NotBetween => value < self.value || value > max,
        }
    }

    /// The threshold as output says it: `above 400`, `between 100 and 500`.
    pub(crate) fn describe(&self, number: impl Fn(f64) -> String) -> String {
        match (self.direction, self.max) {
            (Direction::Between | Direction::NotBetween, Some(max)) => format!(
                "{} {} and {}",
                self.direction.as_str(),
                number(self.value),
                number(max)
            ),
            _ => format!("{} {}", self.direction.as_str(), number(self.value)),
        }
    }

    /// Whether `candidate` tells more of a run than `peak` does (see [`Direction::peak_word`]).
    fn more_telling(&self, candidate: f64, peak: f64) -> bool {
        match self.direction {
            Direction::Above | Direction::AboveExclusive | Direction::Between => candidate > peak,
            Direction::Below | Direction::BelowOrEqual => candidate < peak,
            Direction::Equal => false,
            Direction::NotEqual => (candidate - self.value).abs() > (peak - self.value).abs(),
            Direction::NotBetween => {
                let outside = |v: f64| (self.value - v).max(v - self.max.unwrap_or(self.value));
                outside(candidate) > outside(peak)
            }
        }
    }
}

/// An alert's threshold carried to buckets of another size than the interval it evaluates
/// every (`preview --granularity 1h` on a 5-minute alert): a count or a sum grows with the
/// bucket, so its threshold is scaled by the ratio of the two sizes, as if the rate were even.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Rescaled {
    /// The alert's own threshold, per interval.
    pub alert_value: f64,
    /// The alert's interval (ms).
    pub interval_ms: i64,
    /// Bucket size over interval (12 for hourly buckets of a 5-minute alert).
    pub factor: f64,
}

/// How buckets of `step_ms` compare with an alert evaluated every `interval_ms` whose tile's
/// first series aggregates with `agg_fn`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) enum IntervalFit {
    /// Same size: the buckets are the alert's own windows.
    Same,
    /// A count or sum: the threshold is scaled to the bucket size.
    Scaled(Threshold, Rescaled),
    /// Another aggregation (avg, max, a ratio, ...): it does not grow with the bucket, so the
    /// threshold is kept, but each bucket is not what the alert compares.
    Unscaled,
}

/// Fits `threshold` (per `interval_ms`) to buckets of `step_ms`.
pub(crate) fn fit_interval(
    threshold: Threshold,
    interval_ms: i64,
    step_ms: i64,
    agg_fn: Option<&str>,
    as_ratio: bool,
) -> IntervalFit {
    if interval_ms <= 0 || step_ms <= 0 || interval_ms == step_ms {
        return IntervalFit::Same;
    }
    let additive = !as_ratio && matches!(agg_fn, Some("count" | "sum"));
    if !additive {
        return IntervalFit::Unscaled;
    }
    let factor = step_ms as f64 / interval_ms as f64;
    IntervalFit::Scaled(
        Threshold {
            value: threshold.value * factor,
            max: threshold.max.map(|max| max * factor),
            ..threshold
        },
        Rescaled {
            alert_value: threshold.value,
            interval_ms,
            factor,
        },
    )
}

/// A run of consecutive firing buckets: one time the alert would have fired.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Run {
    /// Start of the first firing bucket (epoch ms).
    pub start: i64,
    /// End of the last firing bucket (epoch ms, exclusive).
    pub end: i64,
    /// How many buckets.
    pub buckets: usize,
    /// The value furthest past the threshold during the run.
    pub peak: f64,
}

/// Splits a line's firing buckets into runs; a missing bucket ends a run.
pub(crate) fn runs(points: &[(i64, f64)], step_ms: i64, threshold: &Threshold) -> Vec<Run> {
    let mut runs: Vec<Run> = Vec::new();
    let mut open = false;
    for &(ts, value) in points {
        if !threshold.fires(value) {
            open = false;
            continue;
        }
        match runs.last_mut() {
            Some(run) if open && run.end == ts => {
                run.end = ts + step_ms;
                run.buckets += 1;
                if threshold.more_telling(value, run.peak) {
                    run.peak = value;
                }
            }
            _ => runs.push(Run {
                start: ts,
                end: ts + step_ms,
                buckets: 1,
                peak: value,
            }),
        }
        open = true;
    }
    runs
}

/// Everything a preview shows: the window, the lines and (for an alert) the threshold.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Chart {
    /// What is previewed, e.g. `alert.obs.api-errors`.
    pub address: String,
    /// A human title, e.g. `API health › Requests`.
    pub title: String,
    /// Window start (epoch ms).
    pub start_ms: i64,
    /// Window end (epoch ms).
    pub end_ms: i64,
    /// Granularity asked for (`5m`, `auto`).
    pub granularity: String,
    /// Bucket size in ms (from the granularity, or read off the answer under `auto`).
    pub step_ms: i64,
    /// The lines, evaluated ones first.
    pub lines: Vec<Line>,
    /// The alert's threshold (at the buckets' size); `None` for a dashboard or tile.
    pub threshold: Option<Threshold>,
    /// Set when the threshold was scaled from the alert's interval to the buckets' size.
    pub rescaled: Option<Rescaled>,
    /// Buckets of the first line that had no data and are drawn and compared as 0, as the
    /// server's check compares an empty window (see [`Chart::empty_buckets_as_zero`]).
    pub zeroed: usize,
}

impl Chart {
    /// The chart as the server's alert check sees a window with no row at all: it compares such
    /// a bucket as the value 0 (`checkAlerts` evaluates an empty bucket with 0), so where 0
    /// fires (`below 5`, `equal 0`, ...), each empty bucket of an ungrouped evaluated line is a
    /// 0, not a gap. Grouped lines keep their gaps (a group with no row in a bucket has no
    /// value there), and so does a ratio, whose empty denominator the server skips.
    pub(crate) fn empty_buckets_as_zero(mut self, as_ratio: bool) -> Chart {
        let Some(threshold) = self.threshold else {
            return self;
        };
        if as_ratio || self.step_ms <= 0 || !threshold.fires(0.0) {
            return self;
        }
        let first = self.start_ms.div_euclid(self.step_ms) * self.step_ms;
        let buckets = self.bucket_count();
        for (i, line) in self.lines.iter_mut().enumerate() {
            if !line.evaluated || !line.group.is_empty() {
                continue;
            }
            let mut filled: std::collections::BTreeMap<i64, f64> =
                line.points.iter().copied().collect();
            let had = filled.len();
            for bucket in 0..buckets {
                filled.entry(first + bucket * self.step_ms).or_insert(0.0);
            }
            if i == 0 {
                self.zeroed = filled.len() - had;
            }
            line.points = filled.into_iter().collect();
        }
        self
    }

    /// The runs of every evaluated line that fire the alert (at least `numConsecutiveWindows`
    /// buckets long), with the line's index, in time order.
    pub(crate) fn firings(&self) -> Vec<(usize, Run)> {
        let windows = self.threshold.map_or(1, |t| t.windows);
        self.runs()
            .into_iter()
            .filter(|(_, run)| run.buckets >= windows)
            .collect()
    }

    /// Runs past the threshold too short to fire: fewer buckets than `numConsecutiveWindows`.
    pub(crate) fn short_runs(&self) -> usize {
        let windows = self.threshold.map_or(1, |t| t.windows);
        self.runs()
            .iter()
            .filter(|(_, run)| run.buckets < windows)
            .count()
    }

    /// Every run of buckets past the threshold, with its line's index, in time order.
    fn runs(&self) -> Vec<(usize, Run)> {
        let Some(threshold) = &self.threshold else {
            return Vec::new();
        };
        let mut all: Vec<(usize, Run)> = self
            .lines
            .iter()
            .enumerate()
            .filter(|(_, line)| line.evaluated)
            .flat_map(|(i, line)| {
                runs(&line.points, self.step_ms, threshold)
                    .into_iter()
                    .map(move |run| (i, run))
            })
            .collect();
        all.sort_by_key(|(i, run)| (run.start, *i));
        all
    }

    /// The longest firing run (the earliest of equals).
    pub(crate) fn longest(&self) -> Option<(usize, Run)> {
        self.firings()
            .into_iter()
            .fold(None, |best: Option<(usize, Run)>, candidate| match best {
                Some(b) if b.1.buckets >= candidate.1.buckets => Some(b),
                _ => Some(candidate),
            })
    }

    /// Buckets the window could hold (for the "N empty" count).
    pub(crate) fn bucket_count(&self) -> i64 {
        if self.step_ms <= 0 {
            return 0;
        }
        let first = self.start_ms.div_euclid(self.step_ms) * self.step_ms;
        (self.end_ms - first + self.step_ms - 1) / self.step_ms
    }

    /// The `--format json` document.
    pub(crate) fn to_json(&self) -> Value {
        let firings = self.firings();
        let lines: Vec<Value> = self
            .lines
            .iter()
            .enumerate()
            .map(|(i, line)| {
                let firing: Vec<i64> = match (&self.threshold, line.evaluated) {
                    (Some(t), true) => line
                        .points
                        .iter()
                        .filter(|(_, v)| t.fires(*v))
                        .map(|(ts, _)| *ts)
                        .collect(),
                    _ => Vec::new(),
                };
                json!({
                    "label": line.label,
                    "group": line.group,
                    "evaluated": line.evaluated && self.threshold.is_some(),
                    "points": line.points.iter().map(|(ts, v)| json!({
                        "ts": ts, "time": iso(*ts), "value": number(*v),
                    })).collect::<Vec<_>>(),
                    "firingBuckets": firing,
                    "runs": firings.iter().filter(|(l, _)| *l == i).map(|(_, r)| run_json(r)).collect::<Vec<_>>(),
                })
            })
            .collect();
        json!({
            "address": self.address,
            "title": self.title,
            "startTime": self.start_ms,
            "endTime": self.end_ms,
            "granularity": self.granularity,
            "stepMs": self.step_ms,
            "emptyBucketsAsZero": self.zeroed,
            "threshold": self.threshold.map(|t| {
                let mut threshold = json!({
                    "value": number(t.value), "type": t.direction.api_name(),
                });
                if let Some(object) = threshold.as_object_mut() {
                    if let Some(max) = t.max {
                        object.insert("max".into(), number(max));
                    }
                    if t.windows > 1 {
                        object.insert("numConsecutiveWindows".into(), json!(t.windows));
                        object.insert("shortRuns".into(), json!(self.short_runs()));
                    }
                }
                if let (Some(r), Some(object)) = (&self.rescaled, threshold.as_object_mut()) {
                    object.insert("alertValue".into(), number(r.alert_value));
                    object.insert("alertInterval".into(), json!(human_duration(r.interval_ms)));
                    object.insert("scaledBy".into(), number(r.factor));
                }
                threshold
            }),
            "fired": self.threshold.map(|_| firings.len()),
            "longestRun": self.longest().map(|(i, r)| {
                let mut value = run_json(&r);
                if let Some(object) = value.as_object_mut() {
                    object.insert("line".into(), json!(self.lines.get(i).map(|l| l.label.clone())));
                }
                value
            }),
            "lines": lines,
        })
    }
}

fn run_json(run: &Run) -> Value {
    json!({
        "start": run.start,
        "end": run.end,
        "startTime": iso(run.start),
        "buckets": run.buckets,
        "peak": number(run.peak),
    })
}

/// Whole numbers as integers, so JSON output reads like the server's.
fn number(value: f64) -> Value {
    if value.fract() == 0.0 && value.abs() < 1e15 {
        json!(value as i64)
    } else {
        json!(value)
    }
}

/// The value range a chart spans: the data and the threshold, with a tenth of headroom on both
/// sides so the data's shape and its distance to the threshold show, starting at zero only when
/// the data comes near it (the axis is labelled, so a non-zero base does not mislead).
pub(crate) fn value_range(chart: &Chart, lines: &[&Line]) -> (f64, f64) {
    let mut values = lines
        .iter()
        .flat_map(|l| l.points.iter().map(|p| p.1))
        .chain(chart.threshold.map(|t| t.value))
        .peekable();
    if values.peek().is_none() {
        return (0.0, 1.0);
    }
    let (low, high) = values.fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), v| {
        (lo.min(v), hi.max(v))
    });
    let pad = if high > low {
        (high - low) / 10.0
    } else {
        low.abs().max(1.0) / 10.0
    };
    let bottom = if low >= 0.0 && low - pad <= 0.0 {
        0.0
    } else {
        low - pad
    };
    (bottom, high + pad)
}

/// Epoch ms as RFC 3339 UTC to the second.
pub(crate) fn iso(ms: i64) -> String {
    Timestamp::from_millisecond(ms)
        .map(|t| t.strftime("%Y-%m-%dT%H:%M:%SZ").to_string())
        .unwrap_or_else(|_| ms.to_string())
}

/// Epoch ms as `MM-DD HH:MM` UTC, for axis labels.
pub(crate) fn short_time(ms: i64) -> String {
    Timestamp::from_millisecond(ms)
        .map(|t| t.strftime("%m-%d %H:%M").to_string())
        .unwrap_or_else(|_| ms.to_string())
}

/// A duration as the shortest exact text (`25m`, `2h`, `1h30m`).
pub(crate) fn human_duration(ms: i64) -> String {
    let mut rest = ms / 1000;
    let mut out = String::new();
    for (unit, secs) in [("d", 86_400), ("h", 3_600), ("m", 60), ("s", 1)] {
        if rest >= secs {
            out.push_str(&format!("{}{unit}", rest / secs));
            rest %= secs;
        }
    }
    if out.is_empty() { "0s".into() } else { out }
}

/// Parses `90s`, `15m`, `24h`, `7d`, `2w` into milliseconds.
pub(crate) fn parse_duration(text: &str) -> Result<i64, DurationError> {
    let text = text.trim();
    let units = [SECONDS, MINUTES, HOURS, DAYS, WEEKS];
    let owned = || text.to_string();
    let duration = duration::parse(text, &units, None).map_err(|problem| match problem {
        Problem::NoUnit | Problem::UnknownUnit => DurationError::Unit { text: owned() },
        Problem::Empty | Problem::Malformed | Problem::TooLarge => {
            DurationError::Malformed { text: owned() }
        }
    })?;
    match i64::try_from(duration.as_millis()) {
        Ok(ms) if ms > 0 => Ok(ms),
        _ => Err(DurationError::NotPositive { text: owned() }),
    }
}

/// Milliseconds of a granularity name (`auto` has none).
pub(crate) fn granularity_ms(name: &str) -> Option<i64> {
    if name == "auto" || !GRANULARITIES.contains(&name) {
        return None;
    }
    parse_duration(name).ok()
}

/// The granularity a preview asks for: the flag, else the alert's interval when the API knows
/// it as a granularity, else `auto`.
pub(crate) fn choose_granularity(flag: Option<&str>, interval: Option<&str>) -> String {
    if let Some(flag) = flag {
        return flag.to_string();
    }
    match interval {
        Some(i) if GRANULARITIES.contains(&i) && i != "auto" => i.to_string(),
        _ => "auto".to_string(),
    }
}

/// The bucket size of an answer: the granularity's, or under `auto` the smallest distance
/// between buckets (the window's sixtieth when there are too few buckets to tell).
pub(crate) fn step_of(granularity: &str, lines: &[Line], window_ms: i64) -> i64 {
    if let Some(ms) = granularity_ms(granularity) {
        return ms;
    }
    lines
        .iter()
        .flat_map(|line| line.points.windows(2).map(|w| w[1].0 - w[0].0))
        .filter(|d| *d > 0)
        .min()
        .unwrap_or((window_ms / 60).max(1_000))
}

/// Why a text is not a duration as `preview` reads them (`--window`, an alert's interval):
/// digits and one of `s`, `m`, `h`, `d`, `w`. The text is quoted without its blanks.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub(crate) enum DurationError {
    /// Not a number followed by a unit.
    #[error("`{text}` is not a duration such as 15m, 24h or 7d")]
    Malformed {
        /// The text.
        text: String,
    },
    /// No unit, or one that is not `s`, `m`, `h`, `d` or `w`.
    #[error("`{text}`: the unit must be s, m, h, d or w")]
    Unit {
        /// The text.
        text: String,
    },
    /// Zero, negative, or more milliseconds than the clock counts.
    #[error("`{text}` must be a positive duration")]
    NotPositive {
        /// The text.
        text: String,
    },
}

#[cfg(test)]
mod tests {
    use super::*;

    const ABOVE: Threshold = Threshold {
        value: 10.0,
        direction: Direction::Above,
        max: None,
        windows: 1,
    };

    #[test]
    fn runs_break_at_gaps_and_at_quiet_buckets() {
        // 0 fires, 1 fires, 2 missing, 3 fires, 4 quiet, 5 fires, 6 fires.
        let points = [
            (0, 11.0),
            (60, 12.0),
            (180, 15.0),
            (240, 9.0),
            (300, 20.0),
            (360, 30.0),
        ];
        let found = runs(&points, 60, &ABOVE);
        let shape: Vec<(i64, i64, usize, f64)> = found
            .iter()
            .map(|r| (r.start, r.end, r.buckets, r.peak))
            .collect();
        assert_eq!(
            shape,
            vec![(0, 120, 2, 12.0), (180, 240, 1, 15.0), (300, 420, 2, 30.0)]
        );
    }

    #[test]
    fn every_threshold_type_compares_as_the_server_does() {
        // checkAlerts' doesExceedThreshold: above is >=, above_exclusive >, below <,
        // below_or_equal <=, equal ===, not_equal !==.
        let cases = [
            ("above", [false, true, true]),
            ("above_exclusive", [false, false, true]),
            ("below", [true, false, false]),
            ("below_or_equal", [true, true, false]),
            ("equal", [false, true, false]),
            ("not_equal", [true, false, true]),
        ];
        for (name, expected) in cases {
            let direction = Direction::parse(name).unwrap_or_else(|| panic!("{name} is not read"));
            assert_eq!(direction.api_name(), name);
            let threshold = Threshold::simple(10.0, direction);
            let fired: Vec<bool> = [9.0, 10.0, 11.0]
                .iter()
                .map(|v| threshold.fires(*v))
                .collect();
            assert_eq!(fired, expected, "{name}");
        }
        assert_eq!(Direction::parse("sideways"), None);
    }

    #[test]
    fn an_empty_bucket_is_a_zero_where_zero_fires() {
        let line = |group: Vec<String>| Line {
            label: "count".into(),
            group,
            points: vec![(0, 3.0), (120, 4.0)],
            evaluated: true,
        };
        let chart = |direction| Chart {
            address: "alert.obs.a".into(),
            title: String::new(),
            start_ms: 0,
            end_ms: 240,
            granularity: "1m".into(),
            step_ms: 60,
            lines: vec![line(Vec::new()), line(vec!["host-a".into()])],
            threshold: Some(Threshold::simple(1.0, direction)),
            rescaled: None,
            zeroed: 0,
        };
        // below 1: the two empty buckets are 0s and fire; the grouped line keeps its gaps.
        let below = chart(Direction::Below).empty_buckets_as_zero(false);
        assert_eq!(
            below.lines[0].points,
            [(0, 3.0), (60, 0.0), (120, 4.0), (180, 0.0)]
        );
        assert_eq!(below.lines[1].points, [(0, 3.0), (120, 4.0)]);
        assert_eq!(below.zeroed, 2);
        assert_eq!(below.firings().len(), 2);
        // above 1: 0 does not fire, so nothing is filled; nor for a ratio.
        let above = chart(Direction::Above).empty_buckets_as_zero(false);
        assert_eq!(above.lines[0].points, [(0, 3.0), (120, 4.0)]);
        let ratio = chart(Direction::Below).empty_buckets_as_zero(true);
        assert_eq!(ratio.lines[0].points, [(0, 3.0), (120, 4.0)]);
    }

    #[test]
    fn a_band_fires_inside_or_outside_it_bounds_included() {
        let band = Threshold {
            max: Some(20.0),
            ..Threshold::simple(10.0, Direction::Between)
        };
        let fired: Vec<bool> = [9.0, 10.0, 15.0, 20.0, 21.0]
            .iter()
            .map(|v| band.fires(*v))
            .collect();
        assert_eq!(fired, [false, true, true, true, false]);
        let outside = Threshold {
            direction: Direction::NotBetween,
            ..band
        };
        let fired: Vec<bool> = [9.0, 10.0, 15.0, 20.0, 21.0]
            .iter()
            .map(|v| outside.fires(*v))
            .collect();
        assert_eq!(fired, [true, false, false, false, true]);
        assert_eq!(outside.describe(|v| v.to_string()), "not between 10 and 20");
        // The run's telling value is the one furthest out of the band, on either side.
        let found = runs(&[(0, 25.0), (60, 1.0), (120, 22.0)], 60, &outside);
        assert_eq!(found[0].peak, 1.0);
    }

    #[test]
    fn below_fires_under_the_threshold_only() {
        let below = Threshold::simple(10.0, Direction::Below);
        let points = [(0, 9.0), (60, 10.0), (120, 3.0), (180, 4.0)];
        let found = runs(&points, 60, &below);
        assert_eq!(found.len(), 2);
        assert_eq!(found[1].peak, 3.0);
        assert_eq!(found[1].buckets, 2);
    }

    #[test]
    fn durations_and_granularities() {
        assert_eq!(parse_duration("24h"), Ok(86_400_000));
        assert_eq!(parse_duration("90s"), Ok(90_000));
        assert!(parse_duration("24").is_err());
        assert!(parse_duration("0h").is_err());
        assert!(parse_duration("h").is_err());
        // Signs are not durations: `+5m` reads as malformed, as `-5m` does.
        assert!(matches!(
            parse_duration("+5m"),
            Err(DurationError::Malformed { .. })
        ));
        assert!(matches!(
            parse_duration("-5m"),
            Err(DurationError::Malformed { .. })
        ));
        assert_eq!(human_duration(5_400_000), "1h30m");
        assert_eq!(choose_granularity(None, Some("5m")), "5m");
        assert_eq!(choose_granularity(None, Some("3m")), "auto");
        assert_eq!(choose_granularity(Some("1h"), Some("5m")), "1h");
        assert_eq!(granularity_ms("auto"), None);
        assert_eq!(granularity_ms("15m"), Some(900_000));
    }

    #[test]
    fn counts_and_sums_scale_with_the_bucket_other_aggregations_do_not() {
        let five_minutes = 300_000;
        let hour = 3_600_000;
        match fit_interval(ABOVE, five_minutes, hour, Some("count"), false) {
            IntervalFit::Scaled(threshold, rescaled) => {
                assert_eq!(threshold.value, 120.0);
                assert_eq!(rescaled.factor, 12.0);
                assert_eq!(rescaled.alert_value, 10.0);
            }
            other => panic!("{other:?}"),
        }
        match fit_interval(ABOVE, five_minutes, 60_000, Some("sum"), false) {
            IntervalFit::Scaled(threshold, _) => assert_eq!(threshold.value, 2.0),
            other => panic!("{other:?}"),
        }
        assert_eq!(
            fit_interval(ABOVE, five_minutes, hour, Some("avg"), false),
            IntervalFit::Unscaled
        );
        assert_eq!(
            fit_interval(ABOVE, five_minutes, hour, Some("count"), true),
            IntervalFit::Unscaled,
            "a ratio of counts does not grow with the bucket"
        );
        assert_eq!(
            fit_interval(ABOVE, five_minutes, five_minutes, Some("count"), false),
            IntervalFit::Same
        );
    }
}
