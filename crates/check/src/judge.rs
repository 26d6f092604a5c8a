//! Asking the model judge about one attempt, and what its answer does to the verdict.
//!
//! The deterministic layers find two sorts of difference. **Facts** are what the DOM or the
//! console confirms: an element moved, relabelled, removed or added, a computed colour that
//! differs, a changed page size, a console error. **Unexplained pixels**
//! ([`ChangeKind::Pixels`]) changed under elements the DOM shows unchanged: an image, a
//! shadow, rendering, which noise can also produce. Only unexplained pixels are the judge's
//! to overrule; a fact is a FAIL whatever the judge says.
//!
//! **When** ([`should_ask`]): never for identical bytes; with [`JudgeWhen::Noise`] only when
//! every difference is unexplained pixels and the differing pixels are at or under the hard
//! ceiling ([`JudgeOptions::ceiling_ratio`] of the page); with [`JudgeWhen::Always`]
//! whenever the screenshots differ (to explain).
//!
//! **How** ([`ask`]): the cache first (keyed by both screenshots, the masks, the model, the
//! prompt version and the context); otherwise one request with the focused prompt as the system prompt,
//! the baseline, candidate and diff images as base64 PNG blocks, each fitted to the model's
//! image limits (shrunk, or a tall page in labelled parts: `judge_images`), and the
//! structural diff as JSON (its boxes also given in the pixels of the parts that show them),
//! answered within `timeouts.model_ms`, read by the seed's rules
//! ([`read_judgement`]), a difference's `region` mapped from the image part it names back to
//! page pixels. The provider is used as given: a failed call is this attempt's
//! ERROR, and the check's own retries (logged per attempt) try again.
//!
//! **Then** ([`combine`]): when the deterministic layers found a fact, the verdict is FAIL
//! with the facts whatever the judge answered (a FAIL adds its differences; a PASS clears the
//! unexplained pixels only; an unusable answer stays in the judge's record, it does not turn
//! a confirmed FAIL into an ERROR). Otherwise the judge decides: its ERROR is the attempt's
//! ERROR (retried), its FAIL adds its differences, its PASS clears the unexplained pixels.

use retrace_llm::MessageRequest;
use retrace_llm::VlmProvider;
use retrace_protocol::ContentBlock;
use retrace_protocol::Message;
use retrace_protocol::events::ChangeKind;
use retrace_protocol::events::Difference;
use retrace_protocol::events::JudgeRecord;
use retrace_protocol::events::Verdict;

use crate::judge_images::Layouts;
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

