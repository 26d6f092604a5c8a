//! A bad tool input, said for the model.

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
