//! Running the `retrace` binary from end-to-end tests: one clean way to start it (no model
//! settings inherited from the developer's shell), one way to read its `--json` summary, and
//! the runtime sync tests use to drive async parts beside it.

use std::process::Command;
use std::process::Output;

use serde_json::Value;

/// Runs the binary at `bin` (pass `env!("CARGO_BIN_EXE_retrace")`) with `args`, without the
/// provider keys and base URLs of the calling environment; with `anthropic`, pointed at that
/// (fake) Anthropic server with a test key.
///
/// # Panics
/// When the binary cannot be started.
#[allow(clippy::expect_used)] // a test helper: failing loudly is the point
pub fn run_retrace(bin: &str, args: &[&str], anthropic: Option<&str>) -> Output {
    let mut command = Command::new(bin);
    command
        .args(args)
        .env_remove("ANTHROPIC_API_KEY")
        .env_remove("RETRACE_ANTHROPIC_BASE_URL")
        .env_remove("OPENAI_API_KEY");
    if let Some(base_url) = anthropic {
        command
            .env("ANTHROPIC_API_KEY", "test-key")
            .env("RETRACE_ANTHROPIC_BASE_URL", base_url);
    }
    command.output().expect("the retrace binary starts")
}

/// `retrace replay FILE --url URL --json` signing in as the demo app's user, with a generous
/// step timeout (a loaded machine is slow, and a failure must not come from a timeout); the
/// caller adds flags and environment and runs it.
pub fn demo_replay(bin: &str, file: impl AsRef<std::ffi::OsStr>, url: &str) -> Command {
    let mut command = Command::new(bin);
    command
        .arg("replay")
        .arg(file)
        .args(["--url", url, "--json"])
        .args(["--param", "username=demo", "--param"])
        .arg(format!("password={}", retrace_demo::DEMO_PASSWORD))
        .args(["--step-timeout", "30"]);
    command
}

/// The last line of stdout parsed as JSON: the summary a `--json` command prints.
///
/// # Panics
/// When there is none, with the whole stdout and stderr in the message.
pub fn json_summary(output: &Output) -> Value {
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    stdout
        .lines()
        .last()
        .and_then(|line| serde_json::from_str(line).ok())
        .unwrap_or_else(|| panic!("no JSON summary; stdout: {stdout}\nstderr: {stderr}"))
}

/// The JSON summary of a command that must have exited with `code`.
///
/// # Panics
/// When the exit code differs (with the summary and stderr in the message) or there is no
/// summary.
pub fn summary_after_exit(output: &Output, code: i32) -> Value {
    let summary = json_summary(output);
    assert_eq!(
        output.status.code(),
        Some(code),
        "{summary}\n{}",
        String::from_utf8_lossy(&output.stderr)
    );
    summary
}

/// A two-worker tokio runtime, for sync tests that drive async helpers (a browser, a fake
/// model server) beside the binary.
///
/// # Panics
/// When the runtime cannot be built.
#[allow(clippy::expect_used)] // a test helper: failing loudly is the point
pub fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("a tokio runtime")
}

/// Asserts that an error text a user sees is not a bare summary: it is more than "did not
/// start", "failed" or "error", it carries a cause after its summary (`SUMMARY: CAUSE`), and
/// it names each of `names` (the file, the folder, the signal...).
///
/// # Panics
/// When it is bare or misses a name.
pub fn assert_not_bare(error: &str, names: &[&str]) {
    let trimmed = error.trim().trim_start_matches("retrace: ");
    for bare in [
        "the replay did not start",
        "did not start",
        "failed",
        "error",
    ] {
        assert_ne!(
            trimmed.trim_end_matches('.'),
            bare,
            "a bare summary: {error}"
        );
    }
    assert!(trimmed.contains(": "), "{error:?} gives no cause");
    for name in names {
        assert!(error.contains(name), "{error:?} does not name {name}");
    }
}

/// Calls `ready` every 50 ms until it returns something, for at most `timeout` (a deadline
/// for a test that would otherwise hang, never a guess at how long something takes).
pub fn poll<T>(timeout: std::time::Duration, mut ready: impl FnMut() -> Option<T>) -> Option<T> {
    runtime().block_on(async {
        let deadline = std::time::Instant::now() + timeout;
        loop {
            if let Some(value) = ready() {
                return Some(value);
            }
            if std::time::Instant::now() > deadline {
                return None;
            }
            tokio::time::sleep(std::time::Duration::from_millis(50)).await;
        }
    })
}

/// Records `goal` on `url` with `retrace act --cache record`, the scripted Anthropic model
/// playing `script`: the trajectory written as `dir/file`. Panics unless `act` exits 0.
pub fn act_record(
    bin: &str,
    goal: &str,
    url: &str,
    script: Vec<crate::fake_model::ScriptStep>,
    dir: &std::path::Path,
    file: &str,
) -> std::path::PathBuf {
    act_record_on(bin, goal, &["--url", url], script, dir, file)
}

/// [`act_record`] on any target: `target` are its flags (`--url URL`, or `--display :N --app
/// COMMAND --window NAME` for a desktop).
pub fn act_record_on(
    bin: &str,
    goal: &str,
    target: &[&str],
    script: Vec<crate::fake_model::ScriptStep>,
    dir: &std::path::Path,
    file: &str,
) -> std::path::PathBuf {
    // The scripted server runs on this runtime while `act` talks to it.
    let runtime = runtime();
    let model = runtime.block_on(crate::fake_model::FakeAnthropic::start(script));
    let cache_dir = dir.to_string_lossy();
    let mut args = vec!["act", goal];
    args.extend_from_slice(target);
    args.extend_from_slice(&[
        "--cache",
        "record",
        "--cache-dir",
        &cache_dir,
        "--cache-file",
        file,
        "--json",
    ]);
    let output = run_retrace(bin, &args, Some(&model.base_url()));
    summary_after_exit(&output, 0);
    dir.join(file)
}
