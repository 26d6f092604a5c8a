//! A cache directory: list, read, write and update the cache files in it.
//!
//! Names given to the store (from a model, or a `--cache-file` option) are confined to the
//! directory ([`resolve_name`]). Functions that take a `&Path` ([`update_metadata_at`],
//! [`read_cache_file`](crate::read_cache_file)) read a path the user gave explicitly, as given.

use std::path::Path;
use std::path::PathBuf;

use jiff::Timestamp;
use serde_json::Map;
use serde_json::Value;

use crate::durable::FileLock;
use crate::durable::atomic_write;
use crate::error::CacheError;
use crate::error::Result;
use crate::json_text::JsonLayout;
use crate::json_text::to_askui_json;
use crate::model::CacheFile;
use crate::model::CacheMetadata;
use crate::names::EXTENSION;
use crate::names::generated_name;
use crate::names::resolve_name;
use crate::parse::DEFAULT_MAX_FILE_SIZE;
use crate::parse::check_file;
use crate::parse::from_value;
use crate::parse::parse_json;
use crate::parse::read_bytes;
use crate::parse::read_cache_file;
use crate::updates::MetadataUpdate;
use crate::updates::UpdateOutcome;
use crate::updates::apply_update;
use crate::updates::typed_metadata;
use crate::validators::Validators;

/// Indentation of a fresh recording (askui: `json.dump(indent=4)`).
pub const RECORDING_INDENT: usize = 4;

/// A directory of cache files.
#[derive(Debug, Clone)]
pub struct CacheStore {
    dir: PathBuf,
    max_file_size: u64,
}

/// One readable cache file found by [`CacheStore::list`].
#[derive(Debug, Clone)]
pub struct ListEntry {
    /// The file name (`login.json`).
    pub name: String,
    /// The full path.
    pub path: PathBuf,
    /// The file's content.
    pub file: CacheFile,
}

/// What [`CacheStore::list`] found.
#[derive(Debug)]
pub struct ListResult {
    /// Readable files, sorted by name (invalid ones only when asked for).
    pub entries: Vec<ListEntry>,
    /// How many readable but invalidated files were left out.
    pub hidden_invalid: usize,
    /// Files that could not be read, each with the reason. Not fatal to the listing.
    pub problems: Vec<CacheError>,
}

impl CacheStore {
    /// A store over `dir`, reading files up to [`DEFAULT_MAX_FILE_SIZE`].
    pub fn new(dir: impl Into<PathBuf>) -> Self {
        CacheStore {
            dir: dir.into(),
            max_file_size: DEFAULT_MAX_FILE_SIZE,
        }
    }

    /// The same store with another size limit for reading files, in bytes.
    pub fn with_max_file_size(mut self, bytes: u64) -> Self {
        self.max_file_size = bytes;
        self
    }

    /// The cache directory.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// The size limit for reading files, in bytes.
    pub fn max_file_size(&self) -> u64 {
        self.max_file_size
    }

    /// The path of cache file `name` inside the directory (see [`resolve_name`]).
    pub fn resolve(&self, name: &str) -> Result<PathBuf> {
        resolve_name(&self.dir, name)
    }

    /// Every top-level `*.json` file in the directory, sorted by name. Invalidated files are
    /// left out unless `include_invalid`; unreadable files are reported in
    /// [`ListResult::problems`]. A missing directory lists as empty.
    pub fn list(&self, include_invalid: bool) -> Result<ListResult> {
        let mut result = ListResult {
            entries: Vec::new(),
            hidden_invalid: 0,
            problems: Vec::new(),
        };
        let reader = match std::fs::read_dir(&self.dir) {
            Ok(reader) => reader,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(result),
            Err(e) => return Err(CacheError::io(&self.dir, "cannot list", e)),
        };
        let mut names = Vec::new();
        for entry in reader {
            let entry = entry.map_err(|e| CacheError::io(&self.dir, "cannot list", e))?;
            let Ok(name) = entry.file_name().into_string() else {
                continue; // Not UTF-8: cannot be a name we would resolve.
            };
            let is_json = Path::new(&name)
                .extension()
                .is_some_and(|ext| ext == EXTENSION);
            if is_json && !name.starts_with('.') {
                names.push(name);
            }
        }
        names.sort();
        for name in names {
            match self.read(&name) {
                Ok(file) if file.metadata.is_valid || include_invalid => {
                    let path = self.dir.join(&name);
                    result.entries.push(ListEntry { name, path, file });
                }
                Ok(_) => result.hidden_invalid += 1,
                Err(error) => result.problems.push(error),
            }
        }
        Ok(result)
    }

    /// Reads cache file `name` from the directory.
    pub fn read(&self, name: &str) -> Result<CacheFile> {
        read_cache_file(&self.resolve(name)?, self.max_file_size)
    }

    /// Writes `file` as cache file `name` (replacing any file of that name), atomically and
    /// under the file's lock, in askui's layout (indent 4, ASCII escapes). Returns the path.
    pub fn write(&self, name: &str, file: &CacheFile) -> Result<PathBuf> {
        let path = self.resolve(name)?;
        self.ensure_dir()?;
        let bytes = to_askui_json(&file.to_json(), RECORDING_INDENT)
            .map_err(|e| CacheError::invalid(&path, "(top level)", e.to_string()))?;
        let path = follow_symlink(&path)?;
        let _lock = FileLock::acquire(&path)?;
        atomic_write(&path, &bytes)?;
        Ok(path)
    }

