//! FNV-1a (64 bits): the one hash the plan uses, for fingerprints of live objects and for the
//! suffix of a cut ownership tag. Its own file so both can use it without importing each other.

/// The FNV-1a 64 offset basis (the starting hash).
pub(crate) const OFFSET: u64 = 0xcbf2_9ce4_8422_2325;
const PRIME: u64 = 0x0000_0100_0000_01b3;

/// Hashes bytes with FNV-1a.
pub(crate) fn fnv1a(bytes: &[u8], mut hash: u64) -> u64 {
    for byte in bytes {
        hash ^= u64::from(*byte);
        hash = hash.wrapping_mul(PRIME);
    }
    hash
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fnv1a_known_vector() {
        // Published FNV-1a 64 test vector for "a".
        assert_eq!(fnv1a(b"a", OFFSET), 0xaf63_dc4c_8601_ec8c);
    }
}
