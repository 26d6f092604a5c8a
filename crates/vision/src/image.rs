//! Decoded images: [`Image`] (8-bit, 1–4 channels, as the PNG stored them), PNG decoding with a
//! pixel limit checked from the header before anything is allocated, and PNG encoding.

use std::borrow::Cow;
use std::io::Cursor;

use crate::error::VisionError;
use crate::pixel_layout::PixelLayout;
use crate::png_rows::decode_rows;
use crate::png_rows::plain_layout;
use crate::region::Region;

/// The largest image [`decode_png`] accepts: 100 million pixels (10000x10000, or about five
/// 8K screens). A header that declares more is refused before any pixel buffer is allocated.
pub const DEFAULT_MAX_PIXELS: u64 = 100_000_000;

/// A decoded 8-bit image, kept in the layout it was stored in so that hashing a small region
/// never converts the whole screen.
///
/// Pixels are row-major without padding: `data.len() == width * height * layout.channels()`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Image {
    width: u32,
    height: u32,
    layout: PixelLayout,
    data: Vec<u8>,
}

impl Image {
    /// Wraps a pixel buffer; fails when its length does not match the size and layout, or when
    /// the image has no pixels.
    pub fn new(
        width: u32,
        height: u32,
        layout: PixelLayout,
        data: Vec<u8>,
    ) -> Result<Image, VisionError> {
        if width == 0 || height == 0 {
            return Err(VisionError::Empty { width, height });
        }
        let expected = width as usize * height as usize * layout.channels();
        if data.len() != expected {
            return Err(VisionError::BufferSize {
                width,
                height,
                channels: layout.channels(),
                expected,
                actual: data.len(),
            });
        }
        Ok(Image {
            width,
            height,
            layout,
            data,
        })
    }

    /// Width in pixels (never 0).
    pub fn width(&self) -> u32 {
        self.width
    }

    /// Height in pixels (never 0).
    pub fn height(&self) -> u32 {
        self.height
    }

    /// The sample layout.
    pub fn layout(&self) -> PixelLayout {
        self.layout
    }

    /// The raw samples, row-major.
    pub fn data(&self) -> &[u8] {
        &self.data
    }

    /// This image placed at `region` of a `width` x `height` picture of the same layout whose
    /// other samples are 0: what a screenshot of part of a screen becomes, so that every
    /// region keeps the coordinates of the whole screen. Fails unless `region` is this
    /// image's size and fits the picture.
    pub fn placed(&self, region: Region, width: u32, height: u32) -> Result<Image, VisionError> {
        if !region.fits(width, height)
            || region.width() != self.width
            || region.height() != self.height
        {
            return Err(VisionError::BadRegion {
                region: region.to_string(),
                width,
                height,
            });
        }
        let channels = self.layout.channels();
        let row = self.width as usize * channels;
        let stride = width as usize * channels;
        let mut data = vec![0; stride * height as usize];
        let start = region.left as usize * channels;
        for (y, source) in self.data.chunks_exact(row).enumerate() {
            let offset = (region.top as usize + y) * stride + start;
            data[offset..offset + row].copy_from_slice(source);
        }
        Image::new(width, height, self.layout, data)
    }

    /// The pixels as RGBA (borrowed when already RGBA), the way pngjs hands them to pixelmatch:
    /// gray is copied to red, green and blue, and a missing alpha is 255.
    pub fn to_rgba(&self) -> Cow<'_, [u8]> {
        let pixels = self.width as usize * self.height as usize;
        match self.layout {
            PixelLayout::Rgba => Cow::Borrowed(&self.data),
            PixelLayout::Rgb => {
                let mut out = Vec::with_capacity(pixels * 4);
                for p in self.data.chunks_exact(3) {
                    out.extend_from_slice(&[p[0], p[1], p[2], 255]);
                }
                Cow::Owned(out)
            }
            PixelLayout::Gray => {
                let mut out = Vec::with_capacity(pixels * 4);
                for &g in &self.data {
                    out.extend_from_slice(&[g, g, g, 255]);
                }
                Cow::Owned(out)
            }
            PixelLayout::GrayAlpha => {
                let mut out = Vec::with_capacity(pixels * 4);
                for p in self.data.chunks_exact(2) {
                    out.extend_from_slice(&[p[0], p[0], p[0], p[1]]);
                }
                Cow::Owned(out)
            }
        }
    }
}

