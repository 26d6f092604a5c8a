#![allow(clippy::unwrap_used, clippy::expect_used)]

use proptest::prelude::*;

use crate::error::VisionError;
use crate::image::DEFAULT_MAX_PIXELS;
use crate::image::Image;
use crate::image::decode_png;
use crate::image::decode_with_png_crate;
use crate::image::open_png;
use crate::pixel_layout::PixelLayout;

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

/// How a test PNG is written: colour type, bit depth, filter, palette and transparency key.
struct Kind {
    color: png::ColorType,
    depth: png::BitDepth,
    filter: png::Filter,
    palette: Option<Vec<u8>>,
    trns: Option<Vec<u8>>,
}

impl Kind {
    fn plain(color: png::ColorType, filter: png::Filter) -> Kind {
        Kind {
            color,
            depth: png::BitDepth::Eight,
            filter,
            palette: None,
            trns: None,
        }
    }
}

/// A PNG written by the `png` crate.
fn encode((w, h): (u32, u32), kind: Kind, data: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    let mut encoder = png::Encoder::new(&mut out, w, h);
    encoder.set_color(kind.color);
    encoder.set_depth(kind.depth);
    encoder.set_filter(kind.filter);
    if let Some(palette) = kind.palette {
        encoder.set_palette(palette);
    }
    if let Some(trns) = kind.trns {
        encoder.set_trns(trns);
    }
    let mut writer = encoder.write_header().unwrap();
    writer.write_image_data(data).unwrap();
    writer.finish().unwrap();
    out
}

/// An 8-bit PNG of `color` (1 to 4 channels) with `filter`: a plain PNG, which `decode_png`
/// decodes through [`super::decode_rows`].
fn eight_bit(w: u32, h: u32, color: png::ColorType, filter: png::Filter, seed: u32) -> Vec<u8> {
    let channels = color.samples() as u32;
    let data = picture(w, h, channels, seed);
    encode((w, h), Kind::plain(color, filter), &data)
}

