//! Why a report could not be written or read.

use std::path::Path;
use std::path::PathBuf;

use super::kind::ReportKind;

/// Why a report could not be written or read.
#[derive(Debug, thiserror::Error)]
pub enum ReportError {
    /// A file could not be written or read.
    #[error("{}: {source}", path.display())]
    Io {
        /// The file.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// A `report.json` is not a suite report.
    #[error("{}: not a retrace suite report: {message}", path.display())]
    BadReport {
        /// The file.
        path: PathBuf,
        /// What is wrong, naming the field.
        message: String,
    },
    /// A `report.json` of a version this retrace does not read.
    #[error(
        "{}: suite report version {found}, this retrace reads version {supported} (written by another retrace: merge with the same version that wrote it)",
        path.display()
    )]
    UnknownVersion {
        /// The file.
        path: PathBuf,
        /// Its version.
        found: u64,
        /// The version read here.
        supported: u32,
    },
    /// The report could not be rendered (a bug: the data always fits its template).
    #[error("could not render the {kind} report: {message}")]
    Render {
        /// Which report.
        kind: ReportKind,
        /// Why.
        message: String,
    },
}

impl ReportError {
    pub(crate) fn io(path: &Path) -> impl FnOnce(std::io::Error) -> ReportError + '_ {
        move |source| ReportError::Io {
            path: path.to_owned(),
            source,
        }
    }
}

/// Writes `bytes` to a temporary file beside `path`, flushes it to disk, and renames it over
/// `path`: readers see the old file or the new one, never part of one.
///
/// # Errors
/// The file could not be written or renamed (the temporary file is removed).
pub fn write_atomically(path: &Path, bytes: &[u8]) -> Result<(), ReportError> {
    retrace_files::write_atomic(path, bytes).map_err(ReportError::io(path))
}
