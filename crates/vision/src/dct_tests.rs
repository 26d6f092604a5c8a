use super::*;
use crate::lanes::LANES;

fn cosine(k: usize, i: usize, n: usize) -> f64 {
    (PI * (k * (2 * i + 1)) as f64 / (2 * n) as f64).cos()
}

fn naive(x: &[f64]) -> Vec<f64> {
    let n = x.len();
    (0..n)
        .map(|k| 2.0 * (0..n).map(|i| x[i] * cosine(k, i, n)).sum::<f64>())
        .collect()
}

fn dct(x: &[f64]) -> Vec<f64> {
    let mut out = vec![0.0; x.len()];
    DctPlan::new(x.len(), x.len()).run(x, &mut out);
    out
}

#[test]
fn matches_the_definition() {
    for n in [
        1usize,
        2,
        3,
        5,
        6,
        7,
        8,
        12,
        13,
        24,
        28,
        32,
        40,
        49,
        52,
        64,
        4 * 1009,
    ] {
        let x: Vec<f64> = (0..n).map(|i| ((i * 37 + 11) % 256) as f64).collect();
        let out = dct(&x);
        let want = naive(&x);
        for (a, b) in out.iter().zip(&want) {
            assert!((a - b).abs() < 1e-8 * n as f64, "n={n}: {a} vs {b}");
        }
        let keep = n.min(5);
        let mut few = vec![0.0; keep];
        DctPlan::new(n, keep).run(&x, &mut few);
        assert_eq!(few.as_slice(), &out[..keep], "n={n}");
    }
}

#[test]
fn lanes_are_bit_identical_to_single_runs() {
    for (n, keep) in [
        (32usize, 8usize),
        (24, 6),
        (40, 10),
        (12, 12),
        (7, 3),
        (28, 7),
    ] {
        let plan = DctPlan::new(n, keep);
        let inputs: Vec<Vec<f64>> = (0..LANES)
            .map(|lane| {
                (0..n)
                    .map(|i| ((i * 37 + lane * 101 + 11) % 256) as f64)
                    .collect()
            })
            .collect();
        let mut data: Vec<Lanes> = (0..n)
            .map(|i| Lanes(std::array::from_fn(|lane| inputs[lane][i])))
            .collect();
        let mut scratch = vec![Lanes::ZERO; n];
        let mut out = vec![Lanes::ZERO; keep];
        plan.run_lanes(&mut data, &mut scratch, &mut out);
        for (lane, input) in inputs.iter().enumerate() {
            let mut want = vec![0.0; keep];
            plan.run(input, &mut want);
            for k in 0..keep {
                assert_eq!(out[k].0[lane].to_bits(), want[k].to_bits(), "n={n} k={k}");
            }
        }
    }
}

fn bits(values: &[f64]) -> Vec<u64> {
    values.iter().map(|v| v.to_bits()).collect()
}

/// `scipy.fftpack.dct(x)[:8]` (scipy 1.17.1, so pocketfft) for `x[i] = (37i + 11) % 256`, as
/// `f64` bits: the last bits are pocketfft's rounding, which the direct sum does not match.
#[test]
fn matches_scipy_to_the_bit() {
    let cases: [(usize, [u64; 8]); 3] = [
        (
            32,
            [
                0x40be_2000_0000_0000,
                0xc074_49bc_ac34_a0cc,
                0xc07c_9581_a927_8a52,
                0xc065_6167_2175_e7ae,
                0xc080_6cca_1c14_8594,
                0xc065_2ee3_3603_118a,
                0xc086_512a_2533_fbe7,
                0xc068_2eba_7e4a_4764,
            ],
        ),
        // Radix 3 and 4 passes, and twiddles whose angle step rounds differently in x87.
        (
            48,
            [
                0x40c8_1800_0000_0000,
                0xc087_fc34_02b6_96c2,
                0xc06b_b000_4171_76d4,
                0xc07a_a011_ebc8_eb42,
                0xc06c_856f_a6f1_c41f,
                0xc07a_e035_d9c2_7133,
                0xc06e_24b1_fcf5_44b8,
                0xc07e_4818_f49e_8cd8,
            ],
        ),
        // The general radix (7) pass.
        (
            28,
            [
                0x40bb_ac00_0000_0000,
                0xc086_be4c_ba05_ba17,
                0,
                0xc084_d80d_33cf_ddb7,
                0,
                0xc08a_77ad_67fd_31d2,
                0,
                0xc09c_e1bb_1834_61c1,
            ],
        ),
    ];
    for (n, want) in cases {
        let x: Vec<f64> = (0..n).map(|i| ((i * 37 + 11) % 256) as f64).collect();
        let mut out = [0.0; 8];
        DctPlan::new(n, 8).run(&x, &mut out);
        assert_eq!(bits(&out), want, "n={n}");
    }
}

#[test]
fn constant_input_has_exact_zeros() {
    let out = dct(&[200.0; 32]);
    assert_eq!(out[0], 2.0 * 32.0 * 200.0);
    assert!(out[1..].iter().all(|&v| v == 0.0), "{out:?}");
}
