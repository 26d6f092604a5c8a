//! Hashing a whole screenshot straight from its PNG bytes, without keeping its pixels.
//!
//! [`png_hash`] is `decode_png` followed by `hash`, bit for bit, but streamed in batches of
//! rows through two stages: the calling thread inflates the image data (`zlib-rs`, straight
//! into the batch buffers, see [`crate::image_data`]), and a long-lived worker thread (see
//! [`crate::workers`]) undoes the PNG row filters (Paeth with the short-chain method of
//! [`crate::paeth`]), converts to grayscale and runs the horizontal LANCZOS pass. The two take
//! about the same time, so on two free cores they overlap. When the worker falls behind (it
//! is slower, or gets no CPU on a busy machine) the inflating thread puts batches through the
//! second stage itself, so a busy machine costs little more than doing everything on one
//! thread. Only batches of rows and the narrow horizontal result are kept, never the whole
//! image. Small or unusual PNGs (interlaced, not 8-bit, palette, transparency key, no
//! downscale) simply go through `decode_png` and `hash`.

use std::collections::VecDeque;
use std::sync::Arc;
use std::sync::Condvar;
use std::sync::Mutex;
use std::sync::MutexGuard;
use std::sync::PoisonError;

use crate::error::VisionError;
use crate::gray::convert_rows;
use crate::hash::ImageHash;
use crate::hash::Method;
use crate::hash::hash;
use crate::hash::thumbnail_hash;
use crate::hash::thumbnail_size;
use crate::image::DEFAULT_MAX_PIXELS;
use crate::image::PixelLayout;
use crate::image::decode_png_with_limit;
use crate::image::open_png;
use crate::image_data::inflate_rows;
use crate::paeth::Paeth;
use crate::resize::Coefficients;
use crate::resize::RowSource;
use crate::resize::coefficients;
use crate::resize::horizontal_pass;
use crate::resize::runs_vertical_first;
use crate::resize::vertical_pass;
use crate::workers::run_beside;

/// Rows handed from one stage of the pipeline to the next at a time (64 measured a little
/// faster than 32 or 128).
const BATCH_ROWS: usize = 64;

/// Batches in flight at most: the inflater then puts one through the second stage itself
/// (or waits for the worker's) rather than get further ahead, which would only take memory.
const MAX_BATCHES: usize = 6;

/// Batch buffers kept from one call to the next: fresh memory costs page faults on every
/// call (about a tenth of the time).
static SPARE_BATCHES: Mutex<Vec<Vec<u8>>> = Mutex::new(Vec::new());

/// The batch buffers kept by the last call (none if another call has them).
fn take_batches() -> Vec<Vec<u8>> {
    SPARE_BATCHES
        .try_lock()
        .map(|mut kept| std::mem::take(&mut *kept))
        .unwrap_or_default()
}

/// Keeps batch buffers for the next call.
fn keep_batches(mut batches: Vec<Vec<u8>>) {
    batches.truncate(MAX_BATCHES);
    if let Ok(mut kept) = SPARE_BATCHES.try_lock()
        && kept.len() < batches.len()
    {
        *kept = batches;
    }
}

/// Images below this many pixels are decoded and hashed by `decode_png` and `hash`: the
/// pipeline would cost more than it saves.
const PIPELINE_PIXELS: u64 = 1 << 18;

