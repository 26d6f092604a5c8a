//! `retrace diff`: a pixelmatch-compatible pixel diff of two PNG screenshots, with the changed
//! areas, an optional diff image, and an exit code for CI.

use std::io::Write;
use std::path::Path;
use std::path::PathBuf;

use anyhow::Context;
use retrace_vision::Diff;
use retrace_vision::DiffOptions;
use retrace_vision::Image;
use retrace_vision::decode_png;
use retrace_vision::diff;
use retrace_vision::encode_png_rgba;
use serde_json::json;

use crate::outcome::Outcome;

/// Compare two PNG screenshots pixel by pixel, counting differing pixels exactly as
/// pixelmatch does (YIQ colour distance, anti-aliasing ignored unless `--include-aa`), and
/// list the bounding boxes of the changed areas.
///
/// Exit code: 0 when at most `--max-diff-pixels` pixels differ, 1 when more differ or the
/// images have different sizes (a layout difference), 2 on error (unreadable or invalid PNG).
///
/// Example: `retrace diff baseline.png candidate.png --out diff.png --max-diff-pixels 50`
#[derive(Debug, clap::Args)]
pub struct DiffArgs {
    /// The first (baseline) PNG.
    pub first: PathBuf,
    /// The second (candidate) PNG.
    pub second: PathBuf,
    /// Matching threshold from 0 to 1; smaller is more sensitive (pixelmatch `threshold`).
    #[arg(long, default_value_t = 0.1)]
    pub threshold: f64,
    /// Count anti-aliased pixels as differences too.
    #[arg(long)]
    pub include_aa: bool,
    /// Write the diff image (pixelmatch style: differences red, anti-aliasing yellow, the rest
    /// faded gray) to this PNG file.
    #[arg(long, value_name = "FILE")]
    pub out: Option<PathBuf>,
    /// How many differing pixels still pass.
    #[arg(long, default_value_t = 0)]
    pub max_diff_pixels: u64,
    /// Print one JSON object instead of sentences.
    #[arg(long)]
    pub json: bool,
}

fn load(path: &Path) -> anyhow::Result<Image> {
    let bytes = std::fs::read(path).with_context(|| format!("cannot read {}", path.display()))?;
    decode_png(&bytes).with_context(|| format!("cannot decode {}", path.display()))
}

/// Compares the two files and reports.
pub fn run(args: DiffArgs) -> anyhow::Result<Outcome> {
    if !(0.0..=1.0).contains(&args.threshold) {
        anyhow::bail!(
            "--threshold must be between 0 and 1, got {}",
            args.threshold
        );
    }
    // Decode both files at once: decoding is most of the time.
    let (first, second) = std::thread::scope(|scope| {
        let second = scope.spawn(|| load(&args.second));
        let first = load(&args.first);
        let second = second
            .join()
            .unwrap_or_else(|_| Err(anyhow::anyhow!("decoder thread panicked")));
        (first, second)
    });
    let (first, second) = (first?, second?);
    let options = DiffOptions {
        threshold: args.threshold,
        include_aa: args.include_aa,
        draw: args.out.is_some(),
        ..DiffOptions::default()
    };
    let result = diff(&first, &second, &options);
    let stdout = std::io::stdout();
    let mut out = stdout.lock();
    let pixels = match result {
        Diff::Layout { left, right } => {
            if args.json {
                let report = json!({
                    "result": "layout_different",
                    "first": args.first.display().to_string(),
                    "second": args.second.display().to_string(),
                    "first_size": [left.0, left.1],
                    "second_size": [right.0, right.1],
                });
                writeln!(out, "{report}")?;
            } else {
                writeln!(
                    out,
                    "layout differs: {} is {}x{}, {} is {}x{}",
                    args.first.display(),
                    left.0,
                    left.1,
                    args.second.display(),
                    right.0,
                    right.1
                )?;
            }
            return Ok(Outcome::CheckFailed);
        }
        Diff::Pixels(pixels) => pixels,
    };
    if let Some(path) = &args.out {
        let png = encode_png_rgba(pixels.width, pixels.height, &pixels.diff_image)?;
        retrace_files::write_atomic(path, &png)
            .with_context(|| format!("cannot write {}", path.display()))?;
    }
    let total = u64::from(pixels.width) * u64::from(pixels.height);
    let percentage = pixels.diff_pixels as f64 * 100.0 / total as f64;
    let passed = pixels.diff_pixels <= args.max_diff_pixels;
    if args.json {
        let areas: Vec<[u32; 4]> = pixels
            .changed_areas
            .iter()
            .map(|r| [r.left, r.top, r.right, r.bottom])
            .collect();
        let report = json!({
            "result": if passed { "pass" } else { "different" },
            "first": args.first.display().to_string(),
            "second": args.second.display().to_string(),
            "width": pixels.width,
            "height": pixels.height,
            "diff_pixels": pixels.diff_pixels,
            "diff_percentage": percentage,
            "max_diff_pixels": args.max_diff_pixels,
            "changed_areas": areas,
            "out": args.out.as_ref().map(|p| p.display().to_string()),
        });
        writeln!(out, "{report}")?;
    } else {
        writeln!(
            out,
            "{} pixels differ ({percentage:.2}%), {} changed areas{}",
            pixels.diff_pixels,
            pixels.changed_areas.len(),
            if passed { "" } else { " — different" }
        )?;
        for area in &pixels.changed_areas {
            writeln!(out, "  changed: {area}")?;
        }
    }
    Ok(if passed {
        Outcome::Pass
    } else {
        Outcome::CheckFailed
    })
}
