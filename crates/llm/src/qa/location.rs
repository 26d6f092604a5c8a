//! Where an element is on a screenshot: a point, a box and a confidence.

use serde::Deserialize;
use serde::Serialize;

/// A pixel position, from the top-left corner of the screenshot.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Point {
    /// Pixels from the left edge.
    pub x: u32,
    /// Pixels from the top edge.
    pub y: u32,
}

/// A rectangle in pixels; `right` and `bottom` are exclusive.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct BoundingBox {
    /// Left edge.
    pub left: u32,
    /// Top edge.
    pub top: u32,
    /// Right edge.
    pub right: u32,
    /// Bottom edge.
    pub bottom: u32,
}

/// Where an element is.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct ElementLocation {
    /// The point to click (the element's centre, usually).
    pub point: Point,
    /// The element's box.
    pub bbox: BoundingBox,
    /// The model's confidence, 0 to 1.
    pub confidence: f64,
}
