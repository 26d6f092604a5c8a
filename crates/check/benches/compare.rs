//! Per-pair comparison cost at 1280x720 (after capture): `retrace_check::compare` on a
//! page-like pair with one changed card, on an identical pair (the early exit), and, as the
//! baseline measured in the same run, a naive per-pixel loop (pixelmatch's YIQ delta per
//! pixel, no anti-aliasing detection, no boxes, no diff image). Target: well under 100 ms.
//!
//! `cargo bench -p retrace-check --bench compare` (then delete `$CARGO_TARGET_DIR/release`),
//! or without a release build: `cargo bench -p retrace-check --bench compare --profile dev`
//! (retrace-check, retrace-vision and the PNG crates are `opt-level = 3` in the dev profile).

use std::hint::black_box;

use criterion::Criterion;
use criterion::criterion_group;
use criterion::criterion_main;
use retrace_check::Frame;
use retrace_check::Thresholds;
use retrace_check::compare;

const WIDTH: u32 = 1280;
const HEIGHT: u32 = 720;

/// A page-like frame: white, grey text-like stripes, a few coloured blocks.
fn page() -> Frame {
    let mut rgba = Vec::with_capacity((WIDTH * HEIGHT * 4) as usize);
    for y in 0..HEIGHT {
        for x in 0..WIDTH {
            let text_line = (y / 8) % 3 == 0 && (x / 5) % 7 != 0 && x > 100 && x < 1100;
            let block = (200..260).contains(&y) && (x / 200) % 2 == 0;
            let pixel = if block {
                [15, 118, 110, 255]
            } else if text_line {
                let shade = 40 + ((x * 7 + y * 13) % 60) as u8;
                [shade, shade, shade, 255]
            } else {
                [255, 255, 255, 255]
            };
            rgba.extend_from_slice(&pixel);
        }
    }
    Frame {
        width: WIDTH,
        height: HEIGHT,
        rgba,
    }
}

/// The same page with a 336x236 card moved 4 px down.
fn shifted(base: &Frame) -> Frame {
    let mut out = base.clone();
    let row = (WIDTH * 4) as usize;
    for y in (264..500).rev() {
        let (from, to) = ((y - 4) as usize * row, y as usize * row);
        let (x0, x1) = (472 * 4, 808 * 4);
        let copy = base.rgba[from + x0..from + x1].to_vec();
        out.rgba[to + x0..to + x1].copy_from_slice(&copy);
    }
    out
}

/// pixelmatch's YIQ squared distance, per pixel, counted: the naive baseline.
fn naive(a: &Frame, b: &Frame, threshold: f64) -> u64 {
    let max_delta = 35_215.0 * threshold * threshold;
    let mut count = 0;
    for (p, q) in a.rgba.chunks_exact(4).zip(b.rgba.chunks_exact(4)) {
        let (r1, g1, b1) = (f64::from(p[0]), f64::from(p[1]), f64::from(p[2]));
        let (r2, g2, b2) = (f64::from(q[0]), f64::from(q[1]), f64::from(q[2]));
        let y = (r1 - r2) * 0.298_895_31 + (g1 - g2) * 0.586_622_47 + (b1 - b2) * 0.114_482_23;
        let i = (r1 - r2) * 0.595_977_99 - (g1 - g2) * 0.274_176_1 - (b1 - b2) * 0.321_801_89;
        let q = (r1 - r2) * 0.211_470_17 - (g1 - g2) * 0.522_617_11 + (b1 - b2) * 0.311_146_94;
        if 0.5053 * y * y + 0.299 * i * i + 0.1957 * q * q > max_delta {
            count += 1;
        }
    }
    count
}

fn benches(c: &mut Criterion) {
    let base = page();
    let changed = shifted(&base);
    let same = base.clone();
    let thresholds = Thresholds::default();
    let found = compare(&base, &changed, &thresholds);
    assert!(!found.boxes.is_empty(), "the bench pair must differ");
    let mut group = c.benchmark_group("compare_1280x720");
    group.bench_function("retrace_check_changed", |b| {
        b.iter(|| compare(black_box(&base), black_box(&changed), &thresholds))
    });
    group.bench_function("retrace_check_identical", |b| {
        b.iter(|| compare(black_box(&base), black_box(&same), &thresholds))
    });
    group.bench_function("naive_yiq_loop", |b| {
        b.iter(|| naive(black_box(&base), black_box(&changed), 0.1))
    });
    group.finish();
}

criterion_group!(compare_benches, benches);
criterion_main!(compare_benches);
