//! A real nginx (Debian's, installed by `scripts/setup.sh`) on a free port of 127.0.0.1, for
//! tests that need an authenticating proxy or TLS in front of something: start it with the
//! `server { ... }` blocks you need, it is killed and its directory removed when dropped.
//!
//! nginx runs in the foreground as one process (`daemon off; master_process off`), with its
//! pid file, logs and temporary files in its own temporary directory, so it needs no root and
//! leaves nothing behind.

use std::net::TcpStream;
use std::path::Path;
use std::path::PathBuf;
use std::process::Child;
use std::process::Command;
use std::process::Stdio;
use std::time::Duration;
use std::time::Instant;

/// The token [`Nginx::auth_proxy`] wants (as `Authorization: Bearer` or `?token=`).
pub const PROXY_TOKEN: &str = "s3cret-t0ken";

/// `HOST:PORT` of a browser's DevTools websocket URL (`ws://127.0.0.1:PORT/devtools/...`).
pub fn devtools_authority(ws_url: &str) -> String {
    let rest = ws_url
        .strip_prefix("ws://")
        .or_else(|| ws_url.strip_prefix("wss://"))
        .unwrap_or(ws_url);
    rest.split('/').next().unwrap_or(rest).to_owned()
}

/// The `location` body proxying HTTP and websocket upgrades to `upstream` (`HOST:PORT` of a
/// browser's DevTools endpoint). Chromium is told its host is `localhost` (port 80), so the
/// websocket URL it reports works only once a client moves it onto the proxy's address.
pub fn proxy_location(upstream: &str) -> String {
    format!(
        "proxy_pass http://{upstream};
            proxy_http_version 1.1;
            proxy_set_header Upgrade $http_upgrade;
            proxy_set_header Connection $connection_upgrade;
            proxy_set_header Host localhost;
            proxy_read_timeout 3600s;
            proxy_buffering off;"
    )
}

/// How long nginx may take to accept connections.
const START_TIMEOUT: Duration = Duration::from_secs(30);

/// A running nginx; killed when dropped.
#[derive(Debug)]
pub struct Nginx {
    child: Child,
    port: u16,
    dir: tempfile::TempDir,
}

impl Nginx {
    /// Starts nginx with the `server` blocks `servers(port)` returns (inside `http { }`;
    /// `$connection_upgrade` is defined for websocket proxying), on a free port of 127.0.0.1,
    /// and waits until it accepts connections. Panics with nginx's error log if it cannot
    /// start (test-only code).
    pub async fn start(servers: impl Fn(u16) -> String) -> Self {
        let mut last_log = String::new();
        // A free port can be taken by someone else between our probe and nginx's bind:
        // then try another.
        for _ in 0..5 {
            let port = free_port();
            let dir = tempfile::Builder::new()
                .prefix("retrace-nginx-")
                .tempdir()
                .unwrap_or_else(|e| panic!("temporary directory for nginx: {e}"));
            let config = config(dir.path(), &servers(port));
            let config_path = dir.path().join("nginx.conf");
            std::fs::write(&config_path, config)
                .unwrap_or_else(|e| panic!("write {}: {e}", config_path.display()));
            let child = Command::new(executable())
                .arg("-p")
                .arg(dir.path())
                .arg("-c")
                .arg(&config_path)
                .arg("-e")
                .arg(dir.path().join("error.log"))
                .stdin(Stdio::null())
                .stdout(Stdio::null())
                .stderr(Stdio::null())
                .spawn()
                .unwrap_or_else(|e| panic!("cannot run nginx (run scripts/setup.sh): {e}"));
            let mut nginx = Self { child, port, dir };
            match nginx.wait_until_accepting().await {
                Ok(()) => return nginx,
                Err(log) => last_log = log,
            }
        }
        panic!("nginx did not start: {last_log}");
    }

    /// nginx refusing (401) every request without `Authorization: Bearer PROXY_TOKEN` or
    /// `?token=PROXY_TOKEN`, and proxying the rest (HTTP and websocket) to `upstream`
    /// (`HOST:PORT` of a browser's DevTools endpoint): a browser farm's front door.
    pub async fn auth_proxy(upstream: &str) -> Self {
        let proxy = proxy_location(upstream);
        Self::start(move |port| {
            format!(
                r#"server {{
        listen 127.0.0.1:{port};
        location / {{
            set $allowed 0;
            if ($http_authorization = "Bearer {PROXY_TOKEN}") {{ set $allowed 1; }}
            if ($arg_token = "{PROXY_TOKEN}") {{ set $allowed 1; }}
            if ($allowed = 0) {{ return 401 "missing or wrong credentials\n"; }}
            {proxy}
        }}
    }}"#
            )
        })
        .await
    }

    /// The port it listens on.
    pub fn port(&self) -> u16 {
        self.port
    }

    /// `http://127.0.0.1:PORT`.
    pub fn http_url(&self) -> String {
        format!("http://127.0.0.1:{}", self.port)
    }

    /// nginx's directory (configuration, logs).
    pub fn dir(&self) -> &Path {
        self.dir.path()
    }

    /// What nginx wrote to its error log so far.
    pub fn error_log(&self) -> String {
        std::fs::read_to_string(self.dir.path().join("error.log")).unwrap_or_default()
    }

    /// What nginx wrote to its access log so far (one line a request).
    pub fn access_log(&self) -> String {
        std::fs::read_to_string(self.dir.path().join("access.log")).unwrap_or_default()
    }

    /// Polls until the port accepts; `Err(error log)` if nginx exits or the time is up.
    async fn wait_until_accepting(&mut self) -> Result<(), String> {
        let started = Instant::now();
        loop {
            if TcpStream::connect(("127.0.0.1", self.port)).is_ok() {
                return Ok(());
            }
            if let Ok(Some(status)) = self.child.try_wait() {
                return Err(format!("nginx exited ({status}): {}", self.error_log()));
            }
            if started.elapsed() > START_TIMEOUT {
                return Err(format!(
                    "nginx did not accept within {START_TIMEOUT:?}: {}",
                    self.error_log()
                ));
            }
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    }
}

impl Drop for Nginx {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// `nginx` from `PATH`, else Debian's `/usr/sbin/nginx` (`/usr/sbin` is not on every user's
/// `PATH`).
fn executable() -> PathBuf {
    let in_path = std::env::var_os("PATH").and_then(|path| {
        std::env::split_paths(&path)
            .map(|dir| dir.join("nginx"))
            .find(|candidate| candidate.is_file())
    });
    in_path.unwrap_or_else(|| PathBuf::from("/usr/sbin/nginx"))
}

/// A port that was free a moment ago.
pub(crate) fn free_port() -> u16 {
    let listener = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap_or_else(|e| panic!("bind 127.0.0.1:0: {e}"));
    listener
        .local_addr()
        .unwrap_or_else(|e| panic!("local address: {e}"))
        .port()
}

/// The whole configuration: one foreground process, everything under `dir`.
fn config(dir: &Path, servers: &str) -> String {
    let dir = dir.display();
    format!(
        r#"daemon off;
master_process off;
worker_processes 1;
pid {dir}/nginx.pid;
error_log {dir}/error.log info;
events {{ worker_connections 256; }}
http {{
    access_log {dir}/access.log;
    client_body_temp_path {dir}/client_body;
    proxy_temp_path {dir}/proxy;
    fastcgi_temp_path {dir}/fastcgi;
    uwsgi_temp_path {dir}/uwsgi;
    scgi_temp_path {dir}/scgi;
    map $http_upgrade $connection_upgrade {{ default upgrade; '' close; }}
{servers}
}}
"#
    )
}
