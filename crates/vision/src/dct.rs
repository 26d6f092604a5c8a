//! The unnormalised DCT-II that imagehash's pHash takes with `scipy.fftpack.dct`:
//! `X[k] = 2 * sum_n x[n] * cos(pi * k * (2n + 1) / (2N))`.
//!
//! It is computed by the even/odd split (`X[2m]` is the half-size DCT of `x[n] + x[N-1-n]`,
//! `X[2m+1]` a sum over `x[n] - x[N-1-n]`), which makes every non-DC coefficient of a constant
//! (or mirror-symmetric) input exactly zero, as scipy's FFT-based transform produces it. That
//! matters: blank screen regions hash to `8000000000000000` only when those zeros are exact.
//! Only the first `keep` coefficients are computed, since pHash keeps the low frequencies.

use std::cell::RefCell;
use std::f64::consts::PI;
use std::rc::Rc;

/// Cosine tables for the odd outputs of each level of the split, for inputs of length `n`
/// when only the first `keep` outputs are wanted.
#[derive(Debug)]
pub struct DctPlan {
    n: usize,
    /// For each even level: (length, odd-output table `[k_index][n]`).
    levels: Vec<Level>,
    /// The direct table `[k][n]` for the final odd length.
    base: Vec<f64>,
    base_len: usize,
    base_keep: usize,
}

#[derive(Debug)]
struct Level {
    len: usize,
    odd_count: usize,
    table: Vec<f64>,
}

fn cosine(k: usize, n: usize, len: usize) -> f64 {
    (PI * (k * (2 * n + 1)) as f64 / (2 * len) as f64).cos()
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

    /// A plan for inputs of length `n` keeping the first `keep` (at most `n`) outputs.
    pub fn new(n: usize, keep: usize) -> DctPlan {
        let keep = keep.min(n);
        let mut levels = Vec::new();
        let (mut len, mut want) = (n, keep);
        while len % 2 == 0 && len >= 2 && want > 0 {
            let half = len / 2;
            let odd_count = want / 2;
            let mut table = Vec::with_capacity(odd_count * half);
            for j in 0..odd_count {
                let k = 2 * j + 1;
                table.extend((0..half).map(|i| cosine(k, i, len)));
            }
            levels.push(Level {
                len,
                odd_count,
                table,
            });
            len = half;
            want = want.div_ceil(2);
        }
        let mut base = Vec::with_capacity(want * len);
        for k in 0..want {
            base.extend((0..len).map(|i| cosine(k, i, len)));
        }
        DctPlan {
            n,
            levels,
            base,
            base_len: len,
            base_keep: want,
        }
    }

    /// Transforms `input` (length `n`) into `out` (length `keep`), one input at a time: the
    /// reference [`DctPlan::run_lanes`] is checked against.
    /// `scratch` is reused between calls.
    #[cfg(test)]
    pub fn run(&self, input: &[f64], out: &mut [f64], scratch: &mut Vec<f64>) {
        scratch.clear();
        scratch.extend_from_slice(&input[..self.n]);
        self.level(0, scratch, out, 1, 0);
    }

    /// Writes DCT outputs of `data` (the current level's input) to `out[offset + stride * k]`.
    #[cfg(test)]
    fn level(&self, depth: usize, data: &mut [f64], out: &mut [f64], stride: usize, offset: usize) {
        let Some(level) = self.levels.get(depth) else {
            let len = self.base_len;
            for k in 0..self.base_keep {
                let row = &self.base[k * len..(k + 1) * len];
                let sum: f64 = data.iter().zip(row).map(|(x, c)| x * c).sum();
                out[offset + stride * k] = 2.0 * sum;
            }
            return;
        };
        let half = level.len / 2;
        let (front, back) = data.split_at_mut(half);
        // front <- u = x[n] + x[N-1-n]; back <- v = x[n] - x[N-1-n] (back reversed in place).
        for i in 0..half {
            let a = front[i];
            let b = back[half - 1 - i];
            front[i] = a + b;
            back[half - 1 - i] = a - b;
        }
        // back now holds v in reverse order: back[half-1-i] = v[i].
        for j in 0..level.odd_count {
            let row = &level.table[j * half..(j + 1) * half];
            let mut sum = 0.0;
            for (i, &c) in row.iter().enumerate() {
                sum += back[half - 1 - i] * c;
            }
            out[offset + stride * (2 * j + 1)] = 2.0 * sum;
        }
        self.level(depth + 1, front, out, stride * 2, offset);
    }
}

/// How many inputs [`DctPlan::run_lanes`] transforms at once.
pub const LANES: usize = 8;

