//! Pillow's LANCZOS resize of an 8-bit `L` image, reproduced exactly (`libImaging/Resample.c`):
//! double-precision filter weights normalised per output pixel and quantised to 22-bit fixed
//! point, a horizontal pass over only the rows the vertical pass needs, then a vertical pass
//! (or, as Pillow 13 does when the height shrinks much more than the width, the vertical pass
//! over every column first, then the horizontal pass; see [`runs_vertical_first`]);
//! each sum starts at `1 << 21`, is shifted right by 22 and clamped to 0..=255. A pass whose
//! size does not change is skipped, as Pillow skips it.

use crate::cpu::has_avx2;
use crate::gray::GrayImage;

#[path = "resize_coefficients.rs"]
mod coefficient_table;
pub(crate) use coefficient_table::*;

#[inline(always)]
fn clip8(sum: i32) -> u8 {
    (sum >> PRECISION_BITS).clamp(0, 255) as u8
}

/// Rows resampled together: the horizontal pass works on 8 rows at once so that each
/// multiply-add is one vector operation across the rows.
pub(crate) const LANES: usize = 8;

/// A window of an 8-bit grayscale buffer: `width` columns starting at column `left` of rows
/// `stride` bytes long. The horizontal pass reads its rows through this view, so a region of
/// a larger image is resampled without copying it out first.
#[derive(Debug, Clone, Copy)]
pub(crate) struct RowSource<'a> {
    /// The whole buffer, row-major.
    pub data: &'a [u8],
    /// Bytes per row of `data`.
    pub stride: usize,
    /// First column of the window.
    pub left: usize,
    /// Columns in the window.
    pub width: usize,
}

impl<'a> RowSource<'a> {
    /// The whole of `image`.
    pub fn of(image: &'a GrayImage) -> RowSource<'a> {
        RowSource {
            data: &image.data,
            stride: image.width as usize,
            left: 0,
            width: image.width as usize,
        }
    }

    #[inline(always)]
    fn row(&self, y: usize) -> &'a [u8] {
        &self.data[y * self.stride + self.left..][..self.width]
    }
}

/// The horizontal pass over source rows `rows`, giving `rows.len()` rows of `out_w` pixels.
///
/// A row equal to the row above resamples to the same pixels, and screenshots repeat many
/// rows (blank margins, the inside of boxes), so only the first row of each run of equal
/// rows is computed and the others are copied.
pub(crate) fn horizontal_pass(
    src: RowSource<'_>,
    coefficients: &Coefficients,
    out_w: usize,
    rows: std::ops::Range<usize>,
) -> Vec<u8> {
    let distinct: Vec<usize> = rows
        .clone()
        .filter(|&y| y == rows.start || src.row(y) != src.row(y - 1))
        .collect();
    let computed = horizontal_rows(src, coefficients, out_w, &distinct);
    if distinct.len() == rows.len() {
        return computed;
    }
    let mut out = Vec::with_capacity(rows.len() * out_w);
    let mut next = distinct.iter().zip(computed.chunks_exact(out_w)).peekable();
    for y in rows {
        match next.next_if(|(d, _)| **d == y) {
            Some((_, row)) => out.extend_from_slice(row),
            // Not the first row, so there is a previous output row to repeat.
            None => out.extend_from_within(out.len() - out_w..),
        }
    }
    out
}

/// The horizontal pass of the source rows listed in `rows`, one output row each.
fn horizontal_rows(
    src: RowSource<'_>,
    coefficients: &Coefficients,
    out_w: usize,
    rows: &[usize],
) -> Vec<u8> {
    let pass = |rows: &[usize]| {
        let mut temp = vec![0u8; out_w * rows.len()];
        horizontal_into(src, coefficients, out_w, rows, &mut temp);
        temp
    };
    // A whole screenshot is millions of multiply-adds: split the rows over two threads
    // (rows are independent, so the result is the same).
    let work = rows.len() * out_w * coefficients.ksize;
    if work < PARALLEL_WORK || rows.len() < 2 * LANES {
        return pass(rows);
    }
    let (first_rows, second_rows) = rows.split_at(rows.len() / 2);
    let (first, second) = std::thread::scope(|scope| {
        let second = scope.spawn(|| pass(second_rows));
        (pass(first_rows), second.join())
    });
    let mut all = first;
    match second {
        Ok(mut second) => all.append(&mut second),
        // The worker cannot panic on valid bounds; if it did, do its half here.
        Err(_) => all.append(&mut pass(second_rows)),
    }
    all
}

