//! Perceptual hashes identical to Python imagehash 4.3: aHash, pHash and dHash of any hash
//! size, printed as imagehash prints them, and Hamming distances between them.

use std::fmt;
use std::str::FromStr;

use serde::Deserialize;
use serde::Serialize;

use crate::cpu::avx2_dispatch;
use crate::dct::DctPlan;
use crate::error::VisionError;
use crate::gray::GrayImage;
use crate::gray::gray_region;
use crate::image::Image;
use crate::lanes::LANES;
use crate::lanes::Lanes;
use crate::lanes::Sample;
use crate::region::Region;
use crate::resize::resize_lanczos;

/// Which perceptual hash to take.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, Default)]
#[serde(rename_all = "lowercase")]
pub enum Method {
    /// `imagehash.phash`: DCT of a 4x-oversized thumbnail, bits above the median.
    #[default]
    Phash,
    /// `imagehash.average_hash`: thumbnail pixels above the mean.
    Ahash,
    /// `imagehash.dhash`: each thumbnail pixel brighter than its left neighbour.
    Dhash,
}

impl Method {
    /// The lowercase name (`phash`, `ahash`, `dhash`), as askui cache files spell it.
    pub fn name(self) -> &'static str {
        match self {
            Method::Phash => "phash",
            Method::Ahash => "ahash",
            Method::Dhash => "dhash",
        }
    }
}

impl fmt::Display for Method {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for Method {
    type Err = VisionError;

    fn from_str(s: &str) -> Result<Method, VisionError> {
        match s.to_ascii_lowercase().as_str() {
            "phash" | "p" => Ok(Method::Phash),
            "ahash" | "average_hash" | "a" => Ok(Method::Ahash),
            "dhash" | "d" => Ok(Method::Dhash),
            _ => Err(VisionError::UnknownMethod(s.to_owned())),
        }
    }
}

/// A perceptual hash: a row-major bit matrix. [`Display`](fmt::Display) prints it as imagehash's
/// `str(hash)` does: the bits as one big number, first bit most significant, in lowercase hex
/// zero-padded to `ceil(bits / 4)` digits.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct ImageHash {
    bits: Vec<bool>,
}

impl ImageHash {
    /// A hash from its bits, row-major.
    pub fn from_bits(bits: Vec<bool>) -> ImageHash {
        ImageHash { bits }
    }

    /// Whether every bit after the first is the same: what a featureless (blank) region
    /// hashes to with every method (pHash keeps only its DC bit), so a check of such a region
    /// matches any other blank region and can detect nothing.
    pub fn is_flat(&self) -> bool {
        match self.bits.split_first() {
            Some((_, [first, rest @ ..])) => rest.iter().all(|bit| bit == first),
            _ => false,
        }
    }

    /// Whether at most one bit in sixteen after the first differs from the rest: a blank
    /// region, or one with a faint line or two (an empty text field's borders; `8000800080000000`).
    /// Such a region is told apart from a blank one by fewer bits than a check's threshold, so
    /// its check can detect next to nothing, and anything drawn into it later fails it.
    pub fn is_near_flat(&self) -> bool {
        let Some((_, rest)) = self.bits.split_first() else {
            return false;
        };
        let set = rest.iter().filter(|bit| **bit).count();
        let minority = set.min(rest.len() - set);
        !rest.is_empty() && minority * 16 <= self.bits.len()
    }

    /// The bits, row-major (the first is the most significant in the hex form).
    pub fn bits(&self) -> &[bool] {
        &self.bits
    }

    /// Parses a hex hash as imagehash's `hex_to_hash` does: a square matrix of
    /// `floor(sqrt(4 * digits))` bits a side, taken from the low end of the number.
    pub fn from_hex(hex: &str) -> Result<ImageHash, VisionError> {
        let digits = parse_hex(hex)?;
        let side = ((digits.len() * 4) as f64).sqrt() as usize;
        let count = side * side;
        let all: Vec<bool> = digits
            .iter()
            .flat_map(|d| (0..4).rev().map(move |b| d >> b & 1 == 1))
            .collect();
        let bits = all[all.len() - count..].to_vec();
        Ok(ImageHash { bits })
    }

