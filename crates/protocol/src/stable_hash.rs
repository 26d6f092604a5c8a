//! The one stable hash: 64-bit FNV-1a. Stable across runs, machines and Rust versions (unlike
//! `std`'s `DefaultHasher`), so its values may be stored and compared later: shard
//! assignment, object-store tags, baseline fingerprints, askui instance names. It tells one
//! input from another; it is not a cryptographic hash.

/// FNV-1a's 64-bit offset basis: the hash of no bytes.
pub const FNV1A64_OFFSET_BASIS: u64 = 0xcbf2_9ce4_8422_2325;
const FNV1A64_PRIME: u64 = 0x0000_0100_0000_01b3;

/// The 64-bit FNV-1a hash of `bytes`.
pub fn fnv1a64(bytes: &[u8]) -> u64 {
    fnv1a64_continue(FNV1A64_OFFSET_BASIS, bytes)
}

/// FNV-1a over `bytes`, continuing from `hash` (the hash of what came before, or a seed).
pub fn fnv1a64_continue(hash: u64, bytes: &[u8]) -> u64 {
    bytes.iter().fold(hash, |hash, &byte| {
        (hash ^ u64::from(byte)).wrapping_mul(FNV1A64_PRIME)
    })
}

/// [`fnv1a64`] as 16 lowercase hex digits.
pub fn fnv1a64_hex(bytes: &[u8]) -> String {
    format!("{:016x}", fnv1a64(bytes))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// From the FNV reference test suite (draft-eastlake-fnv).
    #[test]
    fn matches_the_published_test_vectors() {
        assert_eq!(fnv1a64(b""), 0xcbf2_9ce4_8422_2325);
        assert_eq!(fnv1a64(b"a"), 0xaf63_dc4c_8601_ec8c);
        assert_eq!(fnv1a64(b"foobar"), 0x8594_4171_f739_67e8);
        assert_eq!(fnv1a64_hex(b"foobar"), "85944171f73967e8");
        assert_eq!(
            fnv1a64_continue(fnv1a64(b"foo"), b"bar"),
            fnv1a64(b"foobar")
        );
    }
}
