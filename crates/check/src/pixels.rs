//! The pixel layer: baseline against candidate, cheapest first. Identical pixels end it at
//! once; otherwise retrace-vision's pixelmatch port (YIQ distance, anti-aliasing aware)
//! flags pixels, a CIEDE2000 floor adds any it let through that differ by ΔE ≥
//! `thresholds.delta_e`, and the flagged pixels are clustered into boxes. Pages of different
//! sizes are padded with transparent pixels, so the extra band counts as changed.

use std::collections::HashMap;

use retrace_vision::DiffOptions;

use crate::cluster::PixelBox;
use crate::cluster::cluster;
use crate::colour::delta_e;
use crate::spec::Thresholds;

/// A decoded screenshot.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Frame {
    /// Pixels.
    pub width: u32,
    /// Pixels.
    pub height: u32,
    /// RGBA, row-major.
    pub rgba: Vec<u8>,
}

impl Frame {
    /// Decodes a PNG.
    pub fn from_png(png: &[u8]) -> Result<Frame, retrace_vision::VisionError> {
        let image = retrace_vision::decode_png(png)?;
        Ok(Frame {
            width: image.width(),
            height: image.height(),
            rgba: image.to_rgba().into_owned(),
        })
    }

    /// The smallest box holding every pixel that differs between this frame and `other` (the
    /// larger canvas when their sizes differ), or `None` when they are the same.
    pub fn changed_box(&self, other: &Frame) -> Option<PixelBox> {
        let (width, height) = (self.width.max(other.width), self.height.max(other.height));
        let (a, b) = (self.padded(width, height), other.padded(width, height));
        let mut found: Option<(u32, u32, u32, u32)> = None;
        for (i, (pa, pb)) in a.chunks_exact(4).zip(b.chunks_exact(4)).enumerate() {
            if pa == pb {
                continue;
            }
            let (x, y) = ((i as u32) % width, (i as u32) / width);
            found = Some(match found {
                None => (x, y, x, y),
                Some((l, t, r, b)) => (l.min(x), t.min(y), r.max(x), b.max(y)),
            });
        }
        found.map(|(left, top, right, bottom)| PixelBox {
            x: left,
            y: top,
            width: right - left + 1,
            height: bottom - top + 1,
        })
    }

    /// This frame on a `width` x `height` canvas of transparent pixels.
    fn padded(&self, width: u32, height: u32) -> Vec<u8> {
        if (width, height) == (self.width, self.height) {
            return self.rgba.clone();
        }
        let mut out = vec![0u8; width as usize * height as usize * 4];
        let row = self.width as usize * 4;
        for y in 0..self.height as usize {
            let to = y * width as usize * 4;
            out[to..to + row].copy_from_slice(&self.rgba[y * row..(y + 1) * row]);
        }
        out
    }
}

/// What the pixel layer found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PixelComparison {
    /// The compared canvas (the larger of the two sizes).
    pub width: u32,
    /// The compared canvas.
    pub height: u32,
    /// Same size, same bytes: nothing else was computed.
    pub identical: bool,
    /// Differing pixels: pixelmatch's count plus the ΔE floor's.
    pub diff_pixels: u64,
    /// Of those, the ones only the ΔE floor caught.
    pub delta_e_pixels: u64,
    /// `(baseline, candidate)` sizes, when they differ.
    pub size_changed: Option<((u32, u32), (u32, u32))>,
    /// Boxes around the differing pixels.
    pub boxes: Vec<PixelBox>,
    /// pixelmatch's diff image (RGBA; empty when identical).
    pub diff_image: Vec<u8>,
}

const DIFF_RED: [u8; 3] = [255, 0, 0];
const AA_YELLOW: [u8; 3] = [255, 255, 0];

/// Compares two frames.
pub fn compare(baseline: &Frame, candidate: &Frame, thresholds: &Thresholds) -> PixelComparison {
    let same_size = (baseline.width, baseline.height) == (candidate.width, candidate.height);
    if same_size && baseline.rgba == candidate.rgba {
        return PixelComparison {
            width: baseline.width,
            height: baseline.height,
            identical: true,
            diff_pixels: 0,
            delta_e_pixels: 0,
            size_changed: None,
            boxes: Vec::new(),
            diff_image: Vec::new(),
        };
    }
    let width = baseline.width.max(candidate.width);
    let height = baseline.height.max(candidate.height);
    let (a, b) = (
        baseline.padded(width, height),
        candidate.padded(width, height),
    );
    let options = DiffOptions {
        threshold: thresholds.pixel_threshold,
        include_aa: thresholds.include_aa,
        diff_color: DIFF_RED,
        aa_color: AA_YELLOW,
        merge_distance: thresholds.merge_distance,
        ..DiffOptions::default()
    };
    // Both buffers are width * height * 4 bytes by construction.
    let (mut diff_image, pixelmatch_pixels) =
        match retrace_vision::diff_rgba(&a, &b, width, height, &options) {
            Ok(diff) => (diff.diff_image, diff.diff_pixels),
            Err(_) => (vec![0; a.len()], 0),
        };
    let mut mask = vec![false; width as usize * height as usize];
    let mut delta_e_pixels = 0;
    // Pages repeat colours, so the same pairs come back: each is measured once.
    let mut measured: HashMap<([u8; 3], [u8; 3]), f64> = HashMap::new();
    for (index, flagged) in mask.iter_mut().enumerate() {
        let at = index * 4;
        let drawn = [diff_image[at], diff_image[at + 1], diff_image[at + 2]];
        if drawn == DIFF_RED {
            *flagged = true;
            continue;
        }
        if drawn == AA_YELLOW || a[at..at + 4] == b[at..at + 4] || thresholds.delta_e <= 0.0 {
            continue;
        }
        let (from, to) = ([a[at], a[at + 1], a[at + 2]], [b[at], b[at + 1], b[at + 2]]);
        // Two levels or less on every channel is far below ΔE 5 anywhere in sRGB.
        let step = (0..3).map(|c| from[c].abs_diff(to[c])).max().unwrap_or(0);
        let distance = if step <= 2 {
            0.0
        } else {
            *measured
                .entry((from, to))
                .or_insert_with(|| delta_e(from, to))
        };
        if distance >= thresholds.delta_e || a[at + 3] != b[at + 3] {
            *flagged = true;
            delta_e_pixels += 1;
            diff_image[at..at + 3].copy_from_slice(&DIFF_RED);
        }
    }
    let boxes = cluster(&mask, width, height, thresholds.merge_distance);
    PixelComparison {
        width,
        height,
        identical: false,
        diff_pixels: pixelmatch_pixels + delta_e_pixels,
        delta_e_pixels,
        size_changed: (!same_size).then_some((
            (baseline.width, baseline.height),
            (candidate.width, candidate.height),
        )),
        boxes,
        diff_image,
    }
}