    /// The number of differing bits; hashes of different sizes are an error.
    pub fn distance(&self, other: &ImageHash) -> Result<u32, VisionError> {
        if self.bits.len() != other.bits.len() {
            let (left, right) = (self.to_string(), other.to_string());
            return Err(VisionError::HashLength {
                left_len: left.len(),
                right_len: right.len(),
                left,
                right,
            });
        }
        Ok(self
            .bits
            .iter()
            .zip(&other.bits)
            .filter(|(a, b)| a != b)
            .count() as u32)
    }
}

impl fmt::Display for ImageHash {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let width = self.bits.len().div_ceil(4);
        let pad = width * 4 - self.bits.len();
        let padded = std::iter::repeat_n(false, pad).chain(self.bits.iter().copied());
        let mut nibble = 0u8;
        for (i, bit) in padded.enumerate() {
            nibble = nibble << 1 | u8::from(bit);
            if i % 4 == 3 {
                write!(f, "{nibble:x}")?;
                nibble = 0;
            }
        }
        Ok(())
    }
}

fn parse_hex(hex: &str) -> Result<Vec<u8>, VisionError> {
    hex.chars()
        .map(|c| {
            c.to_digit(16)
                .map(|d| d as u8)
                .ok_or_else(|| VisionError::BadHex(hex.to_owned()))
        })
        .collect()
}

/// The Hamming distance between two hex hashes as imagehash computes `h1 - h2`. Hashes of
/// different lengths, and strings that are not hex, are errors.
pub fn hamming_distance(left: &str, right: &str) -> Result<u32, VisionError> {
    let a = parse_hex(left)?;
    let b = parse_hex(right)?;
    if a.len() != b.len() {
        return Err(VisionError::HashLength {
            left: left.to_owned(),
            left_len: a.len(),
            right: right.to_owned(),
            right_len: b.len(),
        });
    }
    Ok(a.iter().zip(&b).map(|(x, y)| (x ^ y).count_ones()).sum())
}

/// Hashes a whole image: `imagehash.<method>(image, hash_size)`.
pub fn hash(image: &Image, method: Method, hash_size: u32) -> Result<ImageHash, VisionError> {
    region_hash(
        image,
        Region::full(image.width(), image.height()),
        method,
        hash_size,
    )
}

/// Hashes one region of an image: `imagehash.<method>(image.crop(region), hash_size)`. Only the
/// region is converted to grayscale. The region must be non-empty and inside the image (see
/// [`action_region`](crate::action_region), which always returns such a region).
pub fn region_hash(
    image: &Image,
    region: Region,
    method: Method,
    hash_size: u32,
) -> Result<ImageHash, VisionError> {
    if hash_size < 2 {
        return Err(VisionError::HashSize(hash_size));
    }
    let gray = gray_region(image, region)?;
    Ok(gray_hash(&gray, method, hash_size))
}

/// Hashes a grayscale image (already converted to Pillow's `L`). `hash_size` must be ≥ 2.
pub fn gray_hash(gray: &GrayImage, method: Method, hash_size: u32) -> ImageHash {
    let (w, h) = thumbnail_size(method, hash_size);
    thumbnail_hash(&resize_lanczos(gray, w, h), method, hash_size)
}

/// The size of the LANCZOS thumbnail `method` hashes: `hash_size` square for aHash, one column
/// more for dHash, four times larger for pHash.
pub(crate) fn thumbnail_size(method: Method, hash_size: u32) -> (u32, u32) {
    match method {
        Method::Ahash => (hash_size, hash_size),
        Method::Phash => (hash_size * 4, hash_size * 4),
        Method::Dhash => (hash_size + 1, hash_size),
    }
}

