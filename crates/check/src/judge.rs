//! Asking the model judge about one attempt, and what its answer does to the verdict.
//!
//! **When** ([`should_ask`]): never for identical bytes; with [`JudgeWhen::Noise`] only when
//! every difference the deterministic layers found is a styling box (pixels changed under
//! elements that are all still there, with the same text, at the same place) and the
//! differing pixels are at or under the hard ceiling ([`JudgeOptions::ceiling_ratio`] of the
//! page): differences that might be noise. A moved, relabelled, removed or added element, a
//! console error or a changed page size is a fact the DOM shows, never noise. With
//! [`JudgeWhen::Always`] whenever the screenshots differ (to explain).
//!
//! **How** ([`ask`]): the cache first (keyed by both screenshots, the masks, the model and
//! the prompt version); otherwise one request with the focused prompt as the system prompt,
//! the baseline, candidate and diff images as base64 PNG blocks and the structural diff as
//! JSON, answered within `timeouts.model_ms`, read by the seed's rules
//! ([`read_judgement`]). The provider is used as given: a failed call is this attempt's
//! ERROR, and the check's own retries (logged per attempt) try again.
//!
//! **Then** ([`combine`]): a judge's ERROR is the attempt's ERROR; its FAIL adds its
//! differences; its PASS clears the styling boxes it was asked about, never a structural
//! change, a console error or a changed page size.

use base64::Engine;
use retrace_llm::MessageRequest;
use retrace_llm::VlmProvider;
use retrace_protocol::ContentBlock;
use retrace_protocol::Message;
use retrace_protocol::events::Difference;
use retrace_protocol::events::DifferenceKind;
use retrace_protocol::events::JudgeRecord;
use retrace_protocol::events::Verdict;

use crate::judge_options::JudgeOptions;
use crate::judge_options::JudgeWhen;
use crate::judgement::Judgement;
use crate::judgement::judge_prompt;
use crate::judgement::judgement_cache_key;
use crate::judgement::read_judgement;
use crate::judgement_cache;
use crate::pixels::PixelComparison;
use crate::spec::CheckSpec;

/// Output budget of one judgement.
const MAX_TOKENS: u32 = 2048;

/// What the judge is shown.
pub struct JudgeInputs<'a> {
    /// The baseline screenshot (PNG).
    pub baseline_png: &'a [u8],
    /// The candidate screenshot (PNG).
    pub candidate_png: &'a [u8],
    /// The diff image with its boxes (PNG), when the screenshots differ.
    pub diff_png: Option<&'a [u8]>,
    /// The deterministic layers' findings (pixel counts, boxes, typed differences).
    pub structural: &'a serde_json::Value,
    /// The masks painted on both screenshots (part of the cache key).
    pub masks: &'a [String],
}

/// Whether the pixel layer found more than a judge may overrule: a changed page size, or a
/// share of differing pixels above the ceiling.
pub fn over_ceiling(comparison: &PixelComparison, options: &JudgeOptions) -> bool {
    if comparison.size_changed.is_some() {
        return true;
    }
    let total = (u64::from(comparison.width) * u64::from(comparison.height)).max(1);
    comparison.diff_pixels as f64 / total as f64 > options.ceiling_ratio
}

/// A difference the judge may overrule: a box of pixels that changed under the same
/// elements (a colour, an image, anti-aliasing), which rendering noise can also produce.
fn overrulable(difference: &Difference) -> bool {
    difference.region.is_some() && difference.kind == DifferenceKind::Styling
}

/// Whether the judge is asked about this attempt (see the module docs).
pub fn should_ask(
    options: &JudgeOptions,
    comparison: &PixelComparison,
    found: &[Difference],
) -> bool {
    if comparison.identical {
        return false;
    }
    match options.when {
        JudgeWhen::Off => false,
        JudgeWhen::Noise => {
            !found.is_empty() && found.iter().all(overrulable) && !over_ceiling(comparison, options)
        }
        JudgeWhen::Always => true,
    }
}

