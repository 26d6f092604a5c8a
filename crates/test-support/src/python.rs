//! Python virtual environments with pinned PyPI packages, for tests that check retrace against
//! the real Python libraries it promises to match (imagehash, askui) or measure itself against
//! (Playwright).
//!
//! [`venv`] makes one venv per requirement list under a cache directory and reuses it on later
//! runs. Creation is safe when several tests (or test binaries) ask at once: one holds an
//! exclusive lock on `<key>.lock` while it builds, the others wait for the lock and then find
//! the venv finished. A venv counts as finished only once its `retrace-ready` marker exists,
//! written after pip succeeded, so a build that was interrupted is started again from
//! scratch.
//!
//! When a venv cannot be made (no `python3`, no `venv` module, PyPI unreachable, a package
//! that does not install), the test cannot check anything: under CI (`CI` set, not `0` or
//! `false`: [`crate::requirements::on_ci`]) that is a failure
//! naming what could not be installed; elsewhere [`venv`] prints why it skips and returns
//! `None`, and the test returns early.

use std::fs::File;
use std::path::Path;
use std::path::PathBuf;
use std::process::Command;

/// Environment variable naming the cache directory (default `~/.cache/retrace-venv`).
pub const CACHE_DIR_VAR: &str = "RETRACE_VENV_DIR";

/// Environment variable naming the Python interpreter that creates venvs (default `python3`).
pub const PYTHON_VAR: &str = "RETRACE_PYTHON";

/// The file whose existence says a venv is complete.
const READY_MARKER: &str = "retrace-ready";

/// The `python` of a venv with exactly `requirements` (pip requirement specifiers, pinned:
/// `"imagehash==4.3.2"`) installed from PyPI, made on first use and reused afterwards.
///
/// Returns `None` after printing a skip message when the venv cannot be made and the run is
/// not on CI ([`crate::requirements::on_ci`]); the caller then returns from the test:
///
/// ```no_run
/// let Some(python) = retrace_test_support::python::venv(&["imagehash==4.3.2"]) else {
///     return;
/// };
/// ```
///
/// # Panics
/// On CI, when the venv cannot be made: the message names the requirements and
/// the step that failed, with the end of its output.
pub fn venv(requirements: &[&str]) -> Option<PathBuf> {
    let interpreter = std::env::var(PYTHON_VAR).unwrap_or_else(|_| "python3".to_owned());
    venv_in(
        &cache_dir(),
        &interpreter,
        requirements,
        crate::requirements::on_ci(),
    )
}

/// [`venv`] with its settings given: the cache directory, the interpreter that makes the
/// venv, and whether a failure fails the test (`ci`) or skips it.
///
/// # Panics
/// When `ci` is true and the venv cannot be made.
pub fn venv_in(
    cache: &Path,
    interpreter: &str,
    requirements: &[&str],
    ci: bool,
) -> Option<PathBuf> {
    match make_venv(cache, interpreter, requirements) {
        Ok(python) => Some(python),
        Err(reason) => {
            let message = format!(
                "could not install {} into a Python venv: {reason}",
                requirements.join(" ")
            );
            assert!(!ci, "{message}");
            eprintln!("SKIPPED (not on CI): {message}");
            None
        }
    }
}

/// The directory that holds the venvs.
pub fn cache_dir() -> PathBuf {
    if let Some(dir) = std::env::var_os(CACHE_DIR_VAR) {
        return PathBuf::from(dir);
    }
    let base = std::env::var_os("XDG_CACHE_HOME")
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|home| PathBuf::from(home).join(".cache")))
        .unwrap_or_else(std::env::temp_dir);
    base.join("retrace-venv")
}

/// The name of the venv for `requirements` made by `interpreter` (`python3 --version`
/// output included, so another Python gets its own venv): a stable FNV-1a hash, in hex.
fn venv_key(requirements: &[&str], interpreter: &str) -> String {
    let mut sorted: Vec<&str> = requirements.to_vec();
    sorted.sort_unstable();
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    for byte in interpreter
        .bytes()
        .chain([0])
        .chain(sorted.join("\n").bytes())
    {
        hash ^= u64::from(byte);
        hash = hash.wrapping_mul(0x0000_0100_0000_01b3);
    }
    format!("{hash:016x}")
}

fn make_venv(cache: &Path, interpreter: &str, requirements: &[&str]) -> Result<PathBuf, String> {
    let version = run(
        Command::new(interpreter).arg("--version"),
        &format!("{interpreter} --version"),
    )
    .map_err(|e| format!("{e} (set {PYTHON_VAR} to use another interpreter)"))?;
    std::fs::create_dir_all(cache)
        .map_err(|e| format!("cannot create {}: {e}", cache.display()))?;
    let key = venv_key(requirements, &format!("{interpreter} {version}"));
    let dir = cache.join(&key);
    let python = dir.join("bin").join("python");
    if dir.join(READY_MARKER).exists() {
        return Ok(python);
    }
    let lock_path = cache.join(format!("{key}.lock"));
    let lock = File::create(&lock_path)
        .map_err(|e| format!("cannot create {}: {e}", lock_path.display()))?;
    // Blocks while another process builds this venv; released when `lock` is dropped (or
    // its process dies).
    lock.lock()
        .map_err(|e| format!("cannot lock {}: {e}", lock_path.display()))?;
    if dir.join(READY_MARKER).exists() {
        return Ok(python);
    }
    build(interpreter, &dir, requirements)?;
    Ok(python)
}

