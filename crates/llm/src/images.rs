//! Fitting a screenshot to a model's [`ImageLimits`], and mapping boxes back.
//!
//! A full-page screenshot can be 1280x12000 px; Anthropic refuses images over 8000 px on a
//! side and recommends a long side of at most 1568 px (larger images are shrunk by the API).
//! [`plan_pieces`] decides, from the size alone, what is sent:
//!
//! - an image whose long side is within the recommended size goes as it is;
//! - otherwise, when shrinking it to the recommended size keeps it at [`MIN_LEGIBLE_SCALE`]
//!   or more (or when it is wider than tall, where vertical tiles would not help), one piece
//!   shrunk to the recommended long side;
//! - otherwise it is cut into vertical tiles at [`MIN_LEGIBLE_SCALE`] (less when the page is
//!   so wide that its width alone exceeds the recommended size at that scale), each at most
//!   the recommended size on either side, consecutive tiles overlapping by
//!   [`TILE_OVERLAP_ROWS`] page rows (less for tiny limits), spread evenly so every tile has
//!   the same size.
//!
//! Each piece carries a [`PieceTransform`]: the page rows it shows and its size, from which a
//! box in the piece's pixels maps back to page pixels ([`PieceTransform::to_page`]) and a
//! page box into the piece ([`PieceTransform::to_piece`]). [`fit_png`] does the pixel work
//! (decode, crop, [`retrace_vision::resize_bilinear`], encode): it is synchronous and heavy on
//! tall pages, so async callers run it under `spawn_blocking`.

use base64::Engine;
use retrace_protocol::BoundingBox;
use retrace_protocol::ContentBlock;
use retrace_vision::VisionError;

use crate::catalog::ImageLimits;

/// The smallest scale a screenshot is shrunk to before it is tiled instead: 16 px body text
/// becomes 8 px, about the smallest a model reads reliably.
pub const MIN_LEGIBLE_SCALE: f64 = 0.5;

/// How many page rows consecutive tiles share, so that nothing is cut in half unseen.
pub const TILE_OVERLAP_ROWS: u32 = 64;

/// Which page pixels one piece shows and at what size: the map between the piece's pixels
/// and the page's. A piece spans the page's full width.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
pub struct PieceTransform {
    /// The page's width in pixels.
    pub page_width: u32,
    /// The first page row the piece shows.
    pub page_top: u32,
    /// How many page rows it shows.
    pub page_rows: u32,
    /// The piece's width in pixels.
    pub width: u32,
    /// The piece's height in pixels.
    pub height: u32,
}

impl PieceTransform {
    /// Piece pixels per page pixel, horizontally.
    pub fn scale_x(&self) -> f64 {
        f64::from(self.width) / f64::from(self.page_width.max(1))
    }

    /// Piece pixels per page pixel, vertically.
    pub fn scale_y(&self) -> f64 {
        f64::from(self.height) / f64::from(self.page_rows.max(1))
    }

    /// Whether the piece is the page's pixels unchanged.
    pub fn is_identity(&self) -> bool {
        self.page_top == 0 && (self.width, self.height) == (self.page_width, self.page_rows)
    }

    /// A box in the piece's pixels, in page pixels.
    pub fn to_page(&self, piece: BoundingBox) -> BoundingBox {
        let (sx, sy) = (self.scale_x(), self.scale_y());
        BoundingBox {
            x: piece.x / sx,
            y: piece.y / sy + f64::from(self.page_top),
            width: piece.width / sx,
            height: piece.height / sy,
        }
    }

    /// The part of a page box this piece shows, in the piece's pixels (`None` when the box
    /// lies outside it).
    pub fn to_piece(&self, page: BoundingBox) -> Option<BoundingBox> {
        let (sx, sy) = (self.scale_x(), self.scale_y());
        let top = f64::from(self.page_top);
        let left = (page.x * sx).clamp(0.0, f64::from(self.width));
        let right = ((page.x + page.width) * sx).clamp(0.0, f64::from(self.width));
        let upper = ((page.y - top) * sy).clamp(0.0, f64::from(self.height));
        let lower = ((page.y + page.height - top) * sy).clamp(0.0, f64::from(self.height));
        (right > left && lower > upper).then_some(BoundingBox {
            x: left,
            y: upper,
            width: right - left,
            height: lower - upper,
        })
    }
}

/// The pieces a `width`x`height` image is sent as under `limits` (see the module docs), top
/// to bottom. An empty image is one empty piece.
pub fn plan_pieces(width: u32, height: u32, limits: ImageLimits) -> Vec<PieceTransform> {
    let target = limits
        .recommended_long_side
        .min(limits.max_long_side)
        .max(1);
    let whole = |scale: f64| PieceTransform {
        page_width: width,
        page_top: 0,
        page_rows: height,
        width: scaled(width, scale, target),
        height: scaled(height, scale, target),
    };
    let long = width.max(height);
    if long <= target || width == 0 || height == 0 {
        return vec![whole(1.0)];
    }
    let fit = f64::from(target) / f64::from(long);
    if fit >= MIN_LEGIBLE_SCALE || width >= height {
        return vec![whole(fit)];
    }
    let scale = MIN_LEGIBLE_SCALE.min(f64::from(target) / f64::from(width));
    // Whole page rows whose scaled height stays within the target.
    let rows = ((f64::from(target) / scale).floor() as u32).clamp(1, height);
    let overlap = TILE_OVERLAP_ROWS.min(rows / 4);
    let step = rows - overlap;
    let count = (height - overlap).div_ceil(step.max(1)).max(1);
    let spare = f64::from(height - rows);
    (0..count)
        .map(|i| {
            let top = match count {
                1 => 0,
                _ => (spare * f64::from(i) / f64::from(count - 1)).round() as u32,
            };
            PieceTransform {
                page_width: width,
                page_top: top,
                page_rows: rows,
                width: scaled(width, scale, target),
                height: scaled(rows, scale, target),
            }
        })
        .collect()
}

