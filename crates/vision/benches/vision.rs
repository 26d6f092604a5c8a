//! Criterion benches for every vision operation, on the shared screenshots.
//! Run: `cargo bench -p retrace-vision --bench vision`. `scripts/bench-vision.sh` compares
//! with the peers.
//!
//! What replay runs at each poll of the screen, in one run with its baselines:
//! - `screen_decode/*`: `decode_png` of a 1280x800 screenshot (replay's `BackendScreen`
//!   decodes every screenshot with it) against the `png` crate's own row reader, which
//!   `decode_png` used for every PNG before (`png_crate_rows`);
//! - `region_from_png/*`: from the PNG bytes to the hash of the 100 px region around an
//!   action point, at the middle of the screenshot and near its top and bottom:
//!   `decode_png` then `region_hash` (replay's path today) against `png_region_hash`
//!   (decoding only the rows down to the region's bottom), which replay can switch to for
//!   screenshots it needs nothing else of.

use std::hint::black_box;
use std::path::PathBuf;

use criterion::Criterion;
use criterion::criterion_group;
use criterion::criterion_main;
use retrace_test_support::vectors_dir;
use retrace_vision::DiffOptions;
use retrace_vision::Image;
use retrace_vision::Method;
use retrace_vision::Region;
use retrace_vision::action_region;
use retrace_vision::decode_png;
use retrace_vision::diff_rgba;
use retrace_vision::encode_png_rgba;
use retrace_vision::gray_hash;
use retrace_vision::gray_region;
use retrace_vision::is_stable;
use retrace_vision::png_region_hash;
use retrace_vision::region_hash;
use retrace_vision::resize_lanczos;
use retrace_vision::search_near;

const SMALL: &str = "images/screens/rust_std_index_1280x800.png";
const SMALL_SHIFT: &str = "images/screens/rust_std_index_1280x800__shift.png";
const LARGE: &str = "images/screens/rust_book_data_types_1920x1080.png";
const LARGE_TEXT: &str = "images/screens/rust_book_data_types_1920x1080__text.png";

fn path(name: &str) -> PathBuf {
    vectors_dir().join(name)
}

fn bytes(name: &str) -> Vec<u8> {
    std::fs::read(path(name)).unwrap_or_else(|e| panic!("{name}: {e}"))
}

fn image(name: &str) -> Image {
    decode_png(&bytes(name)).unwrap_or_else(|e| panic!("{name}: {e}"))
}

/// The `png` crate's reader, row by row into one buffer, as `decode_png` read every PNG
/// before plain PNGs got their own decoder: the baseline of `screen_decode/*`.
fn png_crate_rows(bytes: &[u8]) -> Vec<u8> {
    let mut decoder = png::Decoder::new(std::io::Cursor::new(bytes));
    decoder.set_transformations(png::Transformations::EXPAND);
    let mut reader = decoder.read_info().unwrap_or_else(|e| panic!("{e}"));
    let size = reader.output_buffer_size().unwrap_or_default();
    let mut buffer = vec![0u8; size];
    let row_bytes = size / reader.info().height as usize;
    for row in buffer.chunks_exact_mut(row_bytes) {
        reader.read_row(row).unwrap_or_else(|e| panic!("{e}"));
    }
    buffer
}

fn benches(c: &mut Criterion) {
    let small_bytes = bytes(SMALL);
    let small = image(SMALL);
    let shifted = image(SMALL_SHIFT);
    let (w, h) = (small.width(), small.height());

    c.bench_function("screen_decode/decode_png_1280x800", |b| {
        b.iter(|| decode_png(black_box(&small_bytes)))
    });
    c.bench_function("screen_decode/png_crate_rows_1280x800", |b| {
        b.iter(|| png_crate_rows(black_box(&small_bytes)))
    });
    for (name, point) in [
        ("middle", (640, 400)),
        ("top", (640, 60)),
        ("bottom", (640, 760)),
    ] {
        let region = action_region(point, 100, w, h);
        c.bench_function(&format!("region_from_png/png_region_hash/{name}"), |b| {
            b.iter(|| png_region_hash(black_box(&small_bytes), region, Method::Phash, 8))
        });
        c.bench_function(
            &format!("region_from_png/decode_png_then_region_hash/{name}"),
            |b| {
                b.iter(|| {
                    let img = decode_png(black_box(&small_bytes)).map_err(|e| e.to_string())?;
                    region_hash(&img, region, Method::Phash, 8).map_err(|e| e.to_string())
                })
            },
        );
    }
    for method in [Method::Phash, Method::Ahash, Method::Dhash] {
        c.bench_function(&format!("region_hash_100px_{method}"), |b| {
            b.iter(|| {
                let region = action_region(black_box((640, 400)), 100, w, h);
                region_hash(&small, region, method, 8)
            })
        });
    }
    let region = action_region((640, 400), 100, w, h);
    c.bench_function("gray_region_100px", |b| {
        b.iter(|| gray_region(black_box(&small), region))
    });
    let gray = gray_region(&small, region).unwrap_or_else(|e| panic!("{e}"));
    c.bench_function("resize_100px_to_32", |b| {
        b.iter(|| resize_lanczos(black_box(&gray), 32, 32))
    });
    let thumb = resize_lanczos(&gray, 32, 32);
    c.bench_function("gray_hash_32px_phash", |b| {
        b.iter(|| gray_hash(black_box(&thumb), Method::Phash, 8))
    });
    let full = gray_region(&small, Region::full(w, h)).unwrap_or_else(|e| panic!("{e}"));
    c.bench_function("gray_full_1280x800", |b| {
        b.iter(|| gray_region(black_box(&small), Region::full(w, h)))
    });
    c.bench_function("resize_1280x800_to_32", |b| {
        b.iter(|| resize_lanczos(black_box(&full), 32, 32))
    });
    let recorded = region_hash(
        &small,
        action_region((640, 400), 100, w, h),
        Method::Phash,
        8,
    )
    .unwrap_or_else(|e| panic!("{e}"));
    c.bench_function("search_near_radius_150_1280x800", |b| {
        b.iter(|| {
            search_near(
                &shifted,
                black_box(&recorded),
                Method::Phash,
                (640, 400),
                100,
                150,
            )
        })
    });
    c.bench_function("is_stable_1280x800_equal", |b| {
        let copy = small.clone();
        b.iter(|| is_stable(&small, black_box(&copy), None))
    });

    let large_a = image(LARGE).to_rgba().into_owned();
    let large_b = image(LARGE_TEXT).to_rgba().into_owned();
    let (lw, lh) = (1920, 1080);
    let with_image = DiffOptions::default();
    let count_only = DiffOptions {
        draw: false,
        ..DiffOptions::default()
    };
    c.bench_function("diff_1920x1080_with_image", |b| {
        b.iter(|| diff_rgba(black_box(&large_a), &large_b, lw, lh, &with_image))
    });
    c.bench_function("diff_1920x1080_count_only", |b| {
        b.iter(|| diff_rgba(black_box(&large_a), &large_b, lw, lh, &count_only))
    });
    let diff_image = diff_rgba(&large_a, &large_b, lw, lh, &with_image)
        .unwrap_or_else(|e| panic!("{e}"))
        .diff_image;
    c.bench_function("encode_diff_png_1920x1080", |b| {
        b.iter(|| encode_png_rgba(lw, lh, black_box(&diff_image)))
    });
}

criterion_group!(vision, benches);
criterion_main!(vision);
