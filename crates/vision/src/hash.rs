//! Perceptual hashes identical to Python imagehash 4.3: aHash, pHash and dHash of any hash
//! size, printed as imagehash prints them, and Hamming distances between them.

use std::fmt;
use std::str::FromStr;

use serde::Deserialize;
use serde::Serialize;

use crate::dct::DctPlan;
use crate::error::VisionError;
use crate::gray::GrayImage;
use crate::gray::gray_region;
use crate::image::Image;
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
    match method {
        Method::Ahash => average_hash(gray, hash_size),
        Method::Phash => phash(gray, hash_size),
        Method::Dhash => dhash(gray, hash_size),
    }
}

fn average_hash(gray: &GrayImage, size: u32) -> ImageHash {
    let small = resize_lanczos(gray, size, size);
    let sum: u64 = small.data.iter().map(|&p| u64::from(p)).sum();
    let n = small.data.len() as u64;
    // `pixel > mean` in exact integer arithmetic: `pixel * n > sum`.
    let bits = small.data.iter().map(|&p| u64::from(p) * n > sum).collect();
    ImageHash { bits }
}

fn dhash(gray: &GrayImage, size: u32) -> ImageHash {
    let small = resize_lanczos(gray, size + 1, size);
    let w = size as usize + 1;
    let bits = small
        .data
        .chunks_exact(w)
        .flat_map(|row| row.windows(2).map(|p| p[1] > p[0]))
        .collect();
    ImageHash { bits }
}

fn phash(gray: &GrayImage, size: u32) -> ImageHash {
    const HIGHFREQ_FACTOR: u32 = 4;
    let img_size = size * HIGHFREQ_FACTOR;
    let small = resize_lanczos(gray, img_size, img_size);
    let n = img_size as usize;
    let keep = size as usize;
    let plan = DctPlan::cached(n, keep);
    let mut scratch = Vec::with_capacity(n);
    // Axis 0 (down each column), keeping the first `keep` rows.
    let mut column = vec![0.0; n];
    let mut column_out = vec![0.0; keep];
    let mut low_rows = vec![0.0; keep * n];
    for x in 0..n {
        for (y, slot) in column.iter_mut().enumerate() {
            *slot = f64::from(small.data[y * n + x]);
        }
        plan.run(&column, &mut column_out, &mut scratch);
        for (k, &v) in column_out.iter().enumerate() {
            low_rows[k * n + x] = v;
        }
    }
    // Axis 1 (along each kept row), keeping the first `keep` columns.
    let mut low = vec![0.0; keep * keep];
    for k in 0..keep {
        plan.run(
            &low_rows[k * n..(k + 1) * n],
            &mut low[k * keep..(k + 1) * keep],
            &mut scratch,
        );
    }
    let median = median(&low);
    let bits = low.iter().map(|&v| v > median).collect();
    ImageHash { bits }
}

/// numpy's median: the middle value, or the mean of the two middle values.
fn median(values: &[f64]) -> f64 {
    let mut sorted = values.to_vec();
    sorted.sort_by(f64::total_cmp);
    let mid = sorted.len() / 2;
    if sorted.len() % 2 == 1 {
        sorted[mid]
    } else {
        (sorted[mid - 1] + sorted[mid]) / 2.0
    }
}

#[cfg(test)]
#[path = "hash_tests.rs"]
mod tests;
