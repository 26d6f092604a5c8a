//! Undoing the PNG Paeth filter on 3- and 4-byte pixels with a short dependency chain.
//!
//! Each unfiltered pixel is the filtered one plus a predictor chosen from its left neighbour
//! `a` (itself just unfiltered), the pixel above `b` and the one above-left `c`, so a row is a
//! chain of dependent pixels, and the chain's latency is the cost (about 1.3 ms of a
//! 1280x800 screenshot's decode in the straightforward code; about 0.6 ms here). Written in terms of `a`, the
//! choice only compares `a` with thresholds that depend on `b` and `c` alone:
//!
//! - the predictor is `a` exactly when `a <= lo` or `a >= hi`, with `lo`/`hi` the smaller and
//!   larger of `b` and `3c - 2b`;
//! - otherwise it is `b` when `a` is at least as close to `b` as to `3c - 2b` (`2a >= 3c - b`
//!   when `b > c`, `2a <= 3c - b` when `b < c`), and `c` otherwise.
//!
//! So [`Paeth::unfilter`] first computes, for many pixels at once (vectorised), the
//! thresholds and the two candidate outputs `filtered + b` and `filtered + c`; the per-pixel
//! chain is then two compares, an `or` and two blends on one vector holding the pixel's
//! samples. The result is bit for bit the predictor of the PNG specification (an exhaustive
//! test checks every `a`, `b`, `c`).
//!
//! Most of a screenshot is flat, and there a Paeth row mostly has `b == c` (the row above is
//! flat) and a filtered value of 0, where the predictor is `a` and the pixel simply repeats
//! its left neighbour (about 85% of the Paeth pixels of the shared screenshots). The row is
//! therefore done in blocks of [`BLOCK_PIXELS`] pixels: a block where that holds throughout
//! is filled with the left pixel, with no chain at all; only the others get tables and the
//! chain.

/// Scratch tables for [`Paeth::unfilter`], kept between rows so that a row allocates nothing.
#[derive(Debug, Default)]
pub(crate) struct Paeth {
    /// [`TABLES`] tables of `i16`, one after the other, each [`STRIDE`] long.
    tables: Vec<i16>,
}

/// The tables, in order: filtered sample, `filtered + b`, `filtered + c` (both modulo 256),
/// "`a` chooses itself when above", "... when below", "`a` chooses `b` when above",
/// "... when below".
const TABLES: usize = 7;

/// Pixels per block: a block is either filled with its left neighbour at once (when flat) or
/// done with tables and the chain.
const BLOCK_PIXELS: usize = 32;

/// Length of each table: a block of 4-byte pixels and one spare lane (a 3-byte pixel is read
/// as 4 lanes).
const STRIDE: usize = BLOCK_PIXELS * 4 + 1;

impl Paeth {
    /// Undoes the Paeth filter of `row` (8-bit samples, `bpp` bytes per pixel) in place,
    /// given the unfiltered row above. Returns `false`, leaving `row` as it is, when this
    /// way is not available (no AVX2, or `bpp` not 3 or 4): the caller then does it itself.
    pub fn unfilter(&mut self, bpp: usize, previous: &[u8], row: &mut [u8]) -> bool {
        if !(bpp == 3 || bpp == 4) || !crate::cpu::has_avx2() || previous.len() < row.len() {
            return false;
        }
        self.tables.resize(TABLES * STRIDE, 0);
        #[cfg(target_arch = "x86_64")]
        {
            let previous = &previous[..row.len()];
            #[allow(unsafe_code)]
            // SAFETY: `unfilter_avx2` only requires AVX2, which `has_avx2` found above.
            unsafe {
                match bpp {
                    3 => unfilter_avx2::<3>(&mut self.tables, previous, row),
                    _ => unfilter_avx2::<4>(&mut self.tables, previous, row),
                }
            }
        }
        true
    }
}

/// The thresholds and candidate outputs of one sample, from the samples above (`b`) and
/// above-left (`c`) and the filtered sample `f`: `[f, (f + b) % 256, (f + c) % 256, a_above,
/// a_below, b_above, b_below]`, where the predictor is `a` when `a > a_above` or
/// `a < a_below`, else `b` when `a > b_above` or `a < b_below`, else `c`.
#[cfg_attr(not(target_arch = "x86_64"), allow(dead_code))]
#[inline(always)]
fn thresholds(b: i16, c: i16, f: i16) -> [i16; TABLES] {
    let v = b - c;
    let far = 3 * c - 2 * b;
    let (lo, hi) = (b.min(far), b.max(far));
    let mid = 3 * c - b;
    // `v > 0`: `b` when `2a >= mid`, i.e. `a >= ceil(mid / 2)`; `v < 0`: when
    // `a <= floor(mid / 2)`; `v == 0`: `a` always wins, so neither.
    let b_above = if v > 0 {
        ((mid + 1) >> 1) - 1
    } else {
        i16::MAX
    };
    let b_below = if v < 0 { (mid >> 1) + 1 } else { i16::MIN };
    [
        f,
        (f + b) & 0xff,
        (f + c) & 0xff,
        hi - 1,
        lo + 1,
        b_above,
        b_below,
    ]
}

