//! The harness of the `retrace record` tests: the recorder's lines, the X screen, xdotool.
use std::io::BufRead;
use std::io::BufReader;
use std::path::Path;
use std::path::PathBuf;
use std::process::Child;
use std::process::Command;
use std::process::Stdio;
use std::sync::mpsc;
use std::sync::mpsc::Receiver;
use std::sync::mpsc::RecvTimeoutError;
use std::time::Duration;
use std::time::Instant;

use retrace_drive::Backend;
use retrace_drive::x11::X11Backend;
use retrace_test_support::xvfb::Xvfb;
use retrace_vision::Image;
use retrace_vision::ImageHash;
use retrace_vision::Method;

pub const RETRACE: &str = env!("CARGO_BIN_EXE_retrace");

/// How long any one thing may take on a loaded machine before the test gives up.
pub const DEADLINE: Duration = Duration::from_secs(90);

/// The viewport `retrace record` opens by default, in CSS pixels.
pub const VIEWPORT: (u32, u32) = (1280, 800);

/// The longest wait for a line from the recorder before looking again.
pub const POLL: Duration = Duration::from_millis(20);

/// `retrace record` running, its stdout lines collected as they come.
pub struct Recorder {
    pub child: Child,
    pub incoming: Receiver<String>,
    pub lines: Vec<String>,
    pub stderr: PathBuf,
}

impl Recorder {
    /// Starts `retrace record`, with `DISPLAY` set to `display` (unset for `None`).
    pub fn start(
        display: Option<&str>,
        url: &str,
        out: &Path,
        events: &Path,
        stderr: &Path,
        extra: &[String],
    ) -> Self {
        let mut child = Command::new(RETRACE)
            .args(["record", "--url", url, "--out"])
            .arg(out)
            .arg("--events")
            .arg(events)
            // The user name is no secret: the person names it a parameter.
            .args(["--param", "username=demo"])
            .args(extra)
            .env_remove("DISPLAY")
            .envs(display.map(|display| ("DISPLAY", display)))
            .stdout(Stdio::piped())
            .stderr(std::fs::File::create(stderr).unwrap())
            .spawn()
            .unwrap();
        let (sender, incoming) = mpsc::channel();
        let stdout = child.stdout.take().unwrap();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { break };
                if sender.send(line).is_err() {
                    break;
                }
            }
        });
        Self {
            child,
            incoming,
            lines: Vec::new(),
            stderr: stderr.to_path_buf(),
        }
    }

    /// Its stdout so far, and its stderr.
    pub fn text(&self) -> String {
        format!("{}\nstderr: {}", self.lines.join("\n"), read(&self.stderr))
    }

    /// Takes the lines printed within `wait`; false once stdout closed (the process ended).
    pub fn take_lines(&mut self, wait: Duration) -> bool {
        match self.incoming.recv_timeout(wait) {
            Ok(line) => {
                self.lines.push(line);
                while let Ok(line) = self.incoming.try_recv() {
                    self.lines.push(line);
                }
                true
            }
            Err(RecvTimeoutError::Timeout) => true,
            Err(RecvTimeoutError::Disconnected) => false,
        }
    }

    /// Waits until `count` lines contain `needle`; returns the last of them.
    pub fn wait_lines(&mut self, needle: &str, count: usize) -> String {
        let started = Instant::now();
        loop {
            let found: Vec<&String> = self
                .lines
                .iter()
                .filter(|line| line.contains(needle))
                .collect();
            if found.len() >= count {
                return found[count - 1].clone();
            }
            assert!(
                started.elapsed() < DEADLINE,
                "no {count} lines with {needle:?}:\n{}",
                self.text()
            );
            assert!(
                self.take_lines(POLL),
                "retrace record ended before {needle:?}:\n{}",
                self.text()
            );
        }
    }

    pub fn wait_line(&mut self, needle: &str) -> String {
        self.wait_lines(needle, 1)
    }

    /// Sends SIGINT (Ctrl-C), reads the last lines and returns the exit code.
    pub fn interrupt(self) -> (Option<i32>, String) {
        let pid = self.child.id().to_string();
        let sent = Command::new("kill").args(["-INT", &pid]).status().unwrap();
        assert!(sent.success());
        self.wait_exit()
    }

    /// Reads the last lines until the process ends, and returns its exit code.
    pub fn wait_exit(mut self) -> (Option<i32>, String) {
        let started = Instant::now();
        while self.take_lines(POLL) {
            assert!(
                started.elapsed() < DEADLINE,
                "still running:\n{}",
                self.text()
            );
        }
        // Stdout closed: the process has exited.
        let status = self.child.wait().unwrap();
        (status.code(), self.text())
    }
}

