//! Changed areas: bounding boxes of clusters of differing pixels, merged when close.
//!
//! Differing pixels are binned into square cells of `merge_distance` pixels, remembering the
//! exact pixel bounds in each cell. Occupied cells that touch (8-connectivity) form one area;
//! areas whose boxes are then closer than `merge_distance` are merged until none are.

use crate::region::Region;

/// Collects differing pixels and turns them into changed areas.
#[derive(Debug)]
pub struct AreaCollector {
    cell: u32,
    cols: usize,
    rows: usize,
    /// Per cell: exact pixel bounds `(left, top, right, bottom)` (exclusive), or `None`.
    cells: Vec<Option<(u32, u32, u32, u32)>>,
}

impl AreaCollector {
    /// A collector for a `width` x `height` image; `merge_distance` 0 is treated as 1.
    pub fn new(width: u32, height: u32, merge_distance: u32) -> AreaCollector {
        let cell = merge_distance.max(1);
        let cols = width.div_ceil(cell) as usize;
        let rows = height.div_ceil(cell) as usize;
        AreaCollector {
            cell,
            cols,
            rows,
            cells: vec![None; cols * rows],
        }
    }

    /// Records one differing pixel.
    #[inline]
    pub fn add(&mut self, x: u32, y: u32) {
        let index = (y / self.cell) as usize * self.cols + (x / self.cell) as usize;
        if let Some(slot) = self.cells.get_mut(index) {
            *slot = Some(match *slot {
                None => (x, y, x + 1, y + 1),
                Some((l, t, r, b)) => (l.min(x), t.min(y), r.max(x + 1), b.max(y + 1)),
            });
        }
    }

    /// The merged bounding boxes, sorted by top, then left.
    pub fn finish(self) -> Vec<Region> {
        let mut seen = vec![false; self.cells.len()];
        let mut boxes = Vec::new();
        let mut stack = Vec::new();
        for start in 0..self.cells.len() {
            if seen[start] || self.cells[start].is_none() {
                continue;
            }
            seen[start] = true;
            stack.push(start);
            let mut bounds: Option<(u32, u32, u32, u32)> = None;
            while let Some(index) = stack.pop() {
                if let Some(c) = self.cells[index] {
                    bounds = Some(union(bounds, c));
                }
                let (cx, cy) = (index % self.cols, index / self.cols);
                for ny in cy.saturating_sub(1)..=(cy + 1).min(self.rows - 1) {
                    for nx in cx.saturating_sub(1)..=(cx + 1).min(self.cols - 1) {
                        let n = ny * self.cols + nx;
                        if !seen[n] && self.cells[n].is_some() {
                            seen[n] = true;
                            stack.push(n);
                        }
                    }
                }
            }
            if let Some(b) = bounds {
                boxes.push(b);
            }
        }
        merge_close(&mut boxes, self.cell);
        let mut regions: Vec<Region> = boxes
            .into_iter()
            .map(|(l, t, r, b)| Region::new(l, t, r, b))
            .collect();
        regions.sort_by_key(|r| (r.top, r.left));
        regions
    }
}

fn union(a: Option<(u32, u32, u32, u32)>, b: (u32, u32, u32, u32)) -> (u32, u32, u32, u32) {
    match a {
        None => b,
        Some(a) => (a.0.min(b.0), a.1.min(b.1), a.2.max(b.2), a.3.max(b.3)),
    }
}

/// The gap between two boxes along one axis (0 when they overlap).
fn gap(a0: u32, a1: u32, b0: u32, b1: u32) -> u32 {
    if a1 <= b0 {
        b0 - a1
    } else {
        a0.saturating_sub(b1)
    }
}

fn merge_close(boxes: &mut Vec<(u32, u32, u32, u32)>, distance: u32) {
    let mut merged = true;
    while merged {
        merged = false;
        'outer: for i in 0..boxes.len() {
            for j in i + 1..boxes.len() {
                let (a, b) = (boxes[i], boxes[j]);
                if gap(a.0, a.2, b.0, b.2) < distance && gap(a.1, a.3, b.1, b.3) < distance {
                    boxes[i] = union(Some(a), b);
                    boxes.swap_remove(j);
                    merged = true;
                    break 'outer;
                }
            }
        }
    }
}
