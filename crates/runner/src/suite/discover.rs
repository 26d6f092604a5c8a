//! Finding a suite's trajectory files: [`discover`] turns the paths of `retrace run [PATHS...]`
//! (files, folders, globs) into a sorted, de-duplicated list.
//!
//! - A file named on the command line is always a test, whatever its name, and must read as a
//!   trajectory.
//! - A folder is walked recursively for `*.json`, skipping hidden folders (`.retrace_state/`,
//!   `.git/`) below it and the copies a repair keeps (`<name>.previous-<time>.json`).
//! - A glob (`flows/**/*.json`) is matched below its literal prefix with the same skips.
//!
//! A JSON file found in a folder or by a glob is a test when it *looks like* a trajectory:
//! a bare list (askui's legacy layout) or an object with a `trajectory` field. Anything else
//! (`package.json`, a report) is clearly not one and is left out silently. A file that looks
//! like a trajectory but does not read as one is an error naming the file: a broken test must
//! never vanish from a suite.
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
                if looks_like_trajectory(file)? {
                    found.push(file.to_owned());
                }
                Ok(())
            })?;
        } else if path.is_file() {
            check_trajectory(path)?;
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
        if matcher.is_match(file) && looks_like_trajectory(file)? {
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

/// Whether the JSON file at `path` is meant as a trajectory (see the module docs); checks it
/// reads as one when it is.
fn looks_like_trajectory(path: &Path) -> Result<bool, SuiteError> {
    let text = std::fs::read_to_string(path).map_err(|source| SuiteError::io(path, source))?;
    let meant = match serde_json::from_str::<serde_json::Value>(&text) {
        Ok(serde_json::Value::Array(_)) => true,
        Ok(serde_json::Value::Object(object)) => object.contains_key("trajectory"),
        // Not JSON at all: a `.json` file in a suite folder that is broken is most likely a
        // trajectory someone damaged; say so rather than skip it.
        Err(_) => true,
        Ok(_) => false,
    };
    if meant {
        check_trajectory(path)?;
    }
    Ok(meant)
}

/// Reads `path` as a trajectory cache file, naming it and the problem when it is not one.
fn check_trajectory(path: &Path) -> Result<(), SuiteError> {
    retrace_cache::read_cache_file(path, retrace_cache::DEFAULT_MAX_FILE_SIZE)
        .map(|_| ())
        .map_err(|error| SuiteError::BadTrajectory {
            file: path.to_owned(),
            message: error.to_string(),
        })
}

#[cfg(test)]
#[path = "discover_tests.rs"]
mod tests;
