//! retrace-cache: trajectory cache files you can trust.
//!
//! A cache file is `{metadata, trajectory, cache_parameters}`, field for field the layout
//! askui writes (v0.2 and v0.3); the legacy bare list of tool_use blocks (askui 0.24) loads
//! too. Users bring their askui files as they are, and files written here load in askui.
//!
//! - [`CacheFile`], [`CacheMetadata`], [`CacheFailure`], [`VisualValidation`]: the typed
//!   model. Every struct keeps the fields it does not know, so nothing is lost on a rewrite.
//! - [`read_cache_file`] / [`parse_bytes`]: reading with a size limit (a leading UTF-8
//!   byte-order mark is skipped; bytes that are not UTF-8 are a syntax error), and errors
//!   ([`CacheError`]) that name the file and the JSON path (`metadata.created_at: expected
//!   an RFC 3339 timestamp, got 12`) or the line and column of a syntax error.
//! - [`CacheStore`]: a cache directory: list, read, atomic write, and metadata updates made
//!   under an exclusive lock that re-read the file, so concurrent replays lose nothing.
//!   [`update_metadata_at`] rewrites only the fields that change, on the JSON value.
//! - [`resolve_name`]: names from a model or `--cache-file` stay inside the cache directory;
//!   [`generated_name`] makes `cached_trajectory_YYYYMMDDHHMMSSffffff.json`.
//! - [`params`]: `{{name}}` placeholders, parsed into tokens and substituted exactly.
//! - [`validators`]: when a cache is retired (failures per step, failure rate, staleness),
//!   with askui's reasons; [`MetadataUpdate`] applies askui's metadata transitions.
//! - [`fields`]: the names of the fields retrace adds to askui's format (the after-action
//!   hash, the display size), defined once.
//! - [`export_askui`]: a trajectory in askui 0.48's tool vocabulary (`move_mouse`,
//!   `mouse_click`...), so askui's own cache executor replays it.
//! - [`check()`]: problems in a file that parsed (unknown actions, malformed inputs, points
//!   off the recorded screen, malformed or undeclared placeholders, bad hashes, duplicate
//!   ids...), each naming its step and JSON path; [`refuse`]: those replay refuses a file for
//!   ([`Severity::Error`]), as one error; [`summarize`]: one line per step (tool, action,
//!   point, hash).
//!
//! It does not compute hashes (that is `retrace-vision`), replay steps or record runs (that is
//! `retrace-replay`), and it never prints.
//!
//! ```
//! use retrace_cache::{CacheStore, MetadataUpdate, Validators};
//! # let dir = tempfile::tempdir().unwrap();
//! # let example = retrace_test_support::askui_examples_dir().join("ownership_open_chapter.json");
//! # std::fs::copy(example, dir.path().join("login.json")).unwrap();
//! let store = CacheStore::new(dir.path());
//! let file = store.read("login")?;
//! assert!(file.metadata.is_valid);
//! store.update("login", &MetadataUpdate::Invalidate { reason: "UI redesigned".into() }, &Validators::default())?;
//! assert_eq!(store.list(false)?.entries.len(), 0);
//! assert_eq!(store.list(true)?.entries.len(), 1);
//! # Ok::<(), retrace_cache::CacheError>(())
//! ```
#![deny(missing_docs)]
#![deny(clippy::print_stdout, clippy::print_stderr)]

mod askui_export;
mod check;
mod check_effects;
mod check_steps;
mod durable;
mod error;
pub mod fields;
mod hash_text;
mod json_text;
mod model;
mod names;
pub mod params;
mod parse;
mod problem;
mod store;
mod summary;
mod timestamp;
mod updates;
pub mod validators;

pub use askui_export::AskuiExport;
pub use askui_export::ExportError;
pub use askui_export::PIXELS_PER_NOTCH;
pub use askui_export::export_askui;
pub use check::KNOWN_VERSIONS;
pub use check::check;
pub use check::refuse;
pub use durable::FileLock;
pub use durable::atomic_write;
pub use error::CacheError;
pub use error::Result;
pub use hash_text::is_hash_text;
pub use json_text::JsonLayout;
pub use json_text::to_askui_json;
pub use model::CURRENT_VERSION;
pub use model::CacheFailure;
pub use model::CacheFile;
pub use model::CacheFormat;
pub use model::CacheMetadata;
pub use model::HASH_METHODS;
pub use model::LEGACY_VERSION;
pub use model::VisualValidation;
pub use names::generated_name;
pub use names::resolve_name;
pub use params::ParameterValues;
pub use parse::DEFAULT_MAX_FILE_SIZE;
pub use parse::parse_bytes;
pub use parse::parse_json;
pub use parse::read_bytes;
pub use parse::read_cache_file;
pub use problem::Problem;
pub use problem::Severity;
pub use store::CacheStore;
pub use store::ListEntry;
pub use store::ListResult;
pub use store::RECORDING_INDENT;
pub use store::update_file;
pub use store::update_metadata_at;
pub use summary::StepSummary;
pub use summary::summarize;
pub use timestamp::format_timestamp;
pub use timestamp::parse_timestamp;
pub use updates::MetadataUpdate;
pub use updates::UpdateOutcome;
pub use updates::apply_update;
pub use updates::unsuccessful_reason;
pub use validators::Validators;
