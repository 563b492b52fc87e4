//! `POST /api/v2/charts/series` from deterministic synthetic data: the same request gives the
//! same bytes. Buckets start at multiples of the granularity (not at `startTime`), empty buckets
//! are left out, `auto` picks the granularity closest to 60 buckets, and values are shaped by
//! `aggFn` (counts are whole numbers).

use serde_json::{Map, Value, json};

use crate::api::limits::{
    AGG_FNS, CHART_SERIES_MAX, CHART_SERIES_MIN, DATA_SOURCES, GRANULARITIES, METRIC_DATA_TYPES,
    SERIES_RETURN_TYPES, SERIES_TYPES, WHERE_LANGUAGES,
};
use crate::api::wire::Series;
use crate::duration::{self, DAYS, HOURS, MINUTES, SECONDS};

use super::faults::{hash_bytes, mix};
use super::model::Quirk;
use super::validate::{self, Check, invalid};

/// Most buckets one answer may hold.
const MAX_BUCKETS: i64 = 10_000;
/// What `auto` aims at.
const AUTO_BUCKETS: i64 = 60;

/// Milliseconds of a granularity (`auto` excluded).
pub(crate) fn granularity_ms(name: &str) -> Option<i64> {
    let duration = duration::parse(name, &[SECONDS, MINUTES, HOURS, DAYS], None).ok()?;
    i64::try_from(duration.as_millis()).ok()
}

/// The granularity `auto` chooses for a window: the one whose bucket count is closest to 60.
fn auto_granularity(window_ms: i64) -> i64 {
    GRANULARITIES
        .iter()
        .filter_map(|g| granularity_ms(g))
        .min_by_key(|g| ((window_ms / g) - AUTO_BUCKETS).abs())
        .unwrap_or(60_000)
}

/// Answers a chart series request: `Ok(data points)` or `Err(message)` for a `{error}` 400.
pub(crate) fn answer(body: &Value, quirks: &[Quirk]) -> Check<Value> {
    let map = validate::object(body, "")?;
    let (series, group_by) = request_series(map)?;
    let start = whole_ms(map, "startTime")?;
    let end = whole_ms(map, "endTime")?;
    if end <= start {
        return invalid("endTime", "must be after startTime");
    }
    let granularity = validate::enumerated(map, "granularity", "", GRANULARITIES)?;
    let return_type = validate::enumerated(map, "seriesReturnType", "", SERIES_RETURN_TYPES)?;
    let step = match granularity.as_deref() {
        None | Some("auto") => auto_granularity(end - start),
        Some(g) => granularity_ms(g).unwrap_or(60_000),
    };
    let first = start.div_euclid(step) * step;
    if (end - first) / step > MAX_BUCKETS {
        return invalid(
            "granularity",
            format!("gives more than {MAX_BUCKETS} buckets for this window; use a coarser one"),
        );
    }
    let ratio = return_type.as_deref() == Some("ratio") && series.len() == 2;
    let buckets = Buckets { first, end, step };
    Ok(Value::Array(points(
        &series, &group_by, &buckets, ratio, quirks,
    )))
}

/// The request's series (1 to 5, each with an `aggFn`) and the `groupBy` they all share.
fn request_series(map: &Map<String, Value>) -> Check<(Vec<Series>, Vec<String>)> {
    let Some(series_values) = validate::array(map, "series", "")? else {
        return invalid("series", "is required");
    };
    if !(CHART_SERIES_MIN..=CHART_SERIES_MAX).contains(&series_values.len()) {
        return invalid(
            "series",
            format!(
                "must have {CHART_SERIES_MIN} to {CHART_SERIES_MAX} elements, got {}",
                series_values.len()
            ),
        );
    }
    let series: Vec<Series> = series_values
        .iter()
        .enumerate()
        .map(|(i, s)| {
            let path = format!("series[{i}]");
            let parsed = series(validate::object(s, &path)?, &path)?;
            if parsed.agg_fn.is_none() {
                return invalid(format!("{path}.aggFn"), "is required");
            }
            Ok(parsed)
        })
        .collect::<Check<_>>()?;
    let group_by = series[0].group_by.clone().unwrap_or_default();
    if let Some(i) = series
        .iter()
        .position(|s| s.group_by.clone().unwrap_or_default() != group_by)
    {
        return invalid(
            format!("series[{i}].groupBy"),
            "must be the same for every series",
        );
    }
    Ok((series, group_by))
}

