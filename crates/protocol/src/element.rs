//! What a browser says about one element of its page: [`ElementInfo`] (role, accessible name,
//! visible text, a selector hint, its box, its state, whether it receives events).
//!
//! Replay records the element at each action point next to the step's visual hash and checks
//! it again before acting, so these field names are part of the trajectory file format: they
//! only ever gain optional fields. Unknown fields are ignored when reading, absent optional
//! ones read as "not applicable".
//!
//! A form field's [`FieldValue`] may be a secret (a password, a token typed from a parameter):
//! its `Debug` shows only its length, and it has no `Display`, so it reaches a log or a report
//! only when a caller deliberately calls [`FieldValue::expose`].

use serde::Deserialize;
use serde::Deserializer;
use serde::Serialize;
use serde::Serializer;

use crate::text_style::TextStyle;

/// A rectangle in CSS pixels of the top-level viewport (backend pixels for a desktop).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct BoundingBox {
    /// Left edge.
    pub x: f64,
    /// Top edge.
    pub y: f64,
    /// Width.
    pub width: f64,
    /// Height.
    pub height: f64,
}

impl BoundingBox {
    /// Whether (`x`, `y`) lies inside (left and top edges included, right and bottom not).
    pub fn contains(&self, x: f64, y: f64) -> bool {
        x >= self.x && y >= self.y && x < self.x + self.width && y < self.y + self.height
    }

    /// The centre point.
    pub fn centre(&self) -> (f64, f64) {
        (self.x + self.width / 2.0, self.y + self.height / 2.0)
    }
}

/// An ARIA tri-state (`aria-checked`, `aria-pressed`): JSON `true`, `false` or `"mixed"`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Tristate {
    /// Off.
    False,
    /// On.
    True,
    /// Partly on (an indeterminate checkbox, a "select all" over a partial selection).
    Mixed,
}

impl Serialize for Tristate {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self {
            Tristate::False => serializer.serialize_bool(false),
            Tristate::True => serializer.serialize_bool(true),
            Tristate::Mixed => serializer.serialize_str("mixed"),
        }
    }
}

impl<'de> Deserialize<'de> for Tristate {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        #[derive(Deserialize)]
        #[serde(untagged)]
        enum Repr {
            Bool(bool),
            Text(String),
        }
        match Repr::deserialize(deserializer)? {
            Repr::Bool(true) => Ok(Tristate::True),
            Repr::Bool(false) => Ok(Tristate::False),
            Repr::Text(text) => match text.as_str() {
                "mixed" => Ok(Tristate::Mixed),
                "true" => Ok(Tristate::True),
                "false" => Ok(Tristate::False),
                other => Err(serde::de::Error::custom(format!(
                    "expected true, false or \"mixed\", found \"{other}\""
                ))),
            },
        }
    }
}

/// The value of a form field. It may be a secret: `Debug` prints only its length, and the
/// text comes out only through [`FieldValue::expose`].
#[derive(Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(transparent)]
pub struct FieldValue(String);

impl FieldValue {
    /// Wraps a field's value.
    pub fn new(value: impl Into<String>) -> Self {
        Self(value.into())
    }

    /// The value itself. Callers decide whether it may be stored; it is never logged.
    pub fn expose(&self) -> &str {
        &self.0
    }
}

impl std::fmt::Debug for FieldValue {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            formatter,
            "FieldValue(<{} characters>)",
            self.0.chars().count()
        )
    }
}

