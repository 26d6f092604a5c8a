//! A private Xvfb X server for desktop tests, killed when dropped.
//!
//! The server picks its own free display number (`-displayfd`), so tests running in
//! parallel, and other people's servers on the same machine, never collide. X clients are
//! started with [`Xvfb::display`] in their `DISPLAY`; nothing touches this process's
//! environment.

use std::io::BufRead;
use std::io::BufReader;
use std::io::Read;
use std::path::PathBuf;
use std::process::Child;
use std::process::Command;
use std::process::Stdio;

/// Where Debian installs Xvfb; `PATH` is searched when it is not there.
const XVFB: &str = "/usr/bin/Xvfb";

/// A running Xvfb server. Dropping it kills the server and removes its lock file and socket.
#[derive(Debug)]
pub struct Xvfb {
    child: Child,
    number: u32,
}

impl Xvfb {
    /// The Xvfb binary, if installed.
    pub fn binary() -> Option<PathBuf> {
        let default = PathBuf::from(XVFB);
        if default.is_file() {
            return Some(default);
        }
        std::env::var_os("PATH").and_then(|paths| {
            std::env::split_paths(&paths)
                .map(|dir| dir.join("Xvfb"))
                .find(|p| p.is_file())
        })
    }

    /// Starts Xvfb with one screen of `width` x `height` at `depth` bits (24 for the usual
    /// TrueColor screen, 16 for a 565 one) and waits until it accepts connections.
    ///
    /// Returns `None` only when Xvfb is not installed, so a test can skip with a message; any
    /// other failure panics with Xvfb's own output (test-only code: a broken server should stop
    /// the test loudly).
    pub fn start(width: u32, height: u32, depth: u32) -> Option<Self> {
        let binary = Self::binary()?;
        let mut log =
            tempfile::tempfile().unwrap_or_else(|e| panic!("cannot make a log file: {e}"));
        let log_for_child = log
            .try_clone()
            .unwrap_or_else(|e| panic!("cannot share the log file: {e}"));
        let mut child = Command::new(&binary)
            .args(["-displayfd", "1", "-nolisten", "tcp", "-screen", "0"])
            .arg(format!("{width}x{height}x{depth}"))
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(log_for_child)
            .spawn()
            .unwrap_or_else(|e| panic!("cannot start {}: {e}", binary.display()));
        // Xvfb writes the display number to the -displayfd descriptor once it is ready.
        let mut line = String::new();
        if let Some(stdout) = child.stdout.take() {
            let _ = BufReader::new(stdout).read_line(&mut line);
        }
        let Ok(number) = line.trim().parse::<u32>() else {
            let _ = child.kill();
            let _ = child.wait();
            let mut text = String::new();
            let _ = std::io::Seek::rewind(&mut log).and_then(|()| log.read_to_string(&mut text));
            panic!("Xvfb did not report a display number (got {line:?}); its log:\n{text}");
        };
        Some(Self { child, number })
    }

    /// The display name to put in `DISPLAY` (`":3"`).
    pub fn display(&self) -> String {
        format!(":{}", self.number)
    }

    /// A command for an X client program on this server (`DISPLAY` set on the command only).
    pub fn command(&self, program: &str) -> Command {
        let mut command = Command::new(program);
        command.env("DISPLAY", self.display());
        command
    }
}

impl Drop for Xvfb {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
        // A killed server leaves these behind; the next server would clean them up, but a
        // test should leave /tmp as it found it.
        let _ = std::fs::remove_file(format!("/tmp/.X{}-lock", self.number));
        let _ = std::fs::remove_file(format!("/tmp/.X11-unix/X{}", self.number));
    }
}
