//! Ready when the app listens: before acting on an element whose recording says which event
//! listeners the page had on it and its ancestors (`listeners` in the step's `element`), wait
//! until the element found there has each of those types again, on it or an ancestor.
//!
//! A server-rendered page, or one whose scripts arrive after its load event, shows its
//! controls before anything handles them: the pixels and the element match, yet a click or a
//! key then does nothing, and the replay fails steps later. The listeners are what tells.
//! This is a before-check ([`ListeningCheck`]) polled by the wait engine like the others;
//! while it fails the page does not count as settled until the ready timeout
//! ([`holds_settling`]): scripts on their way change no pixel. A page whose listeners never
//! come fails the step, naming the element and the missing types. `docs/replay-waiting.md`
//! says more.

use std::sync::Arc;
use std::time::Duration;

use async_trait::async_trait;
use retrace_protocol::events::CheckPhase;
use retrace_vision::Image;

use crate::checks::semantic::describe;
use crate::checks::step_check::CheckEnv;
use crate::checks::step_check::Look;
use crate::checks::step_check::StepCheck;
use crate::checks::step_check::mismatch;
use crate::checks::step_check::pass;
use crate::plan::PlannedStep;
use crate::request::ReplaySettings;

/// Its name in events and reports.
pub const LISTENERS: &str = "listeners";

/// The check that the page listens on the step's element as it did when recorded.
#[derive(Debug, Clone, Copy, Default)]
pub struct ListeningCheck;

/// The recorded listener types of `step`, when it has any.
fn recorded(step: &PlannedStep) -> Option<&[String]> {
    let listeners = step.element.as_ref()?.listeners.as_deref()?;
    (!listeners.is_empty()).then_some(listeners)
}

/// The recorded types not in `present`, in the recorded order.
fn missing<'a>(recorded: &'a [String], present: &[String]) -> Vec<&'a str> {
    recorded
        .iter()
        .filter(|event_type| !present.contains(event_type))
        .map(String::as_str)
        .collect()
}

/// The sentence of a look at `element` (described) lacking `missing` listener types.
fn missing_sentence(element: &str, missing: &[&str]) -> String {
    let plural = if missing.len() == 1 { "" } else { "s" };
    format!(
        "{element} has no {} listener{plural} yet, on it or its ancestors (recorded with \
         them): the page's scripts have not attached them",
        missing.join(", ")
    )
}

/// Whether a phase whose `looks` include this check failing, asked `asked_at` into the step,
/// is still waiting for the page's scripts: it then does not count as settled, until
/// `ready_timeout`, after which a page that never listens fails as any settled page does.
pub(crate) fn holds_settling(
    looks: &[(&'static str, Look)],
    asked_at: Duration,
    settings: &ReplaySettings,
) -> bool {
    asked_at < settings.ready_timeout
        && looks
            .iter()
            .any(|(name, look)| *name == LISTENERS && !look.passed)
}

#[async_trait]
impl StepCheck for ListeningCheck {
    fn name(&self) -> &'static str {
        LISTENERS
    }

    /// It asks the page, not the pixels.
    fn reads_screen(&self) -> bool {
        false
    }

    fn phase(&self) -> CheckPhase {
        CheckPhase::Before
    }

    fn applies(&self, step: &PlannedStep, env: &CheckEnv) -> bool {
        env.page.is_some()
            && recorded(step).is_some()
            && (step.point.is_some() || step.acts_on_focus())
    }

    async fn look(
        &self,
        step: &PlannedStep,
        at: Option<(i64, i64)>,
        _screen: &Arc<Image>,
        env: &CheckEnv,
    ) -> Result<Look, String> {
        let (Some(recorded), Some(element), Some(page)) =
            (recorded(step), &step.element, &env.page)
        else {
            return Err("the step has no recorded listeners".into());
        };
        let at = at.filter(|_| !step.acts_on_focus());
        let present = page
            .listener_types(at)
            .await
            .map_err(|error| error.to_string())?;
        let element = describe(element);
        let Some(present) = present else {
            let place = match at {
                Some(_) => "no element at the point",
                None => "nothing has the focus",
            };
            return Ok(mismatch(format!(
                "expected {element} listening for {}, but {place}",
                recorded.join(", ")
            )));
        };
        let missing = missing(recorded, &present);
        if missing.is_empty() {
            return Ok(pass());
        }
        let look = mismatch(missing_sentence(&element, &missing));
        // The element as it is now, with the listeners it has: what `retrace approve`
        // records for the step when the page changed its listeners for good.
        let found = match at {
            Some(at) => page.element_at(at).await,
            None => page.focused_element().await,
        };
        Ok(match found.ok().flatten() {
            Some(mut found) => {
                found.listeners = Some(present);
                // What a field holds is no fact of listening (and may be a secret).
                found.value = None;
                look.finding(found)
            }
            None => look,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_sentence_names_the_element_and_each_missing_type() {
        let recorded = ["click".to_owned(), "keydown".to_owned(), "input".to_owned()];
        let present = ["click".to_owned(), "focusin".to_owned()];
        let missing = missing(&recorded, &present);
        assert_eq!(missing, ["keydown", "input"]);
        assert_eq!(
            missing_sentence("textbox 'New todo'", &missing),
            "textbox 'New todo' has no keydown, input listeners yet, on it or its ancestors \
             (recorded with them): the page's scripts have not attached them"
        );
        assert!(missing_sentence("button 'Add'", &["click"]).contains("no click listener yet"));
    }

    #[test]
    fn only_a_failing_listener_look_before_the_ready_timeout_holds_settling() {
        let settings = ReplaySettings::default();
        let failing = vec![(LISTENERS, mismatch("no".into()))];
        let early = Duration::from_millis(600);
        assert!(holds_settling(&failing, early, &settings));
        assert!(!holds_settling(&failing, settings.ready_timeout, &settings));
        assert!(!holds_settling(&[(LISTENERS, pass())], early, &settings));
        assert!(!holds_settling(
            &[("semantic", mismatch("no".into()))],
            early,
            &settings
        ));
    }
}
