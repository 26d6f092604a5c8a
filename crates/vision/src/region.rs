//! The regions around action points, by askui's rules: which square of the screen is hashed
//! to check that the screen still looks as recorded. Where a tool input points is read by
//! `retrace_protocol::tool_input::action_point`.

use std::fmt;

use serde::Deserialize;
use serde::Serialize;

/// A rectangle of pixels: `left` and `top` inclusive, `right` and `bottom` exclusive (the
/// Pillow crop box convention).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Region {
    /// First column.
    pub left: u32,
    /// First row.
    pub top: u32,
    /// One past the last column.
    pub right: u32,
    /// One past the last row.
    pub bottom: u32,
}

impl Region {
    /// A region from its four edges.
    pub fn new(left: u32, top: u32, right: u32, bottom: u32) -> Region {
        Region {
            left,
            top,
            right,
            bottom,
        }
    }

    /// The whole of a `width` x `height` image.
    pub fn full(width: u32, height: u32) -> Region {
        Region::new(0, 0, width, height)
    }

    /// Width in pixels (0 when empty).
    pub fn width(&self) -> u32 {
        self.right.saturating_sub(self.left)
    }

    /// Height in pixels (0 when empty).
    pub fn height(&self) -> u32 {
        self.bottom.saturating_sub(self.top)
    }

    /// Whether the region holds no pixel.
    pub fn is_empty(&self) -> bool {
        self.width() == 0 || self.height() == 0
    }

    /// Whether the region is non-empty and lies inside a `width` x `height` image.
    pub fn fits(&self, width: u32, height: u32) -> bool {
        !self.is_empty() && self.right <= width && self.bottom <= height
    }

    /// The smallest region holding both.
    pub fn union(&self, other: Region) -> Region {
        Region::new(
            self.left.min(other.left),
            self.top.min(other.top),
            self.right.max(other.right),
            self.bottom.max(other.bottom),
        )
    }

    /// Whether every pixel of `other` lies in this region.
    pub fn contains(&self, other: Region) -> bool {
        self.left <= other.left
            && self.top <= other.top
            && other.right <= self.right
            && other.bottom <= self.bottom
    }
}

impl fmt::Display for Region {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "({}, {}, {}, {})",
            self.left, self.top, self.right, self.bottom
        )
    }
}

/// The square region of `region_size` centred on `point`, clipped to a `width` x `height`
/// image, as askui crops it: `(max(0, x-r//2), max(0, y-r//2), min(w, x+r//2), min(h, y+r//2))`.
/// A region that ends up empty (a point far outside the image) becomes the 1x1 region at
/// (0, 0), so the result always lies inside the image and holds at least one pixel.
pub fn action_region(point: (i64, i64), region_size: u32, width: u32, height: u32) -> Region {
    let half = i64::from(region_size / 2);
    let (x, y) = point;
    let (w, h) = (i64::from(width), i64::from(height));
    let left = x.saturating_sub(half).clamp(0, w);
    let top = y.saturating_sub(half).clamp(0, h);
    let right = x.saturating_add(half).clamp(0, w);
    let bottom = y.saturating_add(half).clamp(0, h);
    if right <= left || bottom <= top {
        return Region::new(0, 0, 1.min(width), 1.min(height));
    }
    // All four values are clamped into 0..=u32::MAX above.
    Region::new(left as u32, top as u32, right as u32, bottom as u32)
}

#[cfg(test)]
#[path = "region_tests.rs"]
mod tests;
