//! The `--svg FILE` chart: a standalone SVG (no scripts, fonts or links) with one panel per
//! chart. Each panel has a labelled value axis and UTC time axis, one `path.series` per line
//! (broken at missing buckets), a dashed `line.threshold` and a shaded `rect.firing` per run of
//! firing buckets. Class names are stable so tests and stylesheets can find the parts.

use std::fmt::Write;

use super::model::{Chart, Line, short_time, value_range};
use super::terminal::compact;

const WIDTH: f64 = 960.0;
const PANEL: f64 = 340.0;
const LEFT: f64 = 72.0;
const RIGHT: f64 = 88.0;
const TOP: f64 = 64.0;
const BOTTOM: f64 = 44.0;
const COLORS: [&str; 6] = [
    "#2563eb", "#16a34a", "#9333ea", "#ea580c", "#0891b2", "#be185d",
];
const FIRING: &str = "#dc2626";

/// Escapes text for XML content and attribute values.
fn escape(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
        .replace('\'', "&apos;")
}

/// A step of 1, 2 or 5 times a power of ten giving about `count` ticks over `range`.
fn nice_step(range: f64, count: f64) -> f64 {
    let raw = (range / count).max(f64::MIN_POSITIVE);
    let power = 10f64.powf(raw.log10().floor());
    let fraction = raw / power;
    let nice = if fraction <= 1.0 {
        1.0
    } else if fraction <= 2.0 {
        2.0
    } else if fraction <= 5.0 {
        5.0
    } else {
        10.0
    };
    nice * power
}

/// The time tick step giving at most about eight ticks.
fn time_step(span_ms: i64) -> i64 {
    const STEPS: [i64; 12] = [
        60_000,
        300_000,
        900_000,
        1_800_000,
        3_600_000,
        7_200_000,
        10_800_000,
        21_600_000,
        43_200_000,
        86_400_000,
        172_800_000,
        604_800_000,
    ];
    STEPS
        .iter()
        .copied()
        .find(|s| span_ms / s <= 8)
        .unwrap_or(2_592_000_000)
}

/// Renders the charts as one SVG document.
pub fn render(charts: &[Chart]) -> String {
    let height = PANEL * charts.len().max(1) as f64;
    let mut out = String::new();
    let _ = writeln!(
        out,
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{WIDTH}" height="{height}" viewBox="0 0 {WIDTH} {height}" font-family="system-ui, -apple-system, Segoe UI, sans-serif" font-size="12">"#
    );
    let title = charts
        .iter()
        .map(|c| c.address.as_str())
        .collect::<Vec<_>>()
        .join(", ");
    let _ = writeln!(out, "<title>converge preview {}</title>", escape(&title));
    let _ = writeln!(
        out,
        r##"<rect class="background" width="{WIDTH}" height="{height}" fill="#ffffff"/>"##
    );
    for (i, chart) in charts.iter().enumerate() {
        panel(&mut out, chart, i as f64 * PANEL);
    }
    out.push_str("</svg>\n");
    out
}

fn panel(out: &mut String, chart: &Chart, offset: f64) {
    let _ = writeln!(
        out,
        r#"<g class="panel" data-address="{}" transform="translate(0 {offset})">"#,
        escape(&chart.address)
    );
    titles(out, chart);
    let frame = Frame::of(chart);
    // Firing runs first, so lines draw over the shading.
    firings(out, chart, &frame);
    value_grid(out, &frame);
    time_axis(out, chart, &frame);
    series(out, chart, &frame);
    threshold(out, chart, &frame);
    out.push_str("</g>\n");
}

/// The plot area of a panel: the value range (the data and threshold with some headroom,
/// widened to nice ticks) and the time window, and where a time or a value lands.
struct Frame {
    plot_w: f64,
    plot_h: f64,
    low: f64,
    high: f64,
    step: f64,
    start_ms: i64,
    end_ms: i64,
    span_ms: i64,
}

impl Frame {
    fn of(chart: &Chart) -> Frame {
        let lines: Vec<&Line> = chart.lines.iter().collect();
        let (low, high) = value_range(chart, &lines);
        let step = nice_step(high - low, 5.0);
        Frame {
            plot_w: WIDTH - LEFT - RIGHT,
            plot_h: PANEL - TOP - BOTTOM,
            low: (low / step).floor() * step,
            high: (high / step).ceil() * step,
            step,
            start_ms: chart.start_ms,
            end_ms: chart.end_ms,
            span_ms: (chart.end_ms - chart.start_ms).max(1),
        }
    }

    fn x(&self, ms: i64) -> f64 {
        LEFT + (ms - self.start_ms) as f64 / self.span_ms as f64 * self.plot_w
    }

    fn y(&self, v: f64) -> f64 {
        TOP + (self.high - v) / (self.high - self.low) * self.plot_h
    }
}

/// The title, and a subtitle with the address, granularity and what the threshold did.
fn titles(out: &mut String, chart: &Chart) {
    let _ = writeln!(
        out,
        r##"<text class="title" x="{LEFT}" y="22" font-size="15" font-weight="600" fill="#111827">{}</text>"##,
        escape(&chart.title)
    );
    let mut subtitle = format!("{} · granularity {}", chart.address, chart.granularity);
    if let Some(t) = &chart.threshold {
        let fired = chart.firings().len();
        let _ = write!(
            subtitle,
            " · fires {} · would have fired {fired} time{}",
            t.describe(compact),
            if fired == 1 { "" } else { "s" }
        );
    }
    let _ = writeln!(
        out,
        r##"<text class="subtitle" x="{LEFT}" y="40" fill="#4b5563">{}</text>"##,
        escape(&subtitle)
    );
}

