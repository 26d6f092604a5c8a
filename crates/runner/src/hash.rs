//! `retrace hash`'s work: perceptual hashes of PNG files (or regions of them), identical to
//! Python imagehash, and the answers to `--batch` request lines. The CLI parses the flags and
//! prints the [`Answer`]s.

use std::path::Path;
use std::path::PathBuf;

use retrace_vision::Image;
use retrace_vision::Region;
use retrace_vision::action_region;
use retrace_vision::decode_png;
use retrace_vision::region_hash;
use serde::Deserialize;
use serde::Serialize;

use crate::failure::Context;
use crate::failure::Failure;

/// Which perceptual hash to take: `phash`, `ahash` or `dhash`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(transparent)]
pub struct Method(retrace_vision::Method);

impl std::str::FromStr for Method {
    type Err = String;

    fn from_str(text: &str) -> Result<Self, String> {
        text.parse()
            .map(Method)
            .map_err(|e: retrace_vision::VisionError| e.to_string())
    }
}

/// Where to hash inside an image.
#[derive(Debug, Clone, Copy)]
pub enum Area {
    /// The whole image.
    Full,
    /// The square of this side around this point, clipped as askui clips it.
    Point((i64, i64), u32),
    /// This crop box (`[left, top, right, bottom]`, right and bottom exclusive).
    Crop([u32; 4]),
}

/// One answer, as printed by `--json` and `--batch`.
#[derive(Debug, Serialize)]
pub struct Answer {
    #[serde(skip_serializing_if = "Option::is_none")]
    id: Option<serde_json::Value>,
    image: String,
    method: Method,
    size: u32,
    region: [u32; 4],
    /// The hash, in hex.
    pub hash: String,
}

fn hash_image(
    image: &Image,
    area: Area,
    method: Method,
    size: u32,
) -> Result<([u32; 4], String), Failure> {
    let region = match area {
        Area::Full => Region::full(image.width(), image.height()),
        Area::Point(point, side) => action_region(point, side, image.width(), image.height()),
        Area::Crop([left, top, right, bottom]) => Region::new(left, top, right, bottom),
    };
    let hash = region_hash(image, region, method.0, size).map_err(Failure::of)?;
    Ok((
        [region.left, region.top, region.right, region.bottom],
        hash.to_string(),
    ))
}

fn load(path: &Path) -> Result<Image, Failure> {
    let bytes = std::fs::read(path).with_context(|| format!("cannot read {}", path.display()))?;
    decode_png(&bytes).with_context(|| format!("cannot decode {}", path.display()))
}

/// Hashes `area` of the PNG `file`.
pub fn hash_file(file: &Path, area: Area, method: Method, size: u32) -> Result<Answer, Failure> {
    let image = load(file)?;
    let (region, hash) = hash_image(&image, area, method, size)
        .with_context(|| format!("cannot hash {}", file.display()))?;
    Ok(Answer {
        id: None,
        image: file.display().to_string(),
        method,
        size,
        region,
        hash,
    })
}

/// One `--batch` request line.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Request {
    image: PathBuf,
    #[serde(default)]
    id: Option<serde_json::Value>,
    #[serde(default)]
    method: Option<String>,
    #[serde(default)]
    size: Option<u32>,
    #[serde(default)]
    crop: Option<[u32; 4]>,
    #[serde(default)]
    point: Option<[i64; 2]>,
    #[serde(default)]
    region: Option<u32>,
}

/// Answers `--batch` request lines, keeping the last image decoded (requests usually come
/// grouped by image).
#[derive(Debug)]
pub struct Batch {
    method: Method,
    size: u32,
    cached: Option<(PathBuf, Image)>,
}

impl Batch {
    /// A batch whose requests default to `method` and `size`.
    pub fn new(method: Method, size: u32) -> Self {
        Batch {
            method,
            size,
            cached: None,
        }
    }

    /// The answer to one request line.
    pub fn answer(&mut self, line: &str) -> Result<Answer, Failure> {
        let request: Request = serde_json::from_str(line).context("invalid request")?;
        let method = match &request.method {
            Some(name) => Method(name.parse().map_err(Failure::of)?),
            None => self.method,
        };
        let size = request.size.unwrap_or(self.size);
        let area = match (request.crop, request.point) {
            (Some(_), Some(_)) => {
                return Err(Failure::msg("give either \"crop\" or \"point\", not both"));
            }
            (Some(crop), None) => Area::Crop(crop),
            (None, Some([x, y])) => Area::Point((x, y), request.region.unwrap_or(100)),
            (None, None) if request.region.is_some() => {
                return Err(Failure::msg("\"region\" needs a \"point\""));
            }
            (None, None) => Area::Full,
        };
        if self
            .cached
            .as_ref()
            .is_none_or(|(path, _)| *path != request.image)
        {
            self.cached = Some((request.image.clone(), load(&request.image)?));
        }
        let Some((_, image)) = self.cached.as_ref() else {
            return Err(Failure::msg("no image decoded"));
        };
        let (region, hash) = hash_image(image, area, method, size)?;
        Ok(Answer {
            id: request.id,
            image: request.image.display().to_string(),
            method,
            size,
            region,
            hash,
        })
    }
}
