#![allow(clippy::unwrap_used, clippy::expect_used)]

use retrace_protocol::events::Difference;
use retrace_protocol::events::DifferenceKind;
use retrace_protocol::events::Severity;
use retrace_protocol::events::Verdict;

use super::*;

const ANTHROPIC: ImageLimits = ImageLimits {
    max_long_side: 8000,
    recommended_long_side: 1568,
};

fn png(width: u32, height: u32) -> Vec<u8> {
    let rgba = vec![255u8; (width * height * 4) as usize];
    retrace_vision::encode_png_rgba(width, height, &rgba).unwrap()
}

fn judged(region: Option<ImageRegion>) -> Judgement {
    Judgement {
        verdict: Verdict::Fail,
        confidence: Some(90),
        differences: vec![Difference {
            kind: DifferenceKind::Layout,
            severity: Severity::Major,
            description: "moved".into(),
            region: None,
            change: None,
        }],
        summary: None,
        error: None,
        regions: vec![region],
    }
}

#[test]
fn small_pages_are_described_as_before() {
    let shot = png(64, 48);
    let layouts = Layouts::of([Some(&shot), Some(&shot), None], ANTHROPIC).unwrap();
    let structural =
        json!({"differences": [{"region": {"x": 1.0, "y": 2.0, "width": 3.0, "height": 4.0}}]});
    assert_eq!(
        layouts.structural_text(&structural),
        format!("What the pixel comparison found (boxes in page pixels):\n{structural}")
    );
    let blocks = layouts.fit([Some(&shot), Some(&shot), None]).unwrap();
    assert_eq!(blocks.len(), 4);
    assert_eq!(blocks[0], ContentBlock::text("Image 1, the baseline:"));
    assert_eq!(blocks[2], ContentBlock::text("Image 2, the candidate:"));
}

#[test]
fn a_tall_pages_boxes_are_given_in_every_part_that_shows_them() {
    let tall = png(1280, 12000);
    let diff = png(1280, 12000);
    let layouts = Layouts::of([Some(&tall), Some(&tall), Some(&diff)], ANTHROPIC).unwrap();
    // Rows 3000-3040 lie in parts 1 (0-3136) and 2 (2955-6091).
    let structural = json!({"differences": [{"region": {"x": 100.0, "y": 3000.0, "width": 50.0, "height": 40.0}}]});
    let text = layouts.structural_text(&structural);
    let json_part = &text[text.find('{').unwrap()..];
    let value: Value = serde_json::from_str(json_part).unwrap();
    assert_eq!(
        value["differences"][0]["region"]["in_images"],
        json!([
            {"images": [1, 2, 3], "part": 1, "x": 50.0, "y": 1500.0, "width": 25.0, "height": 20.0},
            {"images": [1, 2, 3], "part": 2, "x": 50.0, "y": 22.0, "width": 25.0, "height": 21.0},
        ])
    );
    assert!(text.contains("in_images"), "{text}");
}

#[test]
fn a_region_in_a_part_is_placed_in_page_pixels() {
    let tall = png(1280, 12000);
    let layouts = Layouts::of([Some(&tall), Some(&tall), None], ANTHROPIC).unwrap();
    // Part 2 of image 2 starts at page row 2955, at half scale.
    let region = ImageRegion {
        image: 2,
        part: 2,
        x: 10.0,
        y: 20.0,
        width: 30.0,
        height: 40.0,
    };
    let placed = layouts.place(judged(Some(region)));
    assert_eq!(
        placed.differences[0].region,
        Some(BoundingBox {
            x: 20.0,
            y: 2995.0,
            width: 60.0,
            height: 80.0
        })
    );
    for missing in [
        ImageRegion { image: 3, ..region },
        ImageRegion { part: 5, ..region },
        ImageRegion { part: 0, ..region },
    ] {
        let placed = layouts.place(judged(Some(missing)));
        assert_eq!(placed.differences[0].region, None, "{missing:?}");
    }
    assert_eq!(layouts.place(judged(None)).differences[0].region, None);
}
