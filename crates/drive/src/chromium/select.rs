//! Choosing an option of a dropdown (`<select>`) by its label: the `select_option` action.
//!
//! A dropdown's list is drawn by the browser outside the page (a headless page has none to
//! click in), so the option is chosen by a script (`select.js`, beside this file) in retrace's
//! isolated world, which dispatches what a person's choice dispatches; the answer is checked:
//! the dropdown must hold the option afterwards.

use serde::Deserialize;

use super::world::IsolatedWorld;
use crate::backend::Point;
use crate::error::DriveError;

const SELECT_JS: &str = include_str!("select.js");

/// What the page script answered.
#[derive(Debug, Deserialize)]
struct Answer {
    label: Option<String>,
    error: Option<String>,
    #[serde(default)]
    options: Vec<String>,
}

/// Chooses `option` (a label, or else a value) in the dropdown at `at`; its label once held.
pub(crate) async fn select_option(
    world: &IsolatedWorld<'_>,
    at: Point,
    option: &str,
) -> Result<String, DriveError> {
    let doing = format!("choosing an option of the dropdown at ({}, {})", at.x, at.y);
    let argument = serde_json::json!({"x": at.x, "y": at.y, "option": option});
    let value = world
        .evaluate(&doing, &format!("({SELECT_JS})({argument})"))
        .await?;
    let answer: Answer = serde_json::from_value(value).map_err(|error| DriveError::Operation {
        backend: super::connection::BACKEND.to_owned(),
        doing: doing.clone(),
        detail: format!("the page script's answer is unreadable: {error}"),
    })?;
    match (answer.label, answer.error) {
        (Some(label), None) => Ok(label),
        (_, error) => {
            let error = error.unwrap_or_else(|| "no answer".to_owned());
            let options = match answer.options.is_empty() {
                true => String::new(),
                false => format!(" (its options: {})", answer.options.join(", ")),
            };
            Err(DriveError::InvalidInput(format!(
                "{doing}: {error} for {option:?}{options}"
            )))
        }
    }
}
