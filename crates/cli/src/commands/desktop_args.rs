//! The desktop flags the commands share, declared once: `--display :N` or `--desktop`
//! (`$DISPLAY`) instead of `--url`, `--app "COMMAND"` and `--window NAME|CLASS`.

use std::time::Duration;

use anyhow::bail;
use retrace_protocol::events::Events;
use retrace_report::ConsoleSink;
use retrace_report::secrets::Secrets;
use retrace_runner::desktop::DesktopConfig;

/// Which desktop, application and window a command works on.
#[derive(Debug, Clone, clap::Args)]
pub struct DesktopArgs {
    /// Work on this X11 display (`:99`, an Xvfb or a real desktop) instead of a browser.
    #[arg(long, value_name = ":N", conflicts_with = "desktop")]
    pub display: Option<String>,
    /// Work on the X11 display `$DISPLAY` names instead of a browser.
    #[arg(long)]
    pub desktop: bool,
    /// Start this application for the run (a shell command, its own process group); it is
    /// ended, with every process it started, when the run ends. Needs --window.
    #[arg(long, value_name = "COMMAND")]
    pub app: Option<String>,
    /// Target one window: a title containing NAME, or a WM_CLASS equal to it. Points are
    /// relative to it (a window that opens elsewhere replays), and screenshots show only the
    /// application's windows (its menus and dialogs included).
    #[arg(long, value_name = "NAME|CLASS")]
    pub window: Option<String>,
    /// The longest wait, in seconds, for the window to show and its content to be still.
    #[arg(long, value_name = "SECONDS", default_value_t = 30.0)]
    pub window_timeout: f64,
}

impl DesktopArgs {
    /// The desktop these flags name, `None` for a browser command. `url` is the command's
    /// `--url`: exactly one of the two targets is needed.
    pub fn config(&self, url: Option<&str>) -> anyhow::Result<Option<DesktopConfig>> {
        let on_desktop = self.display.is_some() || self.desktop;
        match (on_desktop, url) {
            (true, Some(url)) => {
                bail!("give either --url ({url}) or --display/--desktop, not both")
            }
            (false, None) => bail!("give the target: --url URL, or --display :N / --desktop"),
            (false, Some(_)) => {
                for (flag, given) in [
                    ("--app", self.app.is_some()),
                    ("--window", self.window.is_some()),
                ] {
                    if given {
                        bail!("{flag} is for a desktop target: add --display :N or --desktop");
                    }
                }
                Ok(None)
            }
            (true, None) => {
                let Ok(timeout) = Duration::try_from_secs_f64(self.window_timeout) else {
                    bail!(
                        "--window-timeout {}: expected a number of seconds, 0 or more",
                        self.window_timeout
                    );
                };
                Ok(Some(DesktopConfig {
                    display: self.display.clone(),
                    app: self.app.clone(),
                    window: self.window.clone(),
                    timeout: Some(timeout),
                    env: Vec::new(),
                }))
            }
        }
    }
}

/// Events for a command with no event display of its own (`screenshot`, `do`): what the
/// desktop target has to say (`target_notice`) goes to stderr, keeping stdout for results.
pub fn notices() -> Events {
    let mut events = Events::none();
    events.subscribe(ConsoleSink::to_writer(
        crate::output::stderr_writer(),
        Secrets::default(),
    ));
    events
}

#[cfg(test)]
mod tests {
    use super::DesktopArgs;

    fn args() -> DesktopArgs {
        DesktopArgs {
            display: Some(":99".into()),
            desktop: false,
            app: None,
            window: Some("Mousepad".into()),
            window_timeout: 30.0,
        }
    }

    #[test]
    fn one_target_is_needed_and_bad_values_say_what_is_expected() {
        let config = args().config(None).unwrap().unwrap();
        assert_eq!(config.display.as_deref(), Some(":99"));
        assert_eq!(config.window.as_deref(), Some("Mousepad"));
        let both = args().config(Some("http://x/")).unwrap_err().to_string();
        assert!(both.contains("not both"), "{both}");
        let browser = DesktopArgs {
            display: None,
            ..args()
        };
        let window_only = browser.config(Some("http://x/")).unwrap_err().to_string();
        assert!(
            window_only.contains("--window is for a desktop target"),
            "{window_only}"
        );
        let none = DesktopArgs {
            window: None,
            ..browser
        };
        assert!(none.config(Some("http://x/")).unwrap().is_none());
        assert!(
            none.config(None)
                .unwrap_err()
                .to_string()
                .contains("--url URL")
        );
        for bad in [f64::INFINITY, -1.0, f64::NAN] {
            let timeout = DesktopArgs {
                window_timeout: bad,
                ..args()
            };
            let error = timeout.config(None).unwrap_err().to_string();
            assert!(error.contains("--window-timeout"), "{error}");
        }
    }
}
