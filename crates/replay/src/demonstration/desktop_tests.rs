#![allow(clippy::unwrap_used)]

use pretty_assertions::assert_eq;
use retrace_drive::x11::input_keys::Modifiers;
use serde_json::Value;

use super::*;

fn frame(n: u8) -> Option<Arc<Frame>> {
    Some(Arc::new(Frame {
        png: vec![n],
        at_ms: f64::from(n),
    }))
}

fn button(button: u8, down: bool, x: i32, y: i32) -> DesktopInput {
    DesktopInput::Button { button, down, x, y }
}

fn key(key: &str, held: Modifiers) -> DesktopInput {
    DesktopInput::Key {
        key: key.to_owned(),
        held,
    }
}

/// Each step's before and after frame numbers.
type Frames = Vec<(Option<u8>, Option<u8>)>;

/// A demonstration fed inputs `ms` milliseconds after a start, each with frame `n`.
struct Feed {
    demo: DesktopDemonstration,
    start: Instant,
}

impl Feed {
    fn new() -> Self {
        Self {
            demo: DesktopDemonstration::new(),
            start: Instant::now(),
        }
    }

    fn add(&mut self, input: DesktopInput, ms: u64, n: u8) -> Noted {
        let at = self.start + Duration::from_millis(ms);
        self.demo.add(input, at, frame(n))
    }

    fn click(&mut self, b: u8, (x, y): (i32, i32), ms: u64, n: u8) {
        self.add(button(b, true, x, y), ms, n);
        self.add(button(b, false, x, y), ms + 10, n);
    }

    fn inputs(self) -> (Vec<Value>, Frames) {
        let steps = self.demo.finish(frame(99));
        let first = |f: &Option<Arc<Frame>>| f.as_ref().map(|f| f.png[0]);
        (
            steps.iter().map(|s| s.input.clone()).collect(),
            steps
                .iter()
                .map(|s| (first(&s.before), first(&s.after)))
                .collect(),
        )
    }
}

#[test]
fn clicks_double_clicks_drags_and_wheel_notches_become_steps() {
    let mut feed = Feed::new();
    feed.click(1, (10, 20), 0, 1);
    // A second click soon after at the same place: a double click, then a triple.
    feed.click(1, (11, 21), 100, 2);
    feed.click(1, (11, 21), 200, 3);
    // The same place again, but later: a new click.
    feed.click(1, (11, 21), 2000, 4);
    feed.click(3, (50, 60), 2100, 5);
    feed.add(button(1, true, 100, 100), 2200, 6);
    feed.add(button(1, false, 300, 140), 2500, 7);
    for (ms, n) in [(2600, 8), (2610, 9), (2620, 10)] {
        feed.add(button(5, true, 40, 40), ms, n);
        feed.add(button(5, false, 40, 40), ms + 1, n);
    }
    feed.add(button(4, true, 40, 40), 2700, 11);
    let (inputs, frames) = feed.inputs();
    assert_eq!(
        inputs,
        vec![
            json!({"action": "triple_click", "coordinate": [10, 20]}),
            json!({"action": "left_click", "coordinate": [11, 21]}),
            json!({"action": "right_click", "coordinate": [50, 60]}),
            json!({"action": "left_click_drag", "start_coordinate": [100, 100],
                   "coordinate": [300, 140]}),
            json!({"action": "scroll", "coordinate": [40, 40], "scroll_direction": "down",
                   "scroll_amount": 3}),
            json!({"action": "scroll", "coordinate": [40, 40], "scroll_direction": "up",
                   "scroll_amount": 1}),
        ]
    );
    // Before: the frame before the step's first press; after: the one before the next.
    assert_eq!(
        frames,
        vec![
            (Some(1), Some(4)),
            (Some(4), Some(5)),
            (Some(5), Some(6)),
            (Some(6), Some(8)),
            (Some(8), Some(11)),
            (Some(11), Some(99)),
        ]
    );
}

#[test]
fn typing_with_a_correction_is_the_word_and_chords_are_xdotool_names() {
    let plain = Modifiers::default();
    let ctrl = Modifiers {
        ctrl: true,
        ..plain
    };
    let shift = Modifiers {
        shift: true,
        ..plain
    };
    let mut feed = Feed::new();
    feed.click(1, (5, 5), 0, 1);
    for (i, k) in ["h", "e", "l", "p", "Backspace", "l", "o", " ", "W"]
        .iter()
        .enumerate()
    {
        feed.add(key(k, plain), 100 + i as u64, 2);
    }
    feed.add(key("Enter", plain), 200, 3);
    feed.add(key("s", ctrl), 300, 4);
    feed.add(key("Tab", shift), 400, 5);
    // Typing again after a chord starts a new step; backspacing it away leaves nothing.
    feed.add(key("x", plain), 500, 6);
    feed.add(key("Backspace", plain), 501, 6);
    // A backspace with nothing being typed is a key of its own.
    feed.add(key("Backspace", plain), 600, 7);
    let (inputs, frames) = feed.inputs();
    assert_eq!(
        inputs,
        vec![
            json!({"action": "left_click", "coordinate": [5, 5]}),
            json!({"action": "type", "text": "hello W"}),
            json!({"action": "key", "text": "Return"}),
            json!({"action": "key", "text": "ctrl+s"}),
            json!({"action": "key", "text": "shift+Tab"}),
            json!({"action": "key", "text": "BackSpace"}),
        ]
    );
    assert_eq!(frames[1], (Some(2), Some(3)));
    assert_eq!(
        frames[4],
        (Some(5), Some(7)),
        "the removed step's frame is not kept"
    );
}

#[test]
fn a_release_of_a_button_never_pressed_makes_no_step() {
    let mut feed = Feed::new();
    assert_eq!(feed.add(button(1, false, 1, 1), 0, 1), Noted::Nothing);
    let noted = feed.add(key("Shift", Modifiers::default()), 1, 1);
    assert_eq!(noted, Noted::Nothing);
    assert!(feed.inputs().0.is_empty());
}
