//! Seeded fault injection: which request gets a 429, a 500, a 503, a reset connection, a lost
//! answer or a 504 after the work was done. One random draw per API request, so a seed and a
//! request sequence fix the outcome. A fault may be limited to one method (`lost@POST=0.1`).

use std::fmt;
use std::str::FromStr;

/// A fault the sandbox can inject.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Fault {
    /// 429 `TOO_MANY_REQUESTS` regardless of the rate limit.
    TooManyRequests,
    /// 500 `INTERNAL_SERVER_ERROR`; nothing was written.
    Internal,
    /// 503 `SERVICE_UNAVAILABLE`; nothing was written.
    Unavailable,
    /// The connection is dropped with no answer; nothing was written.
    Reset,
    /// The request is performed (writes happen), then the connection is dropped before the answer.
    Lost,
    /// The request is performed (writes happen), then the gateway answers 504 with an HTML body,
    /// as the real API does when a slow request times out at its gateway.
    GatewayTimeout,
}

impl Fault {
    /// The name used in `--faults` and in the request log.
    pub(crate) fn name(self) -> &'static str {
        match self {
            Fault::TooManyRequests => "429",
            Fault::Internal => "500",
            Fault::Unavailable => "503",
            Fault::Reset => "reset",
            Fault::Lost => "lost",
            Fault::GatewayTimeout => "504",
        }
    }

    fn parse(name: &str) -> Option<Fault> {
        [
            Fault::TooManyRequests,
            Fault::Internal,
            Fault::Unavailable,
            Fault::Reset,
            Fault::Lost,
            Fault::GatewayTimeout,
        ]
        .into_iter()
        .find(|fault| fault.name() == name)
    }
}

/// Shares of faults, e.g. `429=0.05,500=0.05,503=0.02,reset=0.02,lost=0.02`; `NAME@METHOD=SHARE`
/// limits a fault to requests of one method (`504@PATCH=1`).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct FaultSpec {
    /// Each fault with the share of requests (0 to 1) that get it, in the order given.
    pub shares: Vec<(Fault, f64)>,
    /// The method each share is limited to (same positions as `shares`; `None`: every method).
    pub methods: Vec<Option<String>>,
}

impl FaultSpec {
    /// Whether no fault can happen.
    pub(crate) fn is_empty(&self) -> bool {
        self.shares.iter().all(|(_, share)| *share <= 0.0)
    }

    /// The fault for a uniform draw in `[0, 1)`: the shares are laid end to end.
    #[cfg(test)]
    pub(crate) fn pick(&self, draw: f64) -> Option<Fault> {
        self.pick_for(draw, None)
    }

    /// As [`FaultSpec::pick`] for a request of `method`: shares limited to another method are
    /// left out.
    pub(crate) fn pick_for(&self, draw: f64, method: Option<&str>) -> Option<Fault> {
        let mut edge = 0.0;
        for (index, (fault, share)) in self.shares.iter().enumerate() {
            let limited = self.methods.get(index).and_then(Option::as_deref);
            if limited.is_some_and(|m| method.is_some_and(|method| !m.eq_ignore_ascii_case(method)))
            {
                continue;
            }
            edge += share;
            if draw < edge {
                return Some(*fault);
            }
        }
        None
    }
}

/// Why a `--faults` list cannot be read.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum FaultSpecError {
    /// A part without `=`.
    #[error("`{part}`: expected NAME=SHARE, e.g. `500=0.05`")]
    NoShare {
        /// The part as given.
        part: String,
    },
    /// `NAME@METHOD` with a method that is not one.
    #[error("`{part}`: `{method}` is not a method; use GET, POST, PUT, PATCH or DELETE")]
    Method {
        /// The part as given.
        part: String,
        /// The method, upper-cased.
        method: String,
    },
    /// A fault name the sandbox does not know.
    #[error("`{name}`: unknown fault; use 429, 500, 503, 504, reset or lost")]
    Unknown {
        /// The name as given.
        name: String,
    },
    /// A share that is not a number from 0 to 1.
    #[error("`{part}`: the share must be a number from 0 to 1")]
    Share {
        /// The part as given.
        part: String,
    },
    /// The same fault (for the same method) twice.
    #[error("`{name}` is given twice")]
    Twice {
        /// The name as given.
        name: String,
    },
    /// Shares adding up to more than 1.
    #[error("the shares add up to {total}, more than 1")]
    Total {
        /// Their sum.
        total: f64,
    },
}

impl FromStr for FaultSpec {
    type Err = FaultSpecError;

