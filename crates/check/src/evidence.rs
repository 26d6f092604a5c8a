//! The evidence of one attempt, written under the output directory:
//! `<page>@<WxH>/attempt-<n>/{baseline,candidate,diff}.png` (the diff image with every
//! difference's box outlined) and `result.json`. Paths come back relative to nothing: they
//! are where the files are, for the report to refer to.

use std::path::Path;
use std::path::PathBuf;

use retrace_vision::encode_png_rgba;

use crate::cluster::PixelBox;
use crate::pixels::PixelComparison;
use crate::spec::Viewport;

/// The outline colour of boxes in the diff image (magenta: not a colour pixelmatch draws).
const BOX_COLOUR: [u8; 4] = [255, 0, 255, 255];
/// Outline width, pixels.
const BOX_LINE: u32 = 2;

/// A file-name-safe form of a page path (`/site/pricing?x=1` -> `site_pricing_x_1`; `/` ->
/// `index`).
pub fn page_slug(path: &str) -> String {
    let slug: String = path
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '-' {
                c
            } else {
                '_'
            }
        })
        .collect();
    let slug = slug.trim_matches('_');
    if slug.is_empty() {
        "index".to_owned()
    } else {
        slug.to_owned()
    }
}

/// The directory of one attempt's evidence.
pub fn attempt_dir(out_dir: &Path, path: &str, viewport: Viewport, attempt: u32) -> PathBuf {
    out_dir
        .join(format!("{}@{viewport}", page_slug(path)))
        .join(format!("attempt-{attempt}"))
}

/// Outlines `boxes` on an RGBA image.
pub fn draw_boxes(rgba: &mut [u8], width: u32, height: u32, boxes: &[PixelBox]) {
    let mut put = |x: u32, y: u32| {
        if x < width && y < height {
            let at = ((y * width + x) * 4) as usize;
            rgba[at..at + 4].copy_from_slice(&BOX_COLOUR);
        }
    };
    for b in boxes {
        // The outline sits just outside the box, so it covers none of the changed pixels.
        let left = b.x.saturating_sub(BOX_LINE);
        let top = b.y.saturating_sub(BOX_LINE);
        let (right, bottom) = (b.right() + BOX_LINE, b.bottom() + BOX_LINE);
        for x in left..right {
            for t in 0..BOX_LINE {
                put(x, top + t);
                put(x, bottom - 1 - t);
            }
        }
        for y in top..bottom {
            for t in 0..BOX_LINE {
                put(left + t, y);
                put(right - 1 - t, y);
            }
        }
    }
}

/// Writes one file, creating its directory.
pub fn write(dir: &Path, name: &str, bytes: &[u8]) -> Result<PathBuf, String> {
    std::fs::create_dir_all(dir).map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
    let path = dir.join(name);
    retrace_files::write_atomic(&path, bytes)
        .map_err(|e| format!("cannot write {}: {e}", path.display()))?;
    Ok(path)
}

/// Writes both screenshots and, when they differ, the diff image with its boxes.
pub fn write_images(
    dir: &Path,
    baseline_png: &[u8],
    candidate_png: &[u8],
    comparison: &PixelComparison,
) -> Result<Vec<PathBuf>, String> {
    let mut written = vec![
        write(dir, "baseline.png", baseline_png)?,
        write(dir, "candidate.png", candidate_png)?,
    ];
    if !comparison.identical {
        let mut diff = comparison.diff_image.clone();
        draw_boxes(
            &mut diff,
            comparison.width,
            comparison.height,
            &comparison.boxes,
        );
        let png = encode_png_rgba(comparison.width, comparison.height, &diff)
            .map_err(|e| format!("cannot encode the diff image: {e}"))?;
        written.push(write(dir, "diff.png", &png)?);
    }
    Ok(written)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slugs_and_boxes() {
        assert_eq!(page_slug("/"), "index");
        assert_eq!(page_slug("/site/pricing?x=1"), "site_pricing_x_1");
        let mut rgba = vec![0u8; 20 * 20 * 4];
        let b = PixelBox {
            x: 5,
            y: 5,
            width: 4,
            height: 4,
        };
        draw_boxes(&mut rgba, 20, 20, &[b]);
        let at =
            |x: u32, y: u32| &rgba[((y * 20 + x) * 4) as usize..((y * 20 + x) * 4 + 4) as usize];
        assert_eq!(at(3, 3), &BOX_COLOUR);
        assert_eq!(at(10, 10), &BOX_COLOUR);
        assert_eq!(at(6, 6), &[0, 0, 0, 0], "inside stays untouched");
    }
}
