//! `retrace cache invalidate` and `retrace cache revalidate`: change only `is_valid` and
//! `invalidation_reason`, under the file's lock, keeping every other field as it was.

use std::path::Path;

use retrace_cache::DEFAULT_MAX_FILE_SIZE;
use retrace_cache::MetadataUpdate;
use retrace_cache::Validators;
use retrace_cache::update_file;

use crate::failure::Failure;

/// A file's validity after the change.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Validity {
    /// Whether it is valid.
    pub is_valid: bool,
    /// Why it is not, when it is not.
    pub invalidation_reason: Option<String>,
}

/// Marks the file invalid for `reason`.
pub fn invalidate(path: &Path, reason: &str) -> Result<Validity, Failure> {
    apply(
        path,
        &MetadataUpdate::Invalidate {
            reason: reason.to_owned(),
        },
    )
}

/// Marks the file valid again and clears its invalidation reason.
pub fn revalidate(path: &Path) -> Result<Validity, Failure> {
    apply(path, &MetadataUpdate::Revalidate)
}

fn apply(path: &Path, update: &MetadataUpdate) -> Result<Validity, Failure> {
    let outcome = update_file(path, DEFAULT_MAX_FILE_SIZE, update, &Validators::none())
        .map_err(Failure::of)?;
    Ok(Validity {
        is_valid: outcome.metadata.is_valid,
        invalidation_reason: outcome.metadata.invalidation_reason,
    })
}
