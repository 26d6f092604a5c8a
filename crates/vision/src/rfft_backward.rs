//! pocketfft's backward real FFT (`rfftp::exec` with `r2hc = false`: half-complex in, real
//! out, unnormalised), operation for operation, because scipy's DCT-II is built on it (see
//! [`crate::dct`]) and pHash's bits depend on its rounding.
//!
//! The plan factorises the length as pocketfft does (4s first, one 2 moved to the front, then
//! odd primes) and runs one pass per factor: radix 2, 3, 4 and 5 have their own kernels
//! ([`crate::rfft_radix`]); any other prime goes through the general `radbg` kernel
//! ([`crate::rfft_general`]). The twiddles come from [`UnitRoots`], pocketfft's own table.

use crate::lanes::Sample;
use crate::rfft_general::radbg;
use crate::rfft_radix::radb2;
use crate::rfft_radix::radb3;
use crate::rfft_radix::radb4;
use crate::rfft_radix::radb5;
use crate::twiddle::UnitRoots;

/// One pass of the plan: its radix and twiddles.
#[derive(Debug)]
struct Factor {
    radix: usize,
    /// `(radix - 1) * (ido - 1)` interleaved `(cos, sin)` twiddles (empty for the last pass).
    twiddles: Vec<f64>,
    /// `2 * radix` extra values for the general kernel (radix > 5 only).
    general: Vec<f64>,
}

/// A backward real FFT of one length.
#[derive(Debug)]
pub(crate) struct BackwardRfft {
    len: usize,
    factors: Vec<Factor>,
}

impl BackwardRfft {
    /// The plan for `len` (at least 1).
    pub(crate) fn new(len: usize) -> BackwardRfft {
        let len = len.max(1);
        if len == 1 {
            return BackwardRfft {
                len,
                factors: Vec::new(),
            };
        }
        let radices = factorize(len);
        let roots = UnitRoots::new(len);
        let mut factors = Vec::with_capacity(radices.len());
        let mut l1 = 1;
        for (k, &radix) in radices.iter().enumerate() {
            let ido = len / (l1 * radix);
            let mut twiddles = Vec::new();
            // The last pass has ido == 1 and needs none.
            if k + 1 < radices.len() {
                twiddles = vec![0.0; (radix - 1) * (ido - 1)];
                for j in 1..radix {
                    for i in 1..=(ido - 1) / 2 {
                        let (re, im) = roots.get(j * l1 * i);
                        twiddles[(j - 1) * (ido - 1) + 2 * i - 2] = re;
                        twiddles[(j - 1) * (ido - 1) + 2 * i - 1] = im;
                    }
                }
            }
            let mut general = Vec::new();
            if radix > 5 {
                general = vec![0.0; 2 * radix];
                general[0] = 1.0;
                let (mut i, mut ic) = (2, 2 * radix - 2);
                while i <= ic {
                    let (re, im) = roots.get(i / 2 * (len / radix));
                    general[i] = re;
                    general[i + 1] = im;
                    general[ic] = re;
                    general[ic + 1] = -im;
                    i += 2;
                    ic -= 2;
                }
            }
            factors.push(Factor {
                radix,
                twiddles,
                general,
            });
            l1 *= radix;
        }
        BackwardRfft { len, factors }
    }

    /// Transforms `data` (the plan's length, in pocketfft's half-complex order) using
    /// `scratch` (same length); returns whichever of the two holds the result.
    #[inline(always)]
    pub(crate) fn run<'a, T: Sample>(
        &self,
        data: &'a mut [T],
        scratch: &'a mut [T],
    ) -> &'a mut [T] {
        if self.len == 32
            && let [first, second, _] = self.factors.as_slice()
        {
            // Length 32 (pHash's default hash size): the same kernels with the sizes as
            // constants (factors 2, 4, 4), so the compiler unrolls the passes and drops the
            // bounds checks. Same operations, same bits.
            let (data, scratch) = (&mut data[..32], &mut scratch[..32]);
            radb2(16, 1, data, scratch, &first.twiddles[..15]);
            radb4(4, 2, scratch, data, &second.twiddles[..9]);
            radb4(1, 8, data, scratch, &[]);
            return scratch;
        }
        let (mut from, mut to) = (&mut data[..self.len], &mut scratch[..self.len]);
        let mut l1 = 1;
        for factor in &self.factors {
            let radix = factor.radix;
            let ido = self.len / (radix * l1);
            let wa = factor.twiddles.as_slice();
            match radix {
                4 => radb4(ido, l1, from, to, wa),
                2 => radb2(ido, l1, from, to, wa),
                3 => radb3(ido, l1, from, to, wa),
                5 => radb5(ido, l1, from, to, wa),
                _ => radbg(ido, radix, l1, from, to, wa, &factor.general),
            }
            std::mem::swap(&mut from, &mut to);
            l1 *= radix;
        }
        from
    }
}

/// pocketfft's `rfftp::factorize`: factors of 4, then a 2 swapped to the front, then odd
/// factors in increasing order.
fn factorize(mut len: usize) -> Vec<usize> {
    let mut factors = Vec::new();
    while len.is_multiple_of(4) {
        factors.push(4);
        len >>= 2;
    }
    if len.is_multiple_of(2) {
        len >>= 1;
        factors.push(2);
        let last = factors.len() - 1;
        factors.swap(0, last);
    }
    let mut divisor = 3;
    while divisor * divisor <= len {
        while len.is_multiple_of(divisor) {
            factors.push(divisor);
            len /= divisor;
        }
        divisor += 2;
    }
    if len > 1 {
        factors.push(len);
    }
    factors
}