    /// Writes `file` under a new generated name (`cached_trajectory_<UTC time>.json`) that
    /// no file in the directory has yet. Returns the path.
    pub fn write_new(&self, file: &CacheFile) -> Result<PathBuf> {
        self.ensure_dir()?;
        let mut at = crate::timestamp::now();
        loop {
            let path = self.resolve(&generated_name(at))?;
            let bytes = to_askui_json(&file.to_json(), RECORDING_INDENT)
                .map_err(|e| CacheError::invalid(&path, "(top level)", e.to_string()))?;
            let _lock = FileLock::acquire(&path)?;
            if std::fs::symlink_metadata(&path).is_err() {
                atomic_write(&path, &bytes)?;
                return Ok(path);
            }
            at = Timestamp::from_microsecond(at.as_microsecond() + 1).unwrap_or(at);
        }
    }

    /// Applies `update` to cache file `name` (see [`update_metadata_at`]).
    pub fn update(
        &self,
        name: &str,
        update: &MetadataUpdate,
        validators: &Validators,
    ) -> Result<UpdateOutcome> {
        update_file(&self.resolve(name)?, self.max_file_size, update, validators)
    }

    /// Runs `change` on the metadata JSON object of cache file `name` under its lock (see
    /// [`update_metadata_at`]).
    pub fn update_metadata<T>(
        &self,
        name: &str,
        change: impl FnOnce(&mut Map<String, Value>) -> std::result::Result<T, String>,
    ) -> Result<T> {
        update_metadata_at(&self.resolve(name)?, self.max_file_size, change)
    }

    fn ensure_dir(&self) -> Result<()> {
        std::fs::create_dir_all(&self.dir)
            .map_err(|e| CacheError::io(&self.dir, "cannot create the cache directory", e))
    }
}

/// Applies `update` to the cache file at `path` at the current time, under its lock.
pub fn update_file(
    path: &Path,
    max_size: u64,
    update: &MetadataUpdate,
    validators: &Validators,
) -> Result<UpdateOutcome> {
    let now = crate::timestamp::now();
    let mut invalidated = None;
    let metadata = update_metadata_at(path, max_size, |meta| {
        invalidated = apply_update(meta, update, validators, now)?;
        typed_metadata(meta)
    })?;
    Ok(UpdateOutcome {
        invalidated,
        metadata,
    })
}

/// Read-modify-write of the metadata of the cache file at `path`: takes the file's exclusive
/// lock, reads and checks the file inside the lock, runs `change` on the `metadata` JSON
/// object, checks the result still parses, and writes the file back atomically in its own
/// layout (indent, escapes, final newline: [`JsonLayout`]), so a diff of the file shows the
/// metadata lines that changed and no others. Every field `change` does not touch, unknown
/// ones included, is kept.
/// A legacy bare list is converted to the object layout first (metadata as askui reads it).
/// An `Err` from `change` aborts the update and leaves the file untouched.
pub fn update_metadata_at<T>(
    path: &Path,
    max_size: u64,
    change: impl FnOnce(&mut Map<String, Value>) -> std::result::Result<T, String>,
) -> Result<T> {
    let path = &follow_symlink(path)?;
    // Refuse a missing or wrong file before creating its lock file.
    check_file(path, max_size)?;
    let _lock = FileLock::acquire(path)?;
    let bytes = read_bytes(path, max_size)?;
    let mut value = parse_json(path, &bytes)?;
    let now = crate::timestamp::now();
    from_value(path, &value, now)?;
    if value.is_array() {
        value = legacy_to_object(value, now);
    }
    let Some(Value::Object(metadata)) = value.get_mut("metadata") else {
        return Err(CacheError::invalid(path, "metadata", "expected an object"));
    };
    let result =
        change(metadata).map_err(|message| CacheError::invalid(path, "metadata", message))?;
    from_value(path, &value, now)?;
    let bytes = JsonLayout::of(&bytes)
        .write(&value)
        .map_err(|e| CacheError::invalid(path, "(top level)", e.to_string()))?;
    atomic_write(path, &bytes)?;
    Ok(result)
}

/// The file a symlink at `path` points to (so a rewrite replaces the file, not the link);
/// `path` itself when it is not a symlink or does not exist yet.
fn follow_symlink(path: &Path) -> Result<PathBuf> {
    match std::fs::symlink_metadata(path) {
        Ok(meta) if meta.file_type().is_symlink() => path
            .canonicalize()
            .map_err(|e| CacheError::io(path, "cannot resolve the symlink", e)),
        _ => Ok(path.to_owned()),
    }
}

/// A legacy bare list as an object-layout value, its steps kept as they were.
fn legacy_to_object(list: Value, read_at: Timestamp) -> Value {
    let metadata = serde_json::to_value(CacheMetadata::legacy(read_at)).unwrap_or(Value::Null);
    let mut top = Map::new();
    top.insert("metadata".to_owned(), metadata);
    top.insert("trajectory".to_owned(), list);
    top.insert("cache_parameters".to_owned(), Value::Object(Map::new()));
    Value::Object(top)
}
