//! Tolerant deserializers: numbers as numbers or strings, quantities with units.

use serde::{Deserialize, Deserializer};
use serde_json::Value;

/// A JSON value as a number: numbers, numeric strings; `None` for anything else.
pub(crate) fn value_f64(value: &Value) -> Option<f64> {
    match value {
        Value::Number(n) => n.as_f64(),
        Value::String(s) => s.trim().parse::<f64>().ok().filter(|v| v.is_finite()),
        _ => None,
    }
}

/// Splits `"500m"` into `(500.0, "m")`.
fn split_quantity(text: &str) -> Option<(f64, &str)> {
    let text = text.trim();
    let end = text
        .find(|c: char| !(c.is_ascii_digit() || c == '.' || c == '-' || c == '+'))
        .unwrap_or(text.len());
    let (number, unit) = text.split_at(end);
    let number: f64 = number.parse().ok()?;
    number.is_finite().then_some((number, unit.trim()))
}

/// CPU as millicores: a number or numeric string is millicores, as the field's name says;
/// `"500m"` is 500.
pub(crate) fn millicores(value: &Value) -> Option<f64> {
    match value {
        Value::String(s) => {
            let (number, unit) = split_quantity(s)?;
            match unit {
                "" | "m" => Some(number),
                _ => None,
            }
        }
        other => value_f64(other),
    }
}

/// Memory as GB: numbers and numeric strings are GB; `"2Gi"`/`"2G"` are 2, `"512Mi"` 0.5.
pub(crate) fn gigabytes(value: &Value) -> Option<f64> {
    match value {
        Value::String(s) => {
            let (number, unit) = split_quantity(s)?;
            match unit {
                "" | "G" | "Gi" | "GB" | "GiB" => Some(number),
                "M" | "Mi" | "MB" | "MiB" => Some(number / 1024.0),
                "T" | "Ti" | "TB" | "TiB" => Some(number * 1024.0),
                _ => None,
            }
        }
        other => value_f64(other),
    }
}

fn read<'de, D, F>(deserializer: D, convert: F) -> Result<Option<f64>, D::Error>
where
    D: Deserializer<'de>,
    F: Fn(&Value) -> Option<f64>,
{
    let value = Option::<Value>::deserialize(deserializer)?;
    Ok(value.as_ref().and_then(convert))
}

/// A value whose `null` reads as its default (an empty string or list): a nullable member
/// of the documents never fails the read of the object around it.
pub(crate) fn or_default<'de, D, T>(d: D) -> Result<T, D::Error>
where
    D: Deserializer<'de>,
    T: Deserialize<'de> + Default,
{
    Ok(Option::<T>::deserialize(d)?.unwrap_or_default())
}

/// An optional number that may arrive as a string.
pub(crate) fn opt_f64<'de, D: Deserializer<'de>>(d: D) -> Result<Option<f64>, D::Error> {
    read(d, value_f64)
}

/// An optional whole number that may arrive as a string or as `3.0`.
pub(crate) fn opt_i64<'de, D: Deserializer<'de>>(d: D) -> Result<Option<i64>, D::Error> {
    Ok(read(d, value_f64)?.map(|v| v.round() as i64))
}

/// A whole number defaulting to 0.
pub(crate) fn i64_or_zero<'de, D: Deserializer<'de>>(d: D) -> Result<i64, D::Error> {
    Ok(opt_i64(d)?.unwrap_or(0))
}

/// Millicores that may arrive as `"500m"`.
pub(crate) fn opt_millicores<'de, D: Deserializer<'de>>(d: D) -> Result<Option<i64>, D::Error> {
    Ok(read(d, millicores)?.map(|v| v.round() as i64))
}

/// Gigabytes that may arrive as `"2Gi"`.
pub(crate) fn opt_gigabytes<'de, D: Deserializer<'de>>(d: D) -> Result<Option<f64>, D::Error> {
    read(d, gigabytes)
}

/// An optional boolean that may arrive as `"true"`/`"false"`.
pub(crate) fn opt_bool<'de, D: Deserializer<'de>>(d: D) -> Result<Option<bool>, D::Error> {
    let value = Option::<Value>::deserialize(d)?;
    Ok(match value {
        Some(Value::Bool(b)) => Some(b),
        Some(Value::String(s)) => match s.as_str() {
            "true" => Some(true),
            "false" => Some(false),
            _ => None,
        },
        _ => None,
    })
}
