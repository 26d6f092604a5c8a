//! Hashing a whole screenshot straight from its PNG bytes, without keeping its pixels.
//!
//! [`png_hash`] is `decode_png` followed by `hash`, bit for bit, but pipelined over three
//! threads, each handing batches of rows to the next: this one inflates the image data
//! (`png`'s streaming decoder, which also checks every chunk), a second undoes the PNG row
//! filters, a third converts to grayscale and runs the horizontal LANCZOS pass. Inflating
//! and unfiltering are each about as slow as everything else put together, so on two cores
//! the stages overlap instead of adding up. Only batches of rows and the narrow horizontal
//! result are kept, never the whole image. Small or unusual PNGs (interlaced, not 8-bit, palette,
//! transparency key, no downscale) simply go through `decode_png` and `hash`.

use std::sync::mpsc;

use crate::error::VisionError;
use crate::gray::convert_rows;
use crate::hash::ImageHash;
use crate::hash::Method;
use crate::hash::hash;
use crate::hash::thumbnail_hash;
use crate::hash::thumbnail_size;
use crate::image::DEFAULT_MAX_PIXELS;
use crate::image::PixelLayout;
use crate::image::decode_error;
use crate::image::decode_png_with_limit;
use crate::image::open_png;
use crate::resize::RowSource;
use crate::resize::coefficients;
use crate::resize::horizontal_pass;
use crate::resize::vertical_pass;

/// Rows handed from one stage of the pipeline to the next at a time.
const BATCH_ROWS: usize = 32;

/// The initial size of the inflated-data window of [`inflate`].
const WINDOW_BYTES: usize = 1 << 18;

/// Images below this many pixels are decoded and hashed in one thread: starting the workers
/// would cost more than it saves.
const PIPELINE_PIXELS: u64 = 1 << 18;

/// Hashes the whole image of a PNG file: exactly `hash(&decode_png(bytes)?, method,
/// hash_size)` (Python `imagehash.<method>(Image.open(file), hash_size)`), faster and in less
/// memory for screenshots. The PNG is subject to [`DEFAULT_MAX_PIXELS`].
pub fn png_hash(bytes: &[u8], method: Method, hash_size: u32) -> Result<ImageHash, VisionError> {
    if hash_size < 2 {
        return Err(VisionError::HashSize(hash_size));
    }
    let reader = open_png(bytes, DEFAULT_MAX_PIXELS)?;
    let (width, height) = (reader.info().width, reader.info().height);
    let (color, depth) = reader.output_color_type();
    let layout = match color {
        png::ColorType::Grayscale => Some(PixelLayout::Gray),
        png::ColorType::GrayscaleAlpha => Some(PixelLayout::GrayAlpha),
        png::ColorType::Rgb => Some(PixelLayout::Rgb),
        png::ColorType::Rgba => Some(PixelLayout::Rgba),
        png::ColorType::Indexed => None,
    };
    let (tw, th) = thumbnail_size(method, hash_size);
    let simple = layout.filter(|_| {
        depth == png::BitDepth::Eight
            && !reader.info().interlaced
            && reader.info().trns.is_none()
            && u64::from(width) * u64::from(height) >= PIPELINE_PIXELS
            && width != tw
            && height != th
    });
    drop(reader);
    let Some(layout) = simple else {
        let image = decode_png_with_limit(bytes, DEFAULT_MAX_PIXELS)?;
        return hash(&image, method, hash_size);
    };

    let (w, h, out_w) = (width as usize, height as usize, tw as usize);
    let bpp = layout.channels();
    let row_bytes = w * bpp;
    let horizontal = coefficients(w, out_w);
    let vertical = coefficients(h, th as usize);
    let temp = std::thread::scope(|scope| -> Result<Vec<u8>, VisionError> {
        // Filtered rows (each with its filter byte), then unfiltered rows, in batches.
        let (to_unfilter, filtered) = mpsc::channel::<Vec<u8>>();
        let (to_resample, unfiltered) = mpsc::channel::<Vec<u8>>();
        // Used batches go back to the inflater: no allocation (nor page faults) per batch.
        let (recycle, spare) = mpsc::channel::<Vec<u8>>();
        let unfilterer = scope.spawn(move || -> Result<(), VisionError> {
            // The last row of the batch before (zeros above the first row).
            let mut previous = vec![0u8; row_bytes];
            for mut batch in filtered {
                unfilter_batch(&mut batch, row_bytes + 1, bpp, &mut previous)?;
                if to_resample.send(batch).is_err() {
                    break;
                }
            }
            Ok(())
        });
        let resampler = scope.spawn(move || {
            let mut temp = Vec::with_capacity(h * out_w);
            let mut gray = Vec::new();
            for batch in unfiltered {
                // Rows keep their filter byte in front: skip it.
                let rows = batch.len() / (row_bytes + 1);
                gray.resize(rows * w, 0);
                convert_rows(layout, &batch[1..], row_bytes + 1, w, &mut gray);
                let src = RowSource {
                    data: &gray,
                    stride: w,
                    left: 0,
                    width: w,
                };
                temp.extend_from_slice(&horizontal_pass(src, &horizontal, out_w, 0..rows));
                // The inflater may be done already; then the buffer is simply dropped.
                let _ = recycle.send(batch);
            }
            temp
        });
        let inflated = inflate(bytes, h, row_bytes + 1, |rows| {
            let mut batch = spare.try_recv().unwrap_or_default();
            batch.clear();
            batch.extend_from_slice(rows);
            to_unfilter.send(batch).is_ok()
        });
        drop(to_unfilter);
        let unfiltered = unfilterer
            .join()
            .map_err(|_| VisionError::Decode("the unfiltering worker failed".to_owned()))?;
        let temp = resampler
            .join()
            .map_err(|_| VisionError::Decode("the resampling worker failed".to_owned()))?;
        inflated?;
        unfiltered?;
        Ok(temp)
    })?;
    if temp.len() != h * out_w {
        return Err(VisionError::Decode(format!(
            "image data ends after {} of {h} rows",
            temp.len() / out_w
        )));
    }
    let small = crate::gray::GrayImage {
        width: tw,
        height: th,
        data: vertical_pass(&temp, out_w, 0, &vertical, th as usize),
    };
    Ok(thumbnail_hash(&small, method, hash_size))
}

