//! How the samples of one pixel are laid out, shared by the decoders and the image type.

/// How the samples of one pixel are laid out. Every sample is 8 bits.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PixelLayout {
    /// One luminance sample.
    Gray,
    /// Luminance then alpha.
    GrayAlpha,
    /// Red, green, blue.
    Rgb,
    /// Red, green, blue, alpha.
    Rgba,
}

impl PixelLayout {
    /// Samples (bytes) per pixel.
    pub fn channels(self) -> usize {
        match self {
            PixelLayout::Gray => 1,
            PixelLayout::GrayAlpha => 2,
            PixelLayout::Rgb => 3,
            PixelLayout::Rgba => 4,
        }
    }
}
