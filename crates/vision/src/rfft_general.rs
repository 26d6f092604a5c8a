//! pocketfft's general backward real-FFT pass `radbg`, for prime radices above 5, translated
//! line by line (same operation order, so the same rounding) from the C++. Names follow
//! pocketfft: `cc`/`ch` are the pass's two buffers (both written), `wa` its twiddles and
//! `csarr` the radix's own roots of unity.

use crate::lanes::Sample;
use crate::rfft_radix::pm;

#[inline(always)]
pub(crate) fn radbg<T: Sample>(
    ido: usize,
    ip: usize,
    l1: usize,
    cc: &mut [T],
    ch: &mut [T],
    wa: &[f64],
    csarr: &[f64],
) {
    let ipph = ip.div_ceil(2);
    let idl1 = ido * l1;
    // CC(a, b, c) on cc; CH(a, b, c) on ch and C1(a, b, c) on cc share one layout; C2/CH2.
    let cc_at = |a: usize, b: usize, c: usize| a + ido * (b + ip * c);
    let ch_at = |a: usize, b: usize, c: usize| a + ido * (b + l1 * c);
    let c2_at = |a: usize, b: usize| a + idl1 * b;

    for k in 0..l1 {
        for i in 0..ido {
            ch[ch_at(i, k, 0)] = cc[cc_at(i, 0, k)];
        }
    }
    for j in 1..ipph {
        let (jc, j2) = (ip - j, 2 * j - 1);
        for k in 0..l1 {
            ch[ch_at(0, k, j)] = cc[cc_at(ido - 1, j2, k)] * 2.0;
            ch[ch_at(0, k, jc)] = cc[cc_at(0, j2 + 1, k)] * 2.0;
        }
    }
    if ido != 1 {
        for j in 1..ipph {
            let (jc, j2) = (ip - j, 2 * j - 1);
            for k in 0..l1 {
                for i in (1..=ido - 2).step_by(2) {
                    let ic = ido - i - 2;
                    let (a, b) = (cc[cc_at(i, j2 + 1, k)], cc[cc_at(ic, j2, k)]);
                    ch[ch_at(i, k, j)] = a + b;
                    ch[ch_at(i, k, jc)] = a - b;
                    let (a, b) = (cc[cc_at(i + 1, j2 + 1, k)], cc[cc_at(ic + 1, j2, k)]);
                    ch[ch_at(i + 1, k, j)] = a - b;
                    ch[ch_at(i + 1, k, jc)] = a + b;
                }
            }
        }
    }
    for l in 1..ipph {
        let lc = ip - l;
        for ik in 0..idl1 {
            cc[c2_at(ik, l)] = ch[c2_at(ik, 0)]
                + ch[c2_at(ik, 1)] * csarr[2 * l]
                + ch[c2_at(ik, 2)] * csarr[4 * l];
            cc[c2_at(ik, lc)] =
                ch[c2_at(ik, ip - 1)] * csarr[2 * l + 1] + ch[c2_at(ik, ip - 2)] * csarr[4 * l + 1];
        }
        let mut iang = 2 * l;
        let mut next_root = || {
            iang += l;
            if iang > ip {
                iang -= ip;
            }
            (csarr[2 * iang], csarr[2 * iang + 1])
        };
        let (mut j, mut jc) = (3, ip - 3);
        while j + 3 < ipph {
            let (ar1, ai1) = next_root();
            let (ar2, ai2) = next_root();
            let (ar3, ai3) = next_root();
            let (ar4, ai4) = next_root();
            for ik in 0..idl1 {
                let ch2 = |b: usize| ch[c2_at(ik, b)];
                cc[c2_at(ik, l)] = cc[c2_at(ik, l)]
                    + (ch2(j) * ar1 + ch2(j + 1) * ar2 + ch2(j + 2) * ar3 + ch2(j + 3) * ar4);
                cc[c2_at(ik, lc)] = cc[c2_at(ik, lc)]
                    + (ch2(jc) * ai1 + ch2(jc - 1) * ai2 + ch2(jc - 2) * ai3 + ch2(jc - 3) * ai4);
            }
            j += 4;
            jc -= 4;
        }
        while j + 1 < ipph {
            let (ar1, ai1) = next_root();
            let (ar2, ai2) = next_root();
            for ik in 0..idl1 {
                let ch2 = |b: usize| ch[c2_at(ik, b)];
                cc[c2_at(ik, l)] = cc[c2_at(ik, l)] + (ch2(j) * ar1 + ch2(j + 1) * ar2);
                cc[c2_at(ik, lc)] = cc[c2_at(ik, lc)] + (ch2(jc) * ai1 + ch2(jc - 1) * ai2);
            }
            j += 2;
            jc -= 2;
        }
        while j < ipph {
            let (war, wai) = next_root();
            for ik in 0..idl1 {
                cc[c2_at(ik, l)] = cc[c2_at(ik, l)] + ch[c2_at(ik, j)] * war;
                cc[c2_at(ik, lc)] = cc[c2_at(ik, lc)] + ch[c2_at(ik, jc)] * wai;
            }
            j += 1;
            jc -= 1;
        }
    }
    for j in 1..ipph {
        for ik in 0..idl1 {
            ch[c2_at(ik, 0)] = ch[c2_at(ik, 0)] + ch[c2_at(ik, j)];
        }
    }
    for j in 1..ipph {
        let jc = ip - j;
        for k in 0..l1 {
            (ch[ch_at(0, k, jc)], ch[ch_at(0, k, j)]) = pm(cc[ch_at(0, k, j)], cc[ch_at(0, k, jc)]);
        }
    }
    if ido == 1 {
        return;
    }
    for j in 1..ipph {
        let jc = ip - j;
        for k in 0..l1 {
            for i in (1..=ido - 2).step_by(2) {
                let (a, b) = (cc[ch_at(i, k, j)], cc[ch_at(i + 1, k, jc)]);
                ch[ch_at(i, k, j)] = a - b;
                ch[ch_at(i, k, jc)] = a + b;
                let (a, b) = (cc[ch_at(i + 1, k, j)], cc[ch_at(i, k, jc)]);
                ch[ch_at(i + 1, k, j)] = a + b;
                ch[ch_at(i + 1, k, jc)] = a - b;
            }
        }
    }
    for j in 1..ip {
        let start = (j - 1) * (ido - 1);
        for k in 0..l1 {
            for (step, i) in (1..=ido - 2).step_by(2).enumerate() {
                let idij = start + 2 * step;
                let (t1, t2) = (ch[ch_at(i, k, j)], ch[ch_at(i + 1, k, j)]);
                ch[ch_at(i, k, j)] = t1 * wa[idij] - t2 * wa[idij + 1];
                ch[ch_at(i + 1, k, j)] = t2 * wa[idij] + t1 * wa[idij + 1];
            }
        }
    }
}
