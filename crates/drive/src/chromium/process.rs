//! The Chromium child process: spawning it so that it can never outlive us, finding its
//! DevTools endpoint, and killing it (with every helper process it started) on drop.
//!
//! Three layers make orphans impossible on every exit path:
//! - [`BrowserProcess`]'s `Drop` kills the browser's whole process group (normal exits,
//!   errors, panics that unwind);
//! - the child asks the kernel for `SIGKILL` when its parent dies (`PR_SET_PDEATHSIG`), which
//!   covers our process being killed outright. The kernel ties that signal to the *thread*
//!   that forked, so every browser is forked from one spawner thread that lives as long as the
//!   process;
//! - Chromium's own helper processes (zygote, renderers) exit when the browser process's IPC
//!   channels close.

use std::io;
use std::path::Path;
use std::path::PathBuf;
use std::process::Child;
use std::process::Command;
use std::process::Stdio;
use std::sync::Mutex;
use std::sync::OnceLock;
use std::sync::mpsc;
use std::time::Duration;
use std::time::Instant;

use crate::error::DriveError;

/// The flags every launched browser gets, besides its profile directory and debugging port.
/// - The three `--disable-*ground*` flags keep pages that are not in front rendering and
///   running their timers at full speed, so a page driven in the background behaves as it
///   would in front.
/// - `CDPScreenshotNewSurface` makes `Page.captureScreenshot` give the page a new surface
///   and copy the first frame drawn for it, instead of forcing a redraw and waiting for that
///   frame to be *presented* before copying. Either way the frame is drawn after the call,
///   so it holds every change made before it (a test in `tests/chromium_e2e` checks this
///   under load); the new way skips the wait for presentation, about a fifth of a replay's
///   wall time on the demo flow (see the README's run figures). Playwright launches Chromium
///   with the same feature. It needs a visible page, which every page retrace opens is (a
///   window of its own, see `ChromiumBrowser::open_page`).
/// - `WebUIOmniboxPopup` and `WebUIOmniboxAimPopup` off: headless Chromium builds every
///   window's address-bar popup (two `chrome://omnibox-popup.top-chrome/` pages) in a renderer
///   process of its own, which no headless run ever shows. Every page retrace opens is a
///   window, so that was one more renderer per test, starting and running beside the page's:
///   about a third of the CPU a suite of demo-flow replays took (see the README's run figures).
/// - `--no-startup-window`: no first window with a page nobody drives (its renderer's
///   start alone took about a second of CPU); the browser waits for the pages we open.
///   (The popups are the full browser's: the headless shell has no address bar.)
/// - `SpareRendererForSitePerProcess` off: Chromium keeps a spare renderer process started
///   ahead of the next navigation, but a spare belongs to one browser context and every run
///   gets a context of its own, so spares were started and thrown away, about two per test
///   (63 renderer processes for 20 demo-flow replays, 20 without): some 7% of a suite's CPU.
///   A page's first navigation reuses the renderer its blank page started in, so no replay
///   waits for a process it would have had spare.
pub const CHROMIUM_FLAGS: [&str; 14] = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-renderer-backgrounding",
    "--disable-background-timer-throttling",
    "--disable-backgrounding-occluded-windows",
    "--enable-features=CDPScreenshotNewSurface",
    "--disable-features=WebUIOmniboxPopup,WebUIOmniboxAimPopup,SpareRendererForSitePerProcess",
    "--no-startup-window",
];

/// The prefix of every temporary profile directory, followed by our process id: the browser
/// process names it on its command line (`--user-data-dir`). The full browser's child
/// processes repeat it, the headless shell's do not; every one of them is in the browser's
/// process group, which is how tests find them all.
pub const PROFILE_PREFIX: &str = "retrace-chromium-";

/// A running Chromium process with a temporary profile, killed (process group and all) and
/// its profile removed when dropped.
#[derive(Debug)]
pub struct BrowserProcess {
    child: Child,
    /// Holds the profile (`profile/`) and Chromium's stderr (`chromium.log`); removed on drop,
    /// after the browser is dead.
    dir: tempfile::TempDir,
    ws_url: String,
}

