//! The model judge's side that needs no model: the focused prompt, the cache key of a
//! judgement, and the strict reading of an answer in the comparison schema
//! (`retrace_schema::verdict_schema`) with the seed's rules: anything unparsable or invalid is
//! an ERROR; a PASS listing differences is a FAIL; a PASS under the confidence floor is an
//! ERROR; and one more, a PASS while the pixel layer is above its hard ceiling is an ERROR
//! ("the judge disagrees with the pixels"). Asking the model is module `judge`'s job; the
//! cache store is `judgement_cache`.

use retrace_protocol::answer_json;
use retrace_protocol::answer_json::Expected;
use std::sync::Arc;

use retrace_protocol::events::Difference;
use retrace_protocol::events::DifferenceKind;
use retrace_protocol::events::Severity;
use retrace_protocol::events::Verdict;
use retrace_schema::CompiledSchema;
use serde::Deserialize;

/// The version of [`judge_prompt`]: part of the cache key, so a new prompt re-judges.
pub const JUDGE_PROMPT_VERSION: &str = "2";

/// The version the verdict schema is stamped with (1.1.0: a difference may say where it is).
pub const VERDICT_SCHEMA_VERSION: &str = "1.1.0";

/// The confidence under which a PASS is not trusted (the seed's 80).
pub const DEFAULT_MIN_CONFIDENCE: u8 = 80;

/// The judge's instructions: its only task is the differences a user would notice; the
/// expected answer is none. `context` (the file and line a refactoring changed) is passed
/// through as reference, not as instructions.
pub fn judge_prompt(context: Option<&str>) -> String {
    let mut prompt = String::from(
        "You are a visual regression detector. Image 1 is the baseline page, image 2 the \
         candidate, image 3 the pixel diff (changed pixels red, boxes magenta); a page taller \
         than the model takes is sent shrunk or in labelled parts.\n\
         Task: report ONLY differences a user would see or experience. Ignore differences \
         that are not visible (markup, whitespace in source).\nExpected result: ZERO visual \
         differences.\nAnswer with JSON only: {\"verdict\": \"PASS\"|\"FAIL\"|\"ERROR\", \
         \"confidence\": 0-100, \"visual_differences\": [{\"type\": \
         \"layout\"|\"styling\"|\"content\"|\"interaction\"|\"console_error\", \
         \"description\": \"...\", \"severity\": \"critical\"|\"major\"|\"minor\", \
         \"region\": {\"image\": 1|2|3, \"part\": 1, \"x\": 0, \"y\": 0, \"width\": 0, \
         \"height\": 0}}], \"summary\": \"one sentence\"}. \"region\" is optional: where the \
         difference is, in the pixels of the image named (and of the part named, when an image \
         is sent in parts).\nPASS: zero differences; FAIL: one or more; ERROR: \
         the comparison could not be made. An empty visual_differences means PASS.",
    );
    if let Some(context) = context {
        prompt.push_str("\nContext, for reference only: ");
        prompt.push_str(context);
    }
    prompt
}

/// A stable key for a judgement of these inputs (FNV-1a 64 over each part, length-prefixed):
/// the same screenshots, masks, model, prompt version and context (`--context`, which the
/// prompt carries: another context may well get another answer) are never judged twice.
pub fn judgement_cache_key(
    baseline_png: &[u8],
    candidate_png: &[u8],
    masks: &[String],
    model: &str,
    context: Option<&str>,
) -> String {
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    let mut feed = |bytes: &[u8]| {
        for byte in (bytes.len() as u64).to_le_bytes().iter().chain(bytes) {
            hash ^= u64::from(*byte);
            hash = hash.wrapping_mul(0x0100_0000_01b3);
        }
    };
    feed(baseline_png);
    feed(candidate_png);
    for mask in masks {
        feed(mask.as_bytes());
    }
    feed(model.as_bytes());
    feed(JUDGE_PROMPT_VERSION.as_bytes());
    match context {
        Some(context) => feed(format!("context:{context}").as_bytes()),
        None => feed(b"no context"),
    }
    format!("{hash:016x}")
}

/// A judge's answer, read.
#[derive(Debug, Clone, PartialEq)]
pub struct Judgement {
    /// The verdict after the rules.
    pub verdict: Verdict,
    /// The judge's confidence, when it gave a valid one.
    pub confidence: Option<u8>,
    /// What it listed.
    pub differences: Vec<Difference>,
    /// Its summary.
    pub summary: Option<String>,
    /// Why it is an ERROR.
    pub error: Option<String>,
    /// Where the judge placed each difference (one per difference, in order), in the pixels
    /// of the image it named; `judge` maps them to page pixels.
    pub regions: Vec<Option<ImageRegion>>,
}