/// The X screen, read through the same X11 backend retrace's desktop replay uses, and the
/// place of the browser's viewport on it.
pub struct Screen {
    pub x11: X11Backend,
    pub runtime: tokio::runtime::Runtime,
    pub display: String,
    pub origin: (i64, i64),
}

impl Screen {
    pub fn grab(&self) -> Image {
        let shot = self.runtime.block_on(self.x11.screenshot()).unwrap();
        retrace_vision::decode_png(&shot.png).unwrap()
    }

    /// The viewport's part of a screen grab (what the person sees of the page).
    pub fn viewport(&self, screen: &Image) -> Image {
        let channels = screen.layout().channels();
        let (left, top) = (self.origin.0 as usize, self.origin.1 as usize);
        let (width, height) = VIEWPORT;
        let stride = screen.width() as usize * channels;
        let mut pixels = Vec::with_capacity(width as usize * height as usize * channels);
        for row in top..top + height as usize {
            let start = row * stride + left * channels;
            pixels.extend_from_slice(&screen.data()[start..start + width as usize * channels]);
        }
        Image::new(width, height, screen.layout(), pixels).unwrap()
    }

    /// The hash replay stores for an action at viewport point `at` (the 100 px square, pHash,
    /// clipped to the viewport as replay's screenshots are).
    pub fn hash_at(&self, screen: &Image, at: (i64, i64)) -> ImageHash {
        let viewport = self.viewport(screen);
        retrace_replay::recorder::region_hash_at(&viewport, at, Method::Phash, 100, 8).unwrap()
    }

    /// The region's hash once two looks in a row agree.
    pub fn settled(&self, at: (i64, i64)) -> ImageHash {
        self.settled_where(at, |_| true)
    }

    /// Waits until the region at `at` is no longer `before` and holds still.
    pub fn changed(&self, at: (i64, i64), before: &ImageHash) -> ImageHash {
        self.settled_where(at, |hash| hash != before)
    }

    pub fn settled_where(&self, at: (i64, i64), wanted: impl Fn(&ImageHash) -> bool) -> ImageHash {
        let started = Instant::now();
        let mut last = None;
        loop {
            let hash = self.hash_at(&self.grab(), at);
            if last.as_ref() == Some(&hash) && wanted(&hash) {
                return hash;
            }
            last = Some(hash);
            // No pause between looks: each is a whole screen grab, decoded and hashed.
            assert!(
                started.elapsed() < DEADLINE,
                "the screen at {at:?} never settled as wanted"
            );
        }
    }

    /// Moves the pointer to viewport point `at`.
    pub fn point_at(&self, at: (i64, i64)) {
        let (x, y) = (at.0 + self.origin.0, at.1 + self.origin.1);
        xdotool(
            &self.display,
            &["mousemove", &x.to_string(), &y.to_string()],
        );
    }

    /// Clicks `button` (xdotool's number) at viewport point `at`.
    pub fn click(&self, at: (i64, i64), button: &str) {
        let (x, y) = (at.0 + self.origin.0, at.1 + self.origin.1);
        xdotool(
            &self.display,
            &["mousemove", &x.to_string(), &y.to_string(), "click", button],
        );
    }
}

