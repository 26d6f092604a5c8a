//! The judge's images within the model's image limits, and its boxes in page pixels.
//!
//! A full-page screenshot can be far taller than a model takes (Anthropic: 8000 px at most on
//! a side, 1568 recommended). Each of the judge's three images is fitted to the provider's
//! [`ImageLimits`] by `retrace_llm::images`: sent as it is, shrunk, or cut into labelled
//! vertical parts ([`Layouts::fit`], the pixel work). [`Layouts::of`] works out, from the PNG
//! headers alone, how each image is cut, so a cached answer is placed the same way as a fresh
//! one:
//!
//! - the structural diff's boxes stay in page pixels, and when any image is not sent as it
//!   is, each box gets `in_images`: the same box in the pixels of every image part that shows
//!   it ([`Layouts::structural_text`]);
//! - a `region` the judge gives in the pixels of an image part is mapped back to page pixels
//!   before it reaches the verdict and the evidence ([`Layouts::place`]).

use retrace_llm::catalog::ImageLimits;
use retrace_llm::images::FittedImage;
use retrace_llm::images::PieceTransform;
use retrace_llm::images::fit_png;
use retrace_llm::images::plan_pieces;
use retrace_llm::images::png_header_size;
use retrace_protocol::BoundingBox;
use retrace_protocol::ContentBlock;
use serde_json::Map;
use serde_json::Value;
use serde_json::json;

use crate::judgement::ImageRegion;
use crate::judgement::Judgement;

/// What each image is introduced as, in order (image 3 only when there is a diff).
const NAMES: [&str; 3] = [
    "Image 1, the baseline",
    "Image 2, the candidate",
    "Image 3, the pixel diff",
];

/// How one image is sent.
#[derive(Debug, Clone, PartialEq)]
struct Layout {
    /// The image's own size.
    page: (u32, u32),
    /// Its pieces, top to bottom.
    pieces: Vec<PieceTransform>,
}

/// How each of the judge's images is sent (none for a missing diff).
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Layouts {
    images: Vec<Option<Layout>>,
    limits: ImageLimits,
}

impl Layouts {
    /// The layouts of `pngs` (baseline, candidate, diff) under `limits`, from their headers.
    pub(crate) fn of(pngs: [Option<&[u8]>; 3], limits: ImageLimits) -> Result<Self, String> {
        let images = pngs
            .iter()
            .zip(NAMES)
            .map(|(png, name)| {
                let Some(png) = png else { return Ok(None) };
                let (width, height) =
                    png_header_size(png).map_err(|e| format!("{name} cannot be read: {e}"))?;
                Ok(Some(Layout {
                    page: (width, height),
                    pieces: plan_pieces(width, height, limits),
                }))
            })
            .collect::<Result<Vec<_>, String>>()?;
        Ok(Self { images, limits })
    }

    /// Whether every image is sent as it is (the prompt then reads as it always did).
    fn unchanged(&self) -> bool {
        self.images
            .iter()
            .flatten()
            .all(|layout| matches!(layout.pieces.as_slice(), [piece] if piece.is_identity()))
    }

    /// The images as content blocks, each piece after its label (synchronous and heavy for
    /// tall pages: run it on the blocking pool).
    pub(crate) fn fit(&self, pngs: [Option<&[u8]>; 3]) -> Result<Vec<ContentBlock>, String> {
        let mut blocks = Vec::new();
        for (png, name) in pngs.iter().zip(NAMES) {
            let Some(png) = png else { continue };
            let fitted: FittedImage = fit_png(png, self.limits)
                .map_err(|e| format!("{name} cannot be fitted to the model's limits: {e}"))?;
            blocks.extend(fitted.content_blocks(name));
        }
        Ok(blocks)
    }

