//! A real S3 server for tests: moto's server mode (`moto_server`, from PyPI, installed into a
//! pinned venv by [`crate::python::venv`]) on a free port of 127.0.0.1, killed when dropped.
//!
//! moto implements S3's conditional writes (`If-None-Match: *`, `If-Match`), signature
//! checking off, so any key pair works. [`Moto::env`] gives the standard AWS variables a
//! client needs to reach it (endpoint, region, keys). When the venv cannot be made, [`Moto::start`]
//! follows the venv rule: a failure under `CI=true`, a printed skip (and `None`) elsewhere.

use std::io::Read;
use std::io::Write;
use std::net::TcpStream;
use std::path::PathBuf;
use std::process::Child;
use std::process::Command;
use std::process::Stdio;
use std::time::Duration;
use std::time::Instant;

/// The moto release the tests run against.
pub const REQUIREMENTS: &[&str] = &["moto[server]==5.2.5"];

/// How long moto may take to answer (a cold Python start on a loaded machine).
const START_TIMEOUT: Duration = Duration::from_secs(90);

/// A running moto server; killed when dropped.
#[derive(Debug)]
pub struct Moto {
    child: Child,
    port: u16,
    log: tempfile::NamedTempFile,
}

impl Moto {
    /// Installs moto (once) and starts it; `None` after a skip message when it cannot be
    /// installed outside CI.
    ///
    /// # Panics
    /// When moto does not start (with its log), or under `CI=true` when it cannot be
    /// installed.
    pub async fn start() -> Option<Moto> {
        let python = crate::python::venv(REQUIREMENTS)?;
        let server = python.with_file_name("moto_server");
        let mut last_log = String::new();
        // A free port can be taken between our probe and moto's bind: then try another.
        for _ in 0..5 {
            let port = crate::nginx::free_port();
            let log = tempfile::NamedTempFile::new()
                .unwrap_or_else(|e| panic!("temporary log file for moto: {e}"));
            let child = Command::new(&server)
                .args(["-H", "127.0.0.1", "-p", &port.to_string()])
                .stdin(Stdio::null())
                .stdout(log.reopen().map_or_else(|_| Stdio::null(), Stdio::from))
                .stderr(log.reopen().map_or_else(|_| Stdio::null(), Stdio::from))
                .spawn()
                .unwrap_or_else(|e| panic!("cannot run {}: {e}", server.display()));
            let mut moto = Moto { child, port, log };
            match moto.wait_until_answering().await {
                Ok(()) => return Some(moto),
                Err(log) => last_log = log,
            }
        }
        panic!("moto did not start: {last_log}");
    }

    /// `http://127.0.0.1:PORT`.
    pub fn endpoint(&self) -> String {
        format!("http://127.0.0.1:{}", self.port)
    }

    /// The AWS variables that point a client at this server.
    pub fn env(&self) -> Vec<(&'static str, String)> {
        vec![
            ("AWS_ENDPOINT_URL", self.endpoint()),
            ("AWS_REGION", "us-east-1".to_owned()),
            ("AWS_ACCESS_KEY_ID", "testing".to_owned()),
            ("AWS_SECRET_ACCESS_KEY", "testing".to_owned()),
        ]
    }

    /// Creates bucket `name` (3 to 63 characters, as S3 wants; moto accepts an unsigned
    /// request).
    ///
    /// # Panics
    /// When moto does not answer 200.
    pub fn create_bucket(&self, name: &str) {
        let status = self.request(&format!("PUT /{name} HTTP/1.1"));
        assert!(status.contains(" 200 "), "create bucket {name}: {status}");
    }

    /// What moto printed so far.
    pub fn log(&self) -> String {
        std::fs::read_to_string(self.log.path()).unwrap_or_default()
    }

    /// The path of moto's log file.
    pub fn log_path(&self) -> PathBuf {
        self.log.path().to_path_buf()
    }

    /// Sends one bodiless request and returns the status line.
    fn request(&self, request_line: &str) -> String {
        let mut stream = TcpStream::connect(("127.0.0.1", self.port))
            .unwrap_or_else(|e| panic!("connect to moto: {e}"));
        let _ = stream.set_read_timeout(Some(Duration::from_secs(60)));
        let request = format!(
            "{request_line}\r\nHost: 127.0.0.1:{}\r\nContent-Length: 0\r\nConnection: close\r\n\r\n",
            self.port
        );
        stream
            .write_all(request.as_bytes())
            .unwrap_or_else(|e| panic!("send to moto: {e}"));
        let mut answer = String::new();
        let _ = stream.read_to_string(&mut answer);
        answer.lines().next().unwrap_or_default().to_owned()
    }

    /// Polls until moto answers HTTP; `Err(log)` if it exits or the time is up.
    async fn wait_until_answering(&mut self) -> Result<(), String> {
        let started = Instant::now();
        loop {
            if TcpStream::connect(("127.0.0.1", self.port)).is_ok()
                && self.request("GET / HTTP/1.1").starts_with("HTTP/")
            {
                return Ok(());
            }
            if let Ok(Some(status)) = self.child.try_wait() {
                return Err(format!("moto exited ({status}): {}", self.log()));
            }
            if started.elapsed() > START_TIMEOUT {
                return Err(format!(
                    "moto did not answer within {START_TIMEOUT:?}: {}",
                    self.log()
                ));
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    }
}

impl Drop for Moto {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
