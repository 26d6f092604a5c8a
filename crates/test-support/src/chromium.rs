//! The one way a test launches Chromium: [`launch`] (or [`chromium!`](crate::chromium)),
//! which checks the browser is installed first, so that every test without it skips with the
//! same `SKIPPED:` line, or fails the same way under CI ([`crate::requirements`]), and a
//! browser that is installed but does not start fails the test with the reason.
//!
//! ```no_run
//! # async fn test() {
//! let browser = retrace_test_support::chromium!(1280, 800);
//! let page = browser.open_page().await.unwrap();
//! # }
//! ```
//!
//! Part of the end-to-end tier: built with this crate's `e2e` feature only.

use std::path::Path;

use retrace_drive::chromium::ChromiumBrowser;
use retrace_drive::chromium::ChromiumConfig;
use retrace_drive::chromium::HEADLESS_SHELL;

use crate::requirements::Need;

/// What launching `config` needs: the headless shell when it names it, else the full browser.
pub fn need_of(config: &ChromiumConfig) -> Need {
    if config.executable == Path::new(HEADLESS_SHELL) {
        Need::HeadlessShell
    } else {
        Need::Chromium
    }
}

/// retrace's default launch ([`ChromiumConfig::default`]: the headless shell when
/// installed, else the full browser) at `width`x`height`.
pub fn config(width: u32, height: u32) -> ChromiumConfig {
    ChromiumConfig {
        width,
        height,
        ..ChromiumConfig::default()
    }
}

/// Launches `config`; `None` when its browser is not installed (after the `SKIPPED:` line).
///
/// # Panics
/// Under CI when the browser is not installed; when it is installed but does not start.
pub async fn launch(config: &ChromiumConfig) -> Option<ChromiumBrowser> {
    if !crate::requirements::present(need_of(config)) {
        return None;
    }
    match ChromiumBrowser::launch(config).await {
        Ok(browser) => Some(browser),
        Err(error) => panic!(
            "{} is installed but did not start: {error}",
            config.executable.display()
        ),
    }
}

/// Launches `config` for a helper of a test that began with `require!(Chromium)` (or
/// `HeadlessShell`): the same checks as [`launch`], for code that cannot return from the test.
///
/// # Panics
/// When the browser is not installed (after the `SKIPPED:` line, or CI's failure), or does
/// not start.
pub async fn started(config: &ChromiumConfig) -> ChromiumBrowser {
    match launch(config).await {
        Some(browser) => browser,
        None => panic!(
            "{:?} is not installed: the test should begin with require!",
            need_of(config)
        ),
    }
}

/// A launched Chromium for the calling async test, which returns (skipped) when it is not
/// installed; see [`launch`]. `chromium!()` is the default launch, `chromium!(WIDTH, HEIGHT)`
/// the default at that size, `chromium!(config: &ChromiumConfig)` any other.
#[macro_export]
macro_rules! chromium {
    () => {
        $crate::chromium!(&$crate::chromium::config(1280, 800))
    };
    ($width:expr, $height:expr) => {
        $crate::chromium!(&$crate::chromium::config($width, $height))
    };
    ($config:expr) => {
        match $crate::chromium::launch($config).await {
            Some(browser) => browser,
            None => return,
        }
    };
}

#[cfg(test)]
mod tests {
    use std::path::PathBuf;

    use super::Need;
    use super::config;
    use super::need_of;

    #[test]
    fn the_headless_shell_needs_the_shell_and_anything_else_the_full_browser() {
        let mut shell = config(800, 600);
        shell.executable = PathBuf::from(super::HEADLESS_SHELL);
        assert_eq!(need_of(&shell), Need::HeadlessShell);
        let mut full = config(800, 600);
        full.executable = PathBuf::from("/usr/bin/chromium");
        assert_eq!(need_of(&full), Need::Chromium);
        assert_eq!((full.width, full.height), (800, 600));
    }
}
