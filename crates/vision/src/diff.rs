//! A pixel diff that counts exactly what pixelmatch 7.2 counts: YIQ colour distance against
//! `35215 * threshold²`, semi-transparent pixels blended against pixelmatch's checkerboard,
//! anti-aliased pixels (Vysniauskas 2009) excluded unless `include_aa`. It also draws
//! pixelmatch's diff image and, unlike pixelmatch, reports the bounding boxes of the changed
//! areas. Images of different sizes are a layout difference, not an error.

use serde::Deserialize;
use serde::Serialize;

use crate::areas::AreaCollector;
use crate::error::VisionError;
use crate::image::Image;
use crate::region::Region;

/// Options, with pixelmatch's names and defaults.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct DiffOptions {
    /// Matching threshold, 0 to 1; smaller is more sensitive. Default 0.1.
    pub threshold: f64,
    /// Count anti-aliased pixels as differences too (pixelmatch `includeAA`). Default false.
    pub include_aa: bool,
    /// Opacity of the original image in the diff image. Default 0.1.
    pub alpha: f64,
    /// Colour of anti-aliased pixels in the diff image. Default yellow.
    pub aa_color: [u8; 3],
    /// Colour of differing pixels in the diff image. Default red.
    pub diff_color: [u8; 3],
    /// Colour of differing pixels that are darker in the first image; `None` uses
    /// `diff_color`. Default `None`.
    pub diff_color_alt: Option<[u8; 3]>,
    /// Draw only the differing pixels over a transparent background. Default false.
    pub diff_mask: bool,
    /// Blend semi-transparent pixels against pixelmatch's checkerboard (true) or white.
    /// Default true.
    pub checkerboard: bool,
    /// Whether to draw the diff image at all (skipping it is faster). Default true.
    pub draw: bool,
    /// Changed pixels closer than this many pixels end up in the same changed area.
    /// Default 16.
    pub merge_distance: u32,
}

impl Default for DiffOptions {
    fn default() -> DiffOptions {
        DiffOptions {
            threshold: 0.1,
            include_aa: false,
            alpha: 0.1,
            aa_color: [255, 255, 0],
            diff_color: [255, 0, 0],
            diff_color_alt: None,
            diff_mask: false,
            checkerboard: true,
            draw: true,
            merge_distance: 16,
        }
    }
}

/// The result of comparing two images of the same size.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PixelDiff {
    /// Width of both images.
    pub width: u32,
    /// Height of both images.
    pub height: u32,
    /// Pixels that differ (pixelmatch's return value).
    pub diff_pixels: u64,
    /// The diff image as RGBA (empty when `draw` was off).
    pub diff_image: Vec<u8>,
    /// Bounding boxes of the changed areas: clusters of differing pixels, merged when closer
    /// than `merge_distance`; sorted top to bottom, then left to right.
    pub changed_areas: Vec<Region>,
}

/// What [`diff`] found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Diff {
    /// Same size: the pixels were compared.
    Pixels(PixelDiff),
    /// Different sizes: the layout changed, pixels were not compared.
    Layout {
        /// Size of the first image.
        left: (u32, u32),
        /// Size of the second image.
        right: (u32, u32),
    },
}

impl Diff {
    /// The number of differing pixels, or `None` for a layout difference.
    pub fn diff_pixels(&self) -> Option<u64> {
        match self {
            Diff::Pixels(p) => Some(p.diff_pixels),
            Diff::Layout { .. } => None,
        }
    }
}

/// Compares two decoded images. Sizes that differ give [`Diff::Layout`].
pub fn diff(a: &Image, b: &Image, options: &DiffOptions) -> Diff {
    if (a.width(), a.height()) != (b.width(), b.height()) {
        return Diff::Layout {
            left: (a.width(), a.height()),
            right: (b.width(), b.height()),
        };
    }
    let (ra, rb) = (a.to_rgba(), b.to_rgba());
    // Sizes match and `to_rgba` always yields width * height * 4 bytes.
    match diff_rgba(&ra, &rb, a.width(), a.height(), options) {
        Ok(pixels) => Diff::Pixels(pixels),
        Err(_) => Diff::Layout {
            left: (a.width(), a.height()),
            right: (b.width(), b.height()),
        },
    }
}

