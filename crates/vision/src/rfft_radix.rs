//! pocketfft's backward real-FFT passes for radix 2, 3, 4 and 5 (`radb2` .. `radb5`),
//! translated line by line so every add and multiply happens in the same order as in the C++
//! (pHash's bits depend on the rounding). Names follow pocketfft: `cc` is a pass's input laid
//! out `[ido][radix][l1]`, `ch` its output laid out `[ido][l1][radix]`, `wa` its twiddles.
//! `pm` and `mulpm` are pocketfft's `PM` and `MULPM`.

use crate::lanes::Sample;

const SQRT2: f64 = std::f64::consts::SQRT_2;
const TAUR: f64 = -0.5;
const TAUI: f64 = 0.866_025_403_784_438_6;
const TR11: f64 = 0.309_016_994_374_947_45;
const TI11: f64 = 0.951_056_516_295_153_5;
const TR12: f64 = -0.809_016_994_374_947_5;
const TI12: f64 = 0.587_785_252_292_473_1;

/// `PM(a, b, c, d)`: `a = c + d; b = c - d`.
#[inline(always)]
pub(crate) fn pm<T: Sample>(c: T, d: T) -> (T, T) {
    (c + d, c - d)
}

/// `MULPM(a, b, c, d, e, f)` with the twiddle `(c, d)`: `a = c*e + d*f; b = c*f - d*e`.
#[inline(always)]
fn mulpm<T: Sample>(c: f64, d: f64, e: T, f: T) -> (T, T) {
    (e * c + f * d, f * c - e * d)
}

/// `MULPM` with the values first and constants `(e, f)`: `a = c*e + d*f; b = c*f - d*e`.
#[inline(always)]
fn mulpm_by<T: Sample>(c: T, d: T, e: f64, f: f64) -> (T, T) {
    (c * e + d * f, c * f - d * e)
}

/// Index helpers for one pass: `CC(a, b, c)`, `CH(a, b, c)` and `WA(x, i)`.
#[derive(Clone, Copy)]
struct Layout {
    ido: usize,
    l1: usize,
    radix: usize,
}

impl Layout {
    #[inline(always)]
    fn cc(self, a: usize, b: usize, c: usize) -> usize {
        a + self.ido * (b + self.radix * c)
    }

    #[inline(always)]
    fn ch(self, a: usize, b: usize, c: usize) -> usize {
        a + self.ido * (b + self.l1 * c)
    }

    #[inline(always)]
    fn wa(self, wa: &[f64], x: usize, i: usize) -> (f64, f64) {
        (
            wa[i - 2 + x * (self.ido - 1)],
            wa[i - 1 + x * (self.ido - 1)],
        )
    }
}

#[inline(always)]
pub(crate) fn radb2<T: Sample>(ido: usize, l1: usize, cc: &[T], ch: &mut [T], wa: &[f64]) {
    let at = Layout { ido, l1, radix: 2 };
    for k in 0..l1 {
        (ch[at.ch(0, k, 0)], ch[at.ch(0, k, 1)]) = pm(cc[at.cc(0, 0, k)], cc[at.cc(ido - 1, 1, k)]);
    }
    if ido.is_multiple_of(2) {
        for k in 0..l1 {
            ch[at.ch(ido - 1, k, 0)] = cc[at.cc(ido - 1, 0, k)] * 2.0;
            ch[at.ch(ido - 1, k, 1)] = cc[at.cc(0, 1, k)] * -2.0;
        }
    }
    if ido <= 2 {
        return;
    }
    for k in 0..l1 {
        for i in (2..ido).step_by(2) {
            let ic = ido - i;
            let tr2;
            let ti2;
            (ch[at.ch(i - 1, k, 0)], tr2) = pm(cc[at.cc(i - 1, 0, k)], cc[at.cc(ic - 1, 1, k)]);
            (ti2, ch[at.ch(i, k, 0)]) = pm(cc[at.cc(i, 0, k)], cc[at.cc(ic, 1, k)]);
            let (wr, wi) = at.wa(wa, 0, i);
            (ch[at.ch(i, k, 1)], ch[at.ch(i - 1, k, 1)]) = mulpm(wr, wi, ti2, tr2);
        }
    }
}