/// Inflates the image data of the PNG `bytes` (`rows` rows of `row_len` bytes, each with its
/// filter byte) and hands it to `send` in batches of [`BATCH_ROWS`] rows, reading on to the
/// end of the image data so that a damaged or truncated file is the same error as in
/// `decode_png`. Stops early when `send` returns `false`.
fn inflate(
    bytes: &[u8],
    rows: usize,
    row_len: usize,
    mut send: impl FnMut(&[u8]) -> bool,
) -> Result<(), VisionError> {
    let mut decoder = png::StreamingDecoder::new();
    let mut region = png::UnfilterRegion::default();
    // A sliding window of the inflated stream, starting at stream offset `base`: rows are
    // copied out in batches, and the window slides back keeping what the inflater may still
    // refer to (the last 32 KiB), so the image data is never stored whole.
    let mut raw = vec![0u8; (4 * BATCH_ROWS * row_len).max(WINDOW_BYTES)];
    let (mut pos, mut sent, mut base) = (0, 0, 0);
    loop {
        let (consumed, event) = decoder
            .update(&bytes[pos..], Some(&mut region.as_buf(&mut raw)))
            .map_err(decode_error)?;
        pos += consumed;
        let ready = ((base + region.filled) / row_len.max(1)).min(rows);
        while ready - sent >= BATCH_ROWS || (ready == rows && sent < rows) {
            let end = (sent + BATCH_ROWS).min(ready);
            if !send(&raw[sent * row_len - base..end * row_len - base]) {
                return Ok(());
            }
            sent = end;
        }
        if raw.len() - region.filled < WINDOW_BYTES / 4 {
            // Everything before `available` is no longer needed by the inflater.
            let drop = region.available.min(sent * row_len - base);
            if drop == 0 {
                let grown = raw.len() * 2;
                raw.resize(grown, 0);
            } else {
                raw.copy_within(drop..region.filled, 0);
                region.available -= drop;
                region.filled -= drop;
                base += drop;
            }
        }
        // `decode_png` stops at the end of the image data too (the chunk after it has begun).
        if matches!(
            event,
            png::Decoded::ImageDataFlushed | png::Decoded::ChunkComplete(png::chunk::IEND)
        ) {
            break;
        }
        if consumed == 0 && pos >= bytes.len() {
            return Err(VisionError::Decode(
                "the PNG ends before its IEND chunk".to_owned(),
            ));
        }
    }
    if sent < rows {
        return Err(VisionError::Decode(format!(
            "image data ends after {sent} of {rows} rows"
        )));
    }
    Ok(())
}

