//! The catalogue of the `computer` tool's actions: each action declared once, as data
//! ([`ActionSpec`] in [`ACTIONS`]), and everything else derived from it.
//!
//! An entry says the action's name, its input fields (each an [`InputField`] of [`FIELDS`],
//! required or not), how the model is told to call it, its [`ActionKind`] (acts at a point,
//! keyboard input, observe only, ...), how askui names it ([`Askui`]) and how its input
//! becomes a typed [`ComputerAction`]. From the catalogue come: the tool's description and
//! input schema ([`crate::computer_tool`]), the action list ([`COMPUTER_ACTIONS`]), the one
//! input parser ([`parse`], which the backends' dispatch, replay and `retrace cache check`
//! all run), replay's plan classification ([`kind_of`]) and the askui export's names.
//!
//! Adding an action: one entry in `catalog.rs` (and a [`ComputerAction`] variant there when no
//! existing one expresses it), plus its backend code (`retrace-drive`'s
//! `ComputerTool::run`). See `docs/adding-an-action.md`.

mod catalog;
mod fields;
mod schema;

pub use self::catalog::ACTIONS;
pub use self::catalog::ComputerAction;
pub use self::catalog::FIELDS;
pub use self::catalog::ModelPoint;
pub use self::catalog::MouseButton;
pub use self::catalog::ScrollDirection;
pub use self::catalog::names;
pub use self::fields::Fields;
pub use self::schema::description;
pub use self::schema::input_schema;

use serde_json::Value;

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

/// A bad tool input: the field at fault (`action` for the action itself) and a message for
/// the model (or the person reading `retrace cache check`) naming what is valid.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InputError {
    /// The input key at fault.
    pub field: String,
    /// What is wrong and what is valid.
    pub message: String,
}

impl InputError {
    /// An error of `field`.
    pub fn new(field: impl Into<String>, message: impl Into<String>) -> Self {
        Self {
            field: field.into(),
            message: message.into(),
        }
    }
}

impl std::fmt::Display for InputError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for InputError {}

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

/// The catalogue entry of `name`.
pub fn spec(name: &str) -> Option<&'static ActionSpec> {
    ACTIONS.iter().find(|spec| spec.name == name)
}

/// The kind of the action `name`; `None` for a name the catalogue does not hold.
pub fn kind_of(name: &str) -> Option<ActionKind> {
    spec(name).map(|spec| spec.kind)
}

/// The input field called `name`.
pub fn field(name: &str) -> Option<&'static InputField> {
    FIELDS.iter().copied().find(|field| field.name == name)
}

/// Parses and validates a `computer` tool input by the catalogue: one set of rules for what
/// the backends run, what replay refuses and what `retrace cache check` reports.
pub fn parse(input: &Value) -> Result<ComputerAction, InputError> {
    let Some(object) = input.as_object() else {
        return Err(InputError::new(
            "action",
            format!(
                "the computer tool input must be a JSON object with an `action` field, got \
                 {input}"
            ),
        ));
    };
    let valid = || COMPUTER_ACTIONS.join(", ");
    let name = match object.get("action") {
        Some(Value::String(action)) => action.as_str(),
        Some(other) => {
            return Err(InputError::new(
                "action",
                format!("`action` must be a string, got {other}"),
            ));
        }
        None => {
            return Err(InputError::new(
                "action",
                format!("missing `action`; valid actions: {}", valid()),
            ));
        }
    };
    let Some(spec) = spec(name) else {
        return Err(InputError::new(
            "action",
            format!("unknown action `{name}`; valid actions: {}", valid()),
        ));
    };
    (spec.parse)(&Fields::new(object, spec))
}

#[cfg(test)]
#[path = "tests.rs"]
mod tests;
