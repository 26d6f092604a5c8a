#![allow(clippy::unwrap_used, clippy::expect_used)]

use proptest::prelude::*;

use super::*;
use crate::image::decode_png;
use crate::image::decode_with_png_crate;
use crate::region::action_region;
use crate::resize::runs_vertical_first;

/// A screenshot-like test picture: flat bands (long runs, where filters predict well), a
/// gradient and a noisy part (so adaptive filtering picks every filter type somewhere).
fn picture(w: u32, h: u32, channels: u32, seed: u32) -> Vec<u8> {
    (0..w * h * channels)
        .map(|i| {
            let (p, c) = (i / channels, i % channels);
            let (x, y) = (p % w, p / w);
            if (y / 7 + seed).is_multiple_of(4) {
                240 - (c * 20) as u8
            } else if x < w / 3 {
                ((x * 3 + y * 2 + c * 40 + seed) % 256) as u8
            } else {
                let n =
                    (x.wrapping_mul(2_654_435_761) ^ y.wrapping_mul(40_503) ^ ((c + seed) * 97))
                        .wrapping_mul(2_246_822_519);
                (n >> 24) as u8
            }
        })
        .collect()
}

/// A PNG written by the `png` crate.
fn encode(
    (w, h): (u32, u32),
    color: png::ColorType,
    depth: png::BitDepth,
    filter: png::Filter,
    data: &[u8],
    palette: Option<Vec<u8>>,
    trns: Option<Vec<u8>>,
) -> Vec<u8> {
    let mut out = Vec::new();
    let mut encoder = png::Encoder::new(&mut out, w, h);
    encoder.set_color(color);
    encoder.set_depth(depth);
    encoder.set_filter(filter);
    if let Some(palette) = palette {
        encoder.set_palette(palette);
    }
    if let Some(trns) = trns {
        encoder.set_trns(trns);
    }
    let mut writer = encoder.write_header().unwrap();
    writer.write_image_data(data).unwrap();
    writer.finish().unwrap();
    out
}

/// An 8-bit PNG of `color` (1 to 4 channels) with `filter`.
fn eight_bit(w: u32, h: u32, color: png::ColorType, filter: png::Filter, seed: u32) -> Vec<u8> {
    let channels = color.samples() as u32;
    let data = picture(w, h, channels, seed);
    encode(
        (w, h),
        color,
        png::BitDepth::Eight,
        filter,
        &data,
        None,
        None,
    )
}

/// The whole image as the `png` crate decodes it: the reference for both of the faster
/// paths over [`crate::png_rows`] (`decode_png` and `png_region_hash`).
fn png_crate_decode(png: &[u8]) -> crate::image::Image {
    decode_with_png_crate(open_png(png, DEFAULT_MAX_PIXELS).unwrap()).unwrap()
}

/// What the region path must equal: the whole image decoded by the `png` crate, then the
/// region hashed.
fn reference(png: &[u8], region: Region, method: Method, size: u32) -> ImageHash {
    region_hash(&png_crate_decode(png), region, method, size).unwrap()
}

#[test]
fn decode_png_equals_the_png_crate_for_every_layout_and_filter() {
    for (seed, color) in COLORS.into_iter().enumerate() {
        for filter in FILTERS {
            for (w, h) in [(230u32, 170u32), (1, 1), (1, 40), (37, 1), (640, 33)] {
                let png = eight_bit(w, h, color, filter, seed as u32);
                let what = format!("{color:?} {filter:?} {w}x{h}");
                assert_eq!(decode_png(&png).unwrap(), png_crate_decode(&png), "{what}");
            }
        }
    }
}

fn assert_same(png: &[u8], region: Region, method: Method, size: u32, what: &str) -> ImageHash {
    let want = reference(png, region, method, size);
    let got = png_region_hash(png, region, method, size);
    assert_eq!(
        got.ok().as_ref(),
        Some(&want),
        "{what} {region} {method} {size}"
    );
    want
}

const COLORS: [png::ColorType; 4] = [
    png::ColorType::Grayscale,
    png::ColorType::GrayscaleAlpha,
    png::ColorType::Rgb,
    png::ColorType::Rgba,
];

const FILTERS: [png::Filter; 6] = [
    png::Filter::NoFilter,
    png::Filter::Sub,
    png::Filter::Up,
    png::Filter::Avg,
    png::Filter::Paeth,
    png::Filter::Adaptive,
];