/// Fills the [`TABLES`] tables (each [`STRIDE`] long, one after the other) with the
/// [`thresholds`] of samples `start..start + len` of a row (`start` is 0 or at least `bpp`).
#[cfg_attr(not(target_arch = "x86_64"), allow(dead_code))]
#[inline(always)]
fn fill_tables(
    bpp: usize,
    previous: &[u8],
    row: &[u8],
    start: usize,
    len: usize,
    tables: &mut [i16],
) {
    let (f_t, rest) = tables.split_at_mut(STRIDE);
    let (fb_t, rest) = rest.split_at_mut(STRIDE);
    let (fc_t, rest) = rest.split_at_mut(STRIDE);
    let (a_above, rest) = rest.split_at_mut(STRIDE);
    let (a_below, rest) = rest.split_at_mut(STRIDE);
    let (b_above, b_below) = rest.split_at_mut(STRIDE);
    // The first pixel has no pixel above-left: `c` is 0.
    let first = if start == 0 { bpp.min(len) } else { 0 };
    for i in 0..first {
        let t = thresholds(i16::from(previous[i]), 0, i16::from(row[i]));
        f_t[i] = t[0];
        fb_t[i] = t[1];
        fc_t[i] = t[2];
        a_above[i] = t[3];
        a_below[i] = t[4];
        b_above[i] = t[5];
        b_below[i] = t[6];
    }
    let (from, to) = (start + first, start + len);
    let (b_row, c_row, f_row) = (
        &previous[from..to],
        &previous[from - bpp..to - bpp],
        &row[from..to],
    );
    let outs = (
        &mut f_t[first..len],
        &mut fb_t[first..len],
        &mut fc_t[first..len],
        &mut a_above[first..len],
        &mut a_below[first..len],
        &mut b_above[first..len],
        &mut b_below[first..len],
    );
    for i in 0..to - from {
        let t = thresholds(
            i16::from(b_row[i]),
            i16::from(c_row[i]),
            i16::from(f_row[i]),
        );
        outs.0[i] = t[0];
        outs.1[i] = t[1];
        outs.2[i] = t[2];
        outs.3[i] = t[3];
        outs.4[i] = t[4];
        outs.5[i] = t[5];
        outs.6[i] = t[6];
    }
}

/// Whether samples `start..end` of `row` (`start >= bpp`) are flat: filtered values all 0 and
/// each sample above equal to the one above-left, so that every pixel repeats its left one.
#[cfg_attr(not(target_arch = "x86_64"), allow(dead_code))]
#[inline(always)]
fn flat(bpp: usize, previous: &[u8], row: &[u8], start: usize, end: usize) -> bool {
    let (f, b, c) = (
        &row[start..end],
        &previous[start..end],
        &previous[start - bpp..end - bpp],
    );
    let differs = f
        .iter()
        .zip(b)
        .zip(c)
        .fold(0u8, |acc, ((&f, &b), &c)| acc | f | (b ^ c));
    differs == 0
}

