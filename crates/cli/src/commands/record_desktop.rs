//! `retrace record --display`: the desktop branch of `retrace record` (a person's input on an
//! X11 display, see [`retrace_runner::desktop_record`]).

use retrace_protocol::events::Events;
use retrace_runner::desktop::DesktopConfig;
use retrace_runner::desktop_record::DesktopRecordJob;
use retrace_runner::suite::Interrupt;

use crate::outcome::Outcome;

/// Records `job` on `desktop` until Ctrl-C, SIGTERM or the window closes, and writes the
/// file.
pub fn run(
    job: &DesktopRecordJob,
    desktop: &DesktopConfig,
    events: &Events,
) -> anyhow::Result<Outcome> {
    let runtime = retrace_runner::runtime()?;
    runtime.block_on(async {
        let interrupt = Interrupt::new();
        let watcher = crate::signals::watch(&interrupt);
        let recorded = retrace_runner::desktop_record::record_on_desktop(
            job,
            desktop,
            interrupt.triggered(),
            events,
        )
        .await;
        watcher.abort();
        recorded
    })?;
    Ok(Outcome::Pass)
}
