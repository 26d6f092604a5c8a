//! The signals that stop a run: SIGINT (Ctrl-C) and SIGTERM (`kill`, `timeout`, a CI runner
//! cancelling a job). Both end `retrace run`, `retrace replay` and `retrace act` as an
//! interruption: exit 2, the reports of what ran written, no browser left.

use retrace_runner::suite::Interrupt;
use tokio::signal::unix::SignalKind;

/// Waits for SIGINT or SIGTERM; the signal's name.
async fn stop_signal() -> &'static str {
    let Ok(mut terminate) = tokio::signal::unix::signal(SignalKind::terminate()) else {
        // No SIGTERM handler could be installed: Ctrl-C alone stops the run.
        let _ = tokio::signal::ctrl_c().await;
        return "SIGINT";
    };
    tokio::select! {
        Ok(()) = tokio::signal::ctrl_c() => "SIGINT",
        _ = terminate.recv() => "SIGTERM",
    }
}

/// Raises `interrupt`, naming the signal, when SIGINT or SIGTERM comes. Call it inside the
/// runtime before the run starts; abort the returned task when the run is over.
pub fn watch(interrupt: &Interrupt) -> tokio::task::JoinHandle<()> {
    let interrupt = interrupt.clone();
    tokio::spawn(async move {
        let signal = stop_signal().await;
        interrupt.trigger_by(signal);
    })
}