#[inline(always)]
pub(crate) fn radb3<T: Sample>(ido: usize, l1: usize, cc: &[T], ch: &mut [T], wa: &[f64]) {
    let at = Layout { ido, l1, radix: 3 };
    for k in 0..l1 {
        let tr2 = cc[at.cc(ido - 1, 1, k)] * 2.0;
        let cr2 = cc[at.cc(0, 0, k)] + tr2 * TAUR;
        ch[at.ch(0, k, 0)] = cc[at.cc(0, 0, k)] + tr2;
        let ci3 = cc[at.cc(0, 2, k)] * (2.0 * TAUI);
        (ch[at.ch(0, k, 2)], ch[at.ch(0, k, 1)]) = pm(cr2, ci3);
    }
    if ido == 1 {
        return;
    }
    for k in 0..l1 {
        for i in (2..ido).step_by(2) {
            let ic = ido - i;
            let tr2 = cc[at.cc(i - 1, 2, k)] + cc[at.cc(ic - 1, 1, k)];
            let ti2 = cc[at.cc(i, 2, k)] - cc[at.cc(ic, 1, k)];
            let cr2 = cc[at.cc(i - 1, 0, k)] + tr2 * TAUR;
            let ci2 = cc[at.cc(i, 0, k)] + ti2 * TAUR;
            ch[at.ch(i - 1, k, 0)] = cc[at.cc(i - 1, 0, k)] + tr2;
            ch[at.ch(i, k, 0)] = cc[at.cc(i, 0, k)] + ti2;
            let cr3 = (cc[at.cc(i - 1, 2, k)] - cc[at.cc(ic - 1, 1, k)]) * TAUI;
            let ci3 = (cc[at.cc(i, 2, k)] + cc[at.cc(ic, 1, k)]) * TAUI;
            let (dr3, dr2) = pm(cr2, ci3);
            let (di2, di3) = pm(ci2, cr3);
            let (wr, wi) = at.wa(wa, 0, i);
            (ch[at.ch(i, k, 1)], ch[at.ch(i - 1, k, 1)]) = mulpm(wr, wi, di2, dr2);
            let (wr, wi) = at.wa(wa, 1, i);
            (ch[at.ch(i, k, 2)], ch[at.ch(i - 1, k, 2)]) = mulpm(wr, wi, di3, dr3);
        }
    }
}

#[inline(always)]
pub(crate) fn radb4<T: Sample>(ido: usize, l1: usize, cc: &[T], ch: &mut [T], wa: &[f64]) {
    let at = Layout { ido, l1, radix: 4 };
    for k in 0..l1 {
        let (tr2, tr1) = pm(cc[at.cc(0, 0, k)], cc[at.cc(ido - 1, 3, k)]);
        let tr3 = cc[at.cc(ido - 1, 1, k)] * 2.0;
        let tr4 = cc[at.cc(0, 2, k)] * 2.0;
        (ch[at.ch(0, k, 0)], ch[at.ch(0, k, 2)]) = pm(tr2, tr3);
        (ch[at.ch(0, k, 3)], ch[at.ch(0, k, 1)]) = pm(tr1, tr4);
    }
    if ido.is_multiple_of(2) {
        for k in 0..l1 {
            let (ti1, ti2) = pm(cc[at.cc(0, 3, k)], cc[at.cc(0, 1, k)]);
            let (tr2, tr1) = pm(cc[at.cc(ido - 1, 0, k)], cc[at.cc(ido - 1, 2, k)]);
            ch[at.ch(ido - 1, k, 0)] = tr2 + tr2;
            ch[at.ch(ido - 1, k, 1)] = (tr1 - ti1) * SQRT2;
            ch[at.ch(ido - 1, k, 2)] = ti2 + ti2;
            ch[at.ch(ido - 1, k, 3)] = (tr1 + ti1) * -SQRT2;
        }
    }
    if ido <= 2 {
        return;
    }
    for k in 0..l1 {
        for i in (2..ido).step_by(2) {
            let ic = ido - i;
            let (tr2, tr1) = pm(cc[at.cc(i - 1, 0, k)], cc[at.cc(ic - 1, 3, k)]);
            let (ti1, ti2) = pm(cc[at.cc(i, 0, k)], cc[at.cc(ic, 3, k)]);
            let (tr4, ti3) = pm(cc[at.cc(i, 2, k)], cc[at.cc(ic, 1, k)]);
            let (tr3, ti4) = pm(cc[at.cc(i - 1, 2, k)], cc[at.cc(ic - 1, 1, k)]);
            let cr3;
            let ci3;
            (ch[at.ch(i - 1, k, 0)], cr3) = pm(tr2, tr3);
            (ch[at.ch(i, k, 0)], ci3) = pm(ti2, ti3);
            let (cr4, cr2) = pm(tr1, tr4);
            let (ci2, ci4) = pm(ti1, ti4);
            let (wr, wi) = at.wa(wa, 0, i);
            (ch[at.ch(i, k, 1)], ch[at.ch(i - 1, k, 1)]) = mulpm(wr, wi, ci2, cr2);
            let (wr, wi) = at.wa(wa, 1, i);
            (ch[at.ch(i, k, 2)], ch[at.ch(i - 1, k, 2)]) = mulpm(wr, wi, ci3, cr3);
            let (wr, wi) = at.wa(wa, 2, i);
            (ch[at.ch(i, k, 3)], ch[at.ch(i - 1, k, 3)]) = mulpm(wr, wi, ci4, cr4);
        }
    }
}

