//! The terminal chart: one bar chart of block characters per line, eight levels per row, the
//! threshold row drawn with `┄`, firing columns marked `▲` under the axis, times below. Each
//! column covers an equal slice of the window and shows its highest value (its lowest for a
//! `below` alert, so a dip is never averaged away). Columns with no data stay blank.

use super::model::{Chart, Line, Threshold, short_time, value_range};

/// Rows of bars per chart.
const HEIGHT: usize = 10;
/// The narrowest plot drawn, whatever the terminal says.
const MIN_PLOT: usize = 20;
/// The widest chart drawn, whatever `COLUMNS` says (a huge value must not allocate a huge plot).
const MAX_WIDTH: usize = 1000;
const LEVELS: [char; 9] = [' ', '▁', '▂', '▃', '▄', '▅', '▆', '▇', '█'];

/// The width to draw at: `COLUMNS`, else the terminal's, else 80.
pub(crate) fn width() -> usize {
    width_from(
        std::env::var("COLUMNS").ok().as_deref(),
        terminal_size::terminal_size().map(|(w, _)| usize::from(w.0)),
    )
}

/// `COLUMNS` when it is a positive number, else the terminal's width, else 80; at most
/// [`MAX_WIDTH`].
fn width_from(columns: Option<&str>, terminal: Option<usize>) -> usize {
    columns
        .and_then(|c| c.trim().parse::<usize>().ok())
        .filter(|c| *c > 0)
        .or(terminal)
        .unwrap_or(80)
        .min(MAX_WIDTH)
}

/// A value in few characters: `12`, `3.25`, `1.5k`, `2.1M`.
pub(crate) fn compact(value: f64) -> String {
    let abs = value.abs();
    let trim = |s: String| {
        if s.contains('.') {
            s.trim_end_matches('0').trim_end_matches('.').to_string()
        } else {
            s
        }
    };
    if abs >= 1e6 {
        format!("{}M", trim(format!("{:.1}", value / 1e6)))
    } else if abs >= 1e4 {
        format!("{}k", trim(format!("{:.1}", value / 1e3)))
    } else if value.fract() == 0.0 {
        format!("{value:.0}")
    } else {
        trim(format!("{value:.2}"))
    }
}

/// Draws every line of the chart, `width` columns wide.
pub fn render(chart: &Chart, width: usize) -> String {
    let width = width.min(MAX_WIDTH);
    let mut out = String::new();
    for line in &chart.lines {
        let threshold = chart.threshold.filter(|_| line.evaluated);
        out.push_str(&format!("{}\n", line.label));
        out.push_str(&draw(chart, line, threshold.as_ref(), width));
    }
    out
}

fn draw(chart: &Chart, line: &Line, threshold: Option<&Threshold>, width: usize) -> String {
    let (bottom, top) = value_range(chart, &[line]);
    let labels = [compact(top), compact(bottom)]
        .into_iter()
        .chain(threshold.map(|t| compact(t.value)));
    let label_width = labels.map(|l| l.chars().count()).max().unwrap_or(1);
    let suffix = threshold
        .map(|t| format!(" {}", t.describe(compact)))
        .unwrap_or_default();
    let plot = width
        .saturating_sub(label_width + 2 + suffix.chars().count())
        .max(MIN_PLOT);

    let columns = column_values(chart, line, threshold, plot);
    let eighths = |v: f64| ((v - bottom) / (top - bottom) * (HEIGHT * 8) as f64).round() as i64;
    let threshold_row = threshold.map(|t| (eighths(t.value) / 8).clamp(0, HEIGHT as i64 - 1));

    let mut out = String::new();
    for row in (0..HEIGHT as i64).rev() {
        let label = if row == HEIGHT as i64 - 1 {
            compact(top)
        } else if Some(row) == threshold_row {
            threshold.map(|t| compact(t.value)).unwrap_or_default()
        } else {
            String::new()
        };
        let is_threshold = Some(row) == threshold_row;
        out.push_str(&format!(
            "{label:>label_width$} {}",
            if is_threshold { '┼' } else { '│' }
        ));
        for column in &columns {
            let fill = column.map_or(0, |(v, _)| (eighths(v) - row * 8).clamp(0, 8)) as usize;
            out.push(if fill == 0 && is_threshold {
                '┄'
            } else {
                LEVELS[fill]
            });
        }
        if is_threshold {
            out.push_str(&suffix);
        }
        let kept = out.trim_end_matches(' ').len();
        out.truncate(kept);
        out.push('\n');
    }
    out.push_str(&format!(
        "{:>label_width$} └{}\n",
        compact(bottom),
        "─".repeat(plot)
    ));
    if columns.iter().any(|c| matches!(c, Some((_, true)))) {
        let marks: String = columns
            .iter()
            .map(|c| {
                if matches!(c, Some((_, true))) {
                    '▲'
                } else {
                    ' '
                }
            })
            .collect();
        out.push_str(&format!("{:label_width$}  {}\n", "", marks.trim_end()));
    }
    out.push_str(&format!(
        "{:label_width$}  {}\n",
        "",
        time_axis(chart.start_ms, chart.end_ms, plot)
    ));
    out
}

