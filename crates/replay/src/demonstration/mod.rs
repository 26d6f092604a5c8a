//! A person's demonstration becomes a trajectory: the inputs `retrace record` watched
//! (`retrace_drive::chromium::demonstration`) folded into the steps a model run would have
//! made, then written by the same recorder ([`crate::recorder::build_cache_file`]), so replay,
//! `run` and `cache check` read the file as any other.
//!
//! - [`Demonstration`]: the steps so far. [`Demonstration::add`] folds one input in: clicks
//!   (a second and third click at the same point make a double and a triple click), drags
//!   (the left button released away from where it went down: `left_click_drag`), typing
//!   (keystrokes into one field make one `type` step; a backspace takes back the last
//!   character), key chords in xdotool's names (`Return`, `shift+Tab`, `ctrl+a`), wheel
//!   turns (repeated turns the same way at the same place make one `scroll`), checkpoints
//!   (the checkpoint chord marks the element under the pointer: a `mouse_move` there, whose
//!   region hash and role and name replay checks). Pointer moves make no step. Each step keeps the frame drawn before its first input, and its after
//!   frame is the one drawn before the person's next input (or the screen when they
//!   stopped), so the hashes are of what the person saw.
//!   A JavaScript dialog the step opened is kept with it, answered as the person answered
//!   it (replay answers it so while the step acts); a URL opened from the address bar is a
//!   navigation step of its own ([`navigation`]).
//! - [`secrets`]: text typed into a password field (or one whose name says password, token,
//!   key or secret) becomes a `{{name}}` parameter; its value is never written.
//! - [`desktop`]: the same steps from a person's input on an X11 desktop (no elements).
//! - [`build`]: the steps as a history, recorded into a [`retrace_cache::CacheFile`] whose
//!   metadata says it was demonstrated.

use std::sync::Arc;

use retrace_drive::chromium::demonstration::CapturedInput;
use retrace_drive::chromium::demonstration::Frame;
use retrace_drive::chromium::demonstration::PageInput;
use retrace_drive::chromium::demonstration::PagePlace;
use retrace_protocol::computer_actions::names;
use retrace_protocol::element::ElementInfo;
use serde_json::json;

use crate::page_location::PageLocation;

pub mod build;
pub mod desktop;
mod keys;
mod listening;
mod navigation;
pub mod secrets;
mod select;
mod step;

pub use step::DemonstratedStep;

/// Pixels a recorded scroll's notch stands for (what replay's wheel turns by per notch).
const NOTCH_PX: f64 = 100.0;

/// How far apart two clicks (or wheel turns) may be and still be one double click (scroll).
const SAME_PLACE_PX: i64 = 4;

/// What one input did to the demonstration.
#[derive(Debug, Clone, PartialEq)]
pub enum Noted {
    /// It made or changed step `step` (1-based).
    Step {
        /// The step's 1-based position.
        step: usize,
        /// [`DemonstratedStep::summary`] of the step now.
        summary: String,
    },
    /// The pointer moved: the viewport's top left corner is at (`x`, `y`) on the screen.
    Viewport {
        /// Screen x of the viewport's left edge.
        x: i64,
        /// Screen y of the viewport's top edge.
        y: i64,
    },
    /// Nothing recordable (a modifier key alone, a key retrace has no name for).
    Nothing,
}

/// The steps of a demonstration so far.
#[derive(Debug, Default)]
pub struct Demonstration {
    steps: Vec<DemonstratedStep>,
    /// Where the viewport was last said to be on the screen.
    viewport: Option<(i64, i64)>,
}

fn location(place: &PagePlace) -> PageLocation {
    PageLocation {
        path: place.path.clone(),
        title: place.title.clone(),
    }
}

/// Notes that `step` led to `place` when it began elsewhere (first move only).
fn moved(step: &mut DemonstratedStep, place: Option<&PageLocation>) {
    if step.page_after.is_none()
        && let (Some(from), Some(to)) = (&step.place, place)
        && from != to
    {
        step.page_after = Some(to.clone());
    }
}

/// A point in whole CSS pixels.
fn whole(x: f64, y: f64) -> (i64, i64) {
    // Viewport coordinates are small and finite; `as` saturates on anything else.
    (x.round() as i64, y.round() as i64)
}

fn near(a: (i64, i64), b: (i64, i64)) -> bool {
    (a.0 - b.0).abs() <= SAME_PLACE_PX && (a.1 - b.1).abs() <= SAME_PLACE_PX
}

/// The element with its value left out (keys go to it; what it held before is no check's).
fn without_value(element: Option<&ElementInfo>) -> Option<ElementInfo> {
    element.cloned().map(|mut element| {
        element.value = None;
        element
    })
}

impl Demonstration {
    /// No steps yet.
    pub fn new() -> Self {
        Self::default()
    }

