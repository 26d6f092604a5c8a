//! The semantic check (browsers, and desktop applications on the accessibility bus): before
//! a step acts, is the element at its point the one it
//! was recorded on? A perceptual hash of a 100 px region cannot tell a control renamed to a
//! label of the same width ("Active" → "Open") from rendering noise; the page can. The element
//! at the point (its actionable ancestor) must have the recorded role and accessible name,
//! and be enabled and reachable by a click there (nothing covering it), as Playwright's
//! actionability checks ask. A page whose scripts have not run yet, or a dialog still
//! opening, fails this until it is ready, so replay waits for it instead of acting.
//!
//! When the element is no longer at the point, the check finds it by role and name anywhere
//! on the page ([`StepCheck::relocate`]): a control that moved further than the hash search
//! reaches is repaired at its new centre (and the other checks must pass there too).
//!
//! Where the recording knows how the element's text was drawn (a desktop text widget's
//! colours and font, [`retrace_protocol::text_style`]), the element must draw it alike: a
//! dark theme keeps every widget, name and state, and changes only that. How text is drawn
//! is a visual property: it is compared when the visual checks run (not with `--no-visual`,
//! nor in a window check's flow, where the pixels are what the check compares).
//!
//! A step acting on the focus (typing, keys) acts on no point: the keys go to the element
//! with the focus, wherever it is drawn. Its check is that the focus is on the recorded
//! element (same role and accessible name), enabled, before a key is sent: typing that would
//! go into the wrong field (or nowhere) fails at its own step, before it types, naming both
//! elements. On a browser this is what the step waits for instead of a still field (see
//! [`crate::wait`]).

use std::sync::Arc;

use async_trait::async_trait;
use retrace_protocol::element::ElementInfo;
use retrace_protocol::events::CheckPhase;
use retrace_vision::Image;

use super::step_check::CheckEnv;
use super::step_check::Look;
use super::step_check::Relocation;
use super::step_check::StepCheck;
use super::step_check::elements_answer;
use super::step_check::mismatch;
use super::step_check::pass;
use super::step_check::point;
use super::step_check::unanswered;
use crate::plan::PlannedStep;

/// The element-at-the-point check, with repair by role and name.
#[derive(Debug, Clone, Copy, Default)]
pub struct SemanticCheck;

/// Its name in events and reports.
pub const SEMANTIC: &str = "semantic";

/// `button 'New invoice'` (or `button` alone when it has no name).
pub fn describe(element: &ElementInfo) -> String {
    match (element.name.as_str(), element.text.as_str()) {
        ("", "") => element.role.clone(),
        ("", text) => format!("{} '{text}'", element.role),
        (name, _) => format!("{} '{name}'", element.role),
    }
}

/// Whether `found` is the `recorded` element: same role and same accessible name (same
/// visible text for elements without a name, such as a badge).
fn same_element(recorded: &ElementInfo, found: &ElementInfo) -> bool {
    recorded.role == found.role
        && recorded.name == found.name
        && (!recorded.name.is_empty() || recorded.text == found.text)
}

/// Where a step's element is: at its point, or (typing, keys) with the focus.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Place {
    Point,
    Focus,
}

/// The mismatch when `found` (the element at the point, or with the focus) is not the enabled
/// `recorded` element, naming both (and, when `styled`, drawing its text alike); `None` when it
/// is.
fn identity_mismatch(
    recorded: &ElementInfo,
    found: Option<&ElementInfo>,
    place: Place,
    styled: bool,
) -> Option<Look> {
    let expected = describe(recorded);
    let Some(found) = found else {
        return Some(mismatch(match place {
            Place::Point => format!("expected {expected}, found no element at the point"),
            Place::Focus => format!("expected the focus on {expected}, but nothing has it"),
        }));
    };
    let seen = describe(found);
    let detail = match (place, same_element(recorded, found), found.disabled) {
        (Place::Point, false, _) => format!("expected {expected}, found {seen}"),
        (Place::Focus, false, _) => format!("expected the focus on {expected}, found it on {seen}"),
        (Place::Point, true, true) => format!("{seen} is disabled"),
        (Place::Focus, true, true) => format!("{seen} has the focus but is disabled"),
        (_, true, false) if styled => return style_mismatch(recorded, found, &expected),
        (_, true, false) => return None,
    };
    Some(mismatch(detail).finding(found.clone()))
}

/// The mismatch when `found`, the recorded element, draws its text otherwise than when
/// recorded (another theme's colours, another font): `expected text with colours fg 0,0,0
/// on 238,238,236, found fg 255,255,255 on 238,238,236`. Only what both report counts.
fn style_mismatch(recorded: &ElementInfo, found: &ElementInfo, expected: &str) -> Option<Look> {
    let (want, got) = recorded
        .text_style
        .as_ref()?
        .difference(found.text_style.as_ref()?)?;
    Some(mismatch(format!("expected {expected} {want}, found {got}")).finding(found.clone()))
}

