//! Every row of the shared imagehash vectors, and the askui sidecars, reproduced exactly.
#![allow(clippy::unwrap_used, clippy::expect_used)] // test helpers outside #[test] fns

use std::path::Path;

use retrace_protocol::tool_input::action_point;
use retrace_test_support::askui_examples_dir;
use retrace_test_support::read_json;
use retrace_test_support::read_jsonl;
use retrace_test_support::vectors_dir;
use retrace_vision::Image;
use retrace_vision::Method;
use retrace_vision::Region;
use retrace_vision::action_region;
use retrace_vision::decode_png;
use retrace_vision::hamming_distance;
use retrace_vision::hash;
use retrace_vision::png_region_hash;
use retrace_vision::region_hash;

fn load(relative: &str) -> Image {
    let path = vectors_dir().join(relative);
    let bytes = std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    decode_png(&bytes).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

fn region_of(value: &serde_json::Value) -> Option<Region> {
    let edges = value.as_array()?;
    let e: Vec<u32> = edges.iter().map(|v| v.as_u64().unwrap() as u32).collect();
    Some(Region::new(e[0], e[1], e[2], e[3]))
}

#[test]
fn every_hash_vector_is_reproduced() {
    let rows = read_jsonl(&vectors_dir().join("hashes.jsonl"));
    assert!(rows.len() >= 200, "only {} rows", rows.len());
    let mut failures = Vec::new();
    let mut cached: Option<(String, Image)> = None;
    for row in &rows {
        let name = row["image"].as_str().unwrap();
        if cached.as_ref().is_none_or(|(n, _)| n != name) {
            cached = Some((name.to_owned(), load(name)));
        }
        let image = &cached.as_ref().unwrap().1;
        let region = region_of(&row["region"])
            .unwrap_or_else(|| Region::full(image.width(), image.height()));
        for (method, key) in [(Method::Phash, "phash"), (Method::Ahash, "ahash")] {
            let got = region_hash(image, region, method, 8).unwrap().to_string();
            let want = row[key].as_str().unwrap();
            if got != want {
                failures.push(format!("{name} {region} {key}: got {got}, want {want}"));
            }
        }
    }
    assert!(
        failures.is_empty(),
        "{} mismatches:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

#[test]
fn png_region_hash_reproduces_every_hash_vector() {
    // Straight from the PNG bytes, as replay hashes a screenshot: every row of the vectors,
    // regions and whole images alike.
    let rows = read_jsonl(&vectors_dir().join("hashes.jsonl"));
    let mut checked = 0;
    let mut cached: Option<(String, Vec<u8>, (u32, u32))> = None;
    for row in &rows {
        let name = row["image"].as_str().unwrap();
        if cached.as_ref().is_none_or(|(n, _, _)| n != name) {
            let bytes = std::fs::read(vectors_dir().join(name)).unwrap();
            let image = decode_png(&bytes).unwrap();
            let size = (image.width(), image.height());
            cached = Some((name.to_owned(), bytes, size));
        }
        let (_, bytes, (width, height)) = cached.as_ref().unwrap();
        let region = region_of(&row["region"]).unwrap_or_else(|| Region::full(*width, *height));
        for (method, key) in [(Method::Phash, "phash"), (Method::Ahash, "ahash")] {
            let got = png_region_hash(bytes, region, method, 8)
                .unwrap()
                .to_string();
            assert_eq!(got, row[key].as_str().unwrap(), "{name} {region} {key}");
        }
        checked += 1;
    }
    assert!(checked >= 200, "only {checked} rows checked");
}

#[test]
fn png_region_hash_equals_decode_then_region_hash_on_every_shared_screenshot() {
    // Action regions all over each screenshot: corners, edges, the middle, the last rows.
    let dir = vectors_dir().join("images/screens");
    let mut names: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|entry| entry.unwrap().path())
        .filter(|path| path.extension().is_some_and(|e| e == "png"))
        .collect();
    names.sort();
    assert!(names.len() >= 20, "only {} screenshots", names.len());
    for path in names {
        let bytes = std::fs::read(&path).unwrap();
        let image = decode_png(&bytes).unwrap();
        let (w, h) = (i64::from(image.width()), i64::from(image.height()));
        for point in [
            (0, 0),
            (w - 1, h - 1),
            (w / 2, h / 2),
            (37, h - 20),
            (w - 5, 300),
            (640, 400),
        ] {
            let region = action_region(point, 100, image.width(), image.height());
            let want = region_hash(&image, region, Method::Phash, 8).unwrap();
            let got = png_region_hash(&bytes, region, Method::Phash, 8).unwrap();
            assert_eq!(got, want, "{} {region}", path.display());
        }
    }
}

#[test]
fn every_pair_distance_is_reproduced() {
    let rows = read_jsonl(&vectors_dir().join("pairs.jsonl"));
    assert!(!rows.is_empty());
    for row in &rows {
        let a = load(row["original"].as_str().unwrap());
        let b = load(row["variant"].as_str().unwrap());
        for (method, key) in [
            (Method::Phash, "phash_distance"),
            (Method::Ahash, "ahash_distance"),
        ] {
            let ha = hash(&a, method, 8).unwrap();
            let hb = hash(&b, method, 8).unwrap();
            let distance = hamming_distance(&ha.to_string(), &hb.to_string()).unwrap();
            assert_eq!(distance, ha.distance(&hb).unwrap());
            assert_eq!(
                u64::from(distance),
                row[key].as_u64().unwrap(),
                "{} vs {} ({key})",
                row["original"],
                row["variant"]
            );
        }
    }
}

#[test]
fn askui_visual_representations_are_reproduced() {
    let dir = askui_examples_dir();
    let mut checked = 0;
    for entry in std::fs::read_dir(&dir).unwrap() {
        let path = entry.unwrap().path();
        if !path.to_string_lossy().ends_with(".expect.json") {
            continue;
        }
        checked += check_sidecar(&path);
    }
    assert!(checked >= 20, "only {checked} hashed steps checked");
}

fn check_sidecar(path: &Path) -> usize {
    let sidecar = read_json(path);
    let Some(method) = sidecar["hash"]["method"].as_str() else {
        return 0;
    };
    let method: Method = method.parse().unwrap();
    let region_size = sidecar["hash"]["region_size"].as_u64().unwrap() as u32;
    let mut checked = 0;
    for step in sidecar["steps"].as_array().unwrap() {
        let Some(want) = step["visual_representation"].as_str() else {
            continue;
        };
        let image = load(step["before_image"].as_str().unwrap());
        let point = action_point(&step["input"]).unwrap();
        let region = action_region(point, region_size, image.width(), image.height());
        assert_eq!(
            Some(region),
            region_of(&step["crop_box"]),
            "{} step {}",
            path.display(),
            step["index"]
        );
        let got = region_hash(&image, region, method, 8).unwrap().to_string();
        assert_eq!(got, want, "{} step {}", path.display(), step["index"]);
        checked += 1;
    }
    checked
}