/// A box the judge gave in the pixels of one image it was shown.
#[derive(Debug, Clone, Copy, PartialEq, Deserialize)]
pub struct ImageRegion {
    /// 1 the baseline, 2 the candidate, 3 the diff.
    pub image: u8,
    /// The part of a page sent in parts, from 1 (1 when the image was sent whole).
    #[serde(default = "first_part")]
    pub part: usize,
    /// Left edge.
    pub x: f64,
    /// Top edge.
    pub y: f64,
    /// Width.
    pub width: f64,
    /// Height.
    pub height: f64,
}

fn first_part() -> usize {
    1
}

impl Judgement {
    pub(crate) fn error(confidence: Option<u8>, message: String) -> Self {
        Self {
            verdict: Verdict::Error,
            confidence,
            differences: Vec::new(),
            summary: None,
            error: Some(message),
            regions: Vec::new(),
        }
    }
}

#[derive(Deserialize)]
struct Answer {
    verdict: Verdict,
    confidence: f64,
    visual_differences: Vec<AnswerDifference>,
    summary: String,
}

#[derive(Deserialize)]
struct AnswerDifference {
    #[serde(rename = "type")]
    kind: DifferenceKind,
    description: String,
    severity: Severity,
    #[serde(default)]
    region: Option<ImageRegion>,
}