/// The attempt's verdict, differences and error once the judge has spoken.
pub fn combine(
    judged: &JudgeRecord,
    found: Vec<Difference>,
) -> (Verdict, Vec<Difference>, Option<String>) {
    match judged.verdict {
        Verdict::Error => (Verdict::Error, found, judged.error.clone()),
        Verdict::Fail => {
            let mut all = found;
            all.extend(judged.differences.iter().cloned());
            (Verdict::Fail, all, None)
        }
        Verdict::Pass => {
            let kept: Vec<Difference> = found.into_iter().filter(|d| !overrulable(d)).collect();
            let verdict = if kept.is_empty() {
                Verdict::Pass
            } else {
                Verdict::Fail
            };
            (verdict, kept, None)
        }
    }
}

fn record(model: &str, judged: Judgement, cached: bool) -> JudgeRecord {
    JudgeRecord {
        model: model.to_owned(),
        verdict: judged.verdict,
        confidence: judged.confidence,
        differences: judged.differences,
        summary: judged.summary,
        error: judged.error,
        cached,
    }
}

/// The request: focused prompt, the three images, the structural diff.
fn request(spec: &CheckSpec, inputs: &JudgeInputs<'_>) -> MessageRequest {
    let png = |bytes: &[u8]| {
        ContentBlock::png_base64(base64::engine::general_purpose::STANDARD.encode(bytes))
    };
    let mut blocks = vec![
        ContentBlock::text("Image 1, the baseline:"),
        png(inputs.baseline_png),
        ContentBlock::text("Image 2, the candidate:"),
        png(inputs.candidate_png),
    ];
    if let Some(diff) = inputs.diff_png {
        blocks.push(ContentBlock::text("Image 3, the pixel diff:"));
        blocks.push(png(diff));
    }
    blocks.push(ContentBlock::text(format!(
        "What the pixel comparison found (boxes in page pixels):\n{}",
        inputs.structural
    )));
    MessageRequest::new(vec![Message::user(blocks)], MAX_TOKENS)
        .with_system(judge_prompt(spec.judge.context.as_deref()))
        .with_temperature(0.0)
        .with_response_schema(retrace_schema::verdict_schema("1.0.0"))
}

