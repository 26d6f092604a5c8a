//! What the replay says to the model, in one place: when a step failed and the model takes
//! over, when a step needs the model, when a replay ran to its end. The model reads step
//! numbers 1-based, as every report does; the `start_from_step_index` it passes back is the
//! tool's 0-based index (askui's API), so messages that ask for it give both.

use retrace_protocol::events::ReplayFailure;
use retrace_protocol::tool_input;

use crate::plan::Plan;

/// The assistant-side note that the replay stopped.
pub fn stopped(failure: &ReplayFailure) -> String {
    format!("Cached replay stopped. {}", failure.message)
}

/// The instruction that hands a failed replay to the model.
pub fn hand_over(failure: &ReplayFailure, plan: &Plan) -> String {
    format!(
        "The recorded trajectory could not continue: {}\nTake a screenshot, then complete the goal from the current state yourself. The steps that were not replayed:\n{}",
        failure.message,
        remaining_steps(plan, failure.step.saturating_sub(1))
    )
}

/// One line per step not replayed, from the 0-based `from` on (typed text never shown).
pub fn remaining_steps(plan: &Plan, from: usize) -> String {
    plan.steps
        .iter()
        .skip(from)
        .map(|step| {
            format!(
                "  step {}: {} {}",
                step.number(),
                step.call.name,
                tool_input::redacted_summary(&step.call.input)
            )
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// Why a step of a non-cacheable tool pauses the replay, and how to resume after it.
pub fn needs_model(number: usize, tool: &str) -> String {
    format!(
        "Step {number} uses the non-cacheable tool `{tool}`; do that step yourself, then resume the replay at step {} with execute_cached_executions_tool (start_from_step_index {number}).",
        number + 1
    )
}

/// The note that a replay ran to its end.
pub fn completed(plan: &Plan) -> String {
    format!("Replayed every step of {}.", plan.path.display())
}

/// The instruction that hands a completed replay back to the model to verify.
pub const VERIFY_AFTER_COMPLETION: &str = "The cached trajectory was replayed to its end. Take a screenshot and check that the goal is reached; finish it if not.";

/// The instruction when a replay could not start.
pub fn could_not_start(reason: &str) -> String {
    format!("The trajectory could not be replayed: {reason}\nComplete the goal yourself.")
}