impl BrowserProcess {
    /// Starts `executable` headless at `width`x`height` and waits (up to `timeout`) until it
    /// announces its DevTools endpoint.
    pub async fn spawn(
        executable: &Path,
        width: u32,
        height: u32,
        timeout: Duration,
    ) -> Result<Self, DriveError> {
        Self::spawn_on(executable, (width, height), timeout, None).await
    }

    /// Starts `executable` with its windows on the X display `display` (`:0`), for a person
    /// to use (`retrace record`): [`CHROMIUM_FLAGS`] without `--headless`, the window at the
    /// screen's top left corner. Otherwise as [`BrowserProcess::spawn`].
    pub async fn spawn_headed(
        executable: &Path,
        width: u32,
        height: u32,
        timeout: Duration,
        display: &str,
    ) -> Result<Self, DriveError> {
        Self::spawn_on(executable, (width, height), timeout, Some(display)).await
    }

    /// Starts the browser headless (`display` `None`) or with its windows on `display`.
    async fn spawn_on(
        executable: &Path,
        (width, height): (u32, u32),
        timeout: Duration,
        display: Option<&str>,
    ) -> Result<Self, DriveError> {
        let launch_error = |detail: String| DriveError::Launch {
            backend: "chromium".to_owned(),
            detail,
        };
        let dir = tempfile::Builder::new()
            .prefix(&format!("{PROFILE_PREFIX}{}-", std::process::id()))
            .tempdir()
            .map_err(|e| launch_error(format!("cannot create a temporary profile: {e}")))?;
        let profile = dir.path().join("profile");
        let log_path = dir.path().join("chromium.log");
        let log = std::fs::File::create(&log_path)
            .map_err(|e| launch_error(format!("cannot create {}: {e}", log_path.display())))?;

        let mut command = Command::new(executable);
        match display {
            None => command.args(CHROMIUM_FLAGS),
            Some(display) => command
                .args(CHROMIUM_FLAGS.iter().filter(|flag| **flag != "--headless"))
                .arg("--window-position=0,0")
                .env("DISPLAY", display),
        };
        command
            .arg(format!("--user-data-dir={}", profile.display()))
            .arg("--remote-debugging-port=0")
            .arg(format!("--window-size={width},{height}"))
            // Chromium's crash handler keeps its database under XDG_CONFIG_HOME: keep it in
            // our temporary directory too, so nothing lands in the user's home and the
            // handler's command line names the directory like every other browser process.
            .env("XDG_CONFIG_HOME", dir.path().join("config"))
            .env("XDG_CACHE_HOME", dir.path().join("cache"))
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(log);
        let child = spawn_guarded(command)
            .map_err(|e| launch_error(format!("cannot run {}: {e}", executable.display())))?;
        let mut process = Self {
            child,
            dir,
            ws_url: String::new(),
        };
        process.ws_url = process.wait_for_endpoint(&profile, timeout).await?;
        Ok(process)
    }

    /// The browser's `ws://` DevTools endpoint.
    pub fn ws_url(&self) -> &str {
        &self.ws_url
    }

    /// The browser process id (also its process group id).
    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    /// Whether the browser process has exited (and so was reaped).
    pub fn has_exited(&mut self) -> bool {
        !matches!(self.child.try_wait(), Ok(None))
    }

    /// How the browser process ended (`exit status: 1`, `signal: 9 (SIGKILL)`), once it has.
    pub fn exit_status(&mut self) -> Option<std::process::ExitStatus> {
        self.child.try_wait().ok().flatten()
    }