/// Regions of a `w` x `h` image at its edges and corners, a 1x1, whole rows and columns,
/// the whole image, a tall narrow one (Pillow resizes it vertically first) and a central
/// action region.
fn edge_regions(w: u32, h: u32) -> Vec<Region> {
    vec![
        Region::full(w, h),
        Region::new(0, 0, 1, 1),
        Region::new(w - 1, h - 1, w, h),
        Region::new(0, 0, w, 3),
        Region::new(0, h - 3, w, h),
        Region::new(w - 2, 0, w, h),
        Region::new(0, 0, 2, h),
        Region::new(w.saturating_sub(40), h.saturating_sub(40), w, h),
        Region::new(5, 10, 17, h - 5),
        action_region((i64::from(w) / 2, i64::from(h) / 2), 100, w, h),
        action_region((3, i64::from(h) - 2), 100, w, h),
    ]
}

#[test]
fn every_layout_filter_and_edge_region_matches_decode_then_region_hash() {
    let (w, h) = (230u32, 170u32);
    let mut distinct = std::collections::BTreeSet::new();
    for (seed, color) in COLORS.into_iter().enumerate() {
        for filter in FILTERS {
            let png = eight_bit(w, h, color, filter, seed as u32);
            for region in edge_regions(w, h) {
                for (method, size) in [
                    (Method::Phash, 8),
                    (Method::Ahash, 8),
                    (Method::Dhash, 8),
                    (Method::Phash, 5),
                ] {
                    let hash =
                        assert_same(&png, region, method, size, &format!("{color:?} {filter:?}"));
                    distinct.insert(hash.to_string());
                }
            }
        }
    }
    // The comparison is of real pictures, not of constant hashes.
    assert!(
        distinct.len() > 100,
        "only {} distinct hashes",
        distinct.len()
    );
}

#[test]
fn tall_regions_resize_vertically_first_as_pillow_does() {
    let (w, h) = (120u32, 400u32);
    let png = eight_bit(w, h, png::ColorType::Rgb, png::Filter::Adaptive, 3);
    let region = Region::new(20, 10, 50, 390);
    // pHash's 32x32 thumbnail: the height shrinks by far more than twice the width does.
    assert!(runs_vertical_first(30, 380, 32, 32));
    for method in [Method::Phash, Method::Ahash, Method::Dhash] {
        assert_same(&png, region, method, 8, "tall");
    }
    // And a wide region, horizontal pass first.
    let wide = Region::new(0, 100, 120, 140);
    assert!(!runs_vertical_first(120, 40, 32, 32));
    assert_same(&png, wide, Method::Phash, 8, "wide");
}

#[test]
fn a_screenshot_sized_image_matches_at_every_row_band() {
    // Rows of the region land at every offset within the inflater's batches.
    let (w, h) = (640u32, 400u32);
    let png = eight_bit(w, h, png::ColorType::Rgba, png::Filter::Adaptive, 1);
    for top in (0..h - 20).step_by(17) {
        let region = Region::new(100, top, 200, (top + 100).min(h));
        assert_same(&png, region, Method::Phash, 8, "band");
    }
}

/// An Adam7-interlaced 8-bit RGB PNG, written by hand (the `png` crate writes none): each
/// pass's rows unfiltered, stored in uncompressed deflate blocks.
fn interlaced_rgb(w: u32, h: u32, data: &[u8]) -> Vec<u8> {
    const PASSES: [(u32, u32, u32, u32); 7] = [
        (0, 0, 8, 8),
        (4, 0, 8, 8),
        (0, 4, 4, 8),
        (2, 0, 4, 4),
        (0, 2, 2, 4),
        (1, 0, 2, 2),
        (0, 1, 1, 2),
    ];
    let mut raw = Vec::new();
    for (x0, y0, dx, dy) in PASSES {
        if x0 >= w || y0 >= h {
            continue;
        }
        for y in (y0..h).step_by(dy as usize) {
            raw.push(0);
            for x in (x0..w).step_by(dx as usize) {
                let at = ((y * w + x) * 3) as usize;
                raw.extend_from_slice(&data[at..at + 3]);
            }
        }
    }
    let mut zlib = vec![0x78, 0x01];
    let blocks: Vec<&[u8]> = raw.chunks(65_535).collect();
    for (i, block) in blocks.iter().enumerate() {
        zlib.push(u8::from(i + 1 == blocks.len()));
        let len = block.len() as u16;
        zlib.extend_from_slice(&len.to_le_bytes());
        zlib.extend_from_slice(&(!len).to_le_bytes());
        zlib.extend_from_slice(block);
    }
    let (mut a, mut b) = (1u32, 0u32);
    for &byte in &raw {
        a = (a + u32::from(byte)) % 65_521;
        b = (b + a) % 65_521;
    }
    zlib.extend_from_slice(&(b << 16 | a).to_be_bytes());
    let mut png = b"\x89PNG\r\n\x1a\n".to_vec();
    let mut chunk = |kind: &[u8], body: &[u8]| {
        png.extend_from_slice(&(body.len() as u32).to_be_bytes());
        let mut typed = kind.to_vec();
        typed.extend_from_slice(body);
        png.extend_from_slice(&typed);
        png.extend_from_slice(&zlib_rs::crc32::crc32(0, &typed).to_be_bytes());
    };
    let mut header = w.to_be_bytes().to_vec();
    header.extend_from_slice(&h.to_be_bytes());
    header.extend_from_slice(&[8, 2, 0, 0, 1]);
    chunk(b"IHDR", &header);
    chunk(b"IDAT", &zlib);
    chunk(b"IEND", &[]);
    png
}

