//! Turning a `GetImage` (ZPixmap) answer into RGB and PNG.
//!
//! X hands back pixels in the server's layout: bits per pixel and scanline padding from the
//! pixmap format of the image's depth, channel positions from the visual's masks, and the
//! server's image byte order. This module knows those layouts (16, 24 and 32 bits per pixel,
//! TrueColor and DirectColor visuals) and nothing about connections.

/// How the pixels of one image are laid out.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct PixelLayout {
    /// Bits per pixel (16, 24 or 32 are supported).
    pub bits_per_pixel: u8,
    /// Each row is padded to a multiple of this many bits.
    pub scanline_pad: u8,
    /// The visual's channel masks.
    pub red_mask: u32,
    /// See `red_mask`.
    pub green_mask: u32,
    /// See `red_mask`.
    pub blue_mask: u32,
    /// The server's image byte order is most significant byte first.
    pub msb_first: bool,
}

/// One channel: where its bits are and how to widen them to 8 bits.
#[derive(Debug, Clone, Copy)]
struct Channel {
    mask: u32,
    shift: u32,
    max: u32,
}

impl Channel {
    fn new(mask: u32) -> Option<Self> {
        (mask != 0).then(|| {
            let shift = mask.trailing_zeros();
            Self {
                mask,
                shift,
                max: mask >> shift,
            }
        })
    }

    fn value(self, pixel: u32) -> u8 {
        let v = (pixel & self.mask) >> self.shift;
        let wide = (u64::from(v) * 255 + u64::from(self.max) / 2) / u64::from(self.max);
        u8::try_from(wide).unwrap_or(u8::MAX)
    }
}

/// Converts ZPixmap `data` of `width` x `height` pixels to packed RGB8, or says why the layout
/// is not supported or the data is short.
pub(crate) fn to_rgb(
    layout: PixelLayout,
    data: &[u8],
    width: u32,
    height: u32,
) -> Result<Vec<u8>, String> {
    let bpp = usize::from(layout.bits_per_pixel);
    if !matches!(bpp, 16 | 24 | 32) {
        return Err(format!(
            "{bpp} bits per pixel is not supported (only 16, 24 and 32-bit TrueColor screens)"
        ));
    }
    let (Some(red), Some(green), Some(blue)) = (
        Channel::new(layout.red_mask),
        Channel::new(layout.green_mask),
        Channel::new(layout.blue_mask),
    ) else {
        return Err("the visual has no colour masks (not a TrueColor visual)".to_owned());
    };
    let (w, h) = (width as usize, height as usize);
    let pad = usize::from(layout.scanline_pad.max(8));
    let stride = (w * bpp).div_ceil(pad) * pad / 8;
    let needed = stride * h;
    if data.len() < needed {
        return Err(format!(
            "the image has {} bytes, {width}x{height} at {bpp} bits per pixel needs {needed}",
            data.len()
        ));
    }
    let bytes = bpp / 8;
    let mut rgb = Vec::with_capacity(w * h * 3);
    let fast_bgrx = bytes == 4
        && !layout.msb_first
        && (layout.red_mask, layout.green_mask, layout.blue_mask) == (0xff_0000, 0xff00, 0xff);
    for row in data.chunks(stride).take(h) {
        let pixels = row.get(..w * bytes).unwrap_or_default();
        if fast_bgrx {
            for px in pixels.chunks_exact(4) {
                rgb.extend_from_slice(&[px[2], px[1], px[0]]);
            }
            continue;
        }
        for px in pixels.chunks_exact(bytes) {
            let pixel = px.iter().enumerate().fold(0u32, |acc, (i, &b)| {
                if layout.msb_first {
                    (acc << 8) | u32::from(b)
                } else {
                    acc | (u32::from(b) << (8 * i))
                }
            });
            rgb.extend_from_slice(&[red.value(pixel), green.value(pixel), blue.value(pixel)]);
        }
    }
    Ok(rgb)
}

/// Encodes packed RGB8 as a PNG, with fast compression: screenshots are taken in the replay
/// loop, where speed matters more than a few kilobytes.
pub(crate) fn encode_png(rgb: &[u8], width: u32, height: u32) -> Result<Vec<u8>, String> {
    let mut out = Vec::new();
    let mut encoder = png::Encoder::new(&mut out, width, height);
    encoder.set_color(png::ColorType::Rgb);
    encoder.set_depth(png::BitDepth::Eight);
    encoder.set_compression(png::Compression::Fast);
    let mut writer = encoder
        .write_header()
        .map_err(|e| format!("cannot write the PNG header: {e}"))?;
    writer
        .write_image_data(rgb)
        .map_err(|e| format!("cannot encode the PNG: {e}"))?;
    writer
        .finish()
        .map_err(|e| format!("cannot finish the PNG: {e}"))?;
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn layout(bits_per_pixel: u8, masks: (u32, u32, u32), msb_first: bool) -> PixelLayout {
        PixelLayout {
            bits_per_pixel,
            scanline_pad: 32,
            red_mask: masks.0,
            green_mask: masks.1,
            blue_mask: masks.2,
            msb_first,
        }
    }

    const RGB888: (u32, u32, u32) = (0xff_0000, 0xff00, 0xff);

    #[test]
    fn reads_32_bit_little_endian_pixels() {
        let data = [0xcc, 0x66, 0x33, 0x00, 0x00, 0x00, 0xff, 0x00];
        let rgb = to_rgb(layout(32, RGB888, false), &data, 2, 1).unwrap();
        assert_eq!(rgb, vec![0x33, 0x66, 0xcc, 0xff, 0x00, 0x00]);
    }

    #[test]
    fn reads_32_bit_big_endian_pixels() {
        let data = [0x00, 0x33, 0x66, 0xcc];
        let rgb = to_rgb(layout(32, RGB888, true), &data, 1, 1).unwrap();
        assert_eq!(rgb, vec![0x33, 0x66, 0xcc]);
    }

    #[test]
    fn reads_padded_16_bit_rows() {
        // 565, one pixel per row: pure red, then pure blue; each row padded to 32 bits.
        let data = [0x00, 0xf8, 0xaa, 0xaa, 0x1f, 0x00, 0xaa, 0xaa];
        let rgb = to_rgb(layout(16, (0xf800, 0x07e0, 0x001f), false), &data, 1, 2).unwrap();
        assert_eq!(rgb, vec![255, 0, 0, 0, 0, 255]);
    }

    #[test]
    fn short_data_is_an_error_not_a_panic() {
        let err = to_rgb(layout(32, RGB888, false), &[0; 12], 2, 2).unwrap_err();
        assert!(
            err.contains("has 12 bytes") && err.contains("needs 16"),
            "{err}"
        );
    }

    #[test]
    fn rejects_palette_screens() {
        let err = to_rgb(layout(8, (0, 0, 0), false), &[0; 4], 1, 1).unwrap_err();
        assert!(err.contains("8 bits per pixel"), "{err}");
    }

    #[test]
    fn png_round_trips() {
        let rgb = [1, 2, 3, 4, 5, 6];
        let png_bytes = encode_png(&rgb, 2, 1).unwrap();
        let decoder = png::Decoder::new(std::io::Cursor::new(png_bytes));
        let mut reader = decoder.read_info().unwrap();
        let mut buf = vec![0; reader.output_buffer_size().unwrap()];
        let info = reader.next_frame(&mut buf).unwrap();
        assert_eq!((info.width, info.height), (2, 1));
        assert_eq!(&buf[..6], &rgb);
    }
}