/// Decodes a PNG from memory with the default pixel limit ([`DEFAULT_MAX_PIXELS`]).
///
/// Every colour type is accepted. Palette images become RGB (RGBA with a `tRNS` chunk), bit
/// depths below 8 are scaled up to 8 bits, 16-bit colour keeps the high byte (as Pillow reads
/// it), and 16-bit grayscale is clipped to 255 (Pillow's `I;16` to `L` conversion), so that
/// grayscale hashes match Python imagehash.
pub fn decode_png(bytes: &[u8]) -> Result<Image, VisionError> {
    decode_png_with_limit(bytes, DEFAULT_MAX_PIXELS)
}

/// Decodes a PNG from memory, refusing images with more than `max_pixels` pixels. The limit is
/// checked against the header, before any pixel buffer is allocated.
///
/// Plain PNGs (8-bit, not interlaced, no palette or transparency key: screenshots) are
/// decoded by [`crate::png_rows`]; any other kind by the `png` crate.
pub fn decode_png_with_limit(bytes: &[u8], max_pixels: u64) -> Result<Image, VisionError> {
    let reader = open_png(bytes, max_pixels)?;
    let Some(layout) = plain_layout(reader.info()) else {
        return decode_with_png_crate(reader);
    };
    let (width, height) = (reader.info().width, reader.info().height);
    drop(reader);
    let stride = width as usize * layout.channels();
    let row_len = stride + 1;
    let mut data = vec![0u8; stride * height as usize];
    decode_rows(
        bytes,
        layout,
        (width as usize, height as usize),
        |first_row, rows| {
            let out = &mut data[first_row * stride..];
            for (row, to) in rows.chunks_exact(row_len).zip(out.chunks_exact_mut(stride)) {
                to.copy_from_slice(&row[1..]);
            }
        },
    )?;
    Image::new(width, height, layout, data)
}

/// Decodes the PNG behind `reader` (see [`open_png`]) with the `png` crate: every kind of
/// PNG, and the reference the faster decoder of plain PNGs is tested against.
pub(crate) fn decode_with_png_crate(
    mut reader: png::Reader<Cursor<&[u8]>>,
) -> Result<Image, VisionError> {
    let (width, height) = (reader.info().width, reader.info().height);
    let size = reader
        .output_buffer_size()
        .ok_or_else(|| VisionError::Decode(format!("{width}x{height} does not fit in memory")))?;
    let info = reader.output_color_type();
    let buffer = if reader.info().interlaced {
        let mut buffer = vec![0u8; size];
        let frame = reader.next_frame(&mut buffer).map_err(decode_error)?;
        buffer.truncate(frame.buffer_size());
        buffer
    } else {
        // Row by row straight into the image (a large zeroed buffer comes from fresh pages,
        // so zeroing it costs nothing).
        let mut buffer = vec![0u8; size];
        let row_bytes = size / height as usize;
        for (y, row) in buffer.chunks_exact_mut(row_bytes.max(1)).enumerate() {
            if reader.read_row(row).map_err(decode_error)?.is_none() {
                return Err(VisionError::Decode(format!(
                    "image data ends after {} of {size} bytes",
                    y * row_bytes
                )));
            }
        }
        // Read to the end of the image data, so a damaged or truncated tail is an error.
        if reader.read_row(&mut []).map_err(decode_error)?.is_some() {
            return Err(VisionError::Decode(
                "more rows than the header declares".to_owned(),
            ));
        }
        buffer
    };
    let (color_type, bit_depth) = info;
    let layout = match color_type {
        png::ColorType::Grayscale => PixelLayout::Gray,
        png::ColorType::GrayscaleAlpha => PixelLayout::GrayAlpha,
        png::ColorType::Rgb => PixelLayout::Rgb,
        png::ColorType::Rgba => PixelLayout::Rgba,
        png::ColorType::Indexed => {
            return Err(VisionError::Decode(
                "palette image was not expanded".to_owned(),
            ));
        }
    };
    let data = if bit_depth == png::BitDepth::Sixteen {
        narrow_16_bit(&buffer, layout)
    } else {
        buffer
    };
    Image::new(width, height, layout, data)
}