#[test]
fn interlaced_images_fall_back_to_the_whole_decode() {
    let (w, h) = (61u32, 45u32);
    let data = picture(w, h, 3, 2);
    let png = interlaced_rgb(w, h, &data);
    // The hand-made file decodes to the picture it was made from.
    let image = decode_png(&png).unwrap();
    assert_eq!(image.data(), &data[..]);
    for region in edge_regions(w, h) {
        assert_same(&png, region, Method::Phash, 8, "interlaced");
    }
}

#[test]
fn palettes_low_and_high_bit_depths_and_transparency_keys_match() {
    let (w, h) = (50u32, 37u32);
    let pixels = (w * h) as usize;
    let palette: Vec<u8> = (0..256u32)
        .flat_map(|i| [i as u8, (i * 7) as u8, 255 - i as u8])
        .collect();
    let indices = picture(w, h, 1, 4);
    let packed = |bits: usize| -> Vec<u8> {
        let row_bytes = (w as usize * bits).div_ceil(8);
        let mut out = vec![0u8; row_bytes * h as usize];
        for (i, &v) in indices.iter().enumerate() {
            let (y, x) = (i / w as usize, i % w as usize);
            let value = v >> (8 - bits);
            let bit = x * bits;
            out[y * row_bytes + bit / 8] |= value << (8 - bits - bit % 8);
        }
        out
    };
    let gray16: Vec<u8> = indices.iter().flat_map(|&v| [v % 3, v]).collect();
    let rgb16: Vec<u8> = picture(w, h, 3, 5)
        .iter()
        .flat_map(|&v| [v, v ^ 0x5a])
        .collect();
    let rgb = picture(w, h, 3, 6);
    let files = vec![
        (
            "palette 8",
            encode(
                (w, h),
                png::ColorType::Indexed,
                png::BitDepth::Eight,
                png::Filter::Adaptive,
                &indices,
                Some(palette.clone()),
                None,
            ),
        ),
        (
            "palette 4",
            encode(
                (w, h),
                png::ColorType::Indexed,
                png::BitDepth::Four,
                png::Filter::Adaptive,
                &packed(4),
                Some(palette[..48].to_vec()),
                None,
            ),
        ),
        (
            "palette 8 + tRNS",
            encode(
                (w, h),
                png::ColorType::Indexed,
                png::BitDepth::Eight,
                png::Filter::Paeth,
                &indices,
                Some(palette),
                Some(vec![0, 128, 255]),
            ),
        ),
        (
            "gray 1",
            encode(
                (w, h),
                png::ColorType::Grayscale,
                png::BitDepth::One,
                png::Filter::Adaptive,
                &packed(1),
                None,
                None,
            ),
        ),
        (
            "gray 2",
            encode(
                (w, h),
                png::ColorType::Grayscale,
                png::BitDepth::Two,
                png::Filter::Adaptive,
                &packed(2),
                None,
                None,
            ),
        ),
        (
            "gray 4",
            encode(
                (w, h),
                png::ColorType::Grayscale,
                png::BitDepth::Four,
                png::Filter::Adaptive,
                &packed(4),
                None,
                None,
            ),
        ),
        (
            "gray 16",
            encode(
                (w, h),
                png::ColorType::Grayscale,
                png::BitDepth::Sixteen,
                png::Filter::Adaptive,
                &gray16,
                None,
                None,
            ),
        ),
        (
            "rgb 16",
            encode(
                (w, h),
                png::ColorType::Rgb,
                png::BitDepth::Sixteen,
                png::Filter::Adaptive,
                &rgb16,
                None,
                None,
            ),
        ),
        (
            "rgb + tRNS",
            encode(
                (w, h),
                png::ColorType::Rgb,
                png::BitDepth::Eight,
                png::Filter::Adaptive,
                &rgb,
                None,
                Some(vec![0, 1, 0, 2, 0, 3]),
            ),
        ),
    ];
    assert_eq!(indices.len(), pixels);
    for (what, png) in &files {
        for region in edge_regions(w, h) {
            assert_same(png, region, Method::Phash, 8, what);
            assert_same(png, region, Method::Dhash, 4, what);
        }
    }
}