/// The hash of a thumbnail of [`thumbnail_size`].
pub(crate) fn thumbnail_hash(small: &GrayImage, method: Method, hash_size: u32) -> ImageHash {
    match method {
        Method::Ahash => average_hash(small),
        Method::Phash => phash(small, hash_size),
        Method::Dhash => dhash(small, hash_size),
    }
}

fn average_hash(small: &GrayImage) -> ImageHash {
    let sum: u64 = small.data.iter().map(|&p| u64::from(p)).sum();
    let n = small.data.len() as u64;
    // `pixel > mean` in exact integer arithmetic: `pixel * n > sum`.
    let bits = small.data.iter().map(|&p| u64::from(p) * n > sum).collect();
    ImageHash { bits }
}

fn dhash(small: &GrayImage, size: u32) -> ImageHash {
    let w = size as usize + 1;
    let bits = small
        .data
        .chunks_exact(w)
        .flat_map(|row| row.windows(2).map(|p| p[1] > p[0]))
        .collect();
    ImageHash { bits }
}

avx2_dispatch! {
    /// pHash of a `4 * size` square thumbnail.
    fn phash(small: &GrayImage, size: u32) -> ImageHash => phash_body
}

#[inline(always)]
fn phash_body(small: &GrayImage, size: u32) -> ImageHash {
    let n = small.width as usize;
    let keep = size as usize;
    let plan = DctPlan::cached(n, keep);
    // Axis 0 (down each column), keeping the first `keep` rows, LANES columns at a time:
    // `low_rows[k * n + x]`.
    let mut data = vec![Lanes::ZERO; n];
    let mut scratch = vec![Lanes::ZERO; n];
    let mut out = vec![Lanes::ZERO; keep];
    let mut low_rows = vec![0.0; keep * n];
    for x0 in (0..n).step_by(LANES) {
        let lanes = (n - x0).min(LANES);
        for (y, slot) in data.iter_mut().enumerate() {
            let row = &small.data[y * n + x0..][..lanes];
            *slot = Lanes::ZERO;
            for (s, &p) in slot.0.iter_mut().zip(row) {
                *s = f64::from(p);
            }
        }
        plan.run_lanes(&mut data, &mut scratch, &mut out);
        for (k, values) in out.iter().enumerate() {
            low_rows[k * n + x0..][..lanes].copy_from_slice(&values.0[..lanes]);
        }
    }
    // Axis 1 (along each kept row), keeping the first `keep` columns, LANES rows at a time.
    let mut low = vec![0.0; keep * keep];
    for k0 in (0..keep).step_by(LANES) {
        let lanes = (keep - k0).min(LANES);
        for (i, slot) in data.iter_mut().enumerate() {
            *slot = Lanes::ZERO;
            for (lane, s) in slot.0.iter_mut().enumerate().take(lanes) {
                *s = low_rows[(k0 + lane) * n + i];
            }
        }
        plan.run_lanes(&mut data, &mut scratch, &mut out);
        for (k, values) in out.iter().enumerate() {
            for (lane, &v) in values.0.iter().enumerate().take(lanes) {
                low[(k0 + lane) * keep + k] = v;
            }
        }
    }
    let median = median(&low);
    let bits = low.iter().map(|&v| v > median).collect();
    ImageHash { bits }
}

/// numpy's median: the middle value, or the mean of the two middle values.
/// Selects the middle values in the order sorting would put them, without sorting.
fn median(values: &[f64]) -> f64 {
    if values.is_empty() {
        return f64::NAN;
    }
    let (len, mid) = (values.len(), values.len() / 2);
    let mut values = values.to_vec();
    let (below, &mut upper, _) = values.select_nth_unstable_by(mid, f64::total_cmp);
    if len % 2 == 1 {
        return upper;
    }
    // The largest value below the middle is the one sorting would put just before it.
    let lower = below
        .iter()
        .copied()
        .max_by(f64::total_cmp)
        .unwrap_or(upper);
    (lower + upper) / 2.0
}

#[cfg(test)]
#[path = "hash_tests.rs"]
mod tests;
