//! The resampling weights of Pillow's LANCZOS filter: computed in double precision,
//! normalised per output pixel, quantised to 22-bit fixed point and split for the vector
//! passes; cached per `(input size, output size)`.

use std::cell::RefCell;
use std::f64::consts::PI;
use std::sync::Arc;

pub(super) const PRECISION_BITS: u32 = 22;
pub(super) const LANCZOS_SUPPORT: f64 = 3.0;

/// Fixed-point weights of one resampling pass: for output pixel `i`, input pixels
/// `bounds[i].0 .. bounds[i].0 + bounds[i].1` weighted by `weights[i * ksize ..]`.
///
/// Each 22-bit weight `w` is also kept split as `w = high * 2^7 + low` (`0 <= low < 2^7`),
/// both halves as `f32`. When every partial sum of pixel times half-weight stays below 2^24
/// (`exact_f32`), `f32` arithmetic on the halves is exact, so the passes can run on `f32`
/// vectors (which every x86-64 multiplies natively) and recombine to exactly Pillow's 32-bit
/// integer sums. Otherwise, and always on CPUs with AVX2 (which multiplies 32-bit integer
/// vectors), the plain `i32` loops run.
#[derive(Debug)]
pub(crate) struct Coefficients {
    pub(super) ksize: usize,
    pub(crate) bounds: Vec<(usize, usize)>,
    pub(super) weights: Vec<i32>,
    /// `weights` again, each output's taps padded with zeros to `padded` (a multiple of 8),
    /// so that the integer dot products run on whole vectors.
    pub(super) padded_weights: Vec<i32>,
    pub(super) padded: usize,
    /// `weights` split as `high * 2^SPLIT16_BITS + low` (`0 <= low < 2^SPLIT16_BITS`), both
    /// halves `i16`, each output's taps padded with zeros to `split_taps` (a multiple of 16):
    /// with AVX2 the dot products then run on `vpmaddwd` (sixteen 16-bit products summed
    /// in pairs into `i32`), and `(high sum << SPLIT16_BITS) + low sum` is exactly Pillow's
    /// `i32` sum (every partial sum is far below 2^31; wrapping sums are equal anyway).
    #[cfg_attr(not(target_arch = "x86_64"), allow(dead_code))]
    pub(super) split_high: Vec<i16>,
    #[cfg_attr(not(target_arch = "x86_64"), allow(dead_code))]
    pub(super) split_low: Vec<i16>,
    #[cfg_attr(not(target_arch = "x86_64"), allow(dead_code))]
    pub(super) split_taps: usize,
    /// Whether every `high` fits in `i16` (it does for Pillow's 22-bit weights).
    #[cfg_attr(not(target_arch = "x86_64"), allow(dead_code))]
    pub(super) split_ok: bool,
    pub(super) high: Vec<f32>,
    pub(super) low: Vec<f32>,
    pub(super) exact_f32: bool,
}

pub(super) const SPLIT_BITS: u32 = 7;

/// The low half of the `i16` weight split (see [`Coefficients`]).
pub(super) const SPLIT16_BITS: u32 = 11;

/// Splits the weights into `(high, low)` halves and decides whether `f32` sums are exact.
pub(super) fn split(weights: &[i32], ksize: usize) -> (Vec<f32>, Vec<f32>, bool) {
    let mut high = Vec::with_capacity(weights.len());
    let mut low = Vec::with_capacity(weights.len());
    let mut exact = true;
    for row in weights.chunks(ksize.max(1)) {
        let (mut sum_high, mut sum_low) = (0i64, 0i64);
        for &w in row {
            let h = w >> SPLIT_BITS;
            let l = w - (h << SPLIT_BITS);
            sum_high += i64::from(h).abs();
            sum_low += i64::from(l);
            high.push(h as f32);
            low.push(l as f32);
        }
        // Every partial sum is bounded by 255 * sum(|half|); f32 holds integers up to 2^24.
        if 255 * sum_high.max(sum_low) >= 1 << 24 {
            exact = false;
        }
    }
    (high, low, exact)
}

/// Recombines the two partial sums into Pillow's sum (with its rounding bias).
#[inline(always)]
pub(super) fn combine(high: f32, low: f32) -> i32 {
    // Both are exact integers below 2^24 in magnitude.
    let (high, low) = (high as i32, low as i32);
    (1i32 << (PRECISION_BITS - 1))
        .wrapping_add(high.wrapping_shl(SPLIT_BITS))
        .wrapping_add(low)
}