/// The horizontal pass of the source rows listed in `rows` into `temp`
/// (`rows.len() * out_w` bytes).
pub(crate) fn horizontal_into(
    src: RowSource<'_>,
    coefficients: &Coefficients,
    out_w: usize,
    rows: &[usize],
    temp: &mut [u8],
) {
    #[cfg(target_arch = "x86_64")]
    {
        #[target_feature(enable = "avx2")]
        fn with_avx2(
            src: RowSource<'_>,
            coefficients: &Coefficients,
            out_w: usize,
            rows: &[usize],
            temp: &mut [u8],
        ) {
            if coefficients.split_ok {
                // Safe to call: this function has AVX2 enabled too.
                horizontal_pass_split(src, coefficients, out_w, rows, temp);
            } else {
                horizontal_pass_i32(src, coefficients, out_w, rows, temp);
            }
        }
        if has_avx2() {
            #[allow(unsafe_code)]
            // SAFETY: `with_avx2` only requires the AVX2 target feature, which the CPU was
            // found to support on the line above. The body is safe Rust (bar the vector
            // loads of `horizontal_pass_split`, each checked there).
            return unsafe { with_avx2(src, coefficients, out_w, rows, temp) };
        }
    }
    // Without AVX2 there is no 32-bit vector multiply: use the split `f32` sums when exact.
    if coefficients.exact_f32 {
        horizontal_pass_f32(src, coefficients, out_w, rows, temp);
    } else {
        horizontal_pass_i32(src, coefficients, out_w, rows, temp);
    }
}

/// Multiply-adds above which the horizontal pass uses a second thread.
const PARALLEL_WORK: usize = 1 << 21;

/// Pillow's loop as written: one `i32` dot product per output pixel, over the zero-padded
/// taps (the added terms are zero, and wrapping sums do not depend on order, so the sum is
/// Pillow's). Short kernels get a fixed length, so the compiler unrolls them into whole
/// vectors.
#[inline(always)]
fn horizontal_pass_i32(
    src: RowSource<'_>,
    coefficients: &Coefficients,
    out_w: usize,
    rows: &[usize],
    temp: &mut [u8],
) {
    match coefficients.padded {
        8 => horizontal_pass_n::<8>(src, coefficients, out_w, rows, temp),
        16 => horizontal_pass_n::<16>(src, coefficients, out_w, rows, temp),
        24 => horizontal_pass_n::<24>(src, coefficients, out_w, rows, temp),
        32 => horizontal_pass_n::<32>(src, coefficients, out_w, rows, temp),
        _ => horizontal_pass_n::<0>(src, coefficients, out_w, rows, temp),
    }
}

/// [`horizontal_pass_i32`] with `N` taps per output pixel (`0`: `coefficients.padded`).
#[inline(always)]
fn horizontal_pass_n<const N: usize>(
    src: RowSource<'_>,
    coefficients: &Coefficients,
    out_w: usize,
    rows: &[usize],
    temp: &mut [u8],
) {
    let padded = coefficients.padded;
    // The row, then zeros: a padded window never reads past the end.
    let mut line = vec![0u8; src.width + padded];
    for (out_row, &y) in temp.chunks_exact_mut(out_w).zip(rows) {
        line[..src.width].copy_from_slice(src.row(y));
        for ((out, &(xmin, _)), k) in out_row
            .iter_mut()
            .zip(&coefficients.bounds)
            .zip(coefficients.padded_weights.chunks_exact(padded))
        {
            let pixels = &line[xmin..][..padded];
            let sum = if N == 0 {
                dot(pixels, k)
            } else {
                match (<&[u8; N]>::try_from(pixels), <&[i32; N]>::try_from(k)) {
                    (Ok(p), Ok(w)) => dot_n(p, w),
                    _ => dot(pixels, k),
                }
            };
            *out = clip8(sum.wrapping_add(1 << (PRECISION_BITS - 1)));
        }
    }
}

