//! [`SuiteError`]: why a suite could not start (exit 2): a suite file, a parameters file or a
//! trajectory that cannot be used, named with the file and, where there is one, the field.
//! Errors of one test never stop a suite: they become that test's `error` status.

use std::path::PathBuf;

/// Why a suite could not start.
#[derive(Debug, thiserror::Error)]
pub enum SuiteError {
    /// The suite file (or a parameters file) is malformed; the message names the field.
    #[error("{}: {message}", file.display())]
    Config {
        /// The file.
        file: PathBuf,
        /// What is wrong, with the field's path (`files[2].url`).
        message: String,
    },
    /// A path given on the command line does not exist or matches nothing.
    #[error("{0}")]
    NoSuchPath(String),
    /// A directory could not be listed, a file not read or written.
    #[error("{}: {source}", path.display())]
    Io {
        /// The path.
        path: PathBuf,
        /// What the file system said.
        #[source]
        source: std::io::Error,
    },
    /// A `--grep` or `--tag` filter is malformed.
    #[error("{0}")]
    Filter(String),
    /// A `--shard` or a CI's shard variables are malformed or out of range (named).
    #[error("{0}")]
    Shard(String),
    /// A parameter a test needs has no value, or a secret has a value where it must not.
    #[error("{0}")]
    Parameter(String),
}

impl SuiteError {
    /// An I/O error at `path`.
    pub fn io(path: impl Into<PathBuf>, source: std::io::Error) -> Self {
        SuiteError::Io {
            path: path.into(),
            source,
        }
    }

    /// A malformed field of `file`.
    pub fn config(file: impl Into<PathBuf>, message: impl Into<String>) -> Self {
        SuiteError::Config {
            file: file.into(),
            message: message.into(),
        }
    }
}
