//! `retrace cache`'s work over trajectory files (askui v0.2/v0.3 files and legacy lists
//! included): [`list`], [`show`], [`check`], [`export`] and [`mark`] (invalidate,
//! revalidate). Each returns what it found as values; the CLI parses the flags and prints.

pub mod check;
pub mod export;
pub mod list;
pub mod mark;
pub mod show;