impl PixelComparison {
    /// Whether the differing pixels are above the thresholds.
    pub fn exceeds(&self, thresholds: &Thresholds) -> bool {
        if self.size_changed.is_some() {
            return true;
        }
        let total = (u64::from(self.width) * u64::from(self.height)).max(1);
        let ratio = self.diff_pixels as f64 / total as f64;
        self.diff_pixels > thresholds.max_diff_pixels && ratio > thresholds.max_diff_ratio
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]
    use super::*;

    fn solid(width: u32, height: u32, rgb: [u8; 3]) -> Frame {
        let rgba = (0..width * height)
            .flat_map(|_| [rgb[0], rgb[1], rgb[2], 255])
            .collect();
        Frame {
            width,
            height,
            rgba,
        }
    }

    fn paint(frame: &mut Frame, x0: u32, y0: u32, size: u32, rgb: [u8; 3]) {
        for y in y0..y0 + size {
            for x in x0..x0 + size {
                let at = ((y * frame.width + x) * 4) as usize;
                frame.rgba[at..at + 3].copy_from_slice(&rgb);
            }
        }
    }

    #[test]
    fn the_changed_box_holds_every_differing_pixel() {
        let base = solid(64, 48, [255, 255, 255]);
        assert_eq!(base.changed_box(&base), None);
        let mut changed = base.clone();
        paint(&mut changed, 10, 20, 4, [0, 0, 0]);
        paint(&mut changed, 30, 5, 2, [0, 0, 0]);
        let expected = PixelBox {
            x: 10,
            y: 5,
            width: 22,
            height: 19,
        };
        assert_eq!(base.changed_box(&changed), Some(expected));
        assert_eq!(changed.changed_box(&base), Some(expected));
    }

    #[test]
    fn identical_frames_stop_early_and_a_changed_square_gets_its_box() {
        let thresholds = Thresholds::default();
        let base = solid(64, 48, [255, 255, 255]);
        let same = compare(&base, &base.clone(), &thresholds);
        assert!(same.identical && !same.exceeds(&thresholds));
        let mut changed = base.clone();
        paint(&mut changed, 10, 20, 8, [0x0f, 0x76, 0x6e]);
        let result = compare(&base, &changed, &thresholds);
        assert_eq!(result.diff_pixels, 64);
        assert_eq!(
            result.boxes,
            vec![PixelBox {
                x: 10,
                y: 20,
                width: 8,
                height: 8
            }]
        );
        assert!(result.exceeds(&thresholds));
        let lenient = Thresholds {
            max_diff_pixels: 64,
            ..Thresholds::default()
        };
        assert!(!result.exceeds(&lenient));
    }

    #[test]
    fn the_delta_e_floor_catches_what_yiq_lets_through() {
        // Two greys 4 levels apart: YIQ distance below pixelmatch's 0.1 threshold, ΔE00 ≈ 1.5;
        // a saturated blue step that YIQ underweights.
        let base = solid(16, 16, [0, 0, 200]);
        let mut changed = base.clone();
        paint(&mut changed, 4, 4, 4, [0, 0, 240]);
        let off = Thresholds {
            delta_e: 0.0,
            ..Thresholds::default()
        };
        let without = compare(&base, &changed, &off);
        let with = compare(&base, &changed, &Thresholds::default());
        assert!(
            delta_e([0, 0, 200], [0, 0, 240]) >= 5.0,
            "the test colours must differ by ΔE ≥ 5"
        );
        assert_eq!(without.diff_pixels, 0, "pixelmatch alone misses it");
        assert_eq!(with.diff_pixels, 16);
        assert_eq!(with.delta_e_pixels, 16);
    }

    #[test]
    fn pages_of_different_heights_differ_in_the_extra_band() {
        let base = solid(8, 8, [255, 255, 255]);
        let taller = solid(8, 10, [255, 255, 255]);
        let result = compare(&base, &taller, &Thresholds::default());
        assert_eq!(result.size_changed, Some(((8, 8), (8, 10))));
        assert_eq!(
            result.boxes,
            vec![PixelBox {
                x: 0,
                y: 8,
                width: 8,
                height: 2
            }]
        );
    }
}
