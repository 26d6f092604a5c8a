//! `retrace record --display`: the desktop branch of `retrace record` (a person's input on an
//! X11 display, see [`retrace_runner::desktop_record`]).

use anyhow::Context;
use retrace_protocol::events::Events;
use retrace_report::ConsoleSink;
use retrace_report::JsonLinesSink;
use retrace_runner::Parameters;
use retrace_runner::desktop::DesktopConfig;
use retrace_runner::desktop_record::DesktopRecordJob;
use retrace_runner::suite::Interrupt;

use super::record::RecordArgs;
use crate::outcome::Outcome;

/// Records on `desktop` until Ctrl-C, SIGTERM or the window closes, and writes the file.
pub fn run(args: &RecordArgs, desktop: &DesktopConfig) -> anyhow::Result<Outcome> {
    let job = DesktopRecordJob {
        out: args.out.clone(),
        parameters: args.params.clone(),
    };
    let secrets = Parameters::new(args.params.clone(), Vec::new()).secrets();
    let mut events = Events::none().with(ConsoleSink::stdout(secrets.clone()));
    if let Some(path) = &args.events {
        let sink = JsonLinesSink::create(path, secrets)
            .with_context(|| format!("cannot write the events file {}", path.display()))?;
        events.subscribe(sink);
    }
    let runtime = retrace_runner::runtime()?;
    runtime.block_on(async {
        let interrupt = Interrupt::new();
        let watcher = crate::signals::watch(&interrupt);
        let recorded = retrace_runner::desktop_record::record_on_desktop(
            &job,
            desktop,
            interrupt.triggered(),
            &events,
        )
        .await;
        watcher.abort();
        recorded
    })?;
    Ok(Outcome::Pass)
}
