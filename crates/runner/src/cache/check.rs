//! `retrace cache check`: whether cache files can be replayed as they are, each file's
//! problems in the words `retrace replay` and `retrace run` refuse it with.

use std::path::Path;

use retrace_cache::DEFAULT_MAX_FILE_SIZE;
use retrace_cache::read_cache_file;
use serde_json::Value;
use serde_json::json;

/// One file checked.
#[derive(Debug, Clone)]
pub struct FileCheck {
    /// The file, as given.
    pub file: String,
    /// Steps in its trajectory (0 when it could not be read).
    pub steps: usize,
    /// Each problem, as one line (`step N: FIELD: PROBLEM`).
    pub problems: Vec<String>,
    /// Why it could not be read, if it could not.
    pub error: Option<String>,
    /// The file's entry in `--json`.
    document: Value,
}

/// Checks the file at `path`.
pub fn check(path: &Path) -> FileCheck {
    let shown = path.display().to_string();
    match read_cache_file(path, DEFAULT_MAX_FILE_SIZE) {
        Ok(file) => {
            let problems = retrace_cache::check(&file);
            let document = json!({"file": shown, "ok": problems.is_empty(), "problems": problems, "error": Value::Null});
            FileCheck {
                file: shown,
                steps: file.trajectory.len(),
                problems: problems.iter().map(ToString::to_string).collect(),
                error: None,
                document,
            }
        }
        Err(error) => FileCheck {
            document: json!({"file": shown, "ok": false, "problems": [], "error": error.to_string()}),
            file: shown,
            steps: 0,
            problems: Vec::new(),
            error: Some(error.to_string()),
        },
    }
}

/// The checks as one JSON document (`--json`).
pub fn to_json(checks: &[FileCheck]) -> Value {
    json!({"files": checks.iter().map(|c| c.document.clone()).collect::<Vec<_>>()})
}
