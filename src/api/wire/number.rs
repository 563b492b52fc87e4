//! Serializers of numbers: a whole `f64` is written as a JSON integer (`3`, not `3.0`), as the
//! real services write numbers; the documents say `integer` for some of these fields
//! (`numReplicas`), and a typed client of them fails on `3.0`.

use serde::Serializer;

/// Largest magnitude below which every whole `f64` is exact as an `i64` (2^53).
const EXACT: f64 = 9_007_199_254_740_992.0;

/// One number.
pub(crate) fn one<S: Serializer>(value: &f64, serializer: S) -> Result<S::Ok, S::Error> {
    if value.fract() == 0.0 && value.abs() < EXACT {
        serializer.serialize_i64(*value as i64)
    } else {
        serializer.serialize_f64(*value)
    }
}

/// An optional number (skipped when absent by the field's own attribute).
pub(crate) fn opt<S: Serializer>(value: &Option<f64>, serializer: S) -> Result<S::Ok, S::Error> {
    match value {
        Some(value) => one(value, serializer),
        None => serializer.serialize_none(),
    }
}
