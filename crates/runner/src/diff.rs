//! `retrace diff`'s work: a pixelmatch-compatible pixel diff of two PNG screenshots, with the
//! changed areas and an optional diff image written. The CLI parses the flags, prints the
//! [`Compared`] and picks the exit code.

use std::path::Path;

use retrace_vision::Diff;
use retrace_vision::DiffOptions;
use retrace_vision::Image;
use retrace_vision::decode_png;
use retrace_vision::encode_png_rgba;

use crate::failure::Context;
use crate::failure::Failure;

/// Two screenshots to compare.
#[derive(Debug, Clone, Copy)]
pub struct DiffRequest<'a> {
    /// The first (baseline) PNG.
    pub first: &'a Path,
    /// The second (candidate) PNG.
    pub second: &'a Path,
    /// Matching threshold from 0 to 1 (pixelmatch `threshold`).
    pub threshold: f64,
    /// Count anti-aliased pixels as differences too.
    pub include_aa: bool,
    /// Where to write the diff image, if anywhere.
    pub out: Option<&'a Path>,
}

/// What the comparison found.
#[derive(Debug, Clone, PartialEq)]
pub enum Compared {
    /// Different sizes: the layout changed, pixels were not compared.
    Layout {
        /// Size of the first image.
        first: (u32, u32),
        /// Size of the second image.
        second: (u32, u32),
    },
    /// Same size: the pixels were compared.
    Pixels {
        /// Width of both images.
        width: u32,
        /// Height of both images.
        height: u32,
        /// Pixels that differ (pixelmatch's count).
        diff_pixels: u64,
        /// Bounding boxes of the changed areas (`[left, top, right, bottom]`), top to
        /// bottom, then left to right.
        changed_areas: Vec<[u32; 4]>,
    },
}

fn load(path: &Path) -> Result<Image, Failure> {
    let bytes = std::fs::read(path).with_context(|| format!("cannot read {}", path.display()))?;
    decode_png(&bytes).with_context(|| format!("cannot decode {}", path.display()))
}

/// Compares the two files, writing the diff image when asked.
pub fn compare(request: DiffRequest<'_>) -> Result<Compared, Failure> {
    // Decode both files at once: decoding is most of the time.
    let (first, second) = std::thread::scope(|scope| {
        let second = scope.spawn(|| load(request.second));
        let first = load(request.first);
        let second = second
            .join()
            .unwrap_or_else(|_| Err(Failure::msg("decoder thread panicked")));
        (first, second)
    });
    let (first, second) = (first?, second?);
    let options = DiffOptions {
        threshold: request.threshold,
        include_aa: request.include_aa,
        draw: request.out.is_some(),
        ..DiffOptions::default()
    };
    let pixels = match retrace_vision::diff(&first, &second, &options) {
        Diff::Layout { left, right } => {
            return Ok(Compared::Layout {
                first: left,
                second: right,
            });
        }
        Diff::Pixels(pixels) => pixels,
    };
    if let Some(path) = request.out {
        let png = encode_png_rgba(pixels.width, pixels.height, &pixels.diff_image)
            .map_err(Failure::of)?;
        retrace_files::write_atomic(path, &png)
            .with_context(|| format!("cannot write {}", path.display()))?;
    }
    Ok(Compared::Pixels {
        width: pixels.width,
        height: pixels.height,
        diff_pixels: pixels.diff_pixels,
        changed_areas: pixels
            .changed_areas
            .iter()
            .map(|r| [r.left, r.top, r.right, r.bottom])
            .collect(),
    })
}