/// The buckets of an answer: from `first` (a multiple of `step`) to before `end`.
struct Buckets {
    first: i64,
    end: i64,
    step: i64,
}

/// The data points: per bucket and group (two groups with a `groupBy`), each series' value, or
/// their ratio; about one bucket in 40 has no data.
fn points(
    series: &[Series],
    group_by: &[String],
    buckets: &Buckets,
    ratio: bool,
    quirks: &[Quirk],
) -> Vec<Value> {
    let step = buckets.step;
    let groups: Vec<Vec<String>> = if group_by.is_empty() {
        vec![Vec::new()]
    } else {
        ["a", "b"]
            .iter()
            .map(|suffix| group_by.iter().map(|g| format!("{g}-{suffix}")).collect())
            .collect()
    };
    let seeds: Vec<u64> = series
        .iter()
        .map(|s| hash_bytes(serde_json::to_string(s).unwrap_or_default().as_bytes()))
        .collect();
    let mut points = Vec::new();
    let mut ts = buckets.first;
    while ts < buckets.end {
        for group in &groups {
            let group_seed = hash_bytes(group.join("\u{1f}").as_bytes());
            // About one bucket in 40 has no data at all and is left out.
            if mix(seeds[0] ^ group_seed ^ ts as u64).is_multiple_of(40) {
                continue;
            }
            let mut point = Map::new();
            point.insert("ts_bucket".into(), json!(ts));
            let values: Vec<f64> = series
                .iter()
                .zip(&seeds)
                .map(|(s, seed)| value(s, seed ^ group_seed, ts, step))
                .collect();
            if ratio {
                let denominator = values[1];
                let v = if denominator == 0.0 {
                    0.0
                } else {
                    round2(values[0] / denominator)
                };
                point.insert("series_0.data".into(), number(v, quirks));
            } else {
                for (i, v) in values.iter().enumerate() {
                    point.insert(format!("series_{i}.data"), number(*v, quirks));
                }
            }
            if !group.is_empty() {
                point.insert("group".into(), json!(group));
            }
            points.push(Value::Object(point));
        }
        ts += step;
    }
    points
}

/// The last millisecond of year 9999: later times would let the bucket arithmetic overflow.
const LAST_MS: f64 = 253_402_300_799_999.0;

fn whole_ms(map: &Map<String, Value>, key: &str) -> Check<i64> {
    match validate::number(map, key, "")? {
        Some(v) if v.fract() == 0.0 && (0.0..=LAST_MS).contains(&v) => Ok(v as i64),
        Some(_) => invalid(
            key,
            "must be epoch milliseconds (a whole number up to the end of year 9999)",
        ),
        None => invalid(key, "is required"),
    }
}

fn round2(v: f64) -> f64 {
    (v * 100.0).round() / 100.0
}

fn number(v: f64, quirks: &[Quirk]) -> Value {
    if quirks.contains(&Quirk::NumberStrings) {
        json!(v.to_string())
    } else if v.fract() == 0.0 && v.abs() < 1e15 {
        json!(v as i64)
    } else {
        json!(v)
    }
}

/// A value for one series and bucket: a daily wave plus noise, shaped by the aggregation.
fn value(series: &Series, seed: u64, ts: i64, step: i64) -> f64 {
    let noise =
        (mix(seed ^ (ts as u64).wrapping_mul(0x9e37_79b9)) >> 11) as f64 / (1u64 << 53) as f64;
    let day = 86_400_000.0;
    let wave = 1.0 + 0.5 * ((ts as f64 / day) * std::f64::consts::TAU).sin();
    let scale = 5.0 + (seed % 200) as f64;
    let per_minute = step as f64 / 60_000.0;
    match series.agg_fn.as_deref().unwrap_or("count") {
        "count" | "count_distinct" | "sum" => {
            (scale * wave * per_minute.max(1.0) * (0.7 + 0.6 * noise)).round()
        }
        "quantile" | "max" => round2(scale * 10.0 * wave * (1.2 + 0.8 * noise)),
        "min" => round2(scale * wave * (0.2 + 0.3 * noise)),
        _ => round2(scale * 4.0 * wave * (0.8 + 0.4 * noise)),
    }
}

