//! What a test needs from the machine (Chromium, Xvfb, Java...), and what a test does
//! without it.
//!
//! On a developer's machine a test whose program is missing is skipped with a `SKIPPED:`
//! line on stderr naming the package to install. Under `CI=true` (what CI services set) it
//! fails instead: a CI image that lost a package must not go green by skipping. Every test
//! that needs one of these programs starts with [`require!`](crate::require):
//!
//! ```no_run
//! #[test]
//! fn opens_a_page() {
//!     retrace_test_support::require!(Chromium);
//!     // ... launch /usr/bin/chromium ...
//! }
//! ```

use std::path::PathBuf;

/// A program some tests cannot run without.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Need {
    /// The full Chromium at `/usr/bin/chromium`: the browser when the headless shell is not
    /// installed, and what the tests that name it launch.
    Chromium,
    /// Chromium's headless shell at `/usr/lib/chromium/chromium-headless-shell`: the browser
    /// retrace launches when it is installed.
    HeadlessShell,
    /// The Xvfb X server, for the X11 desktop tests.
    Xvfb,
    /// mdBook, which renders the documentation book under `docs/`.
    MdBook,
    /// Mousepad, the GTK text editor the desktop end-to-end tests drive.
    Mousepad,
    /// A Java runtime (`/usr/bin/java`), which runs the real Selenium Grid 4 of the farm tests.
    Java,
    /// Debian's ChromeDriver (`/usr/bin/chromedriver`), through which that Grid drives
    /// Debian's Chromium.
    ChromeDriver,
    /// npm (with Node.js), which installs the Grid's jar and browserless.
    Npm,
    /// The accessibility bus (`at-spi-bus-launcher`) and `dbus-daemon`, which a desktop run
    /// starts for the application under test.
    AtSpi,
    /// Debian's Python 3 with GTK 3's bindings (`python3-gi`), for the small GTK windows the
    /// accessibility tests start.
    PythonGtk,
}

impl Need {
    /// Where the program is, if installed.
    pub fn find(self) -> Option<PathBuf> {
        match self {
            Need::Chromium => Some(PathBuf::from("/usr/bin/chromium")).filter(|p| p.is_file()),
            Need::HeadlessShell => Some(PathBuf::from("/usr/lib/chromium/chromium-headless-shell"))
                .filter(|p| p.is_file()),
            Need::Xvfb => crate::xvfb::Xvfb::binary(),
            Need::MdBook => on_path("mdbook"),
            Need::Mousepad => Some(PathBuf::from("/usr/bin/mousepad")).filter(|p| p.is_file()),
            Need::Java => Some(PathBuf::from("/usr/bin/java")).filter(|p| p.exists()),
            Need::ChromeDriver => {
                Some(PathBuf::from("/usr/bin/chromedriver")).filter(|p| p.exists())
            }
            Need::Npm => on_path("npm"),
            Need::AtSpi => Some(PathBuf::from("/usr/libexec/at-spi-bus-launcher"))
                .filter(|p| p.is_file() && on_path("dbus-daemon").is_some()),
            Need::PythonGtk => python_gtk(),
        }
    }

    /// What to install to get it (Debian packages; `scripts/setup.sh` installs them all).
    fn install(self) -> &'static str {
        match self {
            Need::Chromium => "apt-get install chromium",
            Need::HeadlessShell => "apt-get install chromium-headless-shell",
            Need::Xvfb => "apt-get install xvfb x11-apps x11-utils",
            Need::MdBook => {
                "cargo install mdbook --version 0.5.4 --locked --no-default-features --features search"
            }
            Need::Mousepad => "apt-get install mousepad",
            Need::Java => "apt-get install default-jre-headless",
            Need::ChromeDriver => "apt-get install chromium-driver",
            Need::Npm => "apt-get install npm",
            Need::AtSpi => "apt-get install at-spi2-core dbus-daemon",
            Need::PythonGtk => "apt-get install python3-gi gir1.2-gtk-3.0",
        }
    }
}

/// Debian's Python (`/usr/bin/python3`, not a venv's or pyenv's) when it can import GTK 3.
fn python_gtk() -> Option<PathBuf> {
    let python = PathBuf::from("/usr/bin/python3");
    let imports = std::process::Command::new(&python)
        .args([
            "-c",
            "import gi; gi.require_version('Gtk', '3.0'); from gi.repository import Gtk",
        ])
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .status()
        .is_ok_and(|status| status.success());
    imports.then_some(python)
}

