//! pocketfft's twiddle factors, bit for bit: `exp(2*pi*i*k/n)` as its `sincos_2pibyn` class
//! computes them (the C++ pocketfft that scipy's `scipy.fft` / `scipy.fftpack` use).
//!
//! Why not `(2*pi*k/n).cos()`: the DCT's last bits depend on every twiddle's last bit.
//! pocketfft takes the angle step `pi/(4n)` in x87 80-bit `long double` arithmetic (then rounds
//! it to `double`), folds each angle into the first octant, evaluates libm's `cos`/`sin` there,
//! and multiplies two table entries (`v1[k & mask] * v2[k >> shift]`) for each factor. This
//! module repeats those steps exactly; the 80-bit rounding is emulated with integers.

/// `(cos, sin)` of one angle.
type Root = (f64, f64);

/// The `n`-th roots of unity `exp(2*pi*i*k/n)` for `k` in `0..n`, as pocketfft computes them.
#[derive(Debug)]
pub(crate) struct UnitRoots {
    n: usize,
    mask: usize,
    shift: u32,
    fine: Vec<Root>,
    coarse: Vec<Root>,
}

impl UnitRoots {
    /// The table for `n` (at least 1).
    pub(crate) fn new(n: usize) -> UnitRoots {
        let angle = quarter_pi_over(n);
        let values = (n + 2) / 2;
        let mut shift = 1;
        while (1usize << shift) * (1usize << shift) < values {
            shift += 1;
        }
        let mask = (1usize << shift) - 1;
        let fine = (0..=mask)
            .map(|i| {
                if i == 0 {
                    (1.0, 0.0)
                } else {
                    octant_root(i, n, angle)
                }
            })
            .collect();
        let coarse = (0..values.div_ceil(mask + 1))
            .map(|i| {
                if i == 0 {
                    (1.0, 0.0)
                } else {
                    octant_root(i * (mask + 1), n, angle)
                }
            })
            .collect();
        UnitRoots {
            n,
            mask,
            shift,
            fine,
            coarse,
        }
    }

    /// `exp(2*pi*i*index/n)` as `(cos, sin)`; `index` is at most `n`.
    pub(crate) fn get(&self, index: usize) -> Root {
        let (index, sign) = if 2 * index <= self.n {
            (index, 1.0)
        } else {
            (self.n - index, -1.0)
        };
        let (ar, ai) = self.fine[index & self.mask];
        let (br, bi) = self.coarse[index >> self.shift];
        (ar * br - ai * bi, sign * (ar * bi + ai * br))
    }
}

/// pocketfft's `calc`: the root for `x` with `angle = pi/(4n)`, taking sin and cos of an angle
/// in the first octant and placing it by symmetry.
fn octant_root(x: usize, n: usize, angle: f64) -> Root {
    let at = |v: usize| v as f64 * angle;
    let x = x << 3;
    if x < 4 * n {
        if x < 2 * n {
            if x < n {
                return (at(x).cos(), at(x).sin());
            }
            return (at(2 * n - x).sin(), at(2 * n - x).cos());
        }
        let x = x - 2 * n;
        if x < n {
            return (-at(x).sin(), at(x).cos());
        }
        return (-at(2 * n - x).cos(), at(2 * n - x).sin());
    }
    let x = 8 * n - x;
    if x < 2 * n {
        if x < n {
            return (at(x).cos(), -at(x).sin());
        }
        return (at(2 * n - x).sin(), -at(2 * n - x).cos());
    }
    let x = x - 2 * n;
    if x < n {
        return (-at(x).sin(), -at(x).cos());
    }
    (-at(2 * n - x).cos(), -at(2 * n - x).sin())
}

/// pi rounded to the 64-bit significand of an x87 `long double`: `pi = PI_X87 * 2^-62`.
const PI_X87: u128 = 0xC90F_DAA2_2168_C235;

/// `double(0.25L * pi / n)` with `pi` and the division in x87 80-bit precision: the quotient is
/// rounded to 64 significant bits, then to 53 (both round-half-even), as the C++ does.
pub(crate) fn quarter_pi_over(n: usize) -> f64 {
    let n = n.max(1) as u128;
    // pi / (4n) = PI_X87 * 2^-64 / n = ((PI_X87 << 64) / n) * 2^-128.
    let numerator = PI_X87 << 64;
    let (quotient, remainder) = (numerator / n, numerator % n);
    let (long, long_exp) = round_half_even(quotient, remainder != 0, 64);
    let (double, double_exp) = round_half_even(long, false, 53);
    let exponent = long_exp + double_exp - 128;
    // `double` < 2^53 converts exactly, and scaling by a power of two is exact.
    double as f64 * power_of_two(exponent)
}

/// Rounds `value` (plus a fraction below its last bit when `sticky`) to at most `bits`
/// significant bits, half to even: `value ≈ mantissa * 2^exponent`.
fn round_half_even(value: u128, sticky: bool, bits: u32) -> (u128, i32) {
    let len = 128 - value.leading_zeros();
    if len <= bits {
        return (value, 0);
    }
    let drop = len - bits;
    let mut mantissa = value >> drop;
    let rest = value & ((1u128 << drop) - 1);
    let half = 1u128 << (drop - 1);
    if rest > half || (rest == half && (sticky || mantissa & 1 == 1)) {
        mantissa += 1;
    }
    let mut exponent = drop as i32;
    if mantissa >> bits != 0 {
        mantissa >>= 1;
        exponent += 1;
    }
    (mantissa, exponent)
}

/// `2^exponent` for exponents in the normal range.
fn power_of_two(exponent: i32) -> f64 {
    f64::from_bits(((exponent + 1023) as u64) << 52)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_angle_step_is_rounded_as_x87_then_double() {
        // Powers of two divide exactly: pi/(4n) is just pi scaled.
        assert_eq!(quarter_pi_over(32), std::f64::consts::PI / 128.0);
        assert_eq!(quarter_pi_over(128), std::f64::consts::PI / 512.0);
        // Reference values from exact rational arithmetic (Python `fractions`): pi rounded to
        // 64 bits, divided by 4n, rounded to 64 then to 53 bits. For 3, 12 and 48 this is one
        // ulp away from `PI / (4n)` in plain f64.
        for (n, bits) in [
            (3usize, 0x3fd0_c152_382d_7366u64),
            (12, 0x3fb0_c152_382d_7366),
            (48, 0x3f90_c152_382d_7366),
            (52, 0x3f8e_eebf_2ca2_ada8),
            (7, 0x3fbc_b91f_3bbb_a140),
            (100, 0x3f80_15bf_9217_271a),
        ] {
            assert_eq!(quarter_pi_over(n).to_bits(), bits, "n={n}");
        }
    }

    #[test]
    fn roots_are_on_the_unit_circle_where_they_should_be() {
        for n in [1usize, 2, 3, 5, 8, 12, 32, 128, 100] {
            let roots = UnitRoots::new(n);
            for k in 0..n {
                let (c, s) = roots.get(k);
                let angle = 2.0 * std::f64::consts::PI * k as f64 / n as f64;
                assert!((c - angle.cos()).abs() < 1e-15, "n={n} k={k}");
                assert!((s - angle.sin()).abs() < 1e-15, "n={n} k={k}");
            }
        }
        let quarter = UnitRoots::new(128).get(32);
        assert_eq!(quarter, (0.0, 1.0));
    }
}