#[test]
fn damage_above_the_region_is_an_error_and_below_it_is_not_read() {
    let (w, h) = (300u32, 200u32);
    // Image data in chunks of 4 KiB, as Chromium writes it: a file cut short still has
    // whole chunks before the cut.
    let mut png = Vec::new();
    {
        let mut encoder = png::Encoder::new(&mut png, w, h);
        encoder.set_color(png::ColorType::Rgb);
        let mut writer = encoder.write_header().unwrap();
        let mut stream = writer.stream_writer_with_size(4096).unwrap();
        std::io::Write::write_all(&mut stream, &picture(w, h, 3, 7)).unwrap();
        stream.finish().unwrap();
    }
    let top_region = Region::new(10, 0, 110, 40);
    let want = reference(&png, top_region, Method::Phash, 8);
    // Cut short within the first rows: an error, as in decode_png.
    let early = png.len() / 10;
    assert!(decode_png(&png[..early]).is_err());
    assert!(png_region_hash(&png[..early], top_region, Method::Phash, 8).is_err());
    // A damaged byte in the first rows' data: a CRC error, as in decode_png.
    let mut flipped = png.clone();
    flipped[early] ^= 0x55;
    assert!(decode_png(&flipped).is_err());
    assert!(png_region_hash(&flipped, top_region, Method::Phash, 8).is_err());
    // Cut short near the end: the whole decode fails, the top region never reads that far.
    let late = png.len() - 100;
    assert!(decode_png(&png[..late]).is_err());
    let got = png_region_hash(&png[..late], top_region, Method::Phash, 8);
    assert_eq!(got.ok(), Some(want));
    // But a region reaching those rows is an error.
    let bottom = Region::new(10, h - 40, 110, h);
    assert!(png_region_hash(&png[..late], bottom, Method::Phash, 8).is_err());
}

#[test]
fn bad_input_is_an_error_naming_it() {
    let png = eight_bit(40, 30, png::ColorType::Rgb, png::Filter::Sub, 0);
    let outside = png_region_hash(&png, Region::new(30, 20, 41, 30), Method::Phash, 8);
    let text = outside.unwrap_err().to_string();
    assert!(
        text.contains("(30, 20, 41, 30)") && text.contains("40x30"),
        "{text}"
    );
    let empty = png_region_hash(&png, Region::new(5, 5, 5, 9), Method::Phash, 8);
    assert!(matches!(empty, Err(VisionError::BadRegion { .. })));
    assert!(matches!(
        png_region_hash(&png, Region::new(0, 0, 5, 5), Method::Phash, 1),
        Err(VisionError::HashSize(1))
    ));
    assert!(matches!(
        png_region_hash(b"not a png", Region::new(0, 0, 5, 5), Method::Phash, 8),
        Err(VisionError::Decode(_))
    ));
}

fn any_png() -> impl Strategy<Value = (Vec<u8>, u32, u32)> {
    let color = prop_oneof![
        Just(png::ColorType::Grayscale),
        Just(png::ColorType::GrayscaleAlpha),
        Just(png::ColorType::Rgb),
        Just(png::ColorType::Rgba),
    ];
    let filter = prop_oneof![
        Just(png::Filter::NoFilter),
        Just(png::Filter::Sub),
        Just(png::Filter::Up),
        Just(png::Filter::Avg),
        Just(png::Filter::Paeth),
        Just(png::Filter::Adaptive),
        Just(png::Filter::MinEntropy),
    ];
    (1u32..160, 1u32..140, color, filter, 0u32..1000)
        .prop_map(|(w, h, color, filter, seed)| (eight_bit(w, h, color, filter, seed), w, h))
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    #[test]
    fn any_region_of_any_png_matches_decode_then_region_hash(
        (png, w, h) in any_png(),
        x in -20i64..180,
        y in -20i64..160,
        region_size in 0u32..200,
        method in prop_oneof![Just(Method::Phash), Just(Method::Ahash), Just(Method::Dhash)],
        hash_size in 2u32..10,
    ) {
        prop_assert_eq!(decode_png(&png).unwrap(), png_crate_decode(&png));
        let region = action_region((x, y), region_size, w, h);
        let want = reference(&png, region, method, hash_size);
        let got = png_region_hash(&png, region, method, hash_size);
        prop_assert_eq!(got.ok(), Some(want));
    }
}