/// Hashes the whole image of a PNG file: exactly `hash(&decode_png(bytes)?, method,
/// hash_size)` (Python `imagehash.<method>(Image.open(file), hash_size)`), faster and in less
/// memory for screenshots. The PNG is subject to [`DEFAULT_MAX_PIXELS`].
pub fn png_hash(bytes: &[u8], method: Method, hash_size: u32) -> Result<ImageHash, VisionError> {
    if hash_size < 2 {
        return Err(VisionError::HashSize(hash_size));
    }
    let reader = open_png(bytes, DEFAULT_MAX_PIXELS)?;
    let (width, height) = (reader.info().width, reader.info().height);
    let (color, depth) = reader.output_color_type();
    let layout = match color {
        png::ColorType::Grayscale => Some(PixelLayout::Gray),
        png::ColorType::GrayscaleAlpha => Some(PixelLayout::GrayAlpha),
        png::ColorType::Rgb => Some(PixelLayout::Rgb),
        png::ColorType::Rgba => Some(PixelLayout::Rgba),
        png::ColorType::Indexed => None,
    };
    let (tw, th) = thumbnail_size(method, hash_size);
    let simple = layout.filter(|_| {
        depth == png::BitDepth::Eight
            && !reader.info().interlaced
            && reader.info().trns.is_none()
            && u64::from(width) * u64::from(height) >= PIPELINE_PIXELS
            && width != tw
            && height != th
            && !runs_vertical_first(width as usize, height as usize, tw as usize, th as usize)
    });
    drop(reader);
    let Some(layout) = simple else {
        let image = decode_png_with_limit(bytes, DEFAULT_MAX_PIXELS)?;
        return hash(&image, method, hash_size);
    };

    let (w, h, out_w) = (width as usize, height as usize, tw as usize);
    let bpp = layout.channels();
    let row_bytes = w * bpp;
    let horizontal = coefficients(w, out_w);
    let vertical = coefficients(h, th as usize);
    let stage = Stage {
        unfilterer: Unfilterer {
            previous: vec![0u8; row_bytes],
            paeth: Paeth::default(),
            row_len: row_bytes + 1,
            bpp,
        },
        resampler: Resampler {
            temp: Vec::with_capacity(h * out_w),
            gray: Vec::new(),
            layout,
            width: w,
            row_len: row_bytes + 1,
            horizontal,
            out_w,
        },
        result: Ok(()),
    };
    let temp = pipeline(bytes, h, row_bytes + 1, stage)?;
    if temp.len() != h * out_w {
        return Err(VisionError::Decode(format!(
            "image data ends after {} of {h} rows",
            temp.len() / out_w
        )));
    }
    let small = crate::gray::GrayImage {
        width: tw,
        height: th,
        data: vertical_pass(&temp, out_w, 0, &vertical, th as usize),
    };
    Ok(thumbnail_hash(&small, method, hash_size))
}

/// The second stage of the pipeline (the first, inflating, runs on the calling thread):
/// batch by batch, [`Unfilterer`] then [`Resampler`].
struct Stage {
    unfilterer: Unfilterer,
    resampler: Resampler,
    /// The first error, after which batches are skipped.
    result: Result<(), VisionError>,
}

impl Stage {
    fn process(&mut self, batch: &mut [u8]) {
        if self.result.is_ok() {
            self.result = self.unfilterer.unfilter(batch);
            if self.result.is_ok() {
                self.resampler.resample(batch);
            }
        }
    }
}

/// Undoes the row filters of each batch in turn.
struct Unfilterer {
    /// The last row of the batch before (zeros above the first row).
    previous: Vec<u8>,
    paeth: Paeth,
    row_len: usize,
    bpp: usize,
}

impl Unfilterer {
    fn unfilter(&mut self, batch: &mut [u8]) -> Result<(), VisionError> {
        unfilter_batch(
            &mut self.paeth,
            batch,
            self.row_len,
            self.bpp,
            &mut self.previous,
        )
    }
}

/// Converts each batch in turn to grayscale and runs the horizontal LANCZOS pass.
struct Resampler {
    /// The horizontal pass of every row so far.
    temp: Vec<u8>,
    gray: Vec<u8>,
    layout: PixelLayout,
    width: usize,
    row_len: usize,
    horizontal: Arc<Coefficients>,
    out_w: usize,
}

impl Resampler {
    fn resample(&mut self, batch: &[u8]) {
        let w = self.width;
        // Rows keep their filter byte in front: skip it.
        let rows = batch.len() / self.row_len;
        self.gray.resize(rows * w, 0);
        convert_rows(self.layout, &batch[1..], self.row_len, w, &mut self.gray);
        let src = RowSource {
            data: &self.gray,
            stride: w,
            left: 0,
            width: w,
        };
        self.temp
            .extend_from_slice(&horizontal_pass(src, &self.horizontal, self.out_w, 0..rows));
    }
}

