//! Images sent back as MCP image content: PNGs shrunk so their long side is at most
//! [`MAX_SIDE`] (a diff image of a full page can be 1280x12000; a client shows a preview, the
//! full-size file stays on disk and its path is in the structured result).

use base64::Engine;
use retrace_vision::VisionError;
use rmcp::model::ContentBlock;

/// The longest side of an image sent back, in pixels.
pub const MAX_SIDE: u32 = 800;

/// `png` shrunk to fit [`MAX_SIDE`] (as it is when it already fits).
pub fn downscale_png(png: &[u8], max_side: u32) -> Result<Vec<u8>, VisionError> {
    let image = retrace_vision::decode_png(png)?;
    let (width, height) = (image.width(), image.height());
    let long = width.max(height);
    if long <= max_side {
        return Ok(png.to_vec());
    }
    let scale = f64::from(max_side) / f64::from(long);
    let to = (
        ((f64::from(width) * scale).round() as u32).max(1),
        ((f64::from(height) * scale).round() as u32).max(1),
    );
    let rgba = image.to_rgba();
    let resized = retrace_vision::resize_bilinear(&rgba, (width, height), to);
    retrace_vision::encode_png_rgba(to.0, to.1, &resized)
}

/// The PNG file at `path`, shrunk, as an image block; `None` (with a warning) when it cannot
/// be read or decoded: the path in the result still points at it.
pub fn image_block(path: &std::path::Path) -> Option<ContentBlock> {
    let shrunk = std::fs::read(path)
        .map_err(|error| error.to_string())
        .and_then(|png| downscale_png(&png, MAX_SIDE).map_err(|error| error.to_string()));
    match shrunk {
        Ok(png) => Some(png_block(&png)),
        Err(error) => {
            tracing::warn!("could not attach {}: {error}", path.display());
            None
        }
    }
}

/// A PNG as an image block.
pub fn png_block(png: &[u8]) -> ContentBlock {
    ContentBlock::image(
        base64::engine::general_purpose::STANDARD.encode(png),
        "image/png",
    )
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]
    use super::*;

    #[test]
    fn a_large_png_is_shrunk_to_the_long_side_and_a_small_one_kept() {
        let rgba = vec![200u8; 1600 * 400 * 4];
        let png = retrace_vision::encode_png_rgba(1600, 400, &rgba).unwrap();
        let shrunk = retrace_vision::decode_png(&downscale_png(&png, 800).unwrap()).unwrap();
        assert_eq!((shrunk.width(), shrunk.height()), (800, 200));
        let small = retrace_vision::encode_png_rgba(10, 20, &vec![1u8; 10 * 20 * 4]).unwrap();
        assert_eq!(downscale_png(&small, 800).unwrap(), small);
    }
}
