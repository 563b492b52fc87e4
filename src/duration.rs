//! Reads a duration written as digits and a unit: `90s`, `15m`, `7d`, `500ms`. Each caller says
//! which units it takes and what a bare number means; its range and its messages stay its own.

use std::time::Duration;

/// A unit a duration may be written in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Unit {
    /// What follows the digits.
    pub suffix: &'static str,
    /// Its length in milliseconds.
    pub millis: u64,
}

/// `ms`.
pub(crate) const MILLISECONDS: Unit = Unit {
    suffix: "ms",
    millis: 1,
};
/// `s`.
pub(crate) const SECONDS: Unit = Unit {
    suffix: "s",
    millis: 1_000,
};
/// `m`.
pub(crate) const MINUTES: Unit = Unit {
    suffix: "m",
    millis: 60_000,
};
/// `h`.
pub(crate) const HOURS: Unit = Unit {
    suffix: "h",
    millis: 3_600_000,
};
/// `d`.
pub(crate) const DAYS: Unit = Unit {
    suffix: "d",
    millis: 86_400_000,
};
/// `w`.
pub(crate) const WEEKS: Unit = Unit {
    suffix: "w",
    millis: 7 * 86_400_000,
};

/// Why a text is not a duration.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Problem {
    /// Nothing but blanks.
    Empty,
    /// Not digits followed by letters (`soon`, `h`, `1.5h`, `-5m`, `5 m`).
    Malformed,
    /// Digits alone, where the caller gives a bare number no unit (`24`).
    NoUnit,
    /// Letters that are not one of the caller's units (`5x`, or `1d` where days are not taken).
    UnknownUnit,
    /// More milliseconds than a `u64` holds.
    TooLarge,
}

/// Reads `<digits><unit>` (blanks around it are ignored) with one of `units`; a bare number is
/// in `bare` units, or [`Problem::NoUnit`] without one.
pub(crate) fn parse(text: &str, units: &[Unit], bare: Option<Unit>) -> Result<Duration, Problem> {
    let text = text.trim();
    if text.is_empty() {
        return Err(Problem::Empty);
    }
    let split = text
        .find(|c: char| !c.is_ascii_digit())
        .unwrap_or(text.len());
    let (digits, suffix) = text.split_at(split);
    if digits.is_empty() || !suffix.chars().all(|c| c.is_ascii_alphabetic()) {
        return Err(Problem::Malformed);
    }
    let unit = if suffix.is_empty() {
        bare.ok_or(Problem::NoUnit)?
    } else {
        *units
            .iter()
            .find(|unit| unit.suffix == suffix)
            .ok_or(Problem::UnknownUnit)?
    };
    // Only digits are left, so the one way to fail is a number past `u64`.
    let number: u64 = digits.parse().map_err(|_| Problem::TooLarge)?;
    let millis = number.checked_mul(unit.millis).ok_or(Problem::TooLarge)?;
    Ok(Duration::from_millis(millis))
}

#[cfg(test)]
mod tests {
    use super::*;

    const ALL: &[Unit] = &[MILLISECONDS, SECONDS, MINUTES, HOURS, DAYS, WEEKS];

    fn ms(millis: u64) -> Result<Duration, Problem> {
        Ok(Duration::from_millis(millis))
    }

    #[test]
    fn each_unit_counts_its_milliseconds() {
        assert_eq!(parse("500ms", ALL, None), ms(500));
        assert_eq!(parse("90s", ALL, None), ms(90_000));
        assert_eq!(parse("15m", ALL, None), ms(900_000));
        assert_eq!(parse("1h", ALL, None), ms(3_600_000));
        assert_eq!(parse("7d", ALL, None), ms(604_800_000));
        assert_eq!(parse("2w", ALL, None), ms(1_209_600_000));
        assert_eq!(parse(" 0010m\n", ALL, None), ms(600_000));
        assert_eq!(parse("0s", ALL, None), ms(0), "ranges are the caller's");
    }

    #[test]
    fn only_the_callers_units_are_taken() {
        let clock = &[SECONDS, MINUTES, HOURS];
        assert_eq!(parse("24h", clock, None), ms(86_400_000));
        assert_eq!(parse("1d", clock, None), Err(Problem::UnknownUnit));
        assert_eq!(parse("5x", ALL, None), Err(Problem::UnknownUnit));
        assert_eq!(parse("5mm", ALL, None), Err(Problem::UnknownUnit));
        assert_eq!(parse("5M", ALL, None), Err(Problem::UnknownUnit));
    }

    #[test]
    fn a_bare_number_needs_a_default_unit() {
        assert_eq!(parse("90", ALL, None), Err(Problem::NoUnit));
        assert_eq!(parse("90", ALL, Some(SECONDS)), ms(90_000));
    }

    #[test]
    fn empty_and_malformed_texts_say_so() {
        for empty in ["", "  ", "\t\n"] {
            assert_eq!(
                parse(empty, ALL, Some(SECONDS)),
                Err(Problem::Empty),
                "{empty:?}"
            );
        }
        for malformed in [
            "h", "soon", "1.5h", "-5m", "+5m", "5 m", "5m3", "1h30m", "٣s",
        ] {
            assert_eq!(
                parse(malformed, ALL, Some(SECONDS)),
                Err(Problem::Malformed),
                "{malformed}"
            );
        }
    }

    #[test]
    fn overflow_is_too_large_never_a_wrap() {
        assert_eq!(
            parse("18446744073709551615ms", ALL, None),
            ms(u64::MAX),
            "the largest that fits"
        );
        assert_eq!(
            parse("18446744073709551616ms", ALL, None),
            Err(Problem::TooLarge)
        );
        assert_eq!(
            parse("18446744073709552s", ALL, None),
            Err(Problem::TooLarge)
        );
        assert_eq!(
            parse("99999999999999999999999w", ALL, None),
            Err(Problem::TooLarge)
        );
    }
}
