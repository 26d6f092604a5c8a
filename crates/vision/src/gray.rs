//! Grayscale (Pillow mode `L`) images and the conversion from every layout, exactly as Pillow's
//! `convert("L")` computes it. Only the requested region is converted.

use crate::cpu::avx2_dispatch;
use crate::error::VisionError;
use crate::image::Image;
use crate::pixel_layout::PixelLayout;
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
    let start = region.top as usize * stride + region.left as usize * channels;
    let mut data = vec![0u8; w * h];
    convert_rows(image.layout(), &image.data()[start..], stride, w, &mut data);
    Ok(GrayImage {
        width: region.width(),
        height: region.height(),
        data,
    })
}

avx2_dispatch! {
    /// Converts `out.len() / w` rows of `w` pixels of `layout`, rows `stride` bytes apart in
    /// `src`, to grayscale into `out`.
    pub(crate) fn convert_rows(
        layout: PixelLayout,
        src: &[u8],
        stride: usize,
        w: usize,
        out: &mut [u8],
    ) => convert_rows_body
}

#[inline(always)]
fn convert_rows_body(layout: PixelLayout, src: &[u8], stride: usize, w: usize, out: &mut [u8]) {
    let channels = layout.channels();
    for (y, out) in out.chunks_exact_mut(w.max(1)).enumerate() {
        let row = &src[y * stride..][..w * channels];
        match layout {
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
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dispatched_conversion_matches_the_portable_one() {
        let src: Vec<u8> = (0..37u32 * 23 * 4)
            .map(|i| ((i * 7919) >> 3) as u8)
            .collect();
        for layout in [
            PixelLayout::Gray,
            PixelLayout::GrayAlpha,
            PixelLayout::Rgb,
            PixelLayout::Rgba,
        ] {
            let stride = 37 * layout.channels();
            let w = 33;
            let mut fast = vec![0u8; w * 20];
            let mut portable = vec![0u8; w * 20];
            convert_rows(layout, &src[5 * layout.channels()..], stride, w, &mut fast);
            convert_rows_body(
                layout,
                &src[5 * layout.channels()..],
                stride,
                w,
                &mut portable,
            );
            assert_eq!(fast, portable, "{layout:?}");
        }
    }
}
