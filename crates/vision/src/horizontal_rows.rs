//! Horizontal resampling passes kept across regions for local search: every region whose
//! columns are the same shares the horizontal pass of each row, so only the vertical pass is
//! redone per region.

use std::sync::Arc;

use crate::gray::GrayImage;
use crate::resize::Coefficients;
use crate::resize::LANES;
use crate::resize::RowSource;
use crate::resize::coefficients;
use crate::resize::horizontal_into;
use crate::resize::vertical_pass;

/// Horizontal passes of one window width over many rows of a source, computed lazily in
/// blocks of [`LANES`] rows and kept: local search resamples regions at many heights of the
/// same columns, and each row's horizontal pass is the same whichever region it belongs to.
pub(crate) struct HorizontalRows {
    coefficients: Arc<Coefficients>,
    out_w: usize,
    /// `rows * out_w` resampled pixels; block `b` is valid when `done[b]`.
    temp: Vec<u8>,
    done: Vec<bool>,
    rows: usize,
}

impl HorizontalRows {
    /// Prepares the passes of `in_w` columns down to `out_w` for `rows` source rows.
    /// `out_w` must differ from `in_w` (Pillow skips a pass that keeps the size).
    pub fn new(in_w: usize, out_w: usize, rows: usize) -> HorizontalRows {
        HorizontalRows {
            coefficients: coefficients(in_w, out_w),
            out_w,
            temp: vec![0; rows * out_w],
            done: vec![false; rows.div_ceil(LANES)],
            rows,
        }
    }

    /// Makes sure rows `rows` of `src` are resampled (`src.width` must be the `in_w` given
    /// to [`HorizontalRows::new`]).
    fn ensure(&mut self, src: RowSource<'_>, rows: std::ops::Range<usize>) {
        let first = rows.start / LANES;
        let last = rows.end.div_ceil(LANES);
        for block in first..last {
            if self.done[block] {
                continue;
            }
            let block_rows: Vec<usize> =
                (block * LANES..((block + 1) * LANES).min(self.rows)).collect();
            let (first, end) = (block_rows[0], block_rows[block_rows.len() - 1] + 1);
            let out = &mut self.temp[first * self.out_w..end * self.out_w];
            horizontal_into(src, &self.coefficients, self.out_w, &block_rows, out);
            self.done[block] = true;
        }
    }

    /// The LANCZOS resize to `out_w` x `out_h` of source rows `top..top + in_h`: exactly
    /// [`resize_lanczos`] of that region, with the horizontal passes reused.
    pub fn resize(
        &mut self,
        src: RowSource<'_>,
        top: usize,
        in_h: usize,
        out_h: usize,
    ) -> GrayImage {
        let out_w = self.out_w;
        if in_h == out_h {
            self.ensure(src, top..top + in_h);
            return GrayImage {
                width: out_w as u32,
                height: out_h as u32,
                data: self.temp[top * out_w..(top + in_h) * out_w].to_vec(),
            };
        }
        let vertical = coefficients(in_h, out_h);
        let first_row = vertical.bounds.first().map_or(0, |b| b.0);
        let last_row = vertical.bounds.last().map_or(in_h, |b| b.0 + b.1);
        self.ensure(src, top + first_row..top + last_row);
        let temp = &self.temp[(top + first_row) * out_w..(top + last_row) * out_w];
        let out = vertical_pass(temp, out_w, first_row, &vertical, out_h);
        GrayImage {
            width: out_w as u32,
            height: out_h as u32,
            data: out,
        }
    }
}
