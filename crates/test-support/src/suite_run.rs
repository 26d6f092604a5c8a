//! Running `retrace run` on a folder of recordings from end-to-end tests: the command started
//! clean (no `RETRACE_*` settings and no CI shard variables inherited from the shell or the
//! CI running the tests), recordings written as files of their own, the `--json` report read.

use std::path::Path;
use std::path::PathBuf;
use std::process::Command;
use std::process::Output;

use serde_json::Value;

/// The environment variables `retrace run` reads that a developer's shell or the CI running
/// the tests may set: the settings it layers over the suite file and the CI shard variables
/// (a CI running the tests in parallel must not shard the suites the tests build).
pub const INHERITED_RUN_VARIABLES: [&str; 9] = [
    "RETRACE_URL",
    "RETRACE_JOBS",
    "RETRACE_PARAM_PASSWORD",
    "RETRACE_SHARD_TOTAL",
    "CI_NODE_INDEX",
    "CI_NODE_TOTAL",
    "CIRCLE_NODE_INDEX",
    "CIRCLE_NODE_TOTAL",
    "JOB_COMPLETION_INDEX",
];

/// The binary at `bin` (pass `env!("CARGO_BIN_EXE_retrace")`) to run in `cwd`, without the
/// [`INHERITED_RUN_VARIABLES`].
pub fn retrace_in(bin: &str, cwd: &Path) -> Command {
    let mut command = Command::new(bin);
    command.current_dir(cwd);
    for name in INHERITED_RUN_VARIABLES {
        command.env_remove(name);
    }
    command
}

/// Writes `recording` (a trajectory file's JSON, such as `retrace_runner::demo::DEMO_RECORDING`)
/// to `root/relative`, its goal marked with `relative` so every copy is a file of its own (its
/// own content hash).
///
/// # Panics
/// When `recording` is not a trajectory file with a `metadata.goal`, or the file cannot be
/// written.
#[allow(clippy::unwrap_used, clippy::expect_used)] // a test helper: failing loudly is the point
pub fn write_recording(root: &Path, relative: &str, recording: &str) -> PathBuf {
    let mut file: Value = serde_json::from_str(recording).expect("the recording is JSON");
    let goal = file["metadata"]["goal"]
        .as_str()
        .expect("the recording has a metadata.goal")
        .to_owned();
    file["metadata"]["goal"] = Value::from(format!("{goal} ({relative})"));
    let path = root.join(relative);
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(&path, serde_json::to_string_pretty(&file).unwrap()).unwrap();
    path
}

/// The suite report `retrace run --json` printed.
///
/// # Panics
/// When stdout is not one JSON document, with stdout and stderr in the message.
pub fn stdout_json(output: &Output) -> Value {
    serde_json::from_slice(&output.stdout).unwrap_or_else(|error| {
        panic!(
            "no JSON report ({error}); stdout: {}\nstderr: {}",
            String::from_utf8_lossy(&output.stdout),
            String::from_utf8_lossy(&output.stderr)
        )
    })
}

/// Every file below `dir`, read as text (lossily), for checking what reached the reports.
///
/// # Panics
/// When a folder or file cannot be read.
#[allow(clippy::unwrap_used)] // a test helper: failing loudly is the point
pub fn all_text_below(dir: &Path) -> String {
    let mut text = String::new();
    let mut stack = vec![dir.to_owned()];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                stack.push(path);
            } else {
                text.push_str(&String::from_utf8_lossy(&std::fs::read(&path).unwrap()));
            }
        }
    }
    text
}
