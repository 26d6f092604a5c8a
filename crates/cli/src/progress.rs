//! [`SuiteProgress`]: the suite's live display, a sink of its event stream. On a terminal,
//! one progress bar (indicatif) with the suite's console lines above it
//! ([`ConsoleView::Suite`]: a line per finished test and its time, and per retry); when not a
//! terminal, the same lines with no bar. `retrace run --json` subscribes none.

use std::io::Write;
use std::sync::Arc;

use indicatif::ProgressBar;
use indicatif::ProgressStyle;
use retrace_protocol::events::Event;
use retrace_protocol::events::EventSink;
use retrace_report::console::ConsoleLines;
use retrace_report::console::ConsoleView;

/// Prints a line per finished test, with a bar on a terminal.
#[derive(Debug)]
pub struct SuiteProgress {
    bar: Option<ProgressBar>,
}

impl SuiteProgress {
    /// A display for `tests` tests; with a bar when `terminal`.
    pub fn new(tests: usize, terminal: bool) -> Arc<Self> {
        let bar = terminal.then(|| {
            let bar = ProgressBar::new(tests as u64);
            if let Ok(style) =
                ProgressStyle::with_template("{bar:30} {pos}/{len} tests  {elapsed}  {msg}")
            {
                bar.set_style(style);
            }
            bar
        });
        Arc::new(Self { bar })
    }

    fn print(&self, line: &str) {
        match &self.bar {
            Some(bar) => bar.println(line),
            None => {
                // A reader that went away is not this sink's business: the summary's write
                // will end the command.
                let mut stdout = crate::output::stdout();
                let _ = writeln!(stdout, "{line}");
                let _ = stdout.flush();
            }
        }
    }
}

impl EventSink for SuiteProgress {
    fn emit(&self, event: &Event) {
        for line in ConsoleLines::new(ConsoleView::Suite).lines(event) {
            self.print(&line);
        }
        match event {
            Event::TestFinished(_) => {
                if let Some(bar) = &self.bar {
                    bar.inc(1);
                }
            }
            Event::SuiteFinished(_) => {
                if let Some(bar) = &self.bar {
                    bar.finish_and_clear();
                }
            }
            _ => {}
        }
    }
}
