//! The browser flags every browser command shares, declared once: `--chromium` (launch this
//! executable) or `--connect` (use a running browser), plus the `WxH` size parser.

use std::path::PathBuf;

use retrace_runner::BrowserConfig;
use retrace_runner::BrowserTarget;
use retrace_runner::browser::RemoteAccess;

/// `--chromium`, declared here once for every command that launches Chromium (the browser
/// commands through [`BrowserArgs`], `check` directly, where a spec file may name it too).
#[derive(Debug, Clone, clap::Args)]
pub struct ChromiumArg {
    /// The Chromium executable to launch (default: the headless shell,
    /// /usr/lib/chromium/chromium-headless-shell, when installed, else /usr/bin/chromium). A
    /// wrapper script must exec the browser.
    #[arg(long = "chromium", value_name = "PATH", env = "RETRACE_CHROMIUM")]
    pub path: Option<PathBuf>,
}

impl ChromiumArg {
    /// The executable given, or the default one.
    pub fn executable(&self) -> PathBuf {
        self.path
            .clone()
            .unwrap_or_else(retrace_runner::chromium_path::default_executable)
    }
}

/// Which browser a command uses.
#[derive(Debug, Clone, clap::Args)]
pub struct BrowserArgs {
    #[command(flatten)]
    pub chromium: ChromiumArg,
    /// Use a running Chromium instead of launching one: its DevTools endpoint, `ws://...` or
    /// `http://HOST:PORT` (started with `--remote-debugging-port=PORT`). Each session gets a
    /// browser context of its own, so it shares no cookies with other clients.
    /// `selenium+http://HUB:4444` asks a Selenium Grid 4 for a browser (kept alive while it
    /// runs, deleted at the end). `?token=` in the URL is kept.
    #[arg(long, value_name = "URL", env = "RETRACE_CONNECT")]
    pub connect: Option<String>,
    /// A header for the remote browser, `'Name: value'` (repeatable): sent on discovery,
    /// WebDriver requests and the websocket upgrade (`Authorization: Bearer ...`). Also
    /// `RETRACE_CONNECT_HEADERS`, one header a line. Values never reach a log.
    #[arg(
        long = "connect-header",
        value_name = "'NAME: VALUE'",
        requires = "connect"
    )]
    pub connect_headers: Vec<String>,
    /// A PEM file of CA certificates to trust for `https://`/`wss://` endpoints, besides the
    /// system's (a private farm's CA).
    #[arg(
        long,
        value_name = "FILE",
        env = "RETRACE_CONNECT_CA",
        requires = "connect"
    )]
    pub connect_ca: Option<PathBuf>,
    /// At most N sessions at once on the remote endpoint from this process; more wait.
    #[arg(long, value_name = "N", requires = "connect")]
    pub max_sessions: Option<std::num::NonZeroUsize>,
}

impl BrowserArgs {
    /// The browser these flags name, at `size`.
    pub fn config(&self, size: (u32, u32)) -> BrowserConfig {
        let target = match &self.connect {
            Some(endpoint) => BrowserTarget::Connect {
                endpoint: endpoint.clone(),
                access: RemoteAccess {
                    header_lines: self.header_lines(),
                    ca_file: self.connect_ca.clone(),
                    max_sessions: self.max_sessions,
                },
            },
            None => BrowserTarget::Launch {
                chromium: self.chromium.executable(),
            },
        };
        BrowserConfig { target, size }
    }

    /// `--connect-header` values, then the lines of `RETRACE_CONNECT_HEADERS`.
    fn header_lines(&self) -> Vec<String> {
        let mut lines = self.connect_headers.clone();
        if let Ok(text) = std::env::var("RETRACE_CONNECT_HEADERS") {
            lines.extend(
                text.lines()
                    .filter(|line| !line.trim().is_empty())
                    .map(str::to_owned),
            );
        }
        lines
    }
}

/// Parses `WIDTHxHEIGHT` (both 1..=10000).
pub fn parse_size(text: &str) -> Result<(u32, u32), String> {
    let parsed = text
        .split_once(['x', 'X'])
        .and_then(|(w, h)| Some((w.trim().parse::<u32>().ok()?, h.trim().parse::<u32>().ok()?)));
    match parsed {
        Some((w, h)) if w > 0 && h > 0 && w <= 10_000 && h <= 10_000 => Ok((w, h)),
        _ => Err(format!(
            "`{text}` is not a size: expected WIDTHxHEIGHT such as 1280x800 (1..10000 each)"
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::parse_size;

    #[test]
    fn sizes_parse_and_bad_ones_say_what_is_expected() {
        assert_eq!(parse_size("1280x800"), Ok((1280, 800)));
        assert_eq!(parse_size("640X480"), Ok((640, 480)));
        for bad in ["1280", "0x800", "axb", "1280x", "20000x10"] {
            let error = parse_size(bad).unwrap_err();
            assert!(error.contains("WIDTHxHEIGHT"), "{bad}: {error}");
        }
    }
}