/// The element at a point, focused, or found by role and name, as a browser reports it.
///
/// "The element" is the *actionable* one: the closest link, button, form field, label's
/// control, widget role, focusable or click-handling ancestor of what the hit test found;
/// else the hit element itself.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ElementInfo {
    /// The ARIA role: the explicit `role` attribute's first token, else the implicit role of
    /// the tag and type (`button`, `link`, `textbox`, `checkbox`, `combobox`, `heading`,
    /// `img`, ...; `generic` for elements without one).
    pub role: String,
    /// The accessible name, whitespace-normalised (a practical approximation of accname:
    /// `aria-labelledby`, `aria-label`, labels, `alt`, button values, content, `title`,
    /// `placeholder`).
    pub name: String,
    /// The visible text, whitespace-normalised, at most 200 characters. Empty for text
    /// fields (their content is [`ElementInfo::value`]).
    pub text: String,
    /// The tag name, lower case.
    pub tag: String,
    /// A hint for finding the element again: `#id`, `[data-testid="..."]`,
    /// `tag[name="..."]`, else a short CSS path. Inside an iframe or a shadow root, the path
    /// to it comes first, each step separated by ` >>> `. A hint, not always valid CSS.
    pub selector: String,
    /// The element's box in CSS pixels of the top-level viewport.
    #[serde(rename = "box")]
    pub bounds: BoundingBox,
    /// Checked state of checkboxes, radios, switches (absent for other elements).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub checked: Option<Tristate>,
    /// `aria-expanded`, or whether a `<details>` summary is open (absent when not stated).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub expanded: Option<bool>,
    /// Selected state of options, tabs, rows (absent for other elements).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub selected: Option<bool>,
    /// `aria-pressed` of a toggle button (absent for other elements).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pressed: Option<Tristate>,
    /// Disabled (natively, by a disabled fieldset, or `aria-disabled="true"`).
    #[serde(default)]
    pub disabled: bool,
    /// Whether it has the keyboard focus.
    #[serde(default)]
    pub focused: bool,
    /// Whether text can be typed into it (an enabled, writable text field, or
    /// contenteditable).
    #[serde(default)]
    pub editable: bool,
    /// The `type` of an `<input>` (`text`, `password`, `checkbox`...), so a caller can tell
    /// a password field before storing its value.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub input_type: Option<String>,
    /// A form field's current value (text fields, selects, sliders). May be a secret.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub value: Option<FieldValue>,
    /// Whether a click at the point it was asked about (its centre, when found or focused)
    /// reaches it: visible, enabled, not inert, and the hit test there returns it or
    /// something inside it.
    pub receives_events: bool,
    /// Why it does not receive events there, e.g. `covered by div#overlay`, `disabled`,
    /// `outside the viewport`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub blocked_reason: Option<String>,
    /// The types of the event listeners that matter for acting ([`acts_on_event`]) on the
    /// element and its ancestors up to the document and window, sorted: recorded so replay
    /// waits until the page listens again before it acts. Absent when not asked (only a
    /// recording asks) or in files recorded before retrace asked.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub listeners: Option<Vec<String>>,
    /// How its text is drawn (colours, font), where the desktop's accessibility layer says
    /// (text widgets); absent in a browser and in files recorded before retrace read it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub text_style: Option<TextStyle>,
}

/// The event types whose listeners matter for acting on an element, besides every type
/// starting with one of [`ACTING_EVENT_PREFIXES`]: what a click, typing or keys dispatch to
/// the element and its ancestors. Others (`scroll`, `load`, `animationend`...) say nothing
/// about whether the page would handle the action.
pub const ACTING_EVENT_TYPES: [&str; 14] = [
    "click",
    "dblclick",
    "auxclick",
    "contextmenu",
    "beforeinput",
    "input",
    "change",
    "submit",
    "reset",
    "focus",
    "blur",
    "focusin",
    "focusout",
    "select",
];

/// Prefixes of event types that matter for acting: pointer, mouse, touch and key events.
pub const ACTING_EVENT_PREFIXES: [&str; 4] = ["pointer", "mouse", "touch", "key"];

