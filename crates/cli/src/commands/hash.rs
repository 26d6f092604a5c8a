//! `retrace hash`: perceptual hashes of PNG files (or regions of them), identical to Python
//! imagehash, one file per line; `--batch` answers JSON Lines requests from stdin in one
//! process.

use std::io::BufRead;
use std::io::Write;
use std::path::Path;
use std::path::PathBuf;

use anyhow::Context;
use anyhow::bail;
use retrace_vision::Image;
use retrace_vision::Method;
use retrace_vision::Region;
use retrace_vision::action_region;
use retrace_vision::decode_png;
use retrace_vision::region_hash;
use serde::Deserialize;
use serde::Serialize;

use crate::outcome::Outcome;

/// Print the perceptual hash of PNG files, of the region around a point, or of a crop box.
///
/// pHash, aHash or dHash, bit-identical to Python imagehash.
///
/// Examples:
///   retrace hash screen.png
///   retrace hash screen.png --method ahash --point 640,400 --region 100 --json
///   retrace hash screen.png --crop 590,350,690,450
///   echo '{"image": "screen.png", "point": [640, 400], "region": 100}' | retrace hash --batch
///
/// In `--batch` mode each stdin line is a JSON request `{"image", "method"?, "size"?,
/// "crop"? | "point"? + "region"?, "id"?}` and each answer is one JSON line with `hash` and
/// `region`, or `error`. Exit code 2 when any request failed.
#[derive(Debug, clap::Args)]
#[command(verbatim_doc_comment)]
pub struct HashArgs {
    /// PNG files to hash.
    #[arg(required_unless_present = "batch", conflicts_with = "batch")]
    pub files: Vec<PathBuf>,
    /// Hash method.
    #[arg(long, default_value = "phash", value_parser = parse_method)]
    pub method: Method,
    /// Hash size: the hash has size x size bits (imagehash's `hash_size`).
    #[arg(long, default_value_t = 8)]
    pub size: u32,
    /// Hash the square region around this point (`X,Y`), clipped as askui clips it.
    #[arg(long, value_name = "X,Y", value_parser = parse_point, conflicts_with = "crop")]
    pub point: Option<(i64, i64)>,
    /// Side of the square region around `--point`, in pixels.
    #[arg(long, default_value_t = 100, requires = "point")]
    pub region: u32,
    /// Hash this crop box (`LEFT,TOP,RIGHT,BOTTOM`, right and bottom exclusive).
    #[arg(long, value_name = "L,T,R,B", value_parser = parse_crop)]
    pub crop: Option<Region>,
    /// Print one JSON object per file (one per line) instead of `HASH  FILE`.
    #[arg(long)]
    pub json: bool,
    /// Read JSON Lines requests from stdin and answer each with one JSON line.
    #[arg(long)]
    pub batch: bool,
}

fn parse_method(text: &str) -> Result<Method, String> {
    text.parse()
        .map_err(|e: retrace_vision::VisionError| e.to_string())
}

fn numbers(text: &str, count: usize, what: &str) -> Result<Vec<i64>, String> {
    let values: Result<Vec<i64>, _> = text.split(',').map(|v| v.trim().parse::<i64>()).collect();
    match values {
        Ok(v) if v.len() == count => Ok(v),
        _ => Err(format!("expected {what}, got {text:?}")),
    }
}

fn parse_point(text: &str) -> Result<(i64, i64), String> {
    let v = numbers(text, 2, "X,Y (two integers)")?;
    Ok((v[0], v[1]))
}

fn parse_crop(text: &str) -> Result<Region, String> {
    let v = numbers(text, 4, "LEFT,TOP,RIGHT,BOTTOM (four integers)")?;
    let edge =
        |i: usize| u32::try_from(v[i]).map_err(|_| format!("crop edge {} is negative", v[i]));
    Ok(Region::new(edge(0)?, edge(1)?, edge(2)?, edge(3)?))
}

/// Where to hash inside an image.
#[derive(Debug, Clone, Copy)]
enum Area {
    Full,
    Point((i64, i64), u32),
    Crop(Region),
}

/// One answer, as printed by `--json` and `--batch`.
#[derive(Debug, Serialize)]
struct Answer {
    #[serde(skip_serializing_if = "Option::is_none")]
    id: Option<serde_json::Value>,
    image: String,
    method: Method,
    size: u32,
    region: [u32; 4],
    hash: String,
}

