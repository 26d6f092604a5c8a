//! [`FarmServer`]: a real farm's server process (a Selenium Grid's JVM, browserless's Node)
//! started by a test on a free port of 127.0.0.1, its output in a log file, waited for until
//! it answers, and killed with every browser it started when dropped.

use std::io::Read;
use std::io::Write;
use std::path::Path;
use std::process::Child;
use std::process::Command;
use std::process::Stdio;
use std::time::Duration;

/// How long a farm may take to start: a JVM or Node loading its routes on a loaded machine.
const START_TIMEOUT: Duration = Duration::from_secs(240);

/// A running farm server; killed with its descendants when dropped.
#[derive(Debug)]
pub(crate) struct FarmServer {
    name: &'static str,
    child: Child,
    port: u16,
    log: std::path::PathBuf,
}

impl FarmServer {
    /// Spawns `command` (its output to `dir/NAME.log`) listening on `port`, and waits until
    /// `GET path` (with `authorization` if given) answers with a status line and body for
    /// which `ready` holds. `Err` with the log when the process exits first (its port may
    /// have been taken: the caller tries another).
    ///
    /// # Panics
    /// When it cannot be spawned, or does not get ready within 240 s.
    pub(crate) fn start(
        name: &'static str,
        mut command: Command,
        dir: &Path,
        port: u16,
        probe: (&str, Option<&str>),
        ready: impl Fn(&str) -> bool,
    ) -> Result<Self, String> {
        let log = dir.join(format!("{name}.log"));
        let file = std::fs::File::create(&log).unwrap_or_else(|e| panic!("{}: {e}", log.display()));
        let err = file
            .try_clone()
            .unwrap_or_else(|e| panic!("{}: {e}", log.display()));
        let child = command
            .stdin(Stdio::null())
            .stdout(file)
            .stderr(err)
            .spawn()
            .unwrap_or_else(|e| panic!("cannot start {name}: {e}"));
        let mut server = Self {
            name,
            child,
            port,
            log,
        };
        let (path, authorization) = probe;
        let up = crate::cli::poll(START_TIMEOUT, || {
            if let Ok(Some(status)) = server.child.try_wait() {
                return Some(Err(format!("{name} exited ({status}): {}", server.log())));
            }
            http_get(port, path, authorization)
                .filter(|answer| ready(answer))
                .map(|_| Ok(()))
        });
        match up {
            Some(Ok(())) => Ok(server),
            Some(Err(log)) => Err(log),
            None => panic!(
                "{name} did not get ready in {START_TIMEOUT:?}: {}",
                server.log()
            ),
        }
    }

    /// Its port on 127.0.0.1.
    pub(crate) fn port(&self) -> u16 {
        self.port
    }

    /// What it printed so far.
    pub(crate) fn log(&self) -> String {
        std::fs::read_to_string(&self.log).unwrap_or_default()
    }

    /// The live browser processes (and drivers) it started: its descendants whose command
    /// line names Chromium or ChromeDriver.
    pub(crate) fn browsers(&self) -> Vec<u32> {
        crate::processes::descendants_with_cmdline_containing(self.child.id(), "chrom")
    }
}

impl Drop for FarmServer {
    fn drop(&mut self) {
        crate::processes::kill_descendants(self.child.id());
        let _ = self.child.kill();
        let _ = self.child.wait();
        if std::thread::panicking() {
            // Its folder goes with the test: show what it said.
            eprintln!("{} log:\n{}", self.name, self.log());
        }
    }
}

/// `GET path` on 127.0.0.1:`port` over HTTP/1.0: the answer's status line and body, or
/// `None` when nothing answers.
fn http_get(port: u16, path: &str, authorization: Option<&str>) -> Option<String> {
    let address = std::net::SocketAddr::from(([127, 0, 0, 1], port));
    let mut stream = std::net::TcpStream::connect_timeout(&address, Duration::from_secs(5)).ok()?;
    stream
        .set_read_timeout(Some(Duration::from_secs(30)))
        .ok()?;
    let auth = authorization
        .map(|value| format!("Authorization: {value}\r\n"))
        .unwrap_or_default();
    let request = format!("GET {path} HTTP/1.0\r\nHost: 127.0.0.1:{port}\r\n{auth}\r\n");
    stream.write_all(request.as_bytes()).ok()?;
    let mut answer = String::new();
    stream.read_to_string(&mut answer).ok()?;
    let status = answer.lines().next()?.to_owned();
    let body = answer
        .split_once("\r\n\r\n")
        .map(|(_, body)| body)
        .unwrap_or_default();
    Some(format!("{status}\n{body}"))
}
