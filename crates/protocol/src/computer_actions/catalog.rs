//! The catalogue itself: the tool's input fields ([`FIELDS`]), its actions ([`ACTIONS`]) and
//! the typed [`ComputerAction`] they parse into. This file is the one place an action's name
//! is written.

use super::fields::Fields;
use super::input_error::InputError;
use super::limits::MAX_DURATION_S;
use super::limits::MAX_KEY_REPEAT;
use super::spec::ActionKind;
use super::spec::ActionKind::Keyboard;
use super::spec::ActionKind::Observe;
use super::spec::ActionKind::Other;
use super::spec::ActionKind::Point;
use super::spec::ActionKind::Wait;
use super::spec::Askui;
use super::spec::Bound;
use super::spec::FieldUse;
use super::spec::InputField;
use super::spec::JsonType;
use super::spec::askui;
use super::values::DIRECTIONS;
use super::values::ModelPoint;
use super::values::MouseButton;
use super::values::ScrollDirection;

/// One validated `computer` action: what the backends' dispatch matches on.
#[derive(Debug, Clone, PartialEq)]
pub enum ComputerAction {
    /// Take a screenshot.
    Screenshot,
    /// Click `count` times with `button`, at `at` or the current position, holding the
    /// `modifiers` combo (xdotool names) if given.
    Click {
        /// Which button.
        button: MouseButton,
        /// 1, 2 or 3.
        count: u32,
        /// Where; `None` clicks at the pointer.
        at: Option<ModelPoint>,
        /// Keys held during the click.
        modifiers: Option<String>,
    },
    /// Move the pointer.
    MouseMove(ModelPoint),
    /// Press at `from`, move to `to`, release.
    Drag {
        /// Start.
        from: ModelPoint,
        /// End.
        to: ModelPoint,
    },
    /// Press the left button at the pointer.
    MouseDown,
    /// Release the left button at the pointer.
    MouseUp,
    /// Turn the wheel.
    Scroll {
        /// Where; `None` scrolls at the pointer.
        at: Option<ModelPoint>,
        /// Which way.
        direction: ScrollDirection,
        /// How many notches.
        amount: u32,
        /// Keys held while scrolling.
        modifiers: Option<String>,
    },
    /// Type text.
    Type(String),
    /// Press a key combination `repeat` times.
    Key {
        /// The combination (xdotool names).
        combo: String,
        /// How many presses, at least 1.
        repeat: u32,
    },
    /// Hold a key combination for `seconds`.
    HoldKey {
        /// The combination (xdotool names).
        combo: String,
        /// How long, in seconds.
        seconds: f64,
    },
    /// Do nothing for `seconds`, then screenshot.
    Wait(f64),
    /// Report the pointer position.
    CursorPosition,
    /// Choose the option labelled `option` (or of that value) in the dropdown (`<select>`) at
    /// `at`, whose list the browser draws outside the page.
    SelectOption {
        /// The dropdown.
        at: ModelPoint,
        /// The option's label (its text), or else its value.
        option: String,
    },
    /// A screenshot of a region, at the display's full resolution.
    Zoom {
        /// Left and top edges, in the model's coordinates.
        from: ModelPoint,
        /// Right and bottom edges (exclusive), in the model's coordinates.
        to: ModelPoint,
    },
}

impl ComputerAction {
    /// The points the action names, with the input field each came from (what `retrace
    /// cache check` compares with the recorded screen).
    pub fn points(&self) -> Vec<(&'static str, ModelPoint)> {
        match self {
            Self::Click { at: Some(at), .. } | Self::Scroll { at: Some(at), .. } => {
                vec![(COORDINATE.name, *at)]
            }
            Self::MouseMove(at) | Self::SelectOption { at, .. } => vec![(COORDINATE.name, *at)],
            Self::Drag { from, to } => vec![(START_COORDINATE.name, *from), (COORDINATE.name, *to)],
            _ => Vec::new(),
        }
    }
}