    /// The steps so far.
    pub fn steps(&self) -> &[DemonstratedStep] {
        &self.steps
    }

    /// Folds one input in.
    pub fn add(&mut self, captured: CapturedInput) -> Noted {
        let CapturedInput { input, before } = captured;
        if let PageInput::Pointer {
            x,
            y,
            screen_x,
            screen_y,
        } = input
        {
            let (x, y) = whole(screen_x - x, screen_y - y);
            // Every new document reports it; only a change is news.
            if self.viewport.replace((x, y)) == Some((x, y)) {
                return Noted::Nothing;
            }
            return Noted::Viewport { x, y };
        }
        if let PageInput::Navigation { url } = input {
            return self.navigate(url);
        }
        // A dialog belongs to the step that opened it: replay answers it while that step acts.
        if let PageInput::Dialog(dialog) = input {
            let Some(last) = self.steps.last_mut() else {
                return Noted::Nothing;
            };
            last.dialogs.push(dialog);
            return self.noted();
        }
        // The screen before this input is the one the previous step left, and the page it
        // is on is where that step went.
        let focused = input.focused().cloned();
        let place = input.place().map(location);
        if let Some(last) = self.steps.last_mut() {
            last.after.clone_from(&before);
            moved(last, place.as_ref());
            if last.action() == names::TYPE
                && let Some(focused) = &focused
                && last.element.as_ref().map(|e| &e.selector) == Some(&focused.selector)
            {
                last.focused_after = Some(focused.clone());
            }
        }
        let steps_before = self.steps.len();
        let noted = self.fold(input, before);
        if self.steps.len() > steps_before
            && let Some(new) = self.steps.last_mut()
        {
            new.place = place;
        }
        noted
    }

    /// Folds an input (not a pointer report) into the steps.
    fn fold(&mut self, input: PageInput, before: Option<Arc<Frame>>) -> Noted {
        match input {
            PageInput::Pointer { .. } | PageInput::Dialog(_) | PageInput::Navigation { .. } => {
                Noted::Nothing
            }
            PageInput::Click {
                button,
                count,
                x,
                y,
                element,
                ..
            } => self.click(button, count, whole(x, y), element, before),
            PageInput::Key {
                key,
                ctrl,
                alt,
                shift,
                meta,
                focused,
                ..
            } => {
                let chord = keys::Chord {
                    key: &key,
                    ctrl,
                    alt,
                    shift,
                    meta,
                };
                self.key(&chord, focused, before)
            }
            PageInput::Wheel {
                x,
                y,
                dx,
                dy,
                element,
                ..
            } => self.wheel(whole(x, y), (dx, dy), element, before),
            // No element: replay's semantic check reads the one at the end point, which the
            // page described only once the drag had changed it.
            PageInput::Drag {
                x, y, to_x, to_y, ..
            } => {
                let (from, to) = (whole(x, y), whole(to_x, to_y));
                let input = json!({"action": names::LEFT_CLICK_DRAG,
                    "start_coordinate": [from.0, from.1], "coordinate": [to.0, to.1]});
                self.push(DemonstratedStep::new(input, before, None))
            }
            PageInput::Select {
                x,
                y,
                label,
                element,
                ..
            } => self.select(whole(x, y), label, element, before),
            // A pointer move onto the element: replay checks its region and its role and
            // name before "acting", and moving the pointer changes nothing.
            PageInput::Checkpoint { x, y, element, .. } => {
                let (x, y) = whole(x, y);
                let input = json!({"action": names::MOUSE_MOVE, "coordinate": [x, y]});
                self.push(DemonstratedStep::new(input, before, element))
            }
        }
    }

    /// Sets what the element under the click's point says once the click was handled, when
    /// it has a state (checked, expanded, selected, pressed).
    pub fn clicked_element_after(&mut self, step: usize, element: Option<ElementInfo>) {
        let has_state = |e: &ElementInfo| {
            e.checked.is_some()
                || e.expanded.is_some()
                || e.selected.is_some()
                || e.pressed.is_some()
        };
        if let Some(recorded) = step.checked_sub(1).and_then(|i| self.steps.get_mut(i)) {
            recorded.element_after = element.filter(has_state);
        }
    }

    /// Ends the demonstration: the last step's after frame is `screen` (the screen when the
    /// person stopped), a last `type` step's field is `focused` and its page is `place` (all
    /// read then).
    pub fn finish(
        mut self,
        screen: Option<Arc<Frame>>,
        focused: Option<ElementInfo>,
        place: Option<PageLocation>,
    ) -> Vec<DemonstratedStep> {
        if let Some(last) = self.steps.last_mut() {
            moved(last, place.as_ref());
            if screen.is_some() {
                last.after = screen;
            }
            if last.action() == names::TYPE
                && let Some(focused) = focused
                && last.element.as_ref().map(|e| &e.selector) == Some(&focused.selector)
            {
                last.focused_after = Some(focused);
            }
        }
        self.steps
    }

