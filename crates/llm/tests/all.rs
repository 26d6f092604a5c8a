//! retrace-llm integration tests: the real HTTP clients against the scripted fake servers
//! of `retrace-test-support` (one test binary; modules in `suite/`).
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod suite;