/// The horizontal pass on the `i16` split weights with AVX2: per output pixel, sixteen taps
/// per `vpmaddwd` for each half, the halves recombined lane by lane, then one horizontal sum.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
fn horizontal_pass_split(
    src: RowSource<'_>,
    coefficients: &Coefficients,
    out_w: usize,
    rows: &[usize],
    temp: &mut [u8],
) {
    use std::arch::x86_64::*;
    /// Sixteen `i16` as one vector.
    #[inline(always)]
    fn load(values: &[i16; 16]) -> __m256i {
        #[allow(unsafe_code)]
        // SAFETY: `values` is 16 `i16`, 32 readable bytes; `loadu` needs no alignment, and
        // AVX2 is enabled in the only function that calls this one.
        unsafe {
            _mm256_loadu_si256(values.as_ptr().cast())
        }
    }
    let taps = coefficients.split_taps;
    // The row widened to `i16`, then zeros: a padded window never reads past the end.
    let mut line = vec![0i16; src.width + taps];
    for (out_row, &y) in temp.chunks_exact_mut(out_w).zip(rows) {
        for (l, &p) in line.iter_mut().zip(src.row(y)) {
            *l = i16::from(p);
        }
        for ((out, &(xmin, _)), (high, low)) in out_row.iter_mut().zip(&coefficients.bounds).zip(
            coefficients
                .split_high
                .chunks_exact(taps)
                .zip(coefficients.split_low.chunks_exact(taps)),
        ) {
            let pixels = &line[xmin..][..taps];
            let (mut sum_high, mut sum_low) = (_mm256_setzero_si256(), _mm256_setzero_si256());
            // `taps` is a multiple of 16: no remainders.
            for ((p, h), l) in pixels
                .as_chunks::<16>()
                .0
                .iter()
                .zip(high.as_chunks::<16>().0)
                .zip(low.as_chunks::<16>().0)
            {
                let p = load(p);
                sum_high = _mm256_add_epi32(sum_high, _mm256_madd_epi16(p, load(h)));
                sum_low = _mm256_add_epi32(sum_low, _mm256_madd_epi16(p, load(l)));
            }
            let sum = _mm256_add_epi32(
                _mm256_slli_epi32::<{ SPLIT16_BITS as i32 }>(sum_high),
                sum_low,
            );
            let sum = _mm_add_epi32(
                _mm256_castsi256_si128(sum),
                _mm256_extracti128_si256::<1>(sum),
            );
            let sum = _mm_add_epi32(sum, _mm_shuffle_epi32::<0b01_00_11_10>(sum));
            let sum = _mm_add_epi32(sum, _mm_shuffle_epi32::<0b10_11_00_01>(sum));
            *out = clip8(_mm_cvtsi128_si32(sum).wrapping_add(1 << (PRECISION_BITS - 1)));
        }
    }
}

/// The wrapping sum of `pixels[i] * weights[i]`.
#[inline(always)]
fn dot(pixels: &[u8], weights: &[i32]) -> i32 {
    pixels.iter().zip(weights).fold(0i32, |s, (&p, &w)| {
        s.wrapping_add(i32::from(p).wrapping_mul(w))
    })
}

/// [`dot`] of a fixed length, eight lanes at a time.
#[inline(always)]
fn dot_n<const N: usize>(pixels: &[u8; N], weights: &[i32; N]) -> i32 {
    let mut acc = [0i32; 8];
    for (p, w) in pixels.chunks_exact(8).zip(weights.chunks_exact(8)) {
        for lane in 0..8 {
            acc[lane] = acc[lane].wrapping_add(i32::from(p[lane]).wrapping_mul(w[lane]));
        }
    }
    acc.iter().fold(0i32, |s, &a| s.wrapping_add(a))
}

/// The same sums on split weights in `f32`, eight rows at a time (one vector per tap).
#[inline(always)]
fn horizontal_pass_f32(
    src: RowSource<'_>,
    coefficients: &Coefficients,
    out_w: usize,
    rows: &[usize],
    temp: &mut [u8],
) {
    let in_w = src.width;
    let ksize = coefficients.ksize;
    // Column-interleaved block: `block[x][lane]` is pixel x of row `start + lane`.
    let mut block = vec![[0f32; LANES]; in_w];
    for (block_index, block_rows) in rows.chunks(LANES).enumerate() {
        let lanes = block_rows.len();
        for lane in 0..LANES {
            let row = src.row(block_rows[lane.min(lanes - 1)]);
            for (column, &p) in block.iter_mut().zip(row) {
                column[lane] = f32::from(p);
            }
        }
        let out = &mut temp[block_index * LANES * out_w..][..lanes * out_w];
        for xx in 0..out_w {
            let (xmin, count) = coefficients.bounds[xx];
            let high = &coefficients.high[xx * ksize..][..count];
            let low = &coefficients.low[xx * ksize..][..count];
            let mut sum_high = [0f32; LANES];
            let mut sum_low = [0f32; LANES];
            for ((column, &wh), &wl) in block[xmin..xmin + count].iter().zip(high).zip(low) {
                for lane in 0..LANES {
                    sum_high[lane] += column[lane] * wh;
                    sum_low[lane] += column[lane] * wl;
                }
            }
            for lane in 0..lanes {
                out[lane * out_w + xx] = clip8(combine(sum_high[lane], sum_low[lane]));
            }
        }
    }
}