/// Whether listeners of `event_type` matter for acting (see [`ACTING_EVENT_TYPES`]).
pub fn acts_on_event(event_type: &str) -> bool {
    ACTING_EVENT_TYPES.contains(&event_type)
        || ACTING_EVENT_PREFIXES
            .iter()
            .any(|prefix| event_type.starts_with(prefix))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn button() -> ElementInfo {
        ElementInfo {
            role: "checkbox".into(),
            name: "Remember me".into(),
            text: String::new(),
            tag: "input".into(),
            selector: "#remember".into(),
            bounds: BoundingBox {
                x: 1.0,
                y: 2.0,
                width: 13.0,
                height: 13.0,
            },
            checked: Some(Tristate::Mixed),
            expanded: None,
            selected: None,
            pressed: None,
            disabled: false,
            focused: true,
            editable: false,
            input_type: Some("checkbox".into()),
            value: None,
            receives_events: true,
            blocked_reason: None,
            listeners: None,
            text_style: None,
        }
    }

    #[test]
    fn element_info_has_stable_field_names_and_round_trips() {
        let info = button();
        let json = serde_json::to_value(&info).unwrap();
        assert_eq!(
            json,
            serde_json::json!({
                "role": "checkbox", "name": "Remember me", "text": "", "tag": "input",
                "selector": "#remember",
                "box": {"x": 1.0, "y": 2.0, "width": 13.0, "height": 13.0},
                "checked": "mixed", "disabled": false, "focused": true, "editable": false,
                "input_type": "checkbox", "receives_events": true
            })
        );
        let back: ElementInfo = serde_json::from_value(json).unwrap();
        assert_eq!(back, info);
    }

    #[test]
    fn older_and_newer_files_read() {
        // Optional fields may be missing; unknown fields are ignored.
        let info: ElementInfo = serde_json::from_value(serde_json::json!({
            "role": "button", "name": "Go", "text": "Go", "tag": "button", "selector": "#go",
            "box": {"x": 0, "y": 0, "width": 10, "height": 10}, "receives_events": false,
            "pressed": true, "a_field_from_the_future": 1
        }))
        .unwrap();
        assert_eq!(info.pressed, Some(Tristate::True));
        assert_eq!(info.checked, None);
        assert!(!info.disabled && !info.receives_events);
        assert_eq!(info.listeners, None);
        assert_eq!(info.text_style, None);
        let error = serde_json::from_value::<Tristate>(serde_json::json!("maybe")).unwrap_err();
        assert!(error.to_string().contains("\"maybe\""), "{error}");
    }

    #[test]
    fn listener_types_are_kept_when_they_matter_for_acting() {
        let mut info = button();
        info.listeners = Some(vec!["click".into(), "keydown".into()]);
        let json = serde_json::to_value(&info).unwrap();
        assert_eq!(json["listeners"], serde_json::json!(["click", "keydown"]));
        assert_eq!(serde_json::from_value::<ElementInfo>(json).unwrap(), info);
        for acting in [
            "click",
            "input",
            "submit",
            "pointerdown",
            "mouseup",
            "keydown",
            "focusin",
        ] {
            assert!(acts_on_event(acting), "{acting}");
        }
        for other in ["scroll", "load", "animationend", "resize", "message"] {
            assert!(!acts_on_event(other), "{other}");
        }
    }

    #[test]
    fn field_values_never_show_in_debug_output() {
        let mut info = button();
        info.value = Some(FieldValue::new("hunter2"));
        let debug = format!("{info:?}");
        assert!(!debug.contains("hunter2"), "{debug}");
        assert!(debug.contains("<7 characters>"), "{debug}");
        assert_eq!(info.value.as_ref().map(FieldValue::expose), Some("hunter2"));
        assert_eq!(serde_json::to_value(&info).unwrap()["value"], "hunter2");
    }

    #[test]
    fn boxes_contain_their_inside_and_know_their_centre() {
        let bounds = button().bounds;
        assert!(bounds.contains(1.0, 2.0) && bounds.contains(13.9, 14.9));
        assert!(!bounds.contains(14.0, 2.0) && !bounds.contains(0.5, 5.0));
        assert_eq!(bounds.centre(), (7.5, 8.5));
    }
}
