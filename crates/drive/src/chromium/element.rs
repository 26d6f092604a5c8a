//! What element is at a point, which one has the focus, and where the one with a given role
//! and name went: [`ElementInfo`]s read from the page by one script call each.
//!
//! The page side is `element.js` (beside this file): the hit test (`elementFromPoint`,
//! descending into open shadow roots and same-origin iframes), the actionable ancestor, the
//! role (explicit, else implicit per HTML-AAM for common elements), an accname approximation,
//! state, a selector hint and whether a click there reaches the element. It runs in an
//! isolated world ([`super::world`]), so a page that overrides `elementFromPoint`,
//! `getComputedStyle` or the prototypes cannot change the answers.
//!
//! The DOM snapshot for models ([`super::dom`]) and the web executor's element waits
//! ([`crate::web::element`]) answer other questions (what can a model act on; is the element a
//! selector names usable) and keep their own, smaller scripts.

use retrace_protocol::ElementInfo;

use super::world::IsolatedWorld;
use crate::backend::Point;
use crate::error::DriveError;

pub(crate) const ELEMENT_JS: &str = include_str!("element.js");

/// The script for one operation; the argument travels as JSON, so no text can break out.
pub(crate) fn script(operation: &str, argument: &serde_json::Value) -> String {
    format!("({ELEMENT_JS})({operation:?}, {argument})")
}

/// Reads the page's answer: one element or `null`.
fn parse_one(doing: &str, value: serde_json::Value) -> Result<Option<ElementInfo>, DriveError> {
    if value.is_null() {
        return Ok(None);
    }
    serde_json::from_value(value)
        .map(Some)
        .map_err(|error| bad_answer(doing, &error))
}

fn bad_answer(doing: &str, error: &serde_json::Error) -> DriveError {
    DriveError::Operation {
        backend: super::connection::BACKEND.to_owned(),
        doing: doing.to_owned(),
        detail: format!("the page script's answer is not an element description: {error}"),
    }
}

/// The actionable element hit at `at` (CSS pixels of the viewport), or `None` where nothing
/// is (outside the page).
pub(crate) async fn element_at(
    world: &IsolatedWorld<'_>,
    at: Point,
) -> Result<Option<ElementInfo>, DriveError> {
    let doing = format!("reading the element at ({}, {})", at.x, at.y);
    let argument = serde_json::json!({"x": at.x, "y": at.y});
    let value = world.evaluate(&doing, &script("at", &argument)).await?;
    parse_one(&doing, value)
}

/// The element with the keyboard focus (through shadow roots and iframes), or `None` when
/// the focus is on the document itself.
pub(crate) async fn focused_element(
    world: &IsolatedWorld<'_>,
) -> Result<Option<ElementInfo>, DriveError> {
    let doing = "reading the focused element";
    let value = world
        .evaluate(doing, &script("focused", &serde_json::Value::Null))
        .await?;
    parse_one(doing, value)
}

/// The visible elements whose role is `role` and whose accessible name is `name` (both
/// compared after whitespace normalisation, the role case-insensitively), in document order,
/// at most 50.
pub(crate) async fn find_elements(
    world: &IsolatedWorld<'_>,
    role: &str,
    name: &str,
) -> Result<Vec<ElementInfo>, DriveError> {
    let doing = format!("finding the {role} named {name:?}");
    let argument = serde_json::json!({"role": role, "name": name});
    let value = world.evaluate(&doing, &script("find", &argument)).await?;
    serde_json::from_value(value).map_err(|error| bad_answer(&doing, &error))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn arguments_travel_as_json() {
        let argument = serde_json::json!({"role": "button", "name": "a\")(b"});
        let text = script("find", &argument);
        let tail = format!(")(\"find\", {argument})");
        assert!(text.ends_with(&tail), "{}", &text[text.len() - 60..]);
        assert!(tail.contains(r#""a\")(b""#), "{tail}");
    }

    #[test]
    fn answers_that_are_not_elements_are_errors_naming_the_operation() {
        assert_eq!(parse_one("x", serde_json::Value::Null).unwrap(), None);
        let error = parse_one(
            "reading the element at (1, 2)",
            serde_json::json!({"role": 1}),
        )
        .unwrap_err();
        assert!(
            error.to_string().contains("reading the element at (1, 2)"),
            "{error}"
        );
    }
}