#[async_trait]
impl StepCheck for SemanticCheck {
    fn name(&self) -> &'static str {
        SEMANTIC
    }

    /// It asks the page, not the pixels.
    fn reads_screen(&self) -> bool {
        false
    }

    fn phase(&self) -> CheckPhase {
        CheckPhase::Before
    }

    fn applies(&self, step: &PlannedStep, env: &CheckEnv) -> bool {
        elements_answer(env)
            && step.element.is_some()
            && (step.point.is_some() || step.acts_on_focus())
    }

    async fn look(
        &self,
        step: &PlannedStep,
        at: Option<(i64, i64)>,
        _screen: &Arc<Image>,
        env: &CheckEnv,
    ) -> Result<Look, String> {
        let (Some(recorded), Some(page)) = (&step.element, &env.elements) else {
            return Err("the step has no recorded element".into());
        };
        if at.is_none() && step.acts_on_focus() {
            let focused = match page.focused_element().await {
                Ok(focused) => focused,
                Err(error) => return unanswered(page, &error),
            };
            return Ok(identity_mismatch(
                recorded,
                focused.as_ref(),
                Place::Focus,
                env.settings.visual,
            )
            .unwrap_or_else(pass));
        }
        let at = point(at)?;
        let found = match page.element_at(at).await {
            Ok(found) => found,
            Err(error) => return unanswered(page, &error),
        };
        let styled = env.settings.visual;
        if let Some(mismatch) = identity_mismatch(recorded, found.as_ref(), Place::Point, styled) {
            return Ok(mismatch);
        }
        Ok(match found {
            Some(found) if !found.receives_events => mismatch(format!(
                "{} does not receive a click there: {}",
                describe(&found),
                found
                    .blocked_reason
                    .as_deref()
                    .unwrap_or("something is in the way")
            ))
            .finding(found),
            _ => pass(),
        })
    }

    async fn relocate(
        &self,
        step: &PlannedStep,
        at: (i64, i64),
        _screen: &Arc<Image>,
        env: &CheckEnv,
    ) -> Option<Relocation> {
        let (recorded, page) = (step.element.as_ref()?, env.elements.as_ref()?);
        if recorded.name.is_empty() {
            // A nameless element cannot be told from others of its role.
            return None;
        }
        let candidates = page
            .find_elements(&recorded.role, &recorded.name)
            .await
            .ok()?;
        let target = candidates
            .iter()
            .filter(|candidate| candidate.receives_events && !candidate.disabled)
            .map(|candidate| page.to_trajectory(candidate.bounds.centre()))
            .min_by_key(|(x, y)| (x - at.0).pow(2) + (y - at.1).pow(2))?;
        Some(Relocation {
            offset: (target.0 - at.0, target.1 - at.1),
        })
    }
}

#[cfg(test)]
mod tests {
    use retrace_protocol::text_style::TextStyle;

    use super::*;

    fn text_area(foreground: [u8; 3]) -> ElementInfo {
        serde_json::from_value(serde_json::json!({
            "role": "text", "name": "", "text": "", "tag": "", "selector": "frame > text",
            "box": {"x": 0, "y": 0, "width": 100, "height": 100}, "receives_events": true,
            "text_style": {"foreground": foreground, "background": [238, 238, 236],
                           "family": "Monospace", "size": "11"}
        }))
        .unwrap()
    }

    #[test]
    fn the_same_text_drawn_in_other_colours_fails_naming_them() {
        let light = text_area([0, 0, 0]);
        let dark = text_area([255, 255, 255]);
        assert_eq!(
            identity_mismatch(&light, Some(&light), Place::Point, true),
            None
        );
        let look = identity_mismatch(&light, Some(&dark), Place::Focus, true).unwrap();
        assert_eq!(
            look.detail.as_deref(),
            Some(
                "expected text with colours fg 0,0,0 on 238,238,236, \
                 found fg 255,255,255 on 238,238,236"
            )
        );
        assert_eq!(look.found, Some(dark.clone()));
        // A file recorded before styles were read (or a browser's element) checks the rest.
        let old = ElementInfo {
            text_style: None,
            ..light.clone()
        };
        assert_eq!(
            identity_mismatch(&old, Some(&dark), Place::Point, true),
            None
        );
        let unread = ElementInfo {
            text_style: Some(TextStyle::default()),
            ..dark.clone()
        };
        assert_eq!(
            identity_mismatch(&light, Some(&unread), Place::Point, true),
            None
        );
        // With the visual checks off (`--no-visual`, a window check's flow) colours are the
        // pixels' business.
        assert_eq!(
            identity_mismatch(&light, Some(&dark), Place::Point, false),
            None
        );
    }
}
