//! A person's input on an X11 desktop (`retrace record --display`) folded into the steps the
//! desktop replay runs: the same [`DemonstratedStep`]s as in a browser, with no element
//! (the desktop has no semantic layer: replay checks the region hashes).
//!
//! Buttons arrive going down and up ([`DesktopInput::Button`], points already in the frame
//! the replay addresses): a press and release at one place is a click (a second and third
//! within [`MULTI_CLICK`] at the same place make a double and a triple click), a left
//! press released elsewhere a `left_click_drag`, a wheel notch (buttons 4 to 7) a `scroll`
//! merged with the notches before it the same way at the same place. Keys are folded as the
//! browser's are ([`super::keys::Chord`]): plain characters typed one after another make one
//! `type` step, a backspace takes back the last, anything else is an xdotool chord.

use std::sync::Arc;
use std::time::Duration;
use std::time::Instant;

use retrace_drive::chromium::demonstration::Frame;
use retrace_drive::x11::DesktopInput;
use retrace_protocol::computer_actions::names;
use serde_json::json;

use super::Noted;
use super::keys::Chord;
use super::near;
use super::step::DemonstratedStep;

/// The longest pause between two clicks of one double click (X toolkits' usual setting).
pub const MULTI_CLICK: Duration = Duration::from_millis(500);

/// A button held down: where, when, and the frame before it went down.
#[derive(Debug)]
struct Press {
    button: u8,
    at: (i64, i64),
    before: Option<Arc<Frame>>,
}

/// The steps of a desktop demonstration so far.
#[derive(Debug, Default)]
pub struct DesktopDemonstration {
    steps: Vec<DemonstratedStep>,
    pressed: Option<Press>,
    /// When the last click's button went up, for a double click.
    last_click: Option<Instant>,
    /// Whether the last step is a `type` step still being typed (no other input since).
    typing: bool,
}

impl DesktopDemonstration {
    /// No steps yet.
    pub fn new() -> Self {
        Self::default()
    }

    /// The steps so far.
    pub fn steps(&self) -> &[DemonstratedStep] {
        &self.steps
    }

    /// Folds one input in, made at `at` with `before` on the screen (the frame the person
    /// saw).
    pub fn add(&mut self, input: DesktopInput, at: Instant, before: Option<Arc<Frame>>) -> Noted {
        match input {
            DesktopInput::Button {
                button,
                down: true,
                x,
                y,
            } => {
                self.typing = false;
                self.settled(&before);
                let at_point = (i64::from(x), i64::from(y));
                if let Some(direction) = wheel(button) {
                    return self.wheel(direction, at_point, before);
                }
                self.pressed = Some(Press {
                    button,
                    at: at_point,
                    before,
                });
                Noted::Nothing
            }
            DesktopInput::Button {
                button,
                down: false,
                x,
                y,
            } => match self.pressed.take() {
                Some(press) if press.button == button => {
                    self.release(press, (i64::from(x), i64::from(y)), at)
                }
                other => {
                    self.pressed = other;
                    Noted::Nothing
                }
            },
            DesktopInput::Key { key, held } => {
                let chord = Chord {
                    key: &key,
                    ctrl: held.ctrl,
                    alt: held.alt,
                    shift: held.shift,
                    meta: held.meta,
                };
                self.key(&chord, before)
            }
        }
    }

    /// Ends the demonstration: the last step's after frame is `screen`, the screen when the
    /// person stopped.
    pub fn finish(mut self, screen: Option<Arc<Frame>>) -> Vec<DemonstratedStep> {
        if let Some(last) = self.steps.last_mut()
            && screen.is_some()
        {
            last.after = screen;
        }
        self.steps
    }

    /// The last step's after frame is the one before the person's next input.
    fn settled(&mut self, before: &Option<Arc<Frame>>) {
        if let Some(last) = self.steps.last_mut() {
            last.after.clone_from(before);
        }
    }