/// The vertical pass: output row `yy` from rows of `temp` (`temp_w` wide, starting at source
/// row `row_offset`).
pub(crate) fn vertical_pass(
    temp: &[u8],
    temp_w: usize,
    row_offset: usize,
    coefficients: &Coefficients,
    out_h: usize,
) -> Vec<u8> {
    #[cfg(target_arch = "x86_64")]
    {
        #[target_feature(enable = "avx2")]
        fn with_avx2(
            temp: &[u8],
            temp_w: usize,
            row_offset: usize,
            coefficients: &Coefficients,
            out_h: usize,
        ) -> Vec<u8> {
            vertical_pass_i32(temp, temp_w, row_offset, coefficients, out_h)
        }
        if has_avx2() {
            #[allow(unsafe_code)]
            // SAFETY: `with_avx2` only requires the AVX2 target feature, which the CPU was
            // found to support on the line above. The body is safe Rust.
            return unsafe { with_avx2(temp, temp_w, row_offset, coefficients, out_h) };
        }
    }
    vertical_pass_body(temp, temp_w, row_offset, coefficients, out_h)
}

/// Columns the integer vertical pass sums side by side (in registers, across all taps).
const COLUMNS: usize = 16;

/// Pillow's vertical loop, [`COLUMNS`] output pixels at a time so that the sums stay in
/// registers while the taps go by.
#[inline(always)]
fn vertical_pass_i32(
    temp: &[u8],
    temp_w: usize,
    row_offset: usize,
    coefficients: &Coefficients,
    out_h: usize,
) -> Vec<u8> {
    let ksize = coefficients.ksize;
    let mut out = vec![0u8; temp_w * out_h];
    for (yy, out_row) in out.chunks_exact_mut(temp_w).enumerate() {
        let (ymin, count) = coefficients.bounds[yy];
        let rows = &temp[(ymin - row_offset) * temp_w..][..count * temp_w];
        let k = &coefficients.weights[yy * ksize..][..count];
        let mut x = 0;
        while x + COLUMNS <= temp_w {
            let mut acc = [1i32 << (PRECISION_BITS - 1); COLUMNS];
            for (row, &w) in rows.chunks_exact(temp_w).zip(k) {
                let p = &row[x..x + COLUMNS];
                for lane in 0..COLUMNS {
                    acc[lane] = acc[lane].wrapping_add(i32::from(p[lane]).wrapping_mul(w));
                }
            }
            for (o, &a) in out_row[x..x + COLUMNS].iter_mut().zip(&acc) {
                *o = clip8(a);
            }
            x += COLUMNS;
        }
        for (column, o) in out_row.iter_mut().enumerate().skip(x) {
            let mut sum = 1i32 << (PRECISION_BITS - 1);
            for (row, &w) in rows.chunks_exact(temp_w).zip(k) {
                sum = sum.wrapping_add(i32::from(row[column]).wrapping_mul(w));
            }
            *o = clip8(sum);
        }
    }
    out
}

/// The vertical pass for CPUs without AVX2: split `f32` sums when exact, else integers.
fn vertical_pass_body(
    temp: &[u8],
    temp_w: usize,
    row_offset: usize,
    coefficients: &Coefficients,
    out_h: usize,
) -> Vec<u8> {
    if !coefficients.exact_f32 {
        return vertical_pass_i32(temp, temp_w, row_offset, coefficients, out_h);
    }
    let ksize = coefficients.ksize;
    let mut out = vec![0u8; temp_w * out_h];
    // Each row feeds several output rows: convert it to `f32` once, not once per use.
    let temp: Vec<f32> = temp.iter().map(|&p| f32::from(p)).collect();
    let mut sum_high = vec![0f32; temp_w];
    let mut sum_low = vec![0f32; temp_w];
    for (yy, out_row) in out.chunks_exact_mut(temp_w).enumerate() {
        let (ymin, count) = coefficients.bounds[yy];
        let ymin = ymin - row_offset;
        let high = &coefficients.high[yy * ksize..][..count];
        let low = &coefficients.low[yy * ksize..][..count];
        sum_high.fill(0.0);
        sum_low.fill(0.0);
        for (y, (&wh, &wl)) in high.iter().zip(low).enumerate() {
            let row = &temp[(ymin + y) * temp_w..][..temp_w];
            for ((sh, sl), &p) in sum_high.iter_mut().zip(sum_low.iter_mut()).zip(row) {
                *sh += p * wh;
                *sl += p * wl;
            }
        }
        for ((o, &sh), &sl) in out_row.iter_mut().zip(&sum_high).zip(&sum_low) {
            *o = clip8(combine(sh, sl));
        }
    }
    out
}