/// Undoes the PNG filters of a batch of rows in place: each row is `row_len` bytes, a filter
/// byte then 8-bit samples, `bpp` bytes per pixel. `previous` holds the unfiltered row above
/// the batch and is left holding the batch's last row.
fn unfilter_batch(
    batch: &mut [u8],
    row_len: usize,
    bpp: usize,
    previous: &mut [u8],
) -> Result<(), VisionError> {
    let rows = batch.len() / row_len;
    for r in 0..rows {
        let (above, rest) = batch.split_at_mut(r * row_len);
        let (filter, row) = rest[..row_len].split_at_mut(1);
        let prev: &[u8] = match r {
            0 => previous,
            _ => &above[(r - 1) * row_len + 1..],
        };
        unfilter_row(filter[0], bpp, prev, row)?;
    }
    if rows > 0 {
        previous.copy_from_slice(&batch[(rows - 1) * row_len + 1..rows * row_len]);
    }
    Ok(())
}

/// Undoes the PNG filter `filter` of one row of 8-bit samples, `bpp` (1 to 4) bytes per
/// pixel, given the previous row already unfiltered (zeros for the first row).
fn unfilter_row(
    filter: u8,
    bpp: usize,
    previous: &[u8],
    row: &mut [u8],
) -> Result<(), VisionError> {
    match bpp {
        1 => unfilter_pixels::<1>(filter, previous, row),
        2 => unfilter_pixels::<2>(filter, previous, row),
        3 => unfilter_pixels::<3>(filter, previous, row),
        4 => unfilter_pixels::<4>(filter, previous, row),
        _ => Err(VisionError::Decode(format!("{bpp} bytes per pixel"))),
    }
}

/// [`unfilter_row`] for `BPP` bytes per pixel, a pixel at a time (the bytes of one pixel are
/// independent, so they go side by side).
#[inline(always)]
fn unfilter_pixels<const BPP: usize>(
    filter: u8,
    previous: &[u8],
    row: &mut [u8],
) -> Result<(), VisionError> {
    let pixels = row.chunks_exact_mut(BPP).zip(previous.chunks_exact(BPP));
    match filter {
        0 => {}
        1 => {
            let mut a = [0u8; BPP];
            for (x, _) in pixels {
                for i in 0..BPP {
                    x[i] = x[i].wrapping_add(a[i]);
                    a[i] = x[i];
                }
            }
        }
        2 => {
            for (x, &b) in row.iter_mut().zip(previous) {
                *x = x.wrapping_add(b);
            }
        }
        3 => {
            let mut a = [0u16; BPP];
            for (x, b) in pixels {
                for i in 0..BPP {
                    x[i] = x[i].wrapping_add(((a[i] + u16::from(b[i])) / 2) as u8);
                    a[i] = u16::from(x[i]);
                }
            }
        }
        4 => {
            let (mut a, mut c) = ([0i16; BPP], [0i16; BPP]);
            for (x, b) in pixels {
                for i in 0..BPP {
                    let b = i16::from(b[i]);
                    x[i] = x[i].wrapping_add(paeth(a[i], b, c[i]));
                    a[i] = i16::from(x[i]);
                    c[i] = b;
                }
            }
        }
        other => {
            return Err(VisionError::Decode(format!("unknown filter type {other}")));
        }
    }
    Ok(())
}

