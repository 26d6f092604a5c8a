use super::*;

#[test]
fn hex_round_trips_and_pads_like_imagehash() {
    let hash = ImageHash::from_hex("8000000000000001").unwrap();
    assert_eq!(hash.bits().len(), 64);
    assert!(hash.bits()[0] && hash.bits()[63]);
    assert_eq!(hash.to_string(), "8000000000000001");
    // 5x5 = 25 bits print as 7 digits; parsing 7 digits gives back 25 bits.
    let mut bits = vec![false; 25];
    bits[0] = true;
    let odd = ImageHash::from_bits(bits);
    assert_eq!(odd.to_string(), "1000000");
    assert_eq!(ImageHash::from_hex("1000000").unwrap(), odd);
}

#[test]
fn distance_counts_bits_and_refuses_other_lengths() {
    assert_eq!(hamming_distance("ff00", "0f01").unwrap(), 5);
    assert_eq!(hamming_distance("abc", "abc").unwrap(), 0);
    assert!(matches!(
        hamming_distance("ff", "fff"),
        Err(VisionError::HashLength { .. })
    ));
    assert!(matches!(
        hamming_distance("zz", "ff"),
        Err(VisionError::BadHex(_))
    ));
    let a = ImageHash::from_hex("ffff").unwrap();
    let b = ImageHash::from_hex("00000000000000ff").unwrap();
    assert!(a.distance(&b).is_err());
}

#[test]
fn method_names_parse() {
    assert_eq!("PHASH".parse::<Method>().unwrap(), Method::Phash);
    assert_eq!("ahash".parse::<Method>().unwrap(), Method::Ahash);
    assert!("whash".parse::<Method>().is_err());
}

#[test]
fn median_is_the_sorted_middle() {
    let sorted_median = |values: &[f64]| {
        let mut sorted = values.to_vec();
        sorted.sort_by(f64::total_cmp);
        let mid = sorted.len() / 2;
        if sorted.len() % 2 == 1 {
            sorted[mid]
        } else {
            (sorted[mid - 1] + sorted[mid]) / 2.0
        }
    };
    for len in 1..70usize {
        let values: Vec<f64> = (0..len)
            .map(|i| match (i * 37 + len) % 7 {
                0 => 0.0,
                1 => -0.0,
                k => ((i * 7919 + len) % 23) as f64 * if k % 2 == 0 { 1.5 } else { -2.25 },
            })
            .collect();
        assert_eq!(
            median(&values).to_bits(),
            sorted_median(&values).to_bits(),
            "{values:?}"
        );
    }
}

#[test]
fn dispatched_phash_matches_the_portable_one() {
    for (size, seed) in [(8u32, 1u32), (8, 7), (5, 3), (16, 11)] {
        let n = size * 4;
        let data = (0..n * n)
            .map(|i| (i.wrapping_mul(2_654_435_761).wrapping_add(seed) >> 11) as u8)
            .collect();
        let small = GrayImage {
            width: n,
            height: n,
            data,
        };
        assert_eq!(phash(&small, size), phash_body(&small, size), "size {size}");
    }
}

#[test]
fn near_flat_hashes_are_blank_regions_and_faint_lines_only() {
    let near_flat = |hex: &str| ImageHash::from_hex(hex).unwrap().is_near_flat();
    // Blank, blank with the other DC bit, an empty text field's two borders.
    for hex in ["8000000000000000", "7fffffffffffffff", "8000800080000000"] {
        assert!(near_flat(hex), "{hex}");
    }
    // A button, a field with its label, a page after a sign-in.
    for hex in [
        "ce33b1cc4e3331cc",
        "9918181ce6e6e6e7",
        "8000ffff7f8000bf",
        "80008000800080f0",
    ] {
        assert!(!near_flat(hex), "{hex}");
    }
}
