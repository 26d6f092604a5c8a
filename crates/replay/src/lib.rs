//! retrace-replay: trajectories. Recording a finished run as a trajectory file, and replaying
//! that file later with no model, checking at every step that the screen is still the one it
//! was recorded on.
//!
//! Replay is a speaker of `retrace-agent`'s conversation ([`ReplaySpeaker`]), so a replayed
//! step lands in the same history a model's step would, and the model can take over where a
//! replay stops. The engine is split by job:
//!
//! - [`request`]: [`ReplayRequest`] (file, parameter values, start) and [`ReplaySettings`].
//! - [`plan`]: the file read, parameters filled, hashes parsed, the checks it allows.
//! - [`wait`]: polling the [`screen::Screen`] until a phase's checks pass, a still screen for
//!   steps nothing checks, bounded screenshot attempts; on a browser, until the page listens
//!   on the step's element as it did when recorded ([`wait::listening`]). No fixed sleeps
//!   unless asked.
//! - [`frame_memory`]: the last verified screenshot, looked at again when the page says
//!   nothing changed since (no action in between).
//! - [`checks`]: the [`checks::StepCheck`] trait and the checks: visual (before acting, with
//!   repair by nearby search) and effect (after acting). Adding a check is one file.
//! - [`metadata`]: the file's metadata updates, off the async runtime.
//! - [`messages`]: what the model is told; [`tally`]: what leaves as events.
//! - [`speaker`]: the thin state machine tying them together.
//! - [`recorder`]: a finished run's history into a trajectory file.
//! - [`demonstration`]: a person's recorded inputs (`retrace record`) folded into steps and
//!   written as the same trajectory file.
//! - [`cache_tools`]: the tools that let a model list, inspect, replay and judge trajectories;
//!   [`askui_tools`]: askui's computer tools, so askui's files replay here.
//!
//! Results leave a replay only as [`retrace_protocol::events::Event`]s: each check, the
//! failure with its evidence, and the [`retrace_protocol::events::ReplayOutcome`].
//!
//! Step numbers in messages and events are 1-based trajectory positions; the file's own
//! `step_index` fields (askui's) stay 0-based.
#![deny(clippy::print_stdout, clippy::print_stderr)]

pub mod askui_tools;
pub mod cache_tools;
pub mod checks;
pub mod demonstration;
pub mod evidence;
pub mod failure;
pub mod frame_memory;
pub mod ledger;
pub mod messages;
pub mod metadata;
pub mod observe;
pub mod page_location;
pub mod plan;
pub mod recorder;
pub mod request;
pub mod screen;
pub mod speaker;
pub mod tally;
pub mod wait;

pub use request::OnMismatch;
pub use request::ReplayRequest;
pub use request::ReplaySettings;
pub use request::WaitMode;
pub use speaker::CACHE_EXECUTOR;
pub use speaker::ReplaySpeaker;
