//! Finding a suite's trajectory files: [`discover`] turns the paths of `retrace run [PATHS...]`
//! (files, folders, globs) into a sorted, de-duplicated list.
//!
//! - A file named on the command line is always a test, whatever its name.
//! - A folder is walked recursively for `*.json`, skipping hidden folders (`.retrace_state/`,
//!   `.git/`) below it and the copies a repair keeps (`<name>.previous-<time>.json`).
//! - A glob (`flows/**/*.json`) is matched below its literal prefix with the same skips.
//!
//! A JSON file found in a folder or by a glob is a test when it *looks like* a trajectory:
//! a bare list (askui's legacy layout) or an object with a `trajectory` field. Anything else
//! (`package.json`, a report) is clearly not one and is left out silently. A file that looks
//! like a trajectory, or cannot be read or parsed at all, is a test: one that does not read
//! as a trajectory is that test's error (named by [`super::plan`], with the line and column
//! or the field), and the rest of the suite runs. A broken test must never vanish from a
//! suite, nor stop it.
//!
//! Order is deterministic: paths sorted byte-wise, so every run and every shard agree.

use std::path::Path;
use std::path::PathBuf;

use globset::Glob;
use globset::GlobMatcher;

use super::error::SuiteError;

/// The folder searched when no path is given.
pub const DEFAULT_SUITE_DIR: &str = ".retrace_cache";

/// The trajectory files `paths` name, sorted and without duplicates.
pub fn discover(paths: &[PathBuf]) -> Result<Vec<PathBuf>, SuiteError> {
    let default = [PathBuf::from(DEFAULT_SUITE_DIR)];
    let paths = if paths.is_empty() {
        &default[..]
    } else {
        paths
    };
    let mut found = Vec::new();
    for path in paths {
        let text = path.to_string_lossy();
        if is_glob(&text) {
            let matched = expand_glob(&text)?;
            if matched.is_empty() {
                return Err(SuiteError::NoSuchPath(format!(
                    "`{text}` matches no trajectory file"
                )));
            }
            found.extend(matched);
        } else if path.is_dir() {
            walk(path, &mut |file| {
                if looks_like_trajectory(file) {
                    found.push(file.to_owned());
                }
                Ok(())
            })?;
        } else if path.is_file() {
            found.push(path.clone());
        } else {
            return Err(SuiteError::NoSuchPath(format!(
                "{} does not exist (give trajectory files, folders or globs)",
                path.display()
            )));
        }
    }
    found.sort();
    found.dedup();
    Ok(found)
}

/// Whether `text` holds glob syntax.
pub fn is_glob(text: &str) -> bool {
    text.contains(['*', '?', '[', '{'])
}

fn expand_glob(pattern: &str) -> Result<Vec<PathBuf>, SuiteError> {
    let matcher = glob_matcher(pattern)?;
    let base = literal_prefix(pattern);
    let mut found = Vec::new();
    if !base.is_dir() {
        return Ok(found);
    }
    walk(&base, &mut |file| {
        if matcher.is_match(file) && looks_like_trajectory(file) {
            found.push(file.to_owned());
        }
        Ok(())
    })?;
    Ok(found)
}

/// A matcher for `pattern` where `*` stays within one path component and `**` crosses them.
pub fn glob_matcher(pattern: &str) -> Result<GlobMatcher, SuiteError> {
    globset::GlobBuilder::new(pattern)
        .literal_separator(true)
        .build()
        .map(|glob: Glob| glob.compile_matcher())
        .map_err(|error| {
            SuiteError::NoSuchPath(format!("`{pattern}` is not a valid glob: {error}"))
        })
}

/// The folders of `pattern` before its first component with glob syntax (`.` when none).
fn literal_prefix(pattern: &str) -> PathBuf {
    let mut base = PathBuf::new();
    for component in Path::new(pattern).components() {
        if is_glob(&component.as_os_str().to_string_lossy()) {
            break;
        }
        base.push(component);
    }
    if base.as_os_str().is_empty() {
        PathBuf::from(".")
    } else {
        base
    }
}

/// Calls `visit` on every `*.json` file below `dir`, skipping hidden folders and the copies a
/// repair keeps. Entries are visited in sorted order.
fn walk(
    dir: &Path,
    visit: &mut dyn FnMut(&Path) -> Result<(), SuiteError>,
) -> Result<(), SuiteError> {
    let entries = std::fs::read_dir(dir).map_err(|source| SuiteError::io(dir, source))?;
    let mut paths: Vec<PathBuf> = Vec::new();
    for entry in entries {
        paths.push(entry.map_err(|source| SuiteError::io(dir, source))?.path());
    }
    paths.sort();
    for path in paths {
        let name = path
            .file_name()
            .map(|name| name.to_string_lossy().into_owned())
            .unwrap_or_default();
        if path.is_dir() {
            if !name.starts_with('.') {
                walk(&path, visit)?;
            }
        } else if name.ends_with(".json") && !name.contains(".previous-") {
            visit(&path)?;
        }
    }
    Ok(())
}

/// Whether the JSON file at `path` is meant as a trajectory (see the module docs): a file
/// that cannot be read, or is not JSON, is counted as one (a damaged trajectory, most
/// likely), so its test reports why.
fn looks_like_trajectory(path: &Path) -> bool {
    let Ok(bytes) = retrace_cache::read_bytes(path, retrace_cache::DEFAULT_MAX_FILE_SIZE) else {
        return true;
    };
    match retrace_cache::parse_json(path, &bytes) {
        Ok(serde_json::Value::Array(_)) | Err(_) => true,
        Ok(serde_json::Value::Object(object)) => object.contains_key("trajectory"),
        Ok(_) => false,
    }
}

#[cfg(test)]
#[path = "discover_tests.rs"]
mod tests;
