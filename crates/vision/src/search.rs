//! Local search: where did the recorded region go? When a replayed step's region no longer
//! matches its recorded hash, the element has often only moved a little (a banner pushed the
//! page down, a sidebar got wider). [`search_near`] hashes the region around points near the
//! recorded one, coarse to fine, and returns the offset whose hash is closest to the record.

use std::collections::HashMap;

use serde::Serialize;

use crate::error::VisionError;
use crate::gray::GrayImage;
use crate::gray::gray_region;
use crate::hash::ImageHash;
use crate::hash::Method;
use crate::hash::gray_hash;
use crate::hash::thumbnail_hash;
use crate::hash::thumbnail_size;
use crate::horizontal_rows::HorizontalRows;
use crate::image::Image;
use crate::region::Region;
use crate::region::action_region;
use crate::resize::RowSource;
use crate::resize::resize_rows;
use crate::resize::runs_vertical_first;

/// The best match [`search_near`] found.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct SearchHit {
    /// How far the point moved: `(dx, dy)` in pixels.
    pub offset: (i64, i64),
    /// The moved point: the recorded point plus `offset`.
    pub point: (i64, i64),
    /// The region hashed around the moved point.
    pub region: Region,
    /// Hamming distance between that region's hash and the recorded hash.
    pub distance: u32,
}

/// Hashes of regions of one screenshot, converted to grayscale once, with the horizontal
/// resampling passes of each column range computed once and shared by every region that
/// spans those columns (the probes of one column differ only in their rows).
struct Prober<'a> {
    screenshot: &'a Image,
    gray: GrayImage,
    /// Where `gray` sits in the screenshot.
    origin: (u32, u32),
    screen: (u32, u32),
    recorded: &'a ImageHash,
    method: Method,
    hash_size: u32,
    region_size: u32,
    point: (i64, i64),
    evaluated: HashMap<(i64, i64), u32>,
    /// Horizontal passes by (left column in `gray`, width).
    passes: HashMap<(usize, usize), HorizontalRows>,
}

impl Prober<'_> {
    fn probe(&mut self, offset: (i64, i64)) -> Result<u32, VisionError> {
        if let Some(&d) = self.evaluated.get(&offset) {
            return Ok(d);
        }
        let point = (self.point.0 + offset.0, self.point.1 + offset.1);
        let region = action_region(point, self.region_size, self.screen.0, self.screen.1);
        let inside = region.left >= self.origin.0
            && region.top >= self.origin.1
            && region.right <= self.origin.0 + self.gray.width
            && region.bottom <= self.origin.1 + self.gray.height;
        let hash = if inside {
            self.hash_inside(region)
        } else {
            // Only the 1x1 fallback region of a point far off-screen lands here.
            gray_hash(
                &gray_region(self.screenshot, region)?,
                self.method,
                self.hash_size,
            )
        };
        let distance = hash.distance(self.recorded)?;
        self.evaluated.insert(offset, distance);
        Ok(distance)
    }

    /// The hash of `region` (inside `gray`), exactly [`gray_hash`] of its crop.
    fn hash_inside(&mut self, region: Region) -> ImageHash {
        let (w, h) = (region.width() as usize, region.height() as usize);
        let left = (region.left - self.origin.0) as usize;
        let top = (region.top - self.origin.1) as usize;
        let (tw, th) = thumbnail_size(self.method, self.hash_size);
        let src = RowSource {
            data: &self.gray.data,
            stride: self.gray.width as usize,
            left,
            width: w,
        };
        let small = if tw as usize == w || runs_vertical_first(w, h, tw as usize, th as usize) {
            // No horizontal pass to share (none, or it runs after the vertical one).
            let rows = RowSource {
                data: &self.gray.data[top * src.stride..],
                ..src
            };
            resize_rows(rows, h, tw, th)
        } else {
            let rows = self.gray.height as usize;
            self.passes
                .entry((left, w))
                .or_insert_with(|| HorizontalRows::new(w, tw as usize, rows))
                .resize(src, top, h, th as usize)
        };
        thumbnail_hash(&small, self.method, self.hash_size)
    }
}

