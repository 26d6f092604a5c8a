//! How a check that did not pass becomes a step's [`ReplayFailure`]: its kind (a mismatch
//! before acting, a missing effect after), the sentence people and the model read (step,
//! action, what differed, the measure and its bound, how long replay waited, where it
//! searched, why it stopped waiting) and its evidence (the recorded crop, the crop seen, and
//! for `retrace approve` the whole screen seen and the element found at the point).

use retrace_protocol::element::ElementInfo;
use retrace_protocol::events::CheckPhase;
use retrace_protocol::events::FailureKind;
use retrace_protocol::events::Png;
use retrace_protocol::events::ReplayFailure;

use crate::checks::Look;
use crate::checks::effect::region_centre;
use crate::evidence::region_crop;
use crate::plan::PlannedStep;
use crate::tally::millis;
use crate::wait::Verdict;

/// A check of one phase of a step that did not pass, with what is needed to say so.
pub struct CheckFailure<'a> {
    /// The step.
    pub step: &'a PlannedStep,
    /// Before or after acting.
    pub phase: CheckPhase,
    /// The check's name (`visual`, `semantic`, `effect`, `state`).
    pub check: &'a str,
    /// Its last look.
    pub look: &'a Look,
    /// What waiting ended with.
    pub verdict: &'a Verdict,
    /// The radius the visual search covered, when it ran.
    pub searched_within: Option<u32>,
    /// Where the step acts, when it acts at a point.
    pub at: Option<(i64, i64)>,
    /// The side of the hashed region (for the crop).
    pub region_size: u32,
}

/// The step's failure: `Visual validation failed at step 7 (left_click at (761, 203)): ...`.
pub fn check_failure(failed: CheckFailure<'_>) -> ReplayFailure {
    let CheckFailure {
        step,
        phase,
        check,
        look,
        verdict,
        searched_within,
        at,
        region_size,
    } = failed;
    let (kind, account) = match (phase, check) {
        (CheckPhase::Before, "visual") => (
            FailureKind::Mismatch,
            "Visual validation failed at".to_owned(),
        ),
        (CheckPhase::Before, name) => {
            (FailureKind::Mismatch, format!("The {name} check failed at"))
        }
        (CheckPhase::After, "effect") => {
            (FailureKind::Effect, "Effect check failed after".to_owned())
        }
        (CheckPhase::After, name) => (
            FailureKind::Effect,
            format!("The {name} check failed after"),
        ),
    };
    let search_note = match searched_within {
        Some(radius)
            if verdict
                .looks
                .iter()
                .any(|(name, look)| *name == "visual" && !look.passed) =>
        {
            format!("; no match within {radius} px")
        }
        _ => String::new(),
    };
    // Every other check that failed too, each with its own reason.
    let others: String = verdict
        .looks
        .iter()
        .filter(|(name, other)| !other.passed && *name != check)
        .map(|(name, other)| format!(" The {name} check failed too: {}", reason(name, other)))
        .collect();
    let settled_note = verdict
        .note
        .as_ref()
        .map(|note| format!(" {}.", sentence_case(note.trim_end_matches('.'))))
        .unwrap_or_default();
    let message = format!(
        "{account} step {} ({}): {}{others} Replay waited {:.1} s{search_note}.{settled_note}",
        step.number(),
        step.describe(),
        reason(check, look),
        verdict.waited.as_secs_f64(),
    );
    ReplayFailure {
        step: step.number(),
        kind,
        action: step.describe(),
        message,
        distance: look.distance,
        threshold: look.threshold,
        waited_ms: Some(millis(verdict.waited.as_millis())),
        expected_crop: match phase {
            CheckPhase::Before => step.expected_crop.clone(),
            CheckPhase::After => step.expected_crop_after.clone(),
        },
        actual_crop: at.and_then(|at| {
            let centre = match phase {
                CheckPhase::Before => at,
                CheckPhase::After => region_centre(step, at),
            };
            region_crop(&verdict.screen, centre, region_size)
        }),
        actual_screen: whole_screen(&verdict.screen),
        actual_element: found_element(verdict),
    }
}

/// Why a check did not pass, as a sentence ending in a full stop: its detail, and its measure
/// when it measures (`...differs from the recording. Hamming distance: 23 > threshold: 10.`).
fn reason(check: &str, look: &Look) -> String {
    let detail = look
        .detail
        .clone()
        .unwrap_or_else(|| format!("the {check} check did not pass"));
    let measure = match (look.distance, look.threshold) {
        (Some(distance), Some(threshold)) => {
            format!(" Hamming distance: {distance} > threshold: {threshold}.")
        }
        _ => String::new(),
    };
    format!("{}.{measure}", detail.trim_end_matches('.'))
}

/// `text` with its first letter in capitals.
fn sentence_case(text: &str) -> String {
    let mut chars = text.chars();
    match chars.next() {
        Some(first) => first.to_uppercase().chain(chars).collect(),
        None => String::new(),
    }
}

/// The whole screen as PNG; `None` when it cannot be encoded (approval then has no evidence).
fn whole_screen(screen: &retrace_vision::Image) -> Option<Png> {
    retrace_vision::encode_png_rgba(screen.width(), screen.height(), &screen.to_rgba())
        .ok()
        .map(Png::from)
}

/// The element the first failing check that asks the page found, its field value left out
/// (it may be a secret, and no check compares a clicked element's value).
fn found_element(verdict: &Verdict) -> Option<Box<ElementInfo>> {
    verdict
        .looks
        .iter()
        .filter(|(_, look)| !look.passed)
        .find_map(|(_, look)| look.found.clone())
        .map(|mut element| {
            element.value = None;
            Box::new(element)
        })
}
