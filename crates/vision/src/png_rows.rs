//! Decoding the rows of a plain PNG (8-bit samples, not interlaced, no palette, no
//! transparency key: what browsers write for screenshots) from the top down: the engine under
//! [`decode_png`](crate::decode_png), which replay runs on every screenshot it polls.
//!
//! Rows are inflated by `zlib-rs` straight into batch buffers ([`crate::image_data`]) and
//! unfiltered in place by [`crate::unfilter`] (Paeth through the AVX2 short-chain form), which
//! is faster than the `png` crate's own reader; PNGs of any other kind are left to the `png`
//! crate by the callers.

use std::cell::Cell;

use crate::error::VisionError;
use crate::image_data::inflate_rows;
use crate::paeth::Paeth;
use crate::pixel_layout::PixelLayout;
use crate::unfilter::unfilter_batch;

/// Rows inflated at a time: few enough that a batch (82 KB for a 1280 px RGBA screenshot)
/// stays in cache while it is unfiltered and copied out, enough that each call into the
/// inflater does real work.
const BATCH_ROWS: usize = 16;

/// The layout of a PNG whose header `info` describes, when its rows can go through
/// [`decode_rows`]; `None` for interlaced images, bit depths other than 8, palettes and
/// transparency keys.
pub(crate) fn plain_layout(info: &png::Info<'_>) -> Option<PixelLayout> {
    let layout = match info.color_type {
        png::ColorType::Grayscale => PixelLayout::Gray,
        png::ColorType::GrayscaleAlpha => PixelLayout::GrayAlpha,
        png::ColorType::Rgb => PixelLayout::Rgb,
        png::ColorType::Rgba => PixelLayout::Rgba,
        png::ColorType::Indexed => return None,
    };
    let plain = info.bit_depth == png::BitDepth::Eight && !info.interlaced && info.trns.is_none();
    plain.then_some(layout)
}

/// Decodes every row of the plain PNG `bytes` (`width` x `height` pixels of `layout`, see
/// [`plain_layout`]) and hands them to `sink` in order, a batch at a time:
/// `sink(first_row, rows)`, where `rows` holds whole unfiltered rows of `width *
/// layout.channels() + 1` bytes each, the first byte of each being its (spent) filter type.
/// Damaged image data, or image data that ends before the last row, is an error.
pub(crate) fn decode_rows(
    bytes: &[u8],
    layout: PixelLayout,
    (width, height): (usize, usize),
    mut sink: impl FnMut(usize, &[u8]),
) -> Result<(), VisionError> {
    let bpp = layout.channels();
    let row_len = width * bpp + 1;
    let mut previous = vec![0u8; width * bpp];
    let mut paeth = Paeth::default();
    // The batch buffer, handed back after each batch to be filled again.
    let spare = Cell::new(None::<Vec<u8>>);
    let mut next_row = 0usize;
    let mut result = Ok(());
    inflate_rows(
        bytes,
        height,
        row_len,
        BATCH_ROWS,
        || spare.take().unwrap_or_default(),
        |mut batch| {
            let rows = batch.len() / row_len;
            // The inflater sends no more than `height` rows; the bound keeps the slices below
            // in range whatever it sends.
            let needed = rows.min(height - next_row);
            let batch_rows = &mut batch[..needed * row_len];
            if let Err(error) = unfilter_batch(&mut paeth, batch_rows, row_len, bpp, &mut previous)
            {
                result = Err(error);
                return false;
            }
            sink(next_row, batch_rows);
            next_row += needed;
            spare.set(Some(batch));
            // On past the last row too: the inflater then reads to the end of the image data,
            // so that a file damaged or cut short after it is an error, as in the `png` crate.
            true
        },
    )?;
    result?;
    if next_row < height {
        return Err(VisionError::Decode(format!(
            "image data ends after {next_row} of {height} rows"
        )));
    }
    Ok(())
}

#[cfg(test)]
#[path = "png_rows_tests.rs"]
mod tests;
