//! Which Chromium executable a command launches when the user names none.

use std::path::PathBuf;

/// The full browser (Debian's `chromium`): a headed recording needs it, the headless shell
/// has no window.
pub const FULL_CHROMIUM: &str = retrace_drive::chromium::FULL_CHROMIUM;

/// The executable launched by default: the headless shell when installed, else the full
/// browser.
pub fn default_executable() -> PathBuf {
    retrace_drive::chromium::default_executable()
}
