//! The demo app's client-side behaviour in real headless Chromium (launched by
//! `retrace_test_support::chromium!`, which skips or fails like every test without it): the
//! rename layout, the faults, late scripts, the site's variants and its unsteady pages. One
//! binary, one module per area.

// Helpers outside #[test] functions unwrap too: a failed setup should stop the test loudly.
#![allow(clippy::unwrap_used, clippy::expect_used)]

/// Shared setup: a browser, signing in, settled screenshots, pixel comparison.
mod common;

/// The faults: controls that ignore clicks, a field the page rewrites.
mod faults;
/// Late scripts: a page that looks ready before its script arrives.
mod late_scripts;
/// The rename layout keeps v1's width and changes only the button.
mod rename;
/// The content site's variants, pixel by pixel against the baseline.
mod site_variants;
/// The site's pages that are hard to screenshot stably.
mod unsteady_pages;