#[inline(always)]
pub(crate) fn radb5<T: Sample>(ido: usize, l1: usize, cc: &[T], ch: &mut [T], wa: &[f64]) {
    let at = Layout { ido, l1, radix: 5 };
    for k in 0..l1 {
        let c0 = cc[at.cc(0, 0, k)];
        let ti5 = cc[at.cc(0, 2, k)] + cc[at.cc(0, 2, k)];
        let ti4 = cc[at.cc(0, 4, k)] + cc[at.cc(0, 4, k)];
        let tr2 = cc[at.cc(ido - 1, 1, k)] + cc[at.cc(ido - 1, 1, k)];
        let tr3 = cc[at.cc(ido - 1, 3, k)] + cc[at.cc(ido - 1, 3, k)];
        ch[at.ch(0, k, 0)] = c0 + tr2 + tr3;
        let cr2 = c0 + tr2 * TR11 + tr3 * TR12;
        let cr3 = c0 + tr2 * TR12 + tr3 * TR11;
        let (ci5, ci4) = mulpm_by(ti5, ti4, TI11, TI12);
        (ch[at.ch(0, k, 4)], ch[at.ch(0, k, 1)]) = pm(cr2, ci5);
        (ch[at.ch(0, k, 3)], ch[at.ch(0, k, 2)]) = pm(cr3, ci4);
    }
    if ido == 1 {
        return;
    }
    for k in 0..l1 {
        for i in (2..ido).step_by(2) {
            let ic = ido - i;
            let (tr2, tr5) = pm(cc[at.cc(i - 1, 2, k)], cc[at.cc(ic - 1, 1, k)]);
            let (ti5, ti2) = pm(cc[at.cc(i, 2, k)], cc[at.cc(ic, 1, k)]);
            let (tr3, tr4) = pm(cc[at.cc(i - 1, 4, k)], cc[at.cc(ic - 1, 3, k)]);
            let (ti4, ti3) = pm(cc[at.cc(i, 4, k)], cc[at.cc(ic, 3, k)]);
            let (re, im) = (cc[at.cc(i - 1, 0, k)], cc[at.cc(i, 0, k)]);
            ch[at.ch(i - 1, k, 0)] = re + tr2 + tr3;
            ch[at.ch(i, k, 0)] = im + ti2 + ti3;
            let cr2 = re + tr2 * TR11 + tr3 * TR12;
            let ci2 = im + ti2 * TR11 + ti3 * TR12;
            let cr3 = re + tr2 * TR12 + tr3 * TR11;
            let ci3 = im + ti2 * TR12 + ti3 * TR11;
            let (cr5, cr4) = mulpm_by(tr5, tr4, TI11, TI12);
            let (ci5, ci4) = mulpm_by(ti5, ti4, TI11, TI12);
            let (dr4, dr3) = pm(cr3, ci4);
            let (di3, di4) = pm(ci3, cr4);
            let (dr5, dr2) = pm(cr2, ci5);
            let (di2, di5) = pm(ci2, cr5);
            for (x, di, dr) in [(0, di2, dr2), (1, di3, dr3), (2, di4, dr4), (3, di5, dr5)] {
                let (wr, wi) = at.wa(wa, x, i);
                (ch[at.ch(i, k, x + 1)], ch[at.ch(i - 1, k, x + 1)]) = mulpm(wr, wi, di, dr);
            }
        }
    }
}
