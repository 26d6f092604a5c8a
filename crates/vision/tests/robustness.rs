//! Bad input gives clear errors, never a panic; and properties that must hold for any input.

use proptest::prelude::*;
use retrace_vision::Image;
use retrace_vision::Method;
use retrace_vision::PixelLayout;
use retrace_vision::VisionError;
use retrace_vision::action_region;
use retrace_vision::decode_png;
use retrace_vision::encode_png_rgba;
use retrace_vision::hamming_distance;
use retrace_vision::region_hash;

fn crc32(bytes: &[u8]) -> u32 {
    let mut crc = 0xffff_ffffu32;
    for &b in bytes {
        crc ^= u32::from(b);
        for _ in 0..8 {
            crc = if crc & 1 == 1 {
                (crc >> 1) ^ 0xedb8_8320
            } else {
                crc >> 1
            };
        }
    }
    !crc
}

/// A PNG signature and an IHDR chunk (8-bit RGB) declaring `width` x `height`, and nothing
/// else.
fn header_only(width: u32, height: u32) -> Vec<u8> {
    let mut png = b"\x89PNG\r\n\x1a\n".to_vec();
    let mut chunk = b"IHDR".to_vec();
    chunk.extend_from_slice(&width.to_be_bytes());
    chunk.extend_from_slice(&height.to_be_bytes());
    chunk.extend_from_slice(&[8, 2, 0, 0, 0]);
    png.extend_from_slice(&13u32.to_be_bytes());
    png.extend_from_slice(&chunk);
    png.extend_from_slice(&crc32(&chunk).to_be_bytes());
    png
}

#[test]
fn garbage_is_a_decode_error() {
    let error = decode_png(b"definitely not a png").unwrap_err();
    assert!(matches!(error, VisionError::Decode(_)), "{error}");
    assert!(error.to_string().contains("invalid PNG"), "{error}");
    assert!(decode_png(&[]).is_err());
}

#[test]
fn a_truncated_png_is_a_decode_error() {
    let png = encode_png_rgba(40, 30, &vec![77; 40 * 30 * 4]).unwrap();
    assert!(decode_png(&png).is_ok());
    for cut in [10, 33, png.len() / 2, png.len() - 13] {
        let error = decode_png(&png[..cut]).unwrap_err();
        assert!(
            matches!(error, VisionError::Decode(_)),
            "cut at {cut}: {error}"
        );
    }
}

#[test]
fn a_zero_sized_png_is_refused() {
    let error = decode_png(&header_only(0, 0)).unwrap_err();
    let text = error.to_string();
    assert!(
        matches!(error, VisionError::Empty { .. } | VisionError::Decode(_)),
        "{text}"
    );
    assert!(Image::new(0, 5, PixelLayout::Gray, Vec::new()).is_err());
}

#[test]
fn a_huge_header_is_refused_before_allocating() {
    let error = decode_png(&header_only(100_000, 100_000)).unwrap_err();
    match error {
        VisionError::TooLarge { width, height, .. } => {
            assert_eq!((width, height), (100_000, 100_000))
        }
        other => panic!("expected TooLarge, got {other}"),
    }
}

