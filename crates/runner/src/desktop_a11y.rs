//! The accessibility layer of a desktop run: a private accessibility bus for the application
//! started with `--app`, and the client that reads its widgets once its window is shown.
//! An application that publishes nothing there (no AT-SPI bridge, `NO_AT_BRIDGE=1`, an Xt
//! program) runs with the visual checks alone, and the run says so once (a `target_notice`).

use std::time::Duration;

use retrace_drive::x11::atspi::AccessibilityBus;
use retrace_drive::x11::atspi::AtSpi;
use retrace_protocol::events::Event;
use retrace_protocol::events::Events;

/// The longest wait for the session and accessibility buses to start.
const BUS_TIMEOUT: Duration = Duration::from_secs(10);

/// The longest wait, once the window is shown and still, for the application to register on
/// the accessibility bus. A toolkit's bridge registers before its first window maps, so an
/// application that has not by then has none.
const REGISTER_TIMEOUT: Duration = Duration::from_secs(3);

/// The longest wait, once the application registered, for its window in its tree.
const SHOW_TIMEOUT: Duration = Duration::from_secs(20);

/// The environment variable that keeps GTK's accessibility bridge off; the application under
/// test does not inherit it (a command that sets it itself still may).
pub(crate) const NO_AT_BRIDGE: &str = "NO_AT_BRIDGE";

/// Starts the buses for an application on `display`; `None`, with a notice saying why, when
/// they cannot start (the run is then visual only).
pub(crate) async fn start_bus(display: &str, events: &Events) -> Option<AccessibilityBus> {
    match AccessibilityBus::start(display, BUS_TIMEOUT).await {
        Ok(bus) => Some(bus),
        Err(error) => {
            notice(
                display,
                events,
                format!("no accessibility bus ({error}): checks are visual only"),
            );
            None
        }
    }
}

/// The client of `bus` once `command`'s application shows on it; `None`, with a notice, when
/// it does not (the run is then visual only).
pub(crate) async fn client(
    bus: &AccessibilityBus,
    command: &str,
    display: &str,
    events: &Events,
) -> Option<AtSpi> {
    let client = match AtSpi::connect(bus.address()).await {
        Ok(client) => client,
        Err(error) => {
            notice(display, events, format!("{error}: checks are visual only"));
            return None;
        }
    };
    if client
        .wait_for_windows(REGISTER_TIMEOUT, SHOW_TIMEOUT)
        .await
    {
        return Some(client);
    }
    notice(
        display,
        events,
        format!(
            "`{command}` publishes no accessibility tree (AT-SPI): it has no accessibility \
             bridge, or it is turned off ({NO_AT_BRIDGE}=1); its steps are checked by the \
             visual layer alone"
        ),
    );
    None
}

fn notice(display: &str, events: &Events, message: String) {
    events.emit(Event::TargetNotice {
        target: format!("desktop {display}"),
        message,
    });
}
