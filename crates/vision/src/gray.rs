//! Grayscale (Pillow mode `L`) images and the conversion from every layout, exactly as Pillow's
//! `convert("L")` computes it. Only the requested region is converted.

use crate::error::VisionError;
use crate::image::Image;
use crate::image::PixelLayout;
use crate::region::Region;

/// An 8-bit grayscale image, row-major without padding.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GrayImage {
    /// Width in pixels.
    pub width: u32,
    /// Height in pixels.
    pub height: u32,
    /// `width * height` luminance values.
    pub data: Vec<u8>,
}

/// Pillow's ITU-R 601-2 luma with its integer rounding (`L24` in `Convert.c`).
#[inline(always)]
pub fn luma(r: u8, g: u8, b: u8) -> u8 {
    ((u32::from(r) * 19595 + u32::from(g) * 38470 + u32::from(b) * 7471 + 0x8000) >> 16) as u8
}

/// Converts `region` of `image` to grayscale as Pillow's `image.crop(region).convert("L")`
/// would: RGB(A) through [`luma`] with alpha ignored, gray(+alpha) by taking the gray sample.
pub fn gray_region(image: &Image, region: Region) -> Result<GrayImage, VisionError> {
    if !region.fits(image.width(), image.height()) {
        return Err(VisionError::BadRegion {
            region: region.to_string(),
            width: image.width(),
            height: image.height(),
        });
    }
    let channels = image.layout().channels();
    let stride = image.width() as usize * channels;
    let (w, h) = (region.width() as usize, region.height() as usize);
    let mut data = vec![0u8; w * h];
    for (row_index, out) in data.chunks_exact_mut(w.max(1)).enumerate() {
        let y = region.top as usize + row_index;
        let start = y * stride + region.left as usize * channels;
        let row = &image.data()[start..start + w * channels];
        match image.layout() {
            PixelLayout::Gray => out.copy_from_slice(row),
            PixelLayout::GrayAlpha => {
                for (o, p) in out.iter_mut().zip(row.chunks_exact(2)) {
                    *o = p[0];
                }
            }
            PixelLayout::Rgb => {
                for (o, p) in out.iter_mut().zip(row.chunks_exact(3)) {
                    *o = luma(p[0], p[1], p[2]);
                }
            }
            PixelLayout::Rgba => {
                for (o, p) in out.iter_mut().zip(row.chunks_exact(4)) {
                    *o = luma(p[0], p[1], p[2]);
                }
            }
        }
    }
    Ok(GrayImage {
        width: region.width(),
        height: region.height(),
        data,
    })
}