/// `side` at `scale`, rounded, at least 1 and at most `target` (0 stays 0).
fn scaled(side: u32, scale: f64, target: u32) -> u32 {
    match side {
        0 => 0,
        _ => ((f64::from(side) * scale).round() as u32).clamp(1, target),
    }
}

/// One piece of a fitted image: its PNG and where it comes from.
#[derive(Debug, Clone, PartialEq)]
pub struct ImagePiece {
    /// The piece, PNG-encoded (the original bytes when it is the image unchanged).
    pub png: Vec<u8>,
    /// Its place on the page.
    pub transform: PieceTransform,
}

/// An image fitted to a model's limits: one piece or several tiles, top to bottom.
#[derive(Debug, Clone, PartialEq)]
pub struct FittedImage {
    /// The original image's width.
    pub page_width: u32,
    /// The original image's height.
    pub page_height: u32,
    /// What is sent.
    pub pieces: Vec<ImagePiece>,
}

impl FittedImage {
    /// Whether the image is sent as it is.
    pub fn is_unchanged(&self) -> bool {
        matches!(self.pieces.as_slice(), [piece] if piece.transform.is_identity())
    }

    /// The pieces as content blocks, each after its label (`Image 1, the baseline:` when
    /// the image is sent as it is, see [`Self::label`]).
    pub fn content_blocks(&self, name: &str) -> Vec<ContentBlock> {
        self.pieces
            .iter()
            .enumerate()
            .flat_map(|(index, piece)| {
                [
                    ContentBlock::text(format!("{}:", self.label(name, index))),
                    png_block(&piece.png),
                ]
            })
            .collect()
    }

    /// How piece `index` (from 0) is introduced to the model, after `name` (`Image 1, the
    /// baseline`): `, part 2 of 4, page rows 3000-6136 at 1/2 scale (640x1568 px)`, or
    /// nothing when the image is sent as it is.
    pub fn label(&self, name: &str, index: usize) -> String {
        let Some(piece) = self.pieces.get(index) else {
            return name.to_owned();
        };
        let t = piece.transform;
        let size = format!("{}x{} px", t.width, t.height);
        let scale = format!("{:.3}", t.scale_x());
        let scale = scale.trim_end_matches('0').trim_end_matches('.');
        match self.pieces.len() {
            _ if self.is_unchanged() => name.to_owned(),
            1 => format!(
                "{name}, the whole {}x{} page at scale {scale} ({size})",
                self.page_width, self.page_height
            ),
            count => format!(
                "{name}, part {} of {count}, page rows {}-{} at scale {scale} ({size})",
                index + 1,
                t.page_top,
                t.page_top + t.page_rows
            ),
        }
    }
}

/// Fits the PNG `png` to `limits` (see [`plan_pieces`]). An image within the recommended
/// size keeps its bytes; anything else is decoded, cut, resized and re-encoded.
pub fn fit_png(png: &[u8], limits: ImageLimits) -> Result<FittedImage, VisionError> {
    let (width, height) = png_header_size(png)?;
    let plan = plan_pieces(width, height, limits);
    if let [only] = plan.as_slice()
        && only.is_identity()
    {
        return Ok(FittedImage {
            page_width: width,
            page_height: height,
            pieces: vec![ImagePiece {
                png: png.to_vec(),
                transform: *only,
            }],
        });
    }
    let image = retrace_vision::decode_png(png)?;
    let rgba = image.to_rgba();
    let row_bytes = width as usize * 4;
    let pieces = plan
        .into_iter()
        .map(|t| {
            let start = t.page_top as usize * row_bytes;
            let end = start + t.page_rows as usize * row_bytes;
            let rows = rgba.get(start..end).unwrap_or_default();
            let resized =
                retrace_vision::resize_bilinear(rows, (width, t.page_rows), (t.width, t.height));
            let png = retrace_vision::encode_png_rgba(t.width, t.height, &resized)?;
            Ok(ImagePiece { png, transform: t })
        })
        .collect::<Result<Vec<_>, VisionError>>()?;
    Ok(FittedImage {
        page_width: width,
        page_height: height,
        pieces,
    })
}

/// A PNG as a base64 image block.
pub fn png_block(png: &[u8]) -> ContentBlock {
    ContentBlock::png_base64(base64::engine::general_purpose::STANDARD.encode(png))
}

/// Width and height from a PNG's header, without decoding the pixels.
pub fn png_header_size(png: &[u8]) -> Result<(u32, u32), VisionError> {
    let reader = png::Decoder::new(std::io::Cursor::new(png))
        .read_info()
        .map_err(|e| VisionError::Decode(e.to_string()))?;
    let info = reader.info();
    Ok((info.width, info.height))
}

#[cfg(test)]
#[path = "images_tests.rs"]
mod tests;
