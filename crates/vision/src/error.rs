//! The one error type of this crate: every failure names what was wrong and with which value.

use thiserror::Error;

/// Why an image could not be decoded, encoded, cropped, hashed or compared.
#[derive(Debug, Error)]
#[non_exhaustive]
pub enum VisionError {
    /// The bytes are not a PNG file, or the PNG is damaged (bad signature, truncated, bad CRC).
    #[error("invalid PNG data: {0}")]
    Decode(String),
    /// The PNG header declares a width or height of zero.
    #[error("image has no pixels: {width}x{height}")]
    Empty {
        /// Declared width.
        width: u32,
        /// Declared height.
        height: u32,
    },
    /// The PNG header declares more pixels than allowed; nothing was allocated.
    #[error("image too large: {width}x{height} is {pixels} pixels, the limit is {limit}")]
    TooLarge {
        /// Declared width.
        width: u32,
        /// Declared height.
        height: u32,
        /// `width * height`.
        pixels: u64,
        /// The pixel limit in force.
        limit: u64,
    },
    /// Encoding a PNG failed.
    #[error("cannot encode PNG: {0}")]
    Encode(String),
    /// A pixel buffer does not match its declared size.
    #[error(
        "pixel buffer has {actual} bytes, {width}x{height} with {channels} channels needs {expected}"
    )]
    BufferSize {
        /// Declared width.
        width: u32,
        /// Declared height.
        height: u32,
        /// Channels per pixel.
        channels: usize,
        /// Bytes needed.
        expected: usize,
        /// Bytes given.
        actual: usize,
    },
    /// A region is empty or reaches outside the image.
    #[error("region {region} is empty or outside the {width}x{height} image")]
    BadRegion {
        /// The region, as `(left, top, right, bottom)`.
        region: String,
        /// Image width.
        width: u32,
        /// Image height.
        height: u32,
    },
    /// A hash size below 2 (imagehash refuses those too).
    #[error("hash size must be at least 2, got {0}")]
    HashSize(u32),
    /// A hash string that is not hexadecimal.
    #[error("invalid hex hash {0:?}: only 0-9 and a-f are allowed")]
    BadHex(String),
    /// Two hashes of different lengths cannot be compared.
    #[error(
        "cannot compare hashes of different lengths: {left:?} ({left_len} digits) and {right:?} ({right_len} digits)"
    )]
    HashLength {
        /// First hash.
        left: String,
        /// Its length in hex digits.
        left_len: usize,
        /// Second hash.
        right: String,
        /// Its length in hex digits.
        right_len: usize,
    },
    /// An unknown hash method name.
    #[error("unknown hash method {0:?}: expected phash, ahash or dhash")]
    UnknownMethod(String),
}
