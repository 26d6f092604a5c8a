//! `retrace hash`: perceptual hashes of PNG files (or regions of them), identical to Python
//! imagehash, one file per line; `--batch` answers JSON Lines requests from stdin in one
//! process.

use std::io::BufRead;
use std::io::Write;
use std::path::PathBuf;

use anyhow::Context;
use retrace_runner::hash::Area;
use retrace_runner::hash::Batch;
use retrace_runner::hash::Method;

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
    pub crop: Option<[u32; 4]>,
    /// Print one JSON object per file (one per line) instead of `HASH  FILE`.
    #[arg(long)]
    pub json: bool,
    /// Read JSON Lines requests from stdin and answer each with one JSON line.
    #[arg(long)]
    pub batch: bool,
}

fn parse_method(text: &str) -> Result<Method, String> {
    text.parse()
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

fn parse_crop(text: &str) -> Result<[u32; 4], String> {
    let v = numbers(text, 4, "LEFT,TOP,RIGHT,BOTTOM (four integers)")?;
    let edge =
        |i: usize| u32::try_from(v[i]).map_err(|_| format!("crop edge {} is negative", v[i]));
    Ok([edge(0)?, edge(1)?, edge(2)?, edge(3)?])
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
    let mut out = crate::output::stdout();
    for file in &args.files {
        let answer = retrace_runner::hash::hash_file(file, area, args.method, args.size)?;
        if args.json {
            writeln!(out, "{}", serde_json::to_string(&answer)?)?;
        } else {
            writeln!(out, "{}  {}", answer.hash, file.display())?;
        }
    }
    Ok(Outcome::Pass)
}

fn run_batch(default_method: Method, default_size: u32) -> anyhow::Result<Outcome> {
    let stdin = std::io::stdin();
    let mut out = crate::output::stdout();
    let mut batch = Batch::new(default_method, default_size);
    let mut failed = false;
    for (number, line) in stdin.lock().lines().enumerate() {
        let line = line.context("cannot read stdin")?;
        if line.trim().is_empty() {
            continue;
        }
        let answer = match batch.answer(&line) {
            Ok(answer) => serde_json::to_value(answer)?,
            Err(error) => {
                let error = anyhow::Error::from(error);
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
