//! Writing a recording into a [`CacheStore`]: a new file ([`record`]), or one in place of an
//! earlier recording that is kept beside it, marked invalid ([`record_repaired`] after a
//! model's repair, [`record_replacing`] for any other reason, such as `retrace approve`).

use std::path::PathBuf;

use retrace_cache::CacheFile;
use retrace_cache::CacheStore;
use retrace_cache::MetadataUpdate;
use retrace_cache::Validators;

use super::error::RecordError;

/// Writes `file` to `store` as `name`, or under a generated name when `None`. Returns the
/// path written.
pub fn record(
    store: &CacheStore,
    name: Option<&str>,
    file: &CacheFile,
) -> Result<PathBuf, RecordError> {
    Ok(match name {
        Some(name) => store.write(name, file)?,
        None => store.write_new(file)?,
    })
}

/// What [`record_repaired`] wrote.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RepairedRecord {
    /// The repaired recording.
    pub path: PathBuf,
    /// Where the file it replaced was kept (`<name>.previous-<time>.json`), when there was one.
    pub previous: Option<PathBuf>,
}

/// Writes the trajectory of a run the model had to repair as `name`, keeping the file it
/// replaces beside it as `<name>.previous-<UTC time>.json`. The kept copy is marked invalid
/// (so listings and the model do not offer it) with a reason naming the new file.
pub fn record_repaired(
    store: &CacheStore,
    name: &str,
    file: &CacheFile,
) -> Result<RepairedRecord, RecordError> {
    record_replacing(store, name, file, "repaired")
}

/// Writes `file` as `name` in place of the recording there, keeping that one beside it as
/// `<name>.previous-<UTC time>.json`, marked invalid with the reason `replaced by the <how>
/// recording <name>` (`repaired` after a model's repair, `approved` by `retrace approve`).
pub fn record_replacing(
    store: &CacheStore,
    name: &str,
    file: &CacheFile,
    how: &str,
) -> Result<RepairedRecord, RecordError> {
    let path = store.resolve(name)?;
    let previous = if path.exists() {
        let stem = path
            .file_stem()
            .and_then(|s| s.to_str())
            .unwrap_or("trajectory")
            .to_owned();
        let at = jiff::Timestamp::now()
            .strftime("%Y%m%dT%H%M%S%6fZ")
            .to_string();
        let previous_name = format!("{stem}.previous-{at}.json");
        let previous_path = store.resolve(&previous_name)?;
        retrace_files::copy_atomic(&path, &previous_path).map_err(|source| {
            RecordError::KeepPrevious {
                path: previous_path.clone(),
                source,
            }
        })?;
        let file_name = path
            .file_name()
            .and_then(|s| s.to_str())
            .unwrap_or(name)
            .to_owned();
        store.update(
            &previous_name,
            &MetadataUpdate::Invalidate {
                reason: format!("replaced by the {how} recording {file_name}"),
            },
            &Validators::none(),
        )?;
        Some(previous_path)
    } else {
        None
    };
    let path = store.write(name, file)?;
    Ok(RepairedRecord { path, previous })
}