/// Inflated batches waiting for the second stage, and used batches to fill again.
#[derive(Default)]
struct Queue {
    waiting: VecDeque<Vec<u8>>,
    spare: Vec<Vec<u8>>,
    /// Set once the inflater has sent every batch (or given up).
    finished: bool,
    /// Whether the worker waits for a batch (only then is it worth waking).
    idle: bool,
}

/// What the inflating thread and the worker share.
struct Shared {
    queue: Mutex<Queue>,
    ready: Condvar,
    /// Held while a batch goes through the second stage: batches leave the queue and go
    /// through it under this lock, so they do in order, whichever thread does them.
    stage: Mutex<Stage>,
}

impl Shared {
    fn queue(&self) -> MutexGuard<'_, Queue> {
        self.queue.lock().unwrap_or_else(PoisonError::into_inner)
    }

    fn stage(&self) -> MutexGuard<'_, Stage> {
        self.stage.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Puts the next waiting batch through the second stage; `false` if none is waiting.
    fn process_one(&self, stage: &mut Stage) -> bool {
        let Some(mut batch) = self.queue().waiting.pop_front() else {
            return false;
        };
        stage.process(&mut batch);
        self.queue().spare.push(batch);
        true
    }

    /// Marks the inflater done and wakes the worker.
    fn finish(&self) {
        self.queue().finished = true;
        self.ready.notify_all();
    }

    /// The worker: puts batches through the second stage as they come, until the inflater
    /// is done and none is left.
    fn work(&self) {
        loop {
            {
                let mut queue = self.queue();
                while queue.waiting.is_empty() && !queue.finished {
                    queue.idle = true;
                    queue = self
                        .ready
                        .wait(queue)
                        .unwrap_or_else(PoisonError::into_inner);
                    queue.idle = false;
                }
                if queue.waiting.is_empty() {
                    return;
                }
            }
            let mut stage = self.stage();
            while self.process_one(&mut stage) {}
        }
    }
}

/// Marks the inflater done however it ends (even by a panic), so the worker never waits
/// forever.
struct FinishOnDrop<'a>(&'a Shared);

impl Drop for FinishOnDrop<'_> {
    fn drop(&mut self) {
        self.0.finish();
    }
}

/// Batches waiting beyond which the inflating thread does one itself (the worker is not
/// keeping up, or not getting a CPU).
const HELP_AT: usize = 2;

/// Inflates the image data on this thread and puts the batches through `stage` on the
/// worker (or here, when the worker falls behind); returns the horizontal pass of every row.
fn pipeline(bytes: &[u8], h: usize, row_len: usize, stage: Stage) -> Result<Vec<u8>, VisionError> {
    let shared = Arc::new(Shared {
        queue: Mutex::new(Queue {
            spare: take_batches(),
            ..Queue::default()
        }),
        ready: Condvar::new(),
        stage: Mutex::new(stage),
    });
    let worker = Arc::clone(&shared);
    let mut in_flight = 0;
    let inflated = run_beside(Box::new(move || worker.work()), || {
        let _finish = FinishOnDrop(&shared);
        inflate_rows(
            bytes,
            h,
            row_len,
            BATCH_ROWS,
            || loop {
                if let Some(batch) = shared.queue().spare.pop() {
                    return batch;
                }
                if in_flight < MAX_BATCHES {
                    in_flight += 1;
                    return Vec::new();
                }
                // Every batch is on its way: do one (or wait for the worker's).
                let mut stage = shared.stage();
                shared.process_one(&mut stage);
            },
            |batch| {
                let (waiting, idle) = {
                    let mut queue = shared.queue();
                    queue.waiting.push_back(batch);
                    (queue.waiting.len(), queue.idle)
                };
                if idle {
                    shared.ready.notify_one();
                }
                if waiting >= HELP_AT
                    && let Ok(mut stage) = shared.stage.try_lock()
                {
                    shared.process_one(&mut stage);
                }
                true
            },
        )
    });
    shared.finish();
    // Do what is left (after the batch the worker may be doing).
    let mut stage = shared.stage();
    while shared.process_one(&mut stage) {}
    keep_batches(std::mem::take(&mut shared.queue().spare));
    inflated?;
    std::mem::replace(&mut stage.result, Ok(()))?;
    Ok(std::mem::take(&mut stage.resampler.temp))
}

