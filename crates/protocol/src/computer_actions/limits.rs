//! The bounds the catalogue puts on action inputs.

/// The longest `duration` (seconds) `wait` and `hold_key` accept: the computer toolset's
/// limit (issue 37; `anthropic` 2.14.0 `types/computer_wait_input.py`).
pub const MAX_DURATION_S: f64 = 300.0;

/// The most times `key` repeats a press (`repeat`).
pub const MAX_KEY_REPEAT: u32 = 100;