/// The action names, for code that builds an input (the built-in demo, model adapters).
pub mod names {
    /// `screenshot`.
    pub const SCREENSHOT: &str = "screenshot";
    /// `left_click`.
    pub const LEFT_CLICK: &str = "left_click";
    /// `right_click`.
    pub const RIGHT_CLICK: &str = "right_click";
    /// `middle_click`.
    pub const MIDDLE_CLICK: &str = "middle_click";
    /// `double_click`.
    pub const DOUBLE_CLICK: &str = "double_click";
    /// `triple_click`.
    pub const TRIPLE_CLICK: &str = "triple_click";
    /// `mouse_move`.
    pub const MOUSE_MOVE: &str = "mouse_move";
    /// `left_click_drag`.
    pub const LEFT_CLICK_DRAG: &str = "left_click_drag";
    /// `left_mouse_down`.
    pub const LEFT_MOUSE_DOWN: &str = "left_mouse_down";
    /// `left_mouse_up`.
    pub const LEFT_MOUSE_UP: &str = "left_mouse_up";
    /// `scroll`.
    pub const SCROLL: &str = "scroll";
    /// `type`.
    pub const TYPE: &str = "type";
    /// `key`.
    pub const KEY: &str = "key";
    /// `hold_key`.
    pub const HOLD_KEY: &str = "hold_key";
    /// `wait`.
    pub const WAIT: &str = "wait";
    /// `cursor_position`.
    pub const CURSOR_POSITION: &str = "cursor_position";
    /// `zoom`.
    pub const ZOOM: &str = "zoom";
    /// `select_option`.
    pub const SELECT_OPTION: &str = "select_option";
}

/// A point field's JSON shape.
const fn point(name: &'static str, description: &'static str) -> InputField {
    InputField {
        name,
        json_type: JsonType::Point,
        description,
        minimum: None,
        maximum: None,
    }
}

const COORDINATE: InputField = point(
    "coordinate",
    "[x, y] in screenshot pixels: where to click, move, scroll, or where a drag ends.",
);
const START_COORDINATE: InputField =
    point("start_coordinate", "[x, y] where `left_click_drag` starts.");
const TEXT: InputField = InputField {
    name: "text",
    json_type: JsonType::Text,
    description: "`type`: the text. `key`, `hold_key`: a key combination in xdotool names \
                  (\"Return\", \"ctrl+a\", \"shift+Tab\"). Clicks and `scroll`: modifier keys \
                  to hold (\"shift\", \"ctrl\"). `select_option`: the option's label.",
    minimum: None,
    maximum: None,
};
const SCROLL_DIRECTION: InputField = InputField {
    name: "scroll_direction",
    json_type: JsonType::Choice(&DIRECTIONS),
    description: "",
    minimum: None,
    maximum: None,
};
const SCROLL_AMOUNT: InputField = InputField {
    name: "scroll_amount",
    json_type: JsonType::Integer,
    description: "Wheel notches to scroll.",
    minimum: Some(Bound::Int(0)),
    maximum: None,
};
const DURATION: InputField = InputField {
    name: "duration",
    json_type: JsonType::Number,
    description: "Seconds, for `wait` and `hold_key`.",
    minimum: Some(Bound::Int(0)),
    maximum: Some(Bound::Real(MAX_DURATION_S)),
};
const REPEAT: InputField = InputField {
    name: "repeat",
    json_type: JsonType::Integer,
    description: "`key`: how many times to press it (default 1).",
    minimum: Some(Bound::Int(1)),
    maximum: Some(Bound::Int(MAX_KEY_REPEAT as i64)),
};
const REGION: InputField = InputField {
    name: "region",
    json_type: JsonType::Region,
    description: "`zoom`: [x0, y0, x1, y1] in screenshot pixels; answers with that region at \
                  full resolution.",
    minimum: None,
    maximum: None,
};

/// Every input field, in the order the schema lists them.
pub const FIELDS: [&InputField; 8] = [
    &COORDINATE,
    &START_COORDINATE,
    &TEXT,
    &SCROLL_DIRECTION,
    &SCROLL_AMOUNT,
    &DURATION,
    &REPEAT,
    &REGION,
];

const fn needs(field: &'static InputField) -> FieldUse {
    FieldUse {
        field,
        required: true,
    }
}

const fn may(field: &'static InputField) -> FieldUse {
    FieldUse {
        field,
        required: false,
    }
}

/// A click's fields and usage.
const CLICK_FIELDS: &[FieldUse] = &[may(&COORDINATE), may(&TEXT)];
const CLICK_USAGE: &str = "(optional `coordinate`, optional `text` with modifier keys to hold)";
const CLICK_ASKUI: Askui = Askui::Tools(&[askui::MOVE_MOUSE, askui::MOUSE_CLICK]);

/// A click of `button`, `count` times.
fn click(
    fields: &Fields<'_>,
    button: MouseButton,
    count: u32,
) -> Result<ComputerAction, InputError> {
    Ok(ComputerAction::Click {
        button,
        count,
        at: fields.point(COORDINATE.name)?,
        modifiers: fields.modifiers()?,
    })
}