/// Undoes the PNG filters of a batch of rows in place: each row is `row_len` bytes, a filter
/// byte then 8-bit samples, `bpp` bytes per pixel. `previous` holds the unfiltered row above
/// the batch and is left holding the batch's last row.
fn unfilter_batch(
    paeth: &mut Paeth,
    batch: &mut [u8],
    row_len: usize,
    bpp: usize,
    previous: &mut [u8],
) -> Result<(), VisionError> {
    let rows = batch.len() / row_len;
    for r in 0..rows {
        let (above, rest) = batch.split_at_mut(r * row_len);
        let (filter, row) = rest[..row_len].split_at_mut(1);
        let prev: &[u8] = match r {
            0 => previous,
            _ => &above[(r - 1) * row_len + 1..],
        };
        unfilter_row(paeth, filter[0], bpp, prev, row)?;
    }
    if rows > 0 {
        previous.copy_from_slice(&batch[(rows - 1) * row_len + 1..rows * row_len]);
    }
    Ok(())
}

/// Undoes the PNG filter `filter` of one row of 8-bit samples, `bpp` (1 to 4) bytes per
/// pixel, given the previous row already unfiltered (zeros for the first row).
fn unfilter_row(
    paeth: &mut Paeth,
    filter: u8,
    bpp: usize,
    previous: &[u8],
    row: &mut [u8],
) -> Result<(), VisionError> {
    match bpp {
        1 => unfilter_pixels::<1>(paeth, filter, previous, row),
        2 => unfilter_pixels::<2>(paeth, filter, previous, row),
        3 => unfilter_pixels::<3>(paeth, filter, previous, row),
        4 => unfilter_pixels::<4>(paeth, filter, previous, row),
        _ => Err(VisionError::Decode(format!("{bpp} bytes per pixel"))),
    }
}

/// [`unfilter_row`] for `BPP` bytes per pixel, a pixel at a time (the bytes of one pixel are
/// independent, so they go side by side).
#[inline(always)]
fn unfilter_pixels<const BPP: usize>(
    paeth: &mut Paeth,
    filter: u8,
    previous: &[u8],
    row: &mut [u8],
) -> Result<(), VisionError> {
    let pixels = row.chunks_exact_mut(BPP).zip(previous.chunks_exact(BPP));
    match filter {
        0 => {}
        1 => {
            let mut a = [0u8; BPP];
            for (x, _) in pixels {
                for i in 0..BPP {
                    x[i] = x[i].wrapping_add(a[i]);
                    a[i] = x[i];
                }
            }
        }
        2 => {
            for (x, &b) in row.iter_mut().zip(previous) {
                *x = x.wrapping_add(b);
            }
        }
        3 => {
            let mut a = [0u16; BPP];
            for (x, b) in pixels {
                for i in 0..BPP {
                    x[i] = x[i].wrapping_add(((a[i] + u16::from(b[i])) / 2) as u8);
                    a[i] = u16::from(x[i]);
                }
            }
        }
        4 => {
            if !paeth.unfilter(BPP, previous, row) {
                paeth_scalar::<BPP>(previous, row);
            }
        }
        other => {
            return Err(VisionError::Decode(format!("unknown filter type {other}")));
        }
    }
    Ok(())
}

/// The Paeth filter undone a pixel at a time in scalar code.
#[inline(always)]
fn paeth_scalar<const BPP: usize>(previous: &[u8], row: &mut [u8]) {
    let (mut a, mut c) = ([0i16; BPP], [0i16; BPP]);
    for (x, b) in row.chunks_exact_mut(BPP).zip(previous.chunks_exact(BPP)) {
        for i in 0..BPP {
            let b = i16::from(b[i]);
            x[i] = x[i].wrapping_add(paeth(a[i], b, c[i]));
            a[i] = i16::from(x[i]);
            c[i] = b;
        }
    }
}

