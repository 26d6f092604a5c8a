//! Whole-file writes: a temporary file beside the target, flushed, renamed over it, and the
//! folder flushed.

use std::fs::File;
use std::io::Write;
use std::path::Path;

/// The folder holding `path` (`.` for a bare file name).
fn parent_dir(path: &Path) -> &Path {
    match path.parent() {
        Some(parent) if !parent.as_os_str().is_empty() => parent,
        _ => Path::new("."),
    }
}

/// `error` with what was being done in front of its text, its kind kept. The temporary
/// file's path, which tempfile adds to its errors (`... at path "/out/.x.tmp"`), is left out:
/// `what` names the folder, and the temporary file is gone by the time anyone reads this.
pub(crate) fn context(what: String) -> impl FnOnce(std::io::Error) -> std::io::Error {
    move |error| {
        let text = error.to_string();
        let cause = text
            .split_once(" at path \"")
            .map_or(text.as_str(), |(cause, _)| cause);
        std::io::Error::new(error.kind(), format!("{what}: {cause}"))
    }
}

/// A new temporary file beside `path`, with the permissions `path` has (0644 for a new file).
pub(crate) fn temporary_beside(path: &Path) -> std::io::Result<tempfile::NamedTempFile> {
    let dir = parent_dir(path);
    let name = path
        .file_name()
        .map(|name| name.to_string_lossy().into_owned())
        .unwrap_or_default();
    let temp = tempfile::Builder::new()
        .prefix(&format!(".{name}."))
        .suffix(".tmp")
        .tempfile_in(dir)
        .map_err(context(format!(
            "cannot create a temporary file in {}",
            dir.display()
        )))?;
    let permissions = match std::fs::metadata(path) {
        Ok(meta) => temp.as_file().set_permissions(meta.permissions()),
        Err(_) => set_new_file_permissions(temp.as_file()),
    };
    permissions.map_err(context(format!(
        "cannot set the permissions of {}",
        temp.path().display()
    )))?;
    Ok(temp)
}

/// Flushes `temp` to disk and renames it to `path`, then flushes the folder.
fn commit(temp: tempfile::NamedTempFile, path: &Path) -> std::io::Result<()> {
    temp.as_file().sync_all().map_err(context(format!(
        "cannot flush {} to disk",
        temp.path().display()
    )))?;
    temp.persist(path).map_err(|error| {
        context(format!(
            "cannot rename a temporary file to {}",
            path.display()
        ))(error.error)
    })?;
    sync_dir(parent_dir(path))
}

/// Flushes a folder's entries (a rename) to disk.
fn sync_dir(dir: &Path) -> std::io::Result<()> {
    let handle = File::open(dir).map_err(context(format!("cannot open {}", dir.display())))?;
    handle.sync_all().map_err(context(format!(
        "cannot flush the folder {} to disk",
        dir.display()
    )))
}

/// Writes `bytes` as the file at `path`, whole: to a temporary file in the same folder,
/// flushed, then renamed over `path`. An existing file keeps its permissions; a new one gets
/// 0644. On failure `path` is as it was and the temporary file is gone.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    commit(temporary_holding(path, bytes)?, path)
}

/// A temporary file beside `path` holding `bytes`, not yet flushed nor renamed.
fn temporary_holding(path: &Path, bytes: &[u8]) -> std::io::Result<tempfile::NamedTempFile> {
    let mut temp = temporary_beside(path)?;
    temp.write_all(bytes).map_err(context(format!(
        "cannot write {} bytes to {}",
        bytes.len(),
        temp.path().display()
    )))?;
    Ok(temp)
}

/// Writes `bytes` as a new file at `path`, whole, only if there is no file there yet; an
/// error of kind [`std::io::ErrorKind::AlreadyExists`] (and `path` untouched) when there is.
pub fn write_new_atomic(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    let temp = temporary_holding(path, bytes)?;
    temp.as_file().sync_all().map_err(context(format!(
        "cannot flush {} to disk",
        temp.path().display()
    )))?;
    temp.persist_noclobber(path).map_err(|error| {
        context(format!(
            "cannot rename a temporary file to {}",
            path.display()
        ))(error.error)
    })?;
    sync_dir(parent_dir(path))
}

/// Copies the file at `from` to `to` with [`write_atomic`]; the bytes copied.
pub fn copy_atomic(from: &Path, to: &Path) -> std::io::Result<u64> {
    let bytes = std::fs::read(from).map_err(context(format!("cannot read {}", from.display())))?;
    write_atomic(to, &bytes)?;
    Ok(bytes.len() as u64)
}

/// Gives a new file ordinary permissions (0644) instead of the temporary file's 0600.
#[cfg(unix)]
fn set_new_file_permissions(file: &File) -> std::io::Result<()> {
    use std::os::unix::fs::PermissionsExt;
    file.set_permissions(std::fs::Permissions::from_mode(0o644))
}

/// Off Unix a temporary file's default permissions are already ordinary ones.
#[cfg(not(unix))]
fn set_new_file_permissions(_file: &File) -> std::io::Result<()> {
    Ok(())
}