/// Reads `answer` by the rules (see the module docs). `pixels_over_ceiling` says whether
/// the pixel layer found more than the hard ceiling a judge may overrule.
pub fn read_judgement(answer: &str, min_confidence: u8, pixels_over_ceiling: bool) -> Judgement {
    let value = match answer_json::extract(answer, Expected::Object) {
        Ok(value) => value,
        Err(error) => {
            return Judgement::error(None, format!("the judge's answer is unusable: {error}"));
        }
    };
    let schema = CompiledSchema::compile(Arc::new(retrace_schema::verdict_schema(
        VERDICT_SCHEMA_VERSION,
    )));
    let Ok(schema) = schema else {
        return Judgement::error(None, "the verdict schema does not compile".to_owned());
    };
    let checked = schema.validate(&value);
    if !checked.valid {
        let fields: Vec<String> = checked
            .errors
            .iter()
            .map(|e| format!("{}: {}", e.field, e.message))
            .collect();
        return Judgement::error(
            None,
            format!("the judge's answer is invalid: {}", fields.join("; ")),
        );
    }
    let answer: Answer = match serde_json::from_value(value) {
        Ok(answer) => answer,
        Err(error) => {
            return Judgement::error(None, format!("the judge's answer is invalid: {error}"));
        }
    };
    let score = answer.confidence.round().clamp(0.0, 100.0) as u8;
    let confidence = Some(score);
    let regions: Vec<Option<ImageRegion>> =
        answer.visual_differences.iter().map(|d| d.region).collect();
    let differences: Vec<Difference> = answer
        .visual_differences
        .into_iter()
        .map(|d| Difference {
            kind: d.kind,
            severity: d.severity,
            description: d.description,
            region: None,
            change: None,
        })
        .collect();
    let judged = |verdict, error: Option<String>| Judgement {
        verdict,
        confidence,
        differences: differences.clone(),
        summary: Some(answer.summary.clone()),
        error,
        regions: regions.clone(),
    };
    match answer.verdict {
        Verdict::Pass if !differences.is_empty() => judged(Verdict::Fail, None),
        Verdict::Pass if score < min_confidence => judged(
            Verdict::Error,
            Some(format!(
                "the judge said PASS with confidence {score} (under {min_confidence})"
            )),
        ),
        Verdict::Pass if pixels_over_ceiling => judged(
            Verdict::Error,
            Some("the judge disagrees with the pixels: PASS while the pixel diff is above its hard ceiling".to_owned()),
        ),
        Verdict::Pass => judged(Verdict::Pass, None),
        Verdict::Fail => judged(Verdict::Fail, None),
        Verdict::Error => judged(
            Verdict::Error,
            Some(format!("the judge could not compare: {}", answer.summary)),
        ),
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]
    use super::*;

    const PASS: &str =
        r#"{"verdict":"PASS","confidence":95,"visual_differences":[],"summary":"same"}"#;

    #[test]
    fn the_seeds_rules_hold() {
        let pass = read_judgement(PASS, 80, false);
        assert_eq!((pass.verdict, pass.confidence), (Verdict::Pass, Some(95)));
        let fenced = format!("Here you go:\n```json\n{PASS}\n```");
        assert_eq!(read_judgement(&fenced, 80, false).verdict, Verdict::Pass);

        let listed = r#"{"verdict":"PASS","confidence":95,"visual_differences":[
            {"type":"styling","description":"icon lighter","severity":"minor"}],"summary":"ok"}"#;
        let judged = read_judgement(listed, 80, false);
        assert_eq!(judged.verdict, Verdict::Fail);
        assert_eq!(judged.differences[0].kind, DifferenceKind::Styling);

        let unsure = PASS.replace("95", "79");
        let judged = read_judgement(&unsure, 80, false);
        assert_eq!(judged.verdict, Verdict::Error);
        assert!(judged.error.unwrap().contains("79"));
        assert_eq!(
            read_judgement(&PASS.replace("95", "80"), 80, false).verdict,
            Verdict::Pass
        );

        let judged = read_judgement(PASS, 80, true);
        assert_eq!(judged.verdict, Verdict::Error);
        assert!(judged.error.unwrap().contains("disagrees with the pixels"));

        let judged = read_judgement("VALIDATION PASSED but I noticed...", 80, false);
        assert_eq!(judged.verdict, Verdict::Error);
        let judged = read_judgement(r#"{"verdict":"PASS","confidence":95}"#, 80, false);
        assert_eq!(judged.verdict, Verdict::Error);
        assert!(judged.error.unwrap().contains("invalid"));
        let fail = r#"{"verdict":"FAIL","confidence":90,"visual_differences":[
            {"type":"layout","description":"card moved","severity":"major"}],"summary":"moved"}"#;
        assert_eq!(read_judgement(fail, 80, false).verdict, Verdict::Fail);
    }

    #[test]
    fn a_region_is_read_beside_its_difference_and_is_optional() {
        let placed = r#"{"verdict":"FAIL","confidence":90,"visual_differences":[
            {"type":"layout","description":"card moved","severity":"major",
             "region":{"image":2,"part":3,"x":1,"y":2,"width":3,"height":4}},
            {"type":"content","description":"text changed","severity":"minor",
             "region":{"image":1,"x":5,"y":6,"width":7,"height":8}},
            {"type":"styling","description":"lighter","severity":"minor"}],"summary":"x"}"#;
        let judged = read_judgement(placed, 80, false);
        assert_eq!(judged.verdict, Verdict::Fail);
        assert_eq!(
            judged.regions,
            vec![
                Some(ImageRegion {
                    image: 2,
                    part: 3,
                    x: 1.0,
                    y: 2.0,
                    width: 3.0,
                    height: 4.0
                }),
                Some(ImageRegion {
                    image: 1,
                    part: 1,
                    x: 5.0,
                    y: 6.0,
                    width: 7.0,
                    height: 8.0
                }),
                None,
            ]
        );
        let outside = placed.replace(r#""image":2"#, r#""image":4"#);
        assert_eq!(read_judgement(&outside, 80, false).verdict, Verdict::Error);
    }

    #[test]
    fn the_cache_key_changes_with_every_input_and_only_then() {
        let key = judgement_cache_key(b"a", b"b", &[], "m", None);
        assert_eq!(key, judgement_cache_key(b"a", b"b", &[], "m", None));
        assert_ne!(key, judgement_cache_key(b"a", b"c", &[], "m", None));
        assert_ne!(key, judgement_cache_key(b"ab", b"", &[], "m", None));
        assert_ne!(
            key,
            judgement_cache_key(b"a", b"b", &["#ad".to_owned()], "m", None)
        );
        assert_ne!(key, judgement_cache_key(b"a", b"b", &[], "n", None));
        assert_ne!(
            key,
            judgement_cache_key(b"a", b"b", &[], "m", Some("src/a.ts:12"))
        );
        assert_ne!(
            judgement_cache_key(b"a", b"b", &[], "m", Some("")),
            key,
            "an empty context is still a context"
        );
        assert!(judge_prompt(Some("src/a.ts:12")).ends_with("src/a.ts:12"));
    }
}