/// The Paeth predictor (the branch-free form of `stb_image`, as the `png` crate uses it).
#[inline(always)]
fn paeth(a: i16, b: i16, c: i16) -> u8 {
    let thresh = c * 3 - (a + b);
    let lo = a.min(b);
    let hi = a.max(b);
    let t0 = if hi <= thresh { lo } else { c };
    let t1 = if thresh <= lo { hi } else { t0 };
    t1 as u8
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::image::decode_png;

    /// A screenshot-like test picture: flat bands and gradients.
    fn picture(w: u32, h: u32, channels: u32) -> Vec<u8> {
        (0..w * h * channels)
            .map(|i| {
                let (p, c) = (i / channels, i % channels);
                let (x, y) = (p % w, p / w);
                if c == 3 {
                    200 + (x % 50) as u8
                } else if (y / 30) % 3 == 0 {
                    250
                } else {
                    ((x * 7 + y * 3 + c * 50 + (x * y) % 13) % 256) as u8
                }
            })
            .collect()
    }

    fn encode(w: u32, h: u32, color: png::ColorType, filter: png::Filter, data: &[u8]) -> Vec<u8> {
        let mut out = Vec::new();
        let mut encoder = png::Encoder::new(&mut out, w, h);
        encoder.set_color(color);
        encoder.set_depth(png::BitDepth::Eight);
        encoder.set_filter(filter);
        let written = encoder
            .write_header()
            .and_then(|mut writer| writer.write_image_data(data));
        assert!(written.is_ok(), "{written:?}");
        out
    }

    #[test]
    fn matches_decode_then_hash_for_every_filter_and_layout() {
        let (w, h) = (700u32, 450u32);
        let colors = [
            (png::ColorType::Grayscale, 1),
            (png::ColorType::GrayscaleAlpha, 2),
            (png::ColorType::Rgb, 3),
            (png::ColorType::Rgba, 4),
        ];
        let filters = [
            png::Filter::NoFilter,
            png::Filter::Sub,
            png::Filter::Up,
            png::Filter::Avg,
            png::Filter::Paeth,
            png::Filter::Adaptive,
        ];
        for (color, channels) in colors {
            let data = picture(w, h, channels);
            for filter in filters {
                let png = encode(w, h, color, filter, &data);
                let image = decode_png(&png);
                assert!(image.is_ok(), "{image:?}");
                for (method, size) in [(Method::Phash, 8), (Method::Ahash, 8), (Method::Dhash, 16)]
                {
                    let want = image.as_ref().ok().and_then(|i| hash(i, method, size).ok());
                    let got = png_hash(&png, method, size).ok();
                    assert!(got.is_some());
                    assert_eq!(want, got, "{color:?} {filter:?} {method} {size}");
                }
            }
        }
    }

    #[test]
    fn tall_images_resize_vertically_first_as_decode_then_hash_does() {
        // Large enough for the fused path, but Pillow runs the vertical pass first here.
        let (w, h) = (300u32, 1000u32);
        assert!(u64::from(w) * u64::from(h) >= PIPELINE_PIXELS);
        let png = encode(
            w,
            h,
            png::ColorType::Rgb,
            png::Filter::Paeth,
            &picture(w, h, 3),
        );
        let image = decode_png(&png);
        assert!(image.is_ok(), "{image:?}");
        for method in [Method::Phash, Method::Ahash, Method::Dhash] {
            let want = image.as_ref().ok().and_then(|i| hash(i, method, 8).ok());
            assert_eq!(png_hash(&png, method, 8).ok(), want, "{method}");
        }
    }

    #[test]
    fn calls_from_many_threads_at_once_agree() {
        // One call has the worker, the others start threads of their own.
        let (w, h) = (700u32, 450u32);
        let png = encode(
            w,
            h,
            png::ColorType::Rgba,
            png::Filter::Adaptive,
            &picture(w, h, 4),
        );
        let want = decode_png(&png)
            .and_then(|i| hash(&i, Method::Phash, 8))
            .ok();
        assert!(want.is_some());
        std::thread::scope(|scope| {
            for _ in 0..4 {
                scope.spawn(|| {
                    for _ in 0..5 {
                        assert_eq!(png_hash(&png, Method::Phash, 8).ok(), want);
                    }
                });
            }
        });
    }

    #[test]
    fn unfiltering_undoes_every_filter() {
        // The filters as the PNG specification defines them, applied to known rows.
        for bpp in 1..=4 {
            let previous: Vec<u8> = (0..60u32).map(|i| ((i * 37) % 256) as u8).collect();
            let row: Vec<u8> = (0..60u32).map(|i| ((i * 91 + 17) % 256) as u8).collect();
            for filter in 0..=4u8 {
                let filtered: Vec<u8> = (0..row.len())
                    .map(|i| {
                        let a = if i >= bpp { row[i - bpp] } else { 0 };
                        let c = if i >= bpp { previous[i - bpp] } else { 0 };
                        let b = previous[i];
                        let predictor = match filter {
                            0 => 0,
                            1 => a,
                            2 => b,
                            3 => ((u16::from(a) + u16::from(b)) / 2) as u8,
                            _ => {
                                let p = i16::from(a) + i16::from(b) - i16::from(c);
                                let (pa, pb, pc) = (
                                    (p - i16::from(a)).abs(),
                                    (p - i16::from(b)).abs(),
                                    (p - i16::from(c)).abs(),
                                );
                                if pa <= pb && pa <= pc {
                                    a
                                } else if pb <= pc {
                                    b
                                } else {
                                    c
                                }
                            }
                        };
                        row[i].wrapping_sub(predictor)
                    })
                    .collect();
                let mut got = filtered.clone();
                assert!(
                    unfilter_row(&mut Paeth::default(), filter, bpp, &previous, &mut got).is_ok()
                );
                assert_eq!(got, row, "filter {filter}, {bpp} bytes per pixel");
            }
            let mut bad = row.clone();
            assert!(unfilter_row(&mut Paeth::default(), 5, bpp, &previous, &mut bad).is_err());
        }
    }

    #[test]
    fn damaged_files_are_errors_as_in_decode_png() {
        let (w, h) = (700u32, 450u32);
        let png = encode(
            w,
            h,
            png::ColorType::Rgb,
            png::Filter::Paeth,
            &picture(w, h, 3),
        );
        // Cuts everywhere, around the end especially (the last IDAT chunk, IEND).
        let cuts = (0..png.len())
            .step_by(997)
            .chain(png.len().saturating_sub(40)..png.len());
        for cut in cuts.chain([60, png.len() / 3, png.len() / 2]) {
            let want = decode_png(&png[..cut]).and_then(|i| hash(&i, Method::Phash, 8));
            let got = png_hash(&png[..cut], Method::Phash, 8);
            assert_eq!(want.ok(), got.ok(), "cut at {cut} of {}", png.len());
        }
        // A flipped byte anywhere after the header: the same result (a CRC error, mostly).
        for at in (33..png.len()).step_by(1499).chain([png.len() / 2]) {
            let mut flipped = png.clone();
            flipped[at] ^= 0x55;
            let want = decode_png(&flipped).and_then(|i| hash(&i, Method::Phash, 8));
            let got = png_hash(&flipped, Method::Phash, 8);
            assert_eq!(want.ok(), got.ok(), "flipped byte {at}");
        }
        let mut flipped = png.clone();
        let middle = png.len() / 2;
        flipped[middle] ^= 0x55;
        assert!(png_hash(&flipped, Method::Phash, 8).is_err());
        assert!(png_hash(b"not a png", Method::Phash, 8).is_err());
        assert!(png_hash(&png, Method::Phash, 1).is_err());
    }
}
