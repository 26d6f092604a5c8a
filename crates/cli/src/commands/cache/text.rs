//! What the cache subcommands print with: pretty JSON, and text cut to a width.

use crate::output::out;

/// Prints `value` as pretty JSON on stdout.
pub(super) fn print_json(value: &serde_json::Value) -> anyhow::Result<()> {
    out!("{}", serde_json::to_string_pretty(value)?);
    Ok(())
}

/// `text` cut to `max` characters, with `...` when cut.
pub(super) fn shorten(text: &str, max: usize) -> String {
    if text.chars().count() <= max {
        return text.to_owned();
    }
    let kept: String = text.chars().take(max.saturating_sub(3)).collect();
    format!("{kept}...")
}