    fn from_str(text: &str) -> Result<Self, Self::Err> {
        let mut shares: Vec<(Fault, f64)> = Vec::new();
        let mut methods: Vec<Option<String>> = Vec::new();
        for part in text.split(',').map(str::trim).filter(|p| !p.is_empty()) {
            let (name, share) = part
                .split_once('=')
                .ok_or_else(|| FaultSpecError::NoShare {
                    part: part.to_string(),
                })?;
            let (name, method) = match name.split_once('@') {
                Some((name, method)) => {
                    let method = method.trim().to_ascii_uppercase();
                    if !["GET", "POST", "PUT", "PATCH", "DELETE"].contains(&method.as_str()) {
                        return Err(FaultSpecError::Method {
                            part: part.to_string(),
                            method,
                        });
                    }
                    (name, Some(method))
                }
                None => (name, None),
            };
            let fault = Fault::parse(name.trim()).ok_or_else(|| FaultSpecError::Unknown {
                name: name.to_string(),
            })?;
            let share: f64 = share
                .trim()
                .parse()
                .ok()
                .filter(|s: &f64| (0.0..=1.0).contains(s))
                .ok_or_else(|| FaultSpecError::Share {
                    part: part.to_string(),
                })?;
            if shares
                .iter()
                .zip(&methods)
                .any(|((f, _), m)| *f == fault && *m == method)
            {
                return Err(FaultSpecError::Twice {
                    name: name.to_string(),
                });
            }
            shares.push((fault, share));
            methods.push(method);
        }
        let total: f64 = shares.iter().map(|(_, s)| s).sum();
        if total > 1.0 + 1e-9 {
            return Err(FaultSpecError::Total { total });
        }
        Ok(FaultSpec { shares, methods })
    }
}

impl fmt::Display for FaultSpec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let parts: Vec<String> = self
            .shares
            .iter()
            .enumerate()
            .map(|(index, (fault, share))| match self.methods.get(index) {
                Some(Some(method)) => format!("{}@{method}={share}", fault.name()),
                _ => format!("{}={share}", fault.name()),
            })
            .collect();
        f.write_str(&parts.join(","))
    }
}

/// SplitMix64: tiny, fast, good enough for fault decisions and synthetic data.
#[derive(Debug, Clone)]
pub(crate) struct SplitMix64(u64);

impl SplitMix64 {
    pub(crate) fn new(seed: u64) -> Self {
        SplitMix64(seed)
    }

    pub(crate) fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        mix(self.0)
    }

    /// Uniform in `[0, 1)`.
    pub(crate) fn next_f64(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 / (1u64 << 53) as f64
    }
}

/// SplitMix64's finalizer: a good 64-bit hash of a 64-bit value.
pub(crate) fn mix(mut z: u64) -> u64 {
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// FNV-1a of some bytes, for deterministic per-object seeds.
pub(crate) fn hash_bytes(bytes: &[u8]) -> u64 {
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    for byte in bytes {
        hash ^= u64::from(*byte);
        hash = hash.wrapping_mul(0x0100_0000_01b3);
    }
    mix(hash)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_the_issue_example() {
        let spec: FaultSpec = "429=0.05,500=0.05,503=0.02,reset=0.02,lost=0.02"
            .parse()
            .unwrap();
        assert_eq!(spec.shares.len(), 5);
        assert_eq!(spec.pick(0.01), Some(Fault::TooManyRequests));
        assert_eq!(spec.pick(0.07), Some(Fault::Internal));
        assert_eq!(spec.pick(0.155), Some(Fault::Lost));
        assert_eq!(spec.pick(0.5), None);
        assert_eq!(
            spec.to_string(),
            "429=0.05,500=0.05,503=0.02,reset=0.02,lost=0.02"
        );
    }

    #[test]
    fn a_fault_limited_to_a_method_hits_only_that_method() {
        let spec: FaultSpec = "504@patch=1".parse().unwrap();
        assert_eq!(
            spec.pick_for(0.5, Some("PATCH")),
            Some(Fault::GatewayTimeout)
        );
        assert_eq!(spec.pick_for(0.5, Some("GET")), None);
        assert_eq!(spec.to_string(), "504@PATCH=1");
        assert!("lost@FETCH=1".parse::<FaultSpec>().is_err());
    }

    #[test]
    fn rejects_bad_specs() {
        assert!("teapot=0.1".parse::<FaultSpec>().is_err());
        assert!("500=2".parse::<FaultSpec>().is_err());
        assert!("500=0.6,503=0.6".parse::<FaultSpec>().is_err());
        assert!("500".parse::<FaultSpec>().is_err());
    }

    #[test]
    fn rng_is_reproducible_and_uniform_enough() {
        let a: Vec<u64> = {
            let mut r = SplitMix64::new(7);
            (0..5).map(|_| r.next_u64()).collect()
        };
        let b: Vec<u64> = {
            let mut r = SplitMix64::new(7);
            (0..5).map(|_| r.next_u64()).collect()
        };
        assert_eq!(a, b);
        let mut r = SplitMix64::new(1);
        let below = (0..10_000).filter(|_| r.next_f64() < 0.1).count();
        assert!((800..1200).contains(&below), "{below}");
    }
}
