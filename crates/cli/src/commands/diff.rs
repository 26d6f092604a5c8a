//! `retrace diff`: a pixelmatch-compatible pixel diff of two PNG screenshots, with the changed
//! areas, an optional diff image, and an exit code for CI.

use std::io::Write;
use std::path::PathBuf;

use retrace_runner::diff::Compared;
use retrace_runner::diff::DiffRequest;
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

/// Compares the two files and reports.
pub fn run(args: DiffArgs) -> anyhow::Result<Outcome> {
    if !(0.0..=1.0).contains(&args.threshold) {
        anyhow::bail!(
            "--threshold must be between 0 and 1, got {}",
            args.threshold
        );
    }
    let result = retrace_runner::diff::compare(DiffRequest {
        first: &args.first,
        second: &args.second,
        threshold: args.threshold,
        include_aa: args.include_aa,
        out: args.out.as_deref(),
    })?;
    let mut out = crate::output::stdout();
    let (width, height, diff_pixels, changed_areas) = match result {
        Compared::Layout {
            first: left,
            second: right,
        } => {
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
        Compared::Pixels {
            width,
            height,
            diff_pixels,
            changed_areas,
        } => (width, height, diff_pixels, changed_areas),
    };
    let total = u64::from(width) * u64::from(height);
    let percentage = diff_pixels as f64 * 100.0 / total as f64;
    let passed = diff_pixels <= args.max_diff_pixels;
    if args.json {
        let report = json!({
            "result": if passed { "pass" } else { "different" },
            "first": args.first.display().to_string(),
            "second": args.second.display().to_string(),
            "width": width,
            "height": height,
            "diff_pixels": diff_pixels,
            "diff_percentage": percentage,
            "max_diff_pixels": args.max_diff_pixels,
            "changed_areas": changed_areas,
            "out": args.out.as_ref().map(|p| p.display().to_string()),
        });
        writeln!(out, "{report}")?;
    } else {
        writeln!(
            out,
            "{} pixels differ ({percentage:.2}%), {} changed areas{}",
            diff_pixels,
            changed_areas.len(),
            if passed { "" } else { " — different" }
        )?;
        for [left, top, right, bottom] in &changed_areas {
            writeln!(out, "  changed: ({left}, {top}, {right}, {bottom})")?;
        }
    }
    Ok(if passed {
        Outcome::Pass
    } else {
        Outcome::CheckFailed
    })
}
