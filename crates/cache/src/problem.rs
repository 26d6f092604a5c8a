//! A problem `retrace cache check` finds in a file, and how much it matters.

use serde::Serialize;

/// One problem found by [`crate::check()`].
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Problem {
    /// The JSON path it is about (`trajectory[4].visual_representation`).
    pub field: String,
    /// The 1-based step it is about, when it is about one.
    pub step: Option<usize>,
    /// What is wrong.
    pub message: String,
    /// Whether replay refuses the file for it.
    pub severity: Severity,
}

/// How much a [`Problem`] matters.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Severity {
    /// The file cannot be replayed as it is: replay refuses it, naming this problem (an
    /// unknown action, a point off the recorded screen, a hash that is not one...).
    Error,
    /// Replay runs the file, but this may mislead it or its reader (an invalidated cache, a
    /// blank region whose check sees nothing, an unused parameter...).
    Warning,
}

impl std::fmt::Display for Problem {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if let Some(step) = self.step {
            write!(f, "step {step}: ")?;
        }
        write!(f, "{}: {}", self.field, self.message)
    }
}

impl Problem {
    /// A problem replay refuses the file for.
    pub(crate) fn error(field: String, step: Option<usize>, message: String) -> Self {
        Problem {
            field,
            step,
            message,
            severity: Severity::Error,
        }
    }

    /// A problem replay runs the file despite.
    pub(crate) fn warning(field: String, step: Option<usize>, message: String) -> Self {
        Problem {
            field,
            step,
            message,
            severity: Severity::Warning,
        }
    }
}