/// The row a [`BLOCK_PIXELS`] block at a time: a flat block is filled with the left pixel; in
/// the others, the block's tables (vectorised), then the per-pixel chain, `a` (the pixel just
/// unfiltered, one sample per 16-bit lane) against the tables, the chosen output written back
/// to `row`.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
fn unfilter_avx2<const BPP: usize>(tables: &mut [i16], previous: &[u8], row: &mut [u8]) {
    use std::arch::x86_64::*;
    // Four lanes of a table from sample `o` (the tables have a spare lane at the end).
    let load = |t: &[i16], o: usize| {
        let q = &t[o..o + 4];
        let word = u64::from(q[0] as u16)
            | u64::from(q[1] as u16) << 16
            | u64::from(q[2] as u16) << 32
            | u64::from(q[3] as u16) << 48;
        _mm_cvtsi64_si128(word as i64)
    };
    let low_byte = _mm_set1_epi16(0xff);
    let zero = _mm_setzero_si128();
    let mut a = zero;
    let n = row.len() - row.len() % BPP;
    let mut start = 0;
    while start < n {
        let len = (BLOCK_PIXELS * BPP).min(n - start);
        if start > 0 && flat(BPP, previous, row, start, start + len) {
            let word = _mm_cvtsi128_si32(_mm_packus_epi16(a, zero)).to_le_bytes();
            for x in row[start..start + len].chunks_exact_mut(BPP) {
                x.copy_from_slice(&word[..BPP]);
            }
            start += len;
            continue;
        }
        fill_tables(BPP, previous, row, start, len, tables);
        let table = |k: usize| &tables[k * STRIDE..(k + 1) * STRIDE];
        let (f_t, fb_t, fc_t) = (table(0), table(1), table(2));
        let (a_above, a_below, b_above, b_below) = (table(3), table(4), table(5), table(6));
        let block = &mut row[start..start + len];
        for p in 0..len / BPP {
            let o = p * BPP;
            let with_a = _mm_and_si128(_mm_add_epi16(load(f_t, o), a), low_byte);
            let is_a = _mm_or_si128(
                _mm_cmpgt_epi16(a, load(a_above, o)),
                _mm_cmpgt_epi16(load(a_below, o), a),
            );
            let is_b = _mm_or_si128(
                _mm_cmpgt_epi16(a, load(b_above, o)),
                _mm_cmpgt_epi16(load(b_below, o), a),
            );
            let b_or_c = _mm_blendv_epi8(load(fc_t, o), load(fb_t, o), is_b);
            a = _mm_blendv_epi8(b_or_c, with_a, is_a);
            let word = _mm_cvtsi128_si32(_mm_packus_epi16(a, zero)).to_le_bytes();
            // Four bytes at once where the fourth is the next pixel's first (its filtered
            // value is in the tables already, and it is written next); the block's last
            // pixel, three (the next block is still to be read).
            match block.get_mut(o..o + 4) {
                Some(x) if BPP == 3 && o + 4 < len => x.copy_from_slice(&word),
                _ => block[o..o + BPP].copy_from_slice(&word[..BPP]),
            }
        }
        start += len;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The PNG specification's predictor.
    fn predictor(a: i16, b: i16, c: i16) -> i16 {
        let p = a + b - c;
        let (pa, pb, pc) = ((p - a).abs(), (p - b).abs(), (p - c).abs());
        if pa <= pb && pa <= pc {
            a
        } else if pb <= pc {
            b
        } else {
            c
        }
    }

    #[test]
    fn thresholds_choose_the_predictor_for_every_a_b_c() {
        for b in 0..256i16 {
            for c in 0..256i16 {
                let t = thresholds(b, c, 0);
                for a in 0..256i16 {
                    let want = predictor(a, b, c);
                    let got = if a > t[3] || a < t[4] {
                        a
                    } else if a > t[5] || a < t[6] {
                        b
                    } else {
                        c
                    };
                    assert_eq!(got, want, "a {a} b {b} c {c}");
                }
            }
        }
    }

    #[test]
    fn vector_rows_match_the_specification() {
        let mut paeth = Paeth::default();
        for (bpp, pixels, flat) in [3usize, 4]
            .into_iter()
            .flat_map(|bpp| [0usize, 1, 2, 5, 17, 64, 333, 1280].map(move |p| (bpp, p)))
            .flat_map(|(bpp, p)| [false, true].map(move |flat| (bpp, p, flat)))
        {
            {
                let n = pixels * bpp;
                let mut seed = 12345u32.wrapping_add((bpp * 1000 + pixels) as u32);
                let mut next = || {
                    seed = seed.wrapping_mul(1_103_515_245).wrapping_add(12345);
                    seed >> 16
                };
                // Noise with runs of 255; or, as in screenshots, a row above in flat bands
                // and filtered values mostly 0.
                let previous: Vec<u8> = (0..n)
                    .map(|i| match (flat, next()) {
                        (true, _) => ((i / bpp / 23 * 71 + i % bpp * 13) % 256) as u8,
                        (false, r) if r % 4 == 0 => 255,
                        (false, r) => r as u8,
                    })
                    .collect();
                let filtered: Vec<u8> = (0..n)
                    .map(|_| match (flat, next()) {
                        (true, r) if r % 29 != 0 => 0,
                        (false, r) if r % 4 == 0 => 255,
                        (_, r) => r as u8,
                    })
                    .collect();
                let mut want = filtered.clone();
                for i in 0..n {
                    let a = if i >= bpp {
                        i16::from(want[i - bpp])
                    } else {
                        0
                    };
                    let c = if i >= bpp {
                        i16::from(previous[i - bpp])
                    } else {
                        0
                    };
                    let p = predictor(a, i16::from(previous[i]), c);
                    want[i] = want[i].wrapping_add(p as u8);
                }
                let mut got = filtered.clone();
                if paeth.unfilter(bpp, &previous, &mut got) {
                    assert_eq!(
                        got, want,
                        "{bpp} bytes per pixel, {pixels} pixels, flat {flat}"
                    );
                } else {
                    assert_eq!(got, filtered);
                }
            }
        }
    }
}
