//! The types an action's declaration is made of: its kind, its input fields and how askui
//! names it.

/// What an action does, for replay's plan and checks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ActionKind {
    /// Acts at a point of the screen (clicks, moves, drags, scrolls): replay checks the
    /// screen and the element there.
    Point,
    /// Keyboard input: acts on the focused element.
    Keyboard,
    /// Only looks at the screen (replay skips it).
    Observe,
    /// Neither acts on the UI nor looks at it (a pause).
    Wait,
    /// Acts on the UI, but at no point it names (a button pressed at the pointer).
    Other,
}

/// How askui 0.48 names an action, for the askui export.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Askui {
    /// The askui tools (base names) the step becomes, in order.
    Tools(&'static [&'static str]),
    /// askui has no such tool and none is needed: the step is left out, for this reason.
    Dropped(&'static str),
    /// askui cannot express it: exporting such a step is an error, for this reason.
    Unsupported(&'static str),
}

/// askui 0.48's computer tool base names.
pub mod askui {
    /// A screenshot.
    pub const SCREENSHOT: &str = "screenshot";
    /// Moves the pointer to `{x, y}`.
    pub const MOVE_MOUSE: &str = "move_mouse";
    /// Clicks at the pointer.
    pub const MOUSE_CLICK: &str = "mouse_click";
    /// Presses a button at the pointer.
    pub const MOUSE_HOLD_DOWN: &str = "mouse_hold_down";
    /// Releases a button at the pointer.
    pub const MOUSE_RELEASE: &str = "mouse_release";
    /// Turns the wheel by `{dx, dy}` pixels.
    pub const MOUSE_SCROLL: &str = "mouse_scroll";
    /// Types text.
    pub const TYPE: &str = "type";
    /// Presses a key with modifiers.
    pub const KEYBOARD_TAP: &str = "keyboard_tap";
}

/// A JSON type of an input field, as the schema states it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum JsonType {
    /// `[x, y]`: two non-negative integers.
    Point,
    /// `[x0, y0, x1, y1]`: four non-negative integers.
    Region,
    /// A string.
    Text,
    /// One of the listed strings.
    Choice(&'static [&'static str]),
    /// An integer.
    Integer,
    /// A number.
    Number,
}

/// A limit of a numeric field, kept integer or real as the schema writes it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Bound {
    /// An integer limit.
    Int(i64),
    /// A real limit.
    Real(f64),
}

/// One input field of the tool, shared by the actions that take it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct InputField {
    /// The key in the input object.
    pub name: &'static str,
    /// Its JSON type.
    pub json_type: JsonType,
    /// What it means, for the model (empty: the schema carries none).
    pub description: &'static str,
    /// The smallest value (numbers).
    pub minimum: Option<Bound>,
    /// The largest value (numbers).
    pub maximum: Option<Bound>,
}

/// A field an action takes, and whether it must be given.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct FieldUse {
    /// The field.
    pub field: &'static InputField,
    /// Whether the action needs it.
    pub required: bool,
}