/// Reads an action's input into a [`ComputerAction`]; the error is for the model.
pub type Parser = fn(&Fields<'_>) -> Result<ComputerAction, InputError>;

/// One action of the `computer` tool, declared once.
#[derive(Debug, Clone, Copy)]
pub struct ActionSpec {
    /// The `action` value.
    pub name: &'static str,
    /// What it does, for replay.
    pub kind: ActionKind,
    /// How to call it, for the model's tool description (`` (`coordinate`) ``); empty when
    /// it takes nothing.
    pub usage: &'static str,
    /// The fields it takes.
    pub fields: &'static [FieldUse],
    /// How askui names it.
    pub askui: Askui,
    /// How its input becomes a [`ComputerAction`].
    pub parse: Parser,
}

/// Every action, in the order the schema lists them.
pub const ACTIONS: &[ActionSpec] = &[
    ActionSpec {
        name: names::SCREENSHOT,
        kind: Observe,
        usage: "",
        fields: &[],
        askui: Askui::Tools(&[askui::SCREENSHOT]),
        parse: |_| Ok(ComputerAction::Screenshot),
    },
    ActionSpec {
        name: names::LEFT_CLICK,
        kind: Point,
        usage: CLICK_USAGE,
        fields: CLICK_FIELDS,
        askui: CLICK_ASKUI,
        parse: |f| click(f, MouseButton::Left, 1),
    },
    ActionSpec {
        name: names::RIGHT_CLICK,
        kind: Point,
        usage: CLICK_USAGE,
        fields: CLICK_FIELDS,
        askui: CLICK_ASKUI,
        parse: |f| click(f, MouseButton::Right, 1),
    },
    ActionSpec {
        name: names::MIDDLE_CLICK,
        kind: Point,
        usage: CLICK_USAGE,
        fields: CLICK_FIELDS,
        askui: CLICK_ASKUI,
        parse: |f| click(f, MouseButton::Middle, 1),
    },
    ActionSpec {
        name: names::DOUBLE_CLICK,
        kind: Point,
        usage: CLICK_USAGE,
        fields: CLICK_FIELDS,
        askui: CLICK_ASKUI,
        parse: |f| click(f, MouseButton::Left, 2),
    },
    ActionSpec {
        name: names::TRIPLE_CLICK,
        kind: Point,
        usage: CLICK_USAGE,
        fields: CLICK_FIELDS,
        askui: CLICK_ASKUI,
        parse: |f| click(f, MouseButton::Left, 3),
    },
    ActionSpec {
        name: names::MOUSE_MOVE,
        kind: Point,
        usage: "(`coordinate`)",
        fields: &[needs(&COORDINATE)],
        askui: Askui::Tools(&[askui::MOVE_MOUSE]),
        parse: |f| {
            Ok(ComputerAction::MouseMove(
                f.required_point(COORDINATE.name)?,
            ))
        },
    },
    ActionSpec {
        name: names::LEFT_CLICK_DRAG,
        kind: Point,
        usage: "(`start_coordinate`, `coordinate`)",
        fields: &[needs(&START_COORDINATE), needs(&COORDINATE)],
        askui: Askui::Tools(&[
            askui::MOVE_MOUSE,
            askui::MOUSE_HOLD_DOWN,
            askui::MOVE_MOUSE,
            askui::MOUSE_RELEASE,
        ]),
        parse: |f| {
            Ok(ComputerAction::Drag {
                from: f.required_point(START_COORDINATE.name)?,
                to: f.required_point(COORDINATE.name)?,
            })
        },
    },
    ActionSpec {
        name: names::LEFT_MOUSE_DOWN,
        kind: Other,
        usage: "",
        fields: &[],
        askui: Askui::Tools(&[askui::MOUSE_HOLD_DOWN]),
        parse: |f| {
            f.refuse(&[COORDINATE.name, TEXT.name])?;
            Ok(ComputerAction::MouseDown)
        },
    },
    ActionSpec {
        name: names::LEFT_MOUSE_UP,
        kind: Other,
        usage: "",
        fields: &[],
        askui: Askui::Tools(&[askui::MOUSE_RELEASE]),
        parse: |f| {
            f.refuse(&[COORDINATE.name, TEXT.name])?;
            Ok(ComputerAction::MouseUp)
        },
    },
    ActionSpec {
        name: names::SCROLL,
        kind: Point,
        usage: "(`scroll_direction`, `scroll_amount`, optional `coordinate`)",
        fields: &[
            needs(&SCROLL_DIRECTION),
            needs(&SCROLL_AMOUNT),
            may(&COORDINATE),
            may(&TEXT),
        ],
        askui: Askui::Tools(&[askui::MOVE_MOUSE, askui::MOUSE_SCROLL]),
        parse: |f| {
            Ok(ComputerAction::Scroll {
                at: f.point(COORDINATE.name)?,
                direction: f.direction(SCROLL_DIRECTION.name)?,
                amount: f.count(SCROLL_AMOUNT.name, "wheel notches")?,
                modifiers: f.modifiers()?,
            })
        },
    },
    ActionSpec {
        name: names::TYPE,
        kind: Keyboard,
        usage: "(`text`)",
        fields: &[needs(&TEXT)],
        askui: Askui::Tools(&[askui::TYPE]),
        parse: |f| Ok(ComputerAction::Type(f.required_text("the text to type")?)),
    },
    ActionSpec {
        name: names::KEY,
        kind: Keyboard,
        usage: "(`text`: xdotool names such as Return, Tab, ctrl+a; optional `repeat`)",
        fields: &[needs(&TEXT), may(&REPEAT)],
        askui: Askui::Tools(&[askui::KEYBOARD_TAP]),
        parse: |f| {
            Ok(ComputerAction::Key {
                combo: f.required_text(KEY_COMBO)?,
                repeat: f.repeat(REPEAT.name)?,
            })
        },
    },
    ActionSpec {
        name: names::HOLD_KEY,
        kind: Keyboard,
        usage: "(`text`, `duration` in seconds)",
        fields: &[needs(&TEXT), needs(&DURATION)],
        askui: Askui::Unsupported("askui 0.48's keyboard_tap cannot hold a key for a duration"),
        parse: |f| {
            Ok(ComputerAction::HoldKey {
                combo: f.required_text(KEY_COMBO)?,
                seconds: f.duration(DURATION.name)?,
            })
        },
    },
    ActionSpec {
        name: names::WAIT,
        kind: Wait,
        usage: "(`duration`)",
        fields: &[needs(&DURATION)],
        askui: Askui::Dropped("askui has no wait tool"),
        parse: |f| Ok(ComputerAction::Wait(f.duration(DURATION.name)?)),
    },
    ActionSpec {
        name: names::CURSOR_POSITION,
        kind: Observe,
        usage: "",
        fields: &[],
        askui: Askui::Dropped("it only observes"),
        parse: |_| Ok(ComputerAction::CursorPosition),
    },
    ActionSpec {
        name: names::ZOOM,
        kind: Observe,
        usage: "(`region`: [x0, y0, x1, y1], answered with that region at full resolution)",
        fields: &[needs(&REGION)],
        askui: Askui::Dropped("it only observes"),
        parse: |f| {
            let (from, to) = f.region(REGION.name)?;
            Ok(ComputerAction::Zoom { from, to })
        },
    },
    ActionSpec {
        name: names::SELECT_OPTION,
        kind: Point,
        usage: "(`coordinate` of a dropdown (an HTML `<select>`), `text`: the label of the \
                option to choose; browsers only)",
        fields: &[needs(&COORDINATE), needs(&TEXT)],
        askui: Askui::Unsupported("askui 0.48 has no tool that chooses a dropdown's option"),
        parse: |f| {
            Ok(ComputerAction::SelectOption {
                at: f.required_point(COORDINATE.name)?,
                option: f.required_text("the label of the option to choose")?,
            })
        },
    },
    #[cfg(feature = "test-action")]
    ActionSpec {
        name: "test_submit",
        kind: Keyboard,
        usage: "(presses Return `repeat` times; a test-only action)",
        fields: &[may(&REPEAT)],
        askui: Askui::Tools(&[askui::KEYBOARD_TAP]),
        parse: |f| {
            Ok(ComputerAction::Key {
                combo: "Return".to_owned(),
                repeat: f.repeat(REPEAT.name)?,
            })
        },
    },
];

/// What `key` and `hold_key` say when their combination is missing.
const KEY_COMBO: &str = "a key combination in xdotool names such as \"Return\" or \"ctrl+a\"";

/// Every action's name, in catalogue order: the schema's `enum`.
pub const COMPUTER_ACTIONS: [&str; ACTIONS.len()] = {
    let mut out = [""; ACTIONS.len()];
    let mut index = 0;
    while index < ACTIONS.len() {
        out[index] = ACTIONS[index].name;
        index += 1;
    }
    out
};
