//! Several processes on one cache file: concurrent metadata updates lose nothing, and a
//! writer killed in the middle of a write leaves the previous version intact.
//!
//! The child processes are this test binary itself, re-run on one `#[ignore]`d child test
//! with the work described in environment variables (the child tests do nothing otherwise).
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::io::BufRead;
use std::io::BufReader;
use std::path::Path;
use std::process::Command;
use std::process::Stdio;
use std::time::Duration;
use std::time::Instant;

use retrace_cache::CacheFile;
use retrace_cache::CacheMetadata;
use retrace_cache::CacheStore;
use retrace_cache::MetadataUpdate;
use retrace_cache::Validators;
use retrace_protocol::ToolUseBlock;
use serde_json::json;

const PROCESSES: u64 = 16;
const UPDATES: u64 = 25;

/// This test binary, re-run on the child test `name` with `envs`.
fn child(name: &str, envs: &[(&str, String)]) -> Command {
    let mut command = Command::new(std::env::current_exe().unwrap());
    command.args([
        "--exact",
        name,
        "--ignored",
        "--nocapture",
        "--test-threads=1",
    ]);
    for (key, value) in envs {
        command.env(key, value);
    }
    command
}

fn small_file() -> CacheFile {
    let steps = vec![ToolUseBlock::new(
        "toolu_1",
        "computer",
        json!({"action": "screenshot"}),
    )];
    CacheFile::new(
        CacheMetadata::new(
            retrace_cache::parse_timestamp("2026-01-01T00:00:00Z").unwrap(),
            None,
        ),
        steps,
    )
}

#[test]
fn sixteen_processes_lose_no_update() {
    let dir = tempfile::tempdir().unwrap();
    let store = CacheStore::new(dir.path());
    let path = store.write("shared", &small_file()).unwrap();
    let children: Vec<_> = (0..PROCESSES)
        .map(|id| {
            child(
                "update_child",
                &[
                    ("RETRACE_TEST_UPDATE_FILE", path.display().to_string()),
                    ("RETRACE_TEST_CHILD_ID", id.to_string()),
                ],
            )
            .stdout(Stdio::null())
            .spawn()
            .unwrap()
        })
        .collect();
    for mut c in children {
        assert!(c.wait().unwrap().success());
    }
    let file = store.read("shared").unwrap();
    assert_eq!(file.metadata.execution_attempts, PROCESSES * UPDATES);
    assert_eq!(file.metadata.failures.len() as u64, PROCESSES * UPDATES);
    for id in 0..PROCESSES {
        // Each process's failures were counted from a fresh read inside the lock: 1, 2, ... 25.
        let counts: Vec<u64> = file
            .metadata
            .failures
            .iter()
            .filter(|f| f.step_index == id)
            .map(|f| f.failure_count_at_step)
            .collect();
        assert_eq!(counts, (1..=UPDATES).collect::<Vec<_>>(), "process {id}");
    }
}

/// Child: 25 failure records on the file in `RETRACE_TEST_UPDATE_FILE`, at step = child id.
#[test]
#[ignore = "run by sixteen_processes_lose_no_update as a child process"]
fn update_child() {
    let (Ok(file), Ok(id)) = (
        std::env::var("RETRACE_TEST_UPDATE_FILE"),
        std::env::var("RETRACE_TEST_CHILD_ID"),
    ) else {
        return;
    };
    let id: u64 = id.parse().unwrap();
    let path = Path::new(&file);
    for k in 0..UPDATES {
        let update = MetadataUpdate::RecordFailure {
            step_index: id,
            error_message: format!("process {id} update {k}"),
        };
        retrace_cache::update_file(
            path,
            retrace_cache::DEFAULT_MAX_FILE_SIZE,
            &update,
            &Validators::none(),
        )
        .unwrap();
    }
}

/// A file of roughly `steps` kilobytes.
fn big_file(goal: &str, steps: usize) -> CacheFile {
    let filler = "x".repeat(1000);
    let trajectory = (0..steps)
        .map(|i| {
            ToolUseBlock::new(
                format!("toolu_{i}"),
                "computer",
                json!({"action": "type", "text": filler}),
            )
        })
        .collect();
    let mut meta = CacheMetadata::new(
        retrace_cache::parse_timestamp("2026-01-01T00:00:00Z").unwrap(),
        Some(goal.to_owned()),
    );
    meta.execution_attempts = 0;
    CacheFile::new(meta, trajectory)
}

fn temp_files(dir: &Path) -> Vec<String> {
    std::fs::read_dir(dir)
        .unwrap()
        .filter_map(Result::ok)
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".tmp"))
        .collect()
}

#[test]
fn writer_killed_mid_write_leaves_previous_version() {
    let dir = tempfile::tempdir().unwrap();
    let store = CacheStore::new(dir.path());
    store.write("big", &big_file("version 0", 8_000)).unwrap();
    let mut writer = child(
        "write_child",
        &[("RETRACE_TEST_WRITE_DIR", dir.path().display().to_string())],
    )
    .stdout(Stdio::piped())
    .spawn()
    .unwrap();
    let mut lines = BufReader::new(writer.stdout.take().unwrap()).lines();
    // Wait until the child has started rewriting the file at least once...
    loop {
        let line = lines.next().expect("child ended early").unwrap();
        if line.starts_with("writing ") {
            break;
        }
    }
    // ...and a temporary file exists, that is, a write is in progress; then kill it.
    let deadline = Instant::now() + Duration::from_secs(120);
    while temp_files(dir.path()).is_empty() {
        assert!(Instant::now() < deadline, "no write in progress seen");
        std::thread::yield_now();
    }
    writer.kill().unwrap(); // SIGKILL
    writer.wait().unwrap();
    assert!(
        !temp_files(dir.path()).is_empty(),
        "the kill should have left the half-written temporary file"
    );

    let file = store
        .read("big")
        .unwrap_or_else(|e| panic!("previous version unreadable: {e}"));
    let goal = file.metadata.goal.unwrap();
    assert!(goal.starts_with("version "), "{goal}");
    assert_eq!(file.trajectory.len(), 8_000);
    // The leftover temporary file is not a cache file, and the lock died with the writer.
    let listed = store.list(true).unwrap();
    assert_eq!(listed.entries.len(), 1);
    assert!(listed.problems.is_empty(), "{:?}", listed.problems);
    store
        .update(
            "big",
            &MetadataUpdate::Invalidate {
                reason: "after the crash".into(),
            },
            &Validators::none(),
        )
        .unwrap();
}

/// Child: rewrites `big.json` in `RETRACE_TEST_WRITE_DIR` forever, saying before each write.
#[test]
#[ignore = "run by writer_killed_mid_write_leaves_previous_version as a child process"]
fn write_child() {
    let Ok(dir) = std::env::var("RETRACE_TEST_WRITE_DIR") else {
        return;
    };
    let store = CacheStore::new(dir);
    for version in 1.. {
        let file = big_file(&format!("version {version}"), 8_000);
        println!("writing {version}");
        store.write("big", &file).unwrap();
    }
}
