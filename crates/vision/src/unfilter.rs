//! Undoing the PNG row filters (None, Sub, Up, Average, Paeth) of 8-bit rows, in place, for
//! [`crate::png_region`]'s partial decode. Paeth on 3- and 4-byte pixels goes through the
//! short-chain vectorised form of [`crate::paeth`] when the CPU has AVX2.

use crate::error::VisionError;
use crate::paeth::Paeth;

/// Undoes the PNG filters of a batch of rows in place: each row is `row_len` bytes, a filter
/// byte then 8-bit samples, `bpp` bytes per pixel. `previous` holds the unfiltered row above
/// the batch and is left holding the batch's last row.
pub(crate) fn unfilter_batch(
    paeth: &mut Paeth,
    batch: &mut [u8],
    row_len: usize,
    bpp: usize,
    previous: &mut [u8],
) -> Result<(), VisionError> {
    let rows = batch.len() / row_len;
    for r in 0..rows {
        let (above, rest) = batch.split_at_mut(r * row_len);
        let (filter, row) = rest[..row_len].split_at_mut(1);
        let prev: &[u8] = match r {
            0 => previous,
            _ => &above[(r - 1) * row_len + 1..],
        };
        unfilter_row(paeth, filter[0], bpp, prev, row)?;
    }
    if rows > 0 {
        previous.copy_from_slice(&batch[(rows - 1) * row_len + 1..rows * row_len]);
    }
    Ok(())
}

/// Undoes the PNG filter `filter` of one row of 8-bit samples, `bpp` (1 to 4) bytes per
/// pixel, given the previous row already unfiltered (zeros for the first row).
fn unfilter_row(
    paeth: &mut Paeth,
    filter: u8,
    bpp: usize,
    previous: &[u8],
    row: &mut [u8],
) -> Result<(), VisionError> {
    match bpp {
        1 => unfilter_pixels::<1>(paeth, filter, previous, row),
        2 => unfilter_pixels::<2>(paeth, filter, previous, row),
        3 => unfilter_pixels::<3>(paeth, filter, previous, row),
        4 => unfilter_pixels::<4>(paeth, filter, previous, row),
        _ => Err(VisionError::Decode(format!("{bpp} bytes per pixel"))),
    }
}

/// [`unfilter_row`] for `BPP` bytes per pixel, a pixel at a time (the bytes of one pixel are
/// independent, so they go side by side).
#[inline(always)]
fn unfilter_pixels<const BPP: usize>(
    paeth: &mut Paeth,
    filter: u8,
    previous: &[u8],
    row: &mut [u8],
) -> Result<(), VisionError> {
    let pixels = row.chunks_exact_mut(BPP).zip(previous.chunks_exact(BPP));
    match filter {
        0 => {}
        1 => {
            let mut a = [0u8; BPP];
            for (x, _) in pixels {
                for i in 0..BPP {
                    x[i] = x[i].wrapping_add(a[i]);
                    a[i] = x[i];
                }
            }
        }
        2 => {
            for (x, &b) in row.iter_mut().zip(previous) {
                *x = x.wrapping_add(b);
            }
        }
        3 => {
            let mut a = [0u16; BPP];
            for (x, b) in pixels {
                for i in 0..BPP {
                    x[i] = x[i].wrapping_add(((a[i] + u16::from(b[i])) / 2) as u8);
                    a[i] = u16::from(x[i]);
                }
            }
        }
        4 => {
            if !paeth.unfilter(BPP, previous, row) {
                paeth_scalar::<BPP>(previous, row);
            }
        }
        other => {
            return Err(VisionError::Decode(format!("unknown filter type {other}")));
        }
    }
    Ok(())
}

/// The Paeth filter undone a pixel at a time in scalar code.
#[inline(always)]
fn paeth_scalar<const BPP: usize>(previous: &[u8], row: &mut [u8]) {
    let (mut a, mut c) = ([0i16; BPP], [0i16; BPP]);
    for (x, b) in row.chunks_exact_mut(BPP).zip(previous.chunks_exact(BPP)) {
        for i in 0..BPP {
            let b = i16::from(b[i]);
            x[i] = x[i].wrapping_add(paeth(a[i], b, c[i]));
            a[i] = i16::from(x[i]);
            c[i] = b;
        }
    }
}

/// The Paeth predictor (the branch-free form of `stb_image`, as the `png` crate uses it).
#[inline(always)]
fn paeth(a: i16, b: i16, c: i16) -> u8 {
    let thresh = c * 3 - (a + b);
    let lo = a.min(b);
    let hi = a.max(b);
    let t0 = if hi <= thresh { lo } else { c };
    let t1 = if thresh <= lo { hi } else { t0 };
    t1 as u8
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unfiltering_undoes_every_filter() {
        // The filters as the PNG specification defines them, applied to known rows.
        for bpp in 1..=4 {
            let previous: Vec<u8> = (0..60u32).map(|i| ((i * 37) % 256) as u8).collect();
            let row: Vec<u8> = (0..60u32).map(|i| ((i * 91 + 17) % 256) as u8).collect();
            for filter in 0..=4u8 {
                let filtered: Vec<u8> = (0..row.len())
                    .map(|i| {
                        let a = if i >= bpp { row[i - bpp] } else { 0 };
                        let c = if i >= bpp { previous[i - bpp] } else { 0 };
                        let b = previous[i];
                        let predictor = match filter {
                            0 => 0,
                            1 => a,
                            2 => b,
                            3 => ((u16::from(a) + u16::from(b)) / 2) as u8,
                            _ => {
                                let p = i16::from(a) + i16::from(b) - i16::from(c);
                                let (pa, pb, pc) = (
                                    (p - i16::from(a)).abs(),
                                    (p - i16::from(b)).abs(),
                                    (p - i16::from(c)).abs(),
                                );
                                if pa <= pb && pa <= pc {
                                    a
                                } else if pb <= pc {
                                    b
                                } else {
                                    c
                                }
                            }
                        };
                        row[i].wrapping_sub(predictor)
                    })
                    .collect();
                let mut got = filtered.clone();
                assert!(
                    unfilter_row(&mut Paeth::default(), filter, bpp, &previous, &mut got).is_ok()
                );
                assert_eq!(got, row, "filter {filter}, {bpp} bytes per pixel");
            }
            let mut bad = row.clone();
            assert!(unfilter_row(&mut Paeth::default(), 5, bpp, &previous, &mut bad).is_err());
        }
    }
}
