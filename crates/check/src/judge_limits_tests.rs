//! The judge on a 1280x12000 page, against the scripted Anthropic server: every image within
//! Anthropic's limits, the parts labelled, the structural boxes given in the parts, and a box
//! the judge answers in a part placed in page pixels (fresh and from the cache).
#![allow(clippy::unwrap_used, clippy::expect_used)]

use base64::Engine;
use retrace_llm::ApiKey;
use retrace_llm::anthropic::AnthropicClient;
use retrace_llm::anthropic::AnthropicConfig;
use retrace_protocol::BoundingBox;
use retrace_protocol::events::Verdict;
use retrace_test_support::fake_model::FakeAnthropic;
use retrace_test_support::fake_model::ScriptStep;
use serde_json::json;

use super::JudgeInputs;
use super::ask;
use crate::spec::CheckSpec;

/// Anthropic's recommended long side (vision documentation), stated here apart from the
/// catalogue; it refuses images over 8000 px on a side, so within this is within that.
const RECOMMENDED_LONG_SIDE: u32 = 1568;

/// A 1280x12000 page: white, with a block at page (600, 6100) of size 80x40 in `colour`.
fn tall_page(colour: [u8; 3]) -> Vec<u8> {
    let (width, height) = (1280usize, 12000usize);
    let mut rgba = vec![255u8; width * height * 4];
    for y in 6100..6140 {
        for x in 600..680 {
            rgba[(y * width + x) * 4..][..3].copy_from_slice(&colour);
        }
    }
    retrace_vision::encode_png_rgba(width as u32, height as u32, &rgba).unwrap()
}

#[tokio::test]
async fn a_tall_pages_judge_request_is_within_the_limits_and_its_boxes_map_back() {
    // Part 3 of 4 of each image shows page rows 5909-9045 at half scale: the block is at
    // (300, 95.5) there, 40x20.
    let answer = json!({
        "verdict": "FAIL",
        "confidence": 90,
        "visual_differences": [{
            "type": "styling",
            "description": "the block is darker",
            "severity": "minor",
            "region": {"image": 2, "part": 3, "x": 300, "y": 96, "width": 40, "height": 20},
        }],
        "summary": "one block recoloured",
    });
    let fake = FakeAnthropic::start(vec![ScriptStep::text(answer.to_string())]).await;
    let client = AnthropicClient::new(
        AnthropicConfig::new(ApiKey::new("test-key"), "claude-judge")
            .with_base_url(fake.base_url()),
    )
    .unwrap();
    let out = tempfile::tempdir().unwrap();
    let spec = CheckSpec {
        out_dir: out.path().to_path_buf(),
        ..CheckSpec::default()
    };
    let (baseline, candidate, diff) = (
        tall_page([200, 200, 200]),
        tall_page([20, 20, 20]),
        tall_page([255, 0, 0]),
    );
    let structural = json!({
        "diff_pixels": 3200,
        "differences": [{"kind": "styling", "region": {"x": 600.0, "y": 6100.0, "width": 80.0, "height": 40.0}}],
    });
    let inputs = JudgeInputs {
        baseline_png: &baseline,
        candidate_png: &candidate,
        diff_png: Some(&diff),
        structural: &structural,
        masks: &[],
    };
    let placed = Some(BoundingBox {
        x: 600.0,
        y: 6101.0,
        width: 80.0,
        height: 40.0,
    });

    let judged = ask(&client, &spec, &inputs, false).await;
    assert_eq!(judged.verdict, Verdict::Fail, "{judged:?}");
    assert_eq!(judged.differences[0].region, placed, "in page pixels");

    let requests = fake.requests();
    assert_eq!(requests.len(), 1);
    retrace_test_support::sdk_check::assert_requests_valid(&requests);
    let images = requests[0].images();
    assert_eq!(images.len(), 12, "three images in four parts each");
    for image in &images {
        let png = base64::engine::general_purpose::STANDARD
            .decode(image)
            .unwrap();
        let decoded = retrace_vision::decode_png(&png).unwrap();
        let long = decoded.width().max(decoded.height());
        assert!(long <= RECOMMENDED_LONG_SIDE, "{long}");
    }
    let body = requests[0].body().to_string();
    for label in [
        "Image 1, the baseline, part 1 of 4, page rows 0-3136 at scale 0.5 (640x1568 px):",
        "Image 2, the candidate, part 3 of 4, page rows 5909-9045 at scale 0.5 (640x1568 px):",
        "Image 3, the pixel diff, part 4 of 4, page rows 8864-12000",
    ] {
        assert!(body.contains(label), "{label} missing in {body:.3000}");
    }
    // The structural box, in part 3 of every image: (300, 95)-(340, 116).
    let in_part = r#"\"in_images\":[{\"images\":[1,2,3],\"part\":3,\"x\":300.0,\"y\":95.0,\"width\":40.0,\"height\":21.0}]"#;
    let structural_text = &body[body.find("What the pixel").unwrap()..];
    assert!(body.contains(in_part), "{structural_text}");

    // The cached answer is placed the same way.
    let again = ask(&client, &spec, &inputs, false).await;
    assert!(again.cached);
    assert_eq!(again.differences[0].region, placed);
    assert_eq!(fake.requests().len(), 1);
}