/// Makes the venv at `dir` from scratch and installs `requirements` into it (the caller holds
/// the lock).
fn build(interpreter: &str, dir: &Path, requirements: &[&str]) -> Result<(), String> {
    if dir.exists() {
        std::fs::remove_dir_all(dir)
            .map_err(|e| format!("cannot remove the unfinished {}: {e}", dir.display()))?;
    }
    eprintln!(
        "making a Python venv with {} in {} (reused by later runs)",
        requirements.join(" "),
        dir.display()
    );
    let mut make = Command::new(interpreter);
    make.args(["-m", "venv"]);
    if requirements.is_empty() {
        // Nothing to install: pip need not be bootstrapped into it.
        make.arg("--without-pip");
    }
    run(make.arg(dir), "python3 -m venv")
        .map_err(|e| format!("{e} (on Debian: apt-get install python3-venv)"))?;
    if !requirements.is_empty() {
        run(
            Command::new(dir.join("bin").join("python"))
                .args([
                    "-m",
                    "pip",
                    "install",
                    "--disable-pip-version-check",
                    "--no-input",
                    "--quiet",
                    "--retries",
                    "2",
                    "--timeout",
                    "30",
                ])
                .args(requirements),
            "pip install",
        )?;
    }
    let marker = dir.join(READY_MARKER);
    std::fs::write(&marker, requirements.join("\n") + "\n")
        .map_err(|e| format!("cannot write {}: {e}", marker.display()))
}

/// Runs `command`, returning its trimmed stdout, or an error naming `what` with the exit
/// status and the last lines of its output.
fn run(command: &mut Command, what: &str) -> Result<String, String> {
    let output = command
        .output()
        .map_err(|e| format!("{what} could not start: {e}"))?;
    let stdout = String::from_utf8_lossy(&output.stdout);
    if output.status.success() {
        return Ok(stdout.trim().to_owned());
    }
    let stderr = String::from_utf8_lossy(&output.stderr);
    let text = format!("{stdout}{stderr}");
    let lines: Vec<&str> = text.lines().collect();
    let tail = lines[lines.len().saturating_sub(15)..].join("\n");
    Err(format!("{what} failed ({}):\n{tail}", output.status))
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]

    use super::*;

    #[test]
    fn the_key_depends_on_the_set_of_requirements_and_the_interpreter() {
        let a = venv_key(
            &["imagehash==4.3.2", "numpy==2.4.6"],
            "python3 Python 3.11.7",
        );
        let b = venv_key(
            &["numpy==2.4.6", "imagehash==4.3.2"],
            "python3 Python 3.11.7",
        );
        assert_eq!(a, b, "order does not matter");
        assert_ne!(
            a,
            venv_key(
                &["imagehash==4.3.1", "numpy==2.4.6"],
                "python3 Python 3.11.7"
            )
        );
        assert_ne!(
            a,
            venv_key(
                &["imagehash==4.3.2", "numpy==2.4.6"],
                "python3 Python 3.13.1"
            )
        );
        assert_eq!(a.len(), 16);
    }

    #[test]
    fn a_missing_interpreter_skips_outside_ci_and_fails_under_ci() {
        let cache = tempfile::tempdir().unwrap();
        let missing = "/nonexistent/python3";
        assert_eq!(
            venv_in(cache.path(), missing, &["imagehash==4.3.2"], false),
            None
        );
        let failure = std::panic::catch_unwind(|| {
            venv_in(cache.path(), missing, &["imagehash==4.3.2"], true)
        })
        .unwrap_err();
        let message = failure.downcast_ref::<String>().unwrap();
        assert!(message.contains("imagehash==4.3.2"), "{message}");
        assert!(message.contains(missing), "{message}");
    }

    /// Needs `python3` with its `venv` module; installs nothing from PyPI.
    #[test]
    fn concurrent_callers_share_one_finished_venv_and_a_failed_install_is_redone() {
        let cache = tempfile::tempdir().unwrap();
        let Some(python) = venv_in(cache.path(), "python3", &[], false) else {
            return;
        };
        assert!(python.exists());
        let threads: Vec<_> = (0..3)
            .map(|_| {
                let cache = cache.path().to_owned();
                std::thread::spawn(move || venv_in(&cache, "python3", &[], true).unwrap())
            })
            .collect();
        for thread in threads {
            assert_eq!(thread.join().unwrap(), python);
        }
        // A requirement pip rejects without asking PyPI: the venv is left unmarked, so the
        // next call builds it again instead of using it half-made.
        let bad = "/nonexistent/package-dir";
        assert_eq!(venv_in(cache.path(), "python3", &[bad], false), None);
        let key_dirs: Vec<_> = std::fs::read_dir(cache.path())
            .unwrap()
            .map(|e| e.unwrap().path())
            .filter(|p| p.is_dir())
            .collect();
        assert_eq!(key_dirs.len(), 2, "{key_dirs:?}");
        let half_made = key_dirs
            .iter()
            .find(|d| **d != python.parent().unwrap().parent().unwrap())
            .unwrap();
        assert!(half_made.join("bin").join("python").exists());
        assert!(!half_made.join(READY_MARKER).exists());
    }
}
