//! retrace-files: every file retrace writes is written whole, or not at all.
//!
//! A file is written to a temporary name in the folder it belongs in (`.<name>.<random>.tmp`),
//! flushed to disk, and renamed over its name; then the folder is flushed. A crash, a kill, a
//! full disk or a size limit at any point leaves the old file or the new one, never part of
//! one, and the temporary file is removed when the write fails.
//!
//! - [`write_atomic`]: a whole file from bytes (reports, trajectories, state, screenshots).
//! - [`write_new_atomic`]: the same, only when no file has the name yet (a store's
//!   create-only write).
//! - [`copy_atomic`]: a copy of another file, written the same way (evidence a merge keeps).
//! - [`AtomicLog`]: a log written line by line (an event log): it replaces the file at its
//!   name once its first line is whole, and grows by whole lines after that.
//!
//! A test (`tests/direct_writes.rs`) fails when code under `crates/*/src` writes a file any
//! other way.
//!
//! Errors are [`std::io::Error`]s whose text says which step failed ("cannot create a
//! temporary file in /out"); callers add the file's path.
//!
//! ```
//! # let dir = tempfile::tempdir().unwrap();
//! let path = dir.path().join("report.json");
//! retrace_files::write_atomic(&path, b"{}").unwrap();
//! assert_eq!(std::fs::read(&path).unwrap(), b"{}");
//! ```

mod log;
mod whole_file;

pub use log::AtomicLog;
pub use whole_file::copy_atomic;
pub use whole_file::write_atomic;
pub use whole_file::write_new_atomic;

#[cfg(test)]
#[path = "lib_tests.rs"]
mod tests;