/// A shaded `rect.firing` per run of firing buckets.
fn firings(out: &mut String, chart: &Chart, frame: &Frame) {
    let plot_h = frame.plot_h;
    for (line, run) in chart.firings() {
        let x0 = frame.x(run.start.max(chart.start_ms));
        let x1 = frame.x(run.end.min(chart.end_ms));
        let _ = writeln!(
            out,
            r#"<rect class="firing" data-line="{line}" data-start="{}" data-buckets="{}" x="{x0:.1}" y="{TOP}" width="{:.1}" height="{plot_h}" fill="{FIRING}" fill-opacity="0.16"/>"#,
            run.start,
            run.buckets,
            (x1 - x0).max(1.0)
        );
    }
}

/// Value grid lines and their labels.
fn value_grid(out: &mut String, frame: &Frame) {
    let mut tick = frame.low;
    while tick <= frame.high + frame.step / 2.0 {
        let ty = frame.y(tick);
        let _ = writeln!(
            out,
            r##"<line class="grid" x1="{LEFT}" x2="{:.1}" y1="{ty:.1}" y2="{ty:.1}" stroke="#e5e7eb"/>"##,
            LEFT + frame.plot_w
        );
        let _ = writeln!(
            out,
            r##"<text class="y-tick" x="{:.1}" y="{:.1}" text-anchor="end" fill="#374151">{}</text>"##,
            LEFT - 8.0,
            ty + 4.0,
            escape(&compact(tick))
        );
        tick += frame.step;
    }
}

/// Time axis: ticks at round UTC times inside the window.
fn time_axis(out: &mut String, chart: &Chart, frame: &Frame) {
    let time_tick = time_step(frame.span_ms);
    let axis_y = TOP + frame.plot_h;
    let _ = writeln!(
        out,
        r##"<line class="x-axis" x1="{LEFT}" x2="{:.1}" y1="{axis_y}" y2="{axis_y}" stroke="#6b7280"/>"##,
        LEFT + frame.plot_w
    );
    let mut t = (chart.start_ms / time_tick + 1) * time_tick;
    while t < frame.end_ms {
        let tx = frame.x(t);
        let _ = writeln!(
            out,
            r##"<line class="x-tick" x1="{tx:.1}" x2="{tx:.1}" y1="{axis_y}" y2="{:.1}" stroke="#6b7280"/>"##,
            axis_y + 5.0
        );
        let _ = writeln!(
            out,
            r##"<text class="x-label" x="{tx:.1}" y="{:.1}" text-anchor="middle" fill="#374151">{}</text>"##,
            axis_y + 18.0,
            escape(&short_time(t))
        );
        t += time_tick;
    }
    let _ = writeln!(
        out,
        r##"<text class="x-unit" x="{:.1}" y="{:.1}" text-anchor="end" fill="#6b7280">UTC</text>"##,
        LEFT + frame.plot_w,
        axis_y + 34.0
    );
}

/// One path per line, and its legend entry; a missing bucket starts a new subpath, a lone
/// bucket is a dot.
fn series(out: &mut String, chart: &Chart, frame: &Frame) {
    for (i, line) in chart.lines.iter().enumerate() {
        let color = COLORS[i % COLORS.len()];
        let mut d = String::new();
        let mut previous: Option<i64> = None;
        for &(ts, value) in &line.points {
            let px = frame.x(ts + chart.step_ms / 2);
            let py = frame.y(value);
            let joined = previous.is_some_and(|p| ts - p <= chart.step_ms);
            let _ = write!(d, "{}{px:.1} {py:.1}", if joined { " L" } else { " M" });
            if !joined {
                d.push_str(" l0 0");
            }
            previous = Some(ts);
        }
        let _ = writeln!(
            out,
            r#"<path class="series" data-label="{}" d="{}" fill="none" stroke="{color}" stroke-width="1.6" stroke-linejoin="round" stroke-linecap="round"/>"#,
            escape(&line.label),
            d.trim_start()
        );
        let ly = 54.0;
        let lx = LEFT + frame.plot_w - 180.0 * (chart.lines.len() - i) as f64;
        let _ = writeln!(
            out,
            r##"<line class="legend" x1="{lx:.1}" x2="{:.1}" y1="{ly}" y2="{ly}" stroke="{color}" stroke-width="3"/><text x="{:.1}" y="{:.1}" fill="#374151">{}</text>"##,
            lx + 16.0,
            lx + 20.0,
            ly + 4.0,
            escape(&line.label)
        );
    }
}

/// The dashed threshold line and its label, when the chart has a threshold.
fn threshold(out: &mut String, chart: &Chart, frame: &Frame) {
    let Some(t) = &chart.threshold else {
        return;
    };
    let ty = frame.y(t.value);
    let _ = writeln!(
        out,
        r#"<line class="threshold" data-value="{}" x1="{LEFT}" x2="{:.1}" y1="{ty:.1}" y2="{ty:.1}" stroke="{FIRING}" stroke-width="1.5" stroke-dasharray="6 4"/>"#,
        t.value,
        LEFT + frame.plot_w
    );
    let _ = writeln!(
        out,
        r#"<text class="threshold-label" x="{:.1}" y="{:.1}" fill="{FIRING}">{}</text>"#,
        LEFT + frame.plot_w + 6.0,
        ty + 4.0,
        escape(&t.describe(compact))
    );
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nice_steps() {
        assert_eq!(nice_step(100.0, 5.0), 20.0);
        assert_eq!(nice_step(7.0, 5.0), 2.0);
        assert_eq!(nice_step(0.3, 5.0), 0.1);
        assert_eq!(time_step(86_400_000), 10_800_000);
        assert_eq!(time_step(900_000), 300_000);
    }

    #[test]
    fn text_is_escaped() {
        assert_eq!(escape("a<b & \"c\""), "a&lt;b &amp; &quot;c&quot;");
    }
}