    /// The structural diff as the prompt gives it (see the module docs).
    pub(crate) fn structural_text(&self, structural: &Value) -> String {
        if self.unchanged() {
            return format!(
                "What the pixel comparison found (boxes in page pixels):\n{structural}"
            );
        }
        let mut annotated = structural.clone();
        self.annotate(&mut annotated);
        format!(
            "What the pixel comparison found (boxes in page pixels; the images are not sent at \
             page size, so each box's `in_images` gives it in the pixels of the image parts \
             that show it, listed by image number and part):\n{annotated}"
        )
    }

    fn annotate(&self, value: &mut Value) {
        match value {
            Value::Object(object) => match page_box(object) {
                Some(page) => {
                    object.insert("in_images".into(), Value::Array(self.seen_in(page)));
                }
                None => object.values_mut().for_each(|v| self.annotate(v)),
            },
            Value::Array(items) => items.iter_mut().for_each(|v| self.annotate(v)),
            _ => {}
        }
    }

    /// `page` in every image part that shows it, images cut alike listed together.
    fn seen_in(&self, page: BoundingBox) -> Vec<Value> {
        let mut groups: Vec<(Vec<usize>, &Layout)> = Vec::new();
        for (index, layout) in self.images.iter().enumerate() {
            let Some(layout) = layout else { continue };
            match groups.iter_mut().find(|(_, seen)| *seen == layout) {
                Some((numbers, _)) => numbers.push(index + 1),
                None => groups.push((vec![index + 1], layout)),
            }
        }
        let mut seen = Vec::new();
        for (numbers, layout) in groups {
            for (part, piece) in layout.pieces.iter().enumerate() {
                let Some(shown) = piece.to_piece(page) else {
                    continue;
                };
                let (left, top) = (shown.x.floor(), shown.y.floor());
                let mut entry = Map::new();
                entry.insert("images".into(), json!(numbers));
                if layout.pieces.len() > 1 {
                    entry.insert("part".into(), json!(part + 1));
                }
                entry.insert("x".into(), json!(left));
                entry.insert("y".into(), json!(top));
                entry.insert("width".into(), json!((shown.x + shown.width).ceil() - left));
                entry.insert(
                    "height".into(),
                    json!((shown.y + shown.height).ceil() - top),
                );
                seen.push(Value::Object(entry));
            }
        }
        seen
    }

    /// `judged` with each region the judge gave mapped to page pixels onto its difference
    /// (a region naming an image or part that was not sent is dropped, with a warning).
    pub(crate) fn place(&self, mut judged: Judgement) -> Judgement {
        for (difference, region) in judged.differences.iter_mut().zip(&judged.regions) {
            let Some(region) = region else { continue };
            difference.region = self.to_page(region);
            if difference.region.is_none() {
                tracing::warn!(
                    "the judge placed a difference in an image part not sent: {region:?}"
                );
            }
        }
        judged
    }

    fn to_page(&self, region: &ImageRegion) -> Option<BoundingBox> {
        let index = usize::from(region.image).checked_sub(1)?;
        let layout = self.images.get(index)?.as_ref()?;
        let piece = layout.pieces.get(region.part.checked_sub(1)?)?;
        let page = piece.to_page(BoundingBox {
            x: region.x,
            y: region.y,
            width: region.width,
            height: region.height,
        });
        let (width, height) = (f64::from(layout.page.0), f64::from(layout.page.1));
        let (left, top) = (page.x.round().min(width), page.y.round().min(height));
        let right = (page.x + page.width).round().clamp(left, width);
        let bottom = (page.y + page.height).round().clamp(top, height);
        Some(BoundingBox {
            x: left,
            y: top,
            width: right - left,
            height: bottom - top,
        })
    }
}

/// The box an object is, when it is exactly `{x, y, width, height}` in numbers (how
/// `BoundingBox` serialises).
fn page_box(object: &Map<String, Value>) -> Option<BoundingBox> {
    if object.len() != 4 {
        return None;
    }
    let number = |key: &str| object.get(key).and_then(Value::as_f64);
    Some(BoundingBox {
        x: number("x")?,
        y: number("y")?,
        width: number("width")?,
        height: number("height")?,
    })
}

#[cfg(test)]
#[path = "judge_images_tests.rs"]
mod tests;