pub(super) fn sinc(x: f64) -> f64 {
    if x == 0.0 {
        return 1.0;
    }
    let x = x * PI;
    x.sin() / x
}

pub(super) fn lanczos(x: f64) -> f64 {
    if (-LANCZOS_SUPPORT..LANCZOS_SUPPORT).contains(&x) {
        sinc(x) * sinc(x / 3.0)
    } else {
        0.0
    }
}

/// `precompute_coeffs` + `normalize_coeffs_8bpc` for the box `0..in_size`.
pub(super) fn precompute(in_size: usize, out_size: usize) -> Coefficients {
    let scale = in_size as f32 as f64 / out_size as f64;
    let filterscale = scale.max(1.0);
    let support = LANCZOS_SUPPORT * filterscale;
    let ksize = support.ceil() as usize * 2 + 1;
    let mut bounds = Vec::with_capacity(out_size);
    let mut weights = vec![0i32; out_size * ksize];
    let mut k = vec![0f64; ksize];
    for xx in 0..out_size {
        let center = (xx as f64 + 0.5) * scale;
        let ss = 1.0 / filterscale;
        // C `(int)` truncates toward zero.
        let xmin = ((center - support + 0.5) as i64).max(0) as usize;
        let xmax = ((center + support + 0.5) as i64).min(in_size as i64) as usize;
        let count = xmax.saturating_sub(xmin).min(ksize);
        let mut ww = 0.0;
        for (x, slot) in k.iter_mut().enumerate().take(count) {
            let w = lanczos(((x + xmin) as f64 - center + 0.5) * ss);
            *slot = w;
            ww += w;
        }
        let row = &mut weights[xx * ksize..(xx + 1) * ksize];
        for (slot, &w) in row.iter_mut().zip(&k).take(count) {
            let w = if ww != 0.0 { w / ww } else { w };
            let fixed = w * f64::from(1u32 << PRECISION_BITS);
            *slot = if w < 0.0 {
                (-0.5 + fixed) as i32
            } else {
                (0.5 + fixed) as i32
            };
        }
        bounds.push((xmin, count));
    }
    let (high, low, exact_f32) = split(&weights, ksize);
    let padded = bounds
        .iter()
        .map(|b| b.1)
        .max()
        .unwrap_or(0)
        .div_ceil(8)
        .max(1)
        * 8;
    let mut padded_weights = vec![0i32; out_size * padded];
    for (xx, &(_, count)) in bounds.iter().enumerate() {
        padded_weights[xx * padded..][..count].copy_from_slice(&weights[xx * ksize..][..count]);
    }
    let split_taps = padded.div_ceil(16) * 16;
    let mut split_high = vec![0i16; out_size * split_taps];
    let mut split_low = vec![0i16; out_size * split_taps];
    let mut split_ok = true;
    for (xx, &(_, count)) in bounds.iter().enumerate() {
        for (k, &w) in weights[xx * ksize..][..count].iter().enumerate() {
            let high = w >> SPLIT16_BITS;
            let low = w - (high << SPLIT16_BITS);
            split_ok &= i16::try_from(high).is_ok();
            split_high[xx * split_taps + k] = high as i16;
            split_low[xx * split_taps + k] = low as i16;
        }
    }
    Coefficients {
        ksize,
        bounds,
        weights,
        padded_weights,
        padded,
        split_high,
        split_low,
        split_taps,
        split_ok,
        high,
        low,
        exact_f32,
    }
}

/// Coefficient tables keyed by `(input size, output size)`.
type CoefficientCache = Vec<((usize, usize), Arc<Coefficients>)>;

thread_local! {
    /// Recently used coefficient tables: replay hashes the same region size again and again.
    static CACHE: RefCell<CoefficientCache> = const { RefCell::new(Vec::new()) };
}

pub(super) const CACHE_SIZE: usize = 16;

pub(crate) fn coefficients(in_size: usize, out_size: usize) -> Arc<Coefficients> {
    CACHE.with(|cache| {
        let mut cache = cache.borrow_mut();
        if let Some(position) = cache
            .iter()
            .position(|(key, _)| *key == (in_size, out_size))
        {
            let entry = cache.remove(position);
            let found = Arc::clone(&entry.1);
            cache.push(entry);
            return found;
        }
        let made = Arc::new(precompute(in_size, out_size));
        if cache.len() >= CACHE_SIZE {
            cache.remove(0);
        }
        cache.push(((in_size, out_size), Arc::clone(&made)));
        made
    })
}