/// A difference the judge may overrule: a box of pixels that changed under elements the DOM
/// shows unchanged (an image, a shadow, anti-aliasing), which rendering noise can also
/// produce. Everything else is a fact.
fn overrulable(difference: &Difference) -> bool {
    difference.region.is_some() && difference.change == Some(ChangeKind::Pixels)
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

/// The attempt's verdict, differences and error once the judge has spoken (see the module
/// docs: a fact found by the deterministic layers is a FAIL whatever the judge says).
pub fn combine(
    judged: &JudgeRecord,
    found: Vec<Difference>,
) -> (Verdict, Vec<Difference>, Option<String>) {
    let has_fact = found.iter().any(|d| !overrulable(d));
    match judged.verdict {
        Verdict::Error if has_fact => (Verdict::Fail, found, None),
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

/// The request: focused prompt, the three images (fitted: `images`), the structural diff.
fn request(spec: &CheckSpec, images: Vec<ContentBlock>, structural: String) -> MessageRequest {
    let mut blocks = images;
    blocks.push(ContentBlock::text(structural));
    MessageRequest::new(vec![Message::user(blocks)], MAX_TOKENS)
        .with_system(judge_prompt(spec.judge.context.as_deref()))
        .with_temperature(0.0)
        .with_response_schema(retrace_schema::verdict_schema(
            crate::judgement::VERDICT_SCHEMA_VERSION,
        ))
}

/// The three images fitted to the model's limits, on the blocking pool (a tall page takes a
/// while to decode, cut and resize).
async fn fitted_images(
    layouts: &Layouts,
    inputs: &JudgeInputs<'_>,
) -> Result<Vec<ContentBlock>, String> {
    let layouts = layouts.clone();
    let owned = [
        Some(inputs.baseline_png.to_vec()),
        Some(inputs.candidate_png.to_vec()),
        inputs.diff_png.map(<[u8]>::to_vec),
    ];
    tokio::task::spawn_blocking(move || layouts.fit(owned.each_ref().map(Option::as_deref)))
        .await
        .map_err(|e| format!("fitting the screenshots to the model's limits failed: {e}"))?
}

/// Asks `provider` to judge `inputs` (the cache first), under `timeouts.model_ms`.
pub async fn ask(
    provider: &dyn VlmProvider,
    spec: &CheckSpec,
    inputs: &JudgeInputs<'_>,
    pixels_over_ceiling: bool,
) -> JudgeRecord {
    let model = provider.model_id().to_owned();
    let pngs = [
        Some(inputs.baseline_png),
        Some(inputs.candidate_png),
        inputs.diff_png,
    ];
    let layouts = match Layouts::of(pngs, provider.image_limits()) {
        Ok(layouts) => layouts,
        Err(message) => return record(&model, Judgement::error(None, message), false),
    };
    let key = judgement_cache_key(
        inputs.baseline_png,
        inputs.candidate_png,
        inputs.masks,
        &model,
        spec.judge.context.as_deref(),
    );
    let dir = spec.judgement_dir();
    let read =
        |answer: &str| read_judgement(answer, spec.judge.min_confidence, pixels_over_ceiling);
    if let Some(answer) = judgement_cache::load(&dir, &key, &model) {
        let judged = read(&answer);
        if judged.verdict != Verdict::Error {
            return record(&model, layouts.place(judged), true);
        }
    }
    let images = match fitted_images(&layouts, inputs).await {
        Ok(images) => images,
        Err(message) => return record(&model, Judgement::error(None, message), false),
    };
    let request = request(spec, images, layouts.structural_text(inputs.structural));
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
    let judged = layouts.place(read(&answer));
    if judged.verdict != Verdict::Error
        && let Err(error) = judgement_cache::store(&dir, &key, &model, &answer)
    {
        tracing::warn!("the judgement is not cached: {error}");
    }
    record(&model, judged, false)
}

#[cfg(test)]
#[path = "judge_limits_tests.rs"]
mod limits_tests;

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

    fn difference(boxed: bool, kind: DifferenceKind, change: ChangeKind) -> Difference {
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
            change: Some(change),
        }
    }

    fn pixels() -> Difference {
        difference(true, DifferenceKind::Styling, ChangeKind::Pixels)
    }

    #[test]
    fn the_judge_is_asked_only_about_what_may_be_noise_unless_always() {
        let noise = JudgeOptions {
            when: JudgeWhen::Noise,
            ceiling_ratio: 0.01,
            ..JudgeOptions::default()
        };
        let boxed = vec![pixels()];
        assert!(should_ask(&noise, &comparison(100, false), &boxed));
        assert!(!should_ask(&noise, &comparison(101, false), &boxed), "over");
        assert!(!should_ask(&noise, &comparison(5, false), &[]), "passed");
        let console = vec![
            pixels(),
            difference(
                false,
                DifferenceKind::ConsoleError,
                ChangeKind::ConsoleError,
            ),
        ];
        assert!(!should_ask(&noise, &comparison(5, false), &console));
        let moved = vec![
            pixels(),
            difference(true, DifferenceKind::Layout, ChangeKind::Shift),
        ];
        assert!(
            !should_ask(&noise, &comparison(5, false), &moved),
            "a moved element is not noise"
        );
        let relabelled = vec![difference(true, DifferenceKind::Content, ChangeKind::Text)];
        assert!(!should_ask(&noise, &comparison(5, false), &relabelled));
        let recoloured = vec![difference(
            true,
            DifferenceKind::Styling,
            ChangeKind::Colour,
        )];
        assert!(
            !should_ask(&noise, &comparison(5, false), &recoloured),
            "a colour the DOM confirms is not noise"
        );
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
    fn a_pass_clears_only_unexplained_pixels_and_facts_stay_a_fail_whatever_the_judge_says() {
        let judged = |verdict| JudgeRecord {
            model: "m".into(),
            verdict,
            confidence: Some(90),
            differences: vec![difference(false, DifferenceKind::Layout, ChangeKind::Shift)],
            summary: None,
            error: (verdict == Verdict::Error).then(|| "bad".to_owned()),
            cached: false,
        };
        let console = difference(
            false,
            DifferenceKind::ConsoleError,
            ChangeKind::ConsoleError,
        );
        let recoloured = difference(true, DifferenceKind::Styling, ChangeKind::Colour);
        let (verdict, kept, _) = combine(&judged(Verdict::Pass), vec![pixels()]);
        assert_eq!((verdict, kept.len()), (Verdict::Pass, 0));
        let (verdict, kept, _) = combine(&judged(Verdict::Pass), vec![pixels(), console]);
        assert_eq!((verdict, kept.len()), (Verdict::Fail, 1));
        let (verdict, kept, _) = combine(&judged(Verdict::Pass), vec![recoloured.clone()]);
        assert_eq!((verdict, kept), (Verdict::Fail, vec![recoloured.clone()]));
        let (verdict, kept, _) = combine(&judged(Verdict::Fail), vec![pixels()]);
        assert_eq!((verdict, kept.len()), (Verdict::Fail, 2));
        let (verdict, _, error) = combine(&judged(Verdict::Error), vec![pixels()]);
        assert_eq!((verdict, error.as_deref()), (Verdict::Error, Some("bad")));
        let (verdict, kept, error) = combine(&judged(Verdict::Error), vec![recoloured.clone()]);
        assert_eq!(
            (verdict, kept, error),
            (Verdict::Fail, vec![recoloured], None),
            "an unusable answer does not turn a confirmed FAIL into an ERROR"
        );
    }
}