#[test]
fn every_png_colour_type_decodes_to_the_same_gray() {
    // The same gray picture stored as L, LA, RGB, RGBA, palette and 16-bit gray.
    let (w, h) = (8u32, 6u32);
    let values: Vec<u8> = (0..w * h).map(|i| (i * 5) as u8).collect();
    let encode =
        |color: png::ColorType, depth: png::BitDepth, data: Vec<u8>, palette: Option<Vec<u8>>| {
            let mut out = Vec::new();
            let mut encoder = png::Encoder::new(&mut out, w, h);
            encoder.set_color(color);
            encoder.set_depth(depth);
            if let Some(p) = palette {
                encoder.set_palette(p);
            }
            let mut writer = encoder.write_header().unwrap();
            writer.write_image_data(&data).unwrap();
            writer.finish().unwrap();
            out
        };
    let eight = png::BitDepth::Eight;
    let files = [
        encode(png::ColorType::Grayscale, eight, values.clone(), None),
        encode(
            png::ColorType::GrayscaleAlpha,
            eight,
            values.iter().flat_map(|&v| [v, 9]).collect(),
            None,
        ),
        encode(
            png::ColorType::Rgb,
            eight,
            values.iter().flat_map(|&v| [v, v, v]).collect(),
            None,
        ),
        encode(
            png::ColorType::Rgba,
            eight,
            values.iter().flat_map(|&v| [v, v, v, 0]).collect(),
            None,
        ),
        encode(
            png::ColorType::Indexed,
            eight,
            (0..w * h).map(|i| i as u8).collect(),
            Some(values.iter().flat_map(|&v| [v, v, v]).collect()),
        ),
        encode(
            png::ColorType::Grayscale,
            png::BitDepth::Sixteen,
            values.iter().flat_map(|&v| [0, v]).collect(),
            None,
        ),
    ];
    let want = region_hash(
        &decode_png(&files[0]).unwrap(),
        action_region((4, 3), 8, w, h),
        Method::Ahash,
        2,
    )
    .unwrap();
    for (i, file) in files.iter().enumerate() {
        let image = decode_png(file).unwrap();
        let gray = retrace_vision::gray_region(&image, retrace_vision::Region::full(w, h)).unwrap();
        assert_eq!(gray.data, values, "file {i}");
        let got = region_hash(&image, action_region((4, 3), 8, w, h), Method::Ahash, 2).unwrap();
        assert_eq!(got, want, "file {i}");
    }
    // 16-bit gray above 255 clips to 255, as Pillow's I;16 -> L does.
    let bright = encode(
        png::ColorType::Grayscale,
        png::BitDepth::Sixteen,
        [1, 0].repeat((w * h) as usize),
        None,
    );
    let image = decode_png(&bright).unwrap();
    assert!(image.data().iter().all(|&v| v == 255));
}

fn hex_hash() -> impl Strategy<Value = String> {
    proptest::collection::vec(0u8..16, 16)
        .prop_map(|d| d.iter().map(|v| format!("{v:x}")).collect())
}

proptest! {
    #[test]
    fn distance_is_symmetric_and_zero_on_identical_input(a in hex_hash(), b in hex_hash()) {
        let ab = hamming_distance(&a, &b).unwrap();
        prop_assert_eq!(ab, hamming_distance(&b, &a).unwrap());
        prop_assert_eq!(hamming_distance(&a, &a).unwrap(), 0);
        prop_assert!(ab <= 64);
        prop_assert_eq!(ab == 0, a == b);
    }

    #[test]
    fn regions_never_leave_the_image(
        x in -5000i64..5000,
        y in -5000i64..5000,
        size in 0u32..600,
        width in 1u32..3000,
        height in 1u32..3000,
    ) {
        let region = action_region((x, y), size, width, height);
        prop_assert!(region.fits(width, height), "{} in {}x{}", region, width, height);
    }

    #[test]
    fn any_region_of_any_small_image_hashes_without_panic(
        width in 1u32..40,
        height in 1u32..40,
        seed in any::<u8>(),
        x in -10i64..50,
        y in -10i64..50,
        size in 0u32..60,
        method in prop_oneof![Just(Method::Phash), Just(Method::Ahash), Just(Method::Dhash)],
    ) {
        let data: Vec<u8> = (0..width * height * 3).map(|i| (i as u8).wrapping_mul(seed)).collect();
        let image = Image::new(width, height, PixelLayout::Rgb, data).unwrap();
        let region = action_region((x, y), size, width, height);
        let hash = region_hash(&image, region, method, 8).unwrap();
        prop_assert_eq!(hash.to_string().len(), 16);
    }
}
