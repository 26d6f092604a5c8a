//! [`AccessibilityBus`]: a session D-Bus and the accessibility bus (AT-SPI) of one run, so
//! the application under test publishes its widgets to retrace and to nothing else.
//!
//! It starts `dbus-daemon --session` and `at-spi-bus-launcher` (which starts the
//! accessibility bus's own `dbus-daemon` and `at-spi2-registryd`) as [`AppProcess`]es, with
//! a runtime directory of their own (the launcher puts the bus's socket there, so two runs
//! never share one). The application gets [`AccessibilityBus::app_env`]. [`AccessibilityBus::end`]
//! ends every process they started. Waits are polled with deadlines: no fixed sleep.

use std::time::Duration;
use std::time::Instant;

use atspi::zbus;

use super::super::app::AppProcess;
use crate::error::DriveError;

/// The backend name in errors.
pub const NAME: &str = "atspi";

/// The accessibility bus's launcher (Debian's `at-spi2-core`).
pub const LAUNCHER: &str = "/usr/libexec/at-spi-bus-launcher";

/// How often the bus's address is polled while it starts.
const POLL: Duration = Duration::from_millis(50);

/// A session bus and accessibility bus started for one run.
#[derive(Debug)]
pub struct AccessibilityBus {
    session: AppProcess,
    launcher: AppProcess,
    session_address: String,
    address: String,
    /// Holds the launcher's runtime directory (and the bus's socket) while the run lasts.
    _runtime: tempfile::TempDir,
}

impl AccessibilityBus {
    /// Starts both buses for `display`, waiting at most `timeout` for them to answer.
    pub async fn start(display: &str, timeout: Duration) -> Result<Self, DriveError> {
        let runtime = tempfile::Builder::new()
            .prefix("retrace-atspi-")
            .tempdir()
            .map_err(|error| launch_error(format!("making a runtime directory: {error}")))?;
        let address_file = runtime.path().join("session-address");
        let session = AppProcess::start(
            &format!(
                "exec dbus-daemon --session --nofork --print-address=1 > '{}'",
                address_file.display()
            ),
            display,
        )?;
        let started = Instant::now();
        let mut session = session;
        let session_address = loop {
            let text = std::fs::read_to_string(&address_file).unwrap_or_default();
            if let Some(line) = text.lines().next().filter(|line| !line.is_empty()) {
                break line.to_owned();
            }
            if session.has_exited() {
                return Err(launch_error(
                    "dbus-daemon --session exited at once (is Debian's dbus-daemon installed?)"
                        .to_owned(),
                ));
            }
            if started.elapsed() >= timeout {
                return Err(launch_error(format!(
                    "the session bus (dbus-daemon --session) gave no address within {:.1} s",
                    timeout.as_secs_f64()
                )));
            }
            tokio::time::sleep(POLL).await;
        };
        let env = vec![
            (
                "DBUS_SESSION_BUS_ADDRESS".to_owned(),
                session_address.clone(),
            ),
            (
                "XDG_RUNTIME_DIR".to_owned(),
                runtime.path().display().to_string(),
            ),
        ];
        let launcher = AppProcess::start_with_env(
            &format!("exec {LAUNCHER} --launch-immediately"),
            display,
            &env,
            &[],
        )?;
        let mut bus = Self {
            session,
            launcher,
            session_address,
            address: String::new(),
            _runtime: runtime,
        };
        bus.address = bus.ask_address(started, timeout).await?;
        Ok(bus)
    }

    /// Polls the session bus for the accessibility bus's address (`org.a11y.Bus.GetAddress`).
    async fn ask_address(
        &mut self,
        started: Instant,
        timeout: Duration,
    ) -> Result<String, DriveError> {
        let mut last = String::from("no answer");
        loop {
            if self.launcher.has_exited() {
                return Err(launch_error(format!(
                    "{LAUNCHER} exited at once (is Debian's at-spi2-core installed?)"
                )));
            }
            let left = timeout.saturating_sub(started.elapsed());
            match tokio::time::timeout(left, get_address(&self.session_address)).await {
                Ok(Ok(address)) if !address.is_empty() => return Ok(address),
                Ok(Ok(_)) => last = "an empty address".to_owned(),
                Ok(Err(error)) => last = error.to_string(),
                Err(_) => {}
            }
            if started.elapsed() >= timeout {
                return Err(launch_error(format!(
                    "the accessibility bus gave no address within {:.1} s ({last})",
                    timeout.as_secs_f64()
                )));
            }
            tokio::time::sleep(POLL).await;
        }
    }

    /// The accessibility bus's address, for a client.
    pub fn address(&self) -> &str {
        &self.address
    }

    /// What the application under test needs in its environment to publish its widgets: the
    /// session bus and the accessibility bus. (`NO_AT_BRIDGE` must also be unset.)
    pub fn app_env(&self) -> Vec<(String, String)> {
        vec![
            (
                "DBUS_SESSION_BUS_ADDRESS".to_owned(),
                self.session_address.clone(),
            ),
            ("AT_SPI_BUS_ADDRESS".to_owned(), self.address.clone()),
        ]
    }

    /// Ends the launcher (with the bus and registry it started) and the session bus; returns
    /// the processes still alive after that (empty when all ended).
    pub async fn end(&mut self) -> Vec<u32> {
        let mut left = self.launcher.end().await;
        left.extend(self.session.end().await);
        left
    }
}

/// `org.a11y.Bus.GetAddress` on the session bus at `session`.
async fn get_address(session: &str) -> zbus::Result<String> {
    let connection = zbus::connection::Builder::address(session)?.build().await?;
    let reply = connection
        .call_method(
            Some("org.a11y.Bus"),
            "/org/a11y/bus",
            Some("org.a11y.Bus"),
            "GetAddress",
            &(),
        )
        .await?;
    reply.body().deserialize::<String>()
}

fn launch_error(detail: String) -> DriveError {
    DriveError::Launch {
        backend: NAME.to_owned(),
        detail,
    }
}
