//! Cache file names: confining names that come from a model (or a `--cache-file` option) to
//! the cache directory, and generating new names the way askui does.
//!
//! A name is a plain file name: no directories, no `..`, not absolute. `.json` is appended
//! when missing. A name that exists as a symlink must point inside the directory.

use std::path::Component;
use std::path::Path;
use std::path::PathBuf;

use jiff::Timestamp;
use jiff::tz::TimeZone;

use crate::error::CacheError;
use crate::error::Result;

/// The extension every cache file has.
pub const EXTENSION: &str = "json";

/// Resolves a cache file `name` inside `dir`, refusing anything that could lead elsewhere.
///
/// ```
/// # let dir = tempfile::tempdir().unwrap();
/// let path = retrace_cache::resolve_name(dir.path(), "login").unwrap();
/// assert_eq!(path, dir.path().join("login.json"));
/// assert!(retrace_cache::resolve_name(dir.path(), "../x.json").is_err());
/// ```
pub fn resolve_name(dir: &Path, name: &str) -> Result<PathBuf> {
    let refuse = |reason: String| CacheError::NameRefused {
        name: name.to_owned(),
        reason,
    };
    if name.trim().is_empty() {
        return Err(refuse("the name is empty".to_owned()));
    }
    if name.contains('\0') {
        return Err(refuse("the name contains a NUL character".to_owned()));
    }
    let as_path = Path::new(name);
    if as_path.is_absolute() || name.starts_with('/') || name.starts_with('\\') {
        return Err(refuse(format!(
            "absolute paths are not allowed; give a file name inside the cache directory {}",
            dir.display()
        )));
    }
    if as_path.components().any(|c| c == Component::ParentDir)
        || name.split(['/', '\\']).any(|p| p == "..")
    {
        return Err(refuse(format!(
            "`..` would lead out of the cache directory {}",
            dir.display()
        )));
    }
    if name.contains('/') || name.contains('\\') {
        return Err(refuse(format!(
            "subdirectories are not allowed; give a plain file name inside the cache directory {}",
            dir.display()
        )));
    }
    if name == "." || name.starts_with('.') && name.trim_start_matches('.').is_empty() {
        return Err(refuse("the name is not a file name".to_owned()));
    }
    let file_name = with_extension(name);
    let path = dir.join(&file_name);
    check_symlink(dir, &path, name)?;
    Ok(path)
}

/// `name` with `.json` appended unless it already ends in `.json`.
fn with_extension(name: &str) -> String {
    let has_json = Path::new(name)
        .extension()
        .is_some_and(|ext| ext.eq_ignore_ascii_case(EXTENSION));
    if has_json {
        name.to_owned()
    } else {
        format!("{name}.{EXTENSION}")
    }
}

/// Refuses `path` if it is a symlink whose target lies outside `dir`.
fn check_symlink(dir: &Path, path: &Path, name: &str) -> Result<()> {
    let Ok(meta) = std::fs::symlink_metadata(path) else {
        return Ok(()); // Does not exist yet: a plain name in `dir` is fine.
    };
    if !meta.file_type().is_symlink() {
        return Ok(());
    }
    let canonical_dir = dir
        .canonicalize()
        .map_err(|e| CacheError::io(dir, "cannot resolve the cache directory", e))?;
    let target = match path.canonicalize() {
        Ok(target) => target,
        Err(_) => {
            let link = std::fs::read_link(path).unwrap_or_default();
            return Err(CacheError::NameRefused {
                name: name.to_owned(),
                reason: format!(
                    "it is a symlink to {}, which does not exist or cannot be resolved",
                    link.display()
                ),
            });
        }
    };
    if target.parent() == Some(canonical_dir.as_path()) {
        return Ok(());
    }
    Err(CacheError::NameRefused {
        name: name.to_owned(),
        reason: format!(
            "it is a symlink that leads outside the cache directory {} (to {})",
            canonical_dir.display(),
            target.display()
        ),
    })
}

/// A new cache file name for a recording made at `at`, as askui generates them:
/// `cached_trajectory_YYYYMMDDHHMMSSffffff.json` (UTC, microseconds).
///
/// ```
/// let at: jiff::Timestamp = "2026-11-21T23:24:20.485424Z".parse().unwrap();
/// assert_eq!(retrace_cache::generated_name(at), "cached_trajectory_20261121232420485424.json");
/// ```
pub fn generated_name(at: Timestamp) -> String {
    let utc = at.to_zoned(TimeZone::UTC);
    let micros = utc.subsec_nanosecond() / 1_000;
    format!(
        "cached_trajectory_{}{micros:06}.{EXTENSION}",
        utc.strftime("%Y%m%d%H%M%S")
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn appends_json_and_keeps_it() {
        let dir = tempfile::tempdir().unwrap();
        assert_eq!(
            resolve_name(dir.path(), "a").unwrap(),
            dir.path().join("a.json")
        );
        assert_eq!(
            resolve_name(dir.path(), "a.json").unwrap(),
            dir.path().join("a.json")
        );
        assert_eq!(
            resolve_name(dir.path(), "a.b").unwrap(),
            dir.path().join("a.b.json")
        );
    }

    #[test]
    fn refuses_escapes_with_a_reason() {
        let dir = tempfile::tempdir().unwrap();
        let cases = [
            ("../x.json", "`..`"),
            ("..", "`..`"),
            ("a/../../x", "`..`"),
            ("/etc/passwd", "absolute"),
            ("sub/x.json", "subdirectories"),
            ("", "empty"),
            ("a\0b", "NUL"),
        ];
        for (name, reason) in cases {
            let error = resolve_name(dir.path(), name).unwrap_err().to_string();
            assert!(error.contains(reason), "{name:?}: {error}");
        }
    }

    #[test]
    fn symlinks_must_stay_inside() {
        let outside = tempfile::tempdir().unwrap();
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(outside.path().join("secret.json"), "{}").unwrap();
        std::fs::write(dir.path().join("real.json"), "{}").unwrap();
        std::os::unix::fs::symlink(
            outside.path().join("secret.json"),
            dir.path().join("out.json"),
        )
        .unwrap();
        std::os::unix::fs::symlink(dir.path().join("real.json"), dir.path().join("in.json"))
            .unwrap();
        let error = resolve_name(dir.path(), "out").unwrap_err().to_string();
        assert!(error.contains("symlink that leads outside"), "{error}");
        assert_eq!(
            resolve_name(dir.path(), "in").unwrap(),
            dir.path().join("in.json")
        );
    }

    #[test]
    fn generated_names_pad_microseconds() {
        let at: Timestamp = "2026-01-02T03:04:05.000007Z".parse().unwrap();
        assert_eq!(
            generated_name(at),
            "cached_trajectory_20260102030405000007.json"
        );
    }
}
