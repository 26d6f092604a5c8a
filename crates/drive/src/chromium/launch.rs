//! Launching Chromium: [`ChromiumConfig`] and [`ChromiumBrowser::launch`], which starts the
//! process (see [`super::process`]) and attaches to it. Reaching a browser somebody else runs
//! is the `remote` module's job.

use std::path::Path;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use super::browser::ChromiumBrowser;
use super::connection::AttachSettings;
use super::connection::BACKEND;
use super::connection::BrowserCore;
use super::connection::Liveness;
use super::connection::Origin;
use super::process::BrowserProcess;
use crate::error::DriveError;

/// Chromium's headless shell, as Debian's `chromium-headless-shell` installs it: the same
/// browser engine without the windowed browser around it (no tab strip, toolbar or address
/// bar drawn off screen for every page, no browser-UI renderers). Playwright runs headless
/// tests on it too. On the demo flow it takes about a third less CPU per test than the full
/// browser run `--headless`, and starts faster (see the README's run figures), with the same
/// pixels. This is the executable itself: Debian's `/usr/bin/chromium-headless-shell` is a
/// script that runs it without `exec`, so the browser would be its child, out of reach of the
/// kill that `PR_SET_PDEATHSIG` sends when retrace dies (see `process`).
pub const HEADLESS_SHELL: &str = "/usr/lib/chromium/chromium-headless-shell";

/// The full browser (Debian's `chromium`), launched when the headless shell is not installed.
pub const FULL_CHROMIUM: &str = "/usr/bin/chromium";

/// The executable launched when none is named: the headless shell when it is installed,
/// else the full browser. `--chromium PATH` (or `RETRACE_CHROMIUM`) names another (a wrapper
/// script must `exec` the browser, as `/usr/bin/chromium` does). Both render a page alike,
/// but their products differ (`HeadlessChrome/…` for the shell, `Chrome/…` for the full
/// browser), so a `retrace check` baseline stored with one is an environment mismatch for
/// the other.
pub fn default_executable() -> PathBuf {
    [HEADLESS_SHELL, FULL_CHROMIUM]
        .into_iter()
        .map(Path::new)
        .find(|path| path.is_file())
        .unwrap_or(Path::new(FULL_CHROMIUM))
        .to_path_buf()
}

/// How to launch Chromium.
#[derive(Debug, Clone)]
pub struct ChromiumConfig {
    /// The browser executable (default: [`default_executable`]).
    pub executable: PathBuf,
    /// Viewport width in CSS pixels; screenshots are exactly this wide.
    pub width: u32,
    /// Viewport height in CSS pixels; screenshots are exactly this high.
    pub height: u32,
    /// How long to wait for the browser to announce its DevTools endpoint: generous (60 s),
    /// because on a loaded machine a healthy Chromium can take over 20 s to start, and a
    /// broken one fails at once (its error is reported as soon as it exits).
    pub launch_timeout: Duration,
    /// How long one CDP command may take before it fails.
    pub request_timeout: Duration,
}

impl Default for ChromiumConfig {
    fn default() -> Self {
        Self {
            executable: default_executable(),
            width: 1280,
            height: 800,
            launch_timeout: Duration::from_secs(60),
            request_timeout: Duration::from_secs(30),
        }
    }
}

impl ChromiumBrowser {
    /// Launches `config.executable` headless with a fresh temporary profile and connects.
    pub async fn launch(config: &ChromiumConfig) -> Result<Self, DriveError> {
        let process = BrowserProcess::spawn(
            &config.executable,
            config.width,
            config.height,
            config.launch_timeout,
        )
        .await?;
        Self::attach_launched(config, process).await
    }

    /// Launches `config.executable` with its windows on the X display `display`, for a person
    /// to act in (`retrace record`); otherwise as [`ChromiumBrowser::launch`]. The headless
    /// shell has no windows: name the full browser ([`FULL_CHROMIUM`]).
    pub async fn launch_headed(config: &ChromiumConfig, display: &str) -> Result<Self, DriveError> {
        let process = BrowserProcess::spawn_headed(
            &config.executable,
            config.width,
            config.height,
            config.launch_timeout,
            display,
        )
        .await?;
        Self::attach_launched(config, process).await
    }

    /// Connects to a browser this process launched.
    async fn attach_launched(
        config: &ChromiumConfig,
        process: BrowserProcess,
    ) -> Result<Self, DriveError> {
        let ws_url = process.ws_url().to_owned();
        let settings = AttachSettings {
            width: config.width,
            height: config.height,
            request_timeout: config.request_timeout,
        };
        let liveness = Arc::new(Liveness::default());
        let origin = Origin::Launched(process);
        let connection =
            BrowserCore::open(&ws_url, settings)
                .await
                .map_err(|e| DriveError::Launch {
                    backend: BACKEND.to_owned(),
                    detail: format!("cannot connect to {ws_url}: {e}"),
                })?;
        let core = BrowserCore::attach(connection, ws_url, settings, liveness, origin);
        Ok(Self::from_core(core))
    }
}
