//! Crash-safe writes and the exclusive lock that serializes writers.
//!
//! A write goes to a temporary file in the same directory, is flushed to disk, renamed over
//! the target, and the directory is flushed: a crash at any point leaves either the old file
//! or the new one, never a mix. Because the rename replaces the file's inode, the lock is
//! taken on a separate, hidden sidecar file (`.<name>.lock`) that is never replaced.

use std::fs::File;
use std::fs::OpenOptions;
use std::path::Path;
use std::path::PathBuf;

use crate::error::CacheError;
use crate::error::Result;

/// An exclusive lock on one cache file, held until dropped. Other processes (and other
/// handles in this process) that lock the same file wait.
#[derive(Debug)]
pub struct FileLock {
    file: File,
    path: PathBuf,
}

impl FileLock {
    /// Blocks until the exclusive lock for the cache file at `path` is held.
    pub fn acquire(path: &Path) -> Result<FileLock> {
        let lock_path = lock_path(path)?;
        let file = OpenOptions::new()
            .create(true)
            .truncate(false)
            .read(true)
            .write(true)
            .open(&lock_path)
            .map_err(|e| CacheError::io(&lock_path, "cannot open the lock file", e))?;
        file.lock()
            .map_err(|e| CacheError::io(&lock_path, "cannot lock", e))?;
        Ok(FileLock {
            file,
            path: lock_path,
        })
    }

    /// The sidecar file the lock is held on.
    pub fn path(&self) -> &Path {
        &self.path
    }
}

impl Drop for FileLock {
    fn drop(&mut self) {
        // Closing the file releases the lock as well; unlocking first makes it prompt.
        let _ = self.file.unlock();
    }
}

/// The hidden sidecar lock file for the cache file at `path`: `.<file name>.lock`.
fn lock_path(path: &Path) -> Result<PathBuf> {
    let name = path.file_name().ok_or_else(|| {
        CacheError::io(
            path,
            "cannot lock",
            std::io::Error::new(
                std::io::ErrorKind::InvalidInput,
                "the path has no file name",
            ),
        )
    })?;
    let mut lock_name = std::ffi::OsString::from(".");
    lock_name.push(name);
    lock_name.push(".lock");
    Ok(parent_dir(path).join(lock_name))
}

/// The directory holding `path` (`.` for a bare file name).
fn parent_dir(path: &Path) -> &Path {
    match path.parent() {
        Some(parent) if !parent.as_os_str().is_empty() => parent,
        _ => Path::new("."),
    }
}

/// Writes `bytes` to `path` atomically ([`retrace_files::write_atomic`]: a temporary file in
/// the same directory, flushed, renamed over `path`). An existing file keeps its permissions;
/// a new one gets 0644. Callers that read-modify-write hold a [`FileLock`] around this.
pub fn atomic_write(path: &Path, bytes: &[u8]) -> Result<()> {
    retrace_files::write_atomic(path, bytes).map_err(|e| CacheError::io(path, "cannot write", e))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn replaces_content_and_keeps_permissions() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("a.json");
        atomic_write(&path, b"one").unwrap();
        assert_eq!(std::fs::read(&path).unwrap(), b"one");
        assert_eq!(
            std::fs::metadata(&path).unwrap().permissions().mode() & 0o777,
            0o644
        );
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o600)).unwrap();
        atomic_write(&path, b"two").unwrap();
        assert_eq!(std::fs::read(&path).unwrap(), b"two");
        assert_eq!(
            std::fs::metadata(&path).unwrap().permissions().mode() & 0o777,
            0o600
        );
        let leftovers: Vec<_> = std::fs::read_dir(dir.path())
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .filter(|n| n.to_string_lossy().ends_with(".tmp"))
            .collect();
        assert!(leftovers.is_empty(), "{leftovers:?}");
    }

    #[test]
    fn lock_is_a_hidden_sidecar_and_exclusive() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("a.json");
        let lock = FileLock::acquire(&path).unwrap();
        assert_eq!(lock.path(), dir.path().join(".a.json.lock"));
        let other = File::open(lock.path()).unwrap();
        assert!(
            other.try_lock().is_err(),
            "a second lock must not be granted"
        );
        drop(lock);
        assert!(other.try_lock().is_ok());
    }
}
