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
mod input_error;
mod limits;
mod schema;
mod spec;
mod values;

pub use self::catalog::ACTIONS;
pub use self::catalog::ActionSpec;
pub use self::catalog::COMPUTER_ACTIONS;
pub use self::catalog::ComputerAction;
pub use self::catalog::FIELDS;
pub use self::catalog::Parser;
pub use self::catalog::names;
pub use self::fields::Fields;
pub use self::input_error::InputError;
pub use self::limits::MAX_DURATION_S;
pub use self::limits::MAX_KEY_REPEAT;
pub use self::schema::description;
pub use self::schema::input_schema;
pub use self::spec::ActionKind;
pub use self::spec::Askui;
pub use self::spec::Bound;
pub use self::spec::FieldUse;
pub use self::spec::InputField;
pub use self::spec::JsonType;
pub use self::spec::askui;
pub use self::values::ModelPoint;
pub use self::values::MouseButton;
pub use self::values::ScrollDirection;

use serde_json::Value;

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
    (spec.parse)(&Fields::new(object, spec.name))
}

#[cfg(test)]
#[path = "tests.rs"]
mod tests;
