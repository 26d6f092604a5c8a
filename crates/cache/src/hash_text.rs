//! Hashes as files store them: hexadecimal text.

/// Whether `text` is a hash as askui stores it: 16 hexadecimal digits (an 8x8 hash), or the
/// hex of a larger square hash (64 digits for `--hash-size 16`).
pub fn is_hash_text(text: &str) -> bool {
    let bits = text.len() * 4;
    let side = (bits as f64).sqrt() as usize;
    bits >= 64 && side * side == bits && text.bytes().all(|b| b.is_ascii_hexdigit())
}

/// Whether a hash's bits after the first are all the same: what a featureless (blank) region
/// hashes to (pHash keeps only its DC bit), so its check matches any blank region.
pub fn is_flat_hash_text(text: &str) -> bool {
    let mut bits = text
        .chars()
        .filter_map(|digit| digit.to_digit(16))
        .flat_map(|nibble| (0..4).rev().map(move |shift| (nibble >> shift) & 1))
        .skip(1);
    match bits.next() {
        Some(first) => bits.all(|bit| bit == first),
        None => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn flat_and_textured_hashes_are_told_apart() {
        for flat in ["0000000000000000", "ffffffffffffffff", "7fffffffffffffff"] {
            assert!(is_flat_hash_text(flat), "{flat}");
        }
        for textured in ["00ff00ff00ff00ff", "8000000000000001", "c000000000000000"] {
            assert!(!is_flat_hash_text(textured), "{textured}");
        }
        // A finer hash (--hash-size 16: 64 digits) is a hash too.
        assert!(is_hash_text(&"0f".repeat(32)));
        assert!(!is_hash_text(&"0f".repeat(9)));
    }
}