/// The first `program` on the `PATH`, then in cargo's install folder (`~/.cargo/bin`).
fn on_path(program: &str) -> Option<PathBuf> {
    let path = std::env::var_os("PATH").unwrap_or_default();
    let cargo_bin = std::env::var_os("HOME").map(|home| PathBuf::from(home).join(".cargo/bin"));
    std::env::split_paths(&path)
        .chain(cargo_bin)
        .map(|dir| dir.join(program))
        .find(|candidate| candidate.is_file())
}

/// Whether this is a CI run: `CI` is set to anything but empty, `0` or `false`.
pub fn on_ci() -> bool {
    means_ci(std::env::var("CI").ok().as_deref())
}

fn means_ci(value: Option<&str>) -> bool {
    value.is_some_and(|value| {
        let value = value.trim();
        !(value.is_empty() || value == "0" || value.eq_ignore_ascii_case("false"))
    })
}

/// Whether `need` is installed. When it is not: under CI, panics; otherwise prints why the
/// test is skipped and returns `false`.
///
/// # Panics
/// Under CI, when `need` is missing.
pub fn present(need: Need) -> bool {
    if need.find().is_some() {
        return true;
    }
    missing(need);
    false
}

/// Reports that `need` is missing: panics under CI, otherwise prints a `SKIPPED:` line.
///
/// # Panics
/// Under CI.
pub fn missing(need: Need) {
    match when_missing(need, on_ci()) {
        Err(failure) => panic!("{failure}"),
        Ok(skipped) => eprintln!("{skipped}"),
    }
}

/// What a test does without `need`: `Ok` with the line saying it is skipped, or under CI
/// `Err` with the message it fails with.
fn when_missing(need: Need, ci: bool) -> Result<String, String> {
    let install = need.install();
    if ci {
        return Err(format!(
            "{need:?} is not installed and CI is set: a CI run may not skip this test ({install}, or run scripts/setup.sh)"
        ));
    }
    Ok(format!(
        "SKIPPED: {need:?} is not installed ({install}, or run scripts/setup.sh)"
    ))
}

/// Returns from the calling test when the named [`Need`] is missing (skipped with a message),
/// or fails it under CI; see [`present`].
#[macro_export]
macro_rules! require {
    ($need:ident) => {
        if !$crate::requirements::present($crate::requirements::Need::$need) {
            return;
        }
    };
}

#[cfg(test)]
mod tests {
    use super::Need;
    use super::means_ci;
    use super::when_missing;

    #[test]
    fn ci_is_any_value_but_empty_zero_or_false() {
        for value in ["true", "1", "yes", "TRUE"] {
            assert!(means_ci(Some(value)), "{value}");
        }
        for value in [None, Some(""), Some("0"), Some("false"), Some("False")] {
            assert!(!means_ci(value), "{value:?}");
        }
    }

    #[test]
    fn a_missing_program_skips_locally_and_fails_on_ci() {
        let skipped = when_missing(Need::Chromium, false).unwrap();
        assert!(skipped.starts_with("SKIPPED: Chromium"), "{skipped}");
        assert!(skipped.contains("apt-get install chromium"), "{skipped}");
        let failure = when_missing(Need::Xvfb, true).unwrap_err();
        assert!(
            failure.contains("Xvfb is not installed and CI is set"),
            "{failure}"
        );
        assert!(failure.contains("apt-get install xvfb"), "{failure}");
    }

    #[test]
    fn the_farm_tests_fail_on_ci_without_java_chromedriver_or_npm() {
        for (need, package) in [
            (Need::Java, "default-jre-headless"),
            (Need::ChromeDriver, "chromium-driver"),
            (Need::Npm, "npm"),
        ] {
            let failure = when_missing(need, true).unwrap_err();
            assert!(
                failure.contains(&format!("{need:?} is not installed and CI is set")),
                "{failure}"
            );
            assert!(failure.contains(package), "{failure}");
            assert!(when_missing(need, false).unwrap().starts_with("SKIPPED"));
        }
    }
}