    fn push(&mut self, step: DemonstratedStep) -> Noted {
        self.steps.push(step);
        self.noted()
    }

    fn noted(&self) -> Noted {
        match self.steps.last() {
            Some(step) => Noted::Step {
                step: self.steps.len(),
                // A name read from the page may hold a secret typed in an earlier step (a
                // label around a password field is named with its value).
                summary: secrets::scrub(
                    &step.summary(),
                    &secrets::parameters(&self.steps[..self.steps.len() - 1], &[]),
                ),
            },
            None => Noted::Nothing,
        }
    }

    fn click(
        &mut self,
        button: u8,
        count: u32,
        at: (i64, i64),
        element: Option<ElementInfo>,
        before: Option<Arc<Frame>>,
    ) -> Noted {
        let action = match (button, count) {
            (0, 1) => names::LEFT_CLICK,
            (0, 2) => names::DOUBLE_CLICK,
            (0, _) => names::TRIPLE_CLICK,
            (1, _) => names::MIDDLE_CLICK,
            _ => names::RIGHT_CLICK,
        };
        let follows = match action {
            names::DOUBLE_CLICK => Some(names::LEFT_CLICK),
            names::TRIPLE_CLICK => Some(names::DOUBLE_CLICK),
            _ => None,
        };
        // The second click of a double click makes the first one a double click.
        if let Some(previous) = follows
            && let Some(last) = self.steps.last_mut()
            && last.action() == previous
            && last.point().is_some_and(|point| near(point, at))
        {
            last.input["action"] = json!(action);
            return self.noted();
        }
        let input = json!({"action": action, "coordinate": [at.0, at.1]});
        self.push(DemonstratedStep::new(input, before, element))
    }

    fn key(
        &mut self,
        chord: &keys::Chord<'_>,
        focused: Option<ElementInfo>,
        before: Option<Arc<Frame>>,
    ) -> Noted {
        let editable = focused.as_ref().is_some_and(|e| e.editable);
        let field = focused.as_ref().map(|e| e.selector.clone());
        let typing_here = self.steps.last().is_some_and(|last| {
            last.action() == names::TYPE
                && last.element.as_ref().map(|e| &e.selector) == field.as_ref()
        });
        if editable && let Some(character) = chord.typed_character() {
            if typing_here && let Some(last) = self.steps.last_mut() {
                let mut text = last.typed().unwrap_or_default().to_owned();
                text.push(character);
                last.input["text"] = json!(text);
                return self.noted();
            }
            let input = json!({"action": names::TYPE, "text": character.to_string()});
            return self.push(DemonstratedStep::new(
                input,
                before,
                without_value(focused.as_ref()),
            ));
        }
        if chord.is_backspace() && typing_here {
            if let Some(last) = self.steps.last_mut() {
                let mut text = last.typed().unwrap_or_default().to_owned();
                text.pop();
                if text.is_empty() {
                    self.steps.pop();
                    return Noted::Nothing;
                }
                last.input["text"] = json!(text);
            }
            return self.noted();
        }
        let Some(name) = chord.xdotool() else {
            return Noted::Nothing;
        };
        let input = json!({"action": names::KEY, "text": name});
        self.push(DemonstratedStep::new(
            input,
            before,
            without_value(focused.as_ref()),
        ))
    }

    fn wheel(
        &mut self,
        at: (i64, i64),
        (dx, dy): (f64, f64),
        element: Option<ElementInfo>,
        before: Option<Arc<Frame>>,
    ) -> Noted {
        let (direction, distance) = if dy.abs() >= dx.abs() {
            (if dy > 0.0 { "down" } else { "up" }, dy.abs())
        } else {
            (if dx > 0.0 { "right" } else { "left" }, dx.abs())
        };
        if distance == 0.0 {
            return Noted::Nothing;
        }
        let merges = self.steps.last().is_some_and(|last| {
            last.action() == names::SCROLL
                && last.input["scroll_direction"] == direction
                && last.point().is_some_and(|point| near(point, at))
        });
        if !merges {
            let input = json!({"action": names::SCROLL, "coordinate": [at.0, at.1],
                "scroll_direction": direction, "scroll_amount": 1});
            self.steps
                .push(DemonstratedStep::new(input, before, element));
        }
        if let Some(last) = self.steps.last_mut() {
            last.scrolled += distance;
            // Whole notches of replay's wheel, at least one.
            let notches = (last.scrolled / NOTCH_PX).round().max(1.0) as u64;
            last.input["scroll_amount"] = json!(notches);
        }
        self.noted()
    }
}

#[cfg(test)]
#[path = "tests.rs"]
mod tests;