/// A series' quantile `level`: the servers take a number from 0 to 1.
fn level(map: &Map<String, Value>, prefix: &str) -> Check<Option<f64>> {
    let level = validate::number(map, "level", prefix)?;
    if level.is_some_and(|l| !(0.0..=1.0).contains(&l)) {
        return invalid(validate::join(prefix, "level"), "must be from 0 to 1");
    }
    Ok(level)
}

/// Validates one series object (tiles and chart queries share the shape).
pub(crate) fn series(map: &Map<String, Value>, prefix: &str) -> Check<Series> {
    Ok(Series {
        kind: validate::enumerated(map, "type", prefix, SERIES_TYPES)?,
        data_source: validate::enumerated(map, "dataSource", prefix, DATA_SOURCES)?,
        source_id: validate::string(map, "sourceId", prefix, 256)?,
        agg_fn: validate::enumerated(map, "aggFn", prefix, AGG_FNS)?,
        field: validate::string(map, "field", prefix, 1024)?,
        level: level(map, prefix)?,
        content: validate::string(map, "content", prefix, 100_000)?,
        fields: validate::strings(map, "fields", prefix)?,
        where_: validate::string(map, "where", prefix, 16 * 1024)?,
        where_language: validate::enumerated(map, "whereLanguage", prefix, WHERE_LANGUAGES)?,
        // Both documents require `groupBy` on every series; the real servers reject a series
        // without it (`[]` is "no grouping").
        group_by: Some(validate::strings(map, "groupBy", prefix)?.map_or_else(
            || invalid(validate::join(prefix, "groupBy"), "is required"),
            Ok,
        )?),
        metric_name: validate::string(map, "metricName", prefix, 1024)?,
        metric_data_type: validate::enumerated(map, "metricDataType", prefix, METRIC_DATA_TYPES)?,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        #[test]
        fn buckets_are_aligned_ordered_inside_the_window_and_deterministic(
            start in 0i64..2_000_000_000_000,
            length in 1i64..(30 * 86_400_000),
            granularity in 0usize..GRANULARITIES.len(),
        ) {
            let name = GRANULARITIES[granularity];
            let body = json!({
                "series": [{"aggFn": "count", "groupBy": []}, {"aggFn": "avg", "field": "duration", "groupBy": []}],
                "startTime": start, "endTime": start + length, "granularity": name,
            });
            match answer(&body, &[]) {
                Ok(points) => {
                    prop_assert_eq!(&answer(&body, &[]).unwrap(), &points);
                    let step = granularity_ms(name).unwrap_or_else(|| auto_granularity(length));
                    let mut last = i64::MIN;
                    for point in points.as_array().unwrap() {
                        let ts = point["ts_bucket"].as_i64().unwrap();
                        prop_assert_eq!(ts % step, 0);
                        prop_assert!(ts > start - step && ts < start + length);
                        prop_assert!(ts > last);
                        last = ts;
                        prop_assert_eq!(point["series_0.data"].as_f64().unwrap().fract(), 0.0);
                        prop_assert!(point["series_1.data"].is_number());
                    }
                }
                // Only a window too long for a fine granularity is refused.
                Err(invalid) => prop_assert_eq!(invalid.field, "granularity"),
            }
        }
    }

    #[test]
    fn auto_aims_at_sixty_buckets() {
        assert_eq!(auto_granularity(3_600_000), 60_000);
        assert_eq!(auto_granularity(86_400_000), 1_800_000);
        assert_eq!(granularity_ms("30s"), Some(30_000));
        assert_eq!(granularity_ms("7d"), Some(604_800_000));
        assert_eq!(granularity_ms("auto"), None);
    }
}