    /// Polls for `DevToolsActivePort`, which Chromium writes into the profile once it
    /// listens: the port on the first line, the browser target path on the second.
    async fn wait_for_endpoint(
        &mut self,
        profile: &Path,
        timeout: Duration,
    ) -> Result<String, DriveError> {
        let port_file = profile.join("DevToolsActivePort");
        let started = Instant::now();
        loop {
            if let Ok(text) = std::fs::read_to_string(&port_file) {
                let mut lines = text.lines();
                if let (Some(port), Some(path)) = (lines.next(), lines.next()) {
                    return Ok(format!("ws://127.0.0.1:{}{}", port.trim(), path.trim()));
                }
            }
            if let Ok(Some(status)) = self.child.try_wait() {
                return Err(DriveError::Launch {
                    backend: "chromium".to_owned(),
                    detail: format!(
                        "the browser exited at start ({status}): {}",
                        self.log_tail()
                    ),
                });
            }
            if started.elapsed() > timeout {
                return Err(DriveError::Launch {
                    backend: "chromium".to_owned(),
                    detail: format!(
                        "no DevTools endpoint after {} ms: {}",
                        timeout.as_millis(),
                        self.log_tail()
                    ),
                });
            }
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    }

    /// The last lines Chromium wrote to stderr, for launch errors.
    fn log_tail(&self) -> String {
        let text =
            std::fs::read_to_string(self.dir.path().join("chromium.log")).unwrap_or_default();
        let lines: Vec<&str> = text.lines().collect();
        let tail = lines[lines.len().saturating_sub(5)..].join(" | ");
        if tail.is_empty() {
            "(nothing on stderr)".to_owned()
        } else {
            tail
        }
    }

    /// The profile and log directory (removed on drop).
    pub fn dir(&self) -> PathBuf {
        self.dir.path().to_path_buf()
    }
}

impl Drop for BrowserProcess {
    fn drop(&mut self) {
        kill_group(self.child.id());
        let _ = self.child.kill();
        // SIGKILL was sent, so this returns at once; reaping here avoids a zombie and makes
        // sure the profile directory is no longer written to when `dir` is removed next.
        let _ = self.child.wait();
    }
}

/// Sends `SIGKILL` to the process group `pgid` (the browser and the helpers it started).
#[allow(unsafe_code)]
fn kill_group(pgid: u32) {
    let Ok(pgid) = libc::pid_t::try_from(pgid) else {
        return;
    };
    if pgid <= 1 {
        return;
    }
    // SAFETY: kill(2) takes plain integers and has no memory-safety preconditions; a negative
    // pid addresses the process group the browser leads (it was spawned with its own group).
    unsafe {
        libc::kill(-pgid, libc::SIGKILL);
    }
}

type SpawnRequest = (Command, mpsc::Sender<io::Result<Child>>);

/// Spawns `command` in its own process group with `PR_SET_PDEATHSIG = SIGKILL`, forking from
/// the process-lifetime spawner thread (see the module docs for why).
fn spawn_guarded(mut command: Command) -> io::Result<Child> {
    use std::os::unix::process::CommandExt;

    command.process_group(0);
    die_with_parent(&mut command);
    static SPAWNER: OnceLock<Mutex<mpsc::Sender<SpawnRequest>>> = OnceLock::new();
    let spawner = SPAWNER.get_or_init(|| {
        let (tx, rx) = mpsc::channel::<SpawnRequest>();
        std::thread::Builder::new()
            .name("retrace-chromium-spawner".to_owned())
            .spawn(move || {
                for (mut command, reply) in rx {
                    let _ = reply.send(command.spawn());
                }
            })
            .map(|_| ())
            .unwrap_or(());
        Mutex::new(tx)
    });
    let (reply_tx, reply_rx) = mpsc::channel();
    let sent = spawner
        .lock()
        .map_err(|_| io::Error::other("the spawner lock is poisoned"))?
        .send((command, reply_tx));
    if sent.is_err() {
        return Err(io::Error::other("the spawner thread could not be started"));
    }
    reply_rx
        .recv()
        .map_err(|_| io::Error::other("the spawner thread stopped"))?
}

/// Makes the kernel kill the child when the thread that forked it (the spawner) dies.
#[allow(unsafe_code)]
fn die_with_parent(command: &mut Command) {
    use std::os::unix::process::CommandExt;

    let parent = libc::pid_t::try_from(std::process::id()).unwrap_or(0);
    // SAFETY: the closure runs in the forked child before exec. It allocates nothing and
    // calls only async-signal-safe functions (prctl, getppid, _exit), as pre_exec requires.
    unsafe {
        command.pre_exec(move || {
            if libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL) != 0 {
                return Err(io::Error::last_os_error());
            }
            // The parent may have died between fork and prctl: then nobody will signal us.
            if libc::getppid() != parent {
                libc::_exit(1);
            }
            Ok(())
        });
    }
}
