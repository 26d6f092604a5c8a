//! Hashing one region of a screenshot straight from its PNG bytes: what a replay check needs
//! of a screenshot it does not otherwise look at (no stability, search or crop).
//!
//! [`png_region_hash`] is `region_hash(&decode_png(bytes)?, region, ..)` bit for bit, but
//! decodes only what the region needs. PNG rows are filtered against the row above (and the
//! pixels to their left), so every row from the top down to the region's last one is
//! inflated and unfiltered in full; rows below the region are never inflated, the whole
//! image is never kept (a batch of rows at a time, and the previous row), and only the
//! region's own pixels are converted to grayscale. The grayscale region is then hashed by
//! the same [`gray_hash`] as `region_hash` (LANCZOS resize, Pillow's pass order included),
//! so the two cannot differ once the pixels agree.
//!
//! The rows come from [`crate::png_rows`]; interlaced images, bit depths other than 8,
//! palettes and transparency keys are rarer than screenshots and go through `decode_png` and
//! `region_hash` whole.
//!
//! Damage to the image data is an error as in `decode_png` as far as the region's last row;
//! what lies below it is not read, so damage there goes unnoticed (as it does not change the
//! region's pixels).

use crate::error::VisionError;
use crate::gray::GrayImage;
use crate::gray::convert_rows;
use crate::hash::ImageHash;
use crate::hash::Method;
use crate::hash::gray_hash;
use crate::hash::region_hash;
use crate::image::DEFAULT_MAX_PIXELS;
use crate::image::PixelLayout;
use crate::image::decode_png_with_limit;
use crate::image::open_png;
use crate::png_rows::decode_rows;
use crate::png_rows::plain_layout;
use crate::region::Region;

/// Hashes `region` of the PNG `bytes`: exactly `region_hash(&decode_png(bytes)?, region,
/// method, hash_size)` (Python `imagehash.<method>(Image.open(file).crop(region),
/// hash_size)`), inflating and unfiltering only the rows down to the region's bottom and
/// converting only the region's pixels. The PNG is subject to [`DEFAULT_MAX_PIXELS`]; the
/// region must be non-empty and inside the image (see
/// [`action_region`](crate::action_region)).
pub fn png_region_hash(
    bytes: &[u8],
    region: Region,
    method: Method,
    hash_size: u32,
) -> Result<ImageHash, VisionError> {
    if hash_size < 2 {
        return Err(VisionError::HashSize(hash_size));
    }
    let reader = open_png(bytes, DEFAULT_MAX_PIXELS)?;
    let info = reader.info();
    let (width, height) = (info.width, info.height);
    let layout = plain_layout(info);
    drop(reader);
    let Some(layout) = layout else {
        let image = decode_png_with_limit(bytes, DEFAULT_MAX_PIXELS)?;
        return region_hash(&image, region, method, hash_size);
    };
    if !region.fits(width, height) {
        return Err(VisionError::BadRegion {
            region: region.to_string(),
            width,
            height,
        });
    }
    let gray = gray_rows(bytes, layout, width as usize, height as usize, region)?;
    Ok(gray_hash(&gray, method, hash_size))
}

/// The grayscale pixels of `region` (inside the image) of a plain PNG of `layout`, decoding
/// rows down to the region's bottom only.
fn gray_rows(
    bytes: &[u8],
    layout: PixelLayout,
    width: usize,
    height: usize,
    region: Region,
) -> Result<GrayImage, VisionError> {
    let row_len = width * layout.channels() + 1;
    let (top, bottom) = (region.top as usize, region.bottom as usize);
    let (left, region_w) = (region.left as usize, region.width() as usize);
    let mut gray = GrayImage {
        width: region.width(),
        height: region.height(),
        data: vec![0u8; region_w * region.height() as usize],
    };
    decode_rows(bytes, layout, (width, height), bottom, |first_row, rows| {
        let last = first_row + rows.len() / row_len;
        let first = first_row.max(top);
        if first < last {
            let src = &rows[(first - first_row) * row_len + 1 + left * layout.channels()..];
            let out = &mut gray.data[(first - top) * region_w..(last - top) * region_w];
            convert_rows(layout, src, row_len, region_w, out);
        }
    })?;
    Ok(gray)
}

#[cfg(test)]
#[path = "png_region_tests.rs"]
mod tests;