/// Searches the square of `radius` pixels around `point` for the offset whose region (of
/// `region_size`, clipped as [`action_region`] clips it) hashes closest to `recorded`, with
/// `method` at the recorded hash's size.
///
/// Coarse to fine: a grid with a step of about an eighth of the region, then the best few
/// cells refined by halving the step down to one pixel. Ties go to the smaller offset, so an
/// unmoved screen returns `(0, 0)`. Stops early on a distance of 0.
pub fn search_near(
    screenshot: &Image,
    recorded: &ImageHash,
    method: Method,
    point: (i64, i64),
    region_size: u32,
    radius: u32,
) -> Result<SearchHit, VisionError> {
    let hash_size = (recorded.bits().len() as f64).sqrt() as u32;
    let hash_size = match method {
        // dHash has size * size bits too.
        Method::Phash | Method::Ahash | Method::Dhash => hash_size,
    };
    if hash_size < 2 {
        return Err(VisionError::HashSize(hash_size));
    }
    let (sw, sh) = (screenshot.width(), screenshot.height());
    // Everything any probe can touch, converted to grayscale once.
    let reach = i64::from(radius) + i64::from(region_size / 2);
    let window = Region::new(
        (point.0 - reach).clamp(0, i64::from(sw)) as u32,
        (point.1 - reach).clamp(0, i64::from(sh)) as u32,
        (point.0 + reach + 1).clamp(1, i64::from(sw)) as u32,
        (point.1 + reach + 1).clamp(1, i64::from(sh)) as u32,
    );
    let window = if window.fits(sw, sh) {
        window
    } else {
        Region::full(sw, sh)
    };
    let gray = gray_region(screenshot, window)?;
    let mut prober = Prober {
        screenshot,
        gray,
        origin: (window.left, window.top),
        screen: (sw, sh),
        recorded,
        method,
        hash_size,
        region_size,
        point,
        evaluated: HashMap::new(),
        passes: HashMap::new(),
    };
    let radius = i64::from(radius);
    let better = |a: (u32, (i64, i64)), b: (u32, (i64, i64))| {
        let key = |(d, (x, y)): (u32, (i64, i64))| (d, x * x + y * y, y, x);
        key(a) < key(b)
    };
    let mut best = (prober.probe((0, 0))?, (0, 0));
    if best.0 > 0 && radius > 0 {
        let step = i64::from((region_size / 8).clamp(1, 16)).min(radius.max(1));
        let mut coarse = Vec::new();
        let mut dy = -(radius / step) * step;
        while dy <= radius {
            let mut dx = -(radius / step) * step;
            while dx <= radius {
                coarse.push((prober.probe((dx, dy))?, (dx, dy)));
                dx += step;
            }
            dy += step;
        }
        coarse.sort_by_key(|&(d, (x, y))| (d, x * x + y * y, y, x));
        for &candidate in coarse.iter().take(4) {
            let refined = refine(&mut prober, candidate, step, radius)?;
            if better(refined, best) {
                best = refined;
            }
            if best.0 == 0 {
                break;
            }
        }
    }
    let (distance, offset) = best;
    let moved = (point.0 + offset.0, point.1 + offset.1);
    Ok(SearchHit {
        offset,
        point: moved,
        region: action_region(moved, region_size, sw, sh),
        distance,
    })
}

/// Hill-climbs from `start` with steps halving from `step / 2` down to 1.
fn refine(
    prober: &mut Prober<'_>,
    start: (u32, (i64, i64)),
    step: i64,
    radius: i64,
) -> Result<(u32, (i64, i64)), VisionError> {
    let mut best = start;
    let mut step = step / 2;
    while step >= 1 {
        let mut improved = true;
        while improved {
            improved = false;
            let (bx, by) = best.1;
            for (sx, sy) in [
                (-1, -1),
                (0, -1),
                (1, -1),
                (-1, 0),
                (1, 0),
                (-1, 1),
                (0, 1),
                (1, 1),
            ] {
                let offset = (bx + sx * step, by + sy * step);
                if offset.0.abs() > radius || offset.1.abs() > radius {
                    continue;
                }
                let d = prober.probe(offset)?;
                if d < best.0 {
                    best = (d, offset);
                    improved = true;
                }
            }
            if best.0 == 0 {
                return Ok(best);
            }
        }
        step /= 2;
    }
    Ok(best)
}

#[cfg(test)]
#[path = "search_tests.rs"]
mod tests;
