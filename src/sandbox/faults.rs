//! Seeded fault injection: which request gets a 429, a 500, a 503, a reset connection or a lost
//! answer. One random draw per API request, so a seed and a request sequence fix the outcome.

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
}

impl Fault {
    /// The name used in `--faults` and in the request log.
    pub fn name(self) -> &'static str {
        match self {
            Fault::TooManyRequests => "429",
            Fault::Internal => "500",
            Fault::Unavailable => "503",
            Fault::Reset => "reset",
            Fault::Lost => "lost",
        }
    }

    fn parse(name: &str) -> Option<Fault> {
        [
            Fault::TooManyRequests,
            Fault::Internal,
            Fault::Unavailable,
            Fault::Reset,
            Fault::Lost,
        ]
        .into_iter()
        .find(|fault| fault.name() == name)
    }
}

/// Shares of faults, e.g. `429=0.05,500=0.05,503=0.02,reset=0.02,lost=0.02`.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct FaultSpec {
    /// Each fault with the share of requests (0 to 1) that get it, in the order given.
    pub shares: Vec<(Fault, f64)>,
}

impl FaultSpec {
    /// Whether no fault can happen.
    pub fn is_empty(&self) -> bool {
        self.shares.iter().all(|(_, share)| *share <= 0.0)
    }

    /// The fault for a uniform draw in `[0, 1)`: the shares are laid end to end.
    pub fn pick(&self, draw: f64) -> Option<Fault> {
        let mut edge = 0.0;
        for (fault, share) in &self.shares {
            edge += share;
            if draw < edge {
                return Some(*fault);
            }
        }
        None
    }
}

impl FromStr for FaultSpec {
    type Err = String;

    fn from_str(text: &str) -> Result<Self, Self::Err> {
        let mut shares: Vec<(Fault, f64)> = Vec::new();
        for part in text.split(',').map(str::trim).filter(|p| !p.is_empty()) {
            let (name, share) = part
                .split_once('=')
                .ok_or_else(|| format!("`{part}`: expected NAME=SHARE, e.g. `500=0.05`"))?;
            let fault = Fault::parse(name.trim()).ok_or_else(|| {
                format!("`{name}`: unknown fault; use 429, 500, 503, reset or lost")
            })?;
            let share: f64 = share
                .trim()
                .parse()
                .ok()
                .filter(|s: &f64| (0.0..=1.0).contains(s))
                .ok_or_else(|| format!("`{part}`: the share must be a number from 0 to 1"))?;
            if shares.iter().any(|(f, _)| *f == fault) {
                return Err(format!("`{name}` is given twice"));
            }
            shares.push((fault, share));
        }
        let total: f64 = shares.iter().map(|(_, s)| s).sum();
        if total > 1.0 + 1e-9 {
            return Err(format!("the shares add up to {total}, more than 1"));
        }
        Ok(FaultSpec { shares })
    }
}

impl fmt::Display for FaultSpec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let parts: Vec<String> = self
            .shares
            .iter()
            .map(|(fault, share)| format!("{}={share}", fault.name()))
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
