//! [`LocalStore`]: a store in a directory, with the guarantees the cache directory has always
//! had: a write goes to a temporary file that is renamed into place, and a conditional
//! replacement holds the key's sidecar lock (`.<name>.lock`) while it compares and writes, so
//! processes on one machine never lose an update.
//!
//! A revision here is the FNV-1a hash of the bytes (a file has no ETag); callers that could
//! write the same bytes twice carry a counter in them, as [`super::Store::update_json`] does.
//! Creation links a finished temporary file to the key's name, which fails when the name
//! exists, so a created file is never seen half-written.

use std::path::Path;
use std::path::PathBuf;

use super::error::StoreError;
use super::key::Key;
use super::revision::Revision;
use super::revision::Stored;

/// A directory holding a store's keys as files.
#[derive(Debug, Clone)]
pub struct LocalStore {
    root: PathBuf,
}

impl LocalStore {
    /// The store rooted at `root` (created on the first write).
    pub fn new(root: impl Into<PathBuf>) -> Self {
        LocalStore { root: root.into() }
    }

    /// The directory.
    pub fn root(&self) -> &Path {
        &self.root
    }

    /// The file of `key`.
    pub fn path_of(&self, key: &Key) -> PathBuf {
        key.as_str()
            .split('/')
            .fold(self.root.clone(), |path, part| path.join(part))
    }

    fn name(&self) -> String {
        self.root.display().to_string()
    }

    fn error(&self, key: &Key, error: impl ToString) -> StoreError {
        StoreError::backend(&self.name(), key.as_str(), error)
    }

    /// The bytes and revision of `key`, `None` when it does not exist.
    pub fn get(&self, key: &Key) -> Result<Option<Stored>, StoreError> {
        match std::fs::read(self.path_of(key)) {
            Ok(bytes) => Ok(Some(Stored {
                revision: Revision::of_bytes(&bytes),
                bytes,
            })),
            Err(error) if error.kind() == std::io::ErrorKind::NotFound => Ok(None),
            Err(error) => Err(self.error(key, error)),
        }
    }

    /// Every key under `prefix` (all keys for `None`), sorted. Lock and temporary files are
    /// not keys.
    pub fn list(&self, prefix: Option<&Key>) -> Result<Vec<Key>, StoreError> {
        let start = prefix.map_or_else(|| self.root.clone(), |key| self.path_of(key));
        let mut keys = Vec::new();
        let mut pending = vec![start];
        while let Some(dir) = pending.pop() {
            let reader = match std::fs::read_dir(&dir) {
                Ok(reader) => reader,
                Err(error) if error.kind() == std::io::ErrorKind::NotFound => continue,
                Err(error) => {
                    return Err(StoreError::backend(
                        &self.name(),
                        &dir.display().to_string(),
                        error,
                    ));
                }
            };
            for entry in reader {
                let entry = entry.map_err(|e| {
                    StoreError::backend(&self.name(), &dir.display().to_string(), e)
                })?;
                let path = entry.path();
                let Ok(name) = entry.file_name().into_string() else {
                    continue; // Not UTF-8: cannot be a key.
                };
                if path.is_dir() {
                    pending.push(path);
                } else if !is_bookkeeping(&name)
                    && let Some(key) = self.key_of(&path)
                {
                    keys.push(key);
                }
            }
        }
        keys.sort();
        Ok(keys)
    }

    fn key_of(&self, path: &Path) -> Option<Key> {
        let relative = path.strip_prefix(&self.root).ok()?;
        let parts: Option<Vec<&str>> = relative.iter().map(|part| part.to_str()).collect();
        Key::new(&parts?.join("/")).ok()
    }

    /// Writes `key` only if it does not exist yet.
    pub fn put_create(&self, key: &Key, bytes: &[u8]) -> Result<Revision, StoreError> {
        let path = self.path_of(key);
        let dir = self.parent_of(&path);
        std::fs::create_dir_all(&dir).map_err(|e| self.error(key, e))?;
        match retrace_files::write_new_atomic(&path, bytes) {
            Ok(()) => Ok(Revision::of_bytes(bytes)),
            Err(error) if error.kind() == std::io::ErrorKind::AlreadyExists => {
                Err(StoreError::AlreadyExists {
                    store: self.name(),
                    key: key.to_string(),
                })
            }
            Err(error) => Err(self.error(key, error)),
        }
    }

    /// Replaces `key` only if its content is still at `expected`, under the key's lock.
    pub fn put_if_match(
        &self,
        key: &Key,
        bytes: &[u8],
        expected: &Revision,
    ) -> Result<Revision, StoreError> {
        let path = self.path_of(key);
        std::fs::create_dir_all(self.parent_of(&path)).map_err(|e| self.error(key, e))?;
        let _lock = retrace_cache::FileLock::acquire(&path).map_err(|e| self.error(key, e))?;
        let current = self.get(key)?;
        if current.as_ref().map(|stored| &stored.revision) != Some(expected) {
            return Err(StoreError::Changed {
                store: self.name(),
                key: key.to_string(),
            });
        }
        retrace_cache::atomic_write(&path, bytes).map_err(|e| self.error(key, e))?;
        Ok(Revision::of_bytes(bytes))
    }

    fn parent_of(&self, path: &Path) -> PathBuf {
        path.parent()
            .map_or_else(|| self.root.clone(), Path::to_path_buf)
    }
}

/// Lock sidecars and temporary files of atomic writes: hidden files ending in `.lock` or
/// `.tmp`.
fn is_bookkeeping(name: &str) -> bool {
    name.starts_with('.') && (name.ends_with(".lock") || name.ends_with(".tmp"))
}