/// A PNG reader past the header, with palettes and low bit depths expanded, refusing empty
/// images and images of more than `max_pixels` pixels before anything is allocated.
pub(crate) fn open_png(
    bytes: &[u8],
    max_pixels: u64,
) -> Result<png::Reader<Cursor<&[u8]>>, VisionError> {
    let mut decoder =
        png::Decoder::new_with_limits(Cursor::new(bytes), png::Limits { bytes: usize::MAX });
    decoder.set_transformations(png::Transformations::EXPAND);
    let header = decoder.read_header_info().map_err(decode_error)?;
    let (width, height) = (header.width, header.height);
    if width == 0 || height == 0 {
        return Err(VisionError::Empty { width, height });
    }
    let pixels = u64::from(width) * u64::from(height);
    if pixels > max_pixels {
        return Err(VisionError::TooLarge {
            width,
            height,
            pixels,
            limit: max_pixels,
        });
    }
    decoder.read_info().map_err(decode_error)
}

/// Turns big-endian 16-bit samples into 8-bit ones as Pillow does: colour and alpha keep the
/// high byte; a lone gray sample (Pillow's `I;16`) is clipped to 255.
fn narrow_16_bit(buffer: &[u8], layout: PixelLayout) -> Vec<u8> {
    let samples = buffer.chunks_exact(2);
    match layout {
        PixelLayout::Gray => samples
            .map(|s| if s[0] != 0 { 255 } else { s[1] })
            .collect(),
        _ => samples.map(|s| s[0]).collect(),
    }
}

pub(crate) fn decode_error(error: png::DecodingError) -> VisionError {
    VisionError::Decode(error.to_string())
}

/// Encodes 8-bit RGBA pixels as a PNG (fast compression: diff images are written often and
/// read rarely).
pub fn encode_png_rgba(width: u32, height: u32, rgba: &[u8]) -> Result<Vec<u8>, VisionError> {
    let expected = width as usize * height as usize * 4;
    if rgba.len() != expected {
        return Err(VisionError::BufferSize {
            width,
            height,
            channels: 4,
            expected,
            actual: rgba.len(),
        });
    }
    let mut out = Vec::new();
    let mut encoder = png::Encoder::new(&mut out, width, height);
    encoder.set_color(png::ColorType::Rgba);
    encoder.set_depth(png::BitDepth::Eight);
    encoder.set_compression(png::Compression::Fastest);
    let mut writer = encoder
        .write_header()
        .map_err(|e| VisionError::Encode(e.to_string()))?;
    writer
        .write_image_data(rgba)
        .map_err(|e| VisionError::Encode(e.to_string()))?;
    writer
        .finish()
        .map_err(|e| VisionError::Encode(e.to_string()))?;
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_placed_image_keeps_its_pixels_at_the_region_and_zero_elsewhere() {
        let part = Image::new(2, 2, PixelLayout::Rgb, (1..=12).collect()).unwrap();
        let placed = part.placed(Region::new(1, 2, 3, 4), 4, 5).unwrap();
        assert_eq!((placed.width(), placed.height()), (4, 5));
        let pixel = |x: usize, y: usize| &placed.data()[(y * 4 + x) * 3..(y * 4 + x) * 3 + 3];
        assert_eq!(pixel(1, 2), &[1, 2, 3]);
        assert_eq!(pixel(2, 2), &[4, 5, 6]);
        assert_eq!(pixel(1, 3), &[7, 8, 9]);
        assert_eq!(pixel(2, 3), &[10, 11, 12]);
        let placed_samples: u32 = placed.data().iter().map(|&v| u32::from(v)).sum();
        assert_eq!(
            placed_samples,
            (1..=12).sum::<u32>(),
            "nothing outside the region"
        );
    }

    #[test]
    fn an_image_is_placed_only_where_it_fits_exactly() {
        let part = Image::new(2, 2, PixelLayout::Gray, vec![9; 4]).unwrap();
        assert!(
            part.placed(Region::new(3, 0, 5, 2), 4, 4).is_err(),
            "past the edge"
        );
        assert!(
            part.placed(Region::new(0, 0, 3, 2), 4, 4).is_err(),
            "wrong size"
        );
        assert!(part.placed(Region::new(2, 2, 4, 4), 4, 4).is_ok());
    }
}
