//! Differing pixels clustered into boxes: pixels closer than the merge distance share a box.
//! The image is cut into cells of that size; flagged cells that touch (8 ways) form one
//! cluster, whose box is the tightest around its pixels; boxes that then overlap are merged.

/// A box in image pixels.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize)]
pub struct PixelBox {
    /// Left edge.
    pub x: u32,
    /// Top edge.
    pub y: u32,
    /// Width.
    pub width: u32,
    /// Height.
    pub height: u32,
}

impl PixelBox {
    /// The protocol's box for this one.
    pub fn to_bounding_box(&self) -> retrace_protocol::BoundingBox {
        retrace_protocol::BoundingBox {
            x: f64::from(self.x),
            y: f64::from(self.y),
            width: f64::from(self.width),
            height: f64::from(self.height),
        }
    }

    /// One past the last column.
    pub fn right(&self) -> u32 {
        self.x + self.width
    }

    /// One past the last row.
    pub fn bottom(&self) -> u32 {
        self.y + self.height
    }

    /// Whether the two share a pixel.
    pub fn overlaps(&self, other: &PixelBox) -> bool {
        self.x < other.right()
            && other.x < self.right()
            && self.y < other.bottom()
            && other.y < self.bottom()
    }

    /// The smallest box holding both.
    pub fn union(&self, other: &PixelBox) -> PixelBox {
        let (x, y) = (self.x.min(other.x), self.y.min(other.y));
        PixelBox {
            x,
            y,
            width: self.right().max(other.right()) - x,
            height: self.bottom().max(other.bottom()) - y,
        }
    }
}

/// Boxes around the `true` pixels of `mask` (`width` x `height`, row-major), pixels closer
/// than `merge_distance` in one box; sorted top to bottom, then left to right.
pub fn cluster(mask: &[bool], width: u32, height: u32, merge_distance: u32) -> Vec<PixelBox> {
    let cell = merge_distance.max(1);
    let (columns, rows) = (width.div_ceil(cell), height.div_ceil(cell));
    // Per cell: the tightest pixel box of its flagged pixels.
    let mut cells: Vec<Option<PixelBox>> = vec![None; (columns * rows) as usize];
    for (index, _) in mask.iter().enumerate().filter(|(_, flagged)| **flagged) {
        let (x, y) = ((index as u32) % width, (index as u32) / width);
        let slot = &mut cells[((y / cell) * columns + x / cell) as usize];
        let pixel = PixelBox {
            x,
            y,
            width: 1,
            height: 1,
        };
        *slot = Some(slot.map_or(pixel, |b| b.union(&pixel)));
    }
    let mut seen = vec![false; cells.len()];
    let mut boxes = Vec::new();
    for start in 0..cells.len() {
        if seen[start] || cells[start].is_none() {
            continue;
        }
        seen[start] = true;
        let mut stack = vec![start];
        let mut found: Option<PixelBox> = None;
        while let Some(at) = stack.pop() {
            if let Some(b) = cells[at] {
                found = Some(found.map_or(b, |f| f.union(&b)));
            }
            let (cx, cy) = ((at as u32) % columns, (at as u32) / columns);
            for ny in cy.saturating_sub(1)..=(cy + 1).min(rows - 1) {
                for nx in cx.saturating_sub(1)..=(cx + 1).min(columns - 1) {
                    let next = (ny * columns + nx) as usize;
                    if !seen[next] && cells[next].is_some() {
                        seen[next] = true;
                        stack.push(next);
                    }
                }
            }
        }
        boxes.extend(found);
    }
    merge_overlapping(boxes)
}

/// Merges boxes that overlap until none do; sorted top to bottom, then left to right.
pub fn merge_overlapping(mut boxes: Vec<PixelBox>) -> Vec<PixelBox> {
    let mut merged = true;
    while merged {
        merged = false;
        'outer: for i in 0..boxes.len() {
            for j in i + 1..boxes.len() {
                if boxes[i].overlaps(&boxes[j]) {
                    let other = boxes.swap_remove(j);
                    boxes[i] = boxes[i].union(&other);
                    merged = true;
                    break 'outer;
                }
            }
        }
    }
    boxes.sort_by_key(|b| (b.y, b.x));
    boxes
}

#[cfg(test)]
mod tests {
    use super::*;

    fn mask_of(width: u32, height: u32, points: &[(u32, u32)]) -> Vec<bool> {
        let mut mask = vec![false; (width * height) as usize];
        for (x, y) in points {
            mask[(y * width + x) as usize] = true;
        }
        mask
    }

    #[test]
    fn near_pixels_share_a_box_and_far_ones_do_not() {
        let mask = mask_of(100, 100, &[(2, 3), (10, 12), (80, 90), (81, 90)]);
        let boxes = cluster(&mask, 100, 100, 16);
        assert_eq!(
            boxes,
            vec![
                PixelBox {
                    x: 2,
                    y: 3,
                    width: 9,
                    height: 10
                },
                PixelBox {
                    x: 80,
                    y: 90,
                    width: 2,
                    height: 1
                },
            ]
        );
        assert!(cluster(&[false; 100], 10, 10, 16).is_empty());
    }
}
