//! The unnormalised DCT-II that imagehash's pHash takes with `scipy.fftpack.dct`:
//! `X[k] = 2 * sum_n x[n] * cos(pi * k * (2n + 1) / (2N))`, computed with the very operations
//! scipy's pocketfft performs (`T_dcst23::exec` for type 2), so the results agree to the last
//! bit, not only to rounding.
//!
//! That matters for pHash: on degenerate images (chessboards, stripes, symmetric patterns)
//! many coefficients are zero up to rounding (±1e-12) and the median is 0, so whether each
//! tiny residue lands above or below the median decides the hash bits. pocketfft computes the
//! DCT-II of length N as: scale `x[0]` (and `x[N-1]` for even N) by 2, turn pairs into sums and
//! differences, run a backward real FFT of length N ([`BackwardRfft`]), then combine
//! outputs `k` and `N-k` with the twiddles `cos(pi*k/(2N))` (taken from pocketfft's own
//! table, [`UnitRoots`]). Lengths for which pocketfft would switch to its Bluestein algorithm
//! (N of 50 and more with a large prime factor, pHash hash sizes in the hundreds) are summed
//! directly instead: the same values up to rounding, not to the bit.
//!
//! The code is generic over [`Sample`], so the hot path runs [`LANES`](crate::lanes::LANES)
//! columns at once (one vector operation each) with results bit-identical to one column at a
//! time. The reference is scipy as built for x86-64, where the C++ multiplies and adds are
//! separate IEEE operations (no fused multiply-add), as Rust's are.

use std::cell::RefCell;
use std::f64::consts::PI;
use std::rc::Rc;

use crate::lanes::Lanes;
use crate::lanes::Sample;
use crate::rfft_backward::BackwardRfft;
use crate::rfft_backward::pocketfft_uses_bluestein;
use crate::twiddle::UnitRoots;

/// The transform for one length, keeping the first `keep` outputs.
#[derive(Debug)]
pub struct DctPlan {
    n: usize,
    keep: usize,
    method: Method,
}

#[derive(Debug)]
enum Method {
    /// pocketfft's own algorithm: a backward real FFT between pre- and post-processing.
    Pocketfft {
        fft: BackwardRfft,
        /// `cos(pi * (i + 1) / (2N))` for `i` in `0..N`, from pocketfft's table of `4N`-th
        /// roots of unity.
        twiddle: Vec<f64>,
    },
    /// The definition summed directly, `table[k * n + i] = cos(pi * k * (2i + 1) / (2N))`.
    Direct { table: Vec<f64> },
}

/// A plan with the `(n, keep)` it was made for.
type KeyedPlan = ((usize, usize), Rc<DctPlan>);

thread_local! {
    /// The last plan made: pHash uses one size over and over.
    static LAST: RefCell<Option<KeyedPlan>> = const { RefCell::new(None) };
}

impl DctPlan {
    /// Like [`DctPlan::new`], reusing the previous plan of this thread when the sizes match.
    pub fn cached(n: usize, keep: usize) -> Rc<DctPlan> {
        LAST.with(|last| {
            let mut last = last.borrow_mut();
            if let Some((key, plan)) = last.as_ref()
                && *key == (n, keep)
            {
                return Rc::clone(plan);
            }
            let plan = Rc::new(DctPlan::new(n, keep));
            *last = Some(((n, keep), Rc::clone(&plan)));
            plan
        })
    }

    /// A plan for inputs of length `n` (at least 1) keeping the first `keep` (at most `n`)
    /// outputs.
    pub fn new(n: usize, keep: usize) -> DctPlan {
        let n = n.max(1);
        let keep = keep.min(n);
        let method = if pocketfft_uses_bluestein(n) {
            let table = (0..keep)
                .flat_map(|k| {
                    (0..n).map(move |i| (PI * (k * (2 * i + 1)) as f64 / (2 * n) as f64).cos())
                })
                .collect();
            Method::Direct { table }
        } else {
            let roots = UnitRoots::new(4 * n);
            Method::Pocketfft {
                fft: BackwardRfft::new(n),
                twiddle: (0..n).map(|i| roots.get(i + 1).0).collect(),
            }
        };
        DctPlan { n, keep, method }
    }

    /// Transforms one input (length `n`) into `out` (length `keep`): the reference the lane
    /// version is checked against, and what the unit tests compare with scipy.
    #[cfg(test)]
    pub fn run(&self, input: &[f64], out: &mut [f64]) {
        let mut data = input[..self.n].to_vec();
        let mut scratch = vec![0.0; self.n];
        self.transform(&mut data, &mut scratch, out);
    }

    /// Transforms [`LANES`](crate::lanes::LANES) inputs at once: `data[i].0[lane]` is element
    /// `i` (of `n`) of input `lane`, and `out[k].0[lane]` receives output `k` (of `keep`).
    /// Each lane goes through exactly the operations of a single run, so its results are
    /// bit-identical. `data` and `scratch` (both of length `n`) are overwritten.
    #[inline(always)]
    pub fn run_lanes(&self, data: &mut [Lanes], scratch: &mut [Lanes], out: &mut [Lanes]) {
        self.transform(data, scratch, out);
    }

    /// pocketfft's `T_dcst23::exec` for type 2 (cosine, not orthonormalised, factor 1),
    /// writing only the first `keep` outputs.
    #[inline(always)]
    fn transform<T: Sample>(&self, data: &mut [T], scratch: &mut [T], out: &mut [T]) {
        let (n, keep) = (self.n, self.keep);
        let (fft, twiddle) = match &self.method {
            Method::Pocketfft { fft, twiddle } => (fft, twiddle),
            Method::Direct { table } => {
                for (k, slot) in out[..keep].iter_mut().enumerate() {
                    let row = &table[k * n..(k + 1) * n];
                    let sum = data[..n]
                        .iter()
                        .zip(row)
                        .fold(T::ZERO, |sum, (&x, &c)| sum + x * c);
                    *slot = sum * 2.0;
                }
                return;
            }
        };
        let c = &mut data[..n];
        c[0] = c[0] * 2.0;
        if n % 2 == 0 {
            c[n - 1] = c[n - 1] * 2.0;
        }
        // MPINPLACE(c[k+1], c[k]): the pair becomes (sum, difference).
        for k in (1..n.saturating_sub(1)).step_by(2) {
            let (a, b) = (c[k + 1], c[k]);
            c[k + 1] = a - b;
            c[k] = a + b;
        }
        let c = fft.run(data, scratch);
        if keep > 0 {
            out[0] = c[0];
        }
        let half = n.div_ceil(2);
        for k in 1..half {
            let kc = n - k;
            if k >= keep && kc >= keep {
                continue;
            }
            let t1 = c[kc] * twiddle[k - 1] + c[k] * twiddle[kc - 1];
            let t2 = c[k] * twiddle[k - 1] - c[kc] * twiddle[kc - 1];
            if k < keep {
                out[k] = (t1 + t2) * 0.5;
            }
            if kc < keep {
                out[kc] = (t1 - t2) * 0.5;
            }
        }
        if n % 2 == 0 && half < keep {
            out[half] = c[half] * twiddle[half - 1];
        }
    }
}

#[cfg(test)]
#[path = "dct_tests.rs"]
mod tests;