fn hash_image(
    image: &Image,
    area: Area,
    method: Method,
    size: u32,
) -> anyhow::Result<(Region, String)> {
    let region = match area {
        Area::Full => Region::full(image.width(), image.height()),
        Area::Point(point, side) => action_region(point, side, image.width(), image.height()),
        Area::Crop(region) => region,
    };
    let hash = region_hash(image, region, method, size)?;
    Ok((region, hash.to_string()))
}

fn load(path: &Path) -> anyhow::Result<Image> {
    let bytes = std::fs::read(path).with_context(|| format!("cannot read {}", path.display()))?;
    decode_png(&bytes).with_context(|| format!("cannot decode {}", path.display()))
}

/// Hashes the files (or serves `--batch`).
pub fn run(args: HashArgs) -> anyhow::Result<Outcome> {
    if args.batch {
        return run_batch(args.method, args.size);
    }
    let area = match (args.point, args.crop) {
        (Some(point), _) => Area::Point(point, args.region),
        (None, Some(crop)) => Area::Crop(crop),
        (None, None) => Area::Full,
    };
    let stdout = std::io::stdout();
    let mut out = stdout.lock();
    for file in &args.files {
        let image = load(file)?;
        let (region, hash) = hash_image(&image, area, args.method, args.size)
            .with_context(|| format!("cannot hash {}", file.display()))?;
        if args.json {
            let answer = Answer {
                id: None,
                image: file.display().to_string(),
                method: args.method,
                size: args.size,
                region: [region.left, region.top, region.right, region.bottom],
                hash,
            };
            writeln!(out, "{}", serde_json::to_string(&answer)?)?;
        } else {
            writeln!(out, "{hash}  {}", file.display())?;
        }
    }
    Ok(Outcome::Pass)
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

fn run_batch(default_method: Method, default_size: u32) -> anyhow::Result<Outcome> {
    let stdin = std::io::stdin();
    let stdout = std::io::stdout();
    let mut out = stdout.lock();
    // Requests usually come grouped by image: keep the last one decoded.
    let mut cached: Option<(PathBuf, Image)> = None;
    let mut failed = false;
    for (number, line) in stdin.lock().lines().enumerate() {
        let line = line.context("cannot read stdin")?;
        if line.trim().is_empty() {
            continue;
        }
        let answer = match answer_request(&line, default_method, default_size, &mut cached) {
            Ok(answer) => serde_json::to_value(answer)?,
            Err(error) => {
                failed = true;
                let id = serde_json::from_str::<serde_json::Value>(&line)
                    .ok()
                    .and_then(|v| v.get("id").cloned());
                let mut value = serde_json::json!({
                    "line": number + 1,
                    "error": format!("{error:#}"),
                });
                if let Some(id) = id {
                    value["id"] = id;
                }
                value
            }
        };
        writeln!(out, "{answer}")?;
        out.flush()?;
    }
    Ok(if failed {
        Outcome::Error
    } else {
        Outcome::Pass
    })
}

fn answer_request(
    line: &str,
    default_method: Method,
    default_size: u32,
    cached: &mut Option<(PathBuf, Image)>,
) -> anyhow::Result<Answer> {
    let request: Request = serde_json::from_str(line).context("invalid request")?;
    let method = match &request.method {
        Some(name) => name.parse()?,
        None => default_method,
    };
    let size = request.size.unwrap_or(default_size);
    let area = match (request.crop, request.point) {
        (Some(_), Some(_)) => bail!("give either \"crop\" or \"point\", not both"),
        (Some([l, t, r, b]), None) => Area::Crop(Region::new(l, t, r, b)),
        (None, Some([x, y])) => Area::Point((x, y), request.region.unwrap_or(100)),
        (None, None) if request.region.is_some() => bail!("\"region\" needs a \"point\""),
        (None, None) => Area::Full,
    };
    if cached
        .as_ref()
        .is_none_or(|(path, _)| *path != request.image)
    {
        *cached = Some((request.image.clone(), load(&request.image)?));
    }
    let Some((_, image)) = cached.as_ref() else {
        bail!("no image decoded");
    };
    let (region, hash) = hash_image(image, area, method, size)?;
    Ok(Answer {
        id: request.id,
        image: request.image.display().to_string(),
        method,
        size,
        region: [region.left, region.top, region.right, region.bottom],
        hash,
    })
}