/// Asks `provider` to judge `inputs` (the cache first), under `timeouts.model_ms`.
pub async fn ask(
    provider: &dyn VlmProvider,
    spec: &CheckSpec,
    inputs: &JudgeInputs<'_>,
    pixels_over_ceiling: bool,
) -> JudgeRecord {
    let model = provider.model_id().to_owned();
    let key = judgement_cache_key(
        inputs.baseline_png,
        inputs.candidate_png,
        inputs.masks,
        &model,
    );
    let dir = spec.judgement_dir();
    let read =
        |answer: &str| read_judgement(answer, spec.judge.min_confidence, pixels_over_ceiling);
    if let Some(answer) = judgement_cache::load(&dir, &key, &model) {
        let judged = read(&answer);
        if judged.verdict != Verdict::Error {
            return record(&model, judged, true);
        }
    }
    let request = request(spec, inputs);
    let limit = spec.timeouts.model();
    let answer = match tokio::time::timeout(limit, provider.create_message(&request)).await {
        Err(_) => {
            let message = format!(
                "the judge did not answer within timeouts.model_ms ({} ms)",
                spec.timeouts.model_ms
            );
            return record(&model, Judgement::error(None, message), false);
        }
        Ok(Err(error)) => {
            let message = format!("the judge's model call failed: {error}");
            return record(&model, Judgement::error(None, message), false);
        }
        Ok(Ok(response)) => response.text(),
    };
    let judged = read(&answer);
    if judged.verdict != Verdict::Error
        && let Err(error) = judgement_cache::store(&dir, &key, &model, &answer)
    {
        tracing::warn!("the judgement is not cached: {error}");
    }
    record(&model, judged, false)
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]
    use retrace_protocol::BoundingBox;
    use retrace_protocol::events::DifferenceKind;
    use retrace_protocol::events::Severity;

    use super::*;

    fn comparison(diff_pixels: u64, identical: bool) -> PixelComparison {
        PixelComparison {
            width: 100,
            height: 100,
            identical,
            diff_pixels,
            delta_e_pixels: 0,
            size_changed: None,
            boxes: Vec::new(),
            diff_image: Vec::new(),
        }
    }

    fn difference(boxed: bool, kind: DifferenceKind) -> Difference {
        Difference {
            kind,
            severity: Severity::Minor,
            description: "x".into(),
            region: boxed.then_some(BoundingBox {
                x: 1.0,
                y: 1.0,
                width: 2.0,
                height: 2.0,
            }),
            change: None,
        }
    }

    #[test]
    fn the_judge_is_asked_only_about_what_may_be_noise_unless_always() {
        let noise = JudgeOptions {
            when: JudgeWhen::Noise,
            ceiling_ratio: 0.01,
            ..JudgeOptions::default()
        };
        let boxed = vec![difference(true, DifferenceKind::Styling)];
        assert!(should_ask(&noise, &comparison(100, false), &boxed));
        assert!(!should_ask(&noise, &comparison(101, false), &boxed), "over");
        assert!(!should_ask(&noise, &comparison(5, false), &[]), "passed");
        let console = vec![
            boxed[0].clone(),
            difference(false, DifferenceKind::ConsoleError),
        ];
        assert!(!should_ask(&noise, &comparison(5, false), &console));
        let moved = vec![boxed[0].clone(), difference(true, DifferenceKind::Layout)];
        assert!(
            !should_ask(&noise, &comparison(5, false), &moved),
            "a moved element is not noise"
        );
        let relabelled = vec![difference(true, DifferenceKind::Content)];
        assert!(!should_ask(&noise, &comparison(5, false), &relabelled));
        let always = JudgeOptions {
            when: JudgeWhen::Always,
            ..noise.clone()
        };
        assert!(should_ask(&always, &comparison(9_000, false), &[]));
        assert!(!should_ask(&always, &comparison(0, true), &[]), "identical");
        let off = JudgeOptions::default();
        assert!(!should_ask(&off, &comparison(5, false), &boxed));
        let mut resized = comparison(1, false);
        resized.size_changed = Some(((1, 1), (1, 2)));
        assert!(over_ceiling(&resized, &noise));
    }

    #[test]
    fn a_pass_clears_only_pixel_boxes_and_a_fail_adds_its_differences() {
        let judged = |verdict| JudgeRecord {
            model: "m".into(),
            verdict,
            confidence: Some(90),
            differences: vec![difference(false, DifferenceKind::Layout)],
            summary: None,
            error: (verdict == Verdict::Error).then(|| "bad".to_owned()),
            cached: false,
        };
        let boxed = difference(true, DifferenceKind::Styling);
        let console = difference(false, DifferenceKind::ConsoleError);
        let (verdict, kept, _) = combine(&judged(Verdict::Pass), vec![boxed.clone()]);
        assert_eq!((verdict, kept.len()), (Verdict::Pass, 0));
        let (verdict, kept, _) = combine(&judged(Verdict::Pass), vec![boxed.clone(), console]);
        assert_eq!((verdict, kept.len()), (Verdict::Fail, 1));
        let (verdict, kept, _) = combine(&judged(Verdict::Fail), vec![boxed.clone()]);
        assert_eq!((verdict, kept.len()), (Verdict::Fail, 2));
        let (verdict, _, error) = combine(&judged(Verdict::Error), vec![boxed]);
        assert_eq!((verdict, error.as_deref()), (Verdict::Error, Some("bad")));
    }
}
