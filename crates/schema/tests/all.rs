//! Integration tests of retrace-schema, built into one binary.

// Helpers outside `#[test]` functions (fixtures, validation shortcuts) unwrap too: a broken
// fixture should stop the test loudly.
#![allow(clippy::unwrap_used, reason = "test helpers; failures should panic")]

mod suite;
