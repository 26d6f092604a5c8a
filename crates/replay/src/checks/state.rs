//! The state check (browsers, and desktop applications on the accessibility bus): after a
//! step acts, did it do what it did when recorded?
//!
//! - A click: the element at the point the step acted at is in the recorded state after the
//!   action (checked, expanded, selected, pressed, where the recording says), so a checkbox
//!   that ignores clicks fails at its own step.
//! - Typing (and keys): the focused element holds the value it held after the recorded step
//!   (parameter values filled in), so text that went nowhere, or that the page rewrote, fails
//!   at the typing step. Values are compared, never shown: typed text may be a secret.

use std::sync::Arc;

use async_trait::async_trait;
use retrace_protocol::element::ElementInfo;
use retrace_protocol::events::CheckPhase;
use retrace_vision::Image;

use super::semantic::describe;
use super::step_check::CheckEnv;
use super::step_check::Look;
use super::step_check::StepCheck;
use super::step_check::elements_answer;
use super::step_check::mismatch;
use super::step_check::pass;
use super::step_check::unanswered;
use crate::plan::PlannedStep;

/// The after-action element state check.
#[derive(Debug, Clone, Copy, Default)]
pub struct StateCheck;

/// Its name in events and reports.
pub const STATE: &str = "state";

/// The first recorded state flag `found` does not share, described.
fn state_difference(recorded: &ElementInfo, found: &ElementInfo) -> Option<String> {
    let flags = [
        (
            "checked",
            recorded.checked.map(|v| format!("{v:?}")),
            found.checked.map(|v| format!("{v:?}")),
        ),
        (
            "expanded",
            recorded.expanded.map(|v| v.to_string()),
            found.expanded.map(|v| v.to_string()),
        ),
        (
            "selected",
            recorded.selected.map(|v| v.to_string()),
            found.selected.map(|v| v.to_string()),
        ),
        (
            "pressed",
            recorded.pressed.map(|v| format!("{v:?}")),
            found.pressed.map(|v| format!("{v:?}")),
        ),
    ];
    flags.into_iter().find_map(|(flag, want, got)| {
        let want = want?;
        (Some(&want) != got.as_ref()).then(|| {
            format!(
                "{} should be {flag} = {want} after the action, but is {}",
                describe(found),
                got.as_deref().unwrap_or("without that state")
            )
        })
    })
}

/// Whether `found` holds `recorded`'s value (both absent counts as the same).
fn same_value(recorded: &ElementInfo, found: &ElementInfo) -> bool {
    match (&recorded.value, &found.value) {
        (Some(want), Some(got)) => want.expose() == got.expose(),
        (None, None) => true,
        _ => false,
    }
}

/// Characters in an element's value.
fn value_length(element: &ElementInfo) -> usize {
    element
        .value
        .as_ref()
        .map_or(0, |value| value.expose().chars().count())
}

#[async_trait]
impl StepCheck for StateCheck {
    fn name(&self) -> &'static str {
        STATE
    }

    /// It asks the page, not the pixels.
    fn reads_screen(&self) -> bool {
        false
    }

    fn phase(&self) -> CheckPhase {
        CheckPhase::After
    }

    fn applies(&self, step: &PlannedStep, env: &CheckEnv) -> bool {
        elements_answer(env)
            && env.effects_checked()
            && ((step.point.is_some() && step.element_after.is_some())
                || step.focused_after.is_some())
    }

    async fn look(
        &self,
        step: &PlannedStep,
        at: Option<(i64, i64)>,
        _screen: &Arc<Image>,
        env: &CheckEnv,
    ) -> Result<Look, String> {
        let Some(page) = &env.elements else {
            return Err("no page or accessibility tree to ask".into());
        };
        if let Some(recorded) = &step.focused_after {
            let focused = match page.focused_element().await {
                Ok(focused) => focused,
                Err(error) => return unanswered(page, &error),
            };
            return Ok(match focused {
                None => mismatch(format!(
                    "no element has the focus; {} should, holding what was typed",
                    describe(recorded)
                )),
                Some(found) if !same_value(recorded, &found) => mismatch(format!(
                    "{} holds {} characters, not the {} it held after this step was recorded",
                    describe(&found),
                    value_length(&found),
                    value_length(recorded)
                )),
                Some(_) => pass(),
            });
        }
        let (Some(recorded), Some(at)) = (&step.element_after, at) else {
            return Ok(pass());
        };
        // A repaired step acted at a moved point; a control that moved shows its state there.
        let found = match page.element_at(at).await {
            Ok(found) => found,
            Err(error) => return unanswered(page, &error),
        };
        Ok(match found {
            Some(found) => match state_difference(recorded, &found) {
                Some(difference) => mismatch(difference).finding(found),
                None => pass(),
            },
            None => mismatch(format!(
                "{} should be at the point after the action; nothing is",
                describe(recorded)
            )),
        })
    }
}
