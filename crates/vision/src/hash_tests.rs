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