pub fn xdotool(display: &str, args: &[&str]) {
    let status = Command::new("xdotool")
        .args(args)
        .env("DISPLAY", display)
        .status()
        .expect("xdotool runs (apt-get install xdotool)");
    assert!(status.success(), "xdotool {args:?}: {status}");
}

/// Moves the pointer over the window until the recorder says where the viewport is.
pub fn find_viewport(recorder: &mut Recorder, display: &str) -> (i64, i64) {
    let started = Instant::now();
    let mut wiggle = 0;
    loop {
        if let Some(line) = recorder
            .text()
            .lines()
            .find(|line| line.contains("the viewport is at"))
        {
            let numbers: Vec<i64> = line
                .split(|c: char| !c.is_ascii_digit() && c != '-')
                .filter_map(|part| part.parse().ok())
                .collect();
            return (numbers[0], numbers[1]);
        }
        assert!(
            started.elapsed() < DEADLINE,
            "no viewport line:\n{}",
            recorder.text()
        );
        wiggle = 1 - wiggle;
        xdotool(
            display,
            &["mousemove", &(600 + wiggle * 10).to_string(), "500"],
        );
        assert!(
            recorder.take_lines(POLL),
            "retrace record ended:\n{}",
            recorder.text()
        );
    }
}

pub fn read(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap_or_default()
}

/// A private Xvfb of 1600x1000: room for the 1280x800 viewport and the browser's toolbar.
pub fn screen() -> Xvfb {
    Xvfb::start(1600, 1000, 24).unwrap()
}

/// One recording under a private Xvfb: the recorder started on `url`, the viewport found.
pub struct Session {
    pub recorder: Recorder,
    pub screen: Screen,
    pub file: PathBuf,
    pub events: PathBuf,
    pub stderr: PathBuf,
    pub dir: tempfile::TempDir,
    pub xvfb: Xvfb,
}

impl Session {
    /// Starts Xvfb ([`screen`]), `retrace record` on `url` writing `file_name`, and finds
    /// the viewport on the screen.
    pub fn start(url: &str, file_name: &str) -> Self {
        Self::start_on(screen(), url, file_name, &[], true)
    }

    /// The same on `xvfb`, with `extra` arguments for `retrace record`, which is told of the
    /// display (`DISPLAY`) only when `tell_display`.
    pub fn start_on(
        xvfb: Xvfb,
        url: &str,
        file_name: &str,
        extra: &[String],
        tell_display: bool,
    ) -> Self {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join(file_name);
        let events = dir.path().join("events.jsonl");
        let stderr = dir.path().join("stderr.log");
        let display = xvfb.display();
        let told = tell_display.then_some(display.as_str());
        let mut recorder = Recorder::start(told, url, &file, &events, &stderr, extra);
        recorder.wait_line("recording ");
        let origin = find_viewport(&mut recorder, &xvfb.display());
        let runtime = retrace_test_support::cli::runtime();
        let x11 = runtime
            .block_on(X11Backend::connect(Some(&xvfb.display())))
            .unwrap();
        let screen = Screen {
            x11,
            runtime,
            display: xvfb.display(),
            origin,
        };
        Self {
            recorder,
            screen,
            file,
            events,
            stderr,
            dir,
            xvfb,
        }
    }
}

/// Asserts `retrace cache check` passes on the recorded `file`.
pub fn passes_cache_check(file: &Path) {
    let check = Command::new(RETRACE)
        .args(["cache", "check"])
        .arg(file)
        .output()
        .unwrap();
    assert_eq!(
        check.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&check.stdout)
    );
}

/// `retrace replay FILE --url URL --json` in a headless browser, with no model key, each step
/// given 10 s.
pub fn replay_headless(file: &Path, url: &str) -> std::process::Output {
    Command::new(RETRACE)
        .arg("replay")
        .arg(file)
        .args(["--url", url, "--json", "--step-timeout", "10"])
        .env_remove("ANTHROPIC_API_KEY")
        .env_remove("OPENAI_API_KEY")
        .output()
        .unwrap()
}