/// Whether Pillow (13) resizes `in_w` x `in_h` to `out_w` x `out_h` with the vertical pass
/// first: when the height shrinks by more than twice as many pixels as the width does
/// (`ImagingResampleInner`'s `horizontal_first` test). Both passes round to 8 bits, so the
/// order changes the pixels.
pub(crate) fn runs_vertical_first(in_w: usize, in_h: usize, out_w: usize, out_h: usize) -> bool {
    let shrink_h = in_h as i64 - out_h as i64;
    let shrink_w = in_w as i64 - out_w as i64;
    shrink_h > 0 && shrink_h > shrink_w * 2
}

/// Resizes `src` to `out_width` x `out_height` exactly as Pillow's
/// `image.resize((out_width, out_height), Image.LANCZOS)` does for an `L` image.
/// Both output sizes must be at least 1; `src` must not be empty.
pub fn resize_lanczos(src: &GrayImage, out_width: u32, out_height: u32) -> GrayImage {
    resize_rows(
        RowSource::of(src),
        src.height as usize,
        out_width,
        out_height,
    )
}

/// [`resize_lanczos`] of the `src.width` x `in_h` window `src` (rows `0..in_h`).
pub(crate) fn resize_rows(
    src: RowSource<'_>,
    in_h: usize,
    out_width: u32,
    out_height: u32,
) -> GrayImage {
    let in_w = src.width;
    let (out_w, out_h) = (out_width as usize, out_height as usize);
    let need_horizontal = out_w != in_w;
    let need_vertical = out_h != in_h;
    if !need_horizontal && !need_vertical {
        let mut data = Vec::with_capacity(in_w * in_h);
        for y in 0..in_h {
            data.extend_from_slice(src.row(y));
        }
        return GrayImage {
            width: out_width,
            height: out_height,
            data,
        };
    }
    let vertical = coefficients(in_h, out_h);
    if need_horizontal && need_vertical && runs_vertical_first(in_w, in_h, out_w, out_h) {
        let mut window = Vec::with_capacity(in_w * in_h);
        for y in 0..in_h {
            window.extend_from_slice(src.row(y));
        }
        let temp = GrayImage {
            width: in_w as u32,
            height: out_height,
            data: vertical_pass(&window, in_w, 0, &vertical, out_h),
        };
        let horizontal = coefficients(in_w, out_w);
        return GrayImage {
            width: out_width,
            height: out_height,
            data: horizontal_pass(RowSource::of(&temp), &horizontal, out_w, 0..out_h),
        };
    }
    // Rows of the source the vertical pass reads.
    let first_row = vertical.bounds.first().map_or(0, |b| b.0);
    let last_row = vertical.bounds.last().map_or(in_h, |b| b.0 + b.1);

    let (temp, temp_w, row_offset) = if need_horizontal {
        let horizontal = coefficients(in_w, out_w);
        let temp = horizontal_pass(src, &horizontal, out_w, first_row..last_row);
        (temp, out_w, first_row)
    } else {
        let mut temp = Vec::with_capacity(in_w * in_h);
        for y in 0..in_h {
            temp.extend_from_slice(src.row(y));
        }
        (temp, in_w, 0)
    };
    if !need_vertical {
        return GrayImage {
            width: out_width,
            height: out_height,
            data: temp,
        };
    }
    let out = vertical_pass(&temp, temp_w, row_offset, &vertical, out_h);
    GrayImage {
        width: temp_w as u32,
        height: out_height,
        data: out,
    }
}

#[cfg(test)]
#[path = "resize_tests.rs"]
mod tests;
