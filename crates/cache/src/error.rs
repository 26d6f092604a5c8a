//! The one error type of this crate. Every variant names the file it is about and, where the
//! problem is inside the file, the JSON path (`metadata.created_at`, `trajectory[3].input`) or
//! the line and column.

use std::path::PathBuf;

/// Everything that can go wrong reading, writing or resolving a cache file.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum CacheError {
    /// The file (or directory) could not be opened, read, written or renamed.
    #[error("{path}: {action}: {source}")]
    Io {
        /// The file or directory involved.
        path: PathBuf,
        /// What was being done (`cannot read`, `cannot rename into place`...).
        action: &'static str,
        /// The operating system's error.
        #[source]
        source: std::io::Error,
    },
    /// The path names a directory (or another non-file) where a cache file was expected.
    #[error("{path}: is {kind}, not a cache file")]
    NotAFile {
        /// The path given.
        path: PathBuf,
        /// What it is instead: `a directory`, `a special file (device, socket or pipe)`.
        kind: &'static str,
    },
    /// The file is larger than the configured limit; it was not read.
    #[error(
        "{path}: file is {size} bytes, larger than the limit of {limit} bytes; refusing to read it"
    )]
    TooLarge {
        /// The file.
        path: PathBuf,
        /// Its size in bytes.
        size: u64,
        /// The limit in bytes.
        limit: u64,
    },
    /// The file is empty (or holds only whitespace).
    #[error("{path}: file is empty; expected a JSON cache file")]
    Empty {
        /// The file.
        path: PathBuf,
    },
    /// The bytes are not valid JSON (truncated, a stray character...).
    #[error("{path}: invalid JSON at line {line}, column {column}: {message}")]
    Syntax {
        /// The file.
        path: PathBuf,
        /// 1-based line of the problem.
        line: usize,
        /// 1-based column of the problem.
        column: usize,
        /// What the parser found.
        message: String,
    },
    /// The JSON is well formed but a field is missing or has the wrong type or value.
    #[error("{path}: {field}: {message}")]
    Invalid {
        /// The file.
        path: PathBuf,
        /// The JSON path of the problem: `metadata.created_at`, `trajectory[3].input`, or
        /// `(top level)`.
        field: String,
        /// What was expected and what was found.
        message: String,
    },
    /// A cache file name (from a model, or `--cache-file`) was refused because it would lead
    /// outside the cache directory or is not a plain file name.
    #[error("cache file name {name:?} refused: {reason}")]
    NameRefused {
        /// The name as given.
        name: String,
        /// Why it was refused.
        reason: String,
    },
    /// The file parsed, but replay refuses it: problems [`crate::check()`] finds of
    /// [`crate::Severity::Error`] (an unknown action, a point off the recorded screen, a
    /// malformed placeholder, a hash that is not one...). One line per problem, each
    /// `FILE: step N: FIELD: PROBLEM`, as `retrace cache check` prints them.
    #[error("{}", refused_lines(path, problems))]
    Refused {
        /// The file.
        path: PathBuf,
        /// Every problem replay refuses it for, in file order.
        problems: Vec<crate::problem::Problem>,
    },
    /// A trajectory uses `{{name}}` placeholders for which no value was given.
    #[error("missing values for parameters: {}", names.join(", "))]
    MissingParameters {
        /// The names without a value, sorted.
        names: Vec<String>,
    },
    /// Values were given for parameters the trajectory does not use.
    #[error("unknown parameters: {} (this trajectory uses: {})", names.join(", "), if known.is_empty() { "none".to_owned() } else { known.join(", ") })]
    UnknownParameters {
        /// The names given that the trajectory does not use, sorted.
        names: Vec<String>,
        /// The names the trajectory does use, sorted.
        known: Vec<String>,
    },
}

impl CacheError {
    /// An [`CacheError::Io`] for `path`.
    pub(crate) fn io(
        path: impl Into<PathBuf>,
        action: &'static str,
        source: std::io::Error,
    ) -> Self {
        CacheError::Io {
            path: path.into(),
            action,
            source,
        }
    }

    /// An [`CacheError::Invalid`] for `path` at JSON path `field`.
    pub(crate) fn invalid(
        path: impl Into<PathBuf>,
        field: impl Into<String>,
        message: impl Into<String>,
    ) -> Self {
        CacheError::Invalid {
            path: path.into(),
            field: field.into(),
            message: message.into(),
        }
    }
}

/// The lines of [`CacheError::Refused`].
fn refused_lines(path: &std::path::Path, problems: &[crate::problem::Problem]) -> String {
    problems
        .iter()
        .map(|problem| format!("{}: {problem}", path.display()))
        .collect::<Vec<_>>()
        .join("\n")
}

/// A `Result` with [`CacheError`].
pub type Result<T, E = CacheError> = std::result::Result<T, E>;
