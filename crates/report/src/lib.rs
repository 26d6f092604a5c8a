//! retrace-report: where a run's results go. Every sink here reads the event stream
//! ([`retrace_protocol::events`]); nothing else carries results out of a run.
//!
//! - [`console::ConsoleSink`]: one line per verified step on a terminal.
//! - [`json_lines::JsonLinesSink`]: every event as a JSON line, for machines.
//! - [`summary`]: the last lines of a session, from its
//!   [`retrace_protocol::events::SessionReport`] (whose serde form is the `--json` document).
//! - [`error_text::error_chain`]: an error with all its causes, the one way an error reaches
//!   a user.
//! - [`secrets::Secrets`]: the values no sink may write, scrubbed from every line.
//! - [`timeline`]: a test's events folded into one step record per step (what the console
//!   prints and a suite's reports keep).
//! - [`suite`]: a suite run's reports (HTML, JUnit, JSON), their sink, and merging shards.
#![deny(clippy::print_stdout, clippy::print_stderr)]

pub mod console;
pub mod error_text;
pub mod json_lines;
pub mod secrets;
pub mod suite;
pub mod summary;
pub mod timeline;

pub use console::ConsoleSink;
pub use error_text::error_chain;
pub use json_lines::JsonLinesSink;
pub use secrets::Secrets;
pub use timeline::TimelineSink;
