//! retrace-vision: what retrace sees on the screen.
//!
//! Replay checks, before every recorded action, that the region around the action point still
//! looks as it did when the trajectory was recorded. This crate provides the pieces, all pure
//! and synchronous (bytes in, values out):
//!
//! - [`decode_png`] into an [`Image`] (every PNG colour type, a pixel limit checked from the
//!   header before allocating) and [`encode_png_rgba`];
//! - Pillow-exact grayscale ([`gray_region`]) and LANCZOS resize ([`resize_lanczos`]);
//!   [`resize_bilinear`] for what a model is shown;
//! - [`hash`] / [`region_hash`]: aHash, pHash and dHash identical bit for bit to Python
//!   `imagehash` 4.3, as [`ImageHash`] (prints as imagehash's hex), and [`hamming_distance`];
//! - [`action_region`]: the square hashed around where a tool input acts (the point itself is
//!   read by `retrace_protocol::tool_input::action_point`),
//!   by askui's rules;
//! - [`diff`]: a pixelmatch-compatible pixel diff with a diff image and the bounding boxes of
//!   the changed areas;
//! - [`is_stable`] ("has the screen stopped moving?") and [`search_near`] (where did the
//!   recorded region move to?).
//!
//! It does not take screenshots, read files or decide pass/fail thresholds: callers pass bytes
//! and interpret the numbers.
//!
//! ```
//! use retrace_vision::{Image, Method, PixelLayout, action_region, region_hash};
//!
//! let pixels: Vec<u8> = (0..64 * 48).map(|i| (i % 251) as u8).collect();
//! let screen = Image::new(64, 48, PixelLayout::Gray, pixels)?;
//! let region = action_region((60, 5), 20, screen.width(), screen.height());
//! assert_eq!((region.left, region.top, region.right, region.bottom), (50, 0, 64, 15));
//! let hash = region_hash(&screen, region, Method::Phash, 8)?;
//! assert_eq!(hash.to_string().len(), 16);
//! # Ok::<(), retrace_vision::VisionError>(())
//! ```

#![deny(missing_docs)]
#![deny(clippy::print_stdout, clippy::print_stderr)]

mod areas;
mod bilinear;
mod cpu;
mod dct;
mod diff;
mod error;
mod gray;
mod hash;
mod horizontal_rows;
mod image;
mod image_data;
mod lanes;
mod paeth;
mod pixel_layout;
mod png_rows;
mod region;
mod resize;
mod rfft_backward;
mod rfft_general;
mod rfft_radix;
mod search;
mod stability;
mod twiddle;
mod unfilter;

pub use crate::bilinear::resize_bilinear;
pub use crate::diff::Diff;
pub use crate::diff::DiffOptions;
pub use crate::diff::PixelDiff;
pub use crate::diff::diff;
pub use crate::diff::diff_rgba;
pub use crate::error::VisionError;
pub use crate::gray::GrayImage;
pub use crate::gray::gray_region;
pub use crate::gray::luma;
pub use crate::hash::ImageHash;
pub use crate::hash::Method;
pub use crate::hash::gray_hash;
pub use crate::hash::hamming_distance;
pub use crate::hash::hash;
pub use crate::hash::region_hash;
pub use crate::image::DEFAULT_MAX_PIXELS;
pub use crate::image::Image;
pub use crate::image::decode_png;
pub use crate::image::decode_png_with_limit;
pub use crate::image::encode_png_rgba;
pub use crate::pixel_layout::PixelLayout;
pub use crate::region::Region;
pub use crate::region::action_region;
pub use crate::resize::resize_lanczos;
pub use crate::search::SearchHit;
pub use crate::search::search_near;
pub use crate::stability::STABILITY_THRESHOLD;
pub use crate::stability::changed_pixels;
pub use crate::stability::is_stable;
