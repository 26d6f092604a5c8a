//! End-to-end tests of the Chromium backend and the tools on it, in real headless Chromium
//! (`/usr/bin/chromium`) against pages served on 127.0.0.1. One binary, one module per area.

// Helpers outside #[test] functions unwrap too: a failed setup should stop the test loudly.
#![allow(clippy::unwrap_used, clippy::expect_used)]

/// Shared setup: launching a browser, the test pages.
mod common;

/// The backend itself: screenshots, navigation, DOM queries.
mod backend;
/// The `computer` tool: every action, scaling, input errors, and logging in with it.
mod computer_tool;
/// The acceptance test on the real demo app.
mod demo_app;
/// Elements and readiness on the real demo app: v1/v2 labels, the modal, a slow report.
mod demo_semantics;
/// Purpose-made pages for the element and readiness tests.
mod element_pages;
/// What is at a point, what has the focus, finding by role and name.
mod elements;
/// Browser lifecycle: dying browsers, crashes, dropped handles, `ws://` connections.
mod lifecycle;
/// The event listeners on the element at a point or with the focus, and its ancestors.
mod listeners;
/// Readiness and settledness: late scripts, animations, navigations.
mod readiness;
/// The tool collection: names, schemas, unknown tools.
mod tools;