/// Compares two RGBA buffers of `width` x `height` (pixelmatch's inputs).
pub fn diff_rgba(
    img1: &[u8],
    img2: &[u8],
    width: u32,
    height: u32,
    options: &DiffOptions,
) -> Result<PixelDiff, VisionError> {
    let len = width as usize * height as usize;
    for buffer in [img1, img2] {
        if buffer.len() != len * 4 {
            return Err(VisionError::BufferSize {
                width,
                height,
                channels: 4,
                expected: len * 4,
                actual: buffer.len(),
            });
        }
    }
    // Filled row by row below (each pixel written once, no zeroing pass).
    let mut out: Vec<u8> = Vec::with_capacity(if options.draw { len * 4 } else { 0 });
    let ctx = Context {
        img1,
        img2,
        width: width as usize,
        height: height as usize,
        checkerboard: options.checkerboard,
    };
    let max_delta = 35215.0 * options.threshold * options.threshold;
    let draw_gray = options.draw && !options.diff_mask;
    let alt = options.diff_color_alt.unwrap_or(options.diff_color);
    let mut areas = AreaCollector::new(width, height, options.merge_distance);
    let mut diff = 0u64;
    let mut gray = GrayCache::new(options.alpha);
    let w = width as usize;
    let row_bytes = w * 4;
    for y in 0..height as usize {
        let row1 = &img1[y * row_bytes..(y + 1) * row_bytes];
        let row2 = &img2[y * row_bytes..(y + 1) * row_bytes];
        if row1 == row2 {
            // The common case on screenshots: a whole row unchanged.
            if draw_gray {
                for p in row1.chunks_exact(4) {
                    let v = gray.value([p[0], p[1], p[2], p[3]]);
                    out.extend_from_slice(&[v, v, v, 255]);
                }
            } else if options.draw {
                out.resize(out.len() + row_bytes, 0);
            }
            continue;
        }
        for x in 0..w {
            let i = y * w + x;
            let p1 = pixel(img1, i);
            let p2 = pixel(img2, i);
            let delta = if p1 == p2 {
                0.0
            } else {
                color_delta(p1, p2, i * 4, options.checkerboard)
            };
            let color = if delta.abs() > max_delta {
                let excluded = !options.include_aa
                    && (ctx.antialiased(Side::First, x, y) || ctx.antialiased(Side::Second, x, y));
                if excluded {
                    // Anti-aliased pixels are not part of a mask.
                    if draw_gray {
                        Some(options.aa_color)
                    } else {
                        None
                    }
                } else {
                    areas.add(x as u32, y as u32);
                    diff += 1;
                    Some(if delta < 0.0 { alt } else { options.diff_color })
                }
            } else if draw_gray {
                let v = gray.value(p1);
                Some([v, v, v])
            } else {
                None
            };
            if options.draw {
                match color {
                    Some([r, g, b]) => out.extend_from_slice(&[r, g, b, 255]),
                    None => out.extend_from_slice(&[0; 4]),
                }
            }
        }
    }
    Ok(PixelDiff {
        width,
        height,
        diff_pixels: diff,
        diff_image: out,
        changed_areas: areas.finish(),
    })
}

#[inline(always)]
fn pixel(img: &[u8], i: usize) -> [u8; 4] {
    let p = &img[i * 4..i * 4 + 4];
    [p[0], p[1], p[2], p[3]]
}

/// pixelmatch's `drawGrayPixel`, remembering the last colour (screens have long runs).
struct GrayCache {
    alpha: f64,
    last: Option<([u8; 4], u8)>,
}

impl GrayCache {
    fn new(alpha: f64) -> GrayCache {
        GrayCache { alpha, last: None }
    }

    #[inline(always)]
    fn value(&mut self, p: [u8; 4]) -> u8 {
        if let Some((q, v)) = self.last
            && q == p
        {
            return v;
        }
        let [r, g, b, a] = p.map(f64::from);
        let y = r * 0.29889531 + g * 0.58662247 + b * 0.11448223;
        let val = 255.0 + (y - 255.0) * self.alpha * a / 255.0;
        let v = to_uint8(val);
        self.last = Some((p, v));
        v
    }
}

/// JavaScript's `ToUint8` (a store into a `Uint8Array`): truncate, then wrap modulo 256.
fn to_uint8(v: f64) -> u8 {
    if (0.0..256.0).contains(&v) {
        return v as u8;
    }
    if !v.is_finite() {
        return 0;
    }
    (v.trunc().rem_euclid(256.0)) as u8
}

/// The background colour pixelmatch blends semi-transparent pixels against, at byte offset `k`.
#[inline(always)]
fn background(k: usize, checkerboard: bool) -> [f64; 3] {
    if !checkerboard {
        return [255.0; 3];
    }
    let k = k as f64;
    let r = 48.0 + 159.0 * ((k as i64) % 2) as f64;
    let g = 48.0 + 159.0 * (((k / 1.618033988749895) as i32) % 2) as f64;
    let b = 48.0 + 159.0 * (((k / 2.618033988749895) as i32) % 2) as f64;
    [r, g, b]
}