/// Per column of a plot `plot` wide: the value shown (a bucket's, or the highest of those
/// sharing the column; the lowest for a `below` threshold) and whether any of its buckets fires.
fn column_values(
    chart: &Chart,
    line: &Line,
    threshold: Option<&Threshold>,
    plot: usize,
) -> Vec<Option<(f64, bool)>> {
    let span = (chart.end_ms - chart.start_ms).max(1) as f64;
    let mut columns: Vec<Option<(f64, bool)>> = vec![None; plot];
    let column_at = |ms: i64| (ms - chart.start_ms) as f64 / span * plot as f64;
    for &(ts, value) in &line.points {
        // A bucket covers every column its time range touches, so few wide buckets still fill
        // the plot, and many narrow ones share a column.
        let first = column_at(ts).floor().max(0.0) as usize;
        let last = (column_at(ts + chart.step_ms.max(1)).ceil() as usize).saturating_sub(1);
        let fires = threshold.is_some_and(|t| t.fires(value));
        for column in columns.iter_mut().take(last + 1).skip(first) {
            *column = Some(match *column {
                None => (value, fires),
                Some((shown, fired)) => {
                    let keep_low = threshold.is_some_and(|t| t.direction.fires_low());
                    let shown = if keep_low {
                        shown.min(value)
                    } else {
                        shown.max(value)
                    };
                    (shown, fired || fires)
                }
            });
        }
    }
    columns
}

/// Start, middle and end times spread over the plot's width (UTC).
fn time_axis(start: i64, end: i64, plot: usize) -> String {
    let first = short_time(start);
    let last = short_time(end);
    let middle = short_time(start + (end - start) / 2);
    let len = first.chars().count();
    let mut axis = first;
    if plot >= len * 3 + 4 {
        let mid_at = plot / 2 - len / 2;
        axis.push_str(&" ".repeat(mid_at.saturating_sub(len)));
        axis.push_str(&middle);
    }
    let used = axis.chars().count();
    axis.push_str(&" ".repeat(plot.saturating_sub(used + len).max(1)));
    axis.push_str(&last);
    axis.push_str(" UTC");
    axis
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::preview::model::Direction;

    fn chart(points: Vec<(i64, f64)>, threshold: Option<Threshold>) -> Chart {
        Chart {
            address: "alert.obs.a".into(),
            title: "t".into(),
            start_ms: 0,
            end_ms: 600_000,
            granularity: "1m".into(),
            step_ms: 60_000,
            lines: vec![Line {
                label: "count".into(),
                group: Vec::new(),
                points,
                evaluated: true,
            }],
            threshold,
            rescaled: None,
            zeroed: 0,
        }
    }

    #[test]
    fn an_absurd_width_is_capped_instead_of_allocating_it() {
        let above = Threshold::simple(20.0, Direction::Above);
        let points = (0..10).map(|i| (i * 60_000, 5.0)).collect();
        let text = render(&chart(points, Some(above)), usize::MAX);
        assert!(
            text.lines().all(|l| l.chars().count() <= MAX_WIDTH),
            "{}",
            text.len()
        );
        assert_eq!(width_from(Some("18446744073709551615"), None), MAX_WIDTH);
        assert_eq!(width_from(Some("abc"), Some(120)), 120);
        assert_eq!(width_from(Some("0"), None), 80);
        assert_eq!(width_from(None, None), 80);
    }

    #[test]
    fn firing_columns_are_marked_and_the_threshold_row_is_drawn() {
        let points = (0..10).map(|i| (i * 60_000, if i == 4 { 50.0 } else { 5.0 }));
        let above = Threshold::simple(20.0, Direction::Above);
        let text = render(&chart(points.collect(), Some(above)), 33);
        let lines: Vec<&str> = text.lines().collect();
        // 33 columns leave a plot of 20 (2 label, 2 axis, 9 suffix): 2 per bucket.
        let marks = lines
            .iter()
            .find(|l| l.contains('▲'))
            .copied()
            .unwrap_or("");
        assert_eq!(marks.matches('▲').count(), 2, "{text}");
        assert!(text.contains("┄"), "{text}");
        assert!(text.contains("above 20"), "{text}");
        let wide = render(&chart(vec![(0, 1.0)], Some(above)), 80);
        assert!(wide.lines().all(|l| l.chars().count() <= 80), "{wide}");
    }

    #[test]
    fn a_tile_has_no_threshold_and_no_marks() {
        let text = render(&chart(vec![(0, 1.0), (60_000, 2.0)], None), 80);
        assert!(!text.contains('▲') && !text.contains('┄'), "{text}");
        assert!(text.contains('█'), "{text}");
    }

    #[test]
    fn compact_numbers() {
        assert_eq!(compact(12.0), "12");
        assert_eq!(compact(3.25), "3.25");
        assert_eq!(compact(15_300.0), "15.3k");
        assert_eq!(compact(2_000_000.0), "2M");
    }
}
