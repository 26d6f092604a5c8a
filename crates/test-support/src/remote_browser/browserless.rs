//! [`Browserless`]: a real browserless (npm `@browserless.io/browserless`, [`BROWSERLESS_PACKAGE`])
//! guarded by a token, running Debian's Chromium with nothing downloaded:
//!
//! - the install skips puppeteer's and Playwright's browser downloads ([`crate::npm`]);
//! - browserless 2 has no setting for the browser's path (v1's `CHROME_PATH` is gone): it
//!   launches what Playwright's registry names, `$PLAYWRIGHT_BROWSERS_PATH/chromium-REV/
//!   chrome-linux64/chrome`, so a private browsers folder holds a link there to Debian's
//!   Chromium;
//! - its own entry point (`build/index.js`) refuses to start unless Chrome, Edge, Firefox and
//!   WebKit are all installed, as in its Docker image ("Couldn't load route ... due to missing
//!   browser binary for ChromeCDP"), so it is started through its SDK with the routes of the
//!   missing browsers disabled ([`START_SCRIPT`]).
//!
//! 2.42.0 is the only version on npm. Its `engines` asks for Node 24 (npm warns), but it runs
//! on Debian's Node 20 as is: the release is prebuilt JavaScript, with no build step.

use std::path::Path;
use std::path::PathBuf;
use std::process::Command;

use super::server::FarmServer;
use crate::requirements::Need;

/// The npm package, pinned.
pub const BROWSERLESS_PACKAGE: &str = "@browserless.io/browserless@2.42.0";

/// Starts browserless with only its Chromium (and management) routes.
const START_SCRIPT: &str = "\
import { Browserless, BrowserlessChromeRoutes, BrowserlessEdgeRoutes, BrowserlessFirefoxRoutes, \
BrowserlessWebKitRoutes } from '@browserless.io/browserless';
const browserless = new Browserless();
browserless.disableRoutes(...[BrowserlessChromeRoutes, BrowserlessEdgeRoutes, \
BrowserlessFirefoxRoutes, BrowserlessWebKitRoutes].flatMap(Object.values));
await browserless.start();
";

/// Prints the path Playwright's registry gives Chromium.
const CHROMIUM_PATH_SCRIPT: &str =
    "import p from 'playwright-core'; console.log(p.chromium.executablePath());";

/// Debian's Chromium itself (`/usr/bin/chromium` is a script that runs it).
pub const DEBIAN_CHROMIUM: &str = "/usr/lib/chromium/chromium";

/// A running browserless; stopped (with its browsers) when dropped.
#[derive(Debug)]
pub struct Browserless {
    server: FarmServer,
    browsers: PathBuf,
    _dir: tempfile::TempDir,
}

impl Browserless {
    /// Starts browserless wanting `token` and waits until it answers. `None` after a
    /// `SKIPPED:` line when npm, Chromium or the package is missing outside CI.
    ///
    /// # Panics
    /// Under CI when one of those is missing; when browserless does not start.
    pub fn start(token: &str) -> Option<Self> {
        for need in [Need::Npm, Need::Chromium] {
            if !crate::requirements::present(need) {
                return None;
            }
        }
        let package = crate::npm::npm_package(BROWSERLESS_PACKAGE)?;
        let mut last = String::new();
        for _ in 0..3 {
            let dir = tempfile::Builder::new()
                .prefix("retrace-browserless-")
                .tempdir()
                .unwrap_or_else(|e| panic!("temporary directory for browserless: {e}"));
            let browsers = dir.path().join("browsers");
            link_debian_chromium(&package, &browsers);
            let port = crate::nginx::free_port();
            let (data, downloads) = (dir.path().join("data"), dir.path().join("downloads"));
            for folder in [&data, &downloads] {
                std::fs::create_dir_all(folder)
                    .unwrap_or_else(|e| panic!("{}: {e}", folder.display()));
            }
            let mut command = node(&package, &browsers, START_SCRIPT);
            command
                .env("HOST", "127.0.0.1")
                .env("PORT", port.to_string())
                .env("TOKEN", token)
                // Its default session timeout (30 s) could end a suite on a loaded machine.
                .env("TIMEOUT", "600000")
                .env("DATA_DIR", &data)
                .env("DOWNLOAD_DIR", &downloads);
            // Any answer (401 without the token) means its routes are loaded.
            let ready = |answer: &str| answer.starts_with("HTTP/");
            match FarmServer::start("browserless", command, dir.path(), port, ("/", None), ready) {
                Ok(server) => {
                    return Some(Self {
                        server,
                        browsers,
                        _dir: dir,
                    });
                }
                Err(log) => last = log,
            }
        }
        panic!("browserless did not start: {last}");
    }

    /// `http://127.0.0.1:PORT`: its DevTools HTTP endpoint (add `/?token=` or a header).
    pub fn url(&self) -> String {
        format!("http://127.0.0.1:{}", self.server.port())
    }

    /// The live Chromium processes it started.
    pub fn browsers(&self) -> Vec<u32> {
        self.server.browsers()
    }

    /// Every file in its Playwright browsers folder: only the link to Debian's Chromium
    /// unless something downloaded a browser.
    pub fn browser_files(&self) -> Vec<PathBuf> {
        fn walk(dir: &Path, found: &mut Vec<PathBuf>) {
            for entry in std::fs::read_dir(dir).into_iter().flatten().flatten() {
                let path = entry.path();
                if path.is_dir() && !path.is_symlink() {
                    walk(&path, found);
                } else {
                    found.push(path);
                }
            }
        }
        let mut found = Vec::new();
        walk(&self.browsers, &mut found);
        found
    }

    /// How many CDP websocket sessions it has proxied to a browser it launched (from its log).
    pub fn sessions(&self) -> usize {
        self.log()
            .lines()
            .filter(|line| line.contains("Proxying ") && line.contains(" to ChromiumCDP "))
            .count()
    }

    /// browserless's log so far.
    pub fn log(&self) -> String {
        self.server.log()
    }
}

/// `node` running the ES module `script` in the install folder `package` (where browserless
/// looks for `node_modules/playwright-core`), with Playwright's browsers in `browsers`.
fn node(package: &Path, browsers: &Path, script: &str) -> Command {
    let mut command = Command::new("node");
    command
        .args(["--input-type=module", "-e", script])
        .current_dir(package)
        .env("PLAYWRIGHT_BROWSERS_PATH", browsers)
        .env("PUPPETEER_SKIP_DOWNLOAD", "1");
    command
}

/// Makes Playwright's Chromium path under `browsers` a link to Debian's Chromium.
fn link_debian_chromium(package: &Path, browsers: &Path) {
    let output = node(package, browsers, CHROMIUM_PATH_SCRIPT)
        .output()
        .unwrap_or_else(|e| panic!("cannot run node: {e}"));
    let path = String::from_utf8_lossy(&output.stdout).trim().to_owned();
    assert!(
        output.status.success() && path.starts_with(&*browsers.to_string_lossy()),
        "Playwright's Chromium path: {path} {}",
        String::from_utf8_lossy(&output.stderr)
    );
    let path = Path::new(&path);
    if let Some(parent) = path.parent() {
        std::fs::create_dir_all(parent).unwrap_or_else(|e| panic!("{}: {e}", parent.display()));
    }
    std::os::unix::fs::symlink(DEBIAN_CHROMIUM, path)
        .unwrap_or_else(|e| panic!("link {} to {DEBIAN_CHROMIUM}: {e}", path.display()));
}