#[inline(always)]
fn channel_deltas(p1: [u8; 4], p2: [u8; 4], k: usize, checkerboard: bool) -> [f64; 3] {
    let [r1, g1, b1, a1] = p1.map(f64::from);
    let [r2, g2, b2, a2] = p2.map(f64::from);
    if p1[3] < 255 || p2[3] < 255 {
        let [rb, gb, bb] = background(k, checkerboard);
        let da = a1 - a2;
        [
            (r1 * a1 - r2 * a2 - rb * da) / 255.0,
            (g1 * a1 - g2 * a2 - gb * da) / 255.0,
            (b1 * a1 - b2 * a2 - bb * da) / 255.0,
        ]
    } else {
        [r1 - r2, g1 - g2, b1 - b2]
    }
}

/// pixelmatch's `colorDelta`: squared YIQ distance, negative when the second pixel is darker.
#[inline(always)]
fn color_delta(p1: [u8; 4], p2: [u8; 4], k: usize, checkerboard: bool) -> f64 {
    let [dr, dg, db] = channel_deltas(p1, p2, k, checkerboard);
    let y = dr * 0.29889531 + dg * 0.58662247 + db * 0.11448223;
    let i = dr * 0.59597799 - dg * 0.27417610 - db * 0.32180189;
    let q = dr * 0.21147017 - dg * 0.52261711 + db * 0.31114694;
    let delta = 0.5053 * y * y + 0.299 * i * i + 0.1957 * q * q;
    if y > 0.0 { -delta } else { delta }
}

/// pixelmatch's `brightnessDelta`: Y of `center` minus Y of `other`.
#[inline(always)]
fn brightness_delta(center: [u8; 4], other: [u8; 4], k: usize, checkerboard: bool) -> f64 {
    if center == other {
        return 0.0;
    }
    let [dr, dg, db] = channel_deltas(center, other, k, checkerboard);
    dr * 0.29889531 + dg * 0.58662247 + db * 0.11448223
}

#[derive(Clone, Copy)]
enum Side {
    First,
    Second,
}

struct Context<'a> {
    img1: &'a [u8],
    img2: &'a [u8],
    width: usize,
    height: usize,
    checkerboard: bool,
}

impl Context<'_> {
    /// pixelmatch's `antialiased(img, x, y, ..., a32, b32)`: `img` is the side's image, and
    /// the sibling test runs on that image and then the other.
    fn antialiased(&self, side: Side, x1: usize, y1: usize) -> bool {
        let (img, other) = match side {
            Side::First => (self.img1, self.img2),
            Side::Second => (self.img2, self.img1),
        };
        let x0 = x1.saturating_sub(1);
        let y0 = y1.saturating_sub(1);
        let x2 = (x1 + 1).min(self.width - 1);
        let y2 = (y1 + 1).min(self.height - 1);
        let pos = (y1 * self.width + x1) * 4;
        let center = pixel(img, y1 * self.width + x1);
        let mut zeroes = u32::from(x1 == x0 || x1 == x2 || y1 == y0 || y1 == y2);
        let (mut min, mut max) = (0.0f64, 0.0f64);
        let (mut min_at, mut max_at) = ((0, 0), (0, 0));
        for x in x0..=x2 {
            for y in y0..=y2 {
                if x == x1 && y == y1 {
                    continue;
                }
                let delta = brightness_delta(
                    center,
                    pixel(img, y * self.width + x),
                    pos,
                    self.checkerboard,
                );
                if delta == 0.0 {
                    zeroes += 1;
                    if zeroes > 2 {
                        return false;
                    }
                } else if delta < min {
                    min = delta;
                    min_at = (x, y);
                } else if delta > max {
                    max = delta;
                    max_at = (x, y);
                }
            }
        }
        if min == 0.0 || max == 0.0 {
            return false;
        }
        (self.has_many_siblings(img, min_at) && self.has_many_siblings(other, min_at))
            || (self.has_many_siblings(img, max_at) && self.has_many_siblings(other, max_at))
    }

    /// pixelmatch's `hasManySiblings`: 3+ neighbours (edges count as one) of the same RGBA.
    fn has_many_siblings(&self, img: &[u8], (x1, y1): (usize, usize)) -> bool {
        let x0 = x1.saturating_sub(1);
        let y0 = y1.saturating_sub(1);
        let x2 = (x1 + 1).min(self.width - 1);
        let y2 = (y1 + 1).min(self.height - 1);
        let value = pixel(img, y1 * self.width + x1);
        let mut zeroes = u32::from(x1 == x0 || x1 == x2 || y1 == y0 || y1 == y2);
        for x in x0..=x2 {
            for y in y0..=y2 {
                if x == x1 && y == y1 {
                    continue;
                }
                zeroes += u32::from(value == pixel(img, y * self.width + x));
                if zeroes > 2 {
                    return true;
                }
            }
        }
        false
    }
}

#[cfg(test)]
#[path = "diff_tests.rs"]
mod tests;