/// One value per lane.
pub type Lanes = [f64; LANES];

impl DctPlan {
    /// Transforms [`LANES`] inputs at once: `data[i][lane]` is element `i` (of `n`) of input
    /// `lane`, and `out[k][lane]` receives output `k` (of `keep`). Each lane goes through
    /// exactly the operations of [`DctPlan::run`], in the same order, so its results are
    /// bit-identical; only the lanes run side by side (one vector operation each).
    /// `data` is overwritten.
    #[inline(always)]
    pub fn run_lanes(&self, data: &mut [Lanes], out: &mut [Lanes]) {
        // The recursion of `level`, unrolled: each level halves the data and doubles the
        // output stride.
        let mut data = &mut data[..self.n];
        let mut stride = 1;
        for level in &self.levels {
            let half = level.len / 2;
            let (front, back) = data.split_at_mut(half);
            for i in 0..half {
                let a = front[i];
                let b = back[half - 1 - i];
                for lane in 0..LANES {
                    front[i][lane] = a[lane] + b[lane];
                    back[half - 1 - i][lane] = a[lane] - b[lane];
                }
            }
            for j in 0..level.odd_count {
                let row = &level.table[j * half..(j + 1) * half];
                let mut sum = [0.0; LANES];
                for (i, &c) in row.iter().enumerate() {
                    let v = back[half - 1 - i];
                    for lane in 0..LANES {
                        sum[lane] += v[lane] * c;
                    }
                }
                out[stride * (2 * j + 1)] = sum.map(|s| 2.0 * s);
            }
            data = front;
            stride *= 2;
        }
        let len = self.base_len;
        for k in 0..self.base_keep {
            let row = &self.base[k * len..(k + 1) * len];
            // `Iterator::sum` of f64 starts from -0.0: so does this, bit for bit.
            let mut sum = [-0.0; LANES];
            for (x, &c) in data.iter().zip(row) {
                for lane in 0..LANES {
                    sum[lane] += x[lane] * c;
                }
            }
            out[stride * k] = sum.map(|s| 2.0 * s);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn naive(x: &[f64]) -> Vec<f64> {
        let n = x.len();
        (0..n)
            .map(|k| 2.0 * (0..n).map(|i| x[i] * cosine(k, i, n)).sum::<f64>())
            .collect()
    }

    #[test]
    fn matches_the_definition() {
        for n in [1usize, 2, 3, 6, 8, 12, 24, 32, 40] {
            let x: Vec<f64> = (0..n).map(|i| ((i * 37 + 11) % 256) as f64).collect();
            let plan = DctPlan::new(n, n);
            let mut out = vec![0.0; n];
            plan.run(&x, &mut out, &mut Vec::new());
            let want = naive(&x);
            for (a, b) in out.iter().zip(&want) {
                assert!((a - b).abs() < 1e-9, "n={n}: {out:?} vs {want:?}");
            }
            let partial = DctPlan::new(n, n.min(5));
            let mut few = vec![0.0; n.min(5)];
            partial.run(&x, &mut few, &mut Vec::new());
            assert_eq!(few.as_slice(), &out[..n.min(5)]);
        }
    }

    #[test]
    fn lanes_are_bit_identical_to_single_runs() {
        for (n, keep) in [(32usize, 8usize), (24, 6), (40, 10), (12, 12), (7, 3)] {
            let plan = DctPlan::new(n, keep);
            let inputs: Vec<Vec<f64>> = (0..LANES)
                .map(|lane| {
                    (0..n)
                        .map(|i| ((i * 37 + lane * 101 + 11) % 256) as f64)
                        .collect()
                })
                .collect();
            let mut data: Vec<Lanes> = (0..n)
                .map(|i| std::array::from_fn(|lane| inputs[lane][i]))
                .collect();
            let mut out = vec![[0.0; LANES]; keep];
            plan.run_lanes(&mut data, &mut out);
            for (lane, input) in inputs.iter().enumerate() {
                let mut want = vec![0.0; keep];
                plan.run(input, &mut want, &mut Vec::new());
                for k in 0..keep {
                    assert_eq!(out[k][lane].to_bits(), want[k].to_bits(), "n={n} k={k}");
                }
            }
        }
    }

    #[test]
    fn constant_input_has_exact_zeros() {
        let plan = DctPlan::new(32, 32);
        let mut out = vec![1.0; 32];
        plan.run(&[200.0; 32], &mut out, &mut Vec::new());
        assert_eq!(out[0], 2.0 * 32.0 * 200.0);
        assert!(out[1..].iter().all(|&v| v == 0.0), "{out:?}");
    }
}