    fn push(&mut self, input: serde_json::Value, before: Option<Arc<Frame>>) -> Noted {
        self.steps.push(DemonstratedStep::new(input, before, None));
        self.noted()
    }

    fn noted(&self) -> Noted {
        match self.steps.last() {
            Some(step) => Noted::Step {
                step: self.steps.len(),
                summary: step.summary(),
            },
            None => Noted::Nothing,
        }
    }

    fn release(&mut self, press: Press, to: (i64, i64), at: Instant) -> Noted {
        if press.button == 1 && !near(press.at, to) {
            self.last_click = None;
            let input = json!({"action": names::LEFT_CLICK_DRAG,
                "start_coordinate": [press.at.0, press.at.1], "coordinate": [to.0, to.1]});
            return self.push(input, press.before);
        }
        let quick = self
            .last_click
            .replace(at)
            .is_some_and(|last| at.saturating_duration_since(last) <= MULTI_CLICK);
        let action = match press.button {
            1 => names::LEFT_CLICK,
            2 => names::MIDDLE_CLICK,
            _ => names::RIGHT_CLICK,
        };
        if action == names::LEFT_CLICK
            && quick
            && let Some(last) = self.steps.last_mut()
            && last.point().is_some_and(|point| near(point, press.at))
        {
            let more = match last.action() {
                names::LEFT_CLICK => Some(names::DOUBLE_CLICK),
                names::DOUBLE_CLICK => Some(names::TRIPLE_CLICK),
                _ => None,
            };
            if let Some(more) = more {
                last.input["action"] = json!(more);
                return self.noted();
            }
        }
        let input = json!({"action": action, "coordinate": [press.at.0, press.at.1]});
        self.push(input, press.before)
    }

    fn wheel(&mut self, direction: &str, at: (i64, i64), before: Option<Arc<Frame>>) -> Noted {
        self.last_click = None;
        if let Some(last) = self.steps.last_mut()
            && last.action() == names::SCROLL
            && last.input["scroll_direction"] == direction
            && last.point().is_some_and(|point| near(point, at))
        {
            let notches = last.input["scroll_amount"].as_u64().unwrap_or(0) + 1;
            last.input["scroll_amount"] = json!(notches);
            return self.noted();
        }
        let input = json!({"action": names::SCROLL, "coordinate": [at.0, at.1],
            "scroll_direction": direction, "scroll_amount": 1});
        self.push(input, before)
    }

    fn key(&mut self, chord: &Chord<'_>, before: Option<Arc<Frame>>) -> Noted {
        self.last_click = None;
        if let Some(character) = chord.typed_character() {
            if self.typing
                && let Some(last) = self.steps.last_mut()
            {
                let mut text = last.typed().unwrap_or_default().to_owned();
                text.push(character);
                last.input["text"] = json!(text);
                return self.noted();
            }
            self.settled(&before);
            self.typing = true;
            return self.push(
                json!({"action": names::TYPE, "text": character.to_string()}),
                before,
            );
        }
        if chord.is_backspace()
            && self.typing
            && let Some(last) = self.steps.last_mut()
        {
            let mut text = last.typed().unwrap_or_default().to_owned();
            text.pop();
            if text.is_empty() {
                self.steps.pop();
                self.typing = false;
                return Noted::Nothing;
            }
            last.input["text"] = json!(text);
            return self.noted();
        }
        let Some(name) = chord.xdotool() else {
            return Noted::Nothing;
        };
        self.typing = false;
        self.settled(&before);
        self.push(json!({"action": names::KEY, "text": name}), before)
    }
}

/// The scroll direction of a wheel button.
fn wheel(button: u8) -> Option<&'static str> {
    match button {
        4 => Some("up"),
        5 => Some("down"),
        6 => Some("left"),
        7 => Some("right"),
        _ => None,
    }
}

#[cfg(test)]
#[path = "desktop_tests.rs"]
mod tests;