/// Whether pocketfft's `pocketfft_r` would use its Bluestein algorithm for `len` instead of
/// this plan (lengths of 50 and more with a large prime factor, where Bluestein is cheaper).
pub(crate) fn pocketfft_uses_bluestein(len: usize) -> bool {
    if len < 50 {
        return false;
    }
    let largest = largest_prime_factor(len);
    if largest * largest <= len {
        return false;
    }
    let direct = 0.5 * cost_guess(len);
    let bluestein = 2.0 * cost_guess(good_size_complex(2 * len - 1)) * 1.5;
    bluestein < direct
}

fn largest_prime_factor(mut n: usize) -> usize {
    let mut largest = 1;
    while n.is_multiple_of(2) {
        largest = 2;
        n >>= 1;
    }
    let mut x = 3;
    while x * x <= n {
        while n.is_multiple_of(x) {
            largest = x;
            n /= x;
        }
        x += 2;
    }
    if n > 1 { n } else { largest }
}

/// pocketfft's `util::cost_guess`.
fn cost_guess(n: usize) -> f64 {
    const LARGE_FACTOR_PENALTY: f64 = 1.1;
    let (original, mut n) = (n, n);
    let mut result = 0.0;
    while n % 2 == 0 {
        result += 2.0;
        n >>= 1;
    }
    let weight = |x: usize| {
        if x <= 5 {
            x as f64
        } else {
            LARGE_FACTOR_PENALTY * x as f64
        }
    };
    let mut x = 3;
    while x * x <= n {
        while n % x == 0 {
            result += weight(x);
            n /= x;
        }
        x += 2;
    }
    if n > 1 {
        result += weight(n);
    }
    result * original as f64
}

/// pocketfft's `util::good_size_cmplx`: the smallest product of 2, 3, 5, 7 and 11 that is
/// at least `n`.
fn good_size_complex(n: usize) -> usize {
    if n <= 12 {
        return n;
    }
    let mut best = 2 * n;
    let mut f11 = 1;
    while f11 < best {
        let mut f117 = f11;
        while f117 < best {
            let mut f1175 = f117;
            while f1175 < best {
                let mut x = f1175;
                while x < n {
                    x *= 2;
                }
                loop {
                    if x < n {
                        x *= 3;
                    } else if x > n {
                        best = best.min(x);
                        if x & 1 == 1 {
                            break;
                        }
                        x >>= 1;
                    } else {
                        return n;
                    }
                }
                f1175 *= 5;
            }
            f117 *= 7;
        }
        f11 *= 11;
    }
    best
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn factors_follow_pocketfft() {
        assert_eq!(factorize(32), vec![2, 4, 4]);
        assert_eq!(factorize(64), vec![4, 4, 4]);
        assert_eq!(factorize(48), vec![4, 4, 3]);
        assert_eq!(factorize(24), vec![2, 4, 3]);
        assert_eq!(factorize(52), vec![4, 13]);
        assert_eq!(factorize(90), vec![2, 3, 3, 5]);
    }

    #[test]
    fn bluestein_only_for_large_lengths_with_large_prime_factors() {
        for len in [8, 32, 49, 52, 64, 404, 1024, 4 * 211] {
            assert!(!pocketfft_uses_bluestein(len), "{len}");
        }
        assert!(pocketfft_uses_bluestein(4 * 1009));
        assert_eq!(good_size_complex(103), 105);
    }

    /// The inverse real DFT of pocketfft's half-complex layout
    /// `[r0, r1, i1, r2, i2, ..., (r_{n/2})]`, summed directly.
    fn naive_backward(input: &[f64]) -> Vec<f64> {
        let n = input.len();
        (0..n)
            .map(|t| {
                let mut sum = input[0];
                for k in 1..n.div_ceil(2) {
                    let angle = 2.0 * std::f64::consts::PI * (k * t) as f64 / n as f64;
                    sum += 2.0 * (input[2 * k - 1] * angle.cos() - input[2 * k] * angle.sin());
                }
                if n.is_multiple_of(2) {
                    sum += input[n - 1] * if t % 2 == 0 { 1.0 } else { -1.0 };
                }
                sum
            })
            .collect()
    }

    #[test]
    fn every_radix_inverts_the_dft() {
        for n in [
            1usize, 2, 3, 4, 5, 6, 7, 8, 9, 10, 12, 14, 15, 21, 25, 32, 44, 49, 52, 77,
        ] {
            let input: Vec<f64> = (0..n).map(|i| ((i * 53 + 7) % 97) as f64 - 40.0).collect();
            let plan = BackwardRfft::new(n);
            let (mut data, mut scratch) = (input.clone(), vec![0.0; n]);
            let got = plan.run(&mut data, &mut scratch).to_vec();
            let want = naive_backward(&input);
            for (g, w) in got.iter().zip(&want) {
                assert!(
                    (g - w).abs() < 1e-9 * n as f64 * 100.0,
                    "n={n}: {got:?} vs {want:?}"
                );
            }
        }
    }
}
