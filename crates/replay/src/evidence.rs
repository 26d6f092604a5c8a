//! Evidence for a failed step: the region of the screen replay last saw around the step's
//! point, as a small PNG a report can show next to what was recorded.

use retrace_protocol::events::Png;
use retrace_vision::Image;

/// The `region_size` square around `at` in `screen` as PNG bytes; `None` when it cannot be
/// encoded (the failure is reported without the picture).
pub fn region_crop(screen: &Image, at: (i64, i64), region_size: u32) -> Option<Png> {
    let region = retrace_vision::action_region(at, region_size, screen.width(), screen.height());
    let rgba = screen.to_rgba();
    let stride = screen.width() as usize * 4;
    let mut pixels = Vec::with_capacity(region.width() as usize * region.height() as usize * 4);
    for row in region.top..region.bottom {
        let start = row as usize * stride + region.left as usize * 4;
        pixels.extend_from_slice(rgba.get(start..start + region.width() as usize * 4)?);
    }
    retrace_vision::encode_png_rgba(region.width(), region.height(), &pixels)
        .ok()
        .map(Png::from)
}

#[cfg(test)]
mod tests {
    use retrace_vision::PixelLayout;

    use super::*;

    #[test]
    fn the_crop_is_the_clipped_region_around_the_point() {
        let data: Vec<u8> = (0..40 * 30).map(|i| (i % 256) as u8).collect();
        let screen = Image::new(40, 30, PixelLayout::Gray, data).unwrap();
        let png = region_crop(&screen, (35, 5), 20).unwrap();
        let crop = retrace_vision::decode_png(png.bytes()).unwrap();
        assert_eq!((crop.width(), crop.height()), (15, 15));
        // Its first pixel is the screen's (25, 0).
        assert_eq!(crop.to_rgba()[0], 25);
    }
}