/// The whole image as the `png` crate decodes it: the reference `decode_png` must equal.
fn png_crate_decode(png: &[u8]) -> Result<Image, VisionError> {
    decode_with_png_crate(open_png(png, DEFAULT_MAX_PIXELS)?)
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

#[test]
fn decode_png_equals_the_png_crate_for_every_layout_and_filter() {
    for (seed, color) in COLORS.into_iter().enumerate() {
        for filter in FILTERS {
            // Single rows and columns, heights that end mid-batch, a screenshot-sized one.
            for (w, h) in [
                (230u32, 170u32),
                (1, 1),
                (1, 40),
                (37, 1),
                (640, 33),
                (640, 400),
            ] {
                let png = eight_bit(w, h, color, filter, seed as u32);
                assert!(
                    super::plain_layout(open_png(&png, DEFAULT_MAX_PIXELS).unwrap().info())
                        .is_some()
                );
                let what = format!("{color:?} {filter:?} {w}x{h}");
                assert_eq!(
                    decode_png(&png).unwrap(),
                    png_crate_decode(&png).unwrap(),
                    "{what}"
                );
            }
        }
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
    let mut header = w.to_be_bytes().to_vec();
    header.extend_from_slice(&h.to_be_bytes());
    header.extend_from_slice(&[8, 2, 0, 0, 1]);
    push_chunk(&mut png, b"IHDR", &header);
    push_chunk(&mut png, b"IDAT", &zlib);
    push_chunk(&mut png, b"IEND", &[]);
    png
}

/// Appends a chunk of `kind` holding `body`, with its CRC.
fn push_chunk(png: &mut Vec<u8>, kind: &[u8], body: &[u8]) {
    png.extend_from_slice(&(body.len() as u32).to_be_bytes());
    let mut typed = kind.to_vec();
    typed.extend_from_slice(body);
    png.extend_from_slice(&typed);
    png.extend_from_slice(&zlib_rs::crc32::crc32(0, &typed).to_be_bytes());
}

#[test]
fn interlaced_images_are_left_to_the_png_crate() {
    let (w, h) = (61u32, 45u32);
    let data = picture(w, h, 3, 2);
    let png = interlaced_rgb(w, h, &data);
    assert!(super::plain_layout(open_png(&png, DEFAULT_MAX_PIXELS).unwrap().info()).is_none());
    // The hand-made file decodes to the picture it was made from.
    let image = decode_png(&png).unwrap();
    assert_eq!(image.layout(), PixelLayout::Rgb);
    assert_eq!(image.data(), &data[..]);
}

#[test]
fn palettes_other_bit_depths_and_transparency_keys_are_left_to_the_png_crate() {
    let (w, h) = (50u32, 37u32);
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
    let kind = |color, depth, palette: Option<&[u8]>, trns: Option<&[u8]>| Kind {
        color,
        depth,
        filter: png::Filter::Adaptive,
        palette: palette.map(<[u8]>::to_vec),
        trns: trns.map(<[u8]>::to_vec),
    };
    use png::BitDepth::*;
    use png::ColorType::*;
    // Each file, and the layout it decodes to (a transparency key adds alpha).
    let files = [
        (
            "palette 8",
            kind(Indexed, Eight, Some(&palette), None),
            &indices,
            PixelLayout::Rgb,
        ),
        (
            "palette 4",
            kind(Indexed, Four, Some(&palette[..48]), None),
            &packed(4),
            PixelLayout::Rgb,
        ),
        (
            "palette 8 + tRNS",
            kind(Indexed, Eight, Some(&palette), Some(&[0, 128, 255])),
            &indices,
            PixelLayout::Rgba,
        ),
        (
            "gray 1",
            kind(Grayscale, One, None, None),
            &packed(1),
            PixelLayout::Gray,
        ),
        (
            "gray 2",
            kind(Grayscale, Two, None, None),
            &packed(2),
            PixelLayout::Gray,
        ),
        (
            "gray 4",
            kind(Grayscale, Four, None, None),
            &packed(4),
            PixelLayout::Gray,
        ),
        (
            "gray 16",
            kind(Grayscale, Sixteen, None, None),
            &gray16,
            PixelLayout::Gray,
        ),
        (
            "rgb 16",
            kind(Rgb, Sixteen, None, None),
            &rgb16,
            PixelLayout::Rgb,
        ),
        (
            "rgb + tRNS",
            kind(Rgb, Eight, None, Some(&[0, 1, 0, 2, 0, 3])),
            &rgb,
            PixelLayout::Rgba,
        ),
    ];
    for (what, kind, data, layout) in files {
        let png = encode((w, h), kind, data);
        assert!(
            super::plain_layout(open_png(&png, DEFAULT_MAX_PIXELS).unwrap().info()).is_none(),
            "{what}"
        );
        let image = decode_png(&png).unwrap();
        assert_eq!(image.layout(), layout, "{what}");
        assert_eq!(image, png_crate_decode(&png).unwrap(), "{what}");
    }
}

/// A 300x200 RGB PNG with its image data in chunks of 4 KiB, as Chromium writes it: a file
/// cut short still has whole chunks before the cut.
fn chunked_png() -> Vec<u8> {
    let (w, h) = (300u32, 200u32);
    let mut png = Vec::new();
    {
        let mut encoder = png::Encoder::new(&mut png, w, h);
        encoder.set_color(png::ColorType::Rgb);
        let mut writer = encoder.write_header().unwrap();
        let mut stream = writer.stream_writer_with_size(4096).unwrap();
        std::io::Write::write_all(&mut stream, &picture(w, h, 3, 7)).unwrap();
        stream.finish().unwrap();
    }
    png
}

#[test]
fn damaged_or_truncated_image_data_is_an_error_as_in_the_png_crate() {
    let png = chunked_png();
    assert_eq!(decode_png(&png).unwrap(), png_crate_decode(&png).unwrap());
    let mut damaged = Vec::new();
    // Cut short early, within the last rows, in the last chunk's CRC, and just before IEND
    // (every row is there, but the file is not whole).
    for cut in [
        png.len() / 10,
        png.len() / 2,
        png.len() - 100,
        png.len() - 12,
        png.len() - 16,
    ] {
        damaged.push((format!("cut at {cut}"), png[..cut].to_vec()));
    }
    // A flipped byte in the image data: a CRC error.
    let mut flipped = png.clone();
    flipped[png.len() / 10] ^= 0x55;
    damaged.push(("flipped byte".to_owned(), flipped));
    for (what, file) in damaged {
        assert!(png_crate_decode(&file).is_err(), "{what}");
        // Not `unwrap_err`: an image decoded by mistake would print megabytes.
        match decode_png(&file) {
            Err(VisionError::Decode(_)) => {}
            Err(error) => panic!("{what}: {error}"),
            Ok(_) => panic!("{what}: decoded"),
        }
    }
}

#[test]
fn image_data_ending_before_the_last_row_is_an_error_naming_the_rows() {
    // A well-formed file whose header declares more rows than its image data holds.
    let mut taller = chunked_png();
    // IHDR's height sits at bytes 20..24 of the file; its CRC follows the 13-byte body.
    taller[20..24].copy_from_slice(&210u32.to_be_bytes());
    let crc = zlib_rs::crc32::crc32(0, &taller[12..29]);
    taller[29..33].copy_from_slice(&crc.to_be_bytes());
    assert!(png_crate_decode(&taller).is_err());
    let text = decode_png(&taller).unwrap_err().to_string();
    assert!(text.contains("200 of 210 rows"), "{text}");
}

fn any_png() -> impl Strategy<Value = Vec<u8>> {
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
        .prop_map(|(w, h, color, filter, seed)| eight_bit(w, h, color, filter, seed))
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    #[test]
    fn any_plain_png_decodes_as_the_png_crate_decodes_it(png in any_png()) {
        prop_assert_eq!(decode_png(&png).unwrap(), png_crate_decode(&png).unwrap());
    }
}