/// The Paeth predictor (the branch-free form of `stb_image`, as the `png` crate uses it).
#[inline(always)]
fn paeth(a: i16, b: i16, c: i16) -> u8 {
    let thresh = c * 3 - (a + b);
    let lo = a.min(b);
    let hi = a.max(b);
    let t0 = if hi <= thresh { lo } else { c };
    let t1 = if thresh <= lo { hi } else { t0 };
    t1 as u8
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::image::decode_png;

    /// A screenshot-like test picture: flat bands and gradients.
    fn picture(w: u32, h: u32, channels: u32) -> Vec<u8> {
        (0..w * h * channels)
            .map(|i| {
                let (p, c) = (i / channels, i % channels);
                let (x, y) = (p % w, p / w);
                if c == 3 {
                    200 + (x % 50) as u8
                } else if (y / 30) % 3 == 0 {
                    250
                } else {
                    ((x * 7 + y * 3 + c * 50 + (x * y) % 13) % 256) as u8
                }
            })
            .collect()
    }

    fn encode(w: u32, h: u32, color: png::ColorType, filter: png::Filter, data: &[u8]) -> Vec<u8> {
        let mut out = Vec::new();
        let mut encoder = png::Encoder::new(&mut out, w, h);
        encoder.set_color(color);
        encoder.set_depth(png::BitDepth::Eight);
        encoder.set_filter(filter);
        let written = encoder
            .write_header()
            .and_then(|mut writer| writer.write_image_data(data));
        assert!(written.is_ok(), "{written:?}");
        out
    }

    #[test]
    fn matches_decode_then_hash_for_every_filter_and_layout() {
        let (w, h) = (700u32, 450u32);
        let colors = [
            (png::ColorType::Grayscale, 1),
            (png::ColorType::GrayscaleAlpha, 2),
            (png::ColorType::Rgb, 3),
            (png::ColorType::Rgba, 4),
        ];
        let filters = [
            png::Filter::NoFilter,
            png::Filter::Sub,
            png::Filter::Up,
            png::Filter::Avg,
            png::Filter::Paeth,
            png::Filter::Adaptive,
        ];
        for (color, channels) in colors {
            let data = picture(w, h, channels);
            for filter in filters {
                let png = encode(w, h, color, filter, &data);
                let image = decode_png(&png);
                assert!(image.is_ok(), "{image:?}");
                for (method, size) in [(Method::Phash, 8), (Method::Ahash, 8), (Method::Dhash, 16)]
                {
                    let want = image.as_ref().ok().and_then(|i| hash(i, method, size).ok());
                    let got = png_hash(&png, method, size).ok();
                    assert!(got.is_some());
                    assert_eq!(want, got, "{color:?} {filter:?} {method} {size}");
                }
            }
        }
    }

    #[test]
    fn unfiltering_undoes_every_filter() {
        // The filters as the PNG specification defines them, applied to known rows.
        for bpp in 1..=4 {
            let previous: Vec<u8> = (0..60u32).map(|i| ((i * 37) % 256) as u8).collect();
            let row: Vec<u8> = (0..60u32).map(|i| ((i * 91 + 17) % 256) as u8).collect();
            for filter in 0..=4u8 {
                let filtered: Vec<u8> = (0..row.len())
                    .map(|i| {
                        let a = if i >= bpp { row[i - bpp] } else { 0 };
                        let c = if i >= bpp { previous[i - bpp] } else { 0 };
                        let b = previous[i];
                        let predictor = match filter {
                            0 => 0,
                            1 => a,
                            2 => b,
                            3 => ((u16::from(a) + u16::from(b)) / 2) as u8,
                            _ => {
                                let p = i16::from(a) + i16::from(b) - i16::from(c);
                                let (pa, pb, pc) = (
                                    (p - i16::from(a)).abs(),
                                    (p - i16::from(b)).abs(),
                                    (p - i16::from(c)).abs(),
                                );
                                if pa <= pb && pa <= pc {
                                    a
                                } else if pb <= pc {
                                    b
                                } else {
                                    c
                                }
                            }
                        };
                        row[i].wrapping_sub(predictor)
                    })
                    .collect();
                let mut got = filtered.clone();
                assert!(unfilter_row(filter, bpp, &previous, &mut got).is_ok());
                assert_eq!(got, row, "filter {filter}, {bpp} bytes per pixel");
            }
            let mut bad = row.clone();
            assert!(unfilter_row(5, bpp, &previous, &mut bad).is_err());
        }
    }

    #[test]
    fn damaged_files_are_errors_as_in_decode_png() {
        let (w, h) = (700u32, 450u32);
        let png = encode(
            w,
            h,
            png::ColorType::Rgb,
            png::Filter::Paeth,
            &picture(w, h, 3),
        );
        for cut in [
            60,
            png.len() / 3,
            png.len() / 2,
            png.len() - 13,
            png.len() - 1,
        ] {
            let want = decode_png(&png[..cut]).and_then(|i| hash(&i, Method::Phash, 8));
            let got = png_hash(&png[..cut], Method::Phash, 8);
            assert_eq!(want.ok(), got.ok(), "cut at {cut}");
        }
        let mut flipped = png.clone();
        let middle = png.len() / 2;
        flipped[middle] ^= 0x55;
        assert!(png_hash(&flipped, Method::Phash, 8).is_err());
        assert!(png_hash(b"not a png", Method::Phash, 8).is_err());
        assert!(png_hash(&png, Method::Phash, 1).is_err());
    }
}
